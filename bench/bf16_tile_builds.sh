#!/usr/bin/env bash
# Builds of lib/Kernels/bf16_gemm_nt.tile with one and two consumer
# warpgroups (BLK_M = 64, 128) and BLK_N 64-256, each with as many stages as
# fit (at most 12), into DIR for bench/gemm_bench.py --bundle.
#   bench/bf16_tile_builds.sh DIR
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dir=${1:?usage: bf16_tile_builds.sh DIR}
tilec=${TILEC:-$here/build/bin/tilec}
mkdir -p "$dir"
for bm in 64 128; do
  for bn in 64 128 192 256; do
    # Stages: A and B tiles per stage, the output tile, 16 bytes of barriers.
    stages=$(( (232448 - bm * bn * 2) / ((bm + bn) * 64 * 2 + 16) ))
    [ $stages -gt 12 ] && stages=12
    "$tilec" "$here/lib/Kernels/bf16_gemm_nt.tile" -D BLK_M=$bm -D BLK_N=$bn \
      -D STAGES=$stages -o "$dir/b${bm}x${bn}_s${stages}.tilec"
  done
done
ls "$dir"

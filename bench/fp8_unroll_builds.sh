#!/usr/bin/env bash
# Builds FP8 run 14's bundles (bench/results/2026-12-01-fp8-gemm.md): the
# config table's 1D2D configurations with the consumer's K loop unrolled
# 1, 2, 4 and 8 times (-D UNROLL), into DIR, and prints fp8_gemm.py's
# --bundle arguments for them:
#   bench/fp8_unroll_builds.sh DIR [TILEC]
set -euo pipefail
dir=${1:?usage: fp8_unroll_builds.sh DIR [TILEC]}
tilec=${2:-build/bin/tilec}
mkdir -p "$dir"
source "$(dirname "$0")/fp8_build_lib.sh"
# name:BLK_M:BLK_N:MAX_KB[:extra -D ...]
for cfg in "64x32:64:32:128" "64x32n:64:32:0" "64x64:64:64:128" "64x128:64:128:128" \
           "w2:256:128:0:WAVES=2:CLUSTER_N=2"; do
  IFS=: read -r name bm bn kb extra <<<"$cfg"
  for u in 1 2 4 8; do
    fp8_build "${name}_u$u" BLK_M=$bm BLK_N=$bn MAX_KB=$kb UNROLL=$u ${extra//:/ }
  done
done
echo "${args[@]}"

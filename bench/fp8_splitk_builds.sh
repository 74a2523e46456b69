#!/usr/bin/env bash
# Builds the split-K study's bundles of FP8 run 12 (bench/results/2026-12-01-fp8-gemm.md)
# into DIR and prints fp8_gemm.py's arguments for them:
#   bench/fp8_splitk_builds.sh DIR [TILEC]  ->  --bundle ... --split-bundle ...
# Split builds: fp8_gemm_1d2d -D SPLIT_K=S -D OUT=f32 plus splitk_reduce for
# (S, BLK_M); the unsplit ones are the config table's small-M picks.
set -euo pipefail
dir=${1:?usage: fp8_splitk_builds.sh DIR [TILEC]}
tilec=${2:-build/bin/tilec}
mkdir -p "$dir"
source "$(dirname "$0")/fp8_build_lib.sh"
# The table's unsplit picks for M <= 128 (MAX_KB staged where K > 4096).
for tile in 64x32 64x64 64x128 128x128; do
  fp8_build n$tile BLK_M=${tile%%x*} BLK_N=${tile##*x} MAX_KB=128
done
for cfg in 64x32:2 64x32:7 64x64:2 64x64:4 64x64:14 64x128:2 64x128:4 \
           128x32:7 128x64:2 128x64:4 128x64:14 128x128:2; do
  tile=${cfg%%:*}; s=${cfg##*:}
  fp8_split k${tile}_s$s "$s" "${tile%%x*}" BLK_N=${tile##*x} MAX_KB=128
done
echo "${args[@]}"

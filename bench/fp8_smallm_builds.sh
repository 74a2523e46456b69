#!/usr/bin/env bash
# Builds the few-row study's bundles (BLK_M = 16 and 32: a 64-row wgmma over
# an A stage TMA fills BLK_M rows of), beside the 64-row builds they replace,
# unsplit and split, into DIR, and prints fp8_gemm.py's arguments for them:
#   bench/fp8_smallm_builds.sh DIR [TILEC]
set -euo pipefail
dir=${1:?usage: fp8_smallm_builds.sh DIR [TILEC]}
tilec=${2:-build/bin/tilec}
mkdir -p "$dir"
source "$(dirname "$0")/fp8_build_lib.sh"
for tile in 16x64 16x128 32x64 64x64 64x128; do
  fp8_build n$tile BLK_M=${tile%%x*} BLK_N=${tile##*x} MAX_KB=128 UNROLL=4
done
fp8_build n16x32 BLK_M=16 BLK_N=32 MAX_KB=128 UNROLL=4
for cfg in 16x64:2 16x64:4 16x128:2 16x128:4 64x64:4 64x128:4; do
  tile=${cfg%%:*}; s=${cfg##*:}
  fp8_split k${tile}_s$s "$s" "${tile%%x*}" BLK_N=${tile##*x} MAX_KB=128 UNROLL=4
done
echo "${args[@]}"

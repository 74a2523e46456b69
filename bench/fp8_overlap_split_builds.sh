#!/usr/bin/env bash
# Builds FP8 run 33's bundles (bench/results/2026-12-02-fp8-gemm.md) into DIR
# and prints fp8_gemm.py's arguments: the config table's overlapped small-M
# picks, split K with overlapped pairs, and the 128-row widths for M > 128.
#   bench/fp8_overlap_split_builds.sh DIR [TILEC]
set -euo pipefail
dir=${1:?usage: fp8_overlap_split_builds.sh DIR [TILEC]}
tilec=${2:-build/bin/tilec}
mkdir -p "$dir"
source "$(dirname "$0")/fp8_build_lib.sh"
fp8_build v64x32gu2 BLK_M=64 BLK_N=32 MAX_KB=0 UNROLL=2 OVERLAP=1
fp8_build v64x64 BLK_M=64 BLK_N=64 OVERLAP=1
fp8_build v64x128 BLK_M=64 BLK_N=128 OVERLAP=1
fp8_build v128x128 BLK_M=128 BLK_N=128 OVERLAP=1
fp8_build n128x192 BLK_M=128 BLK_N=192
fp8_build n128x192g BLK_M=128 BLK_N=192 MAX_KB=0
fp8_split k16x64_s4u4 4 16 BLK_N=64 UNROLL=4
fp8_split k16x64_s4v 4 16 BLK_N=64 OVERLAP=1
for cfg in 64x32:2 64x32:3 64x64:2 64x64:4 64x128:2 128x128:2; do
  tile=${cfg%%:*}; s=${cfg##*:}
  fp8_split k${tile}_s${s}v "$s" "${tile%%x*}" BLK_N=${tile##*x} OVERLAP=1
done
echo "${args[@]}"

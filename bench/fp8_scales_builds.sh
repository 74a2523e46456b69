#!/usr/bin/env bash
# Builds the B-scale variants of the two-wave 256x128 FP8 tile the config
# table picks for large M with K <= 4096 (bench/results/2026-12-06-fp8-gap-analysis.md:
# there each K block's scale load is awaited by its promotion), into DIR,
# and prints fp8_gemm.py's --bundle arguments for them:
#   w2_pick      the pick (MAX_KB = 0, UNROLL = 8)
#   w2_staged    MAX_KB = 128: the tile's scales staged in shared memory
#   w2_ahead_u1  SCALES_AHEAD = 1, UNROLL = 1: each block's scale read during
#                the block before (not sunk to its use without unrolling)
#   w2_u1        UNROLL = 1, the control for w2_ahead_u1
#   bench/fp8_scales_builds.sh DIR [TILEC]
set -euo pipefail
dir=${1:?usage: fp8_scales_builds.sh DIR [TILEC]}
tilec=${2:-build/bin/tilec}
mkdir -p "$dir"
source "$(dirname "$0")/fp8_build_lib.sh"
base=(BLK_M=256 BLK_N=128 WAVES=2 CLUSTER_N=2 STAGES=3)
fp8_build w2_pick "${base[@]}" MAX_KB=0 UNROLL=8
fp8_build w2_staged "${base[@]}" MAX_KB=128 UNROLL=8
fp8_build w2_ahead_u1 "${base[@]}" MAX_KB=0 UNROLL=1 SCALES_AHEAD=1
fp8_build w2_u1 "${base[@]}" MAX_KB=0 UNROLL=1
echo "${args[@]}"

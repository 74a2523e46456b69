#!/usr/bin/env bash
# Builds the FP8 1D2D tiles the config table picks for the compass shapes
# twice, with the tensor maps promoting 128-byte and 256-byte lines into L2
# (tilec --l2-promotion; 256 is the default since commit 62f8b00, on
# evidence from two machines: bench/results/2026-12-06-mqa-spread.md), into
# DIR, and prints fp8_gemm.py's --bundle arguments for them, so that one
# process times both beside DeepGEMM:
#   bash bench/l2_promotion_builds.sh DIR [TILEC]
#   python3 bench/fp8_gemm.py $(cat DIR/args) --check-shapes S --time-shapes S --rounds 5
set -euo pipefail
dir=${1:?usage: l2_promotion_builds.sh DIR [TILEC]}
tilec=${2:-build/bin/tilec}
mkdir -p "$dir"
source "$(dirname "$0")/fp8_build_lib.sh"
wide=(BLK_M=256 BLK_N=128 WAVES=2 CLUSTER_N=2 STAGES=3 UNROLL=8)
for l2 in 128 256; do
  tilec_flags=(--l2-promotion=$l2)
  fp8_build w2_k0_l2_$l2 "${wide[@]}" MAX_KB=0          # K <= 4096
  fp8_build w2_k128_l2_$l2 "${wide[@]}" MAX_KB=128      # larger K
  fp8_build n192_l2_$l2 BLK_M=128 BLK_N=192 STAGES=4 MAX_KB=128
done
echo "${args[@]}" | tee "$dir/args"

#!/usr/bin/env bash
# The next device call's questions, in one command (600 s at most), most
# decisive first; each step is skipped once the time is short
# (bench/steps.sh). Run from the checkout on the GPU machine with the
# compiler library, .anchors and out/ carried (out/scales holds the FP8
# bundles, compiled on the VM: bash bench/fp8_scales_builds.sh out/scales):
#
#   bash bench/device_plan.sh COMMIT
#
# 1. fp8-scales: one process, 10 interleaved rounds, the two-wave 256x128
#    FP8 tile at the small-K shapes where tilec trails DeepGEMM with the
#    same configuration (bench/results/2026-12-06-fp8-gap-analysis.md): the
#    pick (B scales read in their block), the scales staged in shared
#    memory (MAX_KB = 128), read a block ahead (SCALES_AHEAD = 1, UNROLL =
#    1) and its control (UNROLL = 1).
# 2. grouped-sa0/1: the grouped FP8 kinds (quick cases) without and with
#    SCALES_AHEAD = 1 (the grouped kernels run UNROLL = 1; MAX_KB = 0 for
#    K <= 4096).
# 3. moe-ranks: tilec.moe over 2 and 4 processes on this one GPU (gloo
#    group, symmetric-memory workspace; bench/moe_ranks_check.py): every
#    dispatch and combine row crosses to another process's buffer.
# Writes its tables under $OUT and prints a summary last.
set -uo pipefail
commit=${1:-unknown}
out=${OUT:-/tmp/device-plan}
work=/tmp/device-plan-work
mkdir -p "$out" "$work"
start=$(date +%s)
source "$(dirname "${BASH_SOURCE[0]}")/steps.sh"

python3 -m pip install -q --no-build-isolation --no-deps . \
  -Ccmake.define.TILEC_COMPILER_LIBRARY="$PWD/build/lib/libtilec_compiler.so" \
  > "$work/pip.log" 2>&1 || { tail -30 "$work/pip.log"; exit 1; }
mkdir -p /tmp/site && tar xzf .anchors/deep_gemm-site.tgz -C /tmp/site
export PYTHONPATH=/tmp/site PYTHONUNBUFFERED=1
LD_PRELOAD="$(g++ -print-file-name=libstdc++.so.6)"
export LD_PRELOAD
cmake -S runtime -B /tmp/rt -G Ninja -DTILEC_BUILD_TESTS=OFF \
  -DTILEC_BUILD_GPU_TESTS=OFF > /dev/null && ninja -C /tmp/rt > /dev/null
export TILEC_RUNTIME_LIB=/tmp/rt/libtilec_runtime.so
echo "setup: $(($(date +%s) - start)) s"

SHAPES=4096x32768x512,4096x24576x1536,4096x4096x4096,4096x7168x2048
step fp8-scales 240 python3 bench/fp8_gemm.py --bundle out/scales/w2_pick.tilec \
  --bundle out/scales/w2_staged.tilec --bundle out/scales/w2_ahead_u1.tilec \
  --bundle out/scales/w2_u1.tilec --check-shapes $SHAPES --time-shapes $SHAPES \
  --rounds 10 --markdown "$out/fp8-scales.md"
for v in 0 1; do
  step grouped-sa$v 100 python3 bench/py_grouped_check.py --kinds fp8 --quick \
    --define-kind fp8 --define SCALES_AHEAD=$v --markdown "$out/grouped-sa$v.md"
done
step moe-ranks 150 python3 bench/moe_ranks_check.py --markdown "$out/moe-ranks.md"

echo "== summary"
for f in "$out"/*.md; do
  echo "-- $(basename "$f")"
  grep -iE "geometric|all checks|FAIL|\| sync_check" "$f" | head -8
done
tail -12 "$out/fp8-scales.md" 2>/dev/null
cat "$out/moe-ranks.md" 2>/dev/null
for f in "$out"/grouped-sa*.md; do grep -E "x \|$" "$f" | awk -F'|' '{print $3,$4,$5,$6,$7,$(NF-1)}'; done

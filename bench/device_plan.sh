#!/usr/bin/env bash
# The next device call's questions, in one command (600 s at most), most
# decisive first; each step is skipped once the time is short
# (bench/steps.sh). Run from the checkout on the GPU machine with the
# compiler library, .anchors and out/ carried (out/ holds the sync check's
# bundles, compiled on the VM:
#   build/bin/tilec bench/sync_check.tile -o out/sync_check.tilec
#   build/bin/tilec bench/sync_check.tile -D SYNC=0 -o out/sync_check_nosync.tilec):
#
#   bash bench/device_plan.sh COMMIT
#
# 1. grouped-sa0/1: the grouped FP8 kinds (quick cases) without and with
#    SCALES_AHEAD = 1 (MAX_KB = 0's B scales read during the block before,
#    after its wgmma is issued; run 11's relaxed loads before the next
#    block's wait were slower).
# 2. dense-sa: the small-K FP8 shapes with SCALES_AHEAD = 1 and UNROLL = 1
#    (unrolled, the load is sunk to its use again) beside the default.
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

for v in 0 1; do
  step grouped-sa$v 70 python3 bench/py_grouped_check.py --kinds fp8 --quick \
    --define-kind fp8 --define SCALES_AHEAD=$v --markdown "$out/grouped-sa$v.md"
done
SHAPES=4096x32768x512,4096x24576x1536,4096x4096x4096
step dense-sa0 40 python3 bench/vs_deepgemm.py --commit "$commit" --dtypes fp8 \
  --shapes $SHAPES --markdown "$out/dense-sa0.md"
step dense-sa1 40 python3 bench/vs_deepgemm.py --commit "$commit" --dtypes fp8 \
  --shapes $SHAPES --define SCALES_AHEAD=1 --define UNROLL=1 --markdown "$out/dense-sa1.md"

echo "== summary"
for f in "$out"/*.md; do
  echo "-- $(basename "$f")"
  grep -iE "geometric|all checks|FAIL|\| sync_check" "$f" | head -8
done
for f in "$out"/dense-sa*.md; do grep -E "^\| [0-9]" "$f" | awk -F'|' '{print $2,$3,$4,$(NF-2)}'; done
for f in "$out"/grouped-sa*.md; do grep -E "x \|$" "$f" | awk -F'|' '{print $3,$4,$5,$6,$7,$(NF-1)}'; done

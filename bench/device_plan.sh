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
# 1. sync_check: issue 17's atomics, acquire loads, grid syncs and peer
#    views, checked on the GPU (bench/sync_check.py; never run yet).
# 2. grouped-p0/p1/p2: the M-grouped FP8 contiguous kernel with its group
#    index read one tile ahead (PREFETCH = 1) and its B scales too
#    (PREFETCH = 2), each against DeepGEMM in its own process (issue 14:
#    tilec's contiguous kernel is 6-12% slower than its psum kernel on the
#    same work; the contiguous tile starts on two dependent global loads).
# 3. compass-fp8: the recorded FP8 compass with the 256x128 two-wave tile's
#    K loop unrolled 8 times (issue 11; measured on an H100 only).
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

step sync_check 60 python3 bench/sync_check.py out/sync_check.tilec \
  out/sync_check_nosync.tilec --markdown "$out/sync-check.md"
step grouped-p0 110 python3 bench/py_grouped_check.py --kinds fp8 \
  --layouts contiguous,psum --markdown "$out/grouped-p0.md"
for p in 1 2; do
  step grouped-p$p 70 python3 bench/py_grouped_check.py --kinds fp8 \
    --layouts contiguous --define-kind fp8 --define PREFETCH=$p \
    --markdown "$out/grouped-p$p.md"
done
step compass-fp8 200 python3 bench/vs_deepgemm.py --commit "$commit" \
  --dtypes fp8 --shapes compass --markdown "$out/vs-fp8.md"

echo "== summary"
for f in "$out"/*.md; do
  echo "-- $(basename "$f")"
  grep -iE "geometric|all checks|FAIL|\| sync_check" "$f" | head -8
done

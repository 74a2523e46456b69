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
# 1. compass-fp8: the FP8 compass with MAX_KB = 0's B scales read one K
#    block ahead (relaxed loads; Nsight Compute in run 10 found the scale's
#    load, sunk to its use, stalling every block of the shapes with K <=
#    4096, which read the scales from global memory).
# 2. grouped-fp8: the grouped FP8 kinds against DeepGEMM with the same change.
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

step compass-fp8 220 python3 bench/vs_deepgemm.py --commit "$commit" \
  --dtypes fp8 --shapes compass --markdown "$out/vs-fp8.md"
step grouped-fp8 300 python3 bench/py_grouped_check.py --kinds fp8 \
  --markdown "$out/grouped-fp8.md"

echo "== summary"
for f in "$out"/*.md; do
  echo "-- $(basename "$f")"
  grep -iE "geometric|all checks|FAIL|\| sync_check" "$f" | head -8
done
grep -E "^\| [0-9]" "$out/vs-fp8.md" | awk -F'|' '{print $2,$3,$4,$(NF-2)}'

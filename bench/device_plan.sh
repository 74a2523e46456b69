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
# 1. moe: tilec.moe.fp8_moe_layer's checks with the SwiGLU kernel
#    (bench/moe_check.py, local and over a 1-rank symmetric-memory group),
#    where its ~2 ms per call go (torch.profiler over 5 calls at T = 1024;
#    run 8 measured the same time at T = 1), and memcheck.
# 2. ncu-contiguous: Nsight Compute on the grouped FP8 contiguous kernels,
#    tilec's and DeepGEMM's, on the same work (run 8 profiled the psum
#    pair: 2.17 against 2.09 ms, SM throughput 85% against 92%).
# 3. dg-configs: DeepGEMM's own picks (DG_PRINT_CONFIGS=1) on the FP8
#    shapes where tilec is below it (issue 11).
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

step moe 200 python3 bench/moe_check.py --profile "$out/moe-profile.txt" \
  --markdown "$out/moe.md"
step moe-memcheck 100 compute-sanitizer --tool memcheck --error-exitcode 1 \
  python3 bench/moe_check.py --quick --no-group --reps 1
grep -E "ERROR SUMMARY" "$work/moe-memcheck.log"
step ncu-contiguous 120 ncu --clock-control none --section SpeedOfLight \
  --section WarpStateStats --section SchedulerStats --section Occupancy \
  -k "regex:m_grouped|sm90_fp8" --launch-skip 2 --launch-count 2 \
  python3 bench/ncu_grouped.py --groups 4 --expected-m 8192 --n 6144 \
  --k 7168 --layouts contiguous
cp "$work/ncu-contiguous.log" "$out/ncu-contiguous.txt" 2>/dev/null
DG_PRINT_CONFIGS=1 step dg-configs 120 python3 bench/vs_deepgemm.py \
  --commit "$commit" --dtypes fp8 --markdown "$out/dg-configs.md" \
  --shapes 4096x32768x512,4096x24576x1536,4096x2112x7168,4096x4096x4096
cp "$work/dg-configs.log" "$out/dg-configs.txt" 2>/dev/null

echo "== summary"
for f in "$out"/*.md; do
  echo "-- $(basename "$f")"
  grep -iE "geometric|all checks|FAIL|\| sync_check" "$f" | head -8
done
[ -f "$out/moe.md" ] && tail -8 "$out/moe.md"
head -40 "$out/moe-profile.txt" 2>/dev/null
grep -iE "sm90|BLOCK|config" "$out/dg-configs.txt" 2>/dev/null | head -12

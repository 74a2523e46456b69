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
# 1. moe: tilec.moe.fp8_moe_layer's checks with moe_scatter_rows over a 2-D
#    grid (bench/moe_check.py; run 9 profiled its 4 launches at 63 us each
#    on 32 CTAs), and the profile again.
# 2. ncu-fp8: Nsight Compute on the FP8 GEMM 4096x32768x512, where tilec
#    and DeepGEMM run the same configuration (256x128, CLUSTER_N = 2, 3
#    stages: DG_PRINT_CONFIGS in run 9) and tilec is at 0.88-0.91x: stall
#    reasons, instruction mix, memory, side by side.
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

step moe 150 python3 bench/moe_check.py --profile "$out/moe-profile.txt" \
  --markdown "$out/moe.md"
step ncu-fp8 200 ncu --clock-control none --section SpeedOfLight \
  --section WarpStateStats --section SchedulerStats --section InstructionStats \
  --section MemoryWorkloadAnalysis --section LaunchStats --section SourceCounters \
  -k "regex:fp8_gemm_1d2d" --launch-skip 2 --launch-count 2 \
  python3 bench/ncu_fp8_package.py 4096x32768x512
cp "$work/ncu-fp8.log" "$out/ncu-fp8.txt" 2>/dev/null

echo "== summary"
for f in "$out"/*.md; do
  echo "-- $(basename "$f")"
  grep -iE "geometric|all checks|FAIL|\| sync_check" "$f" | head -8
done
[ -f "$out/moe.md" ] && tail -8 "$out/moe.md"
grep -E "moe_|m_grouped" "$out/moe-profile.txt" 2>/dev/null | cut -c1-60,100-200 | head -8
grep -E "fp8_gemm|Duration|Compute \(SM\) Throughput|L2 Cache Throughput|Warp Cycles Per Issued" "$out/ncu-fp8.txt" | cut -c1-120

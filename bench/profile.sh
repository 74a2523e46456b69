#!/usr/bin/env bash
# Nsight Compute on one kernel of a GEMM bundle at M=N=K=SIZE: speed of
# light, warp stall reasons and memory traffic, key lines only.
#   bash bench/profile.sh out/04.tilec hopper_persistent 4096
set -uo pipefail
bundle="$1"; kernel="$2"; size="${3:-4096}"
logs="${OUT:-/tmp/tilec-logs}"
mkdir -p "$logs"
log="$logs/ncu-$kernel.txt"
timeout 240 ncu --clock-control none -k "regex:$kernel" --launch-skip 3 --launch-count 1 \
  --section SpeedOfLight --section WarpStateStats --section MemoryWorkloadAnalysis \
  --section LaunchStats --section Occupancy \
  python3 "$(dirname "$0")/gemm_bench.py" --bundle "$bundle" --check-shapes none \
  --time-shapes "$size" > "$log" 2>&1
echo "ncu $kernel: exit $?"
grep -E "Duration|Compute \(SM\) Throughput|Memory Throughput|L2 Cache Throughput|Stall|Warp Cycles Per Issued|Grid Size|Cluster Size|Achieved Occupancy|DRAM Throughput|Issued Warp|No Eligible" "$log" | head -30

#!/usr/bin/env bash
# compute-sanitizer (memcheck, racecheck, synccheck) on one GEMM bundle at a
# small size, through the runtime's Python wrapper. Prints one line per tool.
#   bash bench/sanitize.sh out/06.tilec
set -uo pipefail
bundle="$1"
logs="${OUT:-/tmp/tilec-logs}"
mkdir -p "$logs"
for tool in memcheck racecheck synccheck; do
  log="$logs/sanitizer-$tool.log"
  timeout 240 compute-sanitizer --tool "$tool" --kernel-name kns=hopper \
    --error-exitcode 9 python3 "$(dirname "$0")/gemm_bench.py" \
    --bundle "$bundle" --check-shapes tiny --time-shapes "" > "$log" 2>&1
  rc=$?
  summary=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY|hazard" "$log" | tail -1)
  echo "compute-sanitizer $tool: exit $rc; ${summary:-no summary}"
done

#!/usr/bin/env bash
# One recorded GEMM benchmark on the GPU machine: builds the runtime, checks
# every bundle in out/ on all shapes, times them against cuBLAS at 4096^3,
# 8192^3 and DeepGEMM's shapes, runs compute-sanitizer on rung 6, and writes
# a Markdown report (date, GPU, commit, command, tables) to $OUT/results.md.
#   COMMIT=<sha> bash bench/record.sh
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
out="${OUT:-/tmp/tilec-logs}"
mkdir -p "$out"
report="$out/results.md"
cmake -S runtime -B /tmp/rt -G Ninja -DTILEC_BUILD_TESTS=OFF \
  -DTILEC_BUILD_GPU_TESTS=OFF >/dev/null && ninja -C /tmp/rt >/dev/null || exit 1
export TILEC_RUNTIME_LIB=/tmp/rt/libtilec_runtime.so
export LD_PRELOAD="$(g++ -print-file-name=libstdc++.so.6)"
{
  echo "# Hopper GEMM ladder against cuBLAS"
  echo
  echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "- GPU: $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader)"
  echo "- torch: $(python3 -c 'import torch; print(torch.__version__)')"
  echo "- commit: ${COMMIT:-unknown} (bundles compiled by tilec at that commit)"
  echo "- command: \`COMMIT=${COMMIT:-unknown} bash bench/record.sh\` (runs \`python3 bench/gemm_bench.py --bundle out/<rung>.tilec ... --check-shapes default --time-shapes 4096,8192 --time-deepgemm\`)"
  echo
} > "$report"
bundles=()
for f in out/*.tilec; do case "$(basename "$f")" in copy*) ;; *) bundles+=(--bundle "$f") ;; esac; done
PYTHONUNBUFFERED=1 python3 bench/gemm_bench.py "${bundles[@]}" --check-shapes default \
  --time-shapes 4096,8192 --time-deepgemm --markdown "$report" > "$out/bench.log" 2>&1
echo "bench exit: $?"
if [ -f out/06.tilec ]; then
  { echo; echo "compute-sanitizer on rung 6 (M,N,K = 256,512,256 and 200,264,136):"; echo; } >> "$report"
  bash bench/sanitize.sh out/06.tilec | sed 's/^/- /' >> "$report"
fi
tail -40 "$report"

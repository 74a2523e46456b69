#!/usr/bin/env bash
# One GPU session: build and check the runtime, run the copy kernel tilec
# compiled through the example app, then check and time the GEMM bundles in
# out/ against cuBLAS. Compile the bundles on the development machine first
# (they travel in out/). Prints a summary last; logs go to $OUT when set.
#
#   bash bench/gpu_session.sh [check-shapes: quick|default|none] [time-shapes]
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
logs="${OUT:-/tmp/tilec-logs}"
mkdir -p "$logs"
work=/tmp/tilec-gpu
checks="${1:-quick}"
times="${2:-4096,8192}"

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader || true
echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"

bash runtime/scripts/gpu-check.sh "$work" > "$logs/gpu-check.log" 2>&1
echo "runtime gpu-check exit: $?"
tail -20 "$logs/gpu-check.log"

lib="$work/prefix/lib/libtilec_runtime.so"
export TILEC_RUNTIME_LIB="$lib"
export LD_PRELOAD="$(g++ -print-file-name=libstdc++.so.6)"

if [ -f out/copy.tilec ] && [ -x "$work/app-build/tilec-copy-app" ]; then
  echo "=== example app on tilec's copy kernel"
  "$work/app-build/tilec-copy-app" out/copy.tilec tma_copy 1000 3000 2>&1 | tail -5
fi

if [ -f out/epilogue_check.tilec ]; then
  echo "=== loads into registers and guarded stores (bench/epilogue_check.py)"
  PYTHONUNBUFFERED=1 python3 bench/epilogue_check.py out/epilogue_check.tilec \
    --markdown "$logs/epilogue_check.md" 2>&1 | tail -12
fi

bundles=()
for f in out/*.tilec; do
  case "$(basename "$f")" in copy*|epilogue_check*) ;; *) bundles+=(--bundle "$f") ;; esac
done
if [ "${#bundles[@]}" -gt 0 ]; then
  echo "=== GEMM check and timing"
  PYTHONUNBUFFERED=1 python3 bench/gemm_bench.py "${bundles[@]}" \
    --check-shapes "$checks" --time-shapes "$times" \
    --markdown "$logs/gemm.md" 2>&1 | tee "$logs/gemm.log" | tail -60
fi

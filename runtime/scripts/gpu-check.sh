#!/usr/bin/env bash
# GPU check of the tilec runtime, for the GPU machine (no LLVM, no gtest
# needed): builds the runtime standalone, installs it, builds examples/app
# against the installed package, runs the GPU tests, the example app and the
# torch/ctypes check, and prints a summary table last.
#
#   bash runtime/scripts/gpu-check.sh [work-dir]     (default /tmp/tilec-gpu-check)
#
# Exit status: 0 when every step passed or was skipped, 1 otherwise.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
work="${1:-/tmp/tilec-gpu-check}"
build="$work/runtime-build"
prefix="$work/prefix"
app_build="$work/app-build"
jobs="$(nproc 2>/dev/null || echo 8)"
generator=()
if command -v ninja >/dev/null 2>&1; then generator=(-G Ninja); fi

steps=()
results=()
seconds=()
failed=0

# run_step NAME COMMAND...: runs and records PASS, SKIP (exit 77) or FAIL,
# and keeps going so that the summary covers every step.
run_step() {
  local name="$1"
  shift
  echo
  echo "=== $name"
  echo "+ $*"
  local start status=0
  start=$(date +%s)
  "$@" || status=$?
  steps+=("$name")
  seconds+=("$(($(date +%s) - start))")
  if [ "$status" -eq 0 ]; then
    results+=("PASS")
  elif [ "$status" -eq 77 ]; then
    results+=("SKIP")
  else
    results+=("FAIL (exit $status)")
    failed=1
  fi
}

# Later steps need earlier outputs; a step whose input is missing is skipped.
need() {
  [ -e "$1" ] || {
    echo "missing $1 (an earlier step failed)"
    return 77
  }
}

echo "tilec runtime GPU check: source $root, work dir $work"
if command -v nvidia-smi >/dev/null 2>&1; then
  nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader || true
fi
command -v nvcc >/dev/null 2>&1 || export PATH="$PATH:/usr/local/cuda/bin"
rm -rf "$work"
mkdir -p "$work"

run_step "configure runtime (standalone)" \
  cmake -S "$root/runtime" -B "$build" "${generator[@]}" \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$prefix"
run_step "build runtime + tests" \
  cmake --build "$build" -j "$jobs"
run_step "ctest: CPU tests (unit tests only where gtest is installed)" \
  ctest --test-dir "$build" --output-on-failure -j 4 -LE gpu
# Run directly, not through ctest, so that a skip shows in the summary.
run_step "GPU test: reference TMA kernels, every byte checked" \
  "$build/test/gpu/tilec_gpu_tests" "$build/test/gpu/tma_copy.tilec" \
  "$build/test/gpu/tma_copy.cubin"
run_step "install to $prefix" \
  cmake --install "$build"

bundle="$build/test/gpu/tma_copy.tilec"
check_app() {
  need "$prefix/lib/cmake/tilec_runtime/tilec_runtimeConfig.cmake" || return
  cmake -S "$root/examples/app" -B "$app_build" "${generator[@]}" \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" &&
    cmake --build "$app_build" -j "$jobs"
}
run_step "build examples/app with find_package(tilec_runtime)" check_app

run_app() {
  need "$app_build/tilec-copy-app" && need "$bundle" || return
  "$app_build/tilec-copy-app" "$@"
}
run_step "app: tma_copy f32 4096x4096" run_app "$bundle" tma_copy 4096 4096
run_step "app: tma_copy_persistent bf16 777x520" \
  run_app "$bundle" tma_copy_persistent 777 520

run_torch() {
  need "$bundle" || return
  python3 -c "import torch" 2>/dev/null || {
    echo "torch not installed"
    return 77
  }
  TILEC_RUNTIME_LIB="$prefix/lib/libtilec_runtime.so" \
    python3 "$root/runtime/scripts/gpu_torch_check.py" "$bundle"
}
run_step "python ctypes wrapper with torch" run_torch

echo
echo "=== Summary (tilec runtime GPU check)"
printf '%-60s %-14s %s\n' "step" "result" "seconds"
for i in "${!steps[@]}"; do
  printf '%-60s %-14s %s\n' "${steps[$i]}" "${results[$i]}" "${seconds[$i]}"
done
exit "$failed"

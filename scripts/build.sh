#!/usr/bin/env bash
# Configures (once) and builds tilec, tile-opt, the runtime and the tests in
# build/ with ninja and ccache.  Usage: scripts/build.sh [ninja targets...]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${TILEC_BUILD_DIR:-$root/build}"
# The Python package's extension and tests use the environment that
# scripts/python-deps.sh makes, when it is there.
venv="${TILEC_VENV:-$root/.venv}"
python_args=()
if [ -x "$venv/bin/python" ]; then
  python_args=(-DPython_EXECUTABLE="$venv/bin/python"
               -DTILEC_PYTHON_FOR_TESTS="$venv/bin/python")
fi
if [ ! -f "$build/build.ninja" ] ||
   { [ "${#python_args[@]}" -gt 0 ] &&
     ! grep -q "^TILEC_PYTHON_FOR_TESTS:.*=$venv/bin/python\$" "$build/CMakeCache.txt"; }; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    "${python_args[@]}"
fi
# Two jobs per GiB-hungry MLIR compile would thrash a small machine; ninja's
# default (cores + 2) is fine up to 8 GiB per core.
ninja -C "$build" "$@"

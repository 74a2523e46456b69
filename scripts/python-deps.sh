#!/usr/bin/env bash
# Creates the Python environment that the package's extension (nanobind) and
# its tests (torch on the CPU) are built and run with: $TILEC_VENV, default
# .venv in the repository, from PyPI. Does nothing when it is complete.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${TILEC_VENV:-$root/.venv}"
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
if "$venv/bin/python" -c "import nanobind, scikit_build_core, numpy, torch" \
    2>/dev/null; then
  echo "python-deps: $venv complete"
  exit 0
fi
echo "python-deps: installing nanobind, scikit-build-core, numpy, torch into $venv"
"$venv/bin/python" -m pip install -q --no-cache-dir --upgrade pip
# PyPI's torch wheel is the CUDA build (several GB with its nvidia-*
# packages); the tests only use it on the CPU. No pip cache: it would hold a
# second copy of those GB, and CI once ran out of disk installing them.
"$venv/bin/python" -m pip install -q --no-cache-dir nanobind scikit-build-core numpy torch

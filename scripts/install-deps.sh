#!/usr/bin/env bash
# Installs every Debian 12 package tilec needs, then the Python environment
# of the package's extension and tests (scripts/python-deps.sh); does nothing
# when everything is there already. Needs root (or sudo) only when a Debian
# package is missing.
# The CUDA toolkit (ptxas) is not a Debian package: tilec finds it on PATH or
# in /usr/local/cuda; without it, tilec stops at PTX and the ptxas tests skip.
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache git python3
  python3-venv python3-dev      # the package's venv and extension headers
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools lld-22
  clang-22 libclang-rt-22-dev   # the front end's libFuzzer target
  libzstd-dev                   # LLVM's CMake config asks for it
  libfmt-dev libgtest-dev
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if [ "${#missing[@]}" -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exec "$here/python-deps.sh"
fi

echo "install-deps: installing ${missing[*]}"
sudo=()
if [ "$(id -u)" -ne 0 ]; then sudo=(sudo); fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -q
"${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
"$here/python-deps.sh"

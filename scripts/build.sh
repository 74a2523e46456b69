#!/usr/bin/env bash
# Configures (once) and builds tilec, tile-opt, the runtime and the tests in
# build/ with ninja and ccache.  Usage: scripts/build.sh [ninja targets...]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${TILEC_BUILD_DIR:-$root/build}"
if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release
fi
# Two jobs per GiB-hungry MLIR compile would thrash a small machine; ninja's
# default (cores + 2) is fine up to 8 GiB per core.
ninja -C "$build" "$@"

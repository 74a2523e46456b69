#!/usr/bin/env bash
# Builds everything and runs every test: lit (dialect, passes, conversion,
# PTX with ptxas, front end, fuzzer when built) and the unit tests (support
# encoders, bundle format, runtime without a driver). GPU tests skip cleanly
# without a GPU.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${TILEC_BUILD_DIR:-$root/build}"
start=$(date +%s)
"$root/scripts/build.sh"
built=$(date +%s)
ctest --test-dir "$build" --output-on-failure -j "$(nproc)"
echo "build: $((built - start)) s, tests: $(($(date +%s) - built)) s"

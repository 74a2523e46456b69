#!/usr/bin/env bash
# Builds everything and runs every test: lit (dialect, passes, conversion,
# PTX with ptxas, front end) and the unit tests (support encoders, bundle
# format, runtime without a driver), then the front end's libFuzzer target
# (clang, ASan + UBSan) for 60 s. GPU tests skip cleanly without a GPU.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${TILEC_BUILD_DIR:-$root/build}"
fuzz="${build}-fuzz"
start=$(date +%s)
"$root/scripts/build.sh"
built=$(date +%s)
ctest --test-dir "$build" --output-on-failure -j "$(nproc)"
tested=$(date +%s)

# The fuzzer needs clang's libFuzzer, so it gets its own build tree.
if [ ! -f "$fuzz/build.ninja" ]; then
  cmake -S "$root" -B "$fuzz" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=/usr/lib/llvm-22/bin/clang \
    -DCMAKE_CXX_COMPILER=/usr/lib/llvm-22/bin/clang++ \
    -DTILEC_ENABLE_FUZZER=ON -DTILEC_BUILD_RUNTIME=ON
fi
ninja -C "$fuzz" tile-dsl-fuzzer
fuzz_built=$(date +%s)
/usr/lib/llvm-22/bin/lit -sv "$fuzz/test/Frontend/fuzz.test"
echo "build: $((built - start)) s, tests: $((tested - built)) s," \
     "fuzzer build: $((fuzz_built - tested)) s, fuzzing: $(($(date +%s) - fuzz_built)) s"

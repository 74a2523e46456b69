#!/bin/bash
# Packs the front end's fuzzer, the shared libraries it loads and the seed
# corpus into DIR, with DIR/run.sh SECONDS to fuzz on every core of a machine
# without LLVM (the GPU machine: carry DIR there). Usage:
#   scripts/fuzz-pack.sh out/fuzz [build-fuzz/bin/tile-dsl-fuzzer]
set -euo pipefail
dir=${1:?usage: fuzz-pack.sh DIR [FUZZER]}
fuzzer=${2:-build-fuzz/bin/tile-dsl-fuzzer}
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$dir/seeds"
libs=$(ldd "$fuzzer" | awk '/=>/ {print $3}' |
  grep -v -E 'lib(c|m|gcc_s|stdc\+\+|resolv)\.so|ld-linux')
tar cf - -h $libs 2>/dev/null | xz -T2 -6 > "$dir/libs.txz"
xz -T2 -6 -c "$fuzzer" > "$dir/tile-dsl-fuzzer.xz"
cp "$root/lib/Frontend/fuzzer/tile.dict" "$dir/"
cp "$root"/test/Frontend/*.tile "$root"/examples/*.tile \
  "$root"/examples/hopper/*.tile "$root"/examples/blackwell/*.tile "$dir/seeds/"
cp "$root/lib/Frontend/fuzzer/run-packed.sh" "$dir/run.sh"
echo "packed $(du -sh "$dir" | cut -f1) into $dir; run: bash $dir/run.sh SECONDS"

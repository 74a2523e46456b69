#!/usr/bin/env bash
# The main job: build tilec, compile the default example (the TMA copy kernel,
# examples/copy.tile) to PTX, a cubin and a bundle, print its resource report
# and, when a GPU is present, run it through the runtime's example app.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${TILEC_BUILD_DIR:-$root/build}"
example="${1:-$root/examples/copy.tile}"
"$root/scripts/build.sh" tilec
out="$build/examples"
mkdir -p "$out"
name="$(basename "${example%.*}")"
"$build/bin/tilec" "$example" --emit=ptx -o "$out/$name.ptx"
"$build/bin/tilec" "$example" --emit=cubin -o "$out/$name.cubin"
"$build/bin/tilec" "$example" --emit=bundle -o "$out/$name.tilec" --report

if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  echo "GPU found: running $name through the runtime"
  cmake -S "$root/runtime" -B "$build/runtime-standalone" -G Ninja >/dev/null
  ninja -C "$build/runtime-standalone" >/dev/null
  cmake --install "$build/runtime-standalone" --prefix "$build/runtime-prefix" >/dev/null
  cmake -S "$root/examples/app" -B "$build/app" -G Ninja \
    -DCMAKE_PREFIX_PATH="$build/runtime-prefix" >/dev/null
  ninja -C "$build/app" >/dev/null
  "$build/app/tilec-copy-app" "$out/$name.tilec"
else
  echo "no GPU here: compiled only (run $out/$name.tilec with examples/app on a GPU machine)"
fi

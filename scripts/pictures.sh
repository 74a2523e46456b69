#!/usr/bin/env bash
# Draws every example kernel into docs/pictures/ (tilec --emit=svg).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tilec="${TILEC:-$root/build/bin/tilec}"
mkdir -p "$root/docs/pictures"
for spec in "$root"/examples/*.tile "$root"/examples/*/*.tile; do
  dir="$(basename "$(dirname "$spec")")"
  name="$(basename "$spec" .tile)"
  [ "$dir" = examples ] && out="$name" || out="${dir}_${name}"
  "$tilec" "$spec" --emit=svg -o "$root/docs/pictures/$out.svg"
done
ls "$root/docs/pictures"

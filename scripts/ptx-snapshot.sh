#!/usr/bin/env bash
# Writes the PTX (and the lowered MLIR) of every example spec, and of a few
# -D variants of rung 6, into OUTDIR, one file each, so that two compilers can
# be compared with `diff -r`. A refactoring that keeps behaviour keeps these
# files byte-identical.  Usage: scripts/ptx-snapshot.sh OUTDIR [tilec]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:?usage: ptx-snapshot.sh OUTDIR [tilec]}"
tilec="${2:-$root/build/bin/tilec}"
mkdir -p "$out"
emit() { # name spec [args...]
  local name="$1" spec="$2"
  shift 2
  "$tilec" "$spec" "$@" --emit=ptx -o "$out/$name.ptx"
}
for spec in "$root"/examples/*.tile "$root"/examples/*/*.tile; do
  rel="${spec#"$root"/examples/}"
  rel="${rel%.tile}"
  emit "${rel//\//_}" "$spec"
done
r6="$root/examples/hopper/06_fastest.tile"
emit 06_blkn128 "$r6" -D BLK_N=128 -D STAGES=5
emit 06_blkn192 "$r6" -D BLK_N=192 -D STAGES=4
emit 06_group16 "$r6" -D GROUP=16
echo "ptx-snapshot: $(ls "$out" | wc -l) files in $out"

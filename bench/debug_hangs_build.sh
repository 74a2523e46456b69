#!/usr/bin/env bash
# Builds the two bundles bench/debug_hangs_check.py runs on the GPU: rung 3
# with --debug-hangs (must still be correct) and the wrong-phase kernel
# (must report its hang and trap).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tilec="${TILEC:-$root/build/bin/tilec}"
mkdir -p "$root/out"
"$tilec" "$root/examples/hopper/03_warp_specialized.tile" --debug-hangs \
  -o "$root/out/hang_ok.tilec"
"$tilec" "$root/test/Target/Inputs/hang-wrong-phase.tile" --no-check-protocol \
  --debug-hangs -o "$root/out/hang_wrong_phase.tilec"
ls -l "$root/out/hang_ok.tilec" "$root/out/hang_wrong_phase.tilec"

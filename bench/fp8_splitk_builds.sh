#!/usr/bin/env bash
# Builds the split-K study's bundles of FP8 run 12 (bench/results/2026-12-01-fp8-gemm.md)
# into DIR and prints fp8_gemm.py's arguments for them:
#   bench/fp8_splitk_builds.sh DIR [TILEC]  ->  --bundle ... --split-bundle ...
# Split builds: fp8_gemm_1d2d -D SPLIT_K=S -D OUT=f32 plus splitk_reduce for
# (S, BLK_M); the unsplit ones are the config table's small-M picks.
set -euo pipefail
dir=${1:?usage: fp8_splitk_builds.sh DIR [TILEC]}
tilec=${2:-build/bin/tilec}
here=$(cd "$(dirname "$0")/.." && pwd)
spec=$here/lib/Kernels/fp8_gemm_1d2d.tile
reduce=$here/lib/Kernels/splitk_reduce.tile
mkdir -p "$dir"
args=()
build() { # name, -D flags...
  local name=$1; shift
  local flags=()
  for d in "$@"; do flags+=(-D "$d"); done
  "$tilec" "$spec" "${flags[@]}" -o "$dir/$name.tilec" >&2
}
# The table's unsplit picks for M <= 128 (MAX_KB staged where K > 4096).
build n64x32 BLK_M=64 BLK_N=32 MAX_KB=128
build n64x64 BLK_M=64 BLK_N=64 MAX_KB=128
build n64x128 BLK_M=64 BLK_N=128 MAX_KB=128
build n128x128 BLK_M=128 BLK_N=128 MAX_KB=128
args+=(--bundle "$dir/n64x32.tilec" --bundle "$dir/n64x64.tilec"
       --bundle "$dir/n64x128.tilec" --bundle "$dir/n128x128.tilec")
for s in 2 4 7 14; do
  for m in 64 128; do
    "$tilec" "$reduce" -D SPLIT_K=$s -D BLK_M=$m -o "$dir/reduce_s${s}_m${m}.tilec" >&2
  done
done
for cfg in 64x32:2 64x32:7 64x64:2 64x64:4 64x64:14 64x128:2 64x128:4 \
           128x32:7 128x64:2 128x64:4 128x64:14 128x128:2; do
  tile=${cfg%%:*}; s=${cfg##*:}; bm=${tile%%x*}; bn=${tile##*x}
  name=k${tile}_s${s}
  build "$name" BLK_M=$bm BLK_N=$bn MAX_KB=128 SPLIT_K=$s OUT=f32
  args+=(--split-bundle "$dir/$name.tilec:$dir/reduce_s${s}_m${bm}.tilec:$s:$bm")
done
echo "${args[@]}"

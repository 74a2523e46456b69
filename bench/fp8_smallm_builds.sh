#!/usr/bin/env bash
# Builds the few-row studies' bundles (BLK_M = 16 and 32: a 64-row wgmma over
# an A stage TMA fills BLK_M rows of) into DIR and prints fp8_gemm.py's
# arguments for them:
#   bench/fp8_smallm_builds.sh DIR SET [TILEC]
# SET run19: M <= 32 (beside the 64-row builds they replace, split and not);
#     run20: M = 128 with 16- and 32-row tiles, and M = 1 with N > 8192
#     (wider tiles, B scales from global memory);
#     run21: 12 and 16 stages on the small-M picks.
set -euo pipefail
dir=${1:?usage: fp8_smallm_builds.sh DIR SET [TILEC]}
set_name=${2:?usage: fp8_smallm_builds.sh DIR SET [TILEC]}
tilec=${3:-build/bin/tilec}
mkdir -p "$dir"
source "$(dirname "$0")/fp8_build_lib.sh"
tile_build() { # NAME TILE FLAG...: BLK_M x BLK_N from TILE
  local name=$1 tile=$2; shift 2
  fp8_build "$name" BLK_M=${tile%%x*} BLK_N=${tile##*x} "$@"
}
tile_split() { # NAME TILE SPLIT_K FLAG...
  local name=$1 tile=$2 s=$3; shift 3
  fp8_split "$name" "$s" "${tile%%x*}" BLK_N=${tile##*x} "$@"
}
case $set_name in
run19)
  for tile in 16x64 16x128 32x64 64x64 64x128 16x32; do
    tile_build n$tile $tile MAX_KB=128 UNROLL=4
  done
  for cfg in 16x64:2 16x64:4 16x128:2 16x128:4 64x64:4 64x128:4; do
    tile_split k${cfg%%:*}_s${cfg##*:} ${cfg%%:*} ${cfg##*:} MAX_KB=128 UNROLL=4
  done ;;
run20)
  # M = 128: the table's 64x32 (global scales, unrolled) and 64x64, beside
  # 16- and 32-row tiles of as many CTAs or more.
  tile_build g64x32 64x32 MAX_KB=0 UNROLL=4
  tile_build n64x64 64x64 MAX_KB=128 UNROLL=4
  for tile in 32x32 32x64 32x128 16x64 16x128; do
    tile_build g$tile $tile MAX_KB=0 UNROLL=4
    tile_build n$tile $tile MAX_KB=128 UNROLL=4
  done
  tile_split k32x64_s2 32x64 2 MAX_KB=128 UNROLL=4
  tile_split k32x128_s2 32x128 2 MAX_KB=128 UNROLL=4
  # M = 1, N > 8192, K <= 1536: wide tiles, global scales.
  for tile in 16x96 16x160 16x192; do
    tile_build g$tile $tile MAX_KB=0 UNROLL=1
  done
  tile_build g16x128u1 16x128 MAX_KB=0 UNROLL=1 ;;
run21)
  # More stages than the spec's default ceiling of 12 (DeepGEMM allows 16),
  # on the small-M tables' tiles and DeepGEMM's picks (64x16, 64x112).
  for st in 12 16; do
    tile_build g64x32_st$st 64x32 MAX_KB=0 UNROLL=4 MAX_STAGES=$st
    tile_build n64x64_st$st 64x64 MAX_KB=128 UNROLL=4 MAX_STAGES=$st
    tile_build g64x16_st$st 64x16 MAX_KB=0 UNROLL=4 MAX_STAGES=$st
    tile_build n16x64_st$st 16x64 MAX_KB=128 UNROLL=4 MAX_STAGES=$st
    tile_split k16x64_s4_st$st 16x64 4 MAX_KB=128 UNROLL=4 MAX_STAGES=$st
  done
  tile_build n64x112 64x112 MAX_KB=128 UNROLL=4
  tile_build g64x112 64x112 MAX_KB=0 UNROLL=4
  tile_build n64x128 64x128 MAX_KB=128 UNROLL=4
  tile_build g16x64 16x64 MAX_KB=0 UNROLL=4 MAX_STAGES=16 ;;
*)
  echo "unknown set '$set_name': run19, run20 or run21" >&2; exit 2 ;;
esac
echo "${args[@]}"

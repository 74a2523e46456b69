#!/usr/bin/env bash
# The bf16_gemm_nt builds of runs 42, 44 and 48 (bench/results/2026-12-03-vs-deepgemm.md):
# 16- and 32-row tiles, split K with its splitk_reduce, and the 64/128-row
# widths, each with as many stages as fit (at most 16 in run 42, 12 in run
# 44); run 48 the 64-row tiles with BLK_K 128 and 192 (2 and 3 swizzle
# atoms a stage: one wgmma wait per 8 or 12 wgmmas, as DeepGEMM's merged
# stages) beside BLK_K 64 with 16 stages; run 49 the winners of run 48
# with split K and the large tiles (with SPEC, another spec's); into DIR; prints
# bench/gemm_bench.py's --bundle / --split-bundle arguments last.
#   [SPEC=F PREFIX=P DEFS=...] bench/bf16_small_m_builds.sh DIR run42|run44|run48|run49|run51
#   python3 bench/gemm_bench.py $(bench/bf16_small_m_builds.sh out/b42 run42 | tail -1) \
#       --deepgemm --check-shapes quick --time-shapes <shapes>
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dir=${1:?usage: bf16_small_m_builds.sh DIR run42|run44|run48|run49|run51}
run=${2:?usage: bf16_small_m_builds.sh DIR run42|run44|run48|run49|run51}
tilec=${TILEC:-$here/build/bin/tilec}
# SPEC: another bf16_gemm_nt spec to build (a variant under test); PREFIX
# goes in front of its bundles' names.
spec=${SPEC:-$here/lib/Kernels/bf16_gemm_nt.tile}
prefix=${PREFIX:-}
# DEFS: more -D flags for every build (such as "-D MMA_INFLIGHT=1").
read -r -a defs <<< "${DEFS:-}"
mkdir -p "$dir"
args=()

# Stages that fit: A stages of max(64, BLK_M) rows, B stages (BLK_K
# elements a row, 64 unless given), the output tile (D_BYTES per element)
# and 16 bytes of barriers per stage.
stages() {
  local bm=$1 bn=$2 d_bytes=$3 cap=$4 bk=${5:-64} rows
  rows=$(( bm < 64 ? 64 : bm ))
  local s=$(( (232448 - rows * bn * d_bytes) / ((rows + bn) * bk * 2 + 16) ))
  echo $(( s > cap ? cap : s ))
}

unsplit() {  # BLK_M BLK_N CAP [BLK_K]
  local bk=${4:-64} s name
  s=$(stages "$1" "$2" 2 "$3" "$bk")
  name=$dir/${prefix}b$1x$2$( [ "$bk" = 64 ] || echo "_k$bk")_s$s.tilec
  "$tilec" "$spec" -D BLK_M="$1" -D BLK_N="$2" -D BLK_K="$bk" \
    -D STAGES="$s" "${defs[@]}" -o "$name"
  args+=(--bundle "$name")
}

split() {  # BLK_M BLK_N SPLIT_K CAP [BLK_K]
  local bk=${5:-64} s red name
  s=$(stages "$1" "$2" 4 "$4" "$bk")
  red=$dir/reduce_k$3_m$1.tilec
  [ -f "$red" ] || "$tilec" "$here/lib/Kernels/splitk_reduce.tile" \
    -D SPLIT_K="$3" -D BLK_M="$1" -D OUT=bf16 -o "$red"
  name=$dir/${prefix}b$1x$2$( [ "$bk" = 64 ] || echo "_k$bk")_s${s}_k$3.tilec
  "$tilec" "$spec" -D BLK_M="$1" -D BLK_N="$2" -D BLK_K="$bk" \
    -D STAGES="$s" -D SPLIT_K="$3" -D OUT=f32 "${defs[@]}" -o "$name"
  args+=(--split-bundle "$name:$red:$3:$1")
}

case $run in
  run42)
    for t in "16 32" "16 64" "16 128" "16 256" "32 64" "32 128" "64 64"; do
      unsplit $t 16
    done
    for t in "16 64 2" "16 64 4" "16 128 2" "16 128 4" "64 64 2" "64 64 4"; do
      split $t 16
    done ;;
  run44)
    for t in "32 64" "32 128" "64 32" "64 64" "64 96" "64 128" "128 32" \
             "128 64" "128 96" "128 128" "128 144" "128 192"; do
      unsplit $t 12
    done
    for t in "64 64 2" "64 64 4" "64 128 2" "128 64 2" "32 64 2" "128 32 2" \
             "128 48 2" "128 32 4"; do
      split $t 12
    done ;;
  run48)
    for n in 32 48 64 112 128; do
      unsplit 64 $n 16
      unsplit 64 $n 8 128
      unsplit 64 $n 6 192
    done
    split 64 64 2 16 ;;
  run49)
    for t in "64 32 16 64" "64 32 6 192" "64 64 6 128" "64 112 4 128" \
             "128 64 8 64" "128 144 5 64" "128 256 3 64"; do
      unsplit $t
    done
    for t in "64 32 2 6 192" "64 32 4 6 192" "64 64 2 6 128" "64 64 4 6 128" \
             "64 64 2 13 64" "64 64 4 13 64"; do
      split $t
    done ;;
  run51)  # M = 1: the 16-row tiles (with DEFS="-D MMA_INFLIGHT=1" too)
    for t in "16 64 12 64" "16 64 8 128"; do
      unsplit $t
    done
    for t in "16 64 2 12 64" "16 64 2 8 128" "16 64 4 8 128" "16 32 2 8 128"; do
      split $t
    done ;;
  *) echo "bf16_small_m_builds.sh: unknown run '$run'; use run42, run44, run48, run49 or run51" >&2; exit 2 ;;
esac
echo "${args[@]}"

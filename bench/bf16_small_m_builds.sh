#!/usr/bin/env bash
# The bf16_gemm_nt builds of runs 42, 44 and 48 (bench/results/2026-12-03-vs-deepgemm.md):
# 16- and 32-row tiles, split K with its splitk_reduce, and the 64/128-row
# widths, each with as many stages as fit (at most 16 in run 42, 12 in run
# 44); run 48 the 64-row tiles with BLK_K 128 and 192 (2 and 3 swizzle
# atoms a stage: one wgmma wait per 8 or 12 wgmmas, as DeepGEMM's merged
# stages) beside BLK_K 64 with 16 stages; into DIR; prints
# bench/gemm_bench.py's --bundle / --split-bundle arguments last.
#   bench/bf16_small_m_builds.sh DIR run42|run44|run48
#   python3 bench/gemm_bench.py $(bench/bf16_small_m_builds.sh out/b42 run42 | tail -1) \
#       --deepgemm --check-shapes quick --time-shapes <shapes>
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dir=${1:?usage: bf16_small_m_builds.sh DIR run42|run44|run48}
run=${2:?usage: bf16_small_m_builds.sh DIR run42|run44|run48}
tilec=${TILEC:-$here/build/bin/tilec}
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

wide_k() {  # BLK_M BLK_N BLK_K CAP
  local s; s=$(stages "$1" "$2" 2 "$4" "$3")
  "$tilec" "$here/lib/Kernels/bf16_gemm_nt.tile" -D BLK_M="$1" -D BLK_N="$2" \
    -D BLK_K="$3" -D STAGES="$s" -o "$dir/b$1x$2_k$3_s$s.tilec"
  args+=(--bundle "$dir/b$1x$2_k$3_s$s.tilec")
}

unsplit() {  # BLK_M BLK_N CAP
  local s; s=$(stages "$1" "$2" 2 "$3")
  "$tilec" "$here/lib/Kernels/bf16_gemm_nt.tile" -D BLK_M="$1" -D BLK_N="$2" \
    -D STAGES="$s" -o "$dir/b$1x$2_s$s.tilec"
  args+=(--bundle "$dir/b$1x$2_s$s.tilec")
}

split() {  # BLK_M BLK_N SPLIT_K CAP
  local s red; s=$(stages "$1" "$2" 4 "$4")
  red=$dir/reduce_k$3_m$1.tilec
  [ -f "$red" ] || "$tilec" "$here/lib/Kernels/splitk_reduce.tile" \
    -D SPLIT_K="$3" -D BLK_M="$1" -D OUT=bf16 -o "$red"
  "$tilec" "$here/lib/Kernels/bf16_gemm_nt.tile" -D BLK_M="$1" -D BLK_N="$2" \
    -D STAGES="$s" -D SPLIT_K="$3" -D OUT=f32 -o "$dir/b$1x$2_s${s}_k$3.tilec"
  args+=(--split-bundle "$dir/b$1x$2_s${s}_k$3.tilec:$red:$3:$1")
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
      wide_k 64 $n 128 8
      wide_k 64 $n 192 6
    done
    split 64 64 2 16 ;;
  *) echo "bf16_small_m_builds.sh: unknown run '$run'; use run42, run44 or run48" >&2; exit 2 ;;
esac
echo "${args[@]}"

#!/usr/bin/env bash
# Builds named variants of the FP8 1D2D spec into DIR and writes
# fp8_gemm.py's --bundle arguments for them to DIR/args, so that one
# process checks and times them all beside DeepGEMM (PLAN=fp8-bundles in
# bench/device_plan.sh, with out/ carried):
#   bash bench/fp8_variant_builds.sh DIR NAME:PARAM=V,PARAM=V ... [-- TILEC]
#   bash bench/fp8_variant_builds.sh out/v w2:BLK_M=256,BLK_N=128,WAVES=2 c3:BLK_M=192
set -euo pipefail
dir=${1:?usage: fp8_variant_builds.sh DIR NAME:PARAM=V,... [-- TILEC]}
shift
tilec=build/bin/tilec
variants=()
while [ $# -gt 0 ]; do
  if [ "$1" = "--" ]; then tilec=${2:?a tilec after --}; break; fi
  variants+=("$1")
  shift
done
mkdir -p "$dir"
source "$(dirname "$0")/fp8_build_lib.sh"
for v in "${variants[@]}"; do
  IFS=, read -ra params <<< "${v#*:}"
  fp8_build "${v%%:*}" "${params[@]}"
done
echo "${args[@]}" | tee "$dir/args"

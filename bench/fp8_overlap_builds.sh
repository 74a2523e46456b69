#!/usr/bin/env bash
# Bundles of the FP8 overlap run (bench/results/2026-12-02-fp8-overlap.md):
# fp8_gemm_1d2d.tile's small-M and 128x128 tiles as the config table builds
# them (o*) against the same tiles with OVERLAP = 1 (v*: two temporaries in
# turn, block k's wgmma overlapping block k - 1's promotion).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
T=./build/bin/tilec
D=${1:-out/ov}; mkdir -p "$D"
S=lib/Kernels/fp8_gemm_1d2d.tile
b() { local name=$1; shift; local f=(); for x in "$@"; do f+=(-D "$x"); done
      $T $S "${f[@]}" -o "$D/$name.tilec" --report 2>&1 | grep -E "spill|error|warning" | grep -v " 0 bytes" || true
      echo -n "--bundle $D/$name.tilec "; }
b o16x64u4   BLK_M=16 BLK_N=64 UNROLL=4
b v16x64     BLK_M=16 BLK_N=64 OVERLAP=1
b v16x64u2   BLK_M=16 BLK_N=64 OVERLAP=1 UNROLL=2
b o64x32u4g  BLK_M=64 BLK_N=32 UNROLL=4 MAX_KB=0
b v64x32g    BLK_M=64 BLK_N=32 OVERLAP=1 MAX_KB=0
b v64x32gu2  BLK_M=64 BLK_N=32 OVERLAP=1 MAX_KB=0 UNROLL=2
b o64x64     BLK_M=64 BLK_N=64
b v64x64     BLK_M=64 BLK_N=64 OVERLAP=1
b o64x128    BLK_M=64 BLK_N=128
b v64x128    BLK_M=64 BLK_N=128 OVERLAP=1
b o128x128   BLK_M=128 BLK_N=128
b v128x128   BLK_M=128 BLK_N=128 OVERLAP=1
echo

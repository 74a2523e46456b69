#!/usr/bin/env bash
# Bundles of run 24 (bench/results/2026-12-02-fp8-gemm.md): the two-B-scale promotion, old (a product per element)
# against new (a select between the row's two products), and wide tiles.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
T=./build/bin/tilec
D=out/b24; mkdir -p $D
# The spec before the select-between-products promotion.
git show c925c5e:lib/Kernels/fp8_gemm_1d2d.tile > /tmp/fp8_old.tile
b() { local name=$1 src=$2; shift 2; local f=(); for x in "$@"; do f+=(-D "$x"); done
      echo "== $name"; $T $src "${f[@]}" -o $D/$name.tilec --report 2>&1 | grep -E "spill|error|regis" | grep -v " 0 bytes stored" || true; }
NEW=lib/Kernels/fp8_gemm_1d2d.tile OLD=/tmp/fp8_old.tile
b o128x192c  $OLD BLK_M=128 BLK_N=192 CLUSTER_M=2
b n128x192c  $NEW BLK_M=128 BLK_N=192 CLUSTER_M=2
b n128x192cg $NEW BLK_M=128 BLK_N=192 CLUSTER_M=2 MAX_KB=0
b n128x192   $NEW BLK_M=128 BLK_N=192
b o128x144g  $OLD BLK_M=128 BLK_N=144 MAX_KB=0
b n128x144g  $NEW BLK_M=128 BLK_N=144 MAX_KB=0
b n128x128g  $NEW BLK_M=128 BLK_N=128 MAX_KB=0
b o64x112    $OLD BLK_M=64 BLK_N=112
b n64x112    $NEW BLK_M=64 BLK_N=112
b n64x128    $NEW BLK_M=64 BLK_N=128
b n128x128   $NEW BLK_M=128 BLK_N=128
ls $D

#!/usr/bin/env bash
# One device call: does testing the next K block's full barrier during the
# current block's wgmma (range(..., test_ahead = 1), tile-test-ahead) close
# the FP8 large-shape gap to DeepGEMM, alone and with the K loop unrolled?
# The question comes from bench/results/2026-12-04-vs-deepgemm.md's last
# section (the wait's try_wait exposed once per K block).
#
#   bash bench/test_ahead_probe.sh COMMIT dense     (the FP8 dense variants)
#   bash bench/test_ahead_probe.sh COMMIT grouped   (grouped FP8 and MQA)
#   bash bench/test_ahead_probe.sh COMMIT all       (the decisive runs of both)
#   bash bench/test_ahead_probe.sh COMMIT record    (A/B, then the FP8 compass with it)
#
# On the GPU machine with the package installed and DeepGEMM importable.
# Writes $OUT/ta-*.md and prints tilec / DeepGEMM per shape and variant
# last. Each step has a time-out so that the whole fits one 600 s command.
set -uo pipefail
commit=${1:-unknown}
what=${2:-dense}
out=${OUT:-/tmp/test-ahead-probe}
work=/tmp/test-ahead-probe-work
mkdir -p "$out" "$work"
dense=${DENSE_SHAPES:-4096x7168x16384,4096x4096x7168,8192x8192x8192,4096x24576x1536}
start=$(date +%s)

source "$(dirname "${BASH_SOURCE[0]}")/steps.sh"

dense_run() {
  local name=$1
  shift
  step "$name" 110 python3 bench/vs_deepgemm.py --commit "$commit" --dtypes fp8 \
    --shapes "$dense" "$@" --markdown "$out/ta-$name.md"
}

if [ "$what" = dense ] || [ "$what" = all ]; then
  dense_run pick
  dense_run ta1 --define TEST_AHEAD=1
  dense_run ta1-u2 --define TEST_AHEAD=1 --define UNROLL=2
  [ "$what" = dense ] && dense_run u2 --define UNROLL=2
fi
if [ "$what" = record ]; then
  # The A/B on the large shapes, then the whole FP8 compass with the
  # candidate default (a recordable run), then the grouped and MQA kernels
  # as time allows.
  dense_run pick
  dense_run ta1 --define TEST_AHEAD=1
  step compass-ta1 260 python3 bench/vs_deepgemm.py --commit "$commit" --dtypes fp8 \
    --shapes compass --define TEST_AHEAD=1 --markdown "$out/ta-compass-ta1.md"
fi
if [ "$what" = grouped ] || [ "$what" = all ] || [ "$what" = record ]; then
  step grouped-ta1 200 python3 bench/py_grouped_check.py --kinds fp8 \
    --define-kind fp8 --define TEST_AHEAD=1 --markdown "$out/ta-grouped-ta1.md"
  step mqa-ta1 120 python3 bench/py_mqa_bench.py --define TEST_AHEAD=1 \
    --markdown "$out/ta-mqa-ta1.md"
  [ "$what" = grouped ] && step mqa-base 120 python3 bench/py_mqa_bench.py \
    --markdown "$out/ta-mqa-base.md"
fi

for f in "$out"/ta-*.md; do
  echo "== $(basename "$f")"
  grep -E '^\| [0-9]+ \|' "$f" | awk -F'|' '{print $2, $3, $4, $(NF-2)}'
  grep -iE 'geometric' "$f" | head -5
done

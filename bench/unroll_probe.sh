#!/usr/bin/env bash
# One device call: the FP8 large shapes (dense and grouped) with the consumer's
# K loop unrolled, against the table's pick, beside DeepGEMM. The question it
# answers (bench/results/2026-12-04-vs-deepgemm.md, last section): does
# hiding the next stage's barrier try-wait under the promotion, as
# DeepGEMM's unrolled loop lets ptxas do, close the large-shape gap?
#
#   bash bench/unroll_probe.sh COMMIT    (on the GPU machine, the package
#                                         installed, DeepGEMM importable)
#
# Writes $OUT/unroll-*.md (the first list's plots go to /tmp) and prints
# tilec / DeepGEMM per shape and variant last.
set -uo pipefail
commit=${1:-unknown}
out=${OUT:-/tmp/unroll-probe}
mkdir -p "$out" /tmp/unroll-probe-work
dense=4096x7168x16384,4096x4096x7168,8192x8192x8192,4096x24576x1536
start=$(date +%s)

dense_run() {
  local name=$1
  shift
  timeout 120 python3 bench/vs_deepgemm.py --commit "$commit" --dtypes fp8 \
    --shapes "$dense" "$@" --markdown /tmp/unroll-probe-work/$name.md \
    > /tmp/unroll-probe-work/$name.log 2>&1
  echo "$name: rc $? at $(($(date +%s) - start)) s"
  cp /tmp/unroll-probe-work/$name.md "$out/unroll-$name.md" 2>/dev/null
}

# One device command runs at most 600 s: the dense runs get 120 s each and
# UNROLL = 8 runs only where time is left after the grouped check.
dense_run pick
dense_run u2 --define UNROLL=2
dense_run u4 --define UNROLL=4
timeout 180 python3 bench/py_grouped_check.py --kinds fp8 --define-kind fp8 \
  --define UNROLL=2 --markdown "$out/unroll-grouped-u2.md" \
  > /tmp/unroll-probe-work/grouped.log 2>&1
echo "grouped UNROLL=2: rc $? at $(($(date +%s) - start)) s"
if [ $(($(date +%s) - start)) -lt 420 ]; then dense_run u8 --define UNROLL=8; fi

for f in "$out"/unroll-*.md; do
  echo "== $(basename "$f")"
  # M N K ... tilec / DeepGEMM (the column before the last).
  grep -E '^\| [0-9]+ \|' "$f" | awk -F'|' '{print $2, $3, $4, $(NF-2)}'
  grep -E '^\| fp8 \|' "$f" | awk -F'|' '$NF == "" && $(NF-1) ~ /x/ {print $3, $4, $6, $7, $(NF-1)}'
done

#!/bin/bash
# Runs the fuzzer that scripts/fuzz-pack.sh packed beside this script on every
# core for $1 seconds and prints the executions summed over the jobs.
set -u
cd "$(dirname "$0")"
W=/tmp/fz; mkdir -p $W/lib $W/corpus
tar xJf libs.txz -C $W/lib --strip-components=0
# the tarball stores absolute paths without the leading /: flatten them
find $W/lib -type f -name '*.so*' -exec mv -t $W/lib {} + 2>/dev/null
cp seeds/* $W/corpus/
xz -dc tile-dsl-fuzzer.xz > $W/fuzzer && chmod +x $W/fuzzer
N=$(nproc)
export LD_LIBRARY_PATH=$W/lib
$W/fuzzer -help=1 >/dev/null 2>&1 || { ldd $W/fuzzer; exit 1; }
cd $W
start=$(date +%s)
./fuzzer corpus -dict=$OLDPWD/tile.dict -timeout=10 -rss_limit_mb=4096 -max_len=16384 \
  -print_final_stats=1 -jobs=$N -workers=$N -max_total_time=$1 >/dev/null 2>&1
end=$(date +%s)
total=0
for f in fuzz-*.log; do
  n=$(grep -o 'stat::number_of_executed_units: *[0-9]*' $f | grep -o '[0-9]*$')
  total=$((total + ${n:-0}))
done
crashes=$(ls crash-* leak-* timeout-* oom-* 2>/dev/null | wc -l)
echo "jobs=$N seconds=$((end - start)) executions=$total findings=$crashes"
grep -h "ERROR\|SUMMARY" fuzz-*.log | head -20
mkdir -p $OUT && cp fuzz-0.log $OUT/ 2>/dev/null
ls crash-* leak-* timeout-* oom-* 2>/dev/null | head -4 | xargs -r cp -t $OUT

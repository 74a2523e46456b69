#!/usr/bin/env bash
# The next device call's questions, in one command (600 s at most), most
# decisive first; each step is skipped once the time is short
# (bench/steps.sh). Run from the checkout on the GPU machine with the
# compiler library and .anchors carried:
#
#   bash bench/device_plan.sh COMMIT
#
# PLAN (default mqa,paged,dg-tests) picks the groups of steps:
# mqa:   mqa-spread, fp8_mqa_logits beside DeepGEMM on every case of
#        bench/py_mqa_bench.py with the grouped head reduction (SPREAD = 1,
#        the default: each logit in one thread after sum(..., groups));
#        mqa-control, cases at SPREAD = 0 (the kernel before) in their own
#        process with DeepGEMM beside them again; mqa-memcheck,
#        compute-sanitizer memcheck on the small odd-sized cases.
# paged: the same three for fp8_paged_mqa_logits: paged-spread with
#        --define SPREAD=1 (off by default) on the next_n 2 and 4 cases,
#        paged-control the default.
# paged-ab: bench/paged_ab.py, variants of the paged spec (VARIANTS, ";"
#        between them) in one process beside DeepGEMM on its 24 cases
#        (PAGED_AB_ARGS: more of its arguments, such as --graph).
# paged-ncu: Nsight Compute counters (time, SM active cycles min/avg/max,
#        DRAM bytes and throughput, L2 hit rate, instructions) of both
#        paged kernels on cases 3 and 19 (bench/ncu_paged.py), tilec's at
#        the library's params and at NCU_VARIANT (default KV_STAGES=3).
# mqa-quick: fp8_mqa_logits beside DeepGEMM on 9 of the cases.
# grouped-ahead: the contiguous FP8 grouped cases at the pick and with
#        GROUP_AHEAD=1 (each tile's group indices loaded a tile ahead), each
#        beside DeepGEMM.
# paged-full: fp8_paged_mqa_logits beside DeepGEMM on every case of
#        bench/py_paged_mqa_bench.py (the library's kernel), then
#        compute-sanitizer memcheck on its quick cases.
# sanity: the GEMMs' quick shapes (vs_deepgemm.py --shapes quick) and the
#        grouped GEMMs' small cases (py_grouped_check.py --small
#        --no-timing): correctness after a change to every kernel.
# paged-race: the paged kernel's repeat stress (bench/paged_repeat_stress.py)
#        with SPREAD = 1 and 0, and compute-sanitizer racecheck and synccheck
#        with SPREAD = 1 (run 7's unrepeatable case).
# l2:    one process, the FP8 tiles of the compass picks built with 128- and
#        256-byte L2 promotion (bench/l2_promotion_builds.sh out/l2 on the VM,
#        out/ carried) at eight shapes, beside DeepGEMM.
# masked-bm: the masked FP8 cases with the table's tile and with 64-row
#        tiles (py_grouped_check.py --define BLK_M=64).
# grouped-variants: GROUPED_KIND's (default fp8) GROUPED_LAYOUT cases at the
#        pick and at each of GROUPED_VARIANTS ("name:A=1 B=2;name2:C=3").
# kgrouped-one: K-grouped BF16 as one launch (the default) against a
#        launch per group (py_kgrouped_check.py --per-group), and its memcheck.
# kgrouped-fp8-one: K-grouped FP8 as one launch over all groups (tensor
#        lists; opt-in) and its memcheck on the small cases;
#        kgrouped-fp8-groups: a launch per group (the default).
# kgrouped-fp8-tiles: that one launch at each of KG_FP8_VARIANTS
#        (default "n160:BLK_N=160;n96:BLK_N=96"), beside DeepGEMM.
# gemm:  the FP8 compass shapes (vs_deepgemm.py) and the grouped FP8 kinds
#        (--quick), beside DeepGEMM.
# fp8-large: the large FP8 shapes beside DeepGEMM, then Nsight Compute
#        sections of both kernels at NCU_SHAPE (default 4096x7168x16384).
# fp8-pair: the 128x192-tile FP8 shapes at the pick and with CLUSTER_M=2
#        (B multicast, DeepGEMM's pick there), then Nsight Compute of both
#        paired kernels at 4096x2112x7168.
# grouped-ncu-source: Nsight Compute's instruction counts and stall sampling
#        by SASS line of tilec's contiguous and psum FP8 kernels on the same
#        rows (GNCU_CASE: bench/ncu_grouped.py's arguments).
# fp8-ncu-source: Nsight Compute's instruction counts and stall sampling by
#        SASS line of both kernels at NCU_SHAPE (default 4096x2112x7168).
# bundle-sanitize: compute-sanitizer memcheck, racecheck and synccheck on
#        the bundles of SAN_DIR (default out/v) at SAN_SHAPES.
# fp8-bundles: FP8 1D2D variants built on the VM (bench/fp8_variant_builds.sh
#        out/v ...) checked and timed in one process beside DeepGEMM.
# dg-grouped-picks: DeepGEMM's printed configuration (DG_PRINT_CONFIGS=1)
#        for each grouped case of GROUPED_KIND (checks only).
# dg-grouped: DeepGEMM's own grouped test functions (DG_GROUPED_FUNCTIONS,
#        default test_k_grouped_gemm_contiguous) of DG_GROUPED_TESTS
#        (default bf16,fp8) with tilec.deep_gemm.
# dg-tests: DeepGEMM's own test_mqa_logits and test_paged_mqa_logits with
#        tilec.deep_gemm (dg-mqa, dg-paged: one of them).
# Writes its tables under $OUT and prints a summary last.
set -uo pipefail
commit=${1:-unknown}
out=${OUT:-/tmp/device-plan}
work=/tmp/device-plan-work
mkdir -p "$out" "$work"
start=$(date +%s)
source "$(dirname "${BASH_SOURCE[0]}")/steps.sh"

python3 -m pip install -q --no-build-isolation --no-deps . \
  -Ccmake.define.TILEC_COMPILER_LIBRARY="$PWD/build/lib/libtilec_compiler.so" \
  > "$work/pip.log" 2>&1 || { tail -30 "$work/pip.log"; exit 1; }
mkdir -p /tmp/site && tar xzf .anchors/deep_gemm-site.tgz -C /tmp/site
export PYTHONPATH=/tmp/site PYTHONUNBUFFERED=1
LD_PRELOAD="$(g++ -print-file-name=libstdc++.so.6)"
export LD_PRELOAD
cmake -S runtime -B /tmp/rt -G Ninja -DTILEC_BUILD_TESTS=OFF \
  -DTILEC_BUILD_GPU_TESTS=OFF > /dev/null && ninja -C /tmp/rt > /dev/null
export TILEC_RUNTIME_LIB=/tmp/rt/libtilec_runtime.so
echo "setup: $(($(date +%s) - start)) s"

plan=${PLAN:-mqa,paged,dg-tests}
case ",$plan," in *,mqa,*)
step mqa-spread 200 python3 bench/py_mqa_bench.py --markdown "$out/mqa-spread.md"
step mqa-control 150 python3 bench/py_mqa_bench.py --define SPREAD=0 \
  --cases 0,1,6,7,12,13,14,15,18,19,20,21,24,26 --markdown "$out/mqa-control.md"
step mqa-memcheck 100 compute-sanitizer --tool memcheck --error-exitcode 9 \
  python3 bench/py_mqa_bench.py --small --reps 1 --markdown "$out/mqa-memcheck.md"
esac
case ",$plan," in *,paged,*)
step paged-spread 200 python3 bench/py_paged_mqa_bench.py --define SPREAD=1 \
  --cases 2,3,6,7,10,11,14,15,18,19,22,23,24,25,26,28,29 --markdown "$out/paged-spread.md"
step paged-control 150 python3 bench/py_paged_mqa_bench.py \
  --cases 2,3,6,7,10,11,14,15,18,19,22,23,24,28,29 --markdown "$out/paged-control.md"
step paged-memcheck 100 compute-sanitizer --tool memcheck --error-exitcode 9 \
  python3 bench/py_paged_mqa_bench.py --quick --reps 1 --markdown "$out/paged-memcheck.md"
esac
case ",$plan," in *,paged-ab,*)
IFS=';' read -ra variants <<< "${VARIANTS:-}"
variant_args=()
for v in "${variants[@]}"; do variant_args+=(--variant "$v"); done
# shellcheck disable=SC2086
step paged-ab 400 python3 bench/paged_ab.py --variant "" "${variant_args[@]}" \
  ${PAGED_AB_ARGS:-} --markdown "$out/paged-ab.md"
esac
case ",$plan," in *,paged-ncu,*)
metrics=gpu__time_duration.sum,sm__cycles_active.avg,sm__cycles_active.min,sm__cycles_active.max
metrics+=,sm__cycles_elapsed.max,dram__bytes_read.sum,dram__bytes_write.sum
metrics+=,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sector_hit_rate.pct
metrics+=,smsp__inst_executed.sum,lts__t_sectors_op_write.sum,lts__t_sectors_op_read.sum
for c in 3 19; do
  for d in "" ${NCU_VARIANT:-KV_STAGES=3}; do
    step "paged-ncu-$c${d:+-${d//=/_}}" 90 ncu --clock-control none --csv --metrics "$metrics" \
      -k regex:"fp8_paged_mqa_logits|^paged_mqa_logits" --launch-skip 2 --launch-count 4 \
      python3 bench/ncu_paged.py --case $c ${d:+--define $d}
    cp "$work/paged-ncu-$c${d:+-${d//=/_}}.log" "$out/" 2>/dev/null
  done
done
esac
# variant_steps PREFIX LIMIT VARIANTS FLAG COMMAND...: for each variant of
# VARIANTS ("name:A=1 B=2;name2:C=3") a step PREFIX + name running COMMAND
# with FLAG A=1 FLAG B=2 and its table in $out/PREFIX + name.md.
variant_steps() {
  local prefix=$1 limit=$2 flag=$4 v d variants=()
  IFS=';' read -ra variants <<< "$3"
  shift 4
  for v in "${variants[@]}"; do
    local defines=()
    for d in ${v#*:}; do defines+=("$flag" "$d"); done
    step "$prefix${v%%:*}" "$limit" "$@" "${defines[@]}" --markdown "$out/$prefix${v%%:*}.md"
  done
}
# grouped_runs KIND LAYOUT LIMIT PICK PREFIX VARIANTS: KIND's grouped cases
# of LAYOUT at the table's pick (step PICK), then at each of VARIANTS
# ("name:A=1 B=2;name2:C=3", step PREFIX + name), each beside DeepGEMM.
grouped_runs() {
  local kind=$1 layout=$2 limit=$3 pick=$4 prefix=$5
  step "$pick" "$limit" python3 bench/py_grouped_check.py --kinds "$kind" \
    --layouts "$layout" --markdown "$out/$pick.md"
  variant_steps "$prefix" "$limit" "$6" --define python3 bench/py_grouped_check.py \
    --kinds "$kind" --layouts "$layout" --define-kind "$kind"
}
# grouped_ab LAYOUT PICK VARIANT DEFINES: the FP8 cases of LAYOUT at the
# pick (step PICK) and with DEFINES (step VARIANT).
grouped_ab() { grouped_runs fp8 "$1" 120 "$2" "" "$3:$4"; }
case ",$plan," in *,grouped-ahead,*)
grouped_ab contiguous grouped-pick grouped-ahead GROUP_AHEAD=1
esac
case ",$plan," in *,paged-full,*)
step paged-full 290 python3 bench/py_paged_mqa_bench.py --markdown "$out/paged-full.md"
esac
case ",$plan," in *,mqa-quick,*)
step mqa-quick 150 python3 bench/py_mqa_bench.py --cases 0,1,6,12,13,18,19,24,26 \
  --markdown "$out/mqa-quick.md"
esac
case ",$plan," in *,sanity,*)
step sanity-gemm 100 python3 bench/vs_deepgemm.py --commit "$commit" --shapes quick \
  --markdown "$out/sanity-gemm.md"
step sanity-grouped 100 python3 bench/py_grouped_check.py --small --no-timing \
  --markdown "$out/sanity-grouped.md"
esac
case ",$plan," in *,paged-full,*)
step paged-memcheck 90 compute-sanitizer --tool memcheck --error-exitcode 9 \
  python3 bench/py_paged_mqa_bench.py --quick --reps 1 --markdown "$out/paged-memcheck.md"
esac
case ",$plan," in *,paged-race,*)
step paged-stress1 120 python3 bench/paged_repeat_stress.py --define SPREAD=1 --calls 300
step paged-stress0 100 python3 bench/paged_repeat_stress.py --calls 300
for tool in racecheck synccheck; do
  step paged-$tool 150 compute-sanitizer --tool $tool --error-exitcode 9 \
    python3 bench/py_paged_mqa_bench.py --quick --reps 1 --define SPREAD=1 --cases 0,2
done
esac
case ",$plan," in *,l2,*)
# Built on the VM first: bash bench/l2_promotion_builds.sh out/l2
L2SHAPES=4096x32768x512,4096x7168x2048,4096x24576x1536,4096x4096x4096,4096x7168x16384,4096x4096x7168,8192x8192x8192,4096x2112x7168
# shellcheck disable=SC2046
step l2-ab 400 python3 bench/fp8_gemm.py $(cat out/l2/args) --check-shapes "$L2SHAPES" \
  --time-shapes "$L2SHAPES" --rounds 5 --markdown "$out/l2-ab.md"
esac
case ",$plan," in *,fp8-bundles,*)
# Built on the VM first: bash bench/fp8_variant_builds.sh out/v NAME:PARAMS...
# (BUNDLE_DIR, default out/v); checked on the partial tiles and timed on
# BUNDLE_SHAPES beside DeepGEMM and the package's pick, in one process.
BSHAPES=${BUNDLE_SHAPES:-4096x7168x16384,4096x4096x7168,8192x8192x8192,4096x2112x7168,4096x24576x1536,4096x576x7168,4096x4096x4096,4096x7168x2048}
# shellcheck disable=SC2046
step fp8-bundles 450 python3 bench/fp8_gemm.py $(cat "${BUNDLE_DIR:-out/v}/args") --package \
  --check-shapes "1000x3000x4160,333x520x72,$BSHAPES" --time-shapes "$BSHAPES" \
  --rounds "${BUNDLE_ROUNDS:-5}" --markdown "$out/fp8-bundles.md"
esac
case ",$plan," in *,bundle-sanitize,*)
# compute-sanitizer's memcheck, racecheck and synccheck on the bundles of
# SAN_DIR (default out/v) at SAN_SHAPES (partial tiles), no timing.
for tool in memcheck racecheck synccheck; do
  # shellcheck disable=SC2046
  step "sanitize-$tool" 150 compute-sanitizer --tool $tool --error-exitcode 9 \
    python3 bench/fp8_gemm.py $(cat "${SAN_DIR:-out/v}/args") --no-deepgemm \
    --check-shapes "${SAN_SHAPES:-1000x3000x4160,333x520x72}" --time-shapes none
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY|all checks passed|FAILED" "$work/sanitize-$tool.log" \
    | tail -3 > "$out/sanitize-$tool.txt"
done
esac
case ",$plan," in *,masked-bm,*)
# Masked FP8 at 64-row tiles against the table's pick (128 rows past 64
# expected rows: 192 rows per group compute 256), beside DeepGEMM.
grouped_ab masked masked-pick masked-bm64 BLK_M=64
esac
case ",$plan," in *,kgrouped-fp8-one,*)
# K-grouped FP8: the one launch (A and B tensor lists, a tensor map per
# group by value) beside DeepGEMM and its memcheck; kgrouped-fp8-groups:
# the default dense launch per group beside DeepGEMM.
step kgrouped-fp8-one 150 python3 bench/py_kgrouped_check.py --tarball .anchors/deepgemm-src.tgz \
  --kinds fp8 --fp8-one-launch --markdown "$out/kgrouped-fp8-one.md"
step kgrouped-fp8-one-memcheck 150 compute-sanitizer --tool memcheck --error-exitcode 9 \
  python3 bench/py_kgrouped_check.py --tarball .anchors/deepgemm-src.tgz --kinds fp8 \
  --small --no-timing --fp8-one-launch
grep -E "ERROR SUMMARY" "$work/kgrouped-fp8-one-memcheck.log" | tail -1 > "$out/kgrouped-fp8-one-memcheck.txt"
esac
case ",$plan," in *,kgrouped-fp8-groups,*)
step kgrouped-fp8-groups 150 python3 bench/py_kgrouped_check.py --tarball .anchors/deepgemm-src.tgz \
  --kinds fp8 --markdown "$out/kgrouped-fp8-groups.md"
esac
case ",$plan," in *,kgrouped-fp8-tiles,*)
# The FP8 one launch at other parameters of its spec: KG_FP8_VARIANTS
# ("name:A=1 B=2;name2:C=3"), each beside DeepGEMM.
variant_steps kgrouped-fp8- 150 "${KG_FP8_VARIANTS:-n160:BLK_N=160;n96:BLK_N=96}" \
  --fp8-one-define python3 bench/py_kgrouped_check.py --tarball .anchors/deepgemm-src.tgz \
  --kinds fp8 --fp8-one-launch
esac

case ",$plan," in *,kgrouped-one,*)
# K-grouped BF16 as one launch over all groups (the library's default)
# against a dense launch per group (each beside DeepGEMM on its K-grouped
# cases), then memcheck of the one launch on the small cases (one of
# partial tiles, which the library does not send to it yet: --any-shape).
step kgrouped-bf16-groups 150 python3 bench/py_kgrouped_check.py --tarball .anchors/deepgemm-src.tgz \
  --kinds bf16 --per-group --markdown "$out/kgrouped-bf16-groups.md"
step kgrouped-bf16-one 150 python3 bench/py_kgrouped_check.py --tarball .anchors/deepgemm-src.tgz \
  --kinds bf16 --markdown "$out/kgrouped-bf16-one.md"
step kgrouped-one-memcheck 150 compute-sanitizer --tool memcheck --error-exitcode 9 \
  python3 bench/py_kgrouped_check.py --tarball .anchors/deepgemm-src.tgz --kinds bf16 \
  --small --no-timing --any-shape
grep -E "ERROR SUMMARY" "$work/kgrouped-one-memcheck.log" | tail -1 > "$out/kgrouped-one-memcheck.txt"
esac
case ",$plan," in *,grouped-variants,*)
# GROUPED_KIND's (fp8 or bf16, default fp8) GROUPED_LAYOUT cases at the
# table's pick, then at each variant of GROUPED_VARIANTS ("name:A=1 B=2;
# name2:C=3"), each beside DeepGEMM.
tag="${GROUPED_KIND:-fp8}-${GROUPED_LAYOUT//,/-}"
grouped_runs "${GROUPED_KIND:-fp8}" "$GROUPED_LAYOUT" "${GROUPED_STEP_S:-150}" \
  "$tag-pick" "$tag-" "$GROUPED_VARIANTS"
esac
case ",$plan," in *,gemm,*)
step fp8-compass 200 python3 bench/vs_deepgemm.py --commit "$commit" --dtypes fp8 \
  --shapes compass --markdown "$out/fp8-compass.md"
step grouped-fp8 100 python3 bench/py_grouped_check.py --kinds fp8 --quick \
  --markdown "$out/grouped-fp8.md"
esac
# fp8_ncu STEP SHAPE DEFINE NCU-ARGS...: both FP8 1D2D kernels at SHAPE
# (tilec's pick, with DEFINE over it unless empty) under Nsight Compute
# with NCU-ARGS; the report is kept under $out.
fp8_ncu() {
  local name=$1 shape=$2 define=$3
  shift 3
  step "$name" 200 ncu --clock-control none "$@" -k regex:fp8_gemm_1d2d \
    --launch-skip 2 --launch-count 2 python3 bench/ncu_fp8_package.py "$shape" \
    ${define:+--define "$define"}
  cp "$work/$name.log" "$out/" 2>/dev/null
}
fp8_ncu_sections="--section SpeedOfLight --section WarpStateStats --section SchedulerStats
  --section MemoryWorkloadAnalysis --section LaunchStats
  --metrics sm__cycles_active.min,sm__cycles_active.max,sm__cycles_active.avg"
case ",$plan," in *,fp8-large,*)
# The large FP8 shapes where tilec trails DeepGEMM most: their ratios, then
# Nsight Compute sections of both kernels at 4096x7168x16384 (NCU_SHAPE).
step fp8-large 150 python3 bench/vs_deepgemm.py --commit "$commit" --dtypes fp8 \
  --shapes 4096x7168x16384,4096x4096x7168,8192x8192x8192,4096x2112x7168,4096x24576x1536 \
  --markdown "$out/fp8-large.md"
fp8_ncu fp8-ncu "${NCU_SHAPE:-4096x7168x16384}" "" $fp8_ncu_sections --section Occupancy
esac
case ",$plan," in *,fp8-pair,*)
# B multicast (CLUSTER_M = 2, DeepGEMM's pick at these shapes) beside the
# pick on the 128x192-tile shapes, then both paired kernels under Nsight
# Compute at 4096x2112x7168.
PAIRSHAPES=4096x2112x7168,4096x576x7168,1000x3000x4160,128x24576x1536
step pair-pick 100 python3 bench/vs_deepgemm.py --commit "$commit" --dtypes fp8 \
  --shapes "$PAIRSHAPES" --markdown "$out/pair-pick.md"
step pair-m2 100 python3 bench/vs_deepgemm.py --commit "$commit" --dtypes fp8 \
  --shapes "$PAIRSHAPES" --define CLUSTER_M=2 --markdown "$out/pair-m2.md"
fp8_ncu pair-ncu 4096x2112x7168 CLUSTER_M=2 $fp8_ncu_sections
esac
case ",$plan," in *,fp8-ncu-source,*)
# Where the cycles go: instruction counts and the stall sampling by SASS
# line of both kernels at NCU_SHAPE (tilec's pick, or NCU_DEFINE over it).
# The report is kept and its source page (executed instructions and stall
# samples of every SASS line, both kernels) written out compressed.
fp8_ncu fp8-ncu-source "${NCU_SHAPE:-4096x2112x7168}" "${NCU_DEFINE:-}" \
  --section InstructionStats --section SourceCounters --section WarpStateStats \
  --import-source no -o "$work/fp8-source" -f
step fp8-source-page 60 ncu --import "$work/fp8-source.ncu-rep" --page source --csv \
  --print-source sass
gzip -c "$work/fp8-source-page.log" > "$out/fp8-source-sass.csv.gz"
step fp8-source-details 60 ncu --import "$work/fp8-source.ncu-rep" --page details
cp "$work/fp8-source-details.log" "$out/" 2>/dev/null
esac
case ",$plan," in *,grouped-ncu-source,*)
# tilec's contiguous and psum FP8 kernels on the same rows (GNCU_CASE, the
# arguments of bench/ncu_grouped.py: default 4 groups of 8192 expected rows,
# N = K = 4096, where contiguous trails psum most): instruction counts and
# stall sampling by SASS line of the second launch of each (the first
# compiles), the source page written out compressed.
step grouped-ncu 240 ncu --clock-control none --section InstructionStats \
  --section SourceCounters --section WarpStateStats --section SpeedOfLight \
  --import-source no -k regex:m_grouped --launch-skip 1 --launch-count 3 \
  -o "$work/grouped-source" -f python3 bench/ncu_grouped.py \
  ${GNCU_CASE:---groups 4 --expected-m 8192 --n 4096 --k 4096}
step grouped-source-page 90 ncu --import "$work/grouped-source.ncu-rep" --page source \
  --csv --print-source sass
gzip -c "$work/grouped-source-page.log" > "$out/grouped-source-sass.csv.gz"
step grouped-source-details 60 ncu --import "$work/grouped-source.ncu-rep" --page details
cp "$work/grouped-source-details.log" "$out/" 2>/dev/null
esac
case ",$plan," in *,dg-grouped,*)
# DeepGEMM's own grouped tests (DG_GROUPED_FUNCTIONS, default the K-grouped
# one) of tests/test_bf16.py and tests/test_fp8_fp4.py on tilec.deep_gemm.
step dg-grouped-test 250 python3 bench/py_deepgemm_tests.py --tarball .anchors/deepgemm-src.tgz \
  --tests "${DG_GROUPED_TESTS:-bf16,fp8}" \
  --functions "${DG_GROUPED_FUNCTIONS:-test_k_grouped_gemm_contiguous}" --log "$out/dg-grouped-test.log"
esac
case ",$plan," in *,dg-grouped-picks,*)
# DeepGEMM's own configuration (DG_PRINT_CONFIGS) for every grouped case of
# py_grouped_check.py (GROUPED_KIND, default fp8), checks only.
DG_PRINT_CONFIGS=1 step dg-grouped-picks 150 python3 bench/py_grouped_check.py \
  --kinds "${GROUPED_KIND:-fp8}" --no-timing --markdown "$out/dg-grouped-picks.md"
grep -E "GemmDesc|GemmConfig" "$work/dg-grouped-picks.log" > "$out/dg-grouped-picks.txt"
esac
case ",$plan," in *,dg-tests,*|*,dg-mqa,*)
step dg-mqa-test 250 python3 bench/py_deepgemm_tests.py --tarball .anchors/deepgemm-src.tgz \
  --tests attention --functions test_mqa_logits --log "$out/dg-mqa-test.log"
esac
case ",$plan," in *,dg-tests,*|*,dg-paged,*)
step dg-paged-test 250 python3 bench/py_deepgemm_tests.py --tarball .anchors/deepgemm-src.tgz \
  --tests attention --functions test_paged_mqa_logits --log "$out/dg-paged-test.log"
esac

echo "== summary"
for f in "$out"/*.md; do
  echo "-- $(basename "$f")"
  grep -iE "geometric|FAIL" "$f" | head -4
done
for f in "$work"/paged-stress*.log "$work"/paged-racecheck.log "$work"/paged-synccheck.log; do
  [ -f "$f" ] || continue
  echo "-- $(basename "$f")"; grep -E "calls|SUMMARY" "$f" | tail -3
done
for f in "$out"/dg-*.log; do
  echo "-- $(basename "$f")"; grep -iE "passed|failed|error|assert" "$f" | tail -4
done
for f in mqa-spread mqa-control paged-spread paged-control; do
  [ -f "$out/$f.md" ] || continue
  echo "-- $f"; grep -E "^\| [0-9]" "$out/$f.md" | awk -F'|' '{print $2,$3,$4,$5,$6,$7,$8,$9,$(NF-1)}'
done

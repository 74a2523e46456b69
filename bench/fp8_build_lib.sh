# Shared by the FP8 build scripts (sourced): bundles of fp8_gemm_1d2d and of
# splitk_reduce into $dir with $tilec, appending fp8_gemm.py's arguments to
# the array `args`; each compile's time goes to stderr.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
spec=$here/lib/Kernels/fp8_gemm_1d2d.tile
reduce=$here/lib/Kernels/splitk_reduce.tile
args=()

# fp8_compile SPEC OUT -D flags...: one compile, timed. The array
# `tilec_flags` (empty unless the script sets it) adds tilec options.
tilec_flags=()
fp8_compile() {
  local src=$1 out=$2; shift 2
  local flags=() start
  for d in "$@"; do flags+=(-D "$d"); done
  start=$(date +%s%N)
  "$tilec" "$src" "${flags[@]}" "${tilec_flags[@]}" -o "$out" >&2
  echo "$(basename "$out" .tilec): compiled in $(( ($(date +%s%N) - start) / 1000000 )) ms" >&2
}

# fp8_build NAME FLAG...: an unsplit GEMM bundle, timed by --bundle.
fp8_build() {
  local name=$1; shift
  fp8_compile "$spec" "$dir/$name.tilec" "$@"
  args+=(--bundle "$dir/$name.tilec")
}

# fp8_split NAME SPLIT_K BLK_M FLAG...: a split-K GEMM (f32 workspace) and
# its reduce kernel, timed as one by --split-bundle.
fp8_split() {
  local name=$1 s=$2 bm=$3; shift 3
  local red=$dir/reduce_s${s}_m${bm}.tilec
  [ -f "$red" ] || fp8_compile "$reduce" "$red" SPLIT_K=$s BLK_M=$bm
  fp8_compile "$spec" "$dir/$name.tilec" BLK_M=$bm SPLIT_K=$s OUT=f32 "$@"
  args+=(--split-bundle "$dir/$name.tilec:$red:$s:$bm")
}

#!/usr/bin/env bash
# Times ptxas as a process against the in-process PTX compiler
# (nvPTXCompiler, libnvptxcompiler_static.a of the CUDA toolkit) on tilec's
# FP8 kernels, and compares their SASS. Run on a machine with the CUDA
# toolkit, from the repository root, with PTX files from tilec --emit=ptx:
#   bash bench/ptx_compile/run.sh m1.ptx u4.ptx big.ptx
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cuda=${CUDA_HOME:-/usr/local/cuda}
gcc -O2 -Wno-unused-result "$here/inprocess.c" -I"$cuda/include" -L"$cuda/lib64" \
    -lnvptxcompiler_static -lpthread -lm -ldl -lstdc++ -o /tmp/tilec-ptxc
python3 - "$@" <<'PY'
import subprocess, sys, time
for f in sys.argv[1:]:
    ts = []
    for _ in range(5):
        s = time.perf_counter()
        subprocess.run(["ptxas", "-arch=sm_90a", "-O3", "-v", "--warn-on-spills", f,
                        "-o", f + ".proc.cubin"], capture_output=True, check=True)
        ts.append((time.perf_counter() - s) * 1e3)
    print(f, "ptxas process, ms:", " ".join(f"{t:.1f}" for t in ts))
PY
/tmp/tilec-ptxc "$@"
for f in "$@"; do
  if cmp -s <(cuobjdump -sass "$f.inproc.cubin") <(cuobjdump -sass "$f.proc.cubin"); then
    echo "$f: the same SASS"
  else
    echo "$f: the SASS differs"
  fi
done

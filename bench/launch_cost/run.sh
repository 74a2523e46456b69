#!/usr/bin/env bash
# The launch-cost breakdown of bench/results/2026-12-01-python-package.md, on
# the GPU machine, from the repository root after `python3 -m pip install
# --no-build-isolation --no-deps .`: the driver's bare launch (nvcc), the
# runtime's tilec_launch from C, and the Python costs.
set -euo pipefail
here=bench/launch_cost
cmake -S runtime -B /tmp/rt -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DTILEC_BUILD_TESTS=OFF -DTILEC_BUILD_GPU_TESTS=OFF >/dev/null
ninja -C /tmp/rt >/dev/null
gcc -O2 -I runtime/include $here/tilec_launch.c -L/tmp/rt -ltilec_runtime \
  -Wl,-rpath,/tmp/rt -o /tmp/tilec_launch
nvcc -O2 -arch=sm_90a $here/bare_launch.cu -lcuda -o /tmp/bare_launch
/tmp/bare_launch
(cd /tmp && python3 - <<'PY'
from tilec import _cache, _configs, _specs
defines, _ = _configs.choose("bf16_gemm_nt", 128, 256, 256)
spec = _specs.family("bf16_gemm_nt").spec
open("/tmp/bf16.tilec", "wb").write(
    _cache.get_bundle("bf16_gemm_nt.tile", _specs.spec_text(spec), defines, "sm_90a"))
PY
)
/tmp/tilec_launch /tmp/bf16.tilec bf16_gemm_nt
(cd /tmp && python3 "$OLDPWD/$here/python_launch.py")

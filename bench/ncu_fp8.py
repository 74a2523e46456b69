#!/usr/bin/env python3
"""Runs FP8 1D2D GEMMs for Nsight Compute: DeepGEMM's and tilec bundles on
the same inputs, each launched twice (profile the second with ncu's
--launch-skip), nothing timed.

    ncu --section SpeedOfLight --section WarpStateStats -k regex:"fp8|gemm" \\
        --launch-skip 1 --launch-count 3 \\
        python3 bench/ncu_fp8.py 1x7168x16384 dg out/f5/n64x64_s12.tilec

Arguments: MxNxK, then `dg` (DeepGEMM's fp8_gemm_nt; `import deep_gemm`
must work) and/or bundle paths of lib/Kernels/fp8_gemm_1d2d.tile. The input
quantisation launches kernels of its own (torch's), before these.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402

import fp8_gemm  # noqa: E402


def main():
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    m, n, k = (int(x) for x in sys.argv[1].split("x"))
    gen = torch.Generator(device="cuda")
    gen.manual_seed(1)
    inputs = fp8_gemm.Inputs(m, n, k, "1d2d", gen)
    d = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
    for which in sys.argv[2:]:
        if which == "dg":
            import deep_gemm
            call = lambda: deep_gemm.fp8_gemm_nt(  # noqa: E731
                (inputs.a, inputs.sfa_mn), (inputs.b, inputs.sfb), d,
                disable_ue8m0_cast=True)
        else:
            bundle = fp8_gemm.load_bundle(which, False)
            args = inputs.tilec_args(bundle, d)
            call = lambda: bundle.kernel(*args)  # noqa: E731
        for _ in range(2):
            call()
            torch.cuda.synchronize()


if __name__ == "__main__":
    main()

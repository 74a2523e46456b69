#!/usr/bin/env python3
"""Launches tilec.deep_gemm.fp8_gemm_nt (the heuristic's kernel, as a user
calls it) and DeepGEMM's fp8_gemm_nt on the same 1D2D inputs for Nsight
Compute, nothing timed: warm-ups first (compiles, the tiered JIT's tuned
kernel), then `--launches` launches of each, tilec's first.

    ncu --section SpeedOfLight --section WarpStateStats \\
        -k regex:fp8_gemm_1d2d --launch-skip 2 --launch-count 2 \\
        python3 bench/ncu_fp8_package.py 4096x4096x7168 [--define CLUSTER_M=2]
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402

import fp8_gemm as fg  # noqa: E402


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("shape", help="MxNxK")
    p.add_argument("--launches", type=int, default=1)
    p.add_argument("--define", action="append", default=[], metavar="NAME=VALUE",
                   help="a spec param over the heuristic's pick (a variant)")
    args = p.parse_args()
    m, n, k = fg.shape_list(args.shape)[0]
    import tilec
    import tilec.deep_gemm as tdg
    from spec_variant import spec_variant
    spec_variant(args.define, "fp8_gemm_1d2d")
    dg = fg.deep_gemm_module()
    gen = torch.Generator(device="cuda")
    gen.manual_seed(1)
    inp = fg.Inputs(m, n, k, "1d2d", gen)
    d = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
    case = fg.Case("1d2d", torch.bfloat16, False)
    ours = fg.package_call(tdg, case, inp, d)
    ours()
    tilec.wait_for_compiles()
    theirs = fg.deep_gemm_call(dg, case, inp, d) if dg else None
    if theirs:
        theirs()
    torch.cuda.synchronize()
    for call in (ours, theirs):
        for _ in range(args.launches if call else 0):
            call()
    torch.cuda.synchronize()


if __name__ == "__main__":
    main()

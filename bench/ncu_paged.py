#!/usr/bin/env python3
"""Launches DeepGEMM's and tilec.deep_gemm's fp8_fp4_paged_mqa_logits on the
same inputs for Nsight Compute, nothing timed: one case of
bench/py_paged_mqa_bench.py (--case), warm-ups first (compiles), then
`--launches` launches of each, DeepGEMM's first; `--define NAME=VALUE` for
a variant of tilec's spec.

The question it is for (bench/results/2026-12-06-paged-mqa.md): where the
paged kernel's 3-10% behind DeepGEMM goes, the same bytes read; the counters
say whether the SMs finish at different times (sm__cycles_active min/max),
how many bytes each kernel reads and writes, and how busy DRAM is.

    ncu --clock-control none -k regex:"fp8_paged_mqa_logits|^paged_mqa_logits" \\
        --metrics gpu__time_duration.sum,sm__cycles_active.max,... \\
        python3 bench/ncu_paged.py --case 3
"""

import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tilec.deep_gemm as tilec_dg  # noqa: E402
from py_mqa_bench import deep_gemm  # noqa: E402
from py_paged_mqa_bench import call_args, cases_of, make_inputs  # noqa: E402
from spec_variant import spec_variant  # noqa: E402
from tilec import _paged_mqa  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", type=int, default=3)
    parser.add_argument("--launches", type=int, default=2)
    parser.add_argument("--define", action="append", default=[])
    args = parser.parse_args()
    spec_variant(args.define, _paged_mqa.FAMILY)
    torch.manual_seed(0)
    batch, next_n, heads, head_dim, average, dtype, clean, two_d = cases_of(False)[args.case]
    inputs = make_inputs(batch, next_n, heads, head_dim, average, two_d)
    theirs = call_args(inputs, clean, dtype, deep_gemm)
    ours = call_args(inputs, clean, dtype, tilec_dg)
    deep_gemm.fp8_fp4_paged_mqa_logits(**theirs)
    tilec_dg.fp8_fp4_paged_mqa_logits(**ours)
    torch.cuda.synchronize()
    for _ in range(args.launches):
        deep_gemm.fp8_fp4_paged_mqa_logits(**theirs)
    for _ in range(args.launches):
        tilec_dg.fp8_fp4_paged_mqa_logits(**ours)
    torch.cuda.synchronize()
    print(f"case {args.case}: B {batch} next_n {next_n} H {heads} D {head_dim} "
          f"avg ctx {average} {dtype}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

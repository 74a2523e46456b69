#!/usr/bin/env python3
"""Launches tilec.deep_gemm's and DeepGEMM's M-grouped FP8 GEMMs on the same
inputs for Nsight Compute, nothing timed: one case per layout (the same
random group sizes for contiguous and psum, so the two kernels do the same
work), warm-ups first (compiles), then `--launches` launches of each,
tilec's first.

The question it is for (bench/results/2026-12-06-fp8-unroll.md, run 6):
tilec's contiguous kernel runs 6-12% slower than its psum kernel on the same
work, where DeepGEMM's two differ by a few percent the other way, with the
same K loop in SASS; where the time goes per tile is what the counters say.

    ncu --section SpeedOfLight --section WarpStateStats --section SchedulerStats \\
        -k regex:m_grouped --launch-skip 4 --launch-count 4 \\
        python3 bench/ncu_grouped.py --groups 4 --expected-m 8192 --n 6144 --k 7168
"""

import argparse
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402

import py_grouped_check as pg  # noqa: E402  (the cases' inputs and calls)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--groups", type=int, default=4)
    p.add_argument("--expected-m", type=int, default=8192)
    p.add_argument("--n", type=int, default=6144)
    p.add_argument("--k", type=int, default=7168)
    p.add_argument("--layouts", default="contiguous,psum")
    p.add_argument("--launches", type=int, default=1)
    args = p.parse_args()
    import tilec
    dg = pg.deep_gemm_module()
    for layout in args.layouts.split(","):
        # The same group sizes for every layout.
        random.seed(0)
        torch.manual_seed(0)
        op = pg.Operands("fp8", layout, args.groups, args.expected_m, args.n,
                         args.k, False)
        d = op.output()
        libs = [("tilec", pg.tdg)] + ([("DeepGEMM", dg)] if dg else [])
        for _, lib in libs:
            pg.call(lib, op, d)   # compile
        tilec.wait_for_compiles()
        torch.cuda.synchronize()
        for name, lib in libs:
            for _ in range(args.launches):
                pg.call(lib, op, d)
            torch.cuda.synchronize()
            print(f"{layout}: {name} launched {args.launches}x "
                  f"({sum(op.rows)} rows, M {op.m})", flush=True)


if __name__ == "__main__":
    main()

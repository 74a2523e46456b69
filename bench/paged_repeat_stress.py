#!/usr/bin/env python3
"""Repeat stress of fp8_fp4_paged_mqa_logits: one case's inputs, many calls,
each compared bitwise with the first on the valid positions (a race shows as
a call that differs). Prints one line per case: calls, differing calls, and
the first differing position with both values.

    PYTHONPATH=/tmp/site python3 bench/paged_repeat_stress.py \
        [--define SPREAD=1] [--calls 200] [--cases 4096,2,32,128,8192,bf16 ...]

Why: in run 7 of 2026-12-06 (bench/results/2026-12-06-mqa-spread.md) one
case (B 4096, next_n 2, 32 heads, bf16 logits, SPREAD = 1) returned two
different results on two calls, which no other run showed.
"""

import argparse
import os
import sys

import torch

import tilec.deep_gemm as tilec_dg
from tilec import _paged_mqa

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from py_paged_mqa_bench import call_args, make_inputs, query_lens  # noqa: E402
from spec_variant import spec_variant  # noqa: E402

DTYPES = {"bf16": torch.bfloat16, "f32": torch.float32}


def parse_case(text: str):
    """B,next_n,heads,head_dim,average,dtype."""
    fields = text.split(",")
    if len(fields) != 6 or fields[5] not in DTYPES:
        raise argparse.ArgumentTypeError(
            f"a case is B,next_n,heads,head_dim,average,bf16|f32, got {text!r}")
    return tuple(int(f) for f in fields[:5]) + (DTYPES[fields[5]],)


def stress(batch, next_n, heads, head_dim, average, dtype, calls: int) -> str:
    inputs = make_inputs(batch, next_n, heads, head_dim, average, True)
    args = call_args(inputs, False, dtype, tilec_dg)
    positions = torch.arange(inputs["max_context_len"], device="cuda")
    invalid = positions[None, :] >= query_lens(inputs["lens"], next_n)[:, None]
    first = tilec_dg.fp8_fp4_paged_mqa_logits(**args).masked_fill(invalid, 0)
    differing, where = 0, ""
    for _ in range(calls - 1):
        out = tilec_dg.fp8_fp4_paged_mqa_logits(**args).masked_fill(invalid, 0)
        if not torch.equal(out, first):
            differing += 1
            if not where:
                row, col = (out != first).nonzero()[0].tolist()
                where = (f"; first at row {row} column {col}: {first[row, col].item()!r}"
                         f" then {out[row, col].item()!r}")
    label = f"B {batch}, next_n {next_n}, {heads} heads, D {head_dim}, avg {average}, {dtype}"
    return f"{label}: {calls} calls, {differing} differing{where}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--define", action="append", default=[],
                        help="NAME=VALUE: a paged_mqa_logits spec param")
    parser.add_argument("--cases", nargs="+", type=parse_case,
                        default=[parse_case("4096,2,32,128,8192,bf16"),
                                 parse_case("256,2,64,128,8192,f32")])
    args = parser.parse_args()
    spec_variant(args.define, _paged_mqa.FAMILY)
    torch.manual_seed(0)
    failed = False
    for case in args.cases:
        line = stress(*case, calls=args.calls)
        failed |= " 0 differing" not in line
        print(line, flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

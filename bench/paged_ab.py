#!/usr/bin/env python3
"""Variants of the paged MQA spec timed in one process beside DeepGEMM, on
the same inputs: for each case, DeepGEMM's fp8_fp4_paged_mqa_logits and
then each variant (spec params over the library's, `--variant
"KV_STAGES=3 Q_STAGES=3"`, `spec=FILE` for another spec text, such as
an earlier commit's; an empty one is the library's kernel), each
checked against DeepGEMM on the valid positions (calc_diff < 1e-3), with
rounds interleaved so that a clock dip does not pick a winner. Prints a
table of time ratios to DeepGEMM and the geometric mean per variant.

    PYTHONPATH=/tmp/site python3 bench/paged_ab.py --variant "" \\
        --variant KV_STAGES=3 [--cases 0,5] [--graph] [--markdown F]

--graph times CUDA-graph replays of the calls instead (the kernels back
to back without the host between them): where the eager ratio and the
graph ratio differ, the difference is in the calls, not the kernels.
"""

import argparse
import math
import os
import sys
import time

import torch

import tilec.deep_gemm as tilec_dg
from tilec import _cache, _gemm, _paged_mqa, _specs
from tilec.quant import calc_diff

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from py_mqa_bench import deep_gemm, time_calls  # noqa: E402
from py_paged_mqa_bench import call_args, cases_of, make_inputs, query_lens  # noqa: E402
from spec_variant import variant_defines  # noqa: E402

_extra = variant_defines(_paged_mqa.FAMILY)
_library_text = _specs.spec_text
_spec_file = [None]


def _variant_text(path: str) -> str:
    if _spec_file[0] and path.endswith("paged_mqa_logits.tile"):
        with open(_spec_file[0]) as f:
            return f.read()
    return _library_text(path)


_specs.spec_text = _variant_text

def ours(args):
    """The variant's call on fp8_fp4_paged_mqa_logits' arguments."""
    return tilec_dg.fp8_fp4_paged_mqa_logits(**args)


def use_variant(text: str) -> None:
    """Switches the paged kernels to the variant `text` (NAME=VALUE ...)."""
    items = dict(item.split("=", 1) for item in text.split())
    _spec_file[0] = items.pop("spec", None)
    _extra.clear()
    _extra.update(items)
    for key in [k for k in _gemm._dispatchers if k[0] == _paged_mqa.FAMILY]:
        del _gemm._dispatchers[key]  # the recorded plans hold the previous kernel
    for key in [k for k in _cache._memory if k[0] == _paged_mqa.FAMILY]:
        del _cache._memory[key]  # loaded kernels are keyed by defines only


def graph_of(fn, calls: int):
    """A replay of `calls` calls of fn captured in one CUDA graph."""
    fn()  # compiled and its plan recorded before the capture
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(calls):
            fn()
    return graph.replay


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", action="append", default=[],
                        help='spec params, "NAME=VALUE ..." ("" the library\'s)')
    parser.add_argument("--cases", help="indices into py_paged_mqa_bench's cases "
                                        "(default: DeepGEMM's 24)")
    parser.add_argument("--reps", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--markdown", help="write the table here too")
    parser.add_argument("--graph", action="store_true",
                        help="time CUDA-graph replays of --reps calls of each "
                             "library (no host work between the kernels)")
    args = parser.parse_args()
    if deep_gemm is None:
        print("DeepGEMM is needed (PYTHONPATH)")
        return 2
    variants = args.variant or [""]
    cases = cases_of(False)
    picked = [int(i) for i in args.cases.split(",")] if args.cases else range(24)
    torch.manual_seed(0)
    names = [v or "library" for v in variants]
    rows = ["| case | B | next_n | H | avg ctx | logits | DeepGEMM us | "
            + " | ".join(names) + " |",
            "|---:|---:|---:|---:|---:|---|---:|" + "---:|" * len(names)]
    logs = [[] for _ in variants]
    failures = 0
    for index in picked:
        batch, next_n, heads, head_dim, average, dtype, clean, two_d = cases[index]
        inputs = make_inputs(batch, next_n, heads, head_dim, average, two_d)
        dg_args = call_args(inputs, clean, dtype, deep_gemm)
        ours_args = call_args(inputs, clean, dtype, tilec_dg)
        positions = torch.arange(inputs["max_context_len"], device="cuda")
        invalid = positions[None, :] >= query_lens(inputs["lens"], next_n)[:, None]
        theirs = deep_gemm.fp8_fp4_paged_mqa_logits(**dg_args).float().masked_fill(invalid, 0)
        dg_call = lambda: deep_gemm.fp8_fp4_paged_mqa_logits(**dg_args)  # noqa: E731
        cells = []
        for variant in variants:
            use_variant(variant)
            result = ours(ours_args)
            diff = calc_diff(result.float().masked_fill(invalid, 0), theirs)
            again = ours(ours_args)  # a second launch
            diff = max(diff, calc_diff(again.float().masked_fill(invalid, 0), theirs))
            ok = diff < 1e-3
            failures += not ok
            cells.append("" if ok else f" FAIL diff {diff:.1e}")
        del theirs, result, again
        # One process, one variant at a time: each timed with its own plan
        # (the recorded plans are per variant), DeepGEMM's before each.
        times = []
        t_dg = []
        for variant in variants:
            use_variant(variant)
            fns = [dg_call, lambda: ours(ours_args)]
            if args.graph:
                fns = [graph_of(fn, args.reps) for fn in fns]
            t_theirs, t_ours = time_calls(fns, 1 if args.graph else args.reps, args.rounds)
            if args.graph:
                t_theirs, t_ours = t_theirs / args.reps, t_ours / args.reps
            t_dg.append(t_theirs)
            times.append(t_ours)
        dg = sorted(t_dg)[len(t_dg) // 2]
        ratios = [t_dg[i] / times[i] for i in range(len(variants))]
        for log, ratio in zip(logs, ratios):
            log.append(math.log(ratio))
        rows.append(f"| {index} | {batch} | {next_n} | {heads} | {average} | "
                    f"{'bf16' if dtype == torch.bfloat16 else 'f32'} | {dg * 1e6:.1f} | "
                    + " | ".join(f"{r:.3f}{c}" for r, c in zip(ratios, cells)) + " |")
        print(rows[-1], flush=True)
        del inputs
        torch.cuda.empty_cache()
    rows.append("| geometric mean | | | | | | | "
                + " | ".join(f"{math.exp(sum(log) / len(log)):.3f}" if log else "-"
                             for log in logs) + " |")
    table = "\n".join(rows)
    print(f"\n{torch.cuda.get_device_name(0)}, {time.strftime('%Y-%m-%d')}, "
          f"tilec / DeepGEMM time ratios (DeepGEMM timed beside each variant)\n{table}")
    print(f"{failures} failing variant cases")
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(table + "\n")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

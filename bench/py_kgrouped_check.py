#!/usr/bin/env python3
"""GPU check and timing of tilec.deep_gemm's K-grouped GEMMs against DeepGEMM's.

k_grouped_fp8_gemm_nt_contiguous and k_grouped_bf16_gemm_tn_contiguous on
DeepGEMM's K-grouped cases, tests/generators.py's
enumerate_k_grouped_contiguous (SM90: 4-16 groups of 0.7-1.3x 2048-8192 K,
M x N 4096 x 7168 and 7168 x 2048), each with
enumerate_k_grouped_contiguous_test_variants (as drawn, and with one group
emptied).

The inputs come from DeepGEMM's own generate_k_grouped_contiguous (the
tarball's tests/generators.py, as bench/py_deepgemm_tests.py reads it): FP8
per-channel casts per group, K-major groups flattened, d = c = random * 32,
the reference from the bf16 inputs. tilec and DeepGEMM each start from a
copy of c and accumulate into it (c = d, as DeepGEMM's tests call them);
each result must be within DeepGEMM's calc_diff bound of the reference
(FP8 1e-3, BF16 1e-5) and of the other library's, and a repeated tilec call
bitwise identical. Then both timed in one process on the same inputs
(interleaved CUDA-graph rounds, bench/gemm_bench.time_interleaved; a tilec
call is one launch per non-empty group, all in the graph), TFLOP/s as
DeepGEMM's tests count them (2 M N sum(K)).

Prints Markdown tables (checks, then timings with the geometric mean of
tilec / DeepGEMM speed per kind); exits 1 on a failed check.

    python3 bench/py_kgrouped_check.py --tarball ../shared/anchors/deepgemm-src.tgz
        [--src DIR] [--kinds fp8,bf16] [--quick | --small] [--no-timing]
        [--per-group | --any-shape] [--fp8-one-launch] [--markdown out.md]
    compute-sanitizer --tool memcheck python3 bench/py_kgrouped_check.py --tarball ... \\
        --small --no-timing

DeepGEMM itself (for its results and times) is the deep_gemm importable
from PYTHONPATH (on the H200: PYTHONPATH=/tmp/site); without it the
generators run on tilec.deep_gemm's utils and only the reference checks run.
"""

import argparse
import importlib
import os
import random
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gemm_bench as gb  # noqa: E402  (time_interleaved)
from fp8_gemm import deep_gemm_module  # noqa: E402
from py_deepgemm_tests import alias_deep_gemm, tests_folder  # noqa: E402
from py_grouped_check import (add_options, emit_timings, reporter,  # noqa: E402
                              write_markdown)

import tilec.deep_gemm as tdg  # noqa: E402
from tilec import _kgrouped  # noqa: E402  (--per-group)
from tilec.quant import calc_diff  # noqa: E402

# DeepGEMM's bounds (tests/test_fp8_fp4.py, tests/test_bf16.py).
BOUND = {"fp8": 1e-3, "bf16": 1e-5}
DTYPE = {"fp8": torch.float8_e4m3fn, "bf16": torch.bfloat16}


def load_generators(args, dg):
    """DeepGEMM's tests/generators.py, importing the real deep_gemm when it
    is there and tilec.deep_gemm's modules in its place otherwise."""
    if dg is None:
        alias_deep_gemm()
    folder = tests_folder(args)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    return importlib.import_module("generators")


def cases(args, gen):
    """(kind, G, M, N, ks (aligned), one group emptied) per check, from
    DeepGEMM's enumerators (--small: three groups of a small problem, and
    for BF16 one of partial tiles)."""
    for kind in args.kinds.split(","):
        if args.small:
            yield kind, 3, 256, 384, [256, 128, 384], False
            yield kind, 3, 256, 384, [256, 0, 384], True
            if kind == "bf16":   # partial tiles of the one launch
                yield kind, 3, 200, 328, [256, 128, 384], False
            continue
        shapes = gen.enumerate_k_grouped_contiguous(DTYPE[kind])
        for index, (groups, m, n, major_a, major_b, real_ks, _, _, _, k_alignment,
                    psum) in enumerate(shapes):
            if args.quick and index:
                break
            for _, aligned_ks, empty, _ in gen.enumerate_k_grouped_contiguous_test_variants(
                    real_ks, k_alignment, psum):
                yield kind, groups, m, n, aligned_ks, empty


class Case:
    """One case's inputs (DeepGEMM's generator) and the calls on them."""

    def __init__(self, gen, kind, groups, m, n, ks):
        self.kind, self.groups, self.m, self.n, self.ks = kind, groups, m, n, ks
        fp8 = kind == "fp8"
        major = gen.MajorTypeAB.KMajor if fp8 else gen.MajorTypeAB.MNMajor
        use_ue8m0 = gen.get_ue8m0_usage(gen.KernelType.Kernel1D1D) if fp8 else False
        # The enumerator sets DeepGEMM's mk alignment (the BF16 K alignment);
        # tilec's follows it.
        tdg.set_mk_alignment_for_contiguous_layout(gen.get_mk_alignment_for_contiguous_layout())
        _, self.a, self.b, c, _, self.ref, self.layout, _ = \
            gen.generate_k_grouped_contiguous(groups, m, n, major, major, ks,
                                              use_ue8m0=use_ue8m0, use_bf16=not fp8)
        self.c = c.clone()   # the generator's d is its c: keep a copy
        self.flops = 2 * m * n * sum(ks)

    def fresh(self):
        return self.c.clone()

    def call(self, lib, d):
        """d = d + the groups' products (c = d, as DeepGEMM's tests call it)."""
        if self.kind == "fp8":
            lib.k_grouped_fp8_gemm_nt_contiguous(self.a, self.b, d, self.ks,
                                                 self.layout, d, recipe=(1, 1, 128))
        else:
            lib.k_grouped_bf16_gemm_tn_contiguous(self.a, self.b, d, self.ks,
                                                  self.layout, d)


def run_checks(case, dg):
    """(row cells, tilec's d, DeepGEMM's d or None, passed)."""
    bound = BOUND[case.kind]
    d = case.fresh()
    case.call(tdg, d)
    torch.cuda.synchronize()
    diff = calc_diff(d, case.ref)
    nan = bool(torch.isnan(d).any())
    ok = diff < bound and not nan
    versus, d_ref = "-", None
    if dg is not None:
        d_ref = case.fresh()
        try:
            case.call(dg, d_ref)
            torch.cuda.synchronize()
            between = calc_diff(d, d_ref)
            versus = f"{between:.1e} (DeepGEMM {calc_diff(d_ref, case.ref):.1e})"
            ok &= between < bound
        except Exception as e:  # noqa: BLE001 (report DeepGEMM's failure)
            versus = f"DeepGEMM failed: {type(e).__name__}"
            d_ref = None
    again = case.fresh()
    case.call(tdg, again)
    torch.cuda.synchronize()
    same = torch.equal(again, d)
    ok &= same
    return (f"{diff:.1e}{' NaN' if nan else ''}", versus, "ok" if same else "FAIL"), \
        d, d_ref, ok


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("--tarball", help="../shared/anchors/deepgemm-src.tgz")
    source.add_argument("--src", help="an untarred copy of it")
    add_options(p, "the first shape of each kind only",
                "one small problem per kind (for compute-sanitizer)")
    p.add_argument("--per-group", action="store_true",
                   help="K-grouped BF16 as a dense launch per group (the "
                        "fallback) instead of one launch over all groups "
                        "(tilec._kgrouped.one_launch_bf16)")
    p.add_argument("--any-shape", action="store_true",
                   help="the one launch for M and N of any size too (partial "
                        "tiles; the library takes it for multiples of 128 only)")
    p.add_argument("--fp8-one-launch", action="store_true",
                   help="K-grouped FP8 as one launch over all groups "
                        "(tilec._kgrouped.one_launch_fp8, off by default until "
                        "checked on the GPU) instead of a dense launch per group")
    p.add_argument("--fp8-one-define", action="append", default=[], metavar="NAME=VALUE",
                   help="a parameter of the FP8 one launch's spec (BLK_N=..., "
                        "STAGES=...; repeatable)")
    args = p.parse_args()
    _kgrouped.ONE_LAUNCH_FP8_DEFINES = dict(item.split("=", 1) for item in args.fp8_one_define)
    _kgrouped.one_launch_bf16 = not args.per_group
    _kgrouped.one_launch_fp8 = args.fp8_one_launch
    if args.any_shape:
        _kgrouped.ONE_LAUNCH_BF16_TILE = 1
    random.seed(0)
    torch.manual_seed(0)
    dg = deep_gemm_module()
    gen = load_generators(args, dg)
    lines = [f"device {torch.cuda.get_device_name(0)}, DeepGEMM "
             f"{'imported' if dg else 'absent'}", "",
             "| kind | G | M | N | sum K | ks | calc_diff | vs DeepGEMM | repeat | result |",
             "|---|---:|---:|---:|---:|---|---:|---|---|---|"]
    emit = reporter(lines)
    failed = False
    timings = []
    for kind, groups, m, n, ks, empty in cases(args, gen):
        case = Case(gen, kind, groups, m, n, ks)
        cells, d, d_ref, ok = run_checks(case, dg)
        failed |= not ok
        shown = ", ".join(str(k) for k in ks)
        label = f"{groups} (one empty)" if empty else f"{groups}"
        emit(f"| {kind} | {label} | {m} | {n} | {sum(ks)} | {shown} | "
             f"{' | '.join(cells)} | {'ok' if ok else 'FAIL'} |")
        if not args.no_timing and not empty:
            fns = {"tilec": lambda: case.call(tdg, d)}
            if d_ref is not None:
                fns["DeepGEMM"] = lambda: case.call(dg, d_ref)
            ms = gb.time_interleaved(fns)
            timings.append(((kind, groups, m, n, sum(ks)), kind, case.flops, ms))
        del case, d, d_ref
        torch.cuda.empty_cache()
    if timings:
        emit_timings(emit, "| kind | G | M | N | sum K |", "|---|---:|---:|---:|---:|", timings)
    write_markdown(args.markdown, lines)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

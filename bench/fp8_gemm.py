#!/usr/bin/env python3
"""Checks and times tilec's FP8 block-scaled GEMMs against DeepGEMM and cuBLASLt.

The bundles are builds of lib/Kernels/fp8_gemm_1d2d.tile and
fp8_gemm_1d1d.tile (docs/kernels.md); the spec, the output type and the
kernel name come from each bundle's metadata. A bundle built with
-D ACCUMULATE=1 (D += A B^T) is passed with --acc-bundle. What each bundle
is run as, a "case" (recipe, output, accumulation):

    fp8_gemm_1d2d: 1d2d  (A per token 1x128, B per block 128x128)
    fp8_gemm_1d1d: 1d1d  (A and B per token) and 1d2d (its B scales
                   repeated per column: quant.block_scales_per_column)

Checks (--check-shapes): fresh random bf16 inputs, quantised with
python/tilec/quant.py; D poisoned with NaN (or, accumulating, D = C random);
the f32 reference is the product of the dequantised inputs (+ C); pass when
no NaN is left and DeepGEMM's calc_diff(D, ref) < 0.001 (accumulating: of
D - C against ref - C, so that C does not hide the product). DeepGEMM, when
`import deep_gemm` works, is checked the same way.

Timing (--time-shapes): the same inputs for tilec, deep_gemm.fp8_gemm_nt and
torch._scaled_mm (cuBLASLt with per-tensor scales, no block scaling), in one
process; CUDA graphs of back-to-back calls (no launch overhead), every
kernel of a shape timed in interleaved rounds (gemm_bench.time_interleaved:
no kernel gets a cooler or hotter GPU for running first), or with
--flush-l2 one call at a time after evicting L2. Prints Markdown tables of
TFLOP/s and the ratio to DeepGEMM (to cuBLASLt where DeepGEMM has no such
kernel on SM90: f32 output without accumulation, or 1D2D accumulation).

    python3 bench/fp8_gemm.py --bundle out/fp8_1d2d_128x128.tilec \\
        --bundle out/fp8_1d2d_128x64.tilec --acc-bundle out/fp8_1d1d_acc.tilec \\
        [--check-shapes all|issue|forward|partial|quick|none]
        [--time-shapes issue|forward|all|none] [--markdown FILE] [--flush-l2]
"""

import argparse
import importlib.util
import os
import sys
from typing import List, NamedTuple, Optional

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
DEVICE = "cuda"
sys.path.insert(0, HERE)
import gemm_bench as gb  # noqa: E402  (load_kernel, timing helpers, tr)


def _load_quant():
    path = os.path.join(HERE, "..", "python", "tilec", "quant.py")
    spec = importlib.util.spec_from_file_location("tilec_quant", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


quant = _load_quant()

# The issue's shapes, DeepGEMM's forward shapes (tests/generators.py,
# enumerate_normal: M in 1, 128, 4096 by its N, K list) and partial tiles.
ISSUE_SHAPES = [(4096, 4096, 4096), (8192, 8192, 8192), (4096, 7168, 16384),
                (4096, 4096, 7168), (128, 7168, 16384), (128, 2112, 7168)]
DEEPGEMM_NK = [(2112, 7168), (576, 7168), (24576, 1536), (32768, 512),
               (7168, 16384), (4096, 7168), (7168, 2048)]
FORWARD_SHAPES = [(m, n, k) for m in (1, 128, 4096) for n, k in DEEPGEMM_NK]
PARTIAL_SHAPES = [(1000, 3000, 4160), (333, 520, 72)]
QUICK_SHAPES = [(4096, 4096, 4096), (128, 2112, 7168), (1, 576, 7168)] + PARTIAL_SHAPES
# Few tiles over a long K: where split K may pay.
SMALL_SHAPES = [(m, n, k) for m in (1, 128) for n, k in DEEPGEMM_NK]


def shape_list(kind):
    """Named lists and shapes written MxNxK, comma-separated and in any mix
    (small,1000x3000x4160), without repeats."""
    lists = {"issue": ISSUE_SHAPES, "forward": FORWARD_SHAPES,
             "partial": PARTIAL_SHAPES, "quick": QUICK_SHAPES,
             "small": SMALL_SHAPES, "none": [],
             "all": ISSUE_SHAPES + FORWARD_SHAPES + PARTIAL_SHAPES}
    shapes = []
    for item in kind.split(","):
        if "x" in item:
            shapes.append(tuple(int(v) for v in item.split("x")))
        elif item in lists:
            shapes.extend(lists[item])
        else:
            raise SystemExit(f"fp8_gemm.py: unknown shape list {item!r}; use "
                             f"{', '.join(lists)} or MxNxK")
    unique = []
    for shape in shapes:
        if shape not in unique:
            unique.append(shape)
    return unique


class Case(NamedTuple):
    recipe: str        # "1d2d" or "1d1d"
    out: torch.dtype   # torch.bfloat16 or torch.float32
    accumulate: bool

    def label(self):
        out = "bf16" if self.out == torch.bfloat16 else "f32"
        return f"{self.recipe} {out}" + (" D+=" if self.accumulate else "")


class Bundle(NamedTuple):
    name: str
    kernel: object
    spec: str          # "1d2d" or "1d1d"
    cases: List[Case]


TORCH_DTYPES = {"bf16": torch.bfloat16, "f32": torch.float32}


def load_bundle(path, accumulate):
    """A bundle of one of the two specs, told apart by the kernel's name (the
    spec fixes it); the output type is D's dtype."""
    module = gb.tr.Module(path)
    spec = "1d1d" if "1d1d" in module.kernel_names[0] else "1d2d"
    kernel = module.kernel()
    out = TORCH_DTYPES[next(a.dtype for a in kernel.args if a.name == "D")]
    recipes = ["1d2d"] if spec == "1d2d" else ["1d1d", "1d2d"]
    name = os.path.splitext(os.path.basename(path))[0]
    return Bundle(name + (" (D+=)" if accumulate else ""), kernel, spec,
                  [Case(r, out, accumulate) for r in recipes])


def load_split_bundle(spec):
    """GEMM.tilec:REDUCE.tilec:SPLIT_K:BLK_M -> a 1D2D Bundle whose output
    is the reduce kernel's D."""
    gemm_path, reduce_path, splits, block_m = spec.split(":")
    gemm = gb.tr.Module(gemm_path).kernel()
    reduce = gb.tr.Module(reduce_path).kernel()
    out = TORCH_DTYPES[next(a.dtype for a in reduce.args if a.name == "D")]
    name = os.path.splitext(os.path.basename(gemm_path))[0]
    return Bundle(name, gb.SplitK(gemm, reduce, int(splits), int(block_m)), "1d2d",
                  [Case("1d2d", out, False)])


def fp8_storage(q):
    """q [rows, K] e4m3 copied into rows of a multiple of 16 bytes (TMA's
    stride rule), as a [rows, K] view: K need not be a multiple of 16."""
    rows, k = q.shape
    if k % 16 == 0:
        return q.contiguous()
    padded = torch.zeros(rows, quant.align(k, 16), dtype=q.dtype, device=q.device)
    padded[:, :k] = q
    return padded[:, :k]


class Inputs:
    """One problem, quantised for `recipe`, with the arguments each
    implementation takes and the f32 reference."""

    def __init__(self, m, n, k, recipe, gen):
        a = torch.randn(m, k, device=DEVICE, dtype=torch.bfloat16, generator=gen)
        b = torch.randn(n, k, device=DEVICE, dtype=torch.bfloat16, generator=gen)
        qa, sfa = quant.per_token_cast_to_fp8(a)
        if recipe == "1d2d":
            qb, sfb = quant.per_block_cast_to_fp8(b)
            b_ref = quant.dequantize_per_block(qb, sfb)
        else:
            qb, sfb = quant.per_token_cast_to_fp8(b)
            b_ref = quant.dequantize_per_token(qb, sfb)
        self.m, self.n, self.k, self.recipe = m, n, k, recipe
        self.a, self.b = fp8_storage(qa), fp8_storage(qb)
        self.sfa_mn = quant.mn_major_tma_aligned(sfa)   # DeepGEMM's SFA
        self.sfb = sfb.contiguous()                     # [NB, KB] or [N, KB]
        if recipe == "1d1d":
            self.sfb_mn = quant.mn_major_tma_aligned(sfb)
        else:
            # For fp8_gemm_1d1d running the 1D2D product.
            self.sfb_mn = quant.mn_major_tma_aligned(
                quant.block_scales_per_column(sfb, n))
        self.product = quant.dequantize_per_token(qa, sfa) @ b_ref.t()
        del a, b, qa, qb, b_ref

    def tilec_args(self, bundle, d):
        sfa = quant.kernel_view(self.sfa_mn)
        if bundle.spec == "1d2d":
            return (self.a, self.b, d, sfa, self.sfb)
        return (self.a, self.b, d, sfa, quant.kernel_view(self.sfb_mn))


def deep_gemm_module():
    try:
        import deep_gemm
        return deep_gemm
    except Exception as e:  # noqa: BLE001 (ImportError or a broken build)
        print(f"deep_gemm not available: {e}", flush=True)
        return None


def deep_gemm_call(dg, case, inp, d) -> Optional[object]:
    """DeepGEMM's SM90 kernel for `case`, or None where it has none: its
    1D2D kernel writes bf16 without accumulation, its 1D1D kernel
    accumulates into f32."""
    if dg is None:
        return None
    if case.recipe == "1d2d" and case.out == torch.bfloat16 and not case.accumulate:
        return lambda: dg.fp8_gemm_nt((inp.a, inp.sfa_mn), (inp.b, inp.sfb), d,
                                      disable_ue8m0_cast=True)
    if case.recipe == "1d1d" and case.out == torch.float32 and case.accumulate:
        return lambda: dg.fp8_gemm_nt((inp.a, inp.sfa_mn), (inp.b, inp.sfb_mn), d,
                                      c=d, recipe=(1, 1, 128),
                                      disable_ue8m0_cast=True)
    return None


def fresh_output(case, inp, gen):
    """(d, c): D poisoned with NaN, or for accumulation D = C = random * 32
    (DeepGEMM's generator); c is None without accumulation."""
    if case.accumulate:
        c = torch.randn(inp.m, inp.n, device=DEVICE, dtype=torch.float32,
                        generator=gen) * 32
        return c.clone(), c
    return torch.full((inp.m, inp.n), float("nan"), device=DEVICE,
                      dtype=case.out), None


def verdict(d, c, inp):
    """(calc_diff, NaNs left) of D against the reference."""
    torch.cuda.synchronize()
    nan = torch.isnan(d).sum().item()
    if c is None:
        return quant.calc_diff(d.float(), inp.product), nan
    return quant.calc_diff(d.float() - c, inp.product), nan


def problems(bundles, shapes, gen, extra_cases=()):
    """(shape, Inputs, the bundles' cases of its recipe) for every shape and
    recipe some bundle (or `extra_cases`) runs; each problem's tensors are
    freed after use."""
    cases = sorted({c for b in bundles for c in b.cases} | set(extra_cases),
                   key=Case.label)
    for m, n, k in shapes:
        for recipe in ("1d2d", "1d1d"):
            mine = [c for c in cases if c.recipe == recipe]
            if mine:
                yield (m, n, k), Inputs(m, n, k, recipe, gen), mine
                torch.cuda.empty_cache()


def run_checks(bundles, shapes, dg, gen, lines):
    lines += ["| kernel | case | M | N | K | calc_diff | NaN left | result |",
              "|---|---|---:|---:|---:|---:|---:|---|"]
    passed = {}
    for (m, n, k), inp, cases in problems(bundles, shapes, gen):
        for case in cases:
            runs = [(b.name, (lambda b: lambda d: b.kernel(*inp.tilec_args(b, d)))(b))
                    for b in bundles if case in b.cases]
            call = deep_gemm_call(dg, case, inp, None)
            if call is not None:
                runs.append(("DeepGEMM", lambda d: deep_gemm_call(dg, case, inp, d)()))
            for name, run in runs:
                d, c = fresh_output(case, inp, gen)
                try:
                    run(d)
                    diff, nan = verdict(d, c, inp)
                    ok = nan == 0 and diff < 1e-3
                    result = "ok" if ok else "WRONG"
                except Exception as e:  # noqa: BLE001 (report, go on)
                    diff, nan, ok, result = float("nan"), -1, False, f"error: {e}"
                if name != "DeepGEMM":
                    passed[(name, case)] = passed.get((name, case), True) and ok
                line = (f"| {name} | {case.label()} | {m} | {n} | {k} "
                        f"| {diff:.2e} | {nan} | {result} |")
                print(line, flush=True)
                lines.append(line)
    return passed


def timed(fn, flush):
    if flush is not None:
        return gb.time_fn_cold(fn, flush)
    ms = gb.time_fn_graph(fn)
    return ms if ms is not None else gb.time_fn(fn)


DEEPGEMM = "DeepGEMM fp8_gemm_nt"
PACKAGE = "tilec.deep_gemm (config table)"
CUBLAS = "cuBLASLt (torch._scaled_mm, per-tensor)"


def ratio(base_ms, ms):
    """How many times faster than `base_ms` a call of `ms` is, or '-'."""
    return f"{base_ms / ms:.2f}" if base_ms else "-"


def summary_row(m, n, k, case, rows, best, flops):
    times = dict(rows)
    show = lambda ms: f"{flops / ms / 1e9:.0f}" if ms else "-"  # noqa: E731
    return (f"| {m} | {n} | {k} | {case.label()} | {show(times.get(DEEPGEMM))} "
            f"| {show(times.get(CUBLAS))} | {best[0]} | {show(best[1])} "
            f"| {ratio(times.get(DEEPGEMM), best[1])} "
            f"| {ratio(times.get(CUBLAS), best[1])} |")


def package_call(tdg, case, inp, d) -> Optional[object]:
    """tilec.deep_gemm.fp8_gemm_nt as a user calls it (the config table's
    kernel), for the cases DeepGEMM's 1D2D call covers."""
    if tdg is None or case.recipe != "1d2d" or case.accumulate:
        return None
    return lambda: tdg.fp8_gemm_nt((inp.a, inp.sfa_mn), (inp.b, inp.sfb), d)


def run_timing(bundles, shapes, dg, passed, flush, gen, lines, tdg=None,
               rounds=5):
    lines += ["", "| M | N | K | case | kernel | us | TFLOP/s | vs DeepGEMM "
              "| vs cuBLASLt |", "|---:|---:|---:|---|---|---:|---:|---:|---:|"]
    summary = ["", "| M | N | K | case | DeepGEMM | cuBLASLt | best tilec | "
               "TFLOP/s | vs DeepGEMM | vs cuBLASLt |",
               "|---:|---:|---:|---|---:|---:|---|---:|---:|---:|"]
    extra = [Case("1d2d", torch.bfloat16, False)] if tdg is not None else []
    for (m, n, k), inp, cases in problems(bundles, shapes, gen, extra):
        flops = 2.0 * m * n * k
        for case in cases:
            d, _ = fresh_output(case, inp, gen)
            fns = {}
            call = deep_gemm_call(dg, case, inp, d)
            if call is not None:
                fns[DEEPGEMM] = call
            call = package_call(tdg, case, inp, d)
            if call is not None:
                # The tiered JIT's tuned kernel, not its quick build (tilec
                # came in with tilec.deep_gemm).
                call()
                sys.modules["tilec"].wait_for_compiles()
                fns[PACKAGE] = call
            one = torch.ones((), device=DEVICE, dtype=torch.float32)
            try:
                scaled_mm = lambda: torch._scaled_mm(  # noqa: E731
                    inp.a, inp.b.t(), scale_a=one, scale_b=one, out_dtype=case.out)
                scaled_mm()
                fns[CUBLAS] = scaled_mm
            except Exception as e:  # noqa: BLE001 (M=1, odd strides, ...)
                print(f"torch._scaled_mm {m}x{n}x{k}: {e}", flush=True)
            for b in bundles:
                if case not in b.cases:
                    continue
                if not passed.get((b.name, case), True):
                    lines.append(f"| {m} | {n} | {k} | {case.label()} | {b.name} "
                                 "| - | - | (failed check) |")
                    continue
                args = inp.tilec_args(b, d)
                fns[b.name] = lambda b=b, args=args: b.kernel(*args)
            if flush is not None:
                times = {name: timed(fn, flush) for name, fn in fns.items()}
            else:
                try:
                    times = gb.time_interleaved(fns, rounds=rounds)
                except Exception as e:  # noqa: BLE001 (e.g. DeepGEMM failing)
                    print(f"{m}x{n}x{k}: {e}", flush=True)
                    continue
            rows = list(times.items())
            best = None
            for name, ms in rows:
                if name not in (DEEPGEMM, CUBLAS, PACKAGE) and (best is None or ms < best[1]):
                    best = (name, ms)
            base = dict(rows).get(DEEPGEMM)
            cublas = dict(rows).get(CUBLAS)
            for name, ms in rows:
                line = (f"| {m} | {n} | {k} | {case.label()} | {name} "
                        f"| {ms * 1e3:.1f} | {flops / ms / 1e9:.0f} "
                        f"| {ratio(base, ms)} | {ratio(cublas, ms)} |")
                print(line, flush=True)
                lines.append(line)
            if best:
                summary.append(summary_row(m, n, k, case, rows, best, flops))
    lines += summary
    print("\n".join(summary), flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--bundle", action="append", default=[],
                   help="a bundle of fp8_gemm_1d2d or fp8_gemm_1d1d (repeatable)")
    p.add_argument("--acc-bundle", action="append", default=[],
                   help="a bundle built with -D ACCUMULATE=1 (repeatable)")
    shapes_help = ("all, issue, forward, partial, quick, small, none, or "
                   "MxNxK[,MxNxK...]")
    p.add_argument("--check-shapes", default="all", help=shapes_help)
    p.add_argument("--time-shapes", default="all", help=shapes_help)
    p.add_argument("--split-bundle", action="append", default=[],
                   help="GEMM.tilec:REDUCE.tilec:SPLIT_K:BLK_M, a split-K "
                        "build of fp8_gemm_1d2d and its splitk_reduce "
                        "(repeatable)")
    p.add_argument("--flush-l2", action="store_true",
                   help="time single calls after evicting L2 (default: CUDA "
                        "graphs of back-to-back calls)")
    p.add_argument("--no-deepgemm", action="store_true")
    p.add_argument("--rounds", type=int, default=5,
                   help="interleaved timing rounds per shape (more where "
                        "kernels a few percent apart are compared)")
    p.add_argument("--package", action="store_true",
                   help="also time tilec.deep_gemm.fp8_gemm_nt (the installed "
                        "package and its config table)")
    p.add_argument("--markdown", help="append the tables to this file")
    args = p.parse_args()

    torch.backends.cuda.matmul.allow_tf32 = False
    dev = torch.cuda.get_device_properties(0)
    print(f"device: {dev.name}, {dev.multi_processor_count} SMs, "
          f"torch {torch.__version__}", flush=True)
    bundles = []
    for path, acc in ([(p, False) for p in args.bundle]
                      + [(p, True) for p in args.acc_bundle]):
        try:
            bundles.append(load_bundle(path, acc))
        except gb.tr.TilecError as e:
            print(f"{path}: cannot load: {e}", flush=True)
    for spec in args.split_bundle:
        try:
            bundles.append(load_split_bundle(spec))
        except (gb.tr.TilecError, ValueError) as e:
            print(f"{spec}: cannot load: {e}", flush=True)
    for b in bundles:
        print(f"{b.name}: {b.spec}, runs " + ", ".join(c.label() for c in b.cases),
              flush=True)
    dg = None if args.no_deepgemm else deep_gemm_module()
    gen = torch.Generator(device=DEVICE)
    gen.manual_seed(1234)
    lines = []
    passed = run_checks(bundles, shape_list(args.check_shapes), dg, gen, lines)
    flush = gb.l2_flush_buffer() if args.flush_l2 else None
    tdg = None
    if args.package:
        import tilec.deep_gemm as tdg
    run_timing(bundles, shape_list(args.time_shapes), dg, passed, flush, gen,
               lines, tdg, args.rounds)
    gb.append_markdown(args.markdown, lines)
    ok = all(passed.values())
    print("all checks passed" if ok else "SOME CHECKS FAILED", flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

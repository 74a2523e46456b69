#!/usr/bin/env python3
"""tilec against DeepGEMM, cuBLAS and cuBLASLt on the compass shapes, BF16 and FP8.

Issue 13's one benchmark: tilec runs as a user calls it, through the
Python package (`tilec.deep_gemm.bf16_gemm_nt` and `fp8_gemm_nt`, 1D2D
scaling, bf16 out: the configuration heuristic picks each kernel), beside
DeepGEMM's functions of the same names, cuBLAS (torch.mm, BF16) and
cuBLASLt (torch._scaled_mm with per-tensor scales, FP8) in one process, on
the same inputs. Shapes: 4096^3, 8192^3, M in {1, 128, 4096} by DeepGEMM's
(N, K) list (tests/generators.py, enumerate_normal) and the partial tiles
1000x3000x4160 and 333x520x72.

Each shape is checked first (outputs poisoned with NaN, calc_diff against
an f32 reference below 1e-3 for tilec and DeepGEMM), then timed by
interleaved CUDA-graph rounds (bench/gemm_bench.py time_interleaved). Where
one problem's inputs and output fit in twice the L2 cache, the graphs
rotate among several input sets of the same shape (every kernel over the
same sets), so that a small problem is timed from memory as a model's
weights are, not from the L2 where the previous call left it; `--hot`
times one set, as runs before 52 did.
Writes a Markdown report (date, GPU, commit, the command, a table per
dtype with every time and the ratios, the geometric means) and a PNG of
the ratios to DeepGEMM beside it.

    python3 bench/vs_deepgemm.py --commit $(git rev-parse --short HEAD) \
        --markdown bench/results/<date>-vs-deepgemm.md [--shapes quick]
        [--dtypes bf16,fp8]
"""

import argparse
import datetime
import math
import os
import sys

import torch
import tilec

sys.path.insert(0, os.path.dirname(__file__))
import fp8_gemm as fg  # noqa: E402 (shape lists, FP8 inputs, quant)
import gemm_bench as gb  # noqa: E402 (interleaved timing)

COMPASS = ([(4096, 4096, 4096), (8192, 8192, 8192)] + fg.FORWARD_SHAPES +
           fg.PARTIAL_SHAPES)
QUICK = [(4096, 4096, 4096), (128, 2112, 7168), (1, 576, 7168), (333, 520, 72)]

TILEC, DEEPGEMM = "tilec.deep_gemm", "DeepGEMM"
BASELINE = {"bf16": "cuBLAS (torch.mm)",
            "fp8": "cuBLASLt (torch._scaled_mm, per-tensor)"}
FAMILY = {"bf16": "bf16_gemm_nt", "fp8": "fp8_gemm_1d2d"}


class Bf16Inputs:
    """A [M, K], B [N, K] bf16 and the f32 product."""

    def __init__(self, m, n, k, gen):
        self.a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16, generator=gen)
        self.b = torch.randn(n, k, device="cuda", dtype=torch.bfloat16, generator=gen)
        self.product = self.a.float() @ self.b.float().t()

    def calls(self, tdg, dg, d):
        fns = {TILEC: lambda: tdg.bf16_gemm_nt(self.a, self.b, d)}
        if dg is not None:
            fns[DEEPGEMM] = lambda: dg.bf16_gemm_nt(self.a, self.b, d)
        return fns

    def baseline(self, d):
        return lambda: torch.mm(self.a, self.b.t(), out=d)


class Fp8Inputs(fg.Inputs):
    """fp8_gemm.py's 1D2D inputs (per-token A, per-block B scales)."""

    def __init__(self, m, n, k, gen):
        super().__init__(m, n, k, "1d2d", gen)

    def calls(self, tdg, dg, d):
        case = fg.Case("1d2d", torch.bfloat16, False)
        fns = {TILEC: fg.package_call(tdg, case, self, d)}
        if dg is not None:
            fns[DEEPGEMM] = fg.deep_gemm_call(dg, case, self, d)
        return fns

    def baseline(self, d):
        one = torch.ones((), device="cuda", dtype=torch.float32)
        return lambda: torch._scaled_mm(self.a, self.b.t(), scale_a=one,
                                        scale_b=one, out_dtype=torch.bfloat16)


def check(fn, d, product):
    """calc_diff of one poisoned run, or an error string."""
    d.fill_(float("nan"))
    try:
        fn()
        torch.cuda.synchronize()
    except Exception as e:  # noqa: BLE001 (report it, go on)
        return f"error: {e}"
    if torch.isnan(d).any():
        return "NaN left"
    return fg.quant.calc_diff(d.float(), product)


def config_of(dtype, m, n, k):
    from tilec import _configs
    defines, _ = _configs.choose(FAMILY[dtype], m, n, k)
    return " ".join(f"{name}={value}" for name, value in defines)


MAX_INPUT_SETS = 16
CALLS_PER_GRAPH = 20


def input_sets_for(dtype, m, n, k, hot):
    """How many input sets a shape's timing rotates among: enough that
    they hold twice the L2 cache (at most MAX_INPUT_SETS), one if `hot`."""
    if hot:
        return 1
    element = 2 if dtype == "bf16" else 1
    one_set = (m + n) * k * element + m * n * 2
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    return max(1, min(MAX_INPUT_SETS, math.ceil(2 * l2 / one_set)))


def rotating(calls):
    """One callable that runs `calls` in turn, one per call: captured
    CALLS_PER_GRAPH times in a graph, it cycles through the input sets."""
    if len(calls) == 1:
        return calls[0]
    turn = [0]

    def call():
        calls[turn[0] % len(calls)]()
        turn[0] += 1
    return call


def run_dtype(dtype, shapes, tdg, dg, gen, hot=False):
    """[(m, n, k, config, sets, {name: ms}, {name: diff})] for one dtype."""
    rows = []
    for m, n, k in shapes:
        sets = input_sets_for(dtype, m, n, k, hot)
        inputs = [(Bf16Inputs if dtype == "bf16" else Fp8Inputs)(m, n, k, gen)
                  for _ in range(sets)]
        outs = [torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
                for _ in range(sets)]
        per_set = [inp.calls(tdg, dg, d) for inp, d in zip(inputs, outs)]
        fns = per_set[0]
        diffs = {name: check(fn, outs[0], inputs[0].product) for name, fn in fns.items()}
        # The first call may run the quick build while the tuned kernel
        # compiles (docs/python.md, the tiered JIT): time the tuned one.
        tilec.wait_for_compiles()
        fns[TILEC]()
        good = {name: rotating([calls[name] for calls in per_set])
                for name in fns
                if isinstance(diffs[name], float) and diffs[name] < 1e-3}
        try:
            bases = [inp.baseline(torch.empty_like(d)) for inp, d in zip(inputs, outs)]
            bases[0]()
            good[BASELINE[dtype]] = rotating(bases)
        except Exception as e:  # noqa: BLE001 (M = 1 and odd shapes)
            print(f"{BASELINE[dtype]} {m}x{n}x{k}: {e}", flush=True)
        calls = sets * math.ceil(CALLS_PER_GRAPH / sets)
        times = gb.time_interleaved(good, calls=calls) if good else {}
        rows.append((m, n, k, config_of(dtype, m, n, k), sets, times, diffs))
        print(dtype, m, n, k, f"{sets} input sets",
              {k_: f"{v * 1e3:.1f} us" for k_, v in times.items()},
              {k_: (f"{v:.1e}" if isinstance(v, float) else v) for k_, v in diffs.items()},
              flush=True)
        del inputs, outs, per_set, fns, good
        torch.cuda.empty_cache()
    return rows


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def table(dtype, rows):
    base = BASELINE[dtype]
    lines = [f"### {dtype.upper()}", "",
             f"| M | N | K | tilec config | input sets | diff tilec / DeepGEMM | tilec us | DeepGEMM us "
             f"| {base} us | tilec TFLOP/s | tilec / DeepGEMM | tilec / {base.split()[0]} |",
             "|---:|---:|---:|---|---:|---|---:|---:|---:|---:|---:|---:|"]
    ratios = []
    for m, n, k, config, sets, times, diffs in rows:
        fmt = lambda name: f"{times[name] * 1e3:.1f}" if name in times else "-"  # noqa: E731
        diff = " / ".join(f"{diffs[x]:.1e}" if isinstance(diffs.get(x), float)
                          else str(diffs.get(x, "-")) for x in (TILEC, DEEPGEMM))
        r_dg = times[DEEPGEMM] / times[TILEC] if TILEC in times and DEEPGEMM in times else None
        r_base = times[base] / times[TILEC] if TILEC in times and base in times else None
        tflops = f"{2.0 * m * n * k / times[TILEC] / 1e9:.0f}" if TILEC in times else "-"
        if r_dg:
            ratios.append((f"{m}x{n}x{k}", r_dg, r_base))
        lines.append(f"| {m} | {n} | {k} | {config} | {sets} | {diff} | {fmt(TILEC)} | {fmt(DEEPGEMM)} "
                     f"| {fmt(base)} | {tflops} | {f'{r_dg:.2f}' if r_dg else '-'} "
                     f"| {f'{r_base:.2f}' if r_base else '-'} |")
    values = [r for _, r, _ in ratios]
    lines += ["", f"Geometric mean tilec / DeepGEMM over {len(values)} shapes: "
              f"**{geomean(values):.2f}x**; {sum(v >= 1.0 for v in values)} at or above "
              f"1.0, lowest {min(values, default=float('nan')):.2f}"
              f" ({min(ratios, key=lambda x: x[1])[0] if ratios else '-'}), "
              f"{sum(v < 0.9 for v in values)} below 0.9.", ""]
    return lines, ratios


def plot(path, per_dtype):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(len(per_dtype), 1, figsize=(14, 4.5 * len(per_dtype)),
                             squeeze=False)
    for ax, (dtype, ratios) in zip(axes[:, 0], per_dtype.items()):
        names = [s for s, _, _ in ratios]
        x = range(len(names))
        ax.bar([i - 0.2 for i in x], [r for _, r, _ in ratios], 0.4, label=TILEC)
        ax.bar([i + 0.2 for i in x], [r / b if b else 0 for _, r, b in ratios], 0.4,
               label=BASELINE[dtype])
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.axhline(0.9, color="gray", linewidth=0.6, linestyle="--")
        ax.set_xticks(list(x))
        ax.set_xticklabels(names, rotation=60, ha="right", fontsize=8)
        ax.set_ylabel("speed relative to DeepGEMM")
        ax.set_title(f"{dtype.upper()}: speed relative to DeepGEMM (1.0), per shape")
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--shapes", default="compass",
                   help="compass (default), quick, or MxNxK,MxNxK,...")
    p.add_argument("--dtypes", default="bf16,fp8", help="bf16, fp8 or both")
    p.add_argument("--commit", default="unknown", help="the commit measured")
    p.add_argument("--hot", action="store_true",
                   help="time every shape on one input set (the L2 may hold it "
                   "between calls); by default small shapes rotate among sets")
    p.add_argument("--define", action="append", default=[], metavar="NAME=VALUE",
                   help="a spec param over the heuristic's pick for every shape "
                   "of --dtypes' first dtype (a variant, marked in the config "
                   "column); repeatable")
    p.add_argument("--markdown", required=True,
                   help="the report to write; the plot goes beside it (.png)")
    args = p.parse_args()
    dtypes = args.dtypes.split(",")
    for dtype in dtypes:
        if dtype not in FAMILY:
            p.error(f"--dtypes: unknown dtype {dtype!r}; use bf16 and/or fp8")
    shapes = {"compass": COMPASS, "quick": QUICK}.get(args.shapes)
    if shapes is None:
        shapes = fg.shape_list(args.shapes)
    import tilec.deep_gemm as tdg
    from spec_variant import spec_variant
    spec_variant(args.define, FAMILY[dtypes[0]])
    variant = " + " + " ".join(args.define) if args.define else ""
    dg = fg.deep_gemm_module()
    gen = torch.Generator(device="cuda")
    gen.manual_seed(0)
    per_dtype, lines = {}, []
    png = os.path.splitext(args.markdown)[0] + ".png"
    head = [f"# tilec against DeepGEMM, cuBLAS and cuBLASLt ({datetime.date.today()})", "",
            f"- GPU: {torch.cuda.get_device_name()} ({torch.cuda.get_device_properties(0).multi_processor_count} SMs),"
            f" torch {torch.__version__}, DeepGEMM {'imported' if dg else 'not available'}",
            f"- Commit: {args.commit}",
            f"- Command: `python3 bench/vs_deepgemm.py {' '.join(sys.argv[1:])}`",
            "- tilec through its package as a user calls it (the heuristic's pick, "
            "shown as its -D parameters); interleaved CUDA-graph rounds, "
            + ("one input set per shape" if args.hot else
               "rotating among as many input sets as fill twice the L2 (column 'input sets')")
            + "; ratios are "
            "times (above 1: tilec faster); diff = calc_diff against an f32 reference.",
            "", f"![ratios to DeepGEMM]({os.path.basename(png)})", ""]
    # The report is rewritten after each dtype, so that a run cut short
    # keeps what it measured.
    for dtype in dtypes:
        rows = run_dtype(dtype, shapes, tdg, dg, gen, args.hot)
        if variant and dtype == dtypes[0]:
            rows = [row[:3] + (row[3] + variant,) + row[4:] for row in rows]
        body, ratios = table(dtype, rows)
        lines += body
        per_dtype[dtype] = ratios
        with open(args.markdown, "w") as f:
            f.write("\n".join(head + lines) + "\n")
        plot(png, per_dtype)
    print("\n".join(lines))


if __name__ == "__main__":
    main()

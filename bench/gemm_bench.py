#!/usr/bin/env python3
"""Checks and times tilec GEMM bundles against cuBLAS (torch.matmul) on one GPU.

D = A @ B^T with A (M x K) and B (N x K) both K-major, bf16 in, f32 accumulate,
bf16 out; --a-major mn / --b-major mn pass A as (K x M) / B as (K x N)
instead, as kernels with gemm_async(..., a_major = mn, b_major = mn) take
them. Every check draws fresh random inputs, poisons D with NaN, runs the
kernel through the tilec runtime (ctypes), and compares with a float32
reference by ||D - ref|| / ||ref||. Timing: every kernel of a shape, cuBLAS
and (--deepgemm) DeepGEMM's bf16_gemm_nt in interleaved rounds of CUDA-graph
replays (time_interleaved), in the same process on the same inputs.

    python3 bench/gemm_bench.py --bundle out/rung1.tilec --bundle ... \
        [--check-shapes default|quick] [--time-shapes 4096,8192] [--markdown F]
        [--a-major k|mn] [--b-major k|mn]
"""

import argparse
import os
import statistics
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "runtime",
                                "python"))
import tilec_runtime as tr  # noqa: E402

DEEPGEMM_NK = [(2112, 7168), (24576, 1536), (32768, 512), (7168, 16384),
               (4096, 7168), (7168, 2048)]


def check_shapes(kind):
    if kind == "tiny":
        return [(256, 512, 256), (200, 264, 136)]
    if kind == "quick":
        return [(4096, 4096, 4096), (1000, 3000, 4160), (128, 2112, 7168)]
    shapes = [(4096, 4096, 4096), (8192, 8192, 8192)]
    for m in (128, 4096):
        for n, k in DEEPGEMM_NK:
            shapes.append((m, n, k))
    shapes += [(1000, 3000, 4160), (333, 520, 72)]
    return shapes


def rel_error(d, ref):
    diff = (d.float() - ref).norm().item()
    return diff / max(ref.norm().item(), 1e-30)


# The operand majors the kernels take (--a-major, --b-major).
MAJORS = {"a": "k", "b": "k"}


def operands(m, n, k, gen=None):
    """A and B as the kernel takes them, and A as M x K, B as K x N views."""
    shape_a = (m, k) if MAJORS["a"] == "k" else (k, m)
    shape_b = (n, k) if MAJORS["b"] == "k" else (k, n)
    a = torch.randn(*shape_a, device="cuda", dtype=torch.bfloat16, generator=gen)
    b = torch.randn(*shape_b, device="cuda", dtype=torch.bfloat16, generator=gen)
    a_mk = a if MAJORS["a"] == "k" else a.t()
    b_kn = b.t() if MAJORS["b"] == "k" else b
    return a, b, a_mk, b_kn


def run_check(kernel, m, n, k, gen):
    a, b, a_mk, b_kn = operands(m, n, k, gen)
    d = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
    kernel(a, b, d)
    torch.cuda.synchronize()
    ref = a_mk.float() @ b_kn.float()
    nan = torch.isnan(d).sum().item()
    return rel_error(d, ref), nan


class SplitK:
    """A split-K pair run as one kernel: the GEMM (-D SPLIT_K=S, f32
    partial sums) into a workspace of S slices of M rounded up to BLK_M
    rows, then splitk_reduce.tile into D. The workspace is allocated once
    per shape, outside the timed calls. Arguments after A, B and D (FP8
    scales) go to the GEMM."""

    def __init__(self, gemm, reduce, splits, block_m):
        self.gemm, self.reduce = gemm, reduce
        self.splits, self.block_m = splits, block_m
        self.workspaces = {}

    def __call__(self, a, b, d, *rest):
        m, n = d.shape
        rows = self.splits * -(-m // self.block_m) * self.block_m
        ws = self.workspaces.get((rows, n))
        if ws is None:
            ws = self.workspaces[(rows, n)] = torch.empty(
                rows, n, device=d.device, dtype=torch.float32)
        self.gemm(a, b, ws, *rest)
        self.reduce(ws, d)


def load_kernel(path):
    """(name, kernel) of a bundle holding one kernel; the name is the file's
    stem. Raises tr.TilecError when the bundle cannot be loaded."""
    name = os.path.splitext(os.path.basename(path))[0]
    return name, tr.Module(path).kernel()


def l2_flush_buffer(mib=256):
    """A buffer larger than the L2 cache (50 MiB on the H100/H200): zeroing
    it evicts every operand of the previous call."""
    return torch.empty(mib << 20, dtype=torch.uint8, device="cuda")


def time_fn_cold(fn, flush, reps=20):
    """Median milliseconds of one call with a cold L2: `flush` (a buffer from
    l2_flush_buffer) is zeroed before each call, outside the timed events."""
    fn()
    torch.cuda.synchronize()
    pairs = [(torch.cuda.Event(True), torch.cuda.Event(True))
             for _ in range(reps)]
    for start, end in pairs:
        flush.zero_()
        start.record()
        fn()
        end.record()
    torch.cuda.synchronize()
    return statistics.median(start.elapsed_time(end) for start, end in pairs)


def capture_graph(fn, calls):
    """A CUDA graph of `calls` back-to-back calls of `fn`, replayed once, or
    None when `fn` cannot be captured."""
    fn()
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    try:
        with torch.cuda.graph(graph):
            for _ in range(calls):
                fn()
    except Exception:  # noqa: BLE001 (any capture failure: time without)
        torch.cuda.synchronize()
        return None
    graph.replay()
    torch.cuda.synchronize()
    return graph


def time_fn_graph(fn, calls=20, reps=5):
    """Median milliseconds per call, from CUDA graphs of `calls` back-to-back
    calls: GPU time without the host's launch overhead, which would dominate
    kernels of a few microseconds. None when `fn` cannot be captured."""
    graph = capture_graph(fn, calls)
    if graph is None:
        return None
    return statistics.median(graph_samples(graph, calls, reps))


def graph_samples(graph, calls, reps):
    """Milliseconds per call of `reps` replays of `graph` (`calls` calls)."""
    start, end = torch.cuda.Event(True), torch.cuda.Event(True)
    samples = []
    for _ in range(reps):
        start.record()
        graph.replay()
        end.record()
        torch.cuda.synchronize()
        samples.append(start.elapsed_time(end) / calls)
    return samples


def time_interleaved(fns, calls=20, reps=3, rounds=5):
    """{name: median milliseconds per call} for the callables `fns` ({name:
    fn}), timed in `rounds` rounds that each replay every one's CUDA graph
    of `calls` back-to-back calls `reps` times, in an order rotated round to
    round: each kernel then sees the GPU's clocks and temperature as the
    others do, where timing one after the other favoured whichever ran first
    (the same FP8 kernel measured 1279 and 1059 TFLOP/s in two runs with 5
    and 12 kernels per shape). A callable that cannot be captured is timed
    with time_fn after the rounds."""
    graphs, uncaptured = {}, []
    for name, fn in fns.items():
        graph = capture_graph(fn, calls)
        if graph is None:
            uncaptured.append(name)
        else:
            graphs[name] = graph
    samples = {name: [] for name in graphs}
    names = list(graphs)
    for r in range(rounds if names else 0):
        shift = r % len(names)
        for name in names[shift:] + names[:shift]:
            samples[name] += graph_samples(graphs[name], calls, reps)
    result = {name: statistics.median(values) for name, values in samples.items()}
    for name in uncaptured:
        result[name] = time_fn(fns[name])
    return {name: result[name] for name in fns}


def append_markdown(path, lines):
    """Appends `lines` to the Markdown file `path`, when one is given."""
    if path:
        with open(path, "a") as f:
            f.write("\n".join(lines) + "\n")


def time_fn(fn, reps=5, min_ms=200.0):
    """Median milliseconds per call: events around batches of calls."""
    fn()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(True), torch.cuda.Event(True)
    start.record()
    fn()
    end.record()
    torch.cuda.synchronize()
    one = max(start.elapsed_time(end), 1e-3)
    batch = max(1, min(200, int(min_ms / reps / one)))
    samples = []
    for _ in range(reps):
        start.record()
        for _ in range(batch):
            fn()
        end.record()
        torch.cuda.synchronize()
        samples.append(start.elapsed_time(end) / batch)
    return statistics.median(samples)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--bundle", action="append", default=[],
                   help="a tilec bundle holding one GEMM kernel (repeatable)")
    p.add_argument("--split-bundle", action="append", default=[],
                   metavar="GEMM:REDUCE:SPLIT_K:BLK_M",
                   help="a split-K GEMM bundle and its splitk_reduce bundle, run as one")
    p.add_argument("--check-shapes", default="default",
                   choices=["default", "quick", "tiny", "none"])
    p.add_argument("--time-shapes", default="4096,8192",
                   help="comma-separated cube sizes or MxNxK shapes to time ('' for none)")
    p.add_argument("--time-deepgemm", action="store_true",
                   help="also time DeepGEMM's shapes (M in 128, 4096)")
    p.add_argument("--deepgemm", action="store_true",
                   help="time DeepGEMM's bf16_gemm_nt beside (K-major A and B)")
    p.add_argument("--markdown", help="append the tables here")
    p.add_argument("--a-major", choices=["k", "mn"], default="k",
                   help="k: A is (M, K); mn: A is (K, M)")
    p.add_argument("--b-major", choices=["k", "mn"], default="k",
                   help="k: B is (N, K); mn: B is (K, N)")
    args = p.parse_args()
    MAJORS.update(a=args.a_major, b=args.b_major)

    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    dev = torch.cuda.get_device_properties(0)
    print(f"device: {dev.name}, {dev.multi_processor_count} SMs, "
          f"torch {torch.__version__}", flush=True)
    kernels = []
    for path in args.bundle:
        try:
            name, kern = load_kernel(path)
            # Scalars after A, B, D (an epilogue scale) get 1.0.
            extra = [1.0] * (len(kern.args) - 3)
            kernels.append((name, (lambda k, x: lambda a, b, d: k(a, b, d, *x))(kern, extra)))
        except tr.TilecError as e:
            print(f"{path}: cannot load: {e}", flush=True)
    for spec in args.split_bundle:
        gemm_path, reduce_path, splits, block_m = spec.split(":")
        gemm = tr.Module(gemm_path).kernel()
        reduce = tr.Module(reduce_path).kernel()
        name = os.path.splitext(os.path.basename(gemm_path))[0]
        kernels.append((name, SplitK(gemm, reduce, int(splits), int(block_m))))
    lines = []
    gen = torch.Generator(device="cuda")
    gen.manual_seed(1234)
    worst = {}
    if args.check_shapes != "none":
        lines.append("| kernel | M | N | K | rel. error | NaN left | result |")
        lines.append("|---|---:|---:|---:|---:|---:|---|")
        for name, kern in kernels:
            for m, n, k in check_shapes(args.check_shapes):
                try:
                    err, nan = run_check(kern, m, n, k, gen)
                    ok = nan == 0 and err < 1e-2
                    verdict = "ok" if ok else "WRONG"
                except Exception as e:  # report and continue with the next
                    err, nan, ok, verdict = float("nan"), -1, False, f"error: {e}"
                worst.setdefault(name, True)
                worst[name] &= ok
                line = f"| {name} | {m} | {n} | {k} | {err:.2e} | {nan} | {verdict} |"
                print(line, flush=True)
                lines.append(line)
    shapes = [tuple(int(d) for d in x.split("x")) if "x" in x else (int(x),) * 3
              for x in args.time_shapes.split(",") if x]
    if args.time_deepgemm:
        shapes += [(m, n, k) for m in (128, 4096) for n, k in DEEPGEMM_NK]
    dg = None
    if args.deepgemm:
        try:
            import deep_gemm as dg
        except Exception as e:  # noqa: BLE001 (ImportError or a broken build)
            print(f"deep_gemm not available: {e}", flush=True)
    if shapes:
        lines.append("")
        lines.append("| M | N | K | kernel | ms | TFLOP/s | vs cuBLAS | vs DeepGEMM |")
        lines.append("|---:|---:|---:|---|---:|---:|---:|---:|")
        for m, n, k in shapes:
            a, b, a_mk, b_kn = operands(m, n, k)
            d = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
            flops = 2.0 * m * n * k
            # Every kernel of a shape in interleaved CUDA-graph rounds.
            fns = {"cuBLAS (torch.matmul)": lambda: torch.matmul(a_mk, b_kn, out=d)}
            if dg is not None and MAJORS == {"a": "k", "b": "k"}:
                fns["DeepGEMM bf16_gemm_nt"] = lambda: dg.bf16_gemm_nt(a, b, d)
            for name, kern in kernels:
                if not worst.get(name, True):
                    lines.append(f"| {m} | {n} | {k} | {name} | - | - | (failed check) | |")
                    continue
                fns[name] = (lambda kern: lambda: kern(a, b, d))(kern)
            times = time_interleaved(fns)
            ms_cublas = times["cuBLAS (torch.matmul)"]
            ms_dg = times.get("DeepGEMM bf16_gemm_nt")
            for name, ms in times.items():
                vs_dg = f"{ms_dg / ms:.2f}" if ms_dg else "-"
                row = (f"| {m} | {n} | {k} | {name} | {ms:.4f} | {flops / ms / 1e9:.0f} "
                       f"| {ms_cublas / ms:.2f} | {vs_dg} |")
                print(row, flush=True)
                lines.append(row)
    append_markdown(args.markdown, lines)
    print("\n".join(lines))
    return 0 if all(worst.values()) else 1


if __name__ == "__main__":
    sys.exit(main())

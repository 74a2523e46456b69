#!/usr/bin/env python3
"""Checks and times the fused-epilogue GEMM of examples/epilogue/ on one GPU.

The kernel computes D = act(alpha * A B^T + bias) + R with A (M x K) and
B (N x K) bf16, bias f32 [N], R bf16 [M, N], alpha an f32 scalar, act SiLU,
GELU (tanh form) or none, and D bf16 or f32. Each bundle is given with the
activation it was compiled with (ACT = 0 none, 1 silu, 2 gelu):

    tilec examples/epilogue/bias_act_residual.tile -D ACT=1 -o out/silu.tilec
    python3 bench/epilogue_bench.py --bundle out/silu.tilec:silu \\
        --plain out/06.tilec [--markdown F]

Correctness: for every shape, fresh random inputs (scaled so that the
activation sees values of order 1 and both its branches), D poisoned with
NaN, compared with a float32 reference by ||D - ref|| / ||ref|| and checked
for NaN left behind. Shapes: 4096^3, DeepGEMM's (M in 128, 4096 by its
(N, K) list) and partial tiles.

Timing (CUDA events, median of batches, same inputs in one process):
  fused    the tilec kernel;
  torch    torch.matmul, then the epilogue as PyTorch writes it
           (alpha * mm + bias, the activation, + R): what the kernel
           replaces;
  addmm    torch.addmm (cuBLASLt with alpha and the bias fused), then the
           activation and + R: PyTorch's best without a compiler;
  plain    a GEMM with no epilogue (--plain: a bf16 D = A B^T bundle, such as
           examples/hopper/06_fastest.tile), and torch.matmul alone.
Ratios: torch / fused (above 1: the fused kernel wins) and fused / plain
(the epilogue's cost).
"""

import argparse
import math
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "runtime",
                                "python"))
import tilec_runtime as tr  # noqa: E402
from gemm_bench import (DEEPGEMM_NK, append_markdown, rel_error,  # noqa: E402
                        time_fn)

ACTS = {
    "none": lambda x: x,
    "silu": F.silu,
    "gelu": lambda x: F.gelu(x, approximate="tanh"),
}
OUT_DTYPES = {"bf16": torch.bfloat16, "f32": torch.float32}
TOLERANCE = {torch.bfloat16: 1e-2, torch.float32: 1e-4}


def check_shapes(kind):
    if kind == "small":
        return [(256, 512, 256), (333, 520, 72), (130, 264, 64)]
    shapes = [(4096, 4096, 4096)]
    for m in (128, 4096):
        shapes += [(m, n, k) for n, k in DEEPGEMM_NK]
    return shapes + [(1000, 3000, 4160), (333, 520, 72), (130, 264, 64)]


def inputs(m, n, k, gen):
    def randn(*shape, dtype=torch.float32):
        return torch.randn(*shape, device="cuda", dtype=dtype, generator=gen)

    # Entries of A B^T have a standard deviation of sqrt(K); alpha brings
    # them to about 1, where SiLU and GELU are far from linear.
    a = randn(m, k, dtype=torch.bfloat16)
    b = randn(n, k, dtype=torch.bfloat16)
    return dict(a=a, b=b, bias=randn(n), r=randn(m, n, dtype=torch.bfloat16),
                alpha=1.0 / math.sqrt(k))


def reference(x, act):
    acc = x["a"].float() @ x["b"].float().t()
    return ACTS[act](acc * x["alpha"] + x["bias"]) + x["r"].float()


def torch_epilogue(x, act, out_dtype):
    """What the fused kernel replaces: a GEMM, then PyTorch elementwise ops."""
    mm = torch.matmul(x["a"], x["b"].t())
    return (ACTS[act](mm * x["alpha"] + x["bias"]) + x["r"]).to(out_dtype)


def torch_addmm(x, act, out_dtype, bias_bf16):
    mm = torch.addmm(bias_bf16, x["a"], x["b"].t(), alpha=x["alpha"])
    return (ACTS[act](mm) + x["r"]).to(out_dtype)


def run_fused(kernel, x, d):
    kernel(x["a"], x["b"], d, x["bias"], x["r"], x["alpha"])


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--bundle", action="append", default=[],
                   help="PATH:ACT with ACT none, silu or gelu (repeatable); "
                        "PATH:ACT:f32 for a bundle with f32 output")
    p.add_argument("--plain", help="a plain bf16 GEMM bundle (A, B, D)")
    p.add_argument("--time-shapes", default="4096x4096x4096,8192x8192x8192,"
                   "4096x7168x16384,4096x2112x7168,128x7168x16384",
                   help="comma-separated MxNxK to time ('' for none)")
    p.add_argument("--shapes", default="all", choices=["all", "small"],
                   help="the shapes to check (small: three partial-tile "
                        "shapes, for compute-sanitizer)")
    p.add_argument("--markdown", help="append the tables here")
    args = p.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    dev = torch.cuda.get_device_properties(0)
    print(f"device: {dev.name}, {dev.multi_processor_count} SMs, "
          f"torch {torch.__version__}", flush=True)

    fused = []
    for spec in args.bundle:
        path, act, *rest = spec.split(":")
        if act not in ACTS:
            sys.exit(f"--bundle {spec}: ACT must be one of {sorted(ACTS)}")
        out = OUT_DTYPES[rest[0]] if rest else torch.bfloat16
        name = os.path.splitext(os.path.basename(path))[0]
        fused.append((name, act, out, tr.Module(path).kernel()))
    plain = tr.Module(args.plain).kernel() if args.plain else None

    gen = torch.Generator(device="cuda")
    gen.manual_seed(2026)
    ok = True
    lines = ["| kernel | act | D | M | N | K | rel. error | NaN left | "
             "result |", "|---|---|---|---:|---:|---:|---:|---:|---|"]
    for name, act, out, kernel in fused:
        for m, n, k in check_shapes(args.shapes):
            x = inputs(m, n, k, gen)
            d = torch.full((m, n), float("nan"), device="cuda", dtype=out)
            run_fused(kernel, x, d)
            torch.cuda.synchronize()
            error = rel_error(d, reference(x, act))
            nan = torch.isnan(d).sum().item()
            good = error < TOLERANCE[out] and nan == 0
            ok &= good
            lines.append(f"| {name} | {act} | {str(out)[6:]} | {m} | {n} | "
                         f"{k} | {error:.2e} | {nan} | "
                         f"{'ok' if good else 'FAIL'} |")
            print(lines[-1], flush=True)
    print("all checks passed" if ok else "SOME CHECKS FAILED", flush=True)

    timing = ["", "| kernel | act | D | M | N | K | fused TFLOP/s | torch "
              "matmul+epilogue | torch addmm+act | plain tilec | "
              "torch.matmul | torch / fused | addmm / fused | fused / plain |",
              "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
              "---:|---:|"]
    shapes = [tuple(int(v) for v in s.split("x"))
              for s in args.time_shapes.split(",") if s]
    for m, n, k in shapes:
        x = inputs(m, n, k, gen)
        bias_bf16 = x["bias"].to(torch.bfloat16)
        flops = 2.0 * m * n * k
        tf = lambda ms: flops / ms / 1e9
        plain_ms = None
        d16 = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
        if plain is not None:
            extra = [1.0] * (len(plain.args) - 3)
            plain_ms = time_fn(lambda: plain(x["a"], x["b"], d16, *extra))
        mm_ms = time_fn(lambda: torch.matmul(x["a"], x["b"].t()))
        for name, act, out, kernel in fused:
            d = torch.empty(m, n, device="cuda", dtype=out)
            fused_ms = time_fn(lambda: run_fused(kernel, x, d))
            torch_ms = time_fn(lambda: torch_epilogue(x, act, out))
            addmm_ms = time_fn(lambda: torch_addmm(x, act, out, bias_bf16))
            plain_cell = f"{tf(plain_ms):.0f}" if plain_ms else "-"
            cost = f"{fused_ms / plain_ms:.3f}" if plain_ms else "-"
            timing.append(
                f"| {name} | {act} | {str(out)[6:]} | {m} | {n} | {k} | "
                f"{tf(fused_ms):.0f} | {tf(torch_ms):.0f} | "
                f"{tf(addmm_ms):.0f} | {plain_cell} | {tf(mm_ms):.0f} | "
                f"{torch_ms / fused_ms:.2f} | {addmm_ms / fused_ms:.2f} | "
                f"{cost} |")
            print(timing[-1], flush=True)
    print("\n".join(lines + timing))
    append_markdown(args.markdown, lines + timing)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

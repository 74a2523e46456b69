#!/usr/bin/env python3
"""Checks loads into registers and guarded stores on the GPU against torch.

The kernel is bench/epilogue_check.tile: a one-warpgroup Hopper GEMM whose
epilogue is D = (A B^T * rowscale[m] * alpha + bias[n]) * colscale[n] + R,
reading alpha with a scalar load, rowscale by a 1-D TMA copy and a per-row
load from shared memory, colscale by a bulk copy and a per-column load from
shared memory, bias per column and R as a full fragment straight from
global memory, and writing D with guarded stores. Each shape draws fresh
random inputs; D and R are views into larger buffers (row padding), D's
buffer is poisoned with NaN, and the check asserts that D matches a float32
reference and that not one element of the padding was written. Shapes with
partial tiles exercise every guard (M and N not multiples of the 64 x 128
tile; at N = 132 the last column tile holds 4 columns, so the bulk copy
completes most of its bytes with mbarrier.complete_tx). Last, the runtime must refuse an N it cannot serve
(colscale's bulk copy needs N a multiple of 4) with a message naming the
argument.

    build/bin/tilec bench/epilogue_check.tile -o out/epilogue_check.tilec
    TILEC_RUNTIME_LIB=.../libtilec_runtime.so \\
        python3 bench/epilogue_check.py out/epilogue_check.tilec

Exit status 0 when every check passes.
"""

import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "runtime",
                                "python"))
import tilec_runtime as tr  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))
from gemm_bench import append_markdown, rel_error  # noqa: E402

# (M, N, K): whole tiles, then partial tiles along M and N (N even and a
# multiple of 4: the kernel's pairs and colscale's bulk copy need it).
SHAPES = [(256, 512, 256), (200, 264, 136), (333, 520, 72), (130, 132, 64),
          (1000, 3000, 4160), (4096, 4096, 4096)]
PAD = 24  # extra columns of the buffers D and R are views into
TOLERANCE = 1e-2  # relative error of a bf16 output


def run(kernel, m, n, k, gen):
    def randn(*shape, dtype=torch.float32):
        return torch.randn(*shape, device="cuda", dtype=dtype, generator=gen)

    a = randn(m, k, dtype=torch.bfloat16)
    b = randn(n, k, dtype=torch.bfloat16)
    r_buf = randn(m, n + PAD, dtype=torch.bfloat16)
    r = r_buf[:, :n]
    bias = randn(n)
    rowscale = randn(m)
    colscale = randn(n)
    alpha = torch.tensor([0.5], device="cuda")
    d_buf = torch.full((m + 8, n + PAD), float("nan"), device="cuda",
                       dtype=torch.bfloat16)
    d = d_buf[:m, :n]
    kernel(a, b, d, r, bias, rowscale, colscale, alpha)
    torch.cuda.synchronize()
    acc = a.float() @ b.float().t()
    ref = ((acc * rowscale[:, None] * alpha + bias[None, :]) *
           colscale[None, :] + r.float())
    error = rel_error(d, ref)
    nan_left = torch.isnan(d).sum().item()
    outside = torch.ones_like(d_buf, dtype=torch.bool)
    outside[:m, :n] = False
    written_outside = (~torch.isnan(d_buf[outside])).sum().item()
    return error, nan_left, written_outside


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("bundle", help="bench/epilogue_check.tile compiled by tilec")
    p.add_argument("--markdown", help="append the table here")
    args = p.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    dev = torch.cuda.get_device_properties(0)
    print(f"device: {dev.name}, torch {torch.__version__}", flush=True)
    kernel = tr.Module(args.bundle).kernel("epilogue_check")
    gen = torch.Generator(device="cuda")
    gen.manual_seed(2026)
    lines = ["| M | N | K | rel. error | NaN left in D | written outside D | "
             "result |", "|---:|---:|---:|---:|---:|---:|---|"]
    ok = True
    for m, n, k in SHAPES:
        error, nan_left, outside = run(kernel, m, n, k, gen)
        good = error < TOLERANCE and nan_left == 0 and outside == 0
        ok &= good
        lines.append(f"| {m} | {n} | {k} | {error:.2e} | {nan_left} | "
                     f"{outside} | {'ok' if good else 'FAIL'} |")
        print(lines[-1], flush=True)

    # The runtime refuses what the kernel cannot serve, naming the argument.
    m, n, k = 64, 6, 64
    t = lambda *s, dtype=torch.float32: torch.zeros(*s, device="cuda",
                                                     dtype=dtype)
    try:
        kernel.check(t(m, k, dtype=torch.bfloat16), t(n, k, dtype=torch.bfloat16),
                     t(m, n, dtype=torch.bfloat16), t(m, n, dtype=torch.bfloat16),
                     t(n), t(m), t(n), t(1))
        refused = "accepted (FAIL)"
        ok = False
    except tr.TilecError as e:
        refused = str(e)
        if "colscale" not in refused:
            ok = False
    lines.append(f"\nN = {n}: {refused}")
    print(lines[-1], flush=True)

    print("all checks passed" if ok else "SOME CHECKS FAILED", flush=True)
    append_markdown(args.markdown, lines)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

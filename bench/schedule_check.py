#!/usr/bin/env python3
"""Checks the tile-schedule constructs on the GPU against torch.

The kernels are test/Target/Inputs/grouped-schedulers.tile:
  batched_gemm  D[b] = A[b] B[b]^T over tiles(BATCH, M, N, ...), the 3-D
                persistent schedule;
  masked_gemm   two groups of A [2, MAX_M, K] with masked_m0 and masked_m1
                valid rows, walked with persistent(start, stop, per =
                cluster) and tile_coords(...) by 2-CTA clusters that
                multicast B.
Random inputs, D poisoned with NaN. batched_gemm must match torch.bmm
everywhere (partial tiles included); masked_gemm must match the reference
on each group's valid rows, and leave NaN in every row past the last
128-row block that holds a valid row (tiles no cluster should touch).

    build/bin/tilec test/Target/Inputs/grouped-schedulers.tile -o out/sched.tilec
    python3 bench/schedule_check.py out/sched.tilec

Exit status 0 when every check passes.
"""

import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "runtime",
                                "python"))
import tilec_runtime as tr  # noqa: E402
from gemm_bench import append_markdown, rel_error  # noqa: E402

TOLERANCE = 1e-2
BLK_M = 128


def randn(gen, *shape):
    return torch.randn(*shape, device="cuda", dtype=torch.bfloat16,
                       generator=gen)


def check_batched(kernel, batch, m, n, k, gen):
    a, b = randn(gen, batch, m, k), randn(gen, batch, n, k)
    d = torch.full((batch, m, n), float("nan"), device="cuda",
                   dtype=torch.bfloat16)
    kernel(a, b, d)
    torch.cuda.synchronize()
    ref = torch.bmm(a.float(), b.float().transpose(1, 2))
    return rel_error(d, ref), torch.isnan(d).sum().item(), 0


def check_masked(kernel, max_m, n, k, masked, gen):
    a, b = randn(gen, 2, max_m, k), randn(gen, 2, n, k)
    d = torch.full((2, max_m, n), float("nan"), device="cuda",
                   dtype=torch.bfloat16)
    kernel(a, b, d, *masked)
    torch.cuda.synchronize()
    ref = torch.bmm(a.float(), b.float().transpose(1, 2))
    worst, nan_inside, written_past = 0.0, 0, 0
    for g, rows in enumerate(masked):
        if rows:
            worst = max(worst, rel_error(d[g, :rows], ref[g, :rows]))
            nan_inside += torch.isnan(d[g, :rows]).sum().item()
        untouched = -(-rows // BLK_M) * BLK_M
        written_past += (~torch.isnan(d[g, untouched:])).sum().item()
    return worst, nan_inside, written_past


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("bundle", help="grouped-schedulers.tile compiled by tilec")
    p.add_argument("--markdown", help="append the table here")
    args = p.parse_args()
    module = tr.Module(args.bundle)
    batched, masked = module.kernel("batched_gemm"), module.kernel("masked_gemm")
    gen = torch.Generator(device="cuda")
    gen.manual_seed(7)
    lines = ["| kernel | shape | rel. error | NaN left | written where it "
             "must not | result |", "|---|---|---:|---:|---:|---|"]
    ok = True

    def report(name, shape, result):
        nonlocal ok
        error, nan, outside = result
        good = error < TOLERANCE and nan == 0 and outside == 0
        ok &= good
        lines.append(f"| {name} | {shape} | {error:.2e} | {nan} | {outside} "
                     f"| {'ok' if good else 'FAIL'} |")
        print(lines[-1], flush=True)

    for shape in [(3, 256, 512, 256), (5, 1000, 1288, 640), (1, 4096, 4096, 4096),
                  (16, 512, 768, 1024)]:
        report("batched_gemm", "x".join(map(str, shape)),
               check_batched(batched, *shape, gen))
    for max_m, n, k, masked_m in [(1024, 512, 256, (1024, 384)),
                                  (1024, 768, 512, (0, 1000)),
                                  (2048, 1024, 1024, (130, 1792)),
                                  (512, 256, 128, (0, 0)),
                                  (4096, 4096, 2048, (3000, 4096))]:
        report("masked_gemm", f"{max_m}x{n}x{k} masked {masked_m}",
               check_masked(masked, max_m, n, k, masked_m, gen))
    print("all checks passed" if ok else "SOME CHECKS FAILED", flush=True)
    append_markdown(args.markdown, lines)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

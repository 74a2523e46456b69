#!/usr/bin/env python3
"""Checks the fragment-math epilogues of test/Target/Inputs/epilogue-math.tile
on the GPU against torch: a row softmax + GELU + SiLU + select + fma epilogue
(bf16 out), per-row amax scaling cast to e4m3, and f32 and e5m2 outputs.

    tilec test/Target/Inputs/epilogue-math.tile -o em.tilec
    python3 bench/fragmath_check.py em.tilec [--markdown out.md]

Random inputs, outputs poisoned (NaN, or 0x7f bytes for fp8) before each run;
the reference is computed in float32 from the same bf16 inputs. A report,
not a test: it prints one table.
"""
import argparse
import math
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "runtime",
                                "python"))
import tilec_runtime as tr  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))
from gemm_bench import append_markdown, rel_error  # noqa: E402


def gelu_tanh(x):
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) *
                                       (x + 0.044715 * x * x * x)))


def softmax_gelu_ref(acc, alpha, block_n=256):
    m, n = acc.shape
    s = (acc * alpha).view(m, n // block_n, block_n)
    p = torch.exp(s - s.amax(dim=2, keepdim=True))
    soft = (p / p.sum(dim=2, keepdim=True)).view(m, n)
    g = gelu_tanh(soft) + torch.nn.functional.silu(soft * 4.0)
    masked = torch.where(g > 0.001, g, g.abs() * -0.5)
    out = masked * alpha + torch.rsqrt(soft + 1.0)
    return torch.relu(out)


def fp8_ref(acc, scale, block_n=128):
    m, n = acc.shape
    t = acc.view(m, n // block_n, block_n)
    amax = t.abs().amax(dim=2, keepdim=True).clamp_min(1e-4)
    return (t * (448.0 / amax) * scale).view(m, n)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("bundle")
    p.add_argument("--markdown")
    args = p.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    mod = tr.Module(args.bundle)
    gen = torch.Generator(device="cuda")
    gen.manual_seed(7)
    rows = ["| kernel | M | N | K | output | rel. error | poison left | result |",
            "|---|---:|---:|---:|---|---:|---:|---|"]

    def report(kernel, m, n, k, what, err, left, bound):
        ok = left == 0 and err < bound
        rows.append(f"| {kernel} | {m} | {n} | {k} | {what} | {err:.2e} | "
                    f"{left} | {'ok' if ok else 'WRONG'} |")
        print(rows[-1], flush=True)

    def inputs(m, n, k):
        a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16, generator=gen)
        b = torch.randn(n, k, device="cuda", dtype=torch.bfloat16, generator=gen)
        return a, b, a.float() @ b.float().t()

    softmax = mod.kernel("epilogue_softmax_gelu")
    for m, n, k in [(4096, 4096, 4096), (1000, 2048, 520), (128, 7168, 2048)]:
        a, b, acc = inputs(m, n, k)
        d = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
        alpha = 0.03
        softmax(a, b, d, alpha)
        torch.cuda.synchronize()
        report("epilogue_softmax_gelu", m, n, k, "bf16",
               rel_error(d, softmax_gelu_ref(acc, alpha)),
               torch.isnan(d).sum().item(), 2e-2)

    fp8 = mod.kernel("epilogue_fp8")
    for m, n, k in [(1024, 1024, 512), (384, 640, 1024)]:
        a, b, acc = inputs(m, n, k)
        d = torch.full((m, n), 0x7f, device="cuda", dtype=torch.uint8)
        d = d.view(torch.float8_e4m3fn)  # 0x7f is NaN in e4m3
        scale = 0.5
        fp8(a, b, d, scale)
        torch.cuda.synchronize()
        ref = fp8_ref(acc, scale)
        report("epilogue_fp8", m, n, k, "e4m3", rel_error(d, ref),
               torch.isnan(d.float()).sum().item(), 6e-2)
        # The kernel's cast must match torch's round-to-nearest-even, saturating
        # e4m3 on the same f32 values, up to the f32 rounding of the scaling.
        same = (d.float() == ref.to(torch.float8_e4m3fn).float()).float().mean()
        rows.append(f"| epilogue_fp8 | {m} | {n} | {k} | e4m3 bytes equal to "
                    f"torch's cast | {same.item():.4f} | | |")
        print(rows[-1], flush=True)

    f32 = mod.kernel("epilogue_f32")
    for m, n, k in [(1024, 1024, 512), (320, 448, 256)]:
        a, b, acc = inputs(m, n, k)
        d = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float32)
        e = torch.full((m, n), 0x7f, device="cuda", dtype=torch.uint8)
        e = e.view(torch.float8_e5m2)  # 0x7f is NaN in e5m2
        f32(a, b, d, e)
        torch.cuda.synchronize()
        report("epilogue_f32", m, n, k, "f32", rel_error(d, acc),
               torch.isnan(d).sum().item(), 1e-5)
        report("epilogue_f32", m, n, k, "e5m2", rel_error(e, acc),
               torch.isnan(e.float()).sum().item(), 0.15)
    print("\n".join(rows))
    append_markdown(args.markdown, rows)


if __name__ == "__main__":
    main()

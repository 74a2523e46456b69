#!/usr/bin/env python3
"""GPU check of split K through tilec.deep_gemm (two kernels, a workspace
per stream): random inputs, poisoned outputs, DeepGEMM's calc_diff against
the f32 product of the dequantised inputs; the same shape on two streams at
once (each stream its own workspace, interleaved calls); repeated calls
bitwise identical. Prints one table row per check; exits 1 on a failure.

    python3 bench/py_split_k_check.py [--shapes 1x2112x7168,...] [--streams 2]
"""

import argparse
import sys

import torch

import tilec.deep_gemm as dg
from tilec import _configs, quant


def inputs(m, n, k, gen):
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16, generator=gen)
    b = torch.randn(n, k, device="cuda", dtype=torch.bfloat16, generator=gen)
    qa, sfa = quant.per_token_cast_to_fp8(a)
    qb, sfb = quant.per_block_cast_to_fp8(b)
    ref = quant.dequantize_per_token(qa, sfa) @ quant.dequantize_per_block(qb, sfb).t()
    return (qa, dg.get_mn_major_tma_aligned_tensor(sfa)), (qb, sfb), ref


def calc_diff(x, y):
    x, y = x.double(), y.double()
    return float(1 - 2 * (x * y).sum() / (x * x + y * y).sum())


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--shapes", default="1x576x7168,1x2112x7168,1x4096x7168,7x2112x7168,16x4096x4096")
    p.add_argument("--streams", type=int, default=2, help="streams calling at once")
    args = p.parse_args()
    gen = torch.Generator(device="cuda")
    gen.manual_seed(0)
    failed = False
    print("| M | N | K | SPLIT_K | check | result |")
    print("|---:|---:|---:|---:|---|---|")
    for text in args.shapes.split(","):
        m, n, k = map(int, text.split("x"))
        split = dict(_configs.choose("fp8_gemm_1d2d", m, n, k)[0]).get("SPLIT_K", "1")
        streams = [torch.cuda.Stream() for _ in range(args.streams)]
        cases = [inputs(m, n, k, gen) for _ in streams]
        outs = [torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
                for _ in streams]
        # The inputs and the poison were made on the current stream: the
        # side streams wait for them.
        for stream in streams:
            stream.wait_stream(torch.cuda.current_stream())
        for _ in range(3):  # interleaved calls on both streams
            for stream, (a, b, _), d in zip(streams, cases, outs):
                with torch.cuda.stream(stream):
                    dg.fp8_gemm_nt(a, b, d)
        torch.cuda.synchronize()
        for index, ((_, _, ref), d) in enumerate(zip(cases, outs)):
            diff = calc_diff(d.float(), ref)
            ok = diff < 1e-3 and not torch.isnan(d).any()
            failed |= not ok
            print(f"| {m} | {n} | {k} | {split} | stream {index}: calc_diff {diff:.2e} | "
                  f"{'ok' if ok else 'FAIL'} |")
        a, b, _ = cases[0]
        again = torch.full_like(outs[0], float("nan"))
        dg.fp8_gemm_nt(a, b, again)
        torch.cuda.synchronize()
        same = torch.equal(again, outs[0])
        failed |= not same
        print(f"| {m} | {n} | {k} | {split} | bitwise repeat | {'ok' if same else 'FAIL'} |")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

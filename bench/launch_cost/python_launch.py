#!/usr/bin/env python3
"""Where a tilec GEMM call's time goes from Python (the package installed):
tensor attribute reads, torch's stream query, one torch kernel launch, the
dispatcher's fast path and the whole tilec.deep_gemm call, best of 5 x 5000.
"""

import time

import torch

import tilec.deep_gemm as tdg
from tilec import _gemm


def best_us(fn, calls=5000):
    for _ in range(200):
        fn()
    torch.cuda.synchronize()
    samples = []
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        samples.append((time.perf_counter() - start) / calls * 1e6)
        torch.cuda.synchronize()
    return min(samples)


def main():
    a = torch.randn(128, 256, device="cuda").bfloat16()
    b = torch.randn(256, 256, device="cuda").bfloat16()
    d = torch.empty(128, 256, device="cuda", dtype=torch.bfloat16)
    tdg.bf16_gemm_nt(a, b, d)
    dispatcher = _gemm._dispatchers[_gemm.bf16_key("nt", "nk", False)]
    stream = torch._C._cuda_getCurrentRawStream

    def attributes():
        for t in (a, b, d):
            t.dtype, t.shape, t.stride(), t.data_ptr(), t.get_device()

    rows = [
        ("15 tensor attribute reads (Python)", attributes),
        ("torch._C._cuda_getCurrentRawStream(0)", lambda: stream(0)),
        ("d.zero_() (one torch kernel launch)", lambda: d.zero_()),
        ("Dispatcher.launch(a, b, d)", lambda: dispatcher.launch(a, b, d)),
        ("tilec.deep_gemm.bf16_gemm_nt", lambda: tdg.bf16_gemm_nt(a, b, d)),
        ("torch.matmul(a, b.t(), out=d)", lambda: torch.matmul(a, b.t(), out=d)),
    ]
    print("| what | us per call (best of 5 x 5000) |")
    print("|---|---:|")
    for name, fn in rows:
        print(f"| {name} | {best_us(fn):.2f} |")


if __name__ == "__main__":
    main()

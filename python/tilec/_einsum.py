"""Batched BF16 GEMMs under DeepGEMM's einsum names: the checks and the views
that run them on the masked M-grouped kernel.

DeepGEMM's einsum(expr, a, b, d, c=None, use_cublaslt=False) takes three
hard-coded expressions on sm_90a (csrc/apis/einsum.hpp). Two of them are
batched GEMMs over the head dim h, which is the masked M-grouped kernel with
every group full (masked_m[g] = the batch rows):
- "bhr,hdr->bhd": a [B, H, R], b [H, D, R], d [B, H, D]; group h is
  d[:, h] = a[:, h] b[h]^T (M = B, N = D, K = R, B K-major);
- "bhd,hdr->bhr": a [B, H, D], b [H, D, R], d [B, H, R]; group h is
  d[:, h] = a[:, h] b[h] (M = B, N = R, K = D, b MN-major: the nn family).
a and d are read through their [H, B, .] transposes (strided views: TMA
takes any 16-byte strides), b as it is; nothing is copied. The third,
"bmk,bnk->mn" (a sum over the batch into one [M, N]), has no tilec kernel
yet. use_cublaslt=True is DeepGEMM's baseline: torch.einsum, as its tests
time it.
"""

from typing import Dict, Tuple

import torch

from ._checks import Operand

# expr -> (the dims of a, b and d, as DeepGEMM's shape checks name them).
_BATCHED = {
    "bhr,hdr->bhd": ("[B, H, R]", "[H, D, R]", "[B, H, D]"),
    "bhd,hdr->bhr": ("[B, H, D]", "[H, D, R]", "[B, H, R]"),
}
_SUM_OVER_BATCH = "bmk,bnk->mn"

# The masked_m of full groups, per (groups, rows, device): made once.
_full_counts: Dict[Tuple[int, int, torch.device], torch.Tensor] = {}


def _expect_expr(fn: str, expr) -> str:
    if not isinstance(expr, str):
        raise ValueError(f"{fn}: argument 'expr' must be a str (an einsum "
                         f"expression), got {type(expr).__name__}")
    canonical = expr.replace(" ", "")
    if canonical == _SUM_OVER_BATCH:
        raise NotImplementedError(
            f"{fn}: argument 'expr' {expr!r} (a sum over the batch into one "
            f"[M, N]) has no tilec kernel yet; tilec runs "
            f"{' and '.join(repr(e) for e in _BATCHED)}")
    if canonical not in _BATCHED:
        raise ValueError(f"{fn}: argument 'expr' must be one of "
                         f"{', '.join(repr(e) for e in (*_BATCHED, _SUM_OVER_BATCH))} "
                         f"(DeepGEMM's expressions), got {expr!r}")
    return canonical


def check(fn: str, expr, a, b, d, c, use_cublaslt):
    """The checks of einsum (no CUDA call): (expr, A, B, D) with the shapes
    consistent and the last dims contiguous (DeepGEMM's rules)."""
    expr = _expect_expr(fn, expr)
    if not isinstance(use_cublaslt, bool):
        raise ValueError(f"{fn}: argument 'use_cublaslt' must be a bool, got "
                         f"{use_cublaslt!r}")
    if c is not None:
        raise ValueError(f"{fn}: argument 'c' must be None for {expr!r} "
                         f"(DeepGEMM's rule: no accumulation there)")
    labels = _BATCHED[expr]
    ops = [Operand(fn, name, t) for name, t in (("a", a), ("b", b), ("d", d))]
    for op, label in zip(ops, labels):
        op.expect_dtype(torch.bfloat16)
        op.expect_rank(3, label)
    A, B, D = ops
    batch, heads, k = A.shape
    if expr == "bhr,hdr->bhd":
        n = B.shape[1]
        B.expect_shape((heads, n, k), f"[H, D, R] with H = {heads} and R = {k} (a's)")
    else:
        n = B.shape[2]
        B.expect_shape((heads, k, n), f"[H, D, R] with H = {heads} and D = {k} (a's)")
    D.expect_shape((batch, heads, n), f"{labels[2]} (a's B and H, b's "
                   f"{'D' if expr == 'bhr,hdr->bhd' else 'R'})")
    for op in ops:
        if op.shape[2] > 1 and op.strides[2] != 1:
            raise op.fail(f"must have its last dim contiguous (stride(2) == 1, "
                          f"DeepGEMM's rule), got strides {list(op.strides)}")
    return expr, A, B, D


def grouped_views(expr: str, a, b, d):
    """The masked M-grouped kernel's operands: A [H, B, K], B as [H, N, K]
    (K-major for 'bhr,hdr->bhd', MN-major for 'bhd,hdr->bhr'), D [H, B, N],
    masked_m (every group full) and expected_m."""
    batch, heads = a.shape[0], a.shape[1]
    key = (heads, batch, a.device)
    counts = _full_counts.get(key)
    if counts is None:
        counts = _full_counts[key] = torch.full((heads,), batch, dtype=torch.int32,
                                                device=a.device)
    b_nk = b if expr == "bhr,hdr->bhd" else b.transpose(1, 2)
    return a.transpose(0, 1), b_nk, d.transpose(0, 1), counts, max(batch, 1)

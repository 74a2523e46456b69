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
"bmk,bnk->mn" (a sum over the batch into one [M, N]: a [S, M, K], b
[S, N, K], d [M, N]), is lib/Kernels/bf16_bmk_bnk_mn.tile: the batch split
into chunks so that the M x N tiles times the chunks fill the SMs, each
chunk's tile added to an f32 D by a TMA reduce-add. As DeepGEMM, a float32
d must be given as c too (d += the sum) and a bf16 d takes no c (a zeroed
f32 workspace, cast into d). use_cublaslt=True is DeepGEMM's baseline for
the batched forms: torch.einsum, as its tests time it (DeepGEMM rejects it
for "bmk,bnk->mn", and so does tilec).
"""

from typing import Dict, Tuple

import torch

from . import _cache, _gemm
from .quant import ceil_div
from ._checks import Operand, expect_aligned, expect_same_device

# expr -> (the dims of a, b and d, as DeepGEMM's shape checks name them).
_BATCHED = {
    "bhr,hdr->bhd": ("[B, H, R]", "[H, D, R]", "[B, H, D]"),
    "bhd,hdr->bhr": ("[B, H, D]", "[H, D, R]", "[B, H, R]"),
}
_SUM_OVER_BATCH = "bmk,bnk->mn"

# The masked_m of full groups, per (groups, rows, device): made once.
_full_counts: Dict[Tuple[int, int, torch.device], torch.Tensor] = {}


def _expect_expr(fn: str, expr, known: Tuple[str, ...]) -> str:
    """`expr` without spaces, one of `known` (DeepGEMM's expressions)."""
    if not isinstance(expr, str):
        raise ValueError(f"{fn}: argument 'expr' must be a str (an einsum "
                         f"expression), got {type(expr).__name__}")
    canonical = expr.replace(" ", "")
    if canonical not in known:
        raise ValueError(f"{fn}: argument 'expr' must be one of "
                         f"{', '.join(repr(e) for e in known)} "
                         f"(DeepGEMM's expressions), got {expr!r}")
    return canonical


def check(fn: str, expr, a, b, d, c, use_cublaslt):
    """The checks of einsum (no CUDA call): (expr, A, B, D) with the shapes
    consistent and the last dims contiguous (DeepGEMM's rules)."""
    expr = _expect_expr(fn, expr, (*_BATCHED, _SUM_OVER_BATCH))
    if not isinstance(use_cublaslt, bool):
        raise ValueError(f"{fn}: argument 'use_cublaslt' must be a bool, got "
                         f"{use_cublaslt!r}")
    if expr == _SUM_OVER_BATCH:
        if use_cublaslt:
            raise ValueError(f"{fn}: argument 'use_cublaslt' must be False for "
                             f"{expr!r} (DeepGEMM has no cuBLASLt form of it)")
        return (expr,) + _check_sum(fn, a, b, d, c)
    if c is not None:
        raise ValueError(f"{fn}: argument 'c' must be None for {expr!r} "
                         f"(DeepGEMM's rule: no accumulation there)")
    return (expr,) + _check_batched(fn, expr, a, b, d, torch.bfloat16)


def _check_batched(fn: str, expr: str, a, b, d, dtype):
    """A [B, H, .], B [H, D, R] of `dtype` and D [B, H, .] bf16 of a batched
    expression, consistent, last dims contiguous: (A, B, D)."""
    labels = _BATCHED[expr]
    ops = [Operand(fn, name, t) for name, t in (("a", a), ("b", b), ("d", d))]
    for op, label in zip(ops, labels):
        op.expect_dtype(dtype if op.name != "d" else torch.bfloat16)
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
    return A, B, D


# fp8_einsum's expressions: DeepGEMM runs the last two on SM100 only.
_FP8_SM90 = "bhr,hdr->bhd"
_FP8_SM100 = ("bhd,hdr->bhr", "bhd,bhr->hdr")
_FP8_RECIPE = (1, 128, 128)


def check_fp8(fn: str, expr, a_pair, b_pair, d, c, recipe):
    """The checks of fp8_einsum (no CUDA call): 'bhr,hdr->bhd' with a = (e4m3
    [B, H, R], f32 [B, H, ceil(R / 128)]) and b = (e4m3 [H, D, R], f32
    [H, ceil(D / 128), ceil(R / 128)]), d bf16 [B, H, D]: (x, sfx, y, sfy)."""
    if _expect_expr(fn, expr, (_FP8_SM90, *_FP8_SM100)) in _FP8_SM100:
        raise NotImplementedError(
            f"{fn}: argument 'expr' {expr!r}: DeepGEMM runs it on SM100 only; "
            f"on sm_90a it and tilec take {_FP8_SM90!r}")
    if not isinstance(recipe, (tuple, list)) or tuple(recipe) != _FP8_RECIPE:
        raise ValueError(f"{fn}: argument 'recipe' must be (1, 128, 128) for "
                         f"{_FP8_SM90!r} on sm_90a (1D2D: a per token and 128 "
                         f"K, b per 128 x 128 block), got {recipe!r}")
    if c is not None:
        raise NotImplementedError(
            f"{fn}: argument 'c' (accumulation): tilec's grouped FP8 kernel "
            f"writes bf16 without accumulation")
    x, sfx = _gemm._pair(fn, "a", a_pair)
    y, sfy = _gemm._pair(fn, "b", b_pair)
    X, Y, _ = _check_batched(fn, _FP8_SM90, x, y, d, torch.float8_e4m3fn)
    batch, heads, r = X.shape
    kb = ceil_div(r, 128)
    for sf, name, shape, label in (
            (sfx, "sfa", (batch, heads, kb), "[B, H, ceil(R / 128)]"),
            (sfy, "sfb", (heads, ceil_div(Y.shape[1], 128), kb),
             "[H, ceil(D / 128), ceil(R / 128)]")):
        op = Operand(fn, name, sf)
        op.expect_dtype(torch.float32)
        op.expect_shape(shape, label)
    return x, sfx, y, sfy


def _check_sum(fn: str, a, b, d, c):
    """'bmk,bnk->mn': a [S, M, K], b [S, N, K] bf16 contiguous, d [M, N]
    float32 with c = d, or bf16 without c (DeepGEMM's rules)."""
    A, B, D = (Operand(fn, name, t) for name, t in (("a", a), ("b", b), ("d", d)))
    for op, label in ((A, "[S, M, K]"), (B, "[S, N, K]")):
        op.expect_dtype(torch.bfloat16)
        op.expect_rank(3, label)
        op.expect_contiguous("DeepGEMM's rule for 'bmk,bnk->mn'")
    batch, m, k = A.shape
    B.expect_shape((batch, B.shape[1], k), f"[S, N, K] with S = {batch} and "
                   f"K = {k} (a's)")
    n = B.shape[1]
    D.expect_dtype(torch.float32, torch.bfloat16)
    D.expect_rank(2, "[M, N]")
    D.expect_shape((m, n), "[M, N] (a's M, b's N)")
    D.expect_contiguous("DeepGEMM's rule for 'bmk,bnk->mn'")
    if D.dtype == torch.float32 and c is not d:
        raise ValueError(f"{fn}: argument 'c' must be d for a float32 d "
                         f"(DeepGEMM's rule: 'bmk,bnk->mn' into float32 "
                         f"accumulates, d += the sum), got "
                         f"{'None' if c is None else 'another tensor'}")
    if D.dtype == torch.bfloat16 and c is not None:
        raise ValueError(f"{fn}: argument 'c' must be None for a torch.bfloat16 "
                         f"d (DeepGEMM's rule: only a float32 d accumulates)")
    if batch and m and n:   # TMA's rules bind the tensors that are read
        if k % 8:
            raise A.fail(f"must have K a multiple of 8 (its rows are read by "
                         f"TMA: 16-byte strides), got K = {k}")
        if n % 4:
            raise D.fail(f"must have N a multiple of 4 (its float32 rows are "
                         f"added to by TMA: 16-byte strides), got N = {n}")
    return A, B, D


# The spec's tiles: BLK_M x 128 (BLK_M 64 where M is that small).
_SUM_BLOCK_N = 128


def sum_over_batch(fn: str, A: Operand, B: Operand, D: Operand) -> None:
    """'bmk,bnk->mn' on checked operands: bf16_bmk_bnk_mn with the batch
    split into as many chunks as fill the SMs beside the M x N tiles."""
    operands = (A, B, D)
    device = expect_same_device(operands, allow_cpu=_gemm._runtime.dry_run())
    batch, m, k = A.shape
    n = B.shape[1]
    d = D.tensor
    if m == 0 or n == 0:
        return
    f32 = D.dtype == torch.float32
    target = d if f32 else torch.zeros(m, n, dtype=torch.float32, device=d.device)
    if batch and k:
        expect_aligned(operands)
        block_m = 64 if m <= 64 else 128
        defines = (("BLK_M", str(block_m)), ("BLK_N", str(_SUM_BLOCK_N)))
        kernel = _cache.get_kernel("bf16_bmk_bnk_mn", defines, device)
        kernel.set_persistent_limit(_gemm._num_sms_override or 0)
        tiles = ceil_div(m, block_m) * ceil_div(n, _SUM_BLOCK_N)
        chunks = max(1, _gemm.get_num_sms(device) // tiles)
        chunk = ceil_div(batch, chunks)
        kernel.launch([A.tensor, B.tensor, target, chunk])
    if not f32:
        d.copy_(target)


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

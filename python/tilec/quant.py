"""FP8 (e4m3) quantisation for tilec's block-scaled GEMMs, in torch.

DeepGEMM's recipes on Hopper: activations per token (one f32 scale per row
and 128 K, "1x128"), weights per block (one f32 scale per 128 x 128 block),
each scale the block's largest magnitude over 448 (e4m3's largest finite
value), so that the block's values fill e4m3's range. The kernels of
lib/Kernels (docs/kernels.md) read the scales in these layouts:

    SFA (1x128, both specs) and SFB of fp8_gemm_1d1d: MN-major, the rows
        padded to 4 floats (16 bytes, TMA's stride alignment). The tensor is
        [MN, KB] with strides (1, align(MN, 4)), as DeepGEMM's
        get_mn_major_tma_aligned_tensor gives it; the kernel's argument is
        its transpose, [KB, MN] with a row stride of align(MN, 4).
    SFB of fp8_gemm_1d2d (128x128): [ceil(N/128), KB], row-major.

Works on CPU (torch.float8_e4m3fn) and CUDA tensors alike. This module
imports nothing but torch, so it can be loaded on its own (as the benchmarks
do) or as `tilec.quant`.
"""

from typing import Tuple

import torch

FP8_MAX = 448.0      # largest finite e4m3fn value
BLOCK_K = 128        # the K granularity of every scale
# A block of zeros gets this amax, so its scale stays finite and nonzero.
AMAX_FLOOR = 1e-4


def ceil_div(x: int, y: int) -> int:
    return (x + y - 1) // y


def align(x: int, y: int) -> int:
    return ceil_div(x, y) * y


def _pad_to(x: torch.Tensor, rows: int, cols: int) -> torch.Tensor:
    """x padded with zeros to [rows, cols] (a view of x when nothing pads)."""
    if tuple(x.shape) == (rows, cols):
        return x
    return torch.nn.functional.pad(x, (0, cols - x.shape[1],
                                       0, rows - x.shape[0]))


def _scale_from_amax(amax: torch.Tensor, ue8m0: bool = False) -> torch.Tensor:
    scale = amax.float().clamp(min=AMAX_FLOOR) / FP8_MAX
    if ue8m0:
        # Rounded up to a power of two, as a UE8M0 (exponent-only) scale
        # holds it; rounding up keeps every scaled value within e4m3's range.
        scale = torch.exp2(torch.ceil(torch.log2(scale)))
    return scale


def per_token_cast_to_fp8(x: torch.Tensor, gran_k: int = BLOCK_K,
                          use_ue8m0: bool = False
                          ) -> Tuple[torch.Tensor, torch.Tensor]:
    """x [M, K] (any float type) -> (e4m3 [M, K], f32 scales [M, ceil(K/gran_k)]).

    x[m, k] ~ q[m, k] * scales[m, k // gran_k]. The last block of a row whose
    K is not a multiple of gran_k is scaled by its own values only.
    use_ue8m0 rounds each scale up to a power of two."""
    assert x.dim() == 2, "per_token_cast_to_fp8 takes a 2-D tensor"
    m, k = x.shape
    blocks = ceil_div(k, gran_k)
    padded = _pad_to(x.float(), m, blocks * gran_k).view(m, blocks, gran_k)
    scales = _scale_from_amax(padded.abs().amax(dim=2), use_ue8m0)
    q = (padded / scales.unsqueeze(2)).to(torch.float8_e4m3fn)
    return q.view(m, blocks * gran_k)[:, :k].contiguous(), scales


def per_block_cast_to_fp8(x: torch.Tensor, block: int = BLOCK_K,
                          use_ue8m0: bool = False
                          ) -> Tuple[torch.Tensor, torch.Tensor]:
    """x [N, K] -> (e4m3 [N, K], f32 scales [ceil(N/block), ceil(K/block)]).

    x[n, k] ~ q[n, k] * scales[n // block, k // block]."""
    assert x.dim() == 2, "per_block_cast_to_fp8 takes a 2-D tensor"
    n, k = x.shape
    nb, kb = ceil_div(n, block), ceil_div(k, block)
    padded = _pad_to(x.float(), nb * block, kb * block)
    tiles = padded.view(nb, block, kb, block)
    scales = _scale_from_amax(tiles.abs().amax(dim=(1, 3)), use_ue8m0)
    q = (tiles / scales[:, None, :, None]).to(torch.float8_e4m3fn)
    return q.view(nb * block, kb * block)[:n, :k].contiguous(), scales


def mn_major_tma_aligned(scales: torch.Tensor) -> torch.Tensor:
    """Per-row scales [MN, KB] (or one such table per group, [G, MN, KB]) in
    the layout the kernels read by TMA.

    The result has the same shape and values, stored MN-major with each
    K block's column padded to align(MN, 4) floats: strides (1, align(MN, 4))
    (and align(MN, 4) * KB between groups). It is what DeepGEMM's fp8_gemm_nt
    takes as-is; pass `kernel_view(...)` of it to a tilec kernel."""
    assert scales.dim() in (2, 3) and scales.dtype == torch.float32, \
        "scales are a 2-D f32 tensor [MN, KB] or a 3-D one [G, MN, KB]"
    mn, kb = scales.shape[-2:]
    groups = scales.shape[:-2]
    # The padding is never read (the kernels' tensor maps end at MN); it is
    # zero anyway, so that no NaN can ever come from it.
    storage = torch.zeros(*groups, kb, align(mn, 4), dtype=torch.float32,
                          device=scales.device)
    out = storage[..., :mn].transpose(-1, -2)
    out.copy_(scales)
    return out


def is_mn_major_tma_aligned(scales: torch.Tensor) -> bool:
    """Whether `scales` ([MN, KB] or [G, MN, KB]) are stored as
    mn_major_tma_aligned stores them (so that the kernels read them as they
    are)."""
    mn, kb = scales.shape[-2:]
    aligned = align(mn, 4)
    strides = scales.stride()
    return ((strides[-2] == 1 or mn == 1) and (strides[-1] == aligned or kb == 1)
            and (scales.dim() == 2 or scales.shape[0] == 1
                 or strides[0] == aligned * kb))


def kernel_view(mn_major: torch.Tensor) -> torch.Tensor:
    """The [KB, MN] view of an mn_major_tma_aligned tensor that a tilec
    kernel's SFA (and 1D1D SFB) argument takes: row stride align(MN, 4)."""
    assert mn_major.stride(0) == 1, "expected an MN-major scale tensor"
    return mn_major.t()


def block_scales_per_column(scales: torch.Tensor, n: int,
                            block: int = BLOCK_K) -> torch.Tensor:
    """Per-block scales [ceil(N/block), KB] repeated for every row of B:
    [N, KB]. With them fp8_gemm_1d1d computes the 1D2D product, for tiles
    whose BLK_N does not divide 128 (two B scales in one tile)."""
    return scales.repeat_interleave(block, dim=0)[:n]


def dequantize_per_token(q: torch.Tensor, scales: torch.Tensor,
                         gran_k: int = BLOCK_K) -> torch.Tensor:
    """f32 [M, K] from per_token_cast_to_fp8's output (any layout of scales)."""
    k = q.shape[1]
    return q.float() * scales.float().repeat_interleave(gran_k, dim=1)[:, :k]


def dequantize_per_block(q: torch.Tensor, scales: torch.Tensor,
                         block: int = BLOCK_K) -> torch.Tensor:
    """f32 [N, K] from per_block_cast_to_fp8's output."""
    n, k = q.shape
    full = scales.float().repeat_interleave(block, dim=0)
    full = full.repeat_interleave(block, dim=1)
    return q.float() * full[:n, :k]


def calc_diff(x: torch.Tensor, y: torch.Tensor) -> float:
    """DeepGEMM's similarity measure, 1 - 2 sum(xy) / sum(x^2 + y^2), in f64:
    0 for equal tensors; its FP8 tests require less than 0.001."""
    x, y = x.double(), y.double()
    denominator = (x * x + y * y).sum()
    if denominator == 0:
        return 0.0
    return float(1 - 2 * (x * y).sum() / denominator)

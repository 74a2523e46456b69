"""DeepGEMM's utils (deep_gemm/utils: math, layout) for sm_90a, on tilec.quant.

Casts with DeepGEMM's signatures (use_ue8m0 is positional, as there), the
TMA alignment helpers and the SM90 float32 scale-factor layouts. FP4,
packed UE8M0 (SM100) and the distributed helpers raise NotImplementedError.
"""

from typing import Optional, Tuple

import torch

from .. import _grouped, quant

__all__ = [
    "ceil_div", "align", "ceil_to_ue8m0", "pack_ue8m0_to_int",
    "unpack_ue8m0_from_int", "per_token_cast_to_fp8", "per_channel_cast_to_fp8",
    "per_block_cast_to_fp8", "per_custom_dims_cast_to_fp8",
    "per_token_cast_to_fp4", "transpose_packed_fp4", "cast_back_from_fp4",
    "get_tma_aligned_size", "get_mn_major_tma_aligned_tensor",
    "get_mn_major_tma_aligned_packed_ue8m0_tensor",
    "get_k_grouped_mn_major_tma_aligned_packed_ue8m0_tensor",
    "transform_sf_into_required_layout",
    "set_mk_alignment_for_contiguous_layout",
    "get_mk_alignment_for_contiguous_layout",
    "get_theoretical_mk_alignment_for_contiguous_layout",
    "get_m_alignment_for_contiguous_layout",
    "get_k_alignment_for_contiguous_layout", "init_dist", "uneven_all_gather",
]


def _not_implemented(name: str):
    """A stand-in for DeepGEMM's `name` that says tilec lacks it."""
    def function(*args, **kwargs):
        raise NotImplementedError(
            f"tilec.deep_gemm.{name} is not implemented: tilec has dense BF16 "
            f"and FP8 (1D2D, 1D1D) GEMMs, M-grouped BF16 and FP8 1D2D ones "
            f"and K-grouped BF16 and FP8 1D1D ones for sm_90a (docs/python.md)")
    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"DeepGEMM's {name}; not implemented by tilec."
    return function


ceil_div = quant.ceil_div
align = quant.align


def ceil_to_ue8m0(x: torch.Tensor) -> torch.Tensor:
    """|x| rounded up to a power of two within UE8M0's exponents."""
    exponent = torch.ceil(torch.log2(x.abs().float())).clamp(-126, 127)
    return torch.exp2(exponent)


def per_token_cast_to_fp8(x: torch.Tensor, use_ue8m0: bool, gran_k: int = 128,
                          use_packed_ue8m0: bool = False
                          ) -> Tuple[torch.Tensor, torch.Tensor]:
    if use_packed_ue8m0:
        raise NotImplementedError(
            "tilec.deep_gemm.per_token_cast_to_fp8: use_packed_ue8m0 (SM100's "
            "packed UE8M0 scales) is not implemented")
    return quant.per_token_cast_to_fp8(x, gran_k, use_ue8m0=use_ue8m0)


def per_channel_cast_to_fp8(x: torch.Tensor, use_ue8m0: bool, gran_k: int = 128
                            ) -> Tuple[torch.Tensor, torch.Tensor]:
    """x [M, N], M a multiple of gran_k -> (e4m3 [M, N], f32 [M / gran_k, N]):
    one scale per gran_k rows of a column."""
    if x.dim() != 2 or x.shape[0] % gran_k:
        raise ValueError(f"per_channel_cast_to_fp8: argument 'x' must be 2-D "
                         f"with rows a multiple of {gran_k}, got {list(x.shape)}")
    q, scales = quant.per_token_cast_to_fp8(x.t(), gran_k, use_ue8m0=use_ue8m0)
    return q.t().contiguous(), scales.t().contiguous()


def per_block_cast_to_fp8(x: torch.Tensor, use_ue8m0: bool, gran_k: int = 128
                          ) -> Tuple[torch.Tensor, torch.Tensor]:
    return quant.per_block_cast_to_fp8(x, gran_k, use_ue8m0=use_ue8m0)


def per_custom_dims_cast_to_fp8(x: torch.Tensor, dims: Tuple, use_ue8m0: bool
                                ) -> Tuple[torch.Tensor, torch.Tensor]:
    """One scale per index of `dims` (the amax over every other dim)."""
    others = tuple(i for i in range(x.dim()) if i not in set(dims))
    scales = quant._scale_from_amax(x.abs().float().amax(dim=others, keepdim=True),
                                    use_ue8m0)
    return (x / scales).to(torch.float8_e4m3fn), scales.squeeze()


pack_ue8m0_to_int = _not_implemented("pack_ue8m0_to_int")
unpack_ue8m0_from_int = _not_implemented("unpack_ue8m0_from_int")
per_token_cast_to_fp4 = _not_implemented("per_token_cast_to_fp4")
transpose_packed_fp4 = _not_implemented("transpose_packed_fp4")
cast_back_from_fp4 = _not_implemented("cast_back_from_fp4")


def get_tma_aligned_size(x: int, element_size: int) -> int:
    """`x` elements rounded up to a whole number of 16 bytes."""
    if element_size <= 0 or 16 % element_size:
        raise ValueError(f"get_tma_aligned_size: argument 'element_size' must "
                         f"divide 16, got {element_size}")
    return align(x, 16 // element_size)


def get_mn_major_tma_aligned_tensor(sf: torch.Tensor) -> torch.Tensor:
    """float32 scales [MN, KB] (or [G, MN, KB]) in the layout the kernels
    read: MN-major, each K block's column padded to a multiple of 4 floats.
    Returned as they are when already so."""
    if sf.dim() not in (2, 3) or sf.dtype != torch.float32:
        raise ValueError(f"get_mn_major_tma_aligned_tensor: argument 'sf' must "
                         f"be a 2-D or 3-D float32 tensor, got "
                         f"{sf.dim()}-D {sf.dtype}")
    if quant.is_mn_major_tma_aligned(sf):
        return sf
    return quant.mn_major_tma_aligned(sf)


get_mn_major_tma_aligned_packed_ue8m0_tensor = _not_implemented(
    "get_mn_major_tma_aligned_packed_ue8m0_tensor")
get_k_grouped_mn_major_tma_aligned_packed_ue8m0_tensor = _not_implemented(
    "get_k_grouped_mn_major_tma_aligned_packed_ue8m0_tensor")


def transform_sf_into_required_layout(sf: torch.Tensor, mn: int, k: int, recipe,
                                      num_groups: Optional[int] = None,
                                      is_sfa: Optional[bool] = None,
                                      disable_ue8m0_cast: bool = False,
                                      psum_layout=None) -> torch.Tensor:
    """DeepGEMM's SM90 float32 cases: (1, 128) scales become MN-major
    TMA-aligned; (128, 128) scales are checked and returned."""
    name = "transform_sf_into_required_layout"
    recipe = tuple(recipe)
    if len(recipe) == 3:
        if is_sfa is None:
            raise ValueError(f"{name}: a 3-element recipe needs is_sfa")
        gran_mn, gran_k = (recipe[0] if is_sfa else recipe[1]), recipe[2]
    elif len(recipe) == 2:
        if is_sfa is not None:
            raise ValueError(f"{name}: a 2-element recipe takes no is_sfa")
        gran_mn, gran_k = recipe
    else:
        raise ValueError(f"{name}: argument 'recipe' must have 2 or 3 elements, "
                         f"got {recipe!r}")
    if psum_layout is not None or sf.dtype != torch.float32 or gran_k != 128 \
            or gran_mn not in (1, 128):
        raise NotImplementedError(
            f"tilec.deep_gemm.{name}: only float32 scales with granularity "
            f"(1, 128) or (128, 128) (SM90) are implemented")
    expected = ((num_groups,) if num_groups is not None else ()) + (
        ceil_div(mn, gran_mn), ceil_div(k, gran_k))
    if tuple(sf.shape) != expected:
        raise ValueError(f"{name}: argument 'sf' must have shape "
                         f"{list(expected)}, got {list(sf.shape)}")
    if gran_mn == 1:
        return get_mn_major_tma_aligned_tensor(sf)
    rows, cols = sf.shape[-2:]
    strides = sf.stride()[-2:]
    if not ((strides[1] == 1 and strides[0] == cols)
            or (strides[0] == 1 and strides[1] == rows)):
        raise ValueError(f"{name}: (128, 128) scales must be contiguous or "
                         f"contiguous after a transpose, got strides {list(strides)}")
    return sf


def set_mk_alignment_for_contiguous_layout(new_value: int) -> None:
    """The alignment of each group's first row in the M-grouped contiguous
    layouts (DeepGEMM's; 128 by default, a multiple of 64 for tilec)."""
    _grouped.set_mk_alignment("set_mk_alignment_for_contiguous_layout",
                              new_value)


def get_mk_alignment_for_contiguous_layout() -> int:
    return _grouped.mk_alignment()


def get_theoretical_mk_alignment_for_contiguous_layout(
        expected_m: Optional[int] = None) -> int:
    """DeepGEMM's best alignment for the GPU: 128 on SM90, whatever
    expected_m (SM100 shrinks it for small groups)."""
    if expected_m is not None and (not isinstance(expected_m, int)
                                   or expected_m <= 0):
        raise ValueError(f"get_theoretical_mk_alignment_for_contiguous_layout: "
                         f"argument 'expected_m' must be a positive int or None, "
                         f"got {expected_m!r}")
    return _grouped.THEORETICAL_MK_ALIGNMENT


get_m_alignment_for_contiguous_layout = get_mk_alignment_for_contiguous_layout
get_k_alignment_for_contiguous_layout = get_mk_alignment_for_contiguous_layout
init_dist = _not_implemented("init_dist")
uneven_all_gather = _not_implemented("uneven_all_gather")

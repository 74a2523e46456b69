"""torch custom ops (torch.library.custom_op) for torch.compile and tracing.

tilec::bf16_gemm, tilec::fp8_gemm and tilec::m_grouped_gemm mutate d and
return nothing; their fake implementations run the same shape, dtype and
layout checks as eager calls (tilec._gemm.*_plan, tilec._grouped's
plans), so a wrong call fails while tracing, and a
traced graph holds one node per GEMM. Eager calls do not go through the
ops (the dispatcher's fast path is cheaper than torch's op dispatch); the
tilec.deep_gemm functions route here when tilec._gemm.tracing() says so.

c aliasing d (accumulation in place) is passed as c=None, c_is_d=True:
custom ops take no aliased inputs.
"""

from typing import List, Optional

import torch

from . import _gemm, _grouped

_LIBRARY = "tilec"


@torch.library.custom_op(f"{_LIBRARY}::bf16_gemm", mutates_args=("d",))
def bf16_gemm(a: torch.Tensor, b: torch.Tensor, d: torch.Tensor,
              c: Optional[torch.Tensor], c_is_d: bool, layout: str,
              compiled_dims: str) -> None:
    _gemm.bf16_eager(a, b, d, d if c_is_d else c, layout, compiled_dims)


@bf16_gemm.register_fake
def _bf16_gemm_fake(a, b, d, c, c_is_d, layout, compiled_dims) -> None:
    _gemm.bf16_plan(a, b, d, d if c_is_d else c, layout, compiled_dims)


def _recipe(value) -> Optional[List[int]]:
    return None if value is None else [int(x) for x in value]


def _tuple(value):
    return None if value is None else tuple(value)


@torch.library.custom_op(f"{_LIBRARY}::fp8_gemm", mutates_args=("d",))
def fp8_gemm(a: torch.Tensor, sfa: torch.Tensor, b: torch.Tensor,
             sfb: torch.Tensor, d: torch.Tensor, c: Optional[torch.Tensor],
             c_is_d: bool, recipe: Optional[List[int]],
             recipe_a: Optional[List[int]], recipe_b: Optional[List[int]],
             compiled_dims: str, layout: str, name: str) -> None:
    _gemm.fp8_eager((a, sfa), (b, sfb), d, d if c_is_d else c, _tuple(recipe),
                    _tuple(recipe_a), _tuple(recipe_b), compiled_dims, layout,
                    name)


@fp8_gemm.register_fake
def _fp8_gemm_fake(a, sfa, b, sfb, d, c, c_is_d, recipe, recipe_a, recipe_b,
                   compiled_dims, layout, name) -> None:
    _gemm.fp8_plan((a, sfa), (b, sfb), d, d if c_is_d else c, recipe, recipe_a,
                   recipe_b, compiled_dims, layout, name)


@torch.library.custom_op(f"{_LIBRARY}::m_grouped_gemm", mutates_args=("d",))
def m_grouped_gemm(a: torch.Tensor, sfa: Optional[torch.Tensor], b: torch.Tensor,
                   sfb: Optional[torch.Tensor], d: torch.Tensor,
                   table: torch.Tensor, function: str, kind: str, layout: str,
                   recipe: Optional[List[int]], recipe_a: Optional[List[int]],
                   recipe_b: Optional[List[int]], compiled_dims: str,
                   use_psum_layout: bool,
                   expected_m_for_psum_layout: Optional[int],
                   expected_m: Optional[int]) -> None:
    call = _m_grouped_call(a, sfa, b, sfb, d, table, function, kind, layout,
                           recipe, recipe_a, recipe_b, compiled_dims,
                           use_psum_layout, expected_m_for_psum_layout,
                           expected_m)
    _grouped.launch(call.plan(), call.key())


@m_grouped_gemm.register_fake
def _m_grouped_gemm_fake(*args) -> None:
    _m_grouped_call(*args).plan()


def _m_grouped_call(a, sfa, b, sfb, d, table, function, kind, layout, recipe,
                    recipe_a, recipe_b, compiled_dims, use_psum_layout,
                    expected_m_for_psum_layout, expected_m) -> "_grouped.Call":
    return _grouped.Call(function, kind, layout, a, sfa, b, sfb, d, table,
                         _tuple(recipe), _tuple(recipe_a), _tuple(recipe_b),
                         compiled_dims, use_psum_layout,
                         expected_m_for_psum_layout, expected_m)


def m_grouped_gemm_op(call: "_grouped.Call") -> None:
    """The traced form of an M-grouped call. Its checks run first, so that
    an argument of a type the op's schema refuses is named as eager calls
    name it."""
    call.plan()
    torch.ops.tilec.m_grouped_gemm(
        call.a, call.sfa, call.b, call.sfb, call.d, call.table, call.function,
        call.kind, call.layout, _recipe(call.recipe), _recipe(call.recipe_a),
        _recipe(call.recipe_b), call.compiled_dims, call.use_psum_layout,
        call.expected_m_for_psum_layout, call.expected_m)


def bf16_gemm_op(a, b, d, c, layout: str, compiled_dims: str) -> None:
    c_is_d = c is d
    torch.ops.tilec.bf16_gemm(a, b, d, None if c_is_d else c, c_is_d, layout,
                              compiled_dims)


def fp8_gemm_op(a, sfa, b, sfb, d, c, recipe, recipe_a, recipe_b,
                compiled_dims: str, disable_ue8m0_cast: bool, layout: str,
                name: str) -> None:
    # disable_ue8m0_cast changes nothing for sm_90a's float32 scales.
    c_is_d = c is d
    torch.ops.tilec.fp8_gemm(a, sfa, b, sfb, d, None if c_is_d else c, c_is_d,
                             _recipe(recipe), _recipe(recipe_a),
                             _recipe(recipe_b), compiled_dims, layout, name)

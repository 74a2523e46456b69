"""M-grouped GEMMs on torch tensors (DeepGEMM's m_grouped_*_contiguous and
m_grouped_*_masked): checks, kernel choice, launch.

The layouts are DeepGEMM's (csrc/apis/gemm.hpp):
- contiguous: A [M, K] holds the rows of every group, each group padded to
  the mk alignment (get/set_mk_alignment_for_contiguous_layout); B [G, N, K];
  D [M, N]; grouped_layout int32 [M], the group of each row or -1 for
  padding rows. With use_psum_layout=True, grouped_layout is int32 [G], the
  end row of each group; group g starts at group g - 1's end rounded up to
  the alignment.
- masked: A [G, MAX_M, K], B [G, N, K], D [G, MAX_M, N], masked_m int32 [G]
  (read on the GPU: the launch does not depend on it, so a CUDA graph can
  replay it with other counts), expected_m a host-side hint for the config.

The kernels (lib/Kernels/m_grouped_*.tile) take A, D and SFA with a group
dim in front; a contiguous call's 2-D tensors get a leading dim of 1 in the
dispatcher's plan (no copy). The checks run on metadata only (ValueError
naming the argument and the expected value, before any CUDA call).
"""

from typing import NamedTuple, Optional, Tuple

import torch

from . import _cache, _configs, _gemm, quant
from ._checks import (Operand, TMA_ALIGN, expect_aligned, expect_bool,
                      expect_compiled_dims, expect_same_device)

# DeepGEMM's SM90 alignment of the groups of a contiguous layout (its
# get_mk_alignment_for_contiguous_layout; its heuristics take BLOCK_M = this).
THEORETICAL_MK_ALIGNMENT = 128
_mk_alignment = THEORETICAL_MK_ALIGNMENT


def set_mk_alignment(function: str, value) -> None:
    global _mk_alignment
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0 \
            or value % 64:
        raise ValueError(f"{function}: argument 'new_value' must be a positive "
                         f"multiple of 64 (tilec's grouped tiles have 64 or 128 "
                         f"rows), got {value!r}")
    _mk_alignment = value


def mk_alignment() -> int:
    return _mk_alignment


class GroupedPlan(NamedTuple):
    """What the checks decided (see _gemm.Plan): the family and the
    problem the config plans for, the dispatcher's inputs and the kernel's
    arguments as (input index, transposed, leading dims of 1)."""
    function: str
    family: str
    rows: int          # rows the config plans for, over all groups
    n: int
    k: int
    groups: int
    layout: str        # 'contiguous', 'psum' or 'masked'
    operands: Tuple[Operand, ...]
    arg_map: list
    transforms: tuple
    empty: bool        # nothing to compute (no rows)


def _expect_rows_contiguous(op: Operand, labels: str) -> None:
    """The last dim contiguous and every other stride a multiple of 16 bytes
    (TMA's rule for the tensors it reads or writes), rows not overlapping."""
    shape, strides = op.shape, op.strides
    if shape[-1] > 1 and strides[-1] != 1:
        raise op.fail(f"{labels} must have its last dim contiguous (stride(-1) "
                      f"== 1), got strides {list(strides)}")
    size = op.tensor.element_size()
    span = shape[-1]
    # The outer dims from the smallest stride up, whatever their order (a
    # transposed view, such as einsum's [H, B, K] of a [B, H, K] tensor).
    for dim in sorted(range(len(shape) - 1), key=lambda d: strides[d]):
        if shape[dim] <= 1:
            continue
        if strides[dim] * size % TMA_ALIGN or strides[dim] < span:
            raise op.fail(
                f"needs a stride of dim {dim} of a multiple of 16 bytes "
                f"({TMA_ALIGN // size} elements), at least {span}, for TMA, "
                f"got {strides[dim]}")
        span = max(span, strides[dim] * shape[dim])


def _expect_int32_vector(fn: str, name: str, tensor, length: int,
                         labels: str) -> Operand:
    op = Operand(fn, name, tensor)
    op.expect_dtype(torch.int32)
    op.expect_rank(1, labels)
    op.expect_shape((length,), labels)
    if length > 1 and op.strides[0] != 1:
        raise op.fail(f"must be contiguous, got stride {op.strides[0]}")
    return op


def _check_operands(fn: str, a, b, d, dtype, masked: bool):
    """A, B, D of either layout: dtypes, ranks, shapes, strides. Returns the
    operands, (groups, rows per A group, n, k) and whether B is MN-major."""
    A = Operand(fn, "a", a)
    B = Operand(fn, "b", b)
    D = Operand(fn, "d", d)
    for op in (A, B):
        if dtype == torch.float8_e4m3fn and op.dtype in (torch.int8, torch.uint8):
            raise NotImplementedError(
                f"{fn}: argument '{op.name}' looks like packed FP4 (e2m1) data: "
                f"tilec has no FP4 kernels (SM100)")
        op.expect_dtype(dtype)
    D.expect_dtype(torch.bfloat16)
    B.expect_rank(3, "[G, N, K]")
    groups, n, k = B.shape
    if masked:
        A.expect_rank(3, "[G, MAX_M, K]")
        rows = A.shape[1]
        A.expect_shape((groups, rows, k), f"[G, MAX_M, K] with G = {groups} and "
                                          f"K = {k} (b's)")
        D.expect_rank(3, "[G, MAX_M, N]")
        D.expect_shape((groups, rows, n), "[G, MAX_M, N]")
    else:
        A.expect_rank(2, "[M, K]")
        rows = A.shape[0]
        A.expect_shape((rows, k), f"[M, K] with K = {k} (b's)")
        D.expect_rank(2, "[M, N]")
        D.expect_shape((rows, n), "[M, N]")
    if groups == 0:
        raise B.fail("must have at least one group (G > 0)")
    if n == 0 or k == 0:
        raise B.fail(f"must have N > 0 and K > 0 (DeepGEMM's rule for grouped "
                     f"GEMMs), got shape {list(B.shape)}")
    if A.strides[-1] != 1 and A.shape[-1] > 1:
        raise A.fail(f"must be K-major (stride(-1) == 1): tilec's grouped "
                     f"kernels read A K-major only; got strides {list(A.strides)}")
    # B K-major, or (BF16 only) MN-major: the kernel then reads [G, K, N].
    b_mn = B.strides[-1] != 1 and B.shape[-1] > 1
    if b_mn and dtype != torch.bfloat16:
        raise B.fail(f"must be K-major ([G, N, K] with stride(-1) == 1): FP8 "
                     f"wgmma on sm_90a reads K-major operands only; got "
                     f"strides {list(B.strides)}")
    if b_mn and B.strides[1] != 1:
        raise B.fail(f"must be K-major (stride(-1) == 1) or MN-major (stride(1) "
                     f"== 1), got strides {list(B.strides)}")
    if rows:  # TMA's rules bind the tensors that are read
        kernel_b = Operand(fn, "b", b.transpose(1, 2)) if b_mn else B
        for op, labels in ((A, "A"), (kernel_b, "B"), (D, "D")):
            _expect_rows_contiguous(op, labels)
    return A, B, D, groups, rows, n, k, b_mn


def _check_scales(fn: str, sfa, sfb, groups: int, rows: int, n: int, k: int,
                  masked: bool):
    """SFA ([M, KB], or [G, MAX_M, KB] when masked) and SFB ([G, NB, KB]):
    the operands and the copies that make the layouts the kernel reads."""
    kb = quant.ceil_div(k, 128)
    if masked:
        SFA = _gemm._scale_operand(fn, "sfa", sfa, False, (groups, rows, kb),
                                   "[G, MAX_M, ceil(K / 128)]")
    else:
        SFA = _gemm._scale_operand(fn, "sfa", sfa, False, (rows, kb),
                                   "[M, ceil(K / 128)]")
    SFB = _gemm._scale_operand(fn, "sfb", sfb, False,
                               (groups, quant.ceil_div(n, 128), kb),
                               "[G, ceil(N / 128), ceil(K / 128)]")
    # SFA: the MN-major TMA-aligned layout is read as it is (its transpose),
    # any other is copied into it. SFB: scalar loads with its strides; K
    # contiguous is read as it is, anything else is copied contiguous.
    sfa_transform = None if quant.is_mn_major_tma_aligned(sfa) else \
        quant.mn_major_tma_aligned
    sfb_transform = None if (SFB.strides[-1] == 1 or kb == 1) else \
        torch.Tensor.contiguous
    return SFA, SFB, sfa_transform, sfb_transform


def _layout(fn: str, masked: bool, table, use_psum_layout,
            expected_m_for_psum_layout, expected_m, rows: int, groups: int,
            A: Operand) -> Tuple[str, int, Operand]:
    """(layout, rows the config plans for, the group table's operand)."""
    if masked:
        plan_rows = _expected_rows(fn, expected_m, groups)
        return "masked", plan_rows, _expect_int32_vector(
            fn, "masked_m", table, groups, "[G] (b's groups)")
    layout, plan_rows = _contiguous_layout(
        fn, use_psum_layout, expected_m_for_psum_layout, rows, groups, A)
    if layout == "contiguous":
        return layout, plan_rows, _expect_int32_vector(
            fn, "grouped_layout", table, rows, "[M] (a's rows)")
    return layout, plan_rows, _expect_int32_vector(
        fn, "grouped_layout", table, groups, "[G] (b's groups)")


def _contiguous_layout(fn: str, use_psum_layout, expected_m_for_psum_layout,
                       rows: int, groups: int, A: Operand) -> Tuple[str, int]:
    """(layout, rows the config plans for) of a contiguous call."""
    expect_bool(fn, "use_psum_layout", use_psum_layout)
    if expected_m_for_psum_layout is not None:
        if not use_psum_layout:
            raise ValueError(f"{fn}: argument 'expected_m_for_psum_layout' needs "
                             f"use_psum_layout=True (DeepGEMM's rule)")
        if not isinstance(expected_m_for_psum_layout, int) or \
                expected_m_for_psum_layout <= 0:
            raise ValueError(f"{fn}: argument 'expected_m_for_psum_layout' must be "
                             f"a positive int, got {expected_m_for_psum_layout!r}")
    if use_psum_layout:
        plan_rows = (expected_m_for_psum_layout * groups
                     if expected_m_for_psum_layout is not None else rows)
        return "psum", plan_rows
    if rows % _mk_alignment:
        raise A.fail(f"must have a multiple of the mk alignment "
                     f"({_mk_alignment}, get_mk_alignment_for_contiguous_layout) "
                     f"rows: each group is padded to it; got {rows}")
    return "contiguous", rows


def fp8_plan(a_pair, b_pair, d, layout_table, layout_name: str, fn: str,
             recipe=None, recipe_a=None, recipe_b=None,
             compiled_dims: str = "nk", use_psum_layout=False,
             expected_m_for_psum_layout=None, expected_m=None) -> GroupedPlan:
    """The checks of m_grouped_fp8_fp4_gemm_nt_contiguous / _masked."""
    expect_compiled_dims(fn, compiled_dims)
    masked = layout_name == "masked"
    a, sfa = _gemm._pair(fn, "a", a_pair)
    b, sfb = _gemm._pair(fn, "b", b_pair)
    A, B, D, groups, rows, n, k, _ = _check_operands(fn, a, b, d,
                                                     torch.float8_e4m3fn, masked)
    (gran_ma, gran_ka), (gran_nb, gran_kb) = _gemm._recipes(fn, recipe, recipe_a,
                                                            recipe_b)
    if (gran_ma, gran_ka, gran_nb, gran_kb) != (1, 128, 128, 128):
        raise NotImplementedError(
            f"{fn}: argument 'recipe': tilec's grouped FP8 kernels take A scaled "
            f"per (1, 128) and B per (128, 128) (1D2D); got A ({gran_ma}, "
            f"{gran_ka}), B ({gran_nb}, {gran_kb})")
    SFA, SFB, sfa_transform, sfb_transform = _check_scales(
        fn, sfa, sfb, groups, rows, n, k, masked)
    layout, plan_rows, L = _layout(fn, masked, layout_table, use_psum_layout,
                                   expected_m_for_psum_layout, expected_m,
                                   rows, groups, A)
    lead = 0 if masked else 1
    # Kernel args: A [GA, M, K], B, D [GA, M, N], SFA [GA, KB, M] (the
    # MN-major scales transposed), SFB [G, NB, KB], L.
    arg_map = [(0, False, lead), (1, False, 0), (2, False, lead),
               (3, True, lead), (4, False, 0), (5, False, 0)]
    return GroupedPlan(fn, "m_grouped_fp8_gemm_1d2d", plan_rows, n, k, groups,
                       layout, (A, B, D, SFA, SFB, L), arg_map,
                       (None, None, None, sfa_transform, sfb_transform, None),
                       empty=rows == 0)


def bf16_plan(a, b, d, layout_table, layout_name: str, fn: str,
              compiled_dims: str = "nk", use_psum_layout=False,
              expected_m_for_psum_layout=None, expected_m=None) -> GroupedPlan:
    """The checks of m_grouped_bf16_gemm_nt_contiguous / _masked."""
    expect_compiled_dims(fn, compiled_dims)
    masked = layout_name == "masked"
    A, B, D, groups, rows, n, k, b_mn = _check_operands(fn, a, b, d,
                                                        torch.bfloat16, masked)
    layout, plan_rows, L = _layout(fn, masked, layout_table, use_psum_layout,
                                   expected_m_for_psum_layout, expected_m,
                                   rows, groups, A)
    lead = 0 if masked else 1
    # An MN-major B goes to the nn family as the [G, K, N] it is stored as.
    arg_map = [(0, False, lead), (1, b_mn, 0), (2, False, lead), (3, False, 0)]
    family = "m_grouped_bf16_gemm_nn" if b_mn else "m_grouped_bf16_gemm_nt"
    return GroupedPlan(fn, family, plan_rows, n, k, groups,
                       layout, (A, B, D, L), arg_map, (None,) * 4,
                       empty=rows == 0)


def _expected_rows(fn: str, expected_m, groups: int) -> int:
    if not isinstance(expected_m, int) or isinstance(expected_m, bool) \
            or expected_m <= 0:
        raise ValueError(f"{fn}: argument 'expected_m' must be a positive int "
                         f"(the expected rows per group), got {expected_m!r}")
    return expected_m * groups


class Call(NamedTuple):
    """One call of an M-grouped GEMM as DeepGEMM's functions take it: what
    the fast path keys on, the slow path checks and the custom op carries."""
    function: str
    kind: str          # 'bf16' or 'fp8'
    layout: str        # 'contiguous' (with use_psum_layout) or 'masked'
    a: object
    sfa: object        # None for BF16
    b: object
    sfb: object
    d: object
    table: object      # grouped_layout or masked_m
    recipe: object = None
    recipe_a: object = None
    recipe_b: object = None
    compiled_dims: str = "nk"
    use_psum_layout: object = False
    expected_m_for_psum_layout: object = None
    expected_m: object = None

    def tensors(self) -> tuple:
        """The dispatcher's inputs, in the plan's order."""
        if self.kind == "bf16":
            return (self.a, self.b, self.d, self.table)
        return (self.a, self.b, self.d, self.sfa, self.sfb, self.table)

    def key(self) -> tuple:
        hint = (self.expected_m if self.layout == "masked" else
                (self.use_psum_layout, self.expected_m_for_psum_layout))
        return key(self.kind, self.layout, self.recipe, self.recipe_a,
                   self.recipe_b, self.compiled_dims, hint)

    def plan(self) -> GroupedPlan:
        if self.kind == "bf16":
            return bf16_plan(self.a, self.b, self.d, self.table, self.layout,
                             self.function, self.compiled_dims,
                             self.use_psum_layout,
                             self.expected_m_for_psum_layout, self.expected_m)
        return fp8_plan((self.a, self.sfa), (self.b, self.sfb), self.d,
                        self.table, self.layout, self.function, self.recipe,
                        self.recipe_a, self.recipe_b, self.compiled_dims,
                        self.use_psum_layout, self.expected_m_for_psum_layout,
                        self.expected_m)


def key(kind: str, layout: str, recipe, recipe_a, recipe_b, compiled_dims,
        hint) -> tuple:
    """The dispatcher of one entry point and option set. The config hint
    (expected_m, expected_m_for_psum_layout, the mk alignment) is part of
    it: it may pick another kernel for the same tensors."""
    return ("m_grouped", kind, layout, _gemm._as_tuple(recipe),
            _gemm._as_tuple(recipe_a), _gemm._as_tuple(recipe_b), compiled_dims,
            hint, _mk_alignment)


def launch(plan: GroupedPlan, dispatcher_key: tuple) -> None:
    """Runs a checked plan: device and alignment checks, layout copies, the
    kernel, the plan recorded, the launch."""
    operands = plan.operands
    device = expect_same_device(operands, allow_cpu=_gemm._runtime.dry_run())
    if plan.empty:
        return
    expect_aligned(operands)
    inputs = [op.tensor for op in operands]
    for index, transform in enumerate(plan.transforms):
        if transform is not None:
            inputs[index] = transform(inputs[index])
    problem = dict(m=max(plan.rows, 1), n=plan.n, k=plan.k, out="bf16",
                   accumulate=False, num_sms=_gemm.get_num_sms(device),
                   num_groups=plan.groups, group_layout=plan.layout,
                   mk_alignment=_mk_alignment)
    defines, _ = _configs.choose(plan.family,
                                 target=_cache.device_target(device), **problem)
    kernel = _cache.get_kernel(plan.family, defines, device, problem)
    kernel.set_persistent_limit(_gemm._num_sms_override or 0)
    inputs = tuple(inputs)
    target = _gemm.dispatcher(dispatcher_key, len(inputs))
    target.add(inputs, kernel, plan.arg_map)
    _gemm.launch_recorded(target, inputs, plan.function)

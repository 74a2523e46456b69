"""K-grouped GEMMs on torch tensors (DeepGEMM's k_grouped_fp8_gemm_nt_contiguous
and k_grouped_bf16_gemm_tn_contiguous, a mixture-of-experts layer's weight
gradients: one [M, N] product per group over that group's tokens): checks
and launches.

The layouts are DeepGEMM's (csrc/apis/gemm.hpp). ks_cpu lists the groups'
K (multiples of the K alignment; 0 for an empty group), P_g is the sum of
the K before group g, d is float32 [G, M, N] and d[g] = c[g] + group g's
product:
- FP8 NT: a = (e4m3 data of sum(K) * M elements, SFA), group g's A the
  [M, K_g] K-major matrix at element offset P_g * M; b likewise with N.
  SFA f32 [M, sum(K) / 128] and SFB [N, sum(K) / 128] (the transposes of
  the [sum(K) / 128, MN] tables k_grouped_per_channel_cast_to_fp8 makes):
  1D1D scaling, recipe (1, 1, 128), group g's scales the columns from
  P_g / 128 on. K alignment 128.
- BF16 TN: a bf16 [sum(K), M], b [sum(K), N] (MN-major), group g's rows
  P_g .. P_g + K_g: d[g] = c[g] + a_g^T b_g. K alignment: the mk alignment.

On sm_90a BF16 runs as one launch of lib/Kernels/k_grouped_bf16_gemm_tn.tile
over all groups (one_launch_bf16), or, where it cannot (_ks_on_device), as
FP8 runs by default: each non-empty group one launch of a dense kernel on
views of its operands (nothing copied), fp8_gemm_1d1d with f32 accumulation
(what DeepGEMM's dense weight-gradient GEMM runs) or bf16_gemm_tn with f32
output and accumulation. FP8's one launch,
lib/Kernels/k_grouped_fp8_gemm_1d1d.tile with A and B as tensor lists, is
opt-in (one_launch_fp8) until it has run on the GPU (docs/python.md). A c
other than d is copied into d first, then the launches add each group's
product to d[g]; an empty group leaves d[g] = c[g]. The checks run once per
call, here; each group's launch takes the dense dispatcher's fast path once
a group of its K has been planned.
"""

from typing import NamedTuple, Optional, Tuple

import torch

from . import _cache, _gemm, _grouped, _ops, quant
from ._checks import Operand, expect_bool, expect_compiled_dims, expect_same_device

FP8_K_ALIGNMENT = 128       # one 128-K scale block per group's K block
FP8_RECIPE = (1, 1, 128)    # the only one DeepGEMM takes for K-grouped FP8

#: K-grouped BF16 as one launch of this family over all groups (its tiles
#: numbered across the groups, each tile's K loop over its group's rows of
#: a and b) instead of a dense launch per group: 1.03x DeepGEMM against
#: 0.99x on the H200 (bench/results/2026-12-06-kgrouped-one-launch.md).
#: Per group still while a CUDA graph captures a ks not seen before.
one_launch_bf16 = True
ONE_LAUNCH_BF16_FAMILY = "k_grouped_bf16_gemm_tn"
#: Its tile (BLK_M = BLK_N = 128): the one launch has run on the GPU with M
#: and N multiples of it only (DeepGEMM's cases), so other shapes launch per
#: group until a partial tile has been checked there
#: (bench/py_kgrouped_check.py --small has one).
ONE_LAUNCH_BF16_TILE = 128
#: K-grouped FP8 as one launch of this family over all groups: A and B are
#: tensor lists (each group's [MN, K_g] K-major matrix read through its own
#: tensor map), the scales one table for all groups. Not yet run on the GPU,
#: hence off: FP8 launches a dense fp8_gemm_1d1d per group until it has been
#: checked there (bench/py_kgrouped_check.py --fp8-one-launch).
one_launch_fp8 = False
ONE_LAUNCH_FP8_FAMILY = "k_grouped_fp8_gemm_1d1d"
#: The spec's MAX_GROUPS: groups per launch (their tensor maps travel in the
#: kernel's parameters); more groups launch in chunks of this many.
ONE_LAUNCH_FP8_GROUPS = 32
#: Its parameters other than the spec's defaults (-D values as get_kernel
#: takes them: pairs or a dict), for trying tiles
#: (bench/py_kgrouped_check.py --fp8-one-define).
ONE_LAUNCH_FP8_DEFINES = ()
_ks_tensors = {}   # (ks, device) -> the ks on it: the last 64, oldest first
_ks_captured = {}  # the same for the ks a CUDA graph has captured (kept)


class KGroupedPlan(NamedTuple):
    """What the checks decided: the groups and the operands, the layout
    copies still to make and the c to copy into d."""
    function: str
    kind: str          # 'fp8' or 'bf16'
    m: int
    n: int
    ks: Tuple[int, ...]
    # fp8: (A, B, D, SFA, SFB, grouped_layout); bf16: (A, B, D, grouped_layout)
    operands: Tuple[Operand, ...]
    # fp8: per SFA and SFB, None (read as given) or the copy into DeepGEMM's
    # MN-major TMA-aligned layout.
    transforms: tuple
    c: Optional[torch.Tensor]
    compiled_dims: str


#===------------------------------------------------------------------------===#
# Checks
#===------------------------------------------------------------------------===#


# Why K-grouped operands must be contiguous (the checks' messages).
_CONTIGUOUS = "DeepGEMM's rule for K-grouped GEMMs"


def _check_ks(fn: str, ks_cpu, groups: int, alignment: int,
              alignment_name: str) -> Tuple[int, ...]:
    if ks_cpu is None or (isinstance(ks_cpu, (list, tuple)) and not ks_cpu):
        raise ValueError(f"{fn}: argument 'ks_cpu' must list each group's K "
                         f"(None or [] goes with use_psum_layout=True, SM100's "
                         f"layout), got {ks_cpu!r}")
    if not isinstance(ks_cpu, (list, tuple)) or not all(
            isinstance(k, int) and not isinstance(k, bool) for k in ks_cpu):
        raise ValueError(f"{fn}: argument 'ks_cpu' must be a list of ints (each "
                         f"group's K), got {ks_cpu!r}")
    if len(ks_cpu) != groups:
        raise ValueError(f"{fn}: argument 'ks_cpu' must have one K per group of "
                         f"'d' ({groups}), got {len(ks_cpu)}")
    for g, k in enumerate(ks_cpu):
        if k < 0 or k % alignment:
            raise ValueError(f"{fn}: argument 'ks_cpu' must hold non-negative "
                             f"multiples of {alignment} ({alignment_name}), got "
                             f"{k} for group {g}")
    return tuple(ks_cpu)


def _check_output(fn: str, d, ks_cpu, grouped_layout, c, alignment: int,
                  alignment_name: str):
    """D [G, M, N] float32, the ks, grouped_layout and c: (D, ks, L, the c to
    copy into d or None)."""
    D = Operand(fn, "d", d)
    D.expect_dtype(torch.float32)
    D.expect_rank(3, "[G, M, N]")
    D.expect_contiguous(_CONTIGUOUS)
    groups = D.shape[0]
    ks = _check_ks(fn, ks_cpu, groups, alignment, alignment_name)
    L = _grouped._expect_int32_vector(fn, "grouped_layout", grouped_layout,
                                      groups, "[G] (d's groups)")
    if c is None:
        raise ValueError(f"{fn}: argument 'c' must be given: DeepGEMM's "
                         f"K-grouped GEMMs compute D = C + A B^T (c=d adds to d)")
    if c is d:
        return D, ks, L, None
    C = Operand(fn, "c", c)
    C.expect_dtype(torch.float32)
    C.expect_shape(D.shape, "[G, M, N] (d's)")
    C.expect_contiguous(_CONTIGUOUS)
    if C.device != D.device:
        raise C.fail(f"is on {C.device}, but 'd' is on {D.device}")
    return D, ks, L, c


def _expect_multiple(op: Operand, dim: str, value: int, elements: int,
                     why: str) -> None:
    if value % elements:
        raise op.fail(f"must have {dim} a multiple of {elements} ({why}), got "
                      f"{dim} = {value}")


def _check_psum(fn: str, use_psum_layout, error) -> None:
    if expect_bool(fn, "use_psum_layout", use_psum_layout):
        raise error


def fp8_plan(a_pair, b_pair, d, ks_cpu, grouped_layout, c, recipe=FP8_RECIPE,
             compiled_dims: str = "mn", use_psum_layout=False,
             fn: str = "k_grouped_fp8_gemm_nt_contiguous") -> KGroupedPlan:
    """The checks of k_grouped_fp8_gemm_nt_contiguous (no CUDA call)."""
    expect_compiled_dims(fn, compiled_dims)
    _check_psum(fn, use_psum_layout, ValueError(
        f"{fn}: argument 'use_psum_layout' must be False: DeepGEMM's FP8 NT "
        f"K-grouped GEMM has no psum layout (it takes ks_cpu)"))
    if not isinstance(recipe, (tuple, list)) or tuple(recipe) != FP8_RECIPE:
        raise ValueError(f"{fn}: argument 'recipe' must be (1, 1, 128) (1D1D: A "
                         f"and B scaled per row and 128 K, the only K-grouped "
                         f"FP8 recipe), got {recipe!r}")
    a, sfa = _gemm._pair(fn, "a", a_pair)
    b, sfb = _gemm._pair(fn, "b", b_pair)
    D, ks, L, copy_c = _check_output(fn, d, ks_cpu, grouped_layout, c,
                                     FP8_K_ALIGNMENT, "the FP8 K alignment")
    _, m, n = D.shape
    sum_k = sum(ks)
    A, B = Operand(fn, "a", a), Operand(fn, "b", b)
    for op, mn in ((A, "M"), (B, "N")):
        op.expect_dtype(torch.float8_e4m3fn)
        op.expect_contiguous(_CONTIGUOUS)
        rows = m if op is A else n
        if op.tensor.numel() != sum_k * rows:
            raise op.fail(f"must hold sum(ks_cpu) * {mn} = {sum_k} * {rows} = "
                          f"{sum_k * rows} elements (group g's [{mn}, K_g] "
                          f"K-major from element P_g * {mn} on), got "
                          f"{op.tensor.numel()}")
    kb = sum_k // 128
    SFA = _gemm._scale_operand(fn, "sfa", sfa, False, (m, kb),
                               "[M, sum(ks_cpu) / 128]")
    SFB = _gemm._scale_operand(fn, "sfb", sfb, False, (n, kb),
                               "[N, sum(ks_cpu) / 128]")
    if m and n and sum_k:   # TMA's rules bind only tensors that are read
        _expect_multiple(D, "N", n, 4, "each group's float32 rows are "
                         "stored by TMA: 16-byte strides")
    # The dense kernel reads SFA's (and SFB's) [KB, MN] transpose with a row
    # stride of align(MN, 4); a group's scales are then a column range of
    # the whole table, in the same layout. Any other layout is copied into
    # it once for all groups.
    transforms = tuple(None if _gemm._mn_major_aligned(op, mn) else
                       quant.mn_major_tma_aligned
                       for op, mn in ((SFA, m), (SFB, n)))
    return KGroupedPlan(fn, "fp8", m, n, ks, (A, B, D, SFA, SFB, L),
                        transforms, copy_c, compiled_dims)


def bf16_plan(a, b, d, ks_cpu, grouped_layout, c, compiled_dims: str = "mn",
              use_psum_layout=False,
              fn: str = "k_grouped_bf16_gemm_tn_contiguous") -> KGroupedPlan:
    """The checks of k_grouped_bf16_gemm_tn_contiguous (no CUDA call)."""
    expect_compiled_dims(fn, compiled_dims)
    _check_psum(fn, use_psum_layout, NotImplementedError(
        f"{fn}: argument 'use_psum_layout': the psum layout of K-grouped "
        f"BF16 GEMMs is SM100's (DeepGEMM's SM90 kernel takes ks_cpu)"))
    alignment = _grouped.mk_alignment()
    D, ks, L, copy_c = _check_output(
        fn, d, ks_cpu, grouped_layout, c, alignment,
        "get_mk_alignment_for_contiguous_layout")
    _, m, n = D.shape
    sum_k = sum(ks)
    A, B = Operand(fn, "a", a), Operand(fn, "b", b)
    for op, mn, size in ((A, "M", m), (B, "N", n)):
        op.expect_dtype(torch.bfloat16)
        op.expect_rank(2, f"[sum(ks_cpu), {mn}]")
        op.expect_shape((sum_k, size), f"[sum(ks_cpu), {mn}]")
        op.expect_contiguous(_CONTIGUOUS)
    if m and n and sum_k:   # TMA's rules bind only tensors that are read
        for op, mn, size in ((A, "M", m), (B, "N", n)):
            _expect_multiple(op, mn, size, 8, f"its [sum(K), {mn}] rows are "
                             f"read by TMA: 16-byte strides")
        _expect_multiple(D, "N", n, 4, "each group's float32 rows are "
                         "stored by TMA: 16-byte strides")
    return KGroupedPlan(fn, "bf16", m, n, ks, (A, B, D, L), (), copy_c,
                        compiled_dims)


#===------------------------------------------------------------------------===#
# Launches: one dense GEMM per non-empty group
#===------------------------------------------------------------------------===#


def group_inputs(plan: KGroupedPlan, inputs: tuple):
    """(group, the dense dispatcher's inputs for it) per non-empty group:
    views of `inputs` (the plan's tensors after its layout copies), in the
    dense plans' order: fp8 (A [M, K_g], B [N, K_g], D [M, N], SFA [M, KB_g],
    SFB [N, KB_g]), bf16 (A [K_g, M], B [K_g, N], D [M, N]). Each tensor is
    split into its groups' parts by one torch call (a view per part: the
    per-group torch calls are most of a call's host time)."""
    m, n, ks = plan.m, plan.n, plan.ks
    if plan.kind == "fp8":
        a, b, d, sfa, sfb = inputs
        blocks = [k // 128 for k in ks]
        parts = zip(a.view(-1).split([k * m for k in ks]),
                    b.view(-1).split([k * n for k in ks]), d.unbind(0),
                    sfa.split(blocks, dim=1), sfb.split(blocks, dim=1))
        for g, (k, (a_g, b_g, d_g, sfa_g, sfb_g)) in enumerate(zip(ks, parts)):
            if k:
                yield g, (a_g.view(m, k), b_g.view(n, k), d_g, sfa_g, sfb_g)
    else:
        a, b, d = inputs
        parts = zip(a.split(ks), b.split(ks), d.unbind(0))
        for g, (k, views) in enumerate(zip(ks, parts)):
            if k:
                yield g, views


def key(plan: KGroupedPlan) -> tuple:
    """The dispatcher of the groups' dense GEMMs (one per kind and option
    set; a plan per group K)."""
    return ("k_grouped", plan.kind, plan.compiled_dims)


def _group_plan(plan: KGroupedPlan, inputs: tuple) -> "_gemm.Plan":
    """The dense plan of one group: D[g] += the group's product."""
    if plan.kind == "fp8":
        a, b, d, sfa, sfb = inputs
        return _gemm.fp8_plan((a, sfa), (b, sfb), d, d, FP8_RECIPE,
                              compiled_dims=plan.compiled_dims, layout="nt",
                              function=plan.function)
    a, b, d = inputs
    return _gemm.bf16_plan(a, b, d, d, "tn", plan.compiled_dims,
                           function=plan.function)


def _launch_group(plan: KGroupedPlan, dispatcher_key: tuple, inputs: tuple) -> None:
    """One group's launch: the fast path, or the dense slow path (which
    records the plan of this K for the next calls)."""
    target = _gemm._dispatchers.get(dispatcher_key)
    if target is not None and target.launch(*inputs):
        return
    _gemm._launch(_group_plan(plan, inputs), dispatcher_key)


def _trace_group(plan: KGroupedPlan, inputs: tuple) -> None:
    """One group under tracing: the dense custom op on the group's views."""
    if plan.kind == "fp8":
        a, b, d, sfa, sfb = inputs
        _ops.fp8_gemm_op(a, sfa, b, sfb, d, d, FP8_RECIPE, None, None,
                         plan.compiled_dims, False, "nt", "fp8_gemm")
    else:
        a, b, d = inputs
        _ops.bf16_gemm_op(a, b, d, d, "tn", plan.compiled_dims)


def launch(plan: KGroupedPlan) -> None:
    """Runs a checked plan: the device check, c copied into d, the scale
    layout copies, then a dense launch per non-empty group."""
    operands = plan.operands
    expect_same_device(operands, allow_cpu=_gemm._runtime.dry_run())
    if plan.m == 0 or plan.n == 0:   # DeepGEMM's early return
        return
    d = operands[2].tensor
    if plan.c is not None:
        d.copy_(plan.c)
    if not any(plan.ks):
        return
    inputs = [op.tensor for op in operands[:-1]]   # grouped_layout: not read
    for index, transform in enumerate(plan.transforms, start=3):
        if transform is not None:
            inputs[index] = transform(inputs[index])
    tensors = tuple(inputs) + ((plan.c,) if plan.c is not None else ())
    if _gemm.tracing(*tensors):
        for _, views in group_inputs(plan, tuple(inputs)):
            _trace_group(plan, views)
        return
    if (plan.kind == "bf16" and one_launch_bf16
            and plan.m % ONE_LAUNCH_BF16_TILE == 0 and plan.n % ONE_LAUNCH_BF16_TILE == 0):
        ks = _ks_on_device(plan.ks, d.device, ONE_LAUNCH_BF16_FAMILY)
        if ks is not None:
            _launch_bf16_groups(plan, tuple(inputs), ks)
            return
    if plan.kind == "fp8" and one_launch_fp8:
        ks = _ks_on_device(plan.ks, d.device, ONE_LAUNCH_FP8_FAMILY)
        if ks is not None:
            _launch_fp8_groups(plan, tuple(inputs), ks)
            return
    dispatcher_key = key(plan)
    for _, views in group_inputs(plan, tuple(inputs)):
        _launch_group(plan, dispatcher_key, views)


def _ks_on_device(ks: Tuple[int, ...], device: torch.device, family: str):
    """The checked ks_cpu as an int32 [G] tensor on `device` for the one
    launch of `family` (grouped_layout is not read: DeepGEMM's SM90 kernels
    take ks_cpu), or None where the call must launch per group instead:
    while a CUDA graph is captured, a ks seen for the first time (its copy
    would replay a host buffer torch may have reused) or a kernel not yet
    loaded.
    A ks seen outside capture is copied from pinned memory, ordered on the
    stream, with no host sync (an MoE's ks change every step); the last 64
    are kept, and those a graph has captured are kept for good (its replays
    read them)."""
    entry = (ks, device)
    if _cache.capturing():
        found = _ks_tensors.get(entry, _ks_captured.get(entry))
        if found is None or _cache.loaded_kernel(family, (),
                                                 device.index) is None:
            return None
        _ks_captured[entry] = found
        return found
    found = _ks_tensors.pop(entry, _ks_captured.get(entry))
    if found is None:
        host = torch.tensor(ks, dtype=torch.int32)
        if device.type == "cuda":
            host = host.pin_memory()
        found = host.to(device, non_blocking=True)
    _ks_tensors[entry] = found     # the most recent last
    if len(_ks_tensors) > 64:
        del _ks_tensors[next(iter(_ks_tensors))]
    return found


def _launch_bf16_groups(plan: KGroupedPlan, inputs: tuple, ks: torch.Tensor) -> None:
    """All groups in one launch of ONE_LAUNCH_BF16_FAMILY: a [sum(K), M],
    b [sum(K), N], d [G, M, N] holding c, the ks on the device; the kernel
    adds each group's product to d[g] (TMA reduce-add) and leaves empty
    groups."""
    a, b, d = inputs
    kernel = _cache.get_kernel(ONE_LAUNCH_BF16_FAMILY, (), d.device.index)
    kernel.set_persistent_limit(_gemm._num_sms_override or 0)
    kernel.launch([a, b, d, ks])


def _launch_fp8_groups(plan: KGroupedPlan, inputs: tuple, ks: torch.Tensor) -> None:
    """All groups in launches of ONE_LAUNCH_FP8_FAMILY, ONE_LAUNCH_FP8_GROUPS
    groups at a time: d [G, M, N] holding c; A and B as lists of the groups'
    [M, K_g] / [N, K_g] views (no copy; an empty group's view is empty and
    never read); the scales' [KB, MN] transposes, a chunk's rows from its
    first group's K block on; the ks on the device. The kernel adds each
    group's product to d[g] (TMA reduce-add) and leaves empty groups."""
    a, b, d, sfa, sfb = inputs
    m, n, ks_cpu = plan.m, plan.n, plan.ks
    a_groups = [part.view(m, k) for part, k in
                zip(a.view(-1).split([k * m for k in ks_cpu]), ks_cpu)]
    b_groups = [part.view(n, k) for part, k in
                zip(b.view(-1).split([k * n for k in ks_cpu]), ks_cpu)]
    sfa_rows, sfb_rows = sfa.t(), sfb.t()   # [KB, M], [KB, N]
    kernel = _cache.get_kernel(ONE_LAUNCH_FP8_FAMILY, ONE_LAUNCH_FP8_DEFINES, d.device.index)
    kernel.set_persistent_limit(_gemm._num_sms_override or 0)
    first_block = 0
    for start in range(0, len(ks_cpu), ONE_LAUNCH_FP8_GROUPS):
        stop = min(start + ONE_LAUNCH_FP8_GROUPS, len(ks_cpu))
        blocks = sum(ks_cpu[start:stop]) // 128
        if blocks:
            kernel.launch([d[start:stop], a_groups[start:stop], b_groups[start:stop],
                           sfa_rows[first_block:first_block + blocks],
                           sfb_rows[first_block:first_block + blocks],
                           ks[start:stop]])
        first_block += blocks

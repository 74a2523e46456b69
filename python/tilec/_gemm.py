"""BF16 and FP8 GEMMs on torch tensors: checks, kernel choice, launch.

A call goes one of three ways:
- fast: the public function hands the tensors to a tilec._C.Dispatcher,
  which finds the plan recorded for their signature and launches (no
  Python in between; this is what makes a call cost a few microseconds);
- slow, the first call of a signature (or one needing a layout change): the
  checks below (ValueError naming the argument and the expected value,
  before any CUDA call), the config, the kernel (memory / disk cache /
  compile), a plan recorded, then the fast path launches;
- traced (torch.compile, fake tensors, dispatch modes): the torch custom
  op (tilec/_ops.py), whose fake implementation runs the same checks.

Layouts follow DeepGEMM: `layout` is the public function's suffix; 'nt'
takes A [M, K] and B [N, K], a first 't' A as [K, M], a second 'n' B as
[K, N]. The GEMM's view of each operand is the argument or its transpose;
the kernel family follows from which views are K-major.
"""

from typing import NamedTuple, Optional, Tuple

import torch

from . import _cache, _configs, _runtime, _specs, quant
from ._checks import (Operand, expect_aligned, expect_compiled_dims,
                      expect_same_device)

_TORCH_OUT = {torch.bfloat16: "bf16", torch.float32: "f32"}
_PLAIN_TENSOR_TYPES = (torch.Tensor, torch.nn.Parameter)

# Dispatchers (one per entry point and option set) and SM counts.
_dispatchers = {}
_num_sms_override: Optional[int] = None
_device_sms = {}


class Plan(NamedTuple):
    """What the checks decided: the family and problem, the dispatcher's
    inputs (with the layout changes still to make) and the kernel's
    arguments as (input index, transposed)."""
    function: str
    family: str
    m: int
    n: int
    k: int
    out: str
    accumulate: bool
    operands: Tuple[Operand, ...]
    arg_map: list
    # Per input: None (as given) or a function making the layout the kernel
    # reads (a copy).
    transforms: tuple = (None, None, None)
    # A c other than d, copied into d before the kernel adds to it.
    c: Optional[torch.Tensor] = None
    # fp8_gemm_nt_skip_head_mid's (left, mid, right): D's heads have mid
    # more columns than the product's, which the kernel skips.
    head_splits: Optional[Tuple[int, int, int]] = None


def dispatcher(key, inputs: int, keyed: int = 0) -> "_runtime.Dispatcher":
    """The dispatcher for `key`, made on first use (`keyed`: its first
    tensors that make the signature, 0 all; tilec._C.Dispatcher)."""
    found = _dispatchers.get(key)
    if found is None:
        found = _dispatchers[key] = _runtime.Dispatcher(inputs, keyed)
    return found


def fast_dispatcher(key):
    """The dispatcher for `key` if one exists (None for unhashable keys)."""
    try:
        return _dispatchers.get(key)
    except TypeError:
        return None


def set_num_sms(num_sms: int) -> None:
    """The SMs tilec's GEMMs use (DeepGEMM's set_num_sms): the configs plan
    for them and the persistent grids launch at most that many CTAs. Known
    plans are dropped so that the next calls choose again."""
    global _num_sms_override
    if not isinstance(num_sms, int) or num_sms <= 0:
        raise ValueError(f"set_num_sms: argument 'new_num_sms' must be a "
                         f"positive int, got {num_sms!r}")
    _num_sms_override = num_sms
    for found in _dispatchers.values():
        found.clear()


def get_num_sms(device: Optional[int] = None) -> int:
    if _num_sms_override is not None:
        return _num_sms_override
    if _runtime.dry_run() and not torch.cuda.is_available():
        return 132
    index = torch.cuda.current_device() if device is None else device
    count = _device_sms.get(index)
    if count is None:
        count = _device_sms[index] = \
            torch.cuda.get_device_properties(index).multi_processor_count
    return count


def tracing(*tensors) -> bool:
    """Whether this call is being traced (torch.compile, fake or functional
    tensors, a dispatch mode) and must go through the custom op."""
    if torch.compiler.is_compiling():
        return True
    for tensor in tensors:
        if tensor is not None and type(tensor) not in _PLAIN_TENSOR_TYPES:
            return True
    mode = getattr(torch.utils._python_dispatch, "_get_current_dispatch_mode", None)
    return mode is not None and mode() is not None


def _accumulation(fn: str, d: Operand, c) -> Tuple[bool, Optional[torch.Tensor]]:
    """(accumulate, the c to copy into d first): (False, None) without c,
    (True, None) for c = d; any other c is checked against d."""
    if c is None:
        return False, None
    if c is d.tensor:
        return True, None
    op = Operand(fn, "c", c)
    op.expect_dtype(d.dtype)
    op.expect_shape(d.shape, "[M, N] (d's)")
    if op.device != d.device:
        raise op.fail(f"is on {op.device}, but 'd' is on {d.device}")
    return True, c


#===------------------------------------------------------------------------===#
# BF16
#===------------------------------------------------------------------------===#


def bf16_plan(a, b, d, c, layout: str, compiled_dims: str = "nk",
              function: Optional[str] = None) -> Plan:
    """The checks of bf16_gemm_<layout> (no CUDA call, no data pointer).
    `function` names the caller in errors when it is not bf16_gemm_<layout>
    (a K-grouped GEMM's group)."""
    fn = function or f"bf16_gemm_{layout}"
    expect_compiled_dims(fn, compiled_dims)
    ta, tb = layout[0] == "t", layout[1] == "n"
    A = Operand(fn, "a", a, ta)
    B = Operand(fn, "b", b, tb)
    D = Operand(fn, "d", d)
    A.expect_dtype(torch.bfloat16)
    B.expect_dtype(torch.bfloat16)
    D.expect_dtype(torch.bfloat16, torch.float32)
    A.expect_rank(2, "[K, M]" if ta else "[M, K]")
    B.expect_rank(2, "[K, N]" if tb else "[N, K]")
    D.expect_rank(2, "[M, N]")
    m, k = A.shape
    B.expect_shape((B.shape[0], k), f"[N, K] with K = {k} (a's K)")
    n = B.shape[0]
    D.expect_shape((m, n), "[M, N]")
    a_k = A.expect_major("A")
    b_k = B.expect_major("B")
    D.expect_row_major("D")
    accumulate, copy_c = _accumulation(fn, D, c)
    family = f"bf16_gemm_{'n' if a_k else 't'}{'t' if b_k else 'n'}"
    known = _specs.FAMILIES.get(family)
    if known is None:
        raise NotImplementedError(
            f"{fn}: argument 'a' is MN-major (A stored as [K, M], M "
            f"contiguous): tilec has no BF16 kernel that reads A MN-major yet "
            f"(DeepGEMM's TN/TT layouts); pass A K-major, e.g. a.contiguous()")
    out = _TORCH_OUT[D.dtype]
    if out not in known.outputs:
        raise NotImplementedError(
            f"{fn}: argument 'd' has dtype {D.dtype}: tilec's BF16 kernels "
            f"write torch.bfloat16 only (no float32 output yet)")
    if accumulate and not known.accumulates:
        raise NotImplementedError(
            f"{fn}: argument 'c' (accumulation, D = C + A B^T): tilec's BF16 "
            f"kernels do not accumulate yet; pass c=None")
    if m and n and k:  # TMA's rules bind only tensors that are read
        A.expect_tma_rows(1 if a_k else 0)
        B.expect_tma_rows(1 if b_k else 0)
        D.expect_tma_rows(1)
    # The kernels take A [M, K] when K-major, else [K, M]; B [N, K] when
    # K-major, else [K, N]; D [M, N]. A flag says whether that is the
    # transpose of the argument as given.
    a_transposed = ta if a_k else not ta
    b_transposed = tb if b_k else not tb
    return Plan(fn, family, m, n, k, out, accumulate, (A, B, D),
                [(0, a_transposed), (1, b_transposed), (2, False)], c=copy_c)


def bf16_key(layout: str, compiled_dims, accumulate: bool) -> tuple:
    """The dispatcher of one entry point and option set."""
    return ("bf16", layout, compiled_dims, accumulate)


def bf16_gemm(a, b, d, c, layout: str, compiled_dims: str = "nk") -> None:
    """D = A B^T (DeepGEMM's bf16_gemm_<layout>): slow path and tracing."""
    if tracing(a, b, d, c):
        return _ops.bf16_gemm_op(a, b, d, c, layout, compiled_dims)
    bf16_eager(a, b, d, c, layout, compiled_dims)


def bf16_eager(a, b, d, c, layout: str, compiled_dims: str = "nk") -> None:
    plan = bf16_plan(a, b, d, c, layout, compiled_dims)
    _launch(plan, bf16_key(layout, compiled_dims, plan.accumulate))


#===------------------------------------------------------------------------===#
# FP8
#===------------------------------------------------------------------------===#


def _pair(fn: str, name: str, pair):
    if not isinstance(pair, (tuple, list)) or len(pair) != 2:
        raise TypeError(f"{fn}: argument '{name}' must be a pair (data, scale "
                        f"factors) of tensors, got {type(pair).__name__}")
    return pair


def _recipes(fn: str, recipe, recipe_a, recipe_b):
    """((gran_mn, gran_k) of SFA, of SFB), DeepGEMM's rules: `recipe`
    (A's MN, B's MN, K) or the pair `recipe_a`, `recipe_b` ((MN, K) each)."""
    if (recipe_a is None) != (recipe_b is None):
        raise ValueError(f"{fn}: arguments 'recipe_a' and 'recipe_b' go "
                         f"together, got only one")
    if recipe_a is not None and recipe is not None:
        raise ValueError(f"{fn}: pass either 'recipe' or 'recipe_a' with "
                         f"'recipe_b', not both")
    if recipe_a is None:
        recipe = (1, 128, 128) if recipe is None else tuple(recipe)
        if len(recipe) != 3:
            raise ValueError(f"{fn}: argument 'recipe' must be (gran_m_a, "
                             f"gran_n_b, gran_k), got {recipe!r}")
        return (recipe[0], recipe[2]), (recipe[1], recipe[2])
    return tuple(recipe_a), tuple(recipe_b)


def _mn_major_aligned(op: Operand, mn: int) -> bool:
    """DeepGEMM's TMA-aligned MN-major scale layout: strides (1, align(MN, 4))."""
    return ((op.strides[0] == 1 or mn == 1)
            and op.strides[1] == quant.align(mn, 4))


def _scale_operand(fn: str, name: str, tensor, transposed: bool,
                   shape: Tuple[int, int], labels: str) -> Operand:
    op = Operand(fn, name, tensor, transposed)
    if op.dtype == torch.int32:
        raise NotImplementedError(
            f"{fn}: argument '{name}' holds packed UE8M0 scale factors "
            f"(int32): that is SM100's format; tilec's sm_90a kernels take "
            f"float32 scale factors")
    op.expect_dtype(torch.float32)
    op.expect_rank(len(shape), labels)
    op.expect_shape(shape, labels)
    return op


def _to_mn_major(view: torch.Tensor) -> torch.Tensor:
    return quant.mn_major_tma_aligned(view)


def fp8_plan(a_pair, b_pair, d, c, recipe=None, recipe_a=None, recipe_b=None,
             compiled_dims: str = "nk", layout: str = "nt",
             name: str = "fp8_gemm", function: Optional[str] = None,
             head_splits=None) -> Plan:
    """The checks of fp8_gemm_<layout> on sm_90a (no CUDA call); `function`
    as for bf16_plan; `head_splits` those of fp8_gemm_nt_skip_head_mid."""
    fn = function or f"{name}_{layout}"
    expect_compiled_dims(fn, compiled_dims)
    a, sfa = _pair(fn, "a", a_pair)
    b, sfb = _pair(fn, "b", b_pair)
    ta, tb = layout[0] == "t", layout[1] == "n"
    A = Operand(fn, "a", a, ta)
    B = Operand(fn, "b", b, tb)
    D = Operand(fn, "d", d)
    for op in (A, B):
        if op.dtype in (torch.int8, torch.uint8):
            raise NotImplementedError(
                f"{fn}: argument '{op.name}' looks like packed FP4 (e2m1) "
                f"data: tilec has no FP4 kernels (SM100)")
        op.expect_dtype(torch.float8_e4m3fn)
    D.expect_dtype(torch.bfloat16, torch.float32)
    A.expect_rank(2, "[M, K]")
    B.expect_rank(2, "[N, K]")
    D.expect_rank(2, "[M, N]")
    m, k = A.shape
    B.expect_shape((B.shape[0], k), f"[N, K] with K = {k} (a's K)")
    n = B.shape[0]
    if head_splits is None:
        D.expect_shape((m, n), "[M, N]")
    else:
        head_splits = _head_splits(fn, head_splits, n)
        left, mid, right = head_splits
        D.expect_shape((m, n + n // (left + right) * mid),
                       f"[M, N + N / {left + right} * {mid}] (head splits "
                       f"{head_splits})")
    for op, labels in ((A, "A"), (B, "B")):
        if not op.expect_major(labels):
            raise op.fail(f"must be K-major ([{labels == 'A' and 'M' or 'N'}, K] "
                          f"with stride(1) == 1): FP8 wgmma on sm_90a reads K-major "
                          f"operands only; got strides {list(op.strides)}")
    D.expect_row_major("D")
    (gran_ma, gran_ka), (gran_nb, gran_kb) = _recipes(fn, recipe, recipe_a, recipe_b)
    if (gran_ma, gran_ka, gran_kb) != (1, 128, 128) or gran_nb not in (1, 128):
        raise NotImplementedError(
            f"{fn}: argument 'recipe': tilec's sm_90a FP8 kernels take A "
            f"scaled per (1, 128) and B per (128, 128) (1D2D) or (1, 128) "
            f"(1D1D); got A ({gran_ma}, {gran_ka}), B ({gran_nb}, {gran_kb})")
    kb = quant.ceil_div(k, 128)
    SFA = _scale_operand(fn, "sfa", sfa, ta, (m, kb), "[M, ceil(K / 128)]")
    one_d = gran_nb == 1
    if one_d:
        SFB = _scale_operand(fn, "sfb", sfb, tb, (n, kb), "[N, ceil(K / 128)]")
    else:
        SFB = _scale_operand(fn, "sfb", sfb, tb, (quant.ceil_div(n, 128), kb),
                             "[ceil(N / 128), ceil(K / 128)]")
    accumulate, copy_c = _accumulation(fn, D, c)
    out = _TORCH_OUT[D.dtype]
    if accumulate and out != "f32":
        raise NotImplementedError(
            f"{fn}: argument 'c' with a {D.dtype} d: tilec's FP8 kernels "
            f"accumulate into torch.float32 only (as DeepGEMM's on SM90)")
    if m and n and k:  # TMA's rules bind only tensors that are read
        for op in (A, B, D):
            op.expect_tma_rows(1)
    # SFA (and 1D1D SFB): the kernel reads the [KB, MN] transpose of the
    # MN-major aligned [MN, KB] view; other layouts are copied into it.
    transforms = [None] * 5
    sfa_given = _mn_major_aligned(SFA, m)
    if not sfa_given:
        transforms[3] = _to_mn_major
    if one_d:
        sfb_given = _mn_major_aligned(SFB, n)
        if not sfb_given:
            transforms[4] = _to_mn_major
        sfb_arg = (4, not tb if sfb_given else True)
    else:
        # 1D2D SFB: [NB, KB] row-major; its transpose-contiguous form is copied.
        rows, cols = SFB.shape
        sfb_given = SFB.strides[1] == 1 and (rows == 1 or SFB.strides[0] == cols)
        if not sfb_given:
            if not (SFB.strides[0] == 1 and (cols == 1 or SFB.strides[1] == rows)):
                raise SFB.fail(f"must be contiguous or contiguous after a transpose "
                               f"(DeepGEMM's SM90 rule), got strides "
                               f"{list(SFB.strides)}")
            transforms[4] = torch.Tensor.contiguous
        sfb_arg = (4, tb if sfb_given else False)
    family = "fp8_gemm_1d1d" if one_d else "fp8_gemm_1d2d"
    if head_splits is not None and one_d:
        raise NotImplementedError(
            f"{fn}: argument 'recipe': the head split is DeepGEMM's SM90 1D2D "
            f"epilogue; B scaled per (1, 128) (1D1D) has none")
    arg_map = [(0, ta), (1, tb), (2, False),
               (3, not ta if sfa_given else True), sfb_arg]
    return Plan(fn, family, m, n, k, out, accumulate, (A, B, D, SFA, SFB),
                arg_map, tuple(transforms), copy_c, head_splits)


def _head_splits(fn: str, head_splits, n: int) -> Tuple[int, int, int]:
    """(left, mid, right) of fp8_gemm_nt_skip_head_mid, checked."""
    try:
        left, mid, right = (int(v) for v in head_splits)
    except (TypeError, ValueError):
        raise ValueError(f"{fn}: argument 'head_splits' must be three ints "
                         f"(left, mid, right), got {head_splits!r}") from None
    if left <= 0 or right <= 0 or mid < 0:
        raise ValueError(f"{fn}: argument 'head_splits' must have left and "
                         f"right > 0 and mid >= 0, got {(left, mid, right)}")
    if n % (left + right):
        raise ValueError(f"{fn}: argument 'b': N = {n} must be a multiple of "
                         f"left + right = {left + right} (head_splits "
                         f"{(left, mid, right)})")
    if left % 16 or right % 16:
        raise NotImplementedError(
            f"{fn}: argument 'head_splits': tilec's tiles are multiples of 16 "
            f"columns, so left and right must be too, got {(left, mid, right)}")
    return left, mid, right


def _head_split_defines(defines, head_splits, out: str):
    """The configuration's defines with the head split: the widest BLK_N
    up to the chosen one that divides left and right, no split K, the
    stages the spec fits to the tile."""
    left, mid, right = head_splits
    chosen = dict(defines)
    widths = [w for w in (192, 160, 128, 112, 96, 64, 48, 32, 16)
              if w <= int(chosen["BLK_N"]) and left % w == 0 and right % w == 0]
    chosen["BLK_N"] = str(widths[0])
    for name in ("SPLIT_K", "STAGES"):
        chosen.pop(name, None)
    chosen["OUT"] = out
    chosen.update(HEAD_LEFT=str(left), HEAD_MID=str(mid), HEAD_RIGHT=str(right))
    return tuple(sorted(chosen.items()))


def fp8_gemm(a_pair, b_pair, d, c=None, recipe=None, recipe_a=None,
             recipe_b=None, compiled_dims: str = "nk",
             disable_ue8m0_cast: bool = False, layout: str = "nt",
             name: str = "fp8_gemm") -> None:
    """DeepGEMM's fp8_gemm_<layout> on sm_90a: slow path and tracing."""
    a, sfa = _pair(f"{name}_{layout}", "a", a_pair)
    b, sfb = _pair(f"{name}_{layout}", "b", b_pair)
    if tracing(a, sfa, b, sfb, d, c):
        return _ops.fp8_gemm_op(a, sfa, b, sfb, d, c, recipe, recipe_a, recipe_b,
                                compiled_dims, disable_ue8m0_cast, layout, name)
    fp8_eager(a_pair, b_pair, d, c, recipe, recipe_a, recipe_b, compiled_dims,
              layout, name)


def fp8_skip_head_mid(a_pair, b_pair, d, head_splits, recipe=None,
                      compiled_dims: str = "nk") -> None:
    """DeepGEMM's fp8_gemm_nt_skip_head_mid on sm_90a: the 1D2D GEMM with
    the head split in its epilogue (fp8_gemm_1d2d.tile's HEAD_* params)."""
    fn = "fp8_gemm_nt_skip_head_mid"
    key = fp8_key("nt", _as_tuple(recipe), None, None, compiled_dims, False)
    # A recorded plan first (the fast path), as the other GEMMs' entries.
    fast = fast_dispatcher(key + ("skip_head_mid", _as_tuple(head_splits)))
    if (fast is not None and isinstance(a_pair, tuple) and isinstance(b_pair, tuple)
            and fast.launch(a_pair[0], b_pair[0], d, a_pair[1], b_pair[1])):
        return
    plan = fp8_plan(a_pair, b_pair, d, None, recipe, None, None, compiled_dims,
                    "nt", function=fn, head_splits=head_splits)
    _launch(plan, key + ("skip_head_mid", plan.head_splits))


def _as_tuple(value):
    return tuple(value) if isinstance(value, list) else value


def fp8_key(layout: str, recipe, recipe_a, recipe_b, compiled_dims,
            accumulate: bool) -> tuple:
    return ("fp8", layout, recipe, recipe_a, recipe_b, compiled_dims, accumulate)


def fp8_eager(a_pair, b_pair, d, c, recipe=None, recipe_a=None, recipe_b=None,
              compiled_dims: str = "nk", layout: str = "nt",
              name: str = "fp8_gemm") -> None:
    plan = fp8_plan(a_pair, b_pair, d, c, recipe, recipe_a, recipe_b,
                    compiled_dims, layout, name)
    _launch(plan, fp8_key(layout, _as_tuple(recipe), _as_tuple(recipe_a),
                          _as_tuple(recipe_b), compiled_dims, plan.accumulate))


#===------------------------------------------------------------------------===#
# Launching a plan
#===------------------------------------------------------------------------===#


def _launch(plan: Plan, key: tuple) -> None:
    """Runs a checked plan: device and alignment checks, copies for layout
    changes and C, the kernel, the plan recorded, the launch."""
    operands = plan.operands
    device = expect_same_device(operands, allow_cpu=_runtime.dry_run())
    d = operands[2].tensor
    if plan.m == 0 or plan.n == 0:
        return
    if plan.k == 0:  # nothing to multiply: D = C, or 0
        if plan.c is not None:
            d.copy_(plan.c)
        elif not plan.accumulate:
            d.zero_()
        return
    expect_aligned(operands)
    inputs = [op.tensor for op in operands]
    for index, transform in enumerate(plan.transforms):
        if transform is not None:
            view = operands[index].tensor
            inputs[index] = transform(view.t() if operands[index].transposed else view)
    if plan.c is not None:
        d.copy_(plan.c)
    problem = dict(m=plan.m, n=plan.n, k=plan.k, out=plan.out,
                   accumulate=plan.accumulate, num_sms=get_num_sms(device))
    defines, _ = _configs.choose(plan.family, target=_cache.device_target(device),
                                 **problem)
    if plan.head_splits is not None:
        # Not a configuration of the library's table: compiled by defines.
        defines = _head_split_defines(defines, plan.head_splits, plan.out)
        kernel, retire = _cache.get_kernel(plan.family, defines, device), None
    else:
        # The first call of a new configuration may get its quick build, and
        # a flag that retires this plan once the configuration has compiled.
        kernel, retire = _cache.plan_kernel(plan.family, defines, device,
                                            problem)
    # set_num_sms bounds the persistent grid too, so those SMs stay free.
    kernel.set_persistent_limit(_num_sms_override or 0)
    inputs = tuple(inputs)
    target = dispatcher(key, len(inputs))
    splits = int(dict(defines).get("SPLIT_K", "1"))
    if splits > 1:
        _add_split_plan(plan, target, inputs, kernel, defines, splits, device,
                        problem, retire)
    else:
        target.add(inputs, kernel, plan.arg_map, retire=retire)
    launch_recorded(target, inputs, plan.function)


def launch_recorded(target, inputs: tuple, function: str) -> None:
    """Launches the plan just recorded in `target` for `inputs` (even where
    the tiered JIT retired it meanwhile, Dispatcher.launch_recorded)."""
    if not target.launch_recorded(*inputs):
        raise RuntimeError(f"{function}: the plan just recorded was not "
                           f"found (a tensor tilec._C cannot read?)")


def _add_split_plan(plan: Plan, target, inputs, kernel, defines, splits: int,
                    device, problem: dict, retire=None) -> None:
    """Split K (the config's SPLIT_K): the GEMM writes `splits` slices of
    f32 partial sums into a workspace of splits * ceil(M / BLK_M) * BLK_M
    rows by N, then splitk_reduce.tile adds them into D in slice order
    (deterministic, no atomics). The workspace belongs to the plan, one per
    stream (tilec._C.Dispatcher)."""
    block_m = int(dict(defines)["BLK_M"])
    rows = splits * quant.ceil_div(plan.m, block_m) * block_m
    workspace = torch.empty(rows, plan.n, dtype=torch.float32,
                            device=inputs[2].device)
    # The library's config for the same problem sets the reduce's params
    # (the GEMM's BLK_M and SPLIT_K), so tilec-precompile prepares it too.
    reduce_problem = dict(problem, inputs="bf16" if plan.family.startswith("bf16")
                          else "fp8")
    reduce_defines, _ = _configs.choose("splitk_reduce",
                                        target=_cache.device_target(device),
                                        **reduce_problem)
    reduce = _cache.get_kernel("splitk_reduce", reduce_defines, device,
                               reduce_problem)
    reduce.set_persistent_limit(_num_sms_override or 0)
    gemm_map = [entry if index != 2 else "workspace"
                for index, entry in enumerate(plan.arg_map)]
    target.add(inputs, kernel, gemm_map,
               then=[(reduce, ["workspace", plan.arg_map[2]])],
               workspace=workspace, retire=retire)


# The custom ops call back into this module; importing them last registers
# them with torch whenever the GEMMs are usable.
from . import _ops  # noqa: E402

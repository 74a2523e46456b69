"""Paged MQA logits on torch tensors (DeepGEMM's get_paged_mqa_logits_metadata,
fp8_fp4_paged_mqa_logits and fp8_paged_mqa_logits on SM90): the schedule,
checks, the output's layout, launch.

For batch b, its query token j and key t below that query's context length:
    logits[b * next_n + j, t] = sum_h weights[b * next_n + j, h]
                                * relu(q[b, j, h] . kv[t]) * kv_scale[t]
with q e4m3 [B, next_n, H, D], key t of batch b in page block_table[b, t // 64]
of kv_cache at row t % 64. kv_cache is DeepGEMM's fused uint8 [num_blocks,
64, 1, D + 4]: each page holds its 64 keys' D bytes of e4m3, then their 64
float32 scales; the kernel reads it through two strided views (the keys
[num_blocks, 64, D], the scales [num_blocks, 64] at byte 64 * D), no copy.
context_lens is [B, next_n] (each query's own length) or DeepGEMM's 1-D [B]
(query j of batch b sees context_lens[b] - next_n + j + 1 keys).

The schedule (get_paged_mqa_logits_metadata) is DeepGEMM's format and
balance: int32 [num_sms + 1, 2], row i the (batch, split) of SM i's first
work item, where a batch's work items are its splits of 256 keys (of its
longest query's context: at least one, so that a batch without keys still
has its row written) numbered batch-major, and the items are shared out as
evenly as counts allow; the last row is (B, 0). It is computed with torch
ops on the context lengths' device, so it needs no host sync and can be
captured in a CUDA graph. The kernel is lib/Kernels/paged_mqa_logits.tile,
whose params are the problem's own (heads, head dim, next_n, logits dtype,
the two flags), so there is no config table.

The output is DeepGEMM's: a view [B * next_n, max_context_len] of a buffer
whose row stride is max_context_len rounded up to a split of 256 keys and
to 1024 bytes. clean_logits=True writes -inf at and past each query's
context length in the same kernel (DeepGEMM runs a second one, and only for
1-D context lengths).

A call's checks read only the tensors' metadata, so a checked signature
(each tensor's shape, strides, dtype and device, the flags) records a
plan in a tilec._C.Dispatcher: the kernel, and how its arguments come from
the call's tensors (q's rows, the cache's two views at their byte offsets,
the weights a row per batch). A later call of the same signature allocates
the logits and hands the tensors to the dispatcher, which launches with no
Python in between; the logits are not part of the signature, so one plan
serves a decode loop's growing max_context_len. Back-to-back calls were
bound by the host before plans (bench/results/2026-12-04-paged-mqa.md),
and the Python-side plans after them still cost ~34 us of host time per
call on the GPU machine, all of it before the launch: with a round of calls
timed from an idle GPU, that latency read as ~2% of a 110 us kernel
(bench/results/2026-12-06-paged-dispatcher.md).
"""

import torch

from . import _cache, _gemm
from ._checks import Operand, expect_aligned, expect_bool, expect_same_device
from ._mqa import _OUT, _logits_dtype, _no_fp4
from .quant import align

FAMILY = "paged_mqa_logits"
# Keys per page (DeepGEMM's SM90 block_kv, the spec's PAGE) and per work item
# (DeepGEMM's split_kv, the spec's SPLIT: a page per math warpgroup).
BLOCK_KV = 64
SPLIT_KV = 256


def _int(fn: str, name: str, value, low: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < low:
        raise ValueError(f"{fn}: argument '{name}' must be an int >= {low}, "
                         f"got {value!r}")
    return value


def _no_indices(fn: str, indices) -> None:
    if indices is not None:
        raise NotImplementedError(
            f"{fn}: argument 'indices' (varlen query tokens) is DeepGEMM's SM100 "
            f"kernel; tilec has the SM90 form (indices None) on sm_90a")


def _context_lens(fn: str, context_lens, batch=None, next_n=None) -> Operand:
    """context_lens int32 contiguous, [B, next_n] or [B] (B and next_n
    checked against q's when given)."""
    lens = Operand(fn, "context_lens", context_lens)
    lens.expect_dtype(torch.int32)
    if len(lens.shape) not in (1, 2):
        raise lens.fail(f"must be 2-D [B, next_n] (or 1-D [B]), got shape "
                        f"{list(lens.shape)}")
    if batch is not None:
        if len(lens.shape) == 2:
            lens.expect_shape((batch, next_n), "[B, next_n] (q's)")
        else:
            lens.expect_shape((batch,), "[B] (q's)")
    lens.expect_contiguous("[B, next_n]" if len(lens.shape) == 2 else "[B]")
    return lens


def _longest(context_lens: torch.Tensor) -> torch.Tensor:
    """The longest context of each batch's queries ([B], int32): the row's
    maximum, or the 1-D length itself (its last query's)."""
    if context_lens.dim() == 2:
        if context_lens.shape[1] == 0:
            return torch.zeros(context_lens.shape[0], dtype=torch.int32,
                               device=context_lens.device)
        return context_lens.amax(dim=1)
    return context_lens


def item_ends(context_lens: torch.Tensor) -> torch.Tensor:
    """Each batch's work items' end in the batch-major numbering ([B],
    int64, inclusive running sum): its splits of SPLIT_KV keys of its
    longest query's context, at least one."""
    longest = _longest(context_lens).to(torch.int64).clamp(min=0)
    splits = ((longest + SPLIT_KV - 1) // SPLIT_KV).clamp(min=1)
    return torch.cumsum(splits, 0)


def locate_items(ends: torch.Tensor, items: torch.Tensor):
    """The (batch, split) of each item index (item_ends' numbering); an
    index past the last item gives batch B."""
    batch = torch.searchsorted(ends, items, right=True)  # 0..B
    before = torch.where(batch > 0, ends[(batch - 1).clamp(min=0)],
                         torch.zeros_like(batch))
    return batch, items - before


def share_items(total, num_sms: int, device) -> torch.Tensor:
    """The first item of each of num_sms + 1 parts of `total` items (the
    last: total): SM i of n starts at i * q + max(i - (n - r), 0) for
    q, r = total divmod n, so the first n - r SMs take q items and the
    others q + 1, as DeepGEMM's."""
    sm = torch.arange(num_sms + 1, dtype=torch.int64, device=device)
    per_sm, rest = total // num_sms, total % num_sms
    return sm * per_sm + (sm - (num_sms - rest)).clamp(min=0)


def schedule(context_lens: torch.Tensor, num_sms: int) -> torch.Tensor:
    """The schedule (see the module's doc) of checked context lengths, with
    torch ops only: each batch's items (item_ends), each SM's first item
    (share_items) and the batch and split it falls in (locate_items)."""
    device = context_lens.device
    batches = context_lens.shape[0]
    result = torch.zeros(num_sms + 1, 2, dtype=torch.int32, device=device)
    if batches == 0:
        return result
    ends = item_ends(context_lens)
    batch, split = locate_items(ends, share_items(ends[-1], num_sms, device))
    result[:, 0] = batch.to(torch.int32)
    result[:, 1] = split.to(torch.int32)
    return result


def metadata(fn: str, context_lens, block_kv, num_sms, indices) -> torch.Tensor:
    """get_paged_mqa_logits_metadata: checks, then schedule()."""
    _no_indices(fn, indices)
    _int(fn, "block_kv", block_kv, 1)
    if block_kv != BLOCK_KV:
        raise ValueError(f"{fn}: argument 'block_kv' must be {BLOCK_KV} (DeepGEMM's "
                         f"SM90 page size), got {block_kv}")
    _int(fn, "num_sms", num_sms, 1)
    _context_lens(fn, context_lens)
    return schedule(context_lens, num_sms)


def _kv_view_args(kv_cache: torch.Tensor, head_dim: int) -> list:
    """The kernel's two views of the fused cache, as dispatcher plan
    arguments of input 1, no copy: the keys e4m3 [num_blocks, 64, D] and
    the scales float32 [num_blocks, 64] at byte 64 * D, each with the
    cache's page stride (the checks made the start and the page stride
    multiples of 16 bytes; the size-1 head dim's stride may be anything,
    and one page's stride too)."""
    blocks = kv_cache.shape[0]
    page = kv_cache.stride(0) if blocks > 1 else BLOCK_KV * (head_dim + 4)
    return [(1, "view", "e4m3", (blocks, BLOCK_KV, head_dim), (page, head_dim, 1), 0),
            (1, "view", "f32", (blocks, BLOCK_KV), (page // 4, 1), BLOCK_KV * head_dim)]


def _arg_map(q, kv_cache, context_lens) -> list:
    """How the kernel's arguments (Q, KV, KVS, W, CL, BT, S, L) come from a
    call's tensors (q, kv_cache, weights, context_lens, block_table,
    schedule_meta, logits): q's rows [B * next_n * H, D], the cache's two
    views, the weights a row per batch [B, next_n * H], 1-D context
    lengths as [B, 1]."""
    batch, next_n, heads, head_dim = q.shape
    rows = batch * next_n * heads
    lens = (3, False) if context_lens.dim() == 2 else (
        3, "view", "i32", (batch, 1), (1, 1), 0)
    return ([(0, "view", "e4m3", (rows, head_dim), (head_dim, 1), 0)]
            + _kv_view_args(kv_cache, head_dim)
            + [(2, "view", "f32", (batch, next_n * heads), (next_n * heads, 1), 0),
               lens, (4, False), (5, False), (6, False)])


def kernel_defines(q, context_lens, clean: bool, logits_dtype) -> tuple:
    """The spec's params for a checked call: the problem's own."""
    _, next_n, heads, head_dim = q.shape
    return (("CLEAN", str(int(clean))), ("CONTEXT_2D", str(int(context_lens.dim() == 2))),
            ("HEADS", str(heads)), ("HEAD_DIM", str(head_dim)),
            ("NEXT_N", str(next_n)), ("OUT", _OUT[logits_dtype]))


def _dispatcher_key(fn: str, clean_logits, logits_dtype):
    # The flag's type too: a plan recorded for True must not serve 1,
    # which the checks refuse.
    return (FAMILY, fn, type(clean_logits), clean_logits, logits_dtype)


def _logits_buffer(rows: int, max_context_len: int, logits_dtype, device):
    """DeepGEMM's output: [rows, max_context_len] with a row stride rounded
    up to a split and to 1024 bytes (one allocation, no view on top)."""
    stride = align(align(max_context_len, SPLIT_KV), 1024 // logits_dtype.itemsize)
    return torch.empty_strided((rows, max_context_len), (stride, 1),
                               dtype=logits_dtype, device=device)


def _fast_call(fn, q, q_sf, kv_cache, weights, context_lens, block_table,
               schedule_meta, max_context_len, clean_logits, logits_dtype,
               indices):
    """The logits of a call whose signature was checked before (the
    dispatcher's plan), or None: the checked path decides."""
    if (q_sf is not None or indices is not None or type(max_context_len) is not int
            or max_context_len <= 0 or not isinstance(q, torch.Tensor) or q.dim() != 4):
        return None
    target = _gemm.fast_dispatcher(_dispatcher_key(fn, clean_logits, logits_dtype))
    if target is None:
        return None
    logits = _logits_buffer(q.shape[0] * q.shape[1], max_context_len,
                            logits_dtype, q.device)
    try:
        if target.launch(q, kv_cache, weights, context_lens, block_table,
                         schedule_meta, logits):
            return logits
    except ValueError:
        pass  # refused before launching (alignment): the checks name the argument
    return None


def paged_mqa_logits(fn: str, q, q_sf, kv_cache, weights, context_lens,
                     block_table, schedule_meta, max_context_len, clean_logits,
                     logits_dtype, indices) -> torch.Tensor:
    """A signature checked before launches through its dispatcher plan
    (_fast_call); otherwise checks every argument (ValueError naming it),
    allocates the logits, records the plan and launches through it."""
    logits = _fast_call(fn, q, q_sf, kv_cache, weights, context_lens, block_table,
                        schedule_meta, max_context_len, clean_logits, logits_dtype,
                        indices)
    if logits is not None:
        return logits
    _no_fp4(fn, q_sf, "paged MQA logits")
    _no_indices(fn, indices)
    clean = expect_bool(fn, "clean_logits", clean_logits)
    _int(fn, "max_context_len", max_context_len, 0)
    _logits_dtype(fn, logits_dtype)
    Q = Operand(fn, "q", q)
    KV = Operand(fn, "kv_cache", kv_cache)
    W = Operand(fn, "weights", weights)
    BT = Operand(fn, "block_table", block_table)
    S = Operand(fn, "schedule_meta", schedule_meta)
    Q.expect_dtype(torch.float8_e4m3fn)
    Q.expect_rank(4, "[B, next_n, H, D]")
    batch, next_n, heads, head_dim = Q.shape
    if heads not in (32, 64):
        raise Q.fail(f"must have 32 or 64 heads (DeepGEMM's SM90 head counts), "
                     f"got {heads}")
    if head_dim not in (32, 64, 128):
        raise Q.fail(f"must have a head dim of 32, 64 or 128, got {head_dim}")
    if next_n < 1 or next_n * heads > 128:
        raise Q.fail(f"must have 1 to {128 // heads} query tokens per batch with "
                     f"{heads} heads (next_n x heads <= 128: one wgmma's N), "
                     f"got next_n = {next_n}")
    Q.expect_contiguous("[B, next_n, H, D]")
    KV.expect_dtype(torch.uint8)
    KV.expect_rank(4, "[num_blocks, block_kv, 1, D + 4]")
    blocks = KV.shape[0]
    KV.expect_shape((blocks, BLOCK_KV, 1, head_dim + 4),
                    f"[num_blocks, {BLOCK_KV}, 1, D + 4] with D = {head_dim} (q's)")
    page_bytes = BLOCK_KV * (head_dim + 4)
    if KV.strides[1] != head_dim + 4 or KV.strides[3] != 1:
        raise KV.fail(f"must hold each page's rows contiguous (strides "
                      f"[page, {head_dim + 4}, *, 1]), got strides {list(KV.strides)}")
    if blocks > 1 and (KV.strides[0] % 16 or KV.strides[0] < page_bytes):
        raise KV.fail(f"needs a page stride (dim 0) of a multiple of 16 bytes "
                      f"and at least {page_bytes} (a page: {BLOCK_KV} x {head_dim} "
                      f"key bytes and {BLOCK_KV} scales) for TMA, got "
                      f"{KV.strides[0]}")
    W.expect_dtype(torch.float32)
    W.expect_rank(2, "[B * next_n, H]")
    W.expect_shape((batch * next_n, heads), "[B * next_n, H] (q's)")
    W.expect_contiguous("[B * next_n, H]")
    lens = _context_lens(fn, context_lens, batch, next_n)
    BT.expect_dtype(torch.int32)
    BT.expect_rank(2, "[B, max_blocks]")
    if BT.shape[0] != batch:
        raise BT.fail(f"must have shape [B, max_blocks] with B = {batch} (q's), "
                      f"got {list(BT.shape)}")
    if BT.strides[1] != 1 and BT.shape[1] > 1:
        raise BT.fail(f"must have its last dim contiguous, got strides "
                      f"{list(BT.strides)}")
    S.expect_dtype(torch.int32)
    S.expect_rank(2, "[num_sms + 1, 2]")
    if S.shape[0] < 2 or S.shape[1] != 2:
        raise S.fail(f"must have shape [num_sms + 1, 2] (get_paged_mqa_logits_metadata's), "
                     f"got {list(S.shape)}")
    S.expect_contiguous("[num_sms + 1, 2]")
    operands = (Q, KV, W, lens, BT, S)
    device = expect_same_device(operands, allow_cpu=_gemm._runtime.dry_run())

    rows = batch * next_n
    logits = _logits_buffer(rows, max_context_len, logits_dtype, Q.device)
    if rows == 0 or max_context_len == 0:
        return logits
    if blocks == 0:  # no keys in the cache: nothing for the kernel to read
        if clean:
            logits.fill_(float("-inf"))
        return logits
    expect_aligned(operands)
    kernel = _cache.get_kernel(FAMILY, kernel_defines(q, context_lens, clean, logits_dtype),
                               device)
    kernel.set_persistent_limit(_gemm._num_sms_override or 0)
    inputs = (q, kv_cache, weights, context_lens, block_table, schedule_meta, logits)
    # The logits are read per call, not keyed: max_context_len grows each
    # decode step, and the plan serves every length.
    target = _gemm.dispatcher(_dispatcher_key(fn, clean_logits, logits_dtype),
                              len(inputs), keyed=len(inputs) - 1)
    target.add(inputs, kernel, _arg_map(q, kv_cache, context_lens))
    _gemm.launch_recorded(target, inputs, fn)
    return logits

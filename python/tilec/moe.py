"""An expert-parallel FP8 MoE layer (issue 17, items 2-3): a first version
as a sequence of launches over symmetric buffers.

    ws = tilec.moe.MoeWorkspace(hidden, intermediate, experts_local, topk,
                                max_tokens, capacity, group=None)
    out = tilec.moe.fp8_moe_layer(x, x_sf, topk_idx, topk_weights,
                                  w1, w1_sf, w2, w2_sf, group=None,
                                  workspace=ws)            # bf16 [T, H]

out[t] = sum_j topk_weights[t, j] * expert_{topk_idx[t, j]}(x[t]) with
expert_e(x) = L2_e(quant(SwiGLU(L1_e(x)))): L1 an FP8 GEMM with w1[e]
(bf16 out [.., 2I]), SwiGLU(h) = silu(h[:, :I]) * h[:, I:] in f32, quant the
per-token 1x128 FP8 cast of tilec.quant, L2 an FP8 GEMM with w2[e] (bf16
out). x is e4m3 [T, H] with per-token scales [T, H/128]; w1, w2 are this
rank's experts (e4m3 [E_local, 2I, H] and [E_local, H, I]) with 128x128
block scales. Rank `rank` of R owns the global experts
[rank * E_local, (rank + 1) * E_local); topk_idx -1 means no expert
(DeepEP's convention: the pair is skipped and adds 0).

What runs, in order, on torch's current stream:
1. routing metadata in torch (routing_counts, an all-gather of the counts
   over the group, dispatch_layout): each pair (t, j) gets a row of its
   expert's slice of the destination rank's receive buffer; one host sync
   checks the capacity (ValueError naming the workspace);
2. dispatch: the kernel family "moe_scatter_rows" three times (tokens,
   scales, an info row (src rank, t, j, 0) per pair) into the symmetric
   receive buffers of the destination ranks;
3. a barrier between ranks (the symmetric memory handle's; none at world
   size 1 without a group: stream order is enough);
4. L1 and L2 with tilec.deep_gemm.m_grouped_fp8_gemm_nt_masked (masked_m =
   the rows each local expert received), SwiGLU and the FP8 cast between
   them by kernel "moe_swiglu_fp8";
5. combine send: "moe_scatter_rows" writes each received row's expert output
   into row (j, t) of its source rank's symmetric combine buffer;
6. a barrier, then the kernel family "moe_combine": out[t] = sum_j
   weight[t, j] * CBUF[j, t] in f32, in order j = 0, 1, ...

Not fused yet: the goal is one kernel doing the dispatch, both GEMMs and
the combine (no host sync, no torch ops between the launches); this
version is separate launches over the same symmetric buffers, and it has
been run at world size 1 only (bench/moe_check.py); multi-GPU runs are
still to be done.

Symmetric memory (a group given): MoeWorkspace allocates one buffer with
torch.distributed._symmetric_memory.empty and rendezvous over the group.
Before the first such allocation it sets, unless already set,
TORCH_SYMM_MEM_DISABLE_MULTICAST=1, NCCL_NVLS_ENABLE=0 and
NVSHMEM_DISABLE_NVLS=1 (os.environ.setdefault): NVLink multicast is not
used and must stay off on the machines we run on.

dispatch_layout, routing_counts, combine_layout and reference_moe are pure
torch and run on CPU tensors as well (python/tests/test_moe_layout.py).
"""

import math
import os
from typing import NamedTuple, Optional

import torch

from . import quant

SCATTER_FAMILY = "moe_scatter_rows"
COMBINE_FAMILY = "moe_combine"
SWIGLU_FAMILY = "moe_swiglu_fp8"
SYMMETRIC_MEMORY_ENV = (("TORCH_SYMM_MEM_DISABLE_MULTICAST", "1"),
                        ("NCCL_NVLS_ENABLE", "0"),
                        ("NVSHMEM_DISABLE_NVLS", "1"))
# Every view of the workspace's one buffer starts at a multiple of this
# (bytes): the kernels need 16, TMA (the GEMMs read RECV_X) too.
_SEGMENT_ALIGN = 256
_INDEX_DTYPES = (torch.int32, torch.int64)

#===------------------------------------------------------------------------===#
# Argument checks (the style of _checks.py: the function and the argument)
#===------------------------------------------------------------------------===#


def _fail(fn: str, name: str, what: str) -> ValueError:
    return ValueError(f"{fn}: argument '{name}' {what}")


def _positive_int(fn: str, name: str, value, minimum: int = 1) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
        raise _fail(fn, name, f"must be an int >= {minimum}, got {value!r}")
    return value


def _tensor(fn: str, name: str, value) -> torch.Tensor:
    if not isinstance(value, torch.Tensor):
        raise TypeError(f"{fn}: argument '{name}' must be a torch.Tensor, got "
                        f"{type(value).__name__}")
    return value


def _expect(fn: str, name: str, tensor: torch.Tensor, dtypes, shape,
            labels: str) -> None:
    if tensor.dtype not in dtypes:
        names = " or ".join(str(d) for d in dtypes)
        raise _fail(fn, name, f"must have dtype {names}, got {tensor.dtype}")
    if tuple(tensor.shape) != tuple(shape):
        raise _fail(fn, name, f"must have shape {labels} = {list(shape)}, got "
                              f"{list(tensor.shape)}")


def _group_info(fn: str, group):
    """(world size, rank) of `group`; (1, 0) for None."""
    if group is None:
        return 1, 0
    import torch.distributed as dist
    if not dist.is_available() or not dist.is_initialized():
        raise _fail(fn, "group", "needs an initialised torch.distributed "
                                 "(or None for world size 1)")
    if not isinstance(group, dist.ProcessGroup):
        raise TypeError(f"{fn}: argument 'group' must be a torch.distributed "
                        f"ProcessGroup or None, got {type(group).__name__}")
    return dist.get_world_size(group), dist.get_rank(group)


#===------------------------------------------------------------------------===#
# Routing metadata (pure torch, any device)
#===------------------------------------------------------------------------===#


class DispatchLayout(NamedTuple):
    """dispatch_layout's result (tensors on topk_idx's device).

    dst: int32 [R, P], row r: the row of rank r's receive buffer each pair
        goes to (e_l * capacity + slot), -1 where the pair goes elsewhere or
        nowhere (topk_idx -1).
    src: int32 [P], the pair's token (p // TOPK).
    info: int32 [P, 4], (rank, t, j, 0) per pair: what the receiver stores
        beside the row.
    masked_m: int32 [E_local], the rows each of this rank's experts
        receives from all ranks.
    counts: int32 [R, E_local], this rank's pairs per (destination rank,
        local expert).
    max_rows, total_rows: max and sum of masked_m (host ints).
    """
    dst: torch.Tensor
    src: torch.Tensor
    info: torch.Tensor
    masked_m: torch.Tensor
    counts: torch.Tensor
    max_rows: int
    total_rows: int


def _check_topk_idx(fn: str, topk_idx) -> torch.Tensor:
    _tensor(fn, "topk_idx", topk_idx)
    if topk_idx.dtype not in _INDEX_DTYPES:
        raise _fail(fn, "topk_idx", f"must have dtype torch.int32 or torch.int64, "
                                    f"got {topk_idx.dtype}")
    if topk_idx.dim() != 2:
        raise _fail(fn, "topk_idx", f"must be 2-D [T, TOPK], got shape "
                                    f"{list(topk_idx.shape)}")
    return topk_idx


def _pair_keys(topk_idx: torch.Tensor, experts: int):
    """(key [P] int64: the global expert of each pair, `experts` for -1 and
    for ids out of range; a 0-d bool tensor: some id is out of range)."""
    e = topk_idx.reshape(-1).long()
    in_range = (e >= 0) & (e < experts)
    bad = ((e < -1) | (e >= experts)).any()
    return torch.where(in_range, e, torch.full_like(e, experts)), bad


def routing_counts(topk_idx, experts_local: int, world: int,
                   _function: str = "routing_counts") -> torch.Tensor:
    """int32 [world, experts_local]: this rank's pairs per (destination rank,
    local expert); pairs with topk_idx -1 (or out of range: dispatch_layout
    raises for those) are not counted. What ranks all-gather."""
    fn = _function
    _check_topk_idx(fn, topk_idx)
    _positive_int(fn, "experts_local", experts_local)
    _positive_int(fn, "world", world)
    experts = world * experts_local
    key, _ = _pair_keys(topk_idx, experts)
    per_key = torch.bincount(key, minlength=experts + 1)
    return per_key[:experts].view(world, experts_local).to(torch.int32)


def dispatch_layout(topk_idx, experts_local: int, world: int, rank: int,
                    capacity: int, all_counts,
                    _function: str = "dispatch_layout",
                    _capacity_name: str = "capacity") -> DispatchLayout:
    """Where each of this rank's pairs p = t * TOPK + j goes.

    all_counts: integer [world, world, experts_local], routing_counts of
    every rank (row src = rank src's); at world size 1 routing_counts(...)
    [None]. Pair p of expert e (global) goes to rank r = e // experts_local,
    local expert e_l = e % experts_local, slot = (the pairs of ranks before
    this one to (r, e_l)) + (its rank among this rank's pairs to (r, e_l),
    in p order): so the slots of each (r, e_l) are dense, 0 .. masked_m - 1
    over all source ranks, and the same on every rank.

    One host sync: ValueError for ids outside [-1, world * experts_local),
    for all_counts[rank] differing from this rank's counts, and when a local
    expert of this rank receives more than `capacity` rows."""
    fn = _function
    _check_topk_idx(fn, topk_idx)
    experts_local = _positive_int(fn, "experts_local", experts_local)
    world = _positive_int(fn, "world", world)
    if not isinstance(rank, int) or isinstance(rank, bool) or \
            not 0 <= rank < world:
        raise _fail(fn, "rank", f"must be an int in [0, {world}), got {rank!r}")
    capacity = _positive_int(fn, _capacity_name, capacity)
    _tensor(fn, "all_counts", all_counts)
    if all_counts.dtype.is_floating_point or all_counts.dtype.is_complex or \
            all_counts.dtype == torch.bool:
        raise _fail(fn, "all_counts", f"must have an integer dtype, got "
                                      f"{all_counts.dtype}")
    shape = (world, world, experts_local)
    if tuple(all_counts.shape) != shape:
        raise _fail(fn, "all_counts", f"must have shape [world, world, "
                                      f"experts_local] = {list(shape)}, got "
                                      f"{list(all_counts.shape)}")
    if all_counts.device != topk_idx.device:
        raise _fail(fn, "all_counts", f"is on {all_counts.device}, but "
                                      f"'topk_idx' is on {topk_idx.device}")

    device = topk_idx.device
    tokens, topk = topk_idx.shape
    pairs = tokens * topk
    experts = world * experts_local
    key, bad_ids = _pair_keys(topk_idx, experts)
    valid = key < experts
    per_key = torch.bincount(key, minlength=experts + 1)
    counts = per_key[:experts].view(world, experts_local)
    # Each pair's rank among the pairs of its key, in p order (stable sort).
    order = torch.sort(key, stable=True).indices
    position = torch.empty_like(order)
    position[order] = torch.arange(pairs, device=device)
    starts = torch.cumsum(per_key, 0) - per_key
    within = position - starts[key]
    all_counts = all_counts.long()
    bases = (torch.cumsum(all_counts, 0) - all_counts)[rank]    # [R, E_local]
    key_c = key.clamp(max=experts - 1)
    slot = bases.reshape(-1)[key_c] + within
    dst_rank = key_c // experts_local
    row = (key_c % experts_local) * capacity + slot
    dst = torch.full((world, pairs), -1, dtype=torch.int32, device=device)
    # One element per pair (its destination's row, or row 0 for -1 pairs,
    # which gets -1): an index_put with unique indices and no host sync.
    flat = dst_rank * pairs + torch.arange(pairs, device=device)
    dst.view(-1)[flat] = torch.where(valid, row, torch.full_like(row, -1)).to(
        torch.int32)
    p = torch.arange(pairs, device=device, dtype=torch.int32)
    src = torch.div(p, topk, rounding_mode="floor")
    info = torch.stack([torch.full_like(p, rank), src, p - src * topk,
                        torch.zeros_like(p)], dim=1)
    masked_m = all_counts[:, rank, :].sum(0)
    mismatch = (all_counts[rank] != counts).any()
    summary = torch.stack([bad_ids.long(), mismatch.long(), masked_m.max(),
                           masked_m.sum()]).tolist()   # the one host sync
    if summary[0]:
        raise _fail(fn, "topk_idx", f"must hold expert ids in [0, {experts}) "
                                    f"(world * experts_local) or -1")
    if summary[1]:
        raise _fail(fn, "all_counts", f"row {rank} (this rank's) differs from "
                                      f"the counts of 'topk_idx' "
                                      f"(routing_counts)")
    if summary[2] > capacity:
        over = masked_m.tolist()
        worst = max(range(experts_local), key=lambda e: over[e])
        raise _fail(fn, _capacity_name,
                    f"({capacity} rows per local expert) is too small: local "
                    f"expert {worst} of rank {rank} receives {over[worst]} rows "
                    f"from all ranks (rows per local expert: {over})")
    return DispatchLayout(dst, src, info, masked_m.to(torch.int32),
                          counts.to(torch.int32), int(summary[2]),
                          int(summary[3]))


def combine_layout(recv_info, masked_m, capacity: int, world: int,
                   max_tokens: int) -> torch.Tensor:
    """DST2 int32 [world, E_local * capacity] of the combine send: received
    row q (of local expert q // capacity) is valid iff q % capacity <
    masked_m[q // capacity]; its info row (src, t, j, _) sends it to row
    j * max_tokens + t of rank src's combine buffer. -1 elsewhere (rows
    past masked_m hold stale info: never read as an index)."""
    rows = recv_info.shape[0]
    device = recv_info.device
    q = torch.arange(rows, device=device)
    valid = (q % capacity) < masked_m.long()[q // capacity]
    info = recv_info.long()
    src = torch.where(valid, info[:, 0], torch.zeros_like(q)).clamp(0, world - 1)
    target = info[:, 2] * max_tokens + info[:, 1]
    dst2 = torch.full((world, rows), -1, dtype=torch.int32, device=device)
    dst2.view(-1)[src * rows + q] = torch.where(
        valid, target, torch.full_like(target, -1)).to(torch.int32)
    return dst2


#===------------------------------------------------------------------------===#
# The workspace: symmetric buffers
#===------------------------------------------------------------------------===#


def _symmetric_memory():
    for name, value in SYMMETRIC_MEMORY_ENV:
        os.environ.setdefault(name, value)
    import torch.distributed._symmetric_memory as symm_mem
    return symm_mem


class MoeWorkspace:
    """The buffers one fp8_moe_layer call writes across ranks, as views of
    one allocation (symmetric when `group` is given):

        recv_x    int32 [E_local * capacity, H / 4]   (e4m3 tokens)
        recv_sf   int32 [E_local * capacity, H / 128] (their f32 scales)
        recv_info int32 [E_local * capacity, 4]       ((src, t, j, 0) per row)
        cbuf      int32 [topk * max_tokens, H / 2]    (bf16 [topk, T_max, H])
        offs      int64 [R]: rank r's copy minus this rank's, in bytes

    capacity: rows per local expert (the most rows one local expert may
    receive from all ranks in one call); max_tokens: the most tokens per
    rank per call. Both must be the same on every rank. With a group the
    allocation is torch.distributed._symmetric_memory.empty + rendezvous
    (collective: every rank of the group constructs its workspace at the
    same point), after setting TORCH_SYMM_MEM_DISABLE_MULTICAST=1,
    NCCL_NVLS_ENABLE=0 and NVSHMEM_DISABLE_NVLS=1 unless already set.
    Without a group the buffers are plain torch.empty and offs is zeros
    (world size 1); `device` may then be a CPU device (tests)."""

    def __init__(self, hidden: int, intermediate: int, experts_local: int,
                 topk: int, max_tokens: int, capacity: int, group=None,
                 device=None):
        fn = "MoeWorkspace"
        for name, value in (("hidden", hidden), ("intermediate", intermediate)):
            _positive_int(fn, name, value)
            if value % quant.BLOCK_K:
                raise _fail(fn, name, f"must be a multiple of 128 (the FP8 "
                                      f"scale blocks), got {value}")
        self.hidden, self.intermediate = hidden, intermediate
        self.experts_local = _positive_int(fn, "experts_local", experts_local)
        self.topk = _positive_int(fn, "topk", topk)
        self.max_tokens = _positive_int(fn, "max_tokens", max_tokens)
        self.capacity = _positive_int(fn, "capacity", capacity)
        self.group = group
        self.world, self.rank = _group_info(fn, group)
        if device is None:
            device = torch.device("cuda", torch.cuda.current_device())
        self.device = torch.device(device)
        if self.device.type == "cuda" and self.device.index is None:
            self.device = torch.device("cuda", torch.cuda.current_device())
        if group is not None and self.device.type != "cuda":
            raise _fail(fn, "device", f"must be a CUDA device with a group "
                                      f"(symmetric memory), got {self.device}")

        rows = self.experts_local * self.capacity
        # (name, rows, int32 words per row), in buffer order.
        segments = (("recv_x", rows, hidden // 4),
                    ("recv_sf", rows, hidden // quant.BLOCK_K),
                    ("recv_info", rows, 4),
                    ("cbuf", topk * max_tokens, hidden // 2))
        offsets, size = [], 0
        for _, n, words in segments:
            offsets.append(size)
            size = quant.align(size + n * words * 4, _SEGMENT_ALIGN)
        self.nbytes = size
        self.handle = None
        if group is None:
            self.buffer = torch.empty(size, dtype=torch.uint8, device=self.device)
            self.offs = torch.zeros(1, dtype=torch.int64, device=self.device)
        else:
            symm_mem = _symmetric_memory()
            self.buffer = symm_mem.empty(size, dtype=torch.uint8,
                                         device=self.device)
            self.handle = symm_mem.rendezvous(self.buffer, group.group_name)
            ptrs = list(self.handle.buffer_ptrs)
            me = self.handle.rank
            if self.handle.world_size != self.world or me != self.rank:
                raise _fail(fn, "group", f"rank {self.rank} of {self.world}, but "
                                         f"the symmetric memory handle says rank "
                                         f"{me} of {self.handle.world_size}")
            # The buffer's offset within each rank's mapping is the same, so
            # one table serves every view of it.
            delta = self.buffer.data_ptr() - ptrs[me]
            if delta:
                ptrs = [p + delta for p in ptrs]
            self.offs = torch.tensor([p - ptrs[me] for p in ptrs],
                                     dtype=torch.int64, device=self.device)
        for (name, n, words), offset in zip(segments, offsets):
            view = self.buffer[offset:offset + n * words * 4].view(torch.int32)
            setattr(self, name, view.view(n, words))

    @property
    def cbuf_bf16(self) -> torch.Tensor:
        """cbuf as bf16 [topk, max_tokens, H]."""
        return self.cbuf.view(torch.bfloat16).view(self.topk, self.max_tokens,
                                                    self.hidden)

    def barrier(self) -> None:
        """All ranks' launches so far (on the current stream) are done and
        visible before any rank's next ones; nothing at world size 1
        without a group (stream order is enough)."""
        if self.handle is not None:
            self.handle.barrier()

    def __repr__(self) -> str:
        return (f"MoeWorkspace(hidden={self.hidden}, intermediate="
                f"{self.intermediate}, experts_local={self.experts_local}, "
                f"topk={self.topk}, max_tokens={self.max_tokens}, capacity="
                f"{self.capacity}, world={self.world}, rank={self.rank}, "
                f"{self.nbytes} bytes on {self.device})")


#===------------------------------------------------------------------------===#
# The layer
#===------------------------------------------------------------------------===#


def _check_layer(fn, x, x_sf, topk_idx, topk_weights, w1, w1_sf, w2, w2_sf):
    """(T, H, TOPK, E_local, I) after checking every tensor argument."""
    for name, value in (("x", x), ("x_sf", x_sf), ("topk_idx", topk_idx),
                        ("topk_weights", topk_weights), ("w1", w1),
                        ("w1_sf", w1_sf), ("w2", w2), ("w2_sf", w2_sf)):
        _tensor(fn, name, value)
    fp8, f32 = (torch.float8_e4m3fn,), (torch.float32,)
    if x.dim() != 2:
        raise _fail(fn, "x", f"must be 2-D [T, H], got shape {list(x.shape)}")
    tokens, hidden = x.shape
    if hidden == 0 or hidden % quant.BLOCK_K:
        raise _fail(fn, "x", f"must have H a multiple of 128, got H = {hidden}")
    _expect(fn, "x", x, fp8, (tokens, hidden), "[T, H]")
    _expect(fn, "x_sf", x_sf, f32, (tokens, hidden // 128), "[T, H / 128]")
    _check_topk_idx(fn, topk_idx)
    topk = topk_idx.shape[1]
    _expect(fn, "topk_idx", topk_idx, _INDEX_DTYPES, (tokens, topk), "[T, TOPK]")
    if topk == 0:
        raise _fail(fn, "topk_idx", "must have TOPK > 0")
    _expect(fn, "topk_weights", topk_weights, f32, (tokens, topk), "[T, TOPK]")
    if w1.dim() != 3:
        raise _fail(fn, "w1", f"must be 3-D [E_local, 2I, H], got shape "
                              f"{list(w1.shape)}")
    experts_local, two_i = w1.shape[:2]
    inter = two_i // 2
    if experts_local == 0 or inter == 0 or two_i % 256:
        raise _fail(fn, "w1", f"must be [E_local, 2I, H] with E_local > 0 and I "
                              f"a multiple of 128, got shape {list(w1.shape)}")
    _expect(fn, "w1", w1, fp8, (experts_local, two_i, hidden),
            "[E_local, 2I, H] (H = x's)")
    _expect(fn, "w1_sf", w1_sf, f32, (experts_local, two_i // 128, hidden // 128),
            "[E_local, 2I / 128, H / 128]")
    _expect(fn, "w2", w2, fp8, (experts_local, hidden, inter),
            "[E_local, H, I] (w1's E_local and I)")
    _expect(fn, "w2_sf", w2_sf, f32, (experts_local, hidden // 128, inter // 128),
            "[E_local, H / 128, I / 128]")
    for name, t in (("x", x), ("topk_idx", topk_idx), ("w1", w1), ("w2", w2)):
        if not t.is_contiguous():
            raise _fail(fn, name, f"must be contiguous, got strides "
                                  f"{list(t.stride())}")
    from . import _runtime
    dry = _runtime.dry_run()
    for name, t in (("x", x), ("x_sf", x_sf), ("topk_idx", topk_idx),
                    ("topk_weights", topk_weights), ("w1", w1),
                    ("w1_sf", w1_sf), ("w2", w2), ("w2_sf", w2_sf)):
        if t.device.type != "cuda" and not (dry and t.device.type == "cpu"):
            raise _fail(fn, name, f"must be a CUDA tensor, got a tensor on "
                                  f"{t.device}")
        if t.device != x.device:
            raise _fail(fn, name, f"is on {t.device}, but 'x' is on {x.device}: "
                                  f"all tensors must be on one device")
    return tokens, hidden, topk, experts_local, inter


def _check_workspace(fn, ws, hidden, inter, experts_local, topk, tokens,
                     world, rank, group, device):
    if not isinstance(ws, MoeWorkspace):
        raise TypeError(f"{fn}: argument 'workspace' must be a "
                        f"tilec.moe.MoeWorkspace or None, got "
                        f"{type(ws).__name__}")
    want = (("hidden", hidden, "x's H"), ("intermediate", inter, "w1's I"),
            ("experts_local", experts_local, "w1's E_local"),
            ("topk", topk, "topk_idx's TOPK"))
    for attr, value, what in want:
        if getattr(ws, attr) != value:
            raise _fail(fn, "workspace", f"has {attr} = {getattr(ws, attr)}, "
                                         f"the call needs {value} ({what})")
    if tokens > ws.max_tokens:
        raise _fail(fn, "workspace", f"holds at most max_tokens = "
                                     f"{ws.max_tokens} tokens, got T = {tokens}")
    if ws.group is not group:
        raise _fail(fn, "workspace", "was made for another group (pass the "
                                     "same group to MoeWorkspace and the layer)")
    if (ws.world, ws.rank) != (world, rank):
        raise _fail(fn, "workspace", f"is rank {ws.rank} of {ws.world}, the "
                                     f"group says {rank} of {world}")
    if ws.device != device:
        raise _fail(fn, "workspace", f"is on {ws.device}, but 'x' is on {device}")


def fp8_moe_layer(x, x_sf, topk_idx, topk_weights, w1, w1_sf, w2, w2_sf,
                  group=None, workspace: Optional[MoeWorkspace] = None,
                  out: Optional[torch.Tensor] = None) -> torch.Tensor:
    """bf16 [T, H]: out[t] = sum_j topk_weights[t, j] *
    expert_{topk_idx[t, j]}(x[t]) over this rank's tokens, the experts
    living on the ranks of `group` (None: world size 1, all experts here).
    See the module's docstring for the steps and the tensor layouts.

    workspace: a MoeWorkspace of this group (required with a group; without
    one, a workspace just large enough is made for this call). out: an
    optional bf16 [T, H] contiguous tensor to write (else a new one).
    With a group, every rank must call it (with T >= 0) at the same point:
    it all-gathers the counts and waits at two barriers."""
    fn = "fp8_moe_layer"
    tokens, hidden, topk, experts_local, inter = _check_layer(
        fn, x, x_sf, topk_idx, topk_weights, w1, w1_sf, w2, w2_sf)
    world, rank = _group_info(fn, group)
    device = x.device
    if out is not None:
        _tensor(fn, "out", out)
        _expect(fn, "out", out, (torch.bfloat16,), (tokens, hidden), "[T, H]")
        if not out.is_contiguous() or out.device != device:
            raise _fail(fn, "out", f"must be contiguous and on {device}")
    else:
        out = torch.empty(tokens, hidden, dtype=torch.bfloat16, device=device)

    counts = routing_counts(topk_idx, experts_local, world, _function=fn)
    if group is None:
        all_counts = counts[None]
    else:
        all_counts = _all_gather_counts(counts, group, world)
    if workspace is None:
        if group is not None:
            raise _fail(fn, "workspace", "must be a MoeWorkspace of the group "
                                         "when a group is given (its symmetric "
                                         "allocation is collective)")
        need = int(all_counts[:, rank].sum(0).max()) if tokens else 0
        workspace = MoeWorkspace(hidden, inter, experts_local, topk,
                                 max(tokens, 1), max(need, 1), device=device)
    ws = workspace
    _check_workspace(fn, ws, hidden, inter, experts_local, topk, tokens, world,
                     rank, group, device)
    layout = dispatch_layout(topk_idx, experts_local, world, rank, ws.capacity,
                             all_counts, _function=fn,
                             _capacity_name="workspace")

    from . import _cache
    from .deep_gemm import m_grouped_fp8_gemm_nt_masked
    index = device.index if device.type == "cuda" else None
    scatter = _cache.get_kernel(SCATTER_FAMILY, (), index)
    combine = _cache.get_kernel(COMBINE_FAMILY, (), index)
    swiglu = _cache.get_kernel(SWIGLU_FAMILY, (), index)
    cap, t_max = ws.capacity, ws.max_tokens
    rows = experts_local * cap
    pairs = tokens * topk

    # 1-2: zero this rank's combine rows, then dispatch.
    cbuf = ws.cbuf_bf16
    cbuf[:, :tokens].zero_()
    if pairs:
        x_words = x.view(torch.int32)                       # [T, H / 4]
        sf_words = x_sf.contiguous().view(torch.int32)      # [T, H / 128]
        scatter.launch([x_words, layout.src, layout.dst, ws.recv_x, ws.offs])
        scatter.launch([sf_words, layout.src, layout.dst, ws.recv_sf, ws.offs])
        scatter.launch([layout.info, torch.arange(pairs, dtype=torch.int32,
                                                  device=device),
                        layout.dst, ws.recv_info, ws.offs])
    # 3
    ws.barrier()
    # 4: L1, SwiGLU + FP8 cast, L2 over the rows received.
    y = torch.empty(experts_local, cap, hidden, dtype=torch.bfloat16,
                    device=device)
    m = layout.max_rows
    if m:
        expected_m = max(1, math.ceil(layout.total_rows / experts_local))
        recv_x = ws.recv_x.view(torch.float8_e4m3fn).view(experts_local, cap,
                                                          hidden)
        recv_sf = ws.recv_sf.view(torch.float32).view(experts_local, cap,
                                                      hidden // 128)
        h = torch.empty(experts_local, cap, 2 * inter, dtype=torch.bfloat16,
                        device=device)
        m_grouped_fp8_gemm_nt_masked((recv_x, recv_sf), (w1, w1_sf), h,
                                     layout.masked_m, expected_m)
        act, act_sf = _swiglu_fp8(swiglu, h, layout.masked_m, inter)
        m_grouped_fp8_gemm_nt_masked((act, act_sf), (w2, w2_sf), y,
                                     layout.masked_m, expected_m)
        # 5: each received row back to row (j, t) of its source's buffer.
        dst2 = combine_layout(ws.recv_info, layout.masked_m, cap, world, t_max)
        scatter.launch([y.view(torch.int32).view(rows, hidden // 2),
                        torch.arange(rows, dtype=torch.int32, device=device),
                        dst2, ws.cbuf, ws.offs])
    # 6
    ws.barrier()
    if tokens:
        weights = torch.where(topk_idx >= 0, topk_weights,
                              torch.zeros_like(topk_weights))
        combine.launch([cbuf, weights.t().contiguous(), out])
    return out


def _all_gather_counts(counts: torch.Tensor, group, world: int) -> torch.Tensor:
    """Every rank's routing counts, int32 [R, R, E_local] on counts' device.
    Gloo (several ranks on one GPU: NCCL refuses two ranks per device)
    gathers CPU tensors; other backends gather on the device."""
    import torch.distributed as dist
    if dist.get_backend(group) == "gloo":
        parts = [torch.empty_like(counts, device="cpu") for _ in range(world)]
        dist.all_gather(parts, counts.cpu(), group=group)
        return torch.stack(parts).to(counts.device)
    gathered = torch.empty((world,) + tuple(counts.shape), dtype=counts.dtype,
                           device=counts.device)
    dist.all_gather_into_tensor(gathered, counts, group=group)
    return gathered


def _swiglu_fp8(kernel, h: torch.Tensor, masked_m: torch.Tensor, inter: int):
    """SwiGLU of h [G, CAP, 2I] bf16 and the per-token FP8 cast of the
    result, by kernel moe_swiglu_fp8 over the rows masked_m counts: (e4m3
    [G, CAP, I], f32 scales [G, CAP, I / 128] in the MN-major TMA-aligned
    layout the grouped GEMM reads as it is). Rows past masked_m are
    don't-care."""
    groups, cap, _ = h.shape
    out = torch.empty(groups, cap, inter, dtype=torch.float8_e4m3fn,
                      device=h.device)
    storage = torch.empty(groups, inter // quant.BLOCK_K, quant.align(cap, 4),
                          dtype=torch.float32, device=h.device)
    kernel.launch([h, masked_m, out, storage])
    return out, storage[..., :cap].transpose(-1, -2)     # [G, CAP, KB]


def _swiglu(h: torch.Tensor, inter: int) -> torch.Tensor:
    return torch.nn.functional.silu(h[..., :inter]) * h[..., inter:]


#===------------------------------------------------------------------------===#
# The reference
#===------------------------------------------------------------------------===#


def reference_moe(x, x_sf, topk_idx, topk_weights, w1, w1_sf, w2, w2_sf,
                  l1_bf16: bool = True) -> torch.Tensor:
    """f32 [T, H]: the layer in torch on the dequantised inputs, all experts
    local (w1 [E, 2I, H] etc. with E the global expert count).

    Per pair: h = x_deq[t] @ w1_deq[e]^T in f32 (rounded to bf16 when
    l1_bf16, as the layer stores L1's output), SwiGLU in f32, the per-token
    FP8 cast of tilec.quant (as the layer) dequantised, y = that @
    w2_deq[e]^T rounded to bf16 (the layer's L2 output), out[t] += weight *
    y in f32. Pairs with topk_idx -1 add nothing."""
    fn = "reference_moe"
    for name, value in (("x", x), ("x_sf", x_sf), ("topk_idx", topk_idx),
                        ("topk_weights", topk_weights), ("w1", w1),
                        ("w1_sf", w1_sf), ("w2", w2), ("w2_sf", w2_sf)):
        _tensor(fn, name, value)
    _check_topk_idx(fn, topk_idx)
    tokens, hidden = x.shape
    experts, two_i, _ = w1.shape
    inter = two_i // 2
    if bool(((topk_idx < -1) | (topk_idx >= experts)).any()):
        raise _fail(fn, "topk_idx", f"must hold expert ids in [0, {experts}) "
                                    f"(w1's experts) or -1")
    xd = quant.dequantize_per_token(x, x_sf)
    out = torch.zeros(tokens, hidden, dtype=torch.float32, device=x.device)
    for e in range(experts):
        t, j = torch.nonzero(topk_idx == e, as_tuple=True)
        if t.numel() == 0:
            continue
        w1d = quant.dequantize_per_block(w1[e], w1_sf[e])
        h = xd[t] @ w1d.t()
        if l1_bf16:
            h = h.to(torch.bfloat16).float()
        act = _swiglu(h, inter)
        q, sf = quant.per_token_cast_to_fp8(act)
        w2d = quant.dequantize_per_block(w2[e], w2_sf[e])
        y = (quant.dequantize_per_token(q, sf) @ w2d.t()).to(torch.bfloat16)
        out.index_add_(0, t, topk_weights[t, j].float()[:, None] * y.float())
    return out

"""MQA logits on torch tensors (DeepGEMM's fp8_mqa_logits and
fp8_fp4_mqa_logits on SM90): checks, the output's layout, launch.

For query i and key j in i's window [ks[i], ke[i]):
    logits[i, j] = sum_h weights[i, h] * relu(q[i, h] . kv[j]) * kv_sf[j]
with q e4m3 [SQ, H, D], kv e4m3 [SKV, D], kv_sf float32 [SKV], weights
float32 [SQ, H], ks / ke int32 [SQ]. The kernel is lib/Kernels/mqa_logits.tile;
its params are the problem's own (heads, head dim, logits dtype, the two
flags), so there is nothing to choose and no config table.

The output is DeepGEMM's: a view [SQ, SKV] (or [SQ, max_seqlen_k] when
compressed) of a buffer whose rows are padded to a whole query block and
whose row stride is a multiple of 1024 bytes with a key block to spare, so
the kernel's last key block writes inside it. clean_logits=True writes -inf
outside each window in the same kernel (DeepGEMM runs a second one).
"""

import torch

from . import _cache, _gemm
from ._checks import Operand, expect_aligned, expect_bool, expect_same_device
from .quant import align

FAMILY = "mqa_logits"
# Keys per block (the spec's BLOCK_KV: 64 per math warpgroup) and the query
# rows of a block (128 = BLOCK_Q * heads), as DeepGEMM's SM90 kernel.
BLOCK_KV = 256
BLOCK_QH = 128
_OUT = {torch.float32: "f32", torch.bfloat16: "bf16"}


def _no_fp4(fn: str, q_sf, what: str) -> None:
    if q_sf is not None:
        raise NotImplementedError(
            f"{fn}: argument 'q' holds FP4 data with scales: FP4 {what} "
            f"are DeepGEMM's SM100 kernel; tilec has FP8 (q_sf None) on sm_90a")


def _logits_dtype(fn: str, logits_dtype) -> None:
    if logits_dtype not in _OUT:
        raise ValueError(f"{fn}: argument 'logits_dtype' must be torch.float32 "
                         f"or torch.bfloat16, got {logits_dtype!r}")


def mqa_logits(fn: str, q, q_sf, kv_pair, weights, ks, ke, clean_logits,
               max_seqlen_k, logits_dtype) -> torch.Tensor:
    """Checks every argument (ValueError naming it), allocates the logits
    and launches the kernel."""
    _no_fp4(fn, q_sf, "MQA logits")
    if not isinstance(kv_pair, (tuple, list)) or len(kv_pair) != 2:
        raise ValueError(f"{fn}: argument 'kv' must be a pair (kv e4m3 [SKV, D], "
                         f"kv_sf float32 [SKV]), got {type(kv_pair).__name__}")
    clean = expect_bool(fn, "clean_logits", clean_logits)
    if not isinstance(max_seqlen_k, int) or isinstance(max_seqlen_k, bool) \
            or max_seqlen_k < 0:
        raise ValueError(f"{fn}: argument 'max_seqlen_k' must be an int >= 0 "
                         f"(0: logits [SQ, SKV]), got {max_seqlen_k!r}")
    compressed = max_seqlen_k > 0
    if compressed and clean:
        raise ValueError(f"{fn}: argument 'clean_logits' must be False with "
                         f"max_seqlen_k > 0 (compressed logits hold only the "
                         f"windows; DeepGEMM's rule)")
    _logits_dtype(fn, logits_dtype)
    Q = Operand(fn, "q", q)
    KV = Operand(fn, "kv", kv_pair[0])
    KVS = Operand(fn, "kv", kv_pair[1])
    KVS.name = "kv[1] (kv_sf)"
    W = Operand(fn, "weights", weights)
    KS = Operand(fn, "cu_seq_len_k_start", ks)
    KE = Operand(fn, "cu_seq_len_k_end", ke)
    Q.expect_dtype(torch.float8_e4m3fn)
    Q.expect_rank(3, "[SQ, H, D]")
    seq_len, heads, head_dim = Q.shape
    if heads not in (32, 64):
        raise Q.fail(f"must have 32 or 64 heads (DeepGEMM's SM90 head counts), "
                     f"got {heads}")
    if head_dim not in (32, 64, 128):
        raise Q.fail(f"must have a head dim of 32, 64 or 128, got {head_dim}")
    Q.expect_contiguous("[SQ, H, D]")
    KV.expect_dtype(torch.float8_e4m3fn)
    KV.expect_rank(2, "[SKV, D]")
    seq_len_kv = KV.shape[0]
    KV.expect_shape((seq_len_kv, head_dim), f"[SKV, D] with D = {head_dim} (q's)")
    KV.expect_contiguous("[SKV, D]")
    KVS.expect_dtype(torch.float32)
    KVS.expect_rank(1, "[SKV]")
    KVS.expect_shape((seq_len_kv,), "[SKV] (kv's rows)")
    KVS.expect_contiguous("[SKV]")
    W.expect_dtype(torch.float32)
    W.expect_rank(2, "[SQ, H]")
    W.expect_shape((seq_len, heads), "[SQ, H] (q's)")
    if W.strides[1] != 1 and heads > 1:
        raise W.fail(f"must have its last dim contiguous, got strides "
                     f"{list(W.strides)}")
    W.expect_tma_rows(1)
    for op, name in ((KS, "start"), (KE, "end")):
        op.expect_dtype(torch.int32)
        op.expect_rank(1, "[SQ]")
        op.expect_shape((seq_len,), "[SQ] (q's tokens)")
        op.expect_contiguous("[SQ]")
    operands = (Q, KV, KVS, W, KS, KE)
    device = expect_same_device(operands, allow_cpu=_gemm._runtime.dry_run())

    block_q = BLOCK_QH // heads
    stride_align = 1024 // torch.empty((), dtype=logits_dtype).element_size()
    if compressed:
        stride = align(align(max_seqlen_k, BLOCK_KV), stride_align)
        columns = max_seqlen_k
    else:
        stride = align(seq_len_kv + BLOCK_KV, stride_align)
        columns = seq_len_kv
    buffer = torch.empty((align(seq_len, block_q), stride), dtype=logits_dtype,
                         device=Q.device)
    logits = buffer[:seq_len, :columns]
    if seq_len == 0 or columns == 0:
        return logits
    if seq_len_kv == 0:  # no keys: every logit is outside its window
        if clean:
            logits.fill_(float("-inf"))
        return logits
    expect_aligned(operands)
    defines = (("BLOCK_KV", str(BLOCK_KV)), ("CLEAN", str(int(clean))),
               ("COMPRESSED", str(int(compressed))), ("HEADS", str(heads)),
               ("HEAD_DIM", str(head_dim)), ("OUT", _OUT[logits_dtype]))
    kernel = _cache.get_kernel(FAMILY, defines, device)
    kernel.set_persistent_limit(_gemm._num_sms_override or 0)
    # The weights as one row per query block (the kernel loads a block's in
    # one copy): a view when they are contiguous and fill whole blocks,
    # else a zero-padded copy.
    blocks = (seq_len + block_q - 1) // block_q
    if seq_len % block_q == 0 and weights.is_contiguous():
        block_weights = weights.view(blocks, block_q * heads)
    else:
        block_weights = torch.zeros(blocks * block_q, heads, dtype=torch.float32,
                                    device=weights.device)
        block_weights[:seq_len].copy_(weights)
        block_weights = block_weights.view(blocks, block_q * heads)
    kernel.launch([q.view(seq_len * heads, head_dim), kv_pair[0],
                   kv_pair[1].view(1, seq_len_kv), block_weights, ks, ke, buffer])
    return logits

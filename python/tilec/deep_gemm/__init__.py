"""DeepGEMM's Python API on tilec's kernels: change `import deep_gemm` to
`import tilec.deep_gemm as deep_gemm`.

Same names, argument order, defaults and tensor layouts as DeepGEMM
(deep_gemm/__init__.py, csrc/apis/*.hpp) for what tilec implements:

- bf16_gemm_nt/nn/tn/tt(a, b, d, c=None, compiled_dims=...): D = A B^T with
  DeepGEMM's layouts ('nt': A [M, K], B [N, K]; 'n' first / 't' second mean
  the operand is given transposed). tilec's BF16 kernels read A K-major and
  B either way, write bf16, and do not accumulate: MN-major A, a float32 d
  and c raise NotImplementedError naming the argument.
- fp8_gemm_nt((a, sfa), (b, sfb), d, c=None, recipe=None, ...) and its newer
  name fp8_fp4_gemm_nt (and the nn/tn/tt forms): e4m3 operands K-major, SFA
  float32 [M, ceil(K/128)] (any layout; the MN-major TMA-aligned one is used
  as it is, others are copied into it, as DeepGEMM does), SFB [ceil(N/128),
  ceil(K/128)] (1D2D, recipe (1, 128, 128), the default) or [N, ceil(K/128)]
  (1D1D, recipe (1, 1, 128)); c accumulates into a float32 d;
  fp8_gemm_nt_skip_head_mid(a, b, d, head_splits) with DeepGEMM's
  head-split epilogue (1D2D).
- the M-grouped GEMMs (m_grouped_*_contiguous, _masked; BF16 and FP8
  1D2D) and the K-grouped ones (k_grouped_fp8_gemm_nt_contiguous,
  k_grouped_bf16_gemm_tn_contiguous: d[g] = c[g] + group g's product, one
  dense launch per non-empty group; the FP8 tn form is SM100's and raises).
- the MQA logits of DeepSeek's lightning indexer: fp8_fp4_mqa_logits and
  fp8_mqa_logits (prefill), and the paged decode form
  (get_paged_mqa_logits_metadata, fp8_fp4_paged_mqa_logits,
  fp8_paged_mqa_logits); FP4 and varlen indices are SM100's and raise.
- cublaslt_gemm_nt/nn/tn/tt through torch, set_num_sms / get_num_sms, the
  layout helpers and casts (tilec.deep_gemm.utils, also re-exported here)
  and tilec.deep_gemm.testing.

Everything else DeepGEMM exports raises NotImplementedError naming it.
Wrong shapes, dtypes, strides, alignment or devices raise ValueError naming
the argument and the expected value, before any launch.
"""

import torch

from .. import _einsum, _gemm, _kgrouped, _mqa, _ops, _paged_mqa
from .. import _grouped as _grouped_impl
from . import testing, utils
from .utils import *  # noqa: F401,F403 (DeepGEMM re-exports its utils)
from .utils import _not_implemented

__version__ = "2.6.1+tilec"  # the DeepGEMM API version mirrored

# Under torch.compile the functions trace into tilec's custom ops; the
# cheaper of torch's two flags is enough to keep dynamo off the fast path.
_is_compiling = getattr(torch.compiler, "is_dynamo_compiling",
                        torch.compiler.is_compiling)
_fast = _gemm.fast_dispatcher

#===------------------------------------------------------------------------===#
# Runtime settings
#===------------------------------------------------------------------------===#


def set_num_sms(new_num_sms: int) -> None:
    """The SM count tilec's kernels use: the configs plan for it and the
    persistent grids launch at most that many CTAs (whole clusters), leaving
    the other SMs to other work."""
    _gemm.set_num_sms(new_num_sms)


def get_num_sms() -> int:
    return _gemm.get_num_sms()


def set_ignore_compile_dims(new_value: bool) -> None:
    """Accepted: tilec's kernels take every dim at run time already."""
    if not isinstance(new_value, bool):
        raise ValueError(f"set_ignore_compile_dims: argument 'new_value' must "
                         f"be a bool, got {new_value!r}")


set_tc_util = _not_implemented("set_tc_util")
get_tc_util = _not_implemented("get_tc_util")
set_block_size_multiple_of = _not_implemented("set_block_size_multiple_of")
set_pdl = _not_implemented("set_pdl")
get_pdl = _not_implemented("get_pdl")

#===------------------------------------------------------------------------===#
# BF16 GEMMs. Each tries the dispatcher's fast path first (tensors seen
# before, c None or d itself, not traced); the first call of a signature,
# another c and tracing go through tilec._gemm.
#===------------------------------------------------------------------------===#


def _default_dispatchers(kind: str, layout: str, default_dims: str):
    """(lookup(accumulate) -> the dispatcher of the default options or None):
    found once, then held, so that a default call builds no key."""
    keys = [_gemm.bf16_key(layout, default_dims, acc) if kind == "bf16" else
            _gemm.fp8_key(layout, None, None, None, default_dims, acc)
            for acc in (False, True)]
    held = [None, None]

    def lookup(accumulate: bool):
        found = held[accumulate]
        if found is None:
            found = held[accumulate] = _gemm._dispatchers.get(keys[accumulate])
        return found
    return lookup


def _bf16_entry(layout: str, default_dims: str):
    defaults = _default_dispatchers("bf16", layout, default_dims)

    def gemm(a, b, d, c=None, compiled_dims=default_dims):
        if (c is None or c is d) and not _is_compiling():
            fast = (defaults(c is not None) if compiled_dims == default_dims else
                    _fast(_gemm.bf16_key(layout, compiled_dims, c is not None)))
            if fast is not None and fast.launch(a, b, d):
                return
        _gemm.bf16_gemm(a, b, d, c, layout, compiled_dims)
    gemm.__name__ = gemm.__qualname__ = f"bf16_gemm_{layout}"
    return gemm


#===------------------------------------------------------------------------===#
# FP8 GEMMs (sm_90a: float32 scale factors, K-major operands)
#===------------------------------------------------------------------------===#


def _fp8_entry(layout: str, default_dims: str):
    defaults = _default_dispatchers("fp8", layout, default_dims)

    def gemm(a, b, d, c=None, recipe=None, recipe_a=None, recipe_b=None,
             compiled_dims=default_dims, disable_ue8m0_cast=False):
        if (c is None or c is d) and not _is_compiling():
            if (recipe is None and recipe_a is None and recipe_b is None
                    and compiled_dims == default_dims):
                fast = defaults(c is not None)
            else:
                fast = _fast(_gemm.fp8_key(layout, recipe, recipe_a, recipe_b,
                                           compiled_dims, c is not None))
            if fast is not None and fast.launch(a[0], b[0], d, a[1], b[1]):
                return
        _gemm.fp8_gemm(a, b, d, c, recipe, recipe_a, recipe_b, compiled_dims,
                       disable_ue8m0_cast, layout, "fp8_fp4_gemm")
    gemm.__name__ = gemm.__qualname__ = f"fp8_fp4_gemm_{layout}"
    return gemm


def fp8_gemm_nt_skip_head_mid(a, b, d, head_splits, recipe=None,
                              compiled_dims="nk", disable_ue8m0_cast=False):
    """DeepGEMM's fp8_gemm_nt with its head-split epilogue: d is [M, N + N /
    (left + right) * mid] and each head's left + right product columns go
    to its first left and last right columns; the mid ones are untouched.
    1D2D only (DeepGEMM's SM90 form); left and right multiples of 16."""
    _gemm.fp8_skip_head_mid(a, b, d, head_splits, recipe, compiled_dims)


# Each layout with DeepGEMM's default compiled_dims; fp8_gemm_* is
# DeepGEMM's older name of fp8_fp4_gemm_*.
for _layout, _dims in (("nt", "nk"), ("nn", "nk"), ("tn", "mn"), ("tt", "mn")):
    globals()[f"bf16_gemm_{_layout}"] = _bf16_entry(_layout, _dims)
    globals()[f"fp8_fp4_gemm_{_layout}"] = _fp8_entry(_layout, _dims)
    globals()[f"fp8_gemm_{_layout}"] = globals()[f"fp8_fp4_gemm_{_layout}"]
del _layout, _dims

#===------------------------------------------------------------------------===#
# M-grouped GEMMs (mixture of experts): DeepGEMM's contiguous layouts
# (grouped_layout per row, or psum: one end row per group) and the masked
# layout; tilec._grouped has the checks and the layouts.
#===------------------------------------------------------------------------===#


def _m_grouped(call: "_grouped_impl.Call") -> None:
    """The fast path (the plan of these tensors and options), the custom op
    when traced, or the slow path (checks, config, kernel, a plan)."""
    key = call.key()
    tensors = call.tensors()
    if not _is_compiling():
        fast = _fast(key)
        if fast is not None and fast.launch(*tensors):
            return
    if _gemm.tracing(*tensors):
        return _ops.m_grouped_gemm_op(call)
    _grouped_impl.launch(call.plan(), key)


def m_grouped_fp8_fp4_gemm_nt_contiguous(
        a, b, d, grouped_layout, recipe=None, recipe_a=None, recipe_b=None,
        compiled_dims="nk", disable_ue8m0_cast=False, use_psum_layout=False,
        ensure_zero_padding=True, expected_m_for_psum_layout=None,
        _function="m_grouped_fp8_fp4_gemm_nt_contiguous"):
    """D [M, N] = A B[group of each row]^T; a = (e4m3 [M, K], f32 SFA
    [M, ceil(K/128)]), b = (e4m3 [G, N, K], f32 SFB [G, ceil(N/128),
    ceil(K/128)]). ensure_zero_padding is SM100's (accepted, no effect)."""
    a0, a1 = _gemm._pair(_function, "a", a)
    b0, b1 = _gemm._pair(_function, "b", b)
    _m_grouped(_grouped_impl.Call(
        _function, "fp8", "contiguous", a0, a1, b0, b1, d, grouped_layout,
        recipe, recipe_a, recipe_b, compiled_dims, use_psum_layout,
        expected_m_for_psum_layout))


def m_grouped_fp8_fp4_gemm_nn_contiguous(
        a, b, d, grouped_layout, recipe=None, recipe_a=None, recipe_b=None,
        compiled_dims="nk", disable_ue8m0_cast=False, use_psum_layout=False,
        ensure_zero_padding=True):
    """The nt form with b = (B, SFB) given as [G, K, N] (DeepGEMM transposes
    it back; sm_90a's FP8 kernels need it K-major)."""
    b0, b1 = _gemm._pair("m_grouped_fp8_fp4_gemm_nn_contiguous", "b", b)
    m_grouped_fp8_fp4_gemm_nt_contiguous(
        a, (b0.transpose(1, 2), b1.transpose(1, 2)), d, grouped_layout, recipe,
        recipe_a, recipe_b, compiled_dims, disable_ue8m0_cast, use_psum_layout,
        ensure_zero_padding, _function="m_grouped_fp8_fp4_gemm_nn_contiguous")


def m_grouped_fp8_fp4_gemm_nt_masked(
        a, b, d, masked_m, expected_m, recipe=None, recipe_a=None,
        recipe_b=None, compiled_dims="nk", disable_ue8m0_cast=False):
    """D [G, MAX_M, N]: group g's first masked_m[g] rows = A[g] B[g]^T;
    a = (e4m3 [G, MAX_M, K], f32 SFA [G, MAX_M, ceil(K/128)]), b as for the
    contiguous form. masked_m is read on the GPU (CUDA graphs may replay the
    call with other counts); expected_m is the config's hint."""
    function = "m_grouped_fp8_fp4_gemm_nt_masked"
    a0, a1 = _gemm._pair(function, "a", a)
    b0, b1 = _gemm._pair(function, "b", b)
    _m_grouped(_grouped_impl.Call(
        function, "fp8", "masked", a0, a1, b0, b1, d, masked_m, recipe,
        recipe_a, recipe_b, compiled_dims, expected_m=expected_m))


def m_grouped_bf16_gemm_nt_contiguous(
        a, b, d, grouped_layout, compiled_dims="nk", use_psum_layout=False,
        ensure_zero_padding=True, expected_m_for_psum_layout=None,
        _function="m_grouped_bf16_gemm_nt_contiguous"):
    """D [M, N] = A B[group of each row]^T; a bf16 [M, K], b [G, N, K]
    (K-major, or MN-major: the nn kernel)."""
    _m_grouped(_grouped_impl.Call(
        _function, "bf16", "contiguous", a, None, b, None, d, grouped_layout,
        compiled_dims=compiled_dims, use_psum_layout=use_psum_layout,
        expected_m_for_psum_layout=expected_m_for_psum_layout))


def m_grouped_bf16_gemm_nn_contiguous(a, b, d, grouped_layout,
                                      compiled_dims="nk", use_psum_layout=False,
                                      ensure_zero_padding=True):
    """The nt form with b given as [G, K, N] (transposed back)."""
    m_grouped_bf16_gemm_nt_contiguous(
        a, b.transpose(1, 2) if isinstance(b, torch.Tensor) else b, d,
        grouped_layout, compiled_dims, use_psum_layout, ensure_zero_padding,
        _function="m_grouped_bf16_gemm_nn_contiguous")


def m_grouped_bf16_gemm_nt_masked(a, b, d, masked_m, expected_m,
                                  compiled_dims="nk"):
    """D [G, MAX_M, N]: group g's first masked_m[g] rows = A[g] B[g]^T."""
    _m_grouped(_grouped_impl.Call(
        "m_grouped_bf16_gemm_nt_masked", "bf16", "masked", a, None, b, None, d,
        masked_m, compiled_dims=compiled_dims, expected_m=expected_m))


def einsum(expr, a, b, d, c=None, use_cublaslt=False):
    """DeepGEMM's BF16 einsum: 'bhr,hdr->bhd' and 'bhd,hdr->bhr', batched
    over the head dim h on the masked M-grouped kernel (every group full,
    strided views of a and d, nothing copied), and 'bmk,bnk->mn', the sum
    over the batch (bf16_bmk_bnk_mn.tile); use_cublaslt=True runs
    torch.einsum, DeepGEMM's baseline (tilec._einsum)."""
    fn = "einsum"
    expr, A, B, D = _einsum.check(fn, expr, a, b, d, c, use_cublaslt)
    if use_cublaslt:
        d.copy_(torch.einsum(expr, a, b))
        return
    if expr == "bmk,bnk->mn":
        _einsum.sum_over_batch(fn, A, B, D)
        return
    a_g, b_g, d_g, counts, rows = _einsum.grouped_views(expr, a, b, d)
    _m_grouped(_grouped_impl.Call(fn, "bf16", "masked", a_g, None, b_g, None, d_g,
                                  counts, expected_m=rows))


def fp8_einsum(expr, a, b, d, c=None, recipe=(1, 128, 128)):
    """DeepGEMM's FP8 einsum on sm_90a: 'bhr,hdr->bhd' with a = (x, sfx)
    scaled per token and 128 R, b = (y, sfy) per 128 x 128 block, batched
    over h on the masked M-grouped FP8 kernel (full groups, transposed
    views of x, sfx and d). Its SM100 expressions raise NotImplementedError."""
    fn = "fp8_einsum"
    x, sfx, y, sfy = _einsum.check_fp8(fn, expr, a, b, d, c, recipe)
    x_g, _, d_g, counts, rows = _einsum.grouped_views(_einsum._FP8_SM90, x, y, d)
    _m_grouped(_grouped_impl.Call(fn, "fp8", "masked", x_g, sfx.transpose(0, 1),
                                  y, sfy, d_g, counts, expected_m=rows))


#===------------------------------------------------------------------------===#
# K-grouped GEMMs (mixture-of-experts weight gradients): one dense launch per
# non-empty group on views of its operands; tilec._kgrouped has the checks.
#===------------------------------------------------------------------------===#


def k_grouped_fp8_gemm_nt_contiguous(a, b, d, ks_cpu, grouped_layout, c=None,
                                     recipe=(1, 1, 128), compiled_dims="mn",
                                     use_psum_layout=False):
    """d[g] = c[g] + A_g B_g^T for each group g of K = ks_cpu[g]: a = (e4m3
    data of sum(K) * M elements, group g's [M, K_g] K-major from element
    P_g * M on (P_g the earlier groups' K), f32 SFA [M, sum(K) / 128]),
    b likewise with N; d float32 [G, M, N]; grouped_layout int32 [G] (the
    ks on the GPU: checked, not read). Recipe (1, 1, 128) only; each K a
    multiple of 128; c required (c=d accumulates in place)."""
    _kgrouped.launch(_kgrouped.fp8_plan(a, b, d, ks_cpu, grouped_layout, c,
                                        recipe, compiled_dims, use_psum_layout))


def k_grouped_fp8_gemm_tn_contiguous(a, b, d, ks_cpu, grouped_layout, c=None,
                                     recipe=(1, 1, 128), compiled_dims="mn",
                                     use_psum_layout=False):
    """SM100's form (MN-major FP8 operands a [sum(K), M], b [sum(K), N])."""
    raise NotImplementedError(
        "k_grouped_fp8_gemm_tn_contiguous: its operands are MN-major FP8 "
        "(a [sum(K), M], b [sum(K), N]), which FP8 wgmma on sm_90a cannot "
        "read (K-major only; DeepGEMM runs this form on SM100 only): use "
        "k_grouped_fp8_gemm_nt_contiguous with each group's A and B K-major")


def k_grouped_bf16_gemm_tn_contiguous(a, b, d, ks_cpu, grouped_layout, c=None,
                                      compiled_dims="mn", use_psum_layout=False):
    """d[g] = c[g] + a_g^T b_g for each group g of K = ks_cpu[g]: a bf16
    [sum(K), M], b [sum(K), N], a_g = a[P_g : P_g + K_g] (P_g the earlier
    groups' K); d float32 [G, M, N]; each K a multiple of the mk alignment;
    c required (c=d accumulates in place)."""
    _kgrouped.launch(_kgrouped.bf16_plan(a, b, d, ks_cpu, grouped_layout, c,
                                         compiled_dims, use_psum_layout))


# DeepGEMM's older names.
m_grouped_fp8_gemm_nt_contiguous = m_grouped_fp8_fp4_gemm_nt_contiguous
m_grouped_fp8_gemm_nn_contiguous = m_grouped_fp8_fp4_gemm_nn_contiguous
m_grouped_fp8_gemm_nt_masked = m_grouped_fp8_fp4_gemm_nt_masked
fp8_m_grouped_gemm_nt_masked = m_grouped_fp8_fp4_gemm_nt_masked
bf16_m_grouped_gemm_nt_masked = m_grouped_bf16_gemm_nt_masked

#===------------------------------------------------------------------------===#
# cuBLASLt (DeepGEMM's baseline), through torch
#===------------------------------------------------------------------------===#


def _cublaslt(a, b, d, c):
    """D = A B^T (+ C) with torch's cuBLAS(Lt) calls; a [M, K], b [N, K]."""
    if c is not None and c is not d:
        d.copy_(c)
    if a.shape[0] == 0 or b.shape[0] == 0:
        return
    if a.dtype == torch.float8_e4m3fn:
        one = torch.ones((), device=a.device, dtype=torch.float32)
        try:
            product = torch._scaled_mm(a, b.t(), scale_a=one, scale_b=one,
                                       out_dtype=d.dtype)
        except RuntimeError:  # shapes cuBLASLt's FP8 path refuses (M = 1, ...)
            product = (a.float() @ b.float().t()).to(d.dtype)
        d.add_(product) if c is not None else d.copy_(product)
        return
    if a.dtype == d.dtype:
        if c is not None:
            d.addmm_(a, b.t())
        else:
            torch.mm(a, b.t(), out=d)
        return
    try:  # bf16 in, f32 out: torch's out_dtype overloads (CUDA only)
        if c is not None:
            torch.addmm(d, a, b.t(), out_dtype=d.dtype, out=d)
        else:
            torch.mm(a, b.t(), out_dtype=d.dtype, out=d)
    except (RuntimeError, TypeError):
        product = torch.mm(a.float(), b.float().t())
        d.add_(product) if c is not None else d.copy_(product)


def cublaslt_gemm_nt(a, b, d, c=None):
    _cublaslt(a, b, d, c)


def cublaslt_gemm_nn(a, b, d, c=None):
    _cublaslt(a, b.t(), d, c)


def cublaslt_gemm_tn(a, b, d, c=None):
    _cublaslt(a.t(), b.t(), d, c)


def cublaslt_gemm_tt(a, b, d, c=None):
    _cublaslt(a.t(), b, d, c)


#===------------------------------------------------------------------------===#
# MQA logits (DeepSeek's lightning indexer)
#===------------------------------------------------------------------------===#


def fp8_fp4_mqa_logits(q, kv, weights, cu_seq_len_k_start, cu_seq_len_k_end,
                       clean_logits=True, max_seqlen_k=0,
                       logits_dtype=torch.float32):
    """logits[i, j] = sum_h weights[i, h] relu(q[i, h] . kv[j]) kv_sf[j] for
    j in [cu_seq_len_k_start[i], cu_seq_len_k_end[i]): q = (e4m3 [SQ, H, D],
    None), kv = (e4m3 [SKV, D], float32 [SKV]). Returns [SQ, SKV] (-inf
    outside the windows with clean_logits) or, with max_seqlen_k > 0,
    [SQ, max_seqlen_k] holding key j of query i at column j - start[i]."""
    function = "fp8_fp4_mqa_logits"
    q_fp, q_sf = _gemm._pair(function, "q", q)
    return _mqa.mqa_logits(function, q_fp, q_sf, kv, weights,
                           cu_seq_len_k_start, cu_seq_len_k_end, clean_logits,
                           max_seqlen_k, logits_dtype)


def fp8_mqa_logits(q, kv, weights, cu_seq_len_k_start, cu_seq_len_k_end,
                   clean_logits=True, max_seqlen_k=0):
    """DeepGEMM's older name: q e4m3 [SQ, H, D], float32 logits."""
    return _mqa.mqa_logits("fp8_mqa_logits", q, None, kv, weights,
                           cu_seq_len_k_start, cu_seq_len_k_end, clean_logits,
                           max_seqlen_k, torch.float32)


def get_paged_mqa_logits_metadata(context_lens, block_kv, num_sms, indices=None):
    """The schedule of fp8_fp4_paged_mqa_logits: int32 [num_sms + 1, 2], row
    i the (batch, 256-key split) where SM i's work starts, the splits of all
    batches shared out evenly (DeepGEMM's format and balance). context_lens
    int32 [B, next_n] (or [B]); block_kv 64. Torch ops on the tensor's
    device: no host sync, so it can be captured in a CUDA graph."""
    return _paged_mqa.metadata("get_paged_mqa_logits_metadata", context_lens,
                               block_kv, num_sms, indices)


def fp8_fp4_paged_mqa_logits(q, kv_cache, weights, context_lens, block_table,
                             schedule_meta, max_context_len, clean_logits=False,
                             logits_dtype=torch.float32, indices=None):
    """logits[b * next_n + j, t] = sum_h weights[b * next_n + j, h]
    relu(q[b, j, h] . kv[t]) kv_sf[t] for t below query j's context length,
    key t of batch b in page block_table[b, t // 64]: q = (e4m3 [B, next_n,
    H, D], None), kv_cache uint8 [num_blocks, 64, 1, D + 4] (each page's 64
    x D e4m3 bytes, then its 64 float32 scales), weights float32
    [B * next_n, H], context_lens int32 [B, next_n] (or [B]: query j sees
    context_lens[b] - next_n + j + 1 keys), block_table int32 [B, max
    blocks], schedule_meta from get_paged_mqa_logits_metadata. Returns
    [B * next_n, max_context_len]: -inf at and past each query's context
    length with clean_logits, unspecified there without."""
    function = "fp8_fp4_paged_mqa_logits"
    q_fp, q_sf = _gemm._pair(function, "q", q)
    return _paged_mqa.paged_mqa_logits(function, q_fp, q_sf, kv_cache, weights,
                                       context_lens, block_table, schedule_meta,
                                       max_context_len, clean_logits,
                                       logits_dtype, indices)


def fp8_paged_mqa_logits(q, kv_cache, weights, context_lens, block_table,
                         schedule_meta, max_context_len, clean_logits=False,
                         indices=None):
    """DeepGEMM's older name: q e4m3 [B, next_n, H, D], float32 logits."""
    return _paged_mqa.paged_mqa_logits("fp8_paged_mqa_logits", q, None, kv_cache,
                                       weights, context_lens, block_table,
                                       schedule_meta, max_context_len,
                                       clean_logits, torch.float32, indices)


#===------------------------------------------------------------------------===#
# What tilec does not have (yet)
#===------------------------------------------------------------------------===#

_NOT_IMPLEMENTED = (
    "tf32_hc_prenorm_gemm", "SymmBuffer", "get_symm_buffer_for_mega_moe",
    "transform_weights_for_mega_moe", "fp8_fp4_mega_moe", "bf16_mega_moe",
)
for _name in _NOT_IMPLEMENTED:
    globals()[_name] = _not_implemented(_name)
del _name

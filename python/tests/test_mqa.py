"""tilec.deep_gemm's MQA logits without a GPU.

- Dry runs: fp8_fp4_mqa_logits and fp8_mqa_logits compile the spec with the
  problem's params, and the runtime checks every kernel argument (shapes,
  strides, alignment) instead of launching; the output is DeepGEMM's view of
  a padded buffer.
- Every ValueError and NotImplementedError, naming the argument, before any
  CUDA call.
"""

from unittest import mock

from test_deep_gemm import Base, ChecksBase
from tilec_test_support import needs_compiler, torch

if torch is not None:
    import tilec.deep_gemm as dg
    from tilec import _cache, _mqa

FP8 = torch.float8_e4m3fn if torch else None


def inputs(seq_len=100, seq_len_kv=300, heads=64, head_dim=128):
    q = torch.zeros(seq_len, heads, head_dim, dtype=FP8)
    kv = (torch.zeros(seq_len_kv, head_dim, dtype=FP8), torch.ones(seq_len_kv))
    weights = torch.zeros(seq_len, heads)
    ks = torch.zeros(seq_len, dtype=torch.int32)
    ke = torch.full((seq_len,), seq_len_kv, dtype=torch.int32)
    return q, kv, weights, ks, ke


@needs_compiler
class DryRunTest(Base):

    def loaded(self, call):
        """(result, the (family, defines) of each kernel loaded)."""
        seen = []
        real = _cache.get_kernel
        with mock.patch.object(
                _cache, "get_kernel",
                side_effect=lambda *a, **kw: seen.append(a[:2]) or real(*a, **kw)):
            result = call()
        return result, seen

    def test_full_logits_are_a_view_of_a_padded_buffer(self):
        q, kv, w, ks, ke = inputs()
        logits, seen = self.loaded(lambda: dg.fp8_fp4_mqa_logits((q, None), kv, w, ks, ke))
        self.assertEqual(tuple(logits.shape), (100, 300))
        self.assertEqual(logits.dtype, torch.float32)
        # 300 keys + a block of 256, rounded up to 1024 bytes.
        self.assertEqual(logits.stride(), (768, 1))
        family, defines = seen[0]
        self.assertEqual(family, "mqa_logits")
        self.assertEqual(dict(defines), {"BLOCK_KV": "256", "CLEAN": "1", "COMPRESSED": "0",
                                         "HEADS": "64", "HEAD_DIM": "128", "OUT": "f32"})

    def test_compressed_bf16_logits(self):
        q, kv, w, ks, ke = inputs(heads=32, head_dim=64)
        logits, seen = self.loaded(lambda: dg.fp8_fp4_mqa_logits(
            (q, None), kv, w, ks, ke, clean_logits=False, max_seqlen_k=77,
            logits_dtype=torch.bfloat16))
        self.assertEqual(tuple(logits.shape), (100, 77))
        self.assertEqual(logits.stride(), (512, 1))   # 256 keys, 1024 bytes
        self.assertEqual(dict(seen[0][1])["COMPRESSED"], "1")
        self.assertEqual(dict(seen[0][1])["OUT"], "bf16")

    def test_legacy_name_writes_float32(self):
        q, kv, w, ks, ke = inputs(seq_len=3)
        logits = dg.fp8_mqa_logits(q, kv, w, ks, ke)
        self.assertEqual(logits.dtype, torch.float32)
        self.assertEqual(tuple(logits.shape), (3, 300))

    def test_weights_of_a_partial_block_are_padded(self):
        # 3 queries of 64 heads fill one and a half blocks of 2: the kernel
        # reads [2, 128] weights, zero past the third query.
        q, kv, w, ks, ke = inputs(seq_len=3)
        launched = []
        real = _cache.get_kernel

        def spy(*args, **kw):
            kernel = real(*args, **kw)
            return mock.Mock(launch=lambda values: launched.append(values) or kernel.launch(values),
                             set_persistent_limit=kernel.set_persistent_limit)
        with mock.patch.object(_cache, "get_kernel", side_effect=spy):
            dg.fp8_fp4_mqa_logits((q, None), kv, w.fill_(1), ks, ke)
        weights = launched[0][3]
        self.assertEqual(tuple(weights.shape), (2, 128))
        self.assertEqual(weights[1, 64:].abs().sum().item(), 0)
        self.assertEqual(weights[1, :64].sum().item(), 64)

    def test_no_queries_or_keys_launch_nothing(self):
        q, kv, w, ks, ke = inputs(seq_len=0)
        _, seen = self.loaded(lambda: dg.fp8_fp4_mqa_logits((q, None), kv, w, ks, ke))
        self.assertEqual(seen, [])
        q, kv, w, ks, ke = inputs(seq_len_kv=0)
        logits, seen = self.loaded(lambda: dg.fp8_fp4_mqa_logits((q, None), kv, w, ks, ke))
        self.assertEqual(seen, [])
        self.assertEqual(tuple(logits.shape), (100, 0))


class ChecksTest(ChecksBase):

    def call(self, **changes):
        q, kv, w, ks, ke = inputs()
        args = dict(q=(q, None), kv=kv, weights=w, cu_seq_len_k_start=ks,
                    cu_seq_len_k_end=ke)
        args.update(changes)
        return lambda: dg.fp8_fp4_mqa_logits(**args)

    def test_errors_name_the_argument(self):
        q, kv, w, ks, ke = inputs()
        f = "fp8_fp4_mqa_logits: argument "
        cases = [
            (dict(q=(q.float(), None)), f"'q' must have dtype torch.float8_e4m3fn, got torch.float32"),
            (dict(q=(q[:, :16], None)), f"'q' must have 32 or 64 heads"),
            (dict(q=(torch.zeros(100, 64, 96, dtype=FP8), None)), f"'q' must have a head dim of 32, 64 or 128, got 96"),
            (dict(q=(q.transpose(0, 1), None)), f"'q' must have 32 or 64 heads \\(DeepGEMM's SM90 head counts\\), got 100"),
            (dict(kv=(kv[0][:, :64], kv[1])), f"'kv' must have shape \\[SKV, D\\] with D = 128"),
            (dict(kv=kv[0]), f"'kv' must be a pair"),
            (dict(kv=(kv[0], kv[1][:10])), f"'kv\\[1\\] \\(kv_sf\\)' must have shape \\[SKV\\]"),
            (dict(weights=w[:, :32]), f"'weights' must have shape \\[SQ, H\\]"),
            (dict(weights=w.t().contiguous().t()), f"'weights' must have its last dim contiguous"),
            (dict(cu_seq_len_k_start=ks.long()), f"'cu_seq_len_k_start' must have dtype torch.int32"),
            (dict(cu_seq_len_k_end=ke[:5]), f"'cu_seq_len_k_end' must have shape \\[SQ\\]"),
            (dict(clean_logits=1), f"'clean_logits' must be a bool"),
            (dict(max_seqlen_k=-1), f"'max_seqlen_k' must be an int >= 0"),
            (dict(max_seqlen_k=64), f"'clean_logits' must be False with max_seqlen_k > 0"),
            (dict(clean_logits=False, logits_dtype=torch.float16), f"'logits_dtype' must be torch.float32 or torch.bfloat16"),
        ]
        for changes, pattern in cases:
            with self.subTest(changes=list(changes)):
                self.fails(pattern, self.call(**changes))

    def test_fp4_is_sm100(self):
        q, kv, w, ks, ke = inputs()
        self.fails("FP4 MQA logits are DeepGEMM's SM100 kernel",
                   self.call(q=(q, torch.zeros(100, 64, dtype=torch.int32))),
                   NotImplementedError)

    def test_cpu_tensors_need_a_dry_run(self):
        self.fails("'q' must be a CUDA tensor", self.call())

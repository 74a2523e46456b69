"""tilec.deep_gemm's paged MQA logits without a GPU.

- The schedule: get_paged_mqa_logits_metadata on CPU tensors against a
  straightforward Python reference (each batch's splits listed, the list
  shared out), and the spec's walk of it (its loops, written again in
  Python) covering every work item exactly once.
- Dry runs: fp8_fp4_paged_mqa_logits and fp8_paged_mqa_logits compile the
  spec with the problem's params, and the runtime checks every kernel
  argument (shapes, strides, alignment) instead of launching; the output is
  DeepGEMM's view of a padded buffer, the cache is read through two views.
- Every ValueError and NotImplementedError, naming the argument, before any
  CUDA call.
"""

import random
import unittest
from unittest import mock

from test_deep_gemm import Base, ChecksBase
from tilec_test_support import needs_compiler, needs_extension, needs_torch, torch

if torch is not None:
    import tilec.deep_gemm as dg
    from tilec import _cache, _gemm, _paged_mqa

FP8 = torch.float8_e4m3fn if torch else None
SPLIT = 256


def inputs(batch=5, next_n=2, heads=64, head_dim=128, blocks=40, max_blocks=40):
    q = torch.zeros(batch, next_n, heads, head_dim, dtype=FP8)
    kv_cache = torch.zeros(blocks, 64, 1, head_dim + 4, dtype=torch.uint8)
    weights = torch.zeros(batch * next_n, heads)
    lens = torch.randint(0, 64 * max_blocks, (batch, next_n), dtype=torch.int32)
    block_table = torch.zeros(batch, max_blocks, dtype=torch.int32)
    return q, kv_cache, weights, lens, block_table


def longest(lens):
    """Each batch's longest query context (the 1-D form's own length)."""
    rows = lens.tolist()
    return [max(max(row) if isinstance(row, list) else row, 0) for row in rows]


def reference_schedule(lens, num_sms):
    """The schedule spelled out: every (batch, split) item in order, at
    least one per batch; SM i of n takes q + (i >= n - r) of them, q, r =
    divmod(items, n); its row is its first item's, (B, 0) past the end."""
    batches = lens.shape[0]
    items = [(b, s) for b, n in enumerate(longest(lens))
             for s in range(max(-(-n // SPLIT), 1))]
    q, r = divmod(len(items), num_sms)
    rows, start = [], 0
    for i in range(num_sms):
        rows.append(list(items[start]) if start < len(items) else [batches, 0])
        start += q + (1 if i >= num_sms - r else 0)
    rows.append([batches, 0])
    return rows


def walk(schedule, lens):
    """The items the spec's loops visit, part by part (its producer's and
    math warpgroups' loop nest, in Python)."""
    batches, splits = lens.shape[0], [max(-(-n // SPLIT), 1) for n in longest(lens)]
    rows, visited = schedule.tolist(), []
    for part in range(len(rows) - 1):
        (b0, s0), (b1, s1) = rows[part], rows[part + 1]
        for b in range(b0, min(b1 + min(s1, 1), batches)):
            first = s0 if b == b0 else 0
            last = s1 if b == b1 else splits[b]
            visited += [(b, s) for s in range(first, last)]
    return visited


@needs_torch
@needs_extension
class ScheduleTest(unittest.TestCase):

    def check(self, lens, num_sms):
        schedule = dg.get_paged_mqa_logits_metadata(lens, 64, num_sms)
        self.assertEqual(schedule.dtype, torch.int32)
        self.assertEqual(tuple(schedule.shape), (num_sms + 1, 2))
        self.assertEqual(schedule.tolist(), reference_schedule(lens, num_sms))
        items = [(b, s) for b, n in enumerate(longest(lens))
                 for s in range(max(-(-n // SPLIT), 1))]
        self.assertEqual(walk(schedule, lens), items)
        return schedule

    def test_random_lengths_match_the_reference(self):
        rng = random.Random(0)
        for _ in range(40):
            batch = rng.choice([1, 2, 7, 64, 300])
            next_n = rng.choice([1, 2, 4])
            average = rng.choice([1, 200, 8192])
            lens = torch.randint(0, 2 * average, (batch, next_n), dtype=torch.int32)
            num_sms = rng.choice([1, 3, 78, 132, 1000])
            with self.subTest(batch=batch, next_n=next_n, average=average, num_sms=num_sms):
                self.check(lens, num_sms)
                self.check(lens[:, -1].contiguous(), num_sms)  # the 1-D form

    def test_balanced_by_item_count(self):
        # 3 batches of 1000, 256 and 2560 keys: 4 + 1 + 10 items on 4 SMs,
        # 3 each for the first and 4 for the last 3 (DeepGEMM's order).
        lens = torch.tensor([[10, 1000], [256, 3], [2560, 2560]], dtype=torch.int32)
        schedule = self.check(lens, 4)
        self.assertEqual(schedule.tolist(), [[0, 0], [0, 3], [2, 2], [2, 6], [3, 0]])

    def test_batches_without_keys_have_one_item(self):
        # Their logits rows are still written (-inf with clean_logits): 1 +
        # 1 + 2 items, 2 for each of 2 SMs.
        lens = torch.tensor([[0], [0], [300]], dtype=torch.int32)
        self.assertEqual(self.check(lens, 2).tolist(), [[0, 0], [2, 0], [3, 0]])

    def test_more_sms_than_items_and_no_batches(self):
        lens = torch.tensor([[5, 600]], dtype=torch.int32)
        schedule = self.check(lens, 8)
        # 3 items: the first 5 SMs start (and end) at the first, one each after.
        self.assertEqual(schedule[:, 0].tolist(), [0] * 8 + [1])
        self.assertEqual(schedule[5:, 1].tolist(), [0, 1, 2, 0])
        empty = dg.get_paged_mqa_logits_metadata(torch.zeros(0, 2, dtype=torch.int32), 64, 4)
        self.assertEqual(empty.tolist(), [[0, 0]] * 5)

    def test_errors_name_the_argument(self):
        lens = torch.zeros(4, 2, dtype=torch.int32)
        f = "get_paged_mqa_logits_metadata: argument "
        cases = [
            (dict(block_kv=32), f"'block_kv' must be 64 \\(DeepGEMM's SM90 page size\\), got 32"),
            (dict(num_sms=0), f"'num_sms' must be an int >= 1, got 0"),
            (dict(context_lens=lens.long()), f"'context_lens' must have dtype torch.int32"),
            (dict(context_lens=lens[None]), f"'context_lens' must be 2-D \\[B, next_n\\]"),
            (dict(context_lens=lens.t()), f"'context_lens' must be contiguous"),
        ]
        for changes, pattern in cases:
            args = dict(context_lens=lens, block_kv=64, num_sms=4)
            args.update(changes)
            with self.subTest(changes=list(changes)):
                with self.assertRaisesRegex(ValueError, pattern):
                    dg.get_paged_mqa_logits_metadata(**args)
        with self.assertRaisesRegex(NotImplementedError, "'indices' \\(varlen query tokens\\) is DeepGEMM's SM100"):
            dg.get_paged_mqa_logits_metadata(lens, 64, 4, indices=torch.zeros(4, dtype=torch.int32))


def paged_dispatchers():
    return [d for key, d in _gemm._dispatchers.items() if key[0] == _paged_mqa.FAMILY]


def launched(call, tensors):
    """(result, [(family, defines, args)]): the kernel the call looked up
    and the first kernel's arguments of the dispatcher plan recorded for
    `tensors` and the result (its first logits), as the plan launches them ((address, tilec
    dtype, shape, strides) each); [] when no plan was recorded (nothing
    launched). The paged plans are dropped first: the call is checked."""
    for key in [k for k in _gemm._dispatchers if k[0] == _paged_mqa.FAMILY]:
        del _gemm._dispatchers[key]
    looked = []
    real = _cache.get_kernel

    def spy(family, defines, *args, **kw):
        looked.append((family, dict(defines)))
        return real(family, defines, *args, **kw)
    with mock.patch.object(_cache, "get_kernel", side_effect=spy):
        result = call()
    logits = result[0] if isinstance(result, tuple) else result
    seen = []
    for target in paged_dispatchers():
        args = target.first_args(*tensors, logits)
        if args is not None:
            seen.append(looked[-1] + (args,))
    return result, seen


@needs_compiler
class DryRunTest(Base):

    def call(self, *, q_pair=True, max_context_len=2048, function=None, **changes):
        q, kv_cache, w, lens, bt = inputs(**{k: changes.pop(k) for k in list(changes)
                                            if k in ("batch", "next_n", "heads", "head_dim", "blocks")})
        args = dict(kv_cache=kv_cache, weights=w, context_lens=lens, block_table=bt)
        args.update(changes)
        args["schedule_meta"] = dg.get_paged_mqa_logits_metadata(args["context_lens"], 64, 132)
        function = function or dg.fp8_fp4_paged_mqa_logits
        tensors = (q, args["kv_cache"], args["weights"], args["context_lens"],
                   args["block_table"], args["schedule_meta"])
        return launched(lambda: function((q, None) if q_pair else q,
                                         max_context_len=max_context_len, **args), tensors)

    def test_logits_are_a_view_of_a_padded_buffer(self):
        logits, seen = self.call(max_context_len=600)
        self.assertEqual(tuple(logits.shape), (10, 600))
        self.assertEqual(logits.dtype, torch.float32)
        # 600 keys rounded up to a split (768), then to 1024 bytes (256 floats).
        self.assertEqual(logits.stride(), (768, 1))
        family, defines, _ = seen[0]
        self.assertEqual(family, "paged_mqa_logits")
        self.assertEqual(defines, {"CLEAN": "0", "CONTEXT_2D": "1", "HEADS": "64",
                                   "HEAD_DIM": "128", "NEXT_N": "2", "OUT": "f32"})

    def test_bf16_clean_logits(self):
        logits, seen = self.call(max_context_len=600, clean_logits=True,
                                 logits_dtype=torch.bfloat16)
        self.assertEqual(logits.dtype, torch.bfloat16)
        self.assertEqual(logits.stride(), (1024, 1))   # 768 keys, 1024 bytes: 512
        self.assertEqual(seen[0][1]["CLEAN"], "1")
        self.assertEqual(seen[0][1]["OUT"], "bf16")

    def test_the_cache_is_read_through_two_views(self):
        # Pages 64 bytes apart more than they hold (a slice of a wider pool).
        pool = torch.zeros(40, 64 * 132 + 64, dtype=torch.uint8)
        kv_cache = pool[:, :64 * 132].view(40, 64, 1, 132)
        _, seen = self.call(kv_cache=kv_cache)
        q, keys, scales, weights, lens, bt, schedule, logits = seen[0][2]
        self.assertEqual(q[1:3], ("e4m3", (640, 128)))
        self.assertEqual(keys[1:], ("e4m3", (40, 64, 128), (64 * 132 + 64, 128, 1)))
        self.assertEqual(keys[0], pool.data_ptr())
        self.assertEqual(scales[1:], ("f32", (40, 64), ((64 * 132 + 64) // 4, 1)))
        self.assertEqual(scales[0], pool.data_ptr() + 64 * 128)
        self.assertEqual(weights[2], (5, 128))   # a row per batch
        self.assertEqual(schedule[2], (133, 2))
        self.assertEqual(logits[2], (10, 2048))

    def test_one_dimensional_context_lens(self):
        lens = torch.randint(0, 2000, (5,), dtype=torch.int32)
        _, seen = self.call(context_lens=lens)
        self.assertEqual(seen[0][1]["CONTEXT_2D"], "0")
        self.assertEqual(seen[0][2][4][2:], ((5, 1), (1, 1)))

    def test_other_shapes_and_the_legacy_name(self):
        for heads, next_n, head_dim in ((32, 4, 64), (32, 1, 32), (64, 1, 128), (32, 3, 128)):
            with self.subTest(heads=heads, next_n=next_n, head_dim=head_dim):
                logits, seen = self.call(heads=heads, next_n=next_n, head_dim=head_dim,
                                         q_pair=False, function=dg.fp8_paged_mqa_logits)
                self.assertEqual(logits.dtype, torch.float32)
                self.assertEqual(tuple(logits.shape), (5 * next_n, 2048))
                self.assertEqual((seen[0][1]["HEADS"], seen[0][1]["NEXT_N"]),
                                 (str(heads), str(next_n)))

    def test_a_checked_signature_skips_the_checks(self):
        q, kv_cache, w, lens, bt = inputs()
        meta = dg.get_paged_mqa_logits_metadata(lens, 64, 132)
        args = dict(kv_cache=kv_cache, weights=w, context_lens=lens, block_table=bt,
                    schedule_meta=meta)
        tensors = (q, kv_cache, w, lens, bt, meta)

        def calls():
            first = dg.fp8_fp4_paged_mqa_logits((q, None), max_context_len=600, **args)
            # The decode step after: more keys, the same tensors.
            return first, dg.fp8_fp4_paged_mqa_logits((q, None), max_context_len=1000, **args)
        (first, second), seen = launched(calls, tensors)
        # One lookup and one plan: the second call launched the first's,
        # with its own logits (which the signature leaves out).
        self.assertEqual(len(seen), 1)
        self.assertEqual([len(d) for d in paged_dispatchers()], [1])
        self.assertEqual((tuple(first.shape), first.stride()), ((10, 600), (768, 1)))
        self.assertEqual((tuple(second.shape), second.stride()), ((10, 1000), (1024, 1)))
        again = paged_dispatchers()[0].first_args(*tensors, second)
        self.assertEqual(again[:7], seen[0][2][:7])
        self.assertEqual(again[7], (second.data_ptr(), "f32", (10, 1000), (1024, 1)))
        with mock.patch.object(_cache, "get_kernel") as lookup:
            dg.fp8_fp4_paged_mqa_logits((q, None), max_context_len=1000, **args)
        lookup.assert_not_called()
        # The same signature at an address TMA cannot take: the checks name
        # the argument, as on a first call.
        shifted = torch.zeros(kv_cache.numel() + 1, dtype=torch.uint8)[1:].view(kv_cache.shape)
        with self.assertRaisesRegex(ValueError, "argument 'kv_cache'.*16-byte aligned"):
            dg.fp8_fp4_paged_mqa_logits((q, None), max_context_len=600,
                                        **dict(args, kv_cache=shifted))
        # Another signature is checked again: the same shapes with q's
        # strides changed, or a flag of another type.
        q_strided = torch.zeros(5, 2, 128, 64, dtype=FP8).transpose(2, 3)
        with self.assertRaisesRegex(ValueError, "argument 'q' must be contiguous"):
            dg.fp8_fp4_paged_mqa_logits((q_strided, None), max_context_len=600, **args)
        with self.assertRaisesRegex(ValueError, "argument 'clean_logits' must be a bool"):
            dg.fp8_fp4_paged_mqa_logits((q, None), max_context_len=600, clean_logits=0, **args)
        with self.assertRaisesRegex(ValueError, "argument 'max_context_len' must be an int"):
            dg.fp8_fp4_paged_mqa_logits((q, None), max_context_len=True, **args)

    def test_the_views_follow_the_cache(self):
        q, kv_cache, w, lens, bt = inputs()
        meta = dg.get_paged_mqa_logits_metadata(lens, 64, 132)
        tensors = (q, kv_cache, w, lens, bt, meta)
        logits, seen = launched(lambda: dg.fp8_fp4_paged_mqa_logits(
            (q, None), kv_cache, w, lens, bt, meta, 600), tensors)
        # New storage in the same tensor: the plan's views move with it.
        kv_cache.set_(torch.zeros(40, 64, 1, 132, dtype=torch.uint8))
        moved = paged_dispatchers()[0].first_args(*tensors, logits)
        self.assertEqual((moved[1][0], moved[2][0]),
                         (kv_cache.data_ptr(), kv_cache.data_ptr() + 64 * 128))
        self.assertNotEqual(moved[1][0], seen[0][2][1][0])

    def test_nothing_to_write_or_read_launches_nothing(self):
        logits, seen = self.call(batch=0)
        self.assertEqual((seen, tuple(logits.shape)), ([], (0, 2048)))
        logits, seen = self.call(max_context_len=0)
        self.assertEqual((seen, tuple(logits.shape)), ([], (10, 0)))
        # An empty cache: clean logits are all -inf, with no kernel.
        logits, seen = self.call(blocks=0, clean_logits=True)
        self.assertEqual(seen, [])
        self.assertTrue(torch.isneginf(logits).all())


class ChecksTest(ChecksBase):

    def call(self, **changes):
        q, kv_cache, w, lens, bt = inputs()
        args = dict(q=(q, None), kv_cache=kv_cache, weights=w, context_lens=lens,
                    block_table=bt, schedule_meta=torch.zeros(133, 2, dtype=torch.int32),
                    max_context_len=2048)
        args.update(changes)
        return lambda: dg.fp8_fp4_paged_mqa_logits(**args)

    def test_errors_name_the_argument(self):
        q, kv_cache, w, lens, bt = inputs()
        s = torch.zeros(133, 2, dtype=torch.int32)
        f = "fp8_fp4_paged_mqa_logits: argument "
        cases = [
            (dict(q=(q.float(), None)), f"'q' must have dtype torch.float8_e4m3fn, got torch.float32"),
            (dict(q=(q[0], None)), f"'q' must be 4-D \\[B, next_n, H, D\\]"),
            (dict(q=(q[:, :, :16], None)), f"'q' must have 32 or 64 heads \\(DeepGEMM's SM90 head counts\\), got 16"),
            (dict(q=(torch.zeros(5, 2, 64, 96, dtype=FP8), None)), f"'q' must have a head dim of 32, 64 or 128, got 96"),
            (dict(q=(torch.zeros(5, 3, 64, 128, dtype=FP8), None)), f"'q' must have 1 to 2 query tokens per batch with 64 heads"),
            (dict(q=(q.transpose(0, 1).contiguous().transpose(0, 1), None)), f"'q' must be contiguous"),
            (dict(kv_cache=kv_cache.view(FP8)), f"'kv_cache' must have dtype torch.uint8"),
            (dict(kv_cache=kv_cache[:, :, 0]), f"'kv_cache' must be 4-D \\[num_blocks, block_kv, 1, D \\+ 4\\]"),
            (dict(kv_cache=kv_cache[:, :32]), f"'kv_cache' must have shape \\[num_blocks, 64, 1, D \\+ 4\\] with D = 128"),
            (dict(kv_cache=torch.zeros(40, 64, 1, 68, dtype=torch.uint8)), f"'kv_cache' must have shape .* = \\[40, 64, 1, 132\\]"),
            (dict(kv_cache=torch.zeros(40, 64, 1, 136, dtype=torch.uint8)[..., :132]), f"'kv_cache' must hold each page's rows contiguous"),
            (dict(kv_cache=torch.zeros(40, 64 * 132 + 4, dtype=torch.uint8)[:, :64 * 132].view(40, 64, 1, 132)),
             f"'kv_cache' needs a page stride \\(dim 0\\) of a multiple of 16 bytes and at least 8448"),
            (dict(weights=w[:, :32]), f"'weights' must have shape \\[B \\* next_n, H\\]"),
            (dict(weights=w.double()), f"'weights' must have dtype torch.float32"),
            (dict(weights=w.t().contiguous().t()), f"'weights' must be contiguous"),
            (dict(context_lens=lens.long()), f"'context_lens' must have dtype torch.int32"),
            (dict(context_lens=lens[:, :1]), f"'context_lens' must have shape \\[B, next_n\\] \\(q's\\) = \\[5, 2\\]"),
            (dict(context_lens=lens[:3, 0].contiguous()), f"'context_lens' must have shape \\[B\\] \\(q's\\) = \\[5\\]"),
            (dict(context_lens=lens[None]), f"'context_lens' must be 2-D \\[B, next_n\\] \\(or 1-D \\[B\\]\\)"),
            (dict(context_lens=lens.t().contiguous().t()), f"'context_lens' must be contiguous"),
            (dict(block_table=bt.long()), f"'block_table' must have dtype torch.int32"),
            (dict(block_table=bt[0]), f"'block_table' must be 2-D \\[B, max_blocks\\]"),
            (dict(block_table=bt[:4]), f"'block_table' must have shape \\[B, max_blocks\\] with B = 5"),
            (dict(block_table=bt.t().contiguous().t()), f"'block_table' must have its last dim contiguous"),
            (dict(schedule_meta=s.long()), f"'schedule_meta' must have dtype torch.int32"),
            (dict(schedule_meta=s[:, 0]), f"'schedule_meta' must be 2-D \\[num_sms \\+ 1, 2\\]"),
            (dict(schedule_meta=s[:1]), f"'schedule_meta' must have shape \\[num_sms \\+ 1, 2\\]"),
            (dict(schedule_meta=s.t().contiguous().t()), f"'schedule_meta' must be contiguous"),
            (dict(max_context_len=-1), f"'max_context_len' must be an int >= 0, got -1"),
            (dict(max_context_len=2048.0), f"'max_context_len' must be an int >= 0, got 2048.0"),
            (dict(clean_logits=1), f"'clean_logits' must be a bool"),
            (dict(logits_dtype=torch.float16), f"'logits_dtype' must be torch.float32 or torch.bfloat16"),
        ]
        for changes, pattern in cases:
            with self.subTest(changes=list(changes)):
                self.fails(pattern, self.call(**changes))

    def test_what_is_sm100_raises(self):
        q, *_ = inputs()
        self.fails("FP4 paged MQA logits are DeepGEMM's SM100 kernel",
                   self.call(q=(q, torch.zeros(5, 2, 64, dtype=torch.int32))),
                   NotImplementedError)
        self.fails("'indices' \\(varlen query tokens\\) is DeepGEMM's SM100 kernel",
                   self.call(indices=torch.zeros(5, dtype=torch.int32)), NotImplementedError)

    def test_q_must_be_a_pair(self):
        q, *_ = inputs()
        self.fails("'q' must be a pair", self.call(q=q), TypeError)

    def test_cpu_tensors_need_a_dry_run(self):
        self.fails("'q' must be a CUDA tensor", self.call())

"""tilec.moe without a GPU: the routing metadata (dispatch_layout,
routing_counts, combine_layout), the data movement of the expert-parallel
layer emulated in torch over simulated ranks, the workspace's views, the
argument errors, and fp8_moe_layer itself on CPU with its three kernels and
the masked GEMM replaced by torch emulations (dry run).
"""

import unittest
from unittest import mock

from tilec_test_support import needs_extension, torch

if torch is not None:
    import tilec
    from tilec import moe, quant


def random_topk(gen, tokens, topk, experts, none_fraction=0.2):
    """[T, TOPK] int64: distinct experts per token, some -1."""
    scores = torch.rand(tokens, experts, generator=gen)
    idx = scores.topk(topk, dim=1).indices
    drop = torch.rand(tokens, topk, generator=gen) < none_fraction
    return torch.where(drop, torch.full_like(idx, -1), idx)


def scatter_rows(s, src, dst, targets):
    """The semantics of moe_scatter_rows over simulated ranks: row dst[r, p]
    of targets[r] = row src[p] of s, for dst[r, p] >= 0. Returns the number
    of writes to each row of each target (every row at most once)."""
    writes = []
    for r, target in enumerate(targets):
        sel = dst[r] >= 0
        rows = dst[r][sel].long()
        target[rows] = s[src[sel].long()]
        writes.append(torch.bincount(rows, minlength=target.shape[0]))
    return writes


@unittest.skipIf(torch is None, "torch is not installed")
class DispatchLayoutTest(unittest.TestCase):

    def setUp(self):
        self.gen = torch.Generator().manual_seed(17)

    def layouts(self, world, experts_local, capacity, tokens, topk):
        """(topk_idx per rank, layout per rank, all_counts)."""
        idx = [random_topk(self.gen, t, topk, world * experts_local)
               for t in tokens]
        counts = [moe.routing_counts(i, experts_local, world) for i in idx]
        all_counts = torch.stack(counts)
        layouts = [moe.dispatch_layout(idx[r], experts_local, world, r,
                                       capacity, all_counts)
                   for r in range(world)]
        return idx, layouts, all_counts

    def test_world_one_slots_dense_stable_and_minus_one_skipped(self):
        experts_local, cap, topk = 6, 64, 4
        (idx,), (lay,), _ = self.layouts(1, experts_local, cap, [37], topk)
        self.assertEqual(tuple(lay.dst.shape), (1, 37 * topk))
        self.assertEqual(lay.dst.dtype, torch.int32)
        flat = idx.reshape(-1)
        none = flat < 0
        self.assertTrue(none.any())                     # the test has -1 pairs
        self.assertTrue(torch.all(lay.dst[0][none] == -1))
        for e in range(experts_local):
            pairs = torch.nonzero(flat == e).flatten()   # in p order
            rows = lay.dst[0][pairs].long()
            # dense: e's rows are e * cap + 0 .. n - 1, in p order (stable)
            self.assertEqual(rows.tolist(),
                             list(range(e * cap, e * cap + len(pairs))))
            self.assertEqual(int(lay.masked_m[e]), len(pairs))
            self.assertEqual(int(lay.counts[0, e]), len(pairs))
        self.assertEqual(lay.max_rows, int(lay.masked_m.max()))
        self.assertEqual(lay.total_rows, int((~none).sum()))
        p = torch.arange(37 * topk)
        self.assertTrue(torch.equal(lay.src, (p // topk).int()))
        self.assertTrue(torch.equal(
            lay.info, torch.stack([torch.zeros_like(p), p // topk, p % topk,
                                   torch.zeros_like(p)], 1).int()))

    def check_multi_rank(self, world):
        experts_local, cap, topk = 4, 200, 3
        tokens = [40 + 13 * r for r in range(world)]
        idx, layouts, all_counts = self.layouts(world, experts_local, cap,
                                                tokens, topk)
        for r in range(world):
            for e_l in range(experts_local):
                e = r * experts_local + e_l
                slots, owners = [], []
                for s in range(world):
                    pairs = torch.nonzero(idx[s].reshape(-1) == e).flatten()
                    got = layouts[s].dst[r][pairs].long() - e_l * cap
                    slots += got.tolist()
                    owners += [s] * len(pairs)
                    # every other row of DST is -1 for these pairs
                    others = [q for q in range(world) if q != r]
                    if others and len(pairs):
                        self.assertTrue(torch.all(
                            layouts[s].dst[others][:, pairs] == -1))
                n = len(slots)
                # dense and unique over all source ranks, sources in order
                self.assertEqual(slots, list(range(n)))
                self.assertEqual(owners, sorted(owners))
                self.assertEqual(int(layouts[r].masked_m[e_l]), n)
                self.assertEqual(int(all_counts[:, r, e_l].sum()), n)
        for s in range(world):
            flat = idx[s].reshape(-1)
            self.assertTrue(torch.all(layouts[s].dst[:, flat < 0] == -1))
            # each valid pair goes to exactly one rank
            self.assertTrue(torch.equal((layouts[s].dst >= 0).sum(0),
                                        (flat >= 0).long()))

    def test_two_ranks(self):
        self.check_multi_rank(2)

    def test_four_ranks(self):
        self.check_multi_rank(4)

    def test_int32_ids_and_no_tokens(self):
        idx = torch.tensor([[0, 3], [-1, 3], [2, -1]], dtype=torch.int32)
        counts = moe.routing_counts(idx, 2, 2)
        self.assertEqual(counts.tolist(), [[1, 0], [1, 2]])
        lay = moe.dispatch_layout(idx, 2, 2, 0, 8, counts[None].repeat(2, 1, 1))
        self.assertEqual(lay.dst.tolist(), [[0, -1, -1, -1, -1, -1],
                                            [-1, 8, -1, 9, 0, -1]])
        empty = torch.zeros(0, 4, dtype=torch.int64)
        lay = moe.dispatch_layout(empty, 3, 1, 0, 1,
                                  moe.routing_counts(empty, 3, 1)[None])
        self.assertEqual(tuple(lay.dst.shape), (1, 0))
        self.assertEqual(lay.max_rows, 0)

    def test_capacity_overflow_names_the_argument(self):
        idx = torch.tensor([[0, 1], [0, 1], [0, -1]])
        counts = moe.routing_counts(idx, 2, 1)[None]
        moe.dispatch_layout(idx, 2, 1, 0, 3, counts)            # fits
        with self.assertRaisesRegex(ValueError,
                                    r"dispatch_layout: argument 'capacity' "
                                    r"\(2 rows .*expert 0 .* 3 rows"):
            moe.dispatch_layout(idx, 2, 1, 0, 2, counts)
        # the other ranks' rows count too
        idx1 = torch.tensor([[0, 1]])
        two = torch.stack([moe.routing_counts(idx1, 1, 2)] * 2)
        moe.dispatch_layout(idx1, 1, 2, 0, 2, two)
        with self.assertRaisesRegex(ValueError, "'capacity' \\(1 rows"):
            moe.dispatch_layout(idx1, 1, 2, 0, 1, two)

    def test_argument_errors(self):
        idx = torch.tensor([[0, 1]])
        counts = moe.routing_counts(idx, 2, 1)[None]
        with self.assertRaisesRegex(ValueError, "dispatch_layout: argument "
                                                "'topk_idx' must hold expert ids"):
            moe.dispatch_layout(torch.tensor([[0, 2]]), 2, 1, 0, 4, counts)
        with self.assertRaisesRegex(ValueError, "argument 'topk_idx' must hold"):
            moe.dispatch_layout(torch.tensor([[0, -2]]), 2, 1, 0, 4, counts)
        with self.assertRaisesRegex(ValueError, "argument 'topk_idx' must have "
                                                "dtype"):
            moe.dispatch_layout(idx.float(), 2, 1, 0, 4, counts)
        with self.assertRaisesRegex(ValueError, "argument 'all_counts' must "
                                                "have shape"):
            moe.dispatch_layout(idx, 2, 1, 0, 4, counts[0])
        with self.assertRaisesRegex(ValueError, "argument 'all_counts' row 0"):
            moe.dispatch_layout(idx, 2, 1, 0, 4, counts + 1)
        with self.assertRaisesRegex(ValueError, "argument 'rank' must be"):
            moe.dispatch_layout(idx, 2, 1, 1, 4, counts)
        with self.assertRaisesRegex(ValueError, "argument 'capacity' must be an"):
            moe.dispatch_layout(idx, 2, 1, 0, 0, counts)
        with self.assertRaisesRegex(TypeError, "argument 'all_counts' must be a "
                                               "torch.Tensor"):
            moe.dispatch_layout(idx, 2, 1, 0, 4, [[[1, 1]]])

    def test_combine_layout_ignores_stale_rows(self):
        cap, world, t_max = 3, 2, 10
        info = torch.tensor([[1, 4, 2, 0], [0, 7, 0, 0], [99, 99, 99, 99],
                             [0, 1, 1, 0], [-5, 3, 3, 3], [1 << 30, 0, 0, 0]],
                            dtype=torch.int32)
        dst2 = moe.combine_layout(info, torch.tensor([2, 1], dtype=torch.int32),
                                  cap, world, t_max)
        self.assertEqual(dst2.tolist(), [[-1, 7, -1, 11, -1, -1],
                                         [24, -1, -1, -1, -1, -1]])


@unittest.skipIf(torch is None, "torch is not installed")
class DataMovementTest(unittest.TestCase):
    """The layer's dispatch, per-expert work and combine over R simulated
    ranks with the scatters applied by torch indexing and an "expert" that
    is a per-expert affine map (no GEMMs), against the per-pair sum."""

    def run_ranks(self, world, experts_local=5, topk=4, hidden=8, t_max=50):
        cap = t_max * world         # the most one expert can get
        gen = torch.Generator().manual_seed(100 + world)
        tokens = [t_max - 7 * r for r in range(world)]
        experts = world * experts_local
        idx = [random_topk(gen, t, topk, experts) for t in tokens]
        x = [torch.randn(t, hidden, generator=gen) for t in tokens]
        x_sf = [torch.rand(t, 2, generator=gen) for t in tokens]
        w = [torch.rand(t, topk, generator=gen) for t in tokens]
        nan = float("nan")
        # the symmetric buffers, poisoned (stale data from an earlier call)
        recv_x = [torch.full((experts_local * cap, hidden), nan)
                  for _ in range(world)]
        recv_sf = [torch.full((experts_local * cap, 2), nan) for _ in range(world)]
        recv_info = [torch.randint(-(1 << 20), 1 << 20, (experts_local * cap, 4),
                                   generator=gen, dtype=torch.int32)
                     for _ in range(world)]
        cbuf = [torch.full((topk, t_max, hidden), nan) for _ in range(world)]

        all_counts = torch.stack([moe.routing_counts(i, experts_local, world)
                                  for i in idx])
        layouts = [moe.dispatch_layout(idx[r], experts_local, world, r, cap,
                                       all_counts) for r in range(world)]
        for r in range(world):
            cbuf[r][:, :tokens[r]] = 0
        for r, lay in enumerate(layouts):   # rank r's three dispatch launches
            writes = scatter_rows(x[r], lay.src, lay.dst, recv_x)
            scatter_rows(x_sf[r], lay.src, lay.dst, recv_sf)
            scatter_rows(lay.info, torch.arange(lay.info.shape[0]), lay.dst,
                         recv_info)
            for n in writes:
                self.assertLessEqual(int(n.max()), 1)
        # barrier; the experts; the combine send
        for r, lay in enumerate(layouts):
            q = torch.arange(experts_local * cap)
            e = r * experts_local + q // cap
            y = recv_x[r] * (e[:, None] + 1) + e[:, None]   # stale rows: NaN
            dst2 = moe.combine_layout(recv_info[r], lay.masked_m, cap, world,
                                      t_max)
            flat = [c.view(topk * t_max, hidden) for c in cbuf]
            scatter_rows(y, q, dst2, flat)
            # the scales came with their tokens
            valid = (q % cap) < lay.masked_m.long()[q // cap]
            info = recv_info[r][valid].long()
            for row, (s, t, j, zero) in zip(torch.nonzero(valid).flatten(),
                                            info.tolist()):
                self.assertEqual(int(idx[s][t, j]), int(e[row]))
                self.assertEqual(zero, 0)
                self.assertTrue(torch.equal(recv_sf[r][row], x_sf[s][t]))
        # barrier; the combine of each rank against the per-pair sum
        for r in range(world):
            wt = torch.where(idx[r] >= 0, w[r], torch.zeros_like(w[r])).t()
            out = torch.zeros(tokens[r], hidden)
            for j in range(topk):
                out += wt[j, :, None] * cbuf[r][j, :tokens[r]]
            ref = torch.zeros(tokens[r], hidden)
            for t in range(tokens[r]):
                for j in range(topk):
                    e = int(idx[r][t, j])
                    if e >= 0:
                        ref[t] += w[r][t, j] * (x[r][t] * (e + 1) + e)
            torch.testing.assert_close(out, ref)
            self.assertFalse(out.isnan().any())

    def test_world_one(self):
        self.run_ranks(1)

    def test_two_ranks(self):
        self.run_ranks(2)

    def test_four_ranks(self):
        self.run_ranks(4)


@unittest.skipIf(torch is None, "torch is not installed")
class WorkspaceAndChecksTest(unittest.TestCase):

    def test_workspace_views(self):
        ws = moe.MoeWorkspace(256, 128, 3, 2, 10, 7, device="cpu")
        self.assertEqual(ws.world, 1)
        self.assertEqual(ws.offs.tolist(), [0])
        shapes = {"recv_x": (21, 64), "recv_sf": (21, 2), "recv_info": (21, 4),
                  "cbuf": (20, 128)}
        base = ws.buffer.data_ptr()
        end = base + ws.buffer.numel()
        spans = []
        for name, shape in shapes.items():
            view = getattr(ws, name)
            self.assertEqual(tuple(view.shape), shape, name)
            self.assertEqual(view.dtype, torch.int32)
            self.assertTrue(view.is_contiguous())
            start = view.data_ptr()
            self.assertEqual((start - base) % 256, 0, name)
            spans.append((start, start + view.numel() * 4))
            self.assertLessEqual(spans[-1][1], end)
        for (a0, a1), (b0, b1) in zip(spans, spans[1:]):
            self.assertLessEqual(a1, b0)           # no overlap
        self.assertEqual(tuple(ws.cbuf_bf16.shape), (2, 10, 256))
        with self.assertRaisesRegex(ValueError, "MoeWorkspace: argument 'hidden' "
                                                "must be a multiple of 128"):
            moe.MoeWorkspace(200, 128, 3, 2, 10, 7, device="cpu")
        with self.assertRaisesRegex(ValueError, "argument 'capacity'"):
            moe.MoeWorkspace(256, 128, 3, 2, 10, 0, device="cpu")

    def test_layer_checks_before_any_cuda_call(self):
        t, h, inter, el, k = 4, 256, 128, 2, 2
        fp8 = torch.float8_e4m3fn
        args = dict(x=torch.zeros(t, h, dtype=fp8), x_sf=torch.ones(t, 2),
                    topk_idx=torch.zeros(t, k, dtype=torch.int64),
                    topk_weights=torch.ones(t, k),
                    w1=torch.zeros(el, 2 * inter, h, dtype=fp8),
                    w1_sf=torch.ones(el, 2, 2),
                    w2=torch.zeros(el, h, inter, dtype=fp8),
                    w2_sf=torch.ones(el, 2, 1))
        cases = [("x", torch.zeros(t, h), "fp8_moe_layer: argument 'x' must "
                                          "have dtype"),
                 ("x", torch.zeros(t, 200, dtype=fp8), "H a multiple of 128"),
                 ("x_sf", torch.ones(t, 3), "argument 'x_sf' must have shape"),
                 ("topk_weights", torch.ones(t, k + 1), "'topk_weights' must "
                                                        "have shape"),
                 ("w2", torch.zeros(el, h, 256, dtype=fp8), "argument 'w2' must "
                                                            "have shape"),
                 ("w1_sf", torch.ones(el, 1, 2), "argument 'w1_sf'"),
                 ("topk_idx", torch.zeros(t, k, dtype=torch.int16),
                  "'topk_idx' must have dtype")]
        for name, value, message in cases:
            with self.subTest(name=name):
                bad = dict(args, **{name: value})
                with self.assertRaisesRegex(ValueError, message):
                    moe.fp8_moe_layer(**bad)
        with self.assertRaisesRegex(TypeError, "argument 'w1' must be a "
                                               "torch.Tensor"):
            moe.fp8_moe_layer(**dict(args, w1=None))
        if not tilec._runtime.dry_run():
            with self.assertRaisesRegex(ValueError, "argument 'x' must be a CUDA "
                                                    "tensor"):
                moe.fp8_moe_layer(**args)
        self.assertFalse(torch.cuda.is_initialized())


@unittest.skipIf(torch is None, "torch is not installed")
class GatherCountsTest(unittest.TestCase):
    """The counts' all-gather over a gloo group (several ranks on one GPU
    use gloo): CPU tensors through gloo, back on the counts' device."""

    def test_gloo_one_rank(self):
        import tempfile
        import torch.distributed as dist
        if not dist.is_available() or dist.is_initialized():
            self.skipTest("torch.distributed unavailable or in use")
        with tempfile.TemporaryDirectory() as directory:
            # The file store removes its file when the group is destroyed.
            dist.init_process_group("gloo", rank=0, world_size=1,
                                    init_method=f"file://{directory}/store")
            try:
                counts = torch.tensor([[3, 0, 5]], dtype=torch.int32)
                got = moe._all_gather_counts(counts, dist.group.WORLD, 1)
            finally:
                dist.destroy_process_group()
        self.assertEqual(got.shape, (1, 1, 3))
        self.assertEqual(got.dtype, torch.int32)
        self.assertTrue(torch.equal(got[0], counts))


class _FakeKernel:
    """moe_scatter_rows / moe_swiglu_fp8 / moe_combine in torch (world size
    1: OFFS zeros)."""

    def __init__(self, family, calls):
        self.family, self.calls = family, calls

    def launch(self, args):
        self.calls.append(self.family)
        if self.family == moe.SCATTER_FAMILY:
            s, src, dst, d, offs = args
            assert dst.shape[0] == 1 and offs.tolist() == [0]
            assert s.dtype == d.dtype == torch.int32 and s.shape[1] == d.shape[1]
            scatter_rows(s, src, dst, [d])
        elif self.family == moe.SWIGLU_FAMILY:
            h, masked_m, q, sf = args
            inter = q.shape[2]
            for g in range(h.shape[0]):
                m = int(masked_m[g])
                if m:
                    act = moe._swiglu(h[g, :m].float(), inter)
                    qg, sg = quant.per_token_cast_to_fp8(act)
                    q[g, :m] = qg
                    sf[g, :, :m] = sg.t()
        else:
            c, wt, out = args
            acc = torch.zeros(out.shape, dtype=torch.float32)
            for j in range(c.shape[0]):
                acc += wt[j, :, None] * c[j, :out.shape[0]].float()
            out.copy_(acc.to(torch.bfloat16))


def _fake_masked_gemm(a, b, d, masked_m, expected_m):
    """m_grouped_fp8_gemm_nt_masked in torch on the dequantised operands."""
    (a0, a1), (b0, b1) = a, b
    assert isinstance(expected_m, int) and expected_m > 0
    for g in range(a0.shape[0]):
        m = int(masked_m[g])
        if m:
            xa = quant.dequantize_per_token(a0[g, :m], a1[g, :m])
            wb = quant.dequantize_per_block(b0[g], b1[g])
            d[g, :m] = (xa @ wb.t()).to(torch.bfloat16)


@needs_extension
@unittest.skipIf(torch is None, "torch is not installed")
class EmulatedLayerTest(unittest.TestCase):
    """fp8_moe_layer's own code on CPU (dry run): the kernels and the masked
    GEMM emulated in torch; against reference_moe."""

    def test_layer_matches_reference(self):
        gen = torch.Generator().manual_seed(5)
        t, h, inter, el, k = 33, 256, 128, 4, 3
        x, x_sf = quant.per_token_cast_to_fp8(torch.randn(t, h, generator=gen))
        idx = random_topk(gen, t, k, el, none_fraction=0.25)
        idx[0] = -1                                   # a token with no expert
        w = torch.rand(t, k, generator=gen)
        w1, w1_sf, w2, w2_sf = [], [], [], []
        for _ in range(el):
            q, s = quant.per_block_cast_to_fp8(
                torch.randn(2 * inter, h, generator=gen) / 16)
            w1.append(q), w1_sf.append(s)
            q, s = quant.per_block_cast_to_fp8(
                torch.randn(h, inter, generator=gen) / 16)
            w2.append(q), w2_sf.append(s)
        w1, w1_sf = torch.stack(w1), torch.stack(w1_sf)
        w2, w2_sf = torch.stack(w2), torch.stack(w2_sf)
        args = (x, x_sf, idx, w, w1, w1_sf, w2, w2_sf)
        calls = []
        ws = moe.MoeWorkspace(h, inter, el, k, 40, 40, device="cpu")
        for view in (ws.recv_x, ws.recv_sf, ws.recv_info, ws.cbuf):
            view.fill_(-1)                            # stale, NaN as bf16/f32
        tilec.set_dry_run(True)
        try:
            with mock.patch.object(tilec._cache, "get_kernel",
                                   side_effect=lambda f, d, i: _FakeKernel(f, calls)), \
                    mock.patch("tilec.deep_gemm.m_grouped_fp8_gemm_nt_masked",
                               side_effect=_fake_masked_gemm):
                out = moe.fp8_moe_layer(*args, workspace=ws)
                again = moe.fp8_moe_layer(*args, workspace=ws)
                fresh = moe.fp8_moe_layer(*args)       # its own workspace
                with self.assertRaisesRegex(ValueError, "fp8_moe_layer: argument "
                                                        "'workspace' \\(2 rows"):
                    moe.fp8_moe_layer(*args, workspace=moe.MoeWorkspace(
                        h, inter, el, k, 40, 2, device="cpu"))
                with self.assertRaisesRegex(ValueError, "'workspace' holds at "
                                                        "most max_tokens = 8"):
                    moe.fp8_moe_layer(*args, workspace=moe.MoeWorkspace(
                        h, inter, el, k, 8, 40, device="cpu"))
        finally:
            tilec.set_dry_run(False)
        self.assertEqual(calls[:6], [moe.SCATTER_FAMILY] * 3 + [
            moe.SWIGLU_FAMILY, moe.SCATTER_FAMILY, moe.COMBINE_FAMILY])
        ref = moe.reference_moe(*args)
        self.assertEqual(out.dtype, torch.bfloat16)
        self.assertFalse(out.isnan().any())
        self.assertTrue(torch.equal(out[0], torch.zeros(h, dtype=torch.bfloat16)))
        self.assertTrue(torch.equal(out, again))
        self.assertTrue(torch.equal(out, fresh))
        self.assertLess(quant.calc_diff(out.float(), ref), 1e-4)
        # a wrong row anywhere is seen: swap two tokens' routing
        bad = moe.reference_moe(x, x_sf, idx.flip(0), w, w1, w1_sf, w2, w2_sf)
        self.assertGreater(quant.calc_diff(out.float(), bad), 1e-2)


if __name__ == "__main__":
    unittest.main()

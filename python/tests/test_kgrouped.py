"""tilec.deep_gemm's K-grouped GEMMs without a GPU.

- Dry runs: k_grouped_fp8_gemm_nt_contiguous and
  k_grouped_bf16_gemm_tn_contiguous through the checks, one dense plan per
  non-empty group on views at the group's offsets (no copies of A and B),
  the runtime checking every kernel argument instead of launching, and the
  fast path for every group on the next call; c copied into d; empty groups
  and problems launching nothing.
- The groups' views multiplied in torch (the launches emulated): DeepGEMM's
  d[g] = c[g] + A_g B_g^T at every group's offsets.
- Every ValueError, before any CUDA call; the NotImplementedErrors (the FP8
  tn form, the BF16 psum layout).
- make_fx and torch.compile: one dense custom op per non-empty group.
"""

import unittest
from unittest import mock

from test_deep_gemm import Base, ChecksBase  # dry runs on (off), a cache directory of its own
from tilec_test_support import (compiled_with_graphs, needs_compiler, needs_extension,
                                needs_torch, torch)

import tilec

if torch is not None:
    import tilec.deep_gemm as dg
    from tilec import _cache, _gemm, _kgrouped, quant

BF16 = torch.bfloat16 if torch else None
FP8 = torch.float8_e4m3fn if torch else None
D = object()   # the errors tests' default c: the d of the call


def fp8_inputs(ks, m, n):
    """DeepGEMM's generate_k_grouped_contiguous layout: flat e4m3 data with
    group g's [MN, K_g] K-major at element P_g * MN, scales the transposes of
    [sum(K) / 128, MN] tables; d = c, float32 [G, M, N]."""
    total = sum(ks)
    a = torch.randn(total * m).to(FP8)
    b = torch.randn(total * n).to(FP8)
    sfa = (torch.rand(total // 128, m) + 0.5).t()
    sfb = (torch.rand(total // 128, n) + 0.5).t()
    d = torch.randn(len(ks), m, n)
    return (a, sfa), (b, sfb), d, torch.tensor(ks, dtype=torch.int32)


def bf16_inputs(ks, m, n):
    """a [sum(K), M], b [sum(K), N] bf16; d float32 [G, M, N]."""
    total = sum(ks)
    a = torch.randn(total, m).to(BF16)
    b = torch.randn(total, n).to(BF16)
    d = torch.randn(len(ks), m, n)
    return a, b, d, torch.tensor(ks, dtype=torch.int32)


def offsets(views):
    return [t.storage_offset() for t in views]


@needs_compiler
class DryRunTest(Base):

    def spy(self):
        """A mock recording each group launch (the plan, key, views) and
        passing it on."""
        return mock.patch.object(_kgrouped, "_launch_group", wraps=_kgrouped._launch_group)

    def recorded(self, call):
        """call() run: (each group launch's (plan, key, views), the
        (family, defines) of each kernel it loaded)."""
        loaded = []
        real = _cache.get_kernel
        with self.spy() as spy, mock.patch.object(
                _cache, "get_kernel",
                side_effect=lambda *args, **kw: loaded.append(args[:2]) or real(*args, **kw)):
            call()
        return [c.args for c in spy.call_args_list], loaded

    def assert_accumulating(self, loaded, family):
        """Every kernel loaded is `family`'s, with f32 output and D +=."""
        self.assertEqual({name for name, _ in loaded}, {family})
        for _, defines in loaded:
            self.assertEqual((dict(defines)["OUT"], dict(defines)["ACCUMULATE"]), ("f32", "1"))

    def assert_fast_path(self, call):
        """Every group launches with the dense slow path disabled."""
        with mock.patch.object(_gemm, "_launch", side_effect=AssertionError("slow")):
            call()

    def test_fp8_one_dense_launch_per_non_empty_group(self):
        ks, m, n = [256, 0, 384, 128], 192, 320
        a, b, d, layout = fp8_inputs(ks, m, n)
        calls, loaded = self.recorded(lambda: dg.k_grouped_fp8_gemm_nt_contiguous(
            a, b, d, ks, layout, d))
        self.assertEqual(len(calls), 3, "group 1 is empty")
        # Views at the groups' offsets: A at P_g * M, B at P_g * N, D at g,
        # the scales at column P_g / 128 of the given (TMA-aligned) tables.
        for (plan, key, views), start, g, k in zip(calls, [0, 256, 640], [0, 2, 3],
                                                   [256, 384, 128]):
            self.assertEqual(key, ("k_grouped", "fp8", "mn"))
            self.assertEqual([tuple(t.shape) for t in views],
                             [(m, k), (n, k), (m, n), (m, k // 128), (n, k // 128)])
            self.assertEqual(offsets(views), [start * m, start * n, g * m * n,
                                              start // 128 * m, start // 128 * n])
            self.assertEqual(views[3].stride(), (1, m))
            self.assertTrue(all(t.untyped_storage().data_ptr() == s.untyped_storage().data_ptr()
                                for t, s in zip(views, (a[0], b[0], d, a[1], b[1]))),
                            "views, not copies")
        self.assert_accumulating(loaded, "fp8_gemm_1d1d")
        self.assert_fast_path(lambda: dg.k_grouped_fp8_gemm_nt_contiguous(
            a, b, d, ks, layout, d))
        # The dense plans of each K serve other group orders too.
        self.assert_fast_path(lambda: dg.k_grouped_fp8_gemm_nt_contiguous(
            a, b, d, [384, 128, 256, 0], layout, c=d, recipe=[1, 1, 128]))

    def test_fp8_scales_copied_once_into_the_aligned_layout(self):
        ks, n = [128, 256], 64
        for m in (100, 102):   # 102: the copy's columns padded to 104 floats
            a, b, d, layout = fp8_inputs(ks, m, n)
            sfa = a[1].contiguous()      # [M, KB] row-major: not MN-major
            with self.spy() as spy:
                dg.k_grouped_fp8_gemm_nt_contiguous((a[0], sfa), b, d, ks, layout, d)
            views = [c.args[2] for c in spy.call_args_list]
            aligned = quant.align(m, 4)
            self.assertEqual([v[3].stride() for v in views], [(1, aligned)] * 2)
            self.assertEqual(views[0][3].untyped_storage().data_ptr(),
                             views[1][3].untyped_storage().data_ptr(), "one copy")
            self.assertEqual(offsets([views[1][3]]), [aligned])
            self.assertTrue(torch.equal(views[1][3], sfa[:, 1:]))

    def test_c_copied_into_d_then_accumulated(self):
        ks, m, n = [128, 128], 64, 96
        a, b, d, layout = fp8_inputs(ks, m, n)
        c = torch.randn_like(d)
        dg.k_grouped_fp8_gemm_nt_contiguous(a, b, d, ks, layout, c)
        self.assertTrue(torch.equal(d, c), "dry runs launch nothing after the copy")
        ba, bb, bd, blayout = bf16_inputs(ks, m, n)
        dg.k_grouped_bf16_gemm_tn_contiguous(ba, bb, bd, ks, blayout, c)
        self.assertTrue(torch.equal(bd, c))

    def per_group_bf16(self):
        """BF16 as it runs where its one launch cannot: a launch per group."""
        patch = mock.patch.object(_kgrouped, "one_launch_bf16", False)
        patch.start()
        self.addCleanup(patch.stop)

    def test_bf16_one_dense_tn_launch_per_non_empty_group(self):
        self.per_group_bf16()
        ks, m, n = [0, 128, 384, 0, 256], 136, 264
        a, b, d, layout = bf16_inputs(ks, m, n)
        calls, loaded = self.recorded(lambda: dg.k_grouped_bf16_gemm_tn_contiguous(
            a, b, d, ks, layout, d))
        self.assertEqual(len(calls), 3)
        for (plan, key, views), start, g, k in zip(calls, [0, 128, 512], [1, 2, 4],
                                                   [128, 384, 256]):
            self.assertEqual(key, ("k_grouped", "bf16", "mn"))
            self.assertEqual([tuple(t.shape) for t in views], [(k, m), (k, n), (m, n)])
            self.assertEqual(offsets(views), [start * m, start * n, g * m * n])
        self.assert_accumulating(loaded, "bf16_gemm_tn")
        self.assert_fast_path(lambda: dg.k_grouped_bf16_gemm_tn_contiguous(
            a, b, d, ks, layout, d))

    def one_launch_spy(self):
        """(patch of _cache.get_kernel recording each launch's tensors, the
        list they go to)."""
        launches = []
        real = _cache.get_kernel

        def kernel_of(*args, **kw):
            kernel = real(*args, **kw)
            launch = kernel.launch
            kernel_spy = mock.Mock(wraps=kernel)
            kernel_spy.launch = lambda tensors: launches.append(tensors) or launch(tensors)
            return kernel_spy
        return mock.patch.object(_cache, "get_kernel", side_effect=kernel_of), launches

    def only_launch(self, family, call):
        """The tensors of the one launch call() makes, a kernel of `family`
        (loaded once with its default params) and no per-group launch."""
        spy, launches = self.one_launch_spy()
        with spy as get, mock.patch.object(_kgrouped, "_launch_group",
                                           side_effect=AssertionError("a per-group launch")):
            call()
        self.assertEqual([c.args[:2] for c in get.call_args_list], [(family, ())])
        self.assertEqual(len(launches), 1)
        return launches[0]

    def test_bf16_one_launch_over_all_groups(self):
        """BF16 by default: one launch of the K-grouped spec (its arguments
        checked by the dry-run runtime against the kernel's signature), no
        per-group launch, the ks on the device."""
        self.assertTrue(_kgrouped.one_launch_bf16)
        ks, m, n = [0, 128, 384, 0, 256], 128, 256
        a, b, d, layout = bf16_inputs(ks, m, n)
        c = torch.randn_like(d)
        ta, tb, td, tks = self.only_launch(_kgrouped.ONE_LAUNCH_BF16_FAMILY, lambda:
                                           dg.k_grouped_bf16_gemm_tn_contiguous(
                                               a, b, d, ks, layout, c))
        self.assertIs(ta, a)
        self.assertIs(tb, b)
        self.assertIs(td, d)
        self.assertEqual(tks.dtype, torch.int32)
        self.assertEqual(tks.tolist(), ks)
        self.assertTrue(torch.equal(d, c), "c copied into d before the launch")

    def one_launch_fp8(self):
        """FP8 as one launch (opt-in until run on the GPU)."""
        self.assertFalse(_kgrouped.one_launch_fp8, "off by default")
        patch = mock.patch.object(_kgrouped, "one_launch_fp8", True)
        patch.start()
        self.addCleanup(patch.stop)

    def test_fp8_one_launch_over_all_groups(self):
        """FP8 opted in: one launch of the K-grouped spec, A and B as lists of
        the groups' views (checked by the dry-run runtime against the
        kernel's tensor-list arguments), the scales' [KB, MN] transposes, no
        per-group launch."""
        self.one_launch_fp8()
        ks, m, n = [256, 0, 384, 128], 192, 320
        a, b, d, layout = fp8_inputs(ks, m, n)
        c = torch.randn_like(d)
        td, ta, tb, tsfa, tsfb, tks = self.only_launch(
            _kgrouped.ONE_LAUNCH_FP8_FAMILY,
            lambda: dg.k_grouped_fp8_gemm_nt_contiguous(a, b, d, ks, layout, c))
        self.assertEqual(td.untyped_storage().data_ptr(), d.untyped_storage().data_ptr())
        self.assertEqual(td.shape, d.shape)
        self.assertEqual([tuple(t.shape) for t in ta], [(m, k) for k in ks])
        self.assertEqual([tuple(t.shape) for t in tb], [(n, k) for k in ks])
        self.assertEqual(offsets([ta[0], ta[2], ta[3]]), [0, 256 * m, 640 * m])
        self.assertEqual(offsets([tb[2]]), [256 * n])
        self.assertTrue(all(t.untyped_storage().data_ptr() == a[0].untyped_storage().data_ptr()
                            for t in ta), "views, not copies")
        self.assertEqual((tuple(tsfa.shape), tsfa.stride()), ((6, m), (m, 1)))
        self.assertEqual(tuple(tsfb.shape), (6, n))
        self.assertEqual(tks.tolist(), ks)
        self.assertTrue(torch.equal(d, c), "c copied into d before the launch")

    def test_fp8_one_launch_in_chunks_of_max_groups(self):
        """More groups than the spec's MAX_GROUPS: a launch per chunk, each
        with its groups' d, ks and scale rows."""
        self.one_launch_fp8()
        groups = _kgrouped.ONE_LAUNCH_FP8_GROUPS
        ks = [128 * (g % 3) for g in range(groups + 5)]
        m, n = 64, 64
        a, b, d, layout = fp8_inputs(ks, m, n)
        spy, launches = self.one_launch_spy()
        with spy:
            dg.k_grouped_fp8_gemm_nt_contiguous(a, b, d, ks, layout, d)
        self.assertEqual(len(launches), 2)
        first_blocks = sum(ks[:groups]) // 128
        (d0, a0, _, sfa0, _, ks0), (d1, a1, _, sfa1, _, ks1) = launches
        self.assertEqual((len(a0), len(a1)), (groups, 5))
        self.assertEqual((d0.shape[0], d1.shape[0]), (groups, 5))
        self.assertEqual(offsets([d1]), [groups * m * n])
        self.assertEqual((ks0.tolist(), ks1.tolist()), (ks[:groups], ks[groups:]))
        self.assertEqual((sfa0.shape[0], sfa1.shape[0]),
                         (first_blocks, sum(ks[groups:]) // 128))
        self.assertTrue(torch.equal(sfa1, a[1].t()[first_blocks:]))

    def test_fp8_one_launch_takes_its_defines(self):
        """ONE_LAUNCH_FP8_DEFINES (bench/py_kgrouped_check.py
        --fp8-one-define) builds the one launch with those parameters."""
        self.one_launch_fp8()
        ks, m, n = [256, 128], 128, 320
        a, b, d, layout = fp8_inputs(ks, m, n)
        loaded = []
        real = _cache.get_kernel
        with mock.patch.object(_kgrouped, "ONE_LAUNCH_FP8_DEFINES", {"BLK_N": "160"}), \
                mock.patch.object(_cache, "get_kernel", side_effect=lambda *args, **kw:
                                  loaded.append(args[:2]) or real(*args, **kw)):
            dg.k_grouped_fp8_gemm_nt_contiguous(a, b, d, ks, layout, d)
        self.assertEqual(loaded, [(_kgrouped.ONE_LAUNCH_FP8_FAMILY, {"BLK_N": "160"})])

    def test_bf16_partial_tiles_launch_per_group(self):
        """M or N not a multiple of the one launch's 128-wide tile (not yet
        run on the GPU): a launch per group."""
        for m, n in ((136, 256), (128, 264)):
            ks = [128, 0, 256]
            a, b, d, layout = bf16_inputs(ks, m, n)
            calls, loaded = self.recorded(lambda: dg.k_grouped_bf16_gemm_tn_contiguous(
                a, b, d, ks, layout, d))
            self.assertEqual(len(calls), 2)
            self.assert_accumulating(loaded, "bf16_gemm_tn")

    def test_bf16_ks_copied_once_and_the_last_64_kept(self):
        _kgrouped._ks_tensors.clear()
        family = _kgrouped.ONE_LAUNCH_BF16_FAMILY
        first = _kgrouped._ks_on_device((128, 256), torch.device("cpu"), family)
        self.assertIs(_kgrouped._ks_on_device((128, 256), torch.device("cpu"), family),
                      first)
        for k in range(64):
            _kgrouped._ks_on_device((256, 128 * k), torch.device("cpu"), family)
        self.assertEqual(len(_kgrouped._ks_tensors), 64)
        self.assertNotIn(((128, 256), torch.device("cpu")), _kgrouped._ks_tensors,
                         "the least recently used went")

    def test_bf16_under_capture_one_launch_only_for_a_ks_seen_before(self):
        """While a CUDA graph is captured a ks not copied before (its copy
        would replay a host buffer) launches per group; one seen before
        launches once and is kept for the graph's replays."""
        _kgrouped._ks_tensors.clear()
        _kgrouped._ks_captured.clear()
        self.addCleanup(_kgrouped._ks_captured.clear)
        ks, m, n = [128, 0, 256], 128, 128
        a, b, d, layout = bf16_inputs(ks, m, n)
        with mock.patch.object(_cache, "capturing", return_value=True):
            calls, _ = self.recorded(lambda: dg.k_grouped_bf16_gemm_tn_contiguous(
                a, b, d, ks, layout, d))
        self.assertEqual(len(calls), 2, "per group: ks never seen")
        dg.k_grouped_bf16_gemm_tn_contiguous(a, b, d, ks, layout, d)   # copies ks
        spy, launches = self.one_launch_spy()
        with mock.patch.object(_cache, "capturing", return_value=True), spy:
            calls, _ = self.recorded(lambda: dg.k_grouped_bf16_gemm_tn_contiguous(
                a, b, d, ks, layout, d))
        self.assertEqual((len(calls), len(launches)), (0, 1))
        self.assertIs(launches[0][3], _kgrouped._ks_captured[(tuple(ks), d.device)])

    def test_bf16_with_a_64_row_alignment(self):
        self.per_group_bf16()
        self.addCleanup(dg.set_mk_alignment_for_contiguous_layout, 128)
        dg.set_mk_alignment_for_contiguous_layout(64)
        ks = [64, 192]
        a, b, d, layout = bf16_inputs(ks, 128, 128)
        with self.spy() as spy:
            dg.k_grouped_bf16_gemm_tn_contiguous(a, b, d, ks, layout, d)
        self.assertEqual(spy.call_count, 2)

    def test_empty_groups_and_problems_launch_nothing(self):
        ks, m, n = [0, 0, 0], 64, 96
        a, b, d, layout = fp8_inputs(ks, m, n)
        c = torch.randn_like(d)
        with self.spy() as spy:
            dg.k_grouped_fp8_gemm_nt_contiguous(a, b, d, ks, layout, c)
            self.assertTrue(torch.equal(d, c), "sum(K) = 0: D = C")
            ba, bb, bd, blayout = bf16_inputs(ks, m, n)
            dg.k_grouped_bf16_gemm_tn_contiguous(ba, bb, bd, ks, blayout, c)
            self.assertTrue(torch.equal(bd, c))
            # M = 0 (or N = 0): DeepGEMM returns before copying c.
            ks = [128, 256]
            a, b, d, layout = fp8_inputs(ks, 0, n)
            dg.k_grouped_fp8_gemm_nt_contiguous(a, b, d, ks, layout, torch.ones_like(d))
            ba, bb, bd, blayout = bf16_inputs(ks, m, 0)
            dg.k_grouped_bf16_gemm_tn_contiguous(ba, bb, bd, ks, blayout, torch.ones_like(bd))
        self.assertEqual(spy.call_count, 0)

    def test_make_fx_records_a_dense_op_per_group(self):
        from torch.fx.experimental.proxy_tensor import make_fx
        ks = [128, 0, 256]
        a, b, d, layout = bf16_inputs(ks, 64, 128)

        def f(a, b, d, layout):
            dg.k_grouped_bf16_gemm_tn_contiguous(a, b, d, ks, layout, d)
            return d
        graph = make_fx(f, tracing_mode="fake")(a, b, d, layout)
        self.assertEqual(graph.code.count("tilec.bf16_gemm"), 2)
        (qa, sfa), (qb, sfb), d8, layout8 = fp8_inputs(ks, 64, 128)

        def g(qa, sfa, qb, sfb, d, layout):
            dg.k_grouped_fp8_gemm_nt_contiguous((qa, sfa), (qb, sfb), d, ks, layout, d)
            return d
        graph = make_fx(g, tracing_mode="fake")(qa, sfa, qb, sfb, d8, layout8)
        self.assertEqual(graph.code.count("tilec.fp8_gemm"), 2)

    def test_torch_compile_traces_the_dense_ops(self):
        ks = [128, 0, 256]

        def gemm(a, b, d, layout):
            dg.k_grouped_bf16_gemm_tn_contiguous(a, b, d, ks, layout, d)
            return d + 1
        f, graphs = compiled_with_graphs(gemm)
        f(*bf16_inputs(ks, 64, 128))  # the ops' real implementations run (dry)
        self.assertEqual(len(graphs), 1)
        self.assertEqual(graphs[0].code.count("tilec.bf16_gemm"), 2)


class ViewsTest(Base):
    """The groups' views, multiplied as the dense kernels multiply their
    arguments, give DeepGEMM's d[g] = c[g] + A_g B_g^T: the launches are
    emulated in torch (no compiler, no GPU)."""

    @staticmethod
    def emulate(plan, key, views):
        if plan.kind == "fp8":   # fp8_gemm_1d1d: scales per row and 128 K
            a, b, d, sfa, sfb = views
            d += quant.dequantize_per_token(a, sfa) @ quant.dequantize_per_token(b, sfb).t()
        else:                    # bf16_gemm_tn: D += A^T B
            a, b, d = views
            d += a.float().t() @ b.float()

    def run_emulated(self, call):
        with mock.patch.object(_kgrouped, "_launch_group", side_effect=self.emulate):
            call()

    def test_fp8_groups_at_their_offsets(self):
        ks, m, n = [256, 0, 384, 128], 72, 40
        parts = {"a": [], "sfa": [], "b": [], "sfb": []}
        products = []
        for k in ks:   # each group cast per row and 128 K, as DeepGEMM's generator
            qa, sa = quant.per_token_cast_to_fp8(torch.randn(m, k))
            qb, sb = quant.per_token_cast_to_fp8(torch.randn(n, k))
            for name, value in (("a", qa.flatten()), ("sfa", sa), ("b", qb.flatten()),
                                ("sfb", sb)):
                parts[name].append(value)
            products.append(quant.dequantize_per_token(qa, sa) @
                            quant.dequantize_per_token(qb, sb).t())
        a, b = torch.cat(parts["a"]), torch.cat(parts["b"])
        sfa, sfb = torch.cat(parts["sfa"], dim=1), torch.cat(parts["sfb"], dim=1)
        c = torch.randn(len(ks), m, n)
        ref = c + torch.stack(products)
        layout = torch.tensor(ks, dtype=torch.int32)
        # SFA row-major (copied into the aligned layout) and MN-major aligned.
        for scales in ((sfa, sfb), (dg.get_mn_major_tma_aligned_tensor(sfa),
                                    dg.get_mn_major_tma_aligned_tensor(sfb))):
            d = torch.empty_like(c)
            self.run_emulated(lambda: dg.k_grouped_fp8_gemm_nt_contiguous(
                (a, scales[0]), (b, scales[1]), d, ks, layout, c))
            self.assertLess(quant.calc_diff(d, ref), 1e-9)

    def test_bf16_groups_at_their_offsets(self):
        """The per-group launches BF16 falls back to."""
        ks, m, n = [128, 384, 0, 256], 64, 48
        a = torch.randn(sum(ks), m).to(BF16)
        b = torch.randn(sum(ks), n).to(BF16)
        d = torch.randn(len(ks), m, n)
        ref, start = d.clone(), 0
        for g, k in enumerate(ks):
            ref[g] += a[start:start + k].float().t() @ b[start:start + k].float()
            start += k
        with mock.patch.object(_kgrouped, "one_launch_bf16", False):
            self.run_emulated(lambda: dg.k_grouped_bf16_gemm_tn_contiguous(
                a, b, d, ks, torch.tensor(ks, dtype=torch.int32), d))
        self.assertLess(quant.calc_diff(d, ref), 1e-9)


class ErrorsTest(ChecksBase):
    """Every error names the argument and the expected value, before any
    CUDA call."""

    def test_fp8(self):
        ks, m, n = [256, 128, 0, 384], 192, 320
        a, b, d, layout = fp8_inputs(ks, m, n)
        (qa, sfa), (qb, sfb) = a, b

        def f(a=a, b=b, d=d, ks=ks, layout=layout, c=D, **kwargs):
            return lambda: dg.k_grouped_fp8_gemm_nt_contiguous(
                a, b, d, ks, layout, d if c is D else c, **kwargs)
        self.fails(r"^k_grouped_fp8_gemm_nt_contiguous: argument 'a' must be a CUDA tensor, "
                   r"got a tensor on cpu$", f())
        self.fails(r"argument 'a' must be a pair \(data, scale factors\)", f(a=qa), TypeError)
        self.fails(r"argument 'a' must have dtype torch.float8_e4m3fn, got torch.bfloat16",
                   f(a=(qa.to(BF16), sfa)))
        self.fails(r"argument 'b' must be contiguous \(DeepGEMM's rule for K-grouped "
                   r"GEMMs\), got strides \[2\]",
                   f(b=(torch.randn(2 * qb.numel()).to(FP8)[::2], sfb)))
        self.fails(r"argument 'a' must hold sum\(ks_cpu\) \* M = 768 \* 192 = 147456 elements "
                   r"\(group g's \[M, K_g\] K-major from element P_g \* M on\), got 147440",
                   f(a=(qa[:-16], sfa)))
        self.fails(r"argument 'b' must hold sum\(ks_cpu\) \* N = 768 \* 320 = 245760",
                   f(b=(qa, sfb)))
        self.fails(r"argument 'd' must have dtype torch.float32, got torch.bfloat16",
                   f(d=d.to(BF16)))
        self.fails(r"argument 'd' must be 3-D \[G, M, N\], got shape \[192, 320\]",
                   f(d=d[0]))
        self.fails(r"argument 'd' must be contiguous \(DeepGEMM's rule for K-grouped GEMMs\), "
                   r"got strides \[1, 4, 768\]",
                   f(d=d.transpose(0, 2).contiguous().transpose(0, 2)))
        self.fails(r"argument 'ks_cpu' must have one K per group of 'd' \(4\), got 3",
                   f(ks=ks[:3]))
        self.fails(r"argument 'ks_cpu' must hold non-negative multiples of 128 \(the FP8 K "
                   r"alignment\), got 64 for group 1", f(ks=[256, 64, 64, 384]))
        self.fails(r"argument 'ks_cpu' must hold non-negative multiples of 128 .*got -128 "
                   r"for group 2", f(ks=[256, 256, -128, 384]))
        self.fails(r"argument 'ks_cpu' must list each group's K \(None or \[\] goes with "
                   r"use_psum_layout=True, SM100's layout\), got None", f(ks=None))
        self.fails(r"argument 'ks_cpu' must list each group's K .*got \[\]", f(ks=[]))
        self.fails(r"argument 'ks_cpu' must be a list of ints \(each group's K\), got "
                   r"\[256.0", f(ks=[256.0, 128, 0, 384]))
        self.fails(r"argument 'grouped_layout' must have shape \[G\] \(d's groups\) = \[4\], "
                   r"got \[3\]", f(layout=layout[:3]))
        self.fails(r"argument 'grouped_layout' must have dtype torch.int32, got torch.int64",
                   f(layout=layout.long()))
        self.fails(r"argument 'grouped_layout' must be contiguous, got stride 2",
                   f(layout=torch.zeros(8, dtype=torch.int32)[::2]))
        self.fails(r"argument 'c' must be given: DeepGEMM's K-grouped GEMMs compute "
                   r"D = C \+ A B\^T \(c=d adds to d\)", f(c=None))
        self.fails(r"argument 'c' must have shape \[G, M, N\] \(d's\) = \[4, 192, 320\], got "
                   r"\[4, 192, 256\]", f(c=torch.empty(4, 192, 256)))
        self.fails(r"argument 'c' must have dtype torch.float32, got torch.bfloat16",
                   f(c=d.to(BF16)))
        self.fails(r"argument 'c' must be contiguous", f(c=torch.empty(4, 320, 192)
                                                         .transpose(1, 2)))
        self.fails(r"argument 'sfa' must have shape \[M, sum\(ks_cpu\) / 128\] = \[192, 6\], "
                   r"got \[192, 5\]", f(a=(qa, sfa[:, :5])))
        self.fails(r"argument 'sfb' must have shape \[N, sum\(ks_cpu\) / 128\] = \[320, 6\], "
                   r"got \[3, 6\]", f(b=(qb, torch.ones(3, 6))))
        self.fails(r"argument 'sfb' must have dtype torch.float32, got torch.float16",
                   f(b=(qb, sfb.half())))
        self.fails(r"argument 'sfa' holds packed UE8M0 scale factors",
                   f(a=(qa, sfa.int())), NotImplementedError)
        n2 = 322
        self.fails(r"argument 'd' must have N a multiple of 4 \(each group's float32 rows "
                   r"are stored by TMA: 16-byte strides\), got N = 322",
                   f(b=(torch.randn(768 * n2).to(FP8), torch.ones(n2, 6)),
                     d=torch.empty(4, m, n2)))
        self.fails(r"argument 'recipe' must be \(1, 1, 128\) \(1D1D: A and B scaled per row "
                   r"and 128 K, the only K-grouped FP8 recipe\), got \(1, 128, 128\)",
                   f(recipe=(1, 128, 128)))
        self.fails(r"argument 'recipe' must be \(1, 1, 128\)", f(recipe=None))
        self.fails(r"argument 'use_psum_layout' must be False: DeepGEMM's FP8 NT K-grouped "
                   r"GEMM has no psum layout", f(use_psum_layout=True))
        self.fails(r"argument 'use_psum_layout' must be a bool, got 1", f(use_psum_layout=1))
        self.fails(r"argument 'compiled_dims' must be a string of the letters m, n, k",
                   f(compiled_dims="q"))
        tilec.set_dry_run(True)   # CPU tensors pass the device check, meta ones not
        self.fails(r"argument 'grouped_layout' must be a CUDA tensor, got a tensor on meta",
                   f(layout=layout.to("meta")))
        tilec.set_dry_run(False)

    def test_bf16(self):
        ks, m, n = [128, 0, 256], 192, 320
        a, b, d, layout = bf16_inputs(ks, m, n)

        def f(a=a, b=b, d=d, ks=ks, layout=layout, c=D, **kwargs):
            return lambda: dg.k_grouped_bf16_gemm_tn_contiguous(
                a, b, d, ks, layout, d if c is D else c, **kwargs)
        self.fails(r"^k_grouped_bf16_gemm_tn_contiguous: argument 'a' must be a CUDA tensor, "
                   r"got a tensor on cpu$", f())
        self.fails(r"argument 'a' must be a CUDA tensor, got a tensor on meta",
                   f(a.to("meta"), b.to("meta"), d.to("meta"), layout=layout.to("meta")))
        self.fails(r"argument 'a' must have dtype torch.bfloat16, got torch.float16",
                   f(a=a.half()))
        self.fails(r"argument 'b' must be 2-D \[sum\(ks_cpu\), N\], got shape \[384\]",
                   f(b=b[:, 0]))
        self.fails(r"argument 'a' must have shape \[sum\(ks_cpu\), M\] = \[384, 192\], got "
                   r"\[256, 192\]", f(a=a[:256]))
        self.fails(r"argument 'b' must have shape \[sum\(ks_cpu\), N\] = \[384, 320\], got "
                   r"\[384, 192\]", f(b=a))
        self.fails(r"argument 'a' must be contiguous \(DeepGEMM's rule for K-grouped GEMMs\), "
                   r"got strides \[1, 384\]", f(a=a.t().contiguous().t()))
        self.fails(r"argument 'a' must have M a multiple of 8 \(its \[sum\(K\), M\] rows are "
                   r"read by TMA: 16-byte strides\), got M = 196",
                   f(a=torch.empty(384, 196, dtype=BF16), d=torch.empty(3, 196, n)))
        self.fails(r"argument 'ks_cpu' must hold non-negative multiples of 128 "
                   r"\(get_mk_alignment_for_contiguous_layout\), got 64 for group 0",
                   f(ks=[64, 64, 256]))
        self.fails(r"argument 'd' must have dtype torch.float32, got torch.bfloat16",
                   f(d=d.to(BF16)))
        self.fails(r"argument 'c' must be given", f(c=None))
        self.fails(r"argument 'use_psum_layout': the psum layout of K-grouped BF16 GEMMs is "
                   r"SM100's", f(use_psum_layout=True), NotImplementedError)

    def test_fp8_tn_is_sm100s(self):
        self.fails(r"k_grouped_fp8_gemm_tn_contiguous: its operands are MN-major FP8 .* "
                   r"FP8 wgmma on sm_90a cannot read",
                   lambda: dg.k_grouped_fp8_gemm_tn_contiguous(None, None, None, [128], None),
                   NotImplementedError)


@needs_torch
@needs_extension
class SignatureTest(unittest.TestCase):

    def test_deepgemm_defaults(self):
        import inspect
        fp8 = inspect.signature(dg.k_grouped_fp8_gemm_nt_contiguous).parameters
        self.assertEqual(list(fp8), ["a", "b", "d", "ks_cpu", "grouped_layout", "c", "recipe",
                                     "compiled_dims", "use_psum_layout"])
        self.assertEqual((fp8["recipe"].default, fp8["compiled_dims"].default),
                         ((1, 1, 128), "mn"))
        self.assertEqual(list(inspect.signature(dg.k_grouped_fp8_gemm_tn_contiguous).parameters),
                         list(fp8))
        bf16 = inspect.signature(dg.k_grouped_bf16_gemm_tn_contiguous).parameters
        self.assertEqual(list(bf16), ["a", "b", "d", "ks_cpu", "grouped_layout", "c",
                                      "compiled_dims", "use_psum_layout"])


if __name__ == "__main__":
    unittest.main()

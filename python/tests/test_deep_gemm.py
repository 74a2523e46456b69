"""tilec.deep_gemm without a GPU.

- Dry runs (tilec.set_dry_run): the whole call path on CPU tensors -- the
  checks, the config, the compile and the disk cache, the plan and the fast
  path -- with the runtime checking every kernel argument instead of
  launching, so that a wrong mapping of arguments to the kernel fails here.
- Every ValueError, on CPU and meta tensors, before any CUDA call.
- The NotImplementedError of each DeepGEMM function tilec does not have.
- The custom ops: registered, traced by make_fx and torch.compile.
"""

import unittest
from unittest import mock

from tilec_test_support import (CacheDirTest, compiled_with_graphs, needs_compiler,
                                needs_extension, needs_torch, torch)

import tilec

if torch is not None:
    import tilec.deep_gemm as dg
    from tilec import _cache, _configs, _gemm, quant

BF16 = torch.bfloat16 if torch else None


def bf16(*shape):
    return torch.randn(*shape).to(BF16)


def fp8_inputs(m, n, k, recipe="1d2d"):
    """DeepGEMM's test inputs: (a, sfa) per token, (b, sfb) per block (1d2d)
    or per token (1d1d), scales as the casts return them (contiguous)."""
    a, sfa = dg.per_token_cast_to_fp8(torch.randn(m, k), False)
    if recipe == "1d2d":
        b, sfb = dg.per_block_cast_to_fp8(torch.randn(n, k), False)
    else:
        b, sfb = dg.per_token_cast_to_fp8(torch.randn(n, k), False)
    return (a, sfa), (b, sfb)


@needs_torch
@needs_extension
class Base(CacheDirTest):
    dry = True

    def setUp(self):
        super().setUp()
        tilec.set_dry_run(self.dry)
        self.addCleanup(tilec.set_dry_run, False)


class ChecksBase(Base):
    """Tests of the argument checks: not in dry mode (the device checks are
    live), and no check may touch CUDA."""
    dry = False

    def tearDown(self):
        self.assertFalse(torch.cuda.is_initialized(), "a check touched CUDA")
        super().tearDown()

    def fails(self, pattern, call, error=ValueError):
        with self.assertRaisesRegex(error, pattern):
            call()


@needs_compiler
class DryRunTest(Base):

    def loaded_families(self, call):
        """The families whose kernels `call` takes from _cache.get_kernel."""
        loaded = []
        real_get_kernel = _cache.get_kernel
        with mock.patch.object(_cache, "get_kernel", side_effect=lambda *args, **kw:
                               loaded.append(args[0]) or real_get_kernel(*args, **kw)):
            call()
        return loaded

    def assert_fast_path(self, call):
        """The call succeeds with every slow path disabled."""
        with mock.patch.object(_gemm, "bf16_gemm", side_effect=AssertionError("slow")), \
                mock.patch.object(_gemm, "fp8_gemm", side_effect=AssertionError("slow")):
            call()

    def test_bf16_nt_records_a_plan_and_takes_the_fast_path(self):
        a, b, d = bf16(256, 512), bf16(384, 512), torch.empty(256, 384, dtype=BF16)
        dg.bf16_gemm_nt(a, b, d)
        self.assert_fast_path(lambda: dg.bf16_gemm_nt(a, b, d))
        self.assert_fast_path(lambda: dg.bf16_gemm_nt(bf16(256, 512), bf16(384, 512),
                                                       torch.empty(256, 384, dtype=BF16)))
        with self.assertRaises(AssertionError):  # a new shape: the slow path
            self.assert_fast_path(lambda: dg.bf16_gemm_nt(
                bf16(128, 512), b, torch.empty(128, 384, dtype=BF16)))

    def test_bf16_layouts(self):
        m, n, k = 200, 136, 264
        a, b, d = bf16(m, k), bf16(n, k), torch.empty(m, n, dtype=BF16)
        b_mn = b.t().contiguous().t()         # [N, K], MN-major: the NN kernel
        dg.bf16_gemm_nt(a, b_mn, d)
        dg.bf16_gemm_nn(a, b.t().contiguous(), d)   # b given as [K, N]
        dg.bf16_gemm_tt(a.t(), b, d)               # a given as [K, M], A K-major
        dg.bf16_gemm_tn(a.t(), b.t().contiguous(), d)
        families = {key[1] for key in _gemm._dispatchers if key[0] == "bf16"}
        self.assertEqual(families, {"nt", "nn", "tt", "tn"})

    def test_every_bf16_layout_output_and_accumulation_the_specs_have(self):
        from tilec import _specs
        m, n, k = 256, 384, 512
        a, b = bf16(m, k), bf16(n, k)
        for dtype in (BF16, torch.float32):
            if _specs.FAMILIES["bf16_gemm_nt"].outputs == ("bf16",) and dtype != BF16:
                continue
            d = torch.empty(m, n, dtype=dtype)
            c = d if _specs.FAMILIES["bf16_gemm_nt"].accumulates else None
            calls = [lambda: dg.bf16_gemm_nt(a, b, d, c=c),
                     lambda: dg.bf16_gemm_nn(a, b.t().contiguous(), d, c=c),
                     lambda: dg.bf16_gemm_tt(a.t(), b, d)]
            if "bf16_gemm_tn" in _specs.FAMILIES:  # A MN-major
                calls += [lambda: dg.bf16_gemm_tn(a.t().contiguous(), b.t().contiguous(), d),
                          lambda: dg.bf16_gemm_tt(a.t().contiguous(), b, d, c=c),
                          lambda: dg.bf16_gemm_nt(a.t().contiguous().t(), b, d)]
            for call in calls:
                call()  # the runtime checks each kernel argument

    def test_fp8_1d2d_with_deepgemm_scale_layouts(self):
        m, n, k = 200, 320, 640
        a, b = fp8_inputs(m, n, k)
        d = torch.empty(m, n, dtype=BF16)
        dg.fp8_gemm_nt(a, b, d)                       # SFA [M, KB] contiguous: copied
        aligned = (a[0], dg.get_mn_major_tma_aligned_tensor(a[1]))
        self.assertEqual(aligned[1].stride(), (1, quant.align(m, 4)))
        dg.fp8_gemm_nt(aligned, b, d)
        self.assert_fast_path(lambda: dg.fp8_gemm_nt(aligned, b, d))
        self.assert_fast_path(lambda: dg.fp8_fp4_gemm_nt(aligned, b, d))
        dg.fp8_gemm_nt(aligned, (b[0], b[1].t().contiguous().t()), d)  # SFB MN-major
        d32 = torch.empty(m, n, dtype=torch.float32)
        dg.fp8_gemm_nt(aligned, b, d32, c=d32)        # 1D2D, D += (f32)

    def test_fp8_split_k_plan_runs_two_kernels_through_a_workspace(self):
        # M = 1, N = 2112, K = 7168: the config table splits K 4 ways.
        defines = dict(_configs.choose("fp8_gemm_1d2d", 1, 2112, 7168)[0])
        self.assertEqual((defines["SPLIT_K"], defines["OUT"]), ("4", "f32"))
        a, b = fp8_inputs(1, 2112, 7168)
        aligned = (a[0], dg.get_mn_major_tma_aligned_tensor(a[1]))
        d = torch.empty(1, 2112, dtype=BF16)
        self.assertEqual(self.loaded_families(lambda: dg.fp8_gemm_nt(aligned, b, d)),
                         ["fp8_gemm_1d2d", "splitk_reduce"])
        self.assert_fast_path(lambda: dg.fp8_gemm_nt(aligned, b, d))
        # f32 output and no split with accumulation.
        d32 = torch.empty(1, 2112, dtype=torch.float32)
        dg.fp8_gemm_nt(aligned, b, d32)
        acc = dict(_configs.choose("fp8_gemm_1d2d", 1, 2112, 7168, out="f32",
                                   accumulate=True)[0])
        self.assertNotIn("SPLIT_K", acc)

    def test_first_call_runs_when_the_tuned_build_finishes_while_it_plans(self):
        # The tiered JIT's race: the background compile of the configuration
        # sets the plan's retire flag after plan_kernel returned the quick
        # build and before the call launches (split K loads the reduce
        # kernel in between). The call must still run, and the next one
        # take the slow path again. Seen on the H200 at 128x576x7168.
        a, b = fp8_inputs(128, 576, 7168)
        aligned = (a[0], dg.get_mn_major_tma_aligned_tensor(a[1]))
        d = torch.empty(128, 576, dtype=BF16)
        real_plan_kernel = _cache.plan_kernel

        def tuned_ready_at_once(*args, **kwargs):
            kernel, _ = real_plan_kernel(*args, **kwargs)
            flag = _gemm._runtime.RetireFlag()
            flag.set()
            return kernel, flag

        with mock.patch.object(_cache, "plan_kernel", side_effect=tuned_ready_at_once):
            dg.fp8_gemm_nt(aligned, b, d)
            with self.assertRaises(AssertionError):  # the plan retired: slow path
                self.assert_fast_path(lambda: dg.fp8_gemm_nt(aligned, b, d))

    def test_bf16_split_k_plan_runs_two_kernels_through_a_workspace(self):
        # M = 1, N = 2112, K = 7168: bf16_gemm_nt's 16x64 tiles split 4 ways,
        # and splitk_reduce follows the BF16 GEMM's config.
        defines = dict(_configs.choose("bf16_gemm_nt", 1, 2112, 7168)[0])
        self.assertEqual((defines["BLK_M"], defines["SPLIT_K"], defines["OUT"]),
                         ("16", "4", "f32"))
        reduce = dict(_configs.choose("splitk_reduce", 1, 2112, 7168, inputs="bf16")[0])
        self.assertEqual((reduce["BLK_M"], reduce["SPLIT_K"]), ("16", "4"))
        a, b = bf16(1, 7168), bf16(2112, 7168)
        d = torch.empty(1, 2112, dtype=BF16)
        self.assertIn("splitk_reduce",
                      self.loaded_families(lambda: dg.bf16_gemm_nt(a, b, d)))
        self.assert_fast_path(lambda: dg.bf16_gemm_nt(a, b, d))
        # The other layouts have no split: one kernel, no reduce.
        self.assertNotIn("SPLIT_K", dict(_configs.choose("bf16_gemm_nn", 1, 2112, 7168)[0]))

    def test_fp8_skip_head_mid(self):
        # DeepGEMM's test shape: heads of 128 + 64 + 128 columns, the
        # product's 256 per head; d is 320 per head.
        m, n, k = 128, 1024, 512
        a, b = fp8_inputs(m, n, k)
        aligned = (a[0], dg.get_mn_major_tma_aligned_tensor(a[1]))
        d = torch.zeros(m, n // 256 * 320, dtype=BF16)
        dg.fp8_gemm_nt_skip_head_mid(aligned, b, d, (128, 64, 128))
        # The second call launches the recorded plan: no checks, no plan.
        with mock.patch.object(_gemm, "fp8_plan", side_effect=AssertionError("slow")):
            dg.fp8_gemm_nt_skip_head_mid(aligned, b, d, (128, 64, 128))
        defines = dict(_gemm._head_split_defines(
            _configs.choose("fp8_gemm_1d2d", m, n, k)[0], (128, 64, 128), "bf16"))
        self.assertEqual((defines["HEAD_LEFT"], defines["HEAD_MID"],
                          defines["HEAD_RIGHT"]), ("128", "64", "128"))
        self.assertNotIn("SPLIT_K", defines)
        self.assertEqual(128 % int(defines["BLK_N"]), 0)
        # A split-K pick (M = 1, long K) loses its split and writes bf16.
        small = dict(_gemm._head_split_defines(
            _configs.choose("fp8_gemm_1d2d", 1, 2112, 7168)[0], (96, 0, 96), "bf16"))
        self.assertEqual((small["OUT"], small["BLK_N"]), ("bf16", "48"))
        self.assertNotIn("SPLIT_K", small)

    def test_fp8_1d1d_weight_gradient(self):
        m, n, k = 256, 192, 384
        a, b = fp8_inputs(m, n, k, "1d1d")
        d = torch.randn(m, n)
        dg.fp8_gemm_nt(a, b, d, c=d, recipe=(1, 1, 128))
        c = torch.randn(m, n)
        dg.fp8_gemm_nt(a, b, d, c=c, recipe=(1, 1, 128))   # c copied into d
        self.assertTrue(torch.equal(d, c), "dry runs launch nothing after the copy")
        dg.fp8_gemm_nt(a, b, torch.empty(m, n, dtype=BF16), recipe=(1, 1, 128))
        dg.fp8_gemm_nt(a, b, d, recipe_a=(1, 128), recipe_b=(1, 128))

    def test_empty_problems(self):
        d = torch.full((4, 8), 3.0, dtype=BF16)
        dg.bf16_gemm_nt(bf16(4, 0), bf16(8, 0), d)
        self.assertEqual(d.abs().sum().item(), 0.0, "K = 0 writes zeros")
        dg.bf16_gemm_nt(bf16(0, 64), bf16(8, 64), torch.empty(0, 8, dtype=BF16))

    def test_set_num_sms_chooses_again(self):
        a, b, d = bf16(128, 512), bf16(2112, 512), torch.empty(128, 2112, dtype=BF16)
        dg.bf16_gemm_nt(a, b, d)
        self.assertEqual(dg.get_num_sms(), 132)
        dg.set_num_sms(66)
        self.addCleanup(setattr, _gemm, "_num_sms_override", None)
        self.assertEqual(dg.get_num_sms(), 66)
        self.assertFalse(any(len(x) for x in _gemm._dispatchers.values()))
        dg.bf16_gemm_nt(a, b, d)
        with self.assertRaises(ValueError):
            dg.set_num_sms(0)

    def test_memory_cache_hit(self):
        from tilec import _cache
        key = ("bf16_gemm_nt", (("BLK_N", "128"), ("STAGES", "6")))
        first = _cache.get_kernel(*key)
        self.assertIs(_cache.get_kernel(*key), first)


@needs_torch
class CublasTest(unittest.TestCase):

    def test_cublaslt_through_torch(self):
        a, b = bf16(64, 96), bf16(48, 96)
        ref = a.float() @ b.float().t()
        d = torch.empty(64, 48, dtype=BF16)
        dg.cublaslt_gemm_nt(a, b, d)
        self.assertLess(quant.calc_diff(d, ref), 1e-5)
        d32 = torch.ones(64, 48)
        dg.cublaslt_gemm_nn(a, b.t(), d32, c=d32)
        self.assertLess(quant.calc_diff(d32, ref + 1), 1e-5)
        dg.cublaslt_gemm_tt(a.t(), b, d)
        dg.cublaslt_gemm_tn(a.t(), b.t(), d)
        self.assertLess(quant.calc_diff(d, ref), 1e-5)

    def test_casts_and_layout_helpers(self):
        x = torch.randn(300, 256)
        q, sf = dg.per_channel_cast_to_fp8(x[:256], False)
        self.assertEqual((tuple(q.shape), tuple(sf.shape)), ((256, 256), (2, 256)))
        _, sf8 = dg.per_token_cast_to_fp8(x, True)
        self.assertTrue(torch.equal(sf8, dg.ceil_to_ue8m0(sf8)), "powers of two")
        self.assertEqual(dg.get_tma_aligned_size(333, 4), 336)
        sfa = torch.rand(333, 2)
        out = dg.transform_sf_into_required_layout(sfa, 333, 256, (1, 128, 128), is_sfa=True)
        self.assertEqual(out.stride(), (1, 336))
        self.assertIs(dg.get_mn_major_tma_aligned_tensor(out), out)
        sfb = torch.rand(3, 2)
        self.assertIs(dg.transform_sf_into_required_layout(sfb, 333, 256, (128, 128)), sfb)
        batched = dg.get_mn_major_tma_aligned_tensor(torch.rand(2, 5, 3))
        self.assertEqual(batched.stride(), (24, 1, 8))
        dg.set_mk_alignment_for_contiguous_layout(64)
        self.assertEqual(dg.get_m_alignment_for_contiguous_layout(), 64)
        dg.set_mk_alignment_for_contiguous_layout(128)


class ErrorsTest(ChecksBase):

    """Every error names the argument and the expected value, on CPU and
    meta tensors, before any CUDA call."""

    def test_skip_head_mid_names_the_argument(self):
        m, n, k = 128, 1024, 512
        a, b = fp8_inputs(m, n, k)
        aligned = (a[0], dg.get_mn_major_tma_aligned_tensor(a[1]))
        d = torch.zeros(m, n // 256 * 320, dtype=BF16)
        fn = dg.fp8_gemm_nt_skip_head_mid
        self.fails(r"argument 'd' must have shape \[M, N \+ N / 256 \* 64\]",
                   lambda: fn(aligned, b, torch.zeros(m, n, dtype=BF16), (128, 64, 128)))
        self.fails("argument 'head_splits' must be three ints",
                   lambda: fn(aligned, b, d, (128, 64)))
        self.fails("argument 'head_splits' must have left and right > 0",
                   lambda: fn(aligned, b, d, (0, 64, 256)))
        self.fails(r"argument 'b': N = 1024 must be a multiple of left \+ right = 384",
                   lambda: fn(aligned, b, d, (192, 64, 192)))
        self.fails("argument 'head_splits': tilec's tiles are multiples of 16",
                   lambda: fn(aligned, b, d, (120, 8, 136)), NotImplementedError)

    def bf16_fails(self, pattern, a, b, d, function=None, **kwargs):
        with self.assertRaisesRegex(ValueError, pattern):
            (function or dg.bf16_gemm_nt)(a, b, d, **kwargs)

    def test_bf16_values(self):
        a, b, d = bf16(256, 512), bf16(384, 512), torch.empty(256, 384, dtype=BF16)
        for device in ("cpu", "meta"):
            self.bf16_fails(rf"argument 'a' must be a CUDA tensor, got a tensor on {device}",
                            a.to(device), b.to(device), d.to(device))
        self.bf16_fails(r"argument 'a' must have dtype torch.bfloat16, got torch.float16",
                        a.half(), b, d)
        self.bf16_fails(r"argument 'd' must have dtype torch.bfloat16 or torch.float32",
                        a, b, d.half())
        self.bf16_fails(r"argument 'a' must be 2-D \[M, K\], got shape \[2, 256, 512\]",
                        bf16(2, 256, 512), b, d)
        self.bf16_fails(r"argument 'b' must have shape \[N, K\] with K = 512 \(a's K\) = "
                        r"\[384, 512\], got \[384, 256\]", a, bf16(384, 256), d)
        self.bf16_fails(r"argument 'd' must have shape \[M, N\] = \[256, 384\], got "
                        r"\[256, 383\]", a, b, torch.empty(256, 383, dtype=BF16))
        self.bf16_fails(r"argument 'a' A must be K-major \(stride\(1\) == 1\) or MN-major",
                        bf16(256, 1024)[:, ::2], b, d)
        self.bf16_fails(r"argument 'd' D must be row-major", a, b,
                        torch.empty(384, 256, dtype=BF16).t())
        self.bf16_fails(r"argument 'a' needs a stride of dim 0 of a multiple of 16 bytes "
                        r"\(8 elements\) for TMA, got 12 elements", bf16(256, 12),
                        bf16(384, 12), d)
        self.bf16_fails(r"argument 'c' must have shape \[M, N\] \(d's\)", a, b, d,
                        c=torch.empty(2, 2, dtype=BF16))
        self.bf16_fails(r"argument 'compiled_dims' must be a string of the letters m, n, k",
                        a, b, d, compiled_dims="xy")
        self.bf16_fails(r"bf16_gemm_nn: argument 'b' must have shape \[N, K\] with K = 512",
                        a, b, d, function=dg.bf16_gemm_nn)
        with self.assertRaisesRegex(TypeError, "argument 'b' must be a torch.Tensor"):
            dg.bf16_gemm_nt(a, None, d)

    def test_misaligned_address_in_dry_runs(self):
        tilec.set_dry_run(True)
        base = bf16(256, 520)
        with self.assertRaisesRegex(ValueError, r"argument 'a' must start at a 16-byte "
                                                r"aligned address"):
            dg.bf16_gemm_nt(base[:, 1:513], bf16(384, 512), torch.empty(256, 384, dtype=BF16))
        with self.assertRaisesRegex(ValueError, r"argument 'b' must be a CUDA tensor, "
                                                r"got a tensor on meta"):
            dg.bf16_gemm_nt(bf16(256, 512), bf16(384, 512).to("meta"),
                            torch.empty(256, 384, dtype=BF16))

    def fp8_fails(self, pattern, a, b, d, error=ValueError, **kwargs):
        with self.assertRaisesRegex(error, pattern):
            dg.fp8_gemm_nt(a, b, d, **kwargs)

    def test_fp8_values(self):
        m, n, k = 256, 384, 512
        a, b = fp8_inputs(m, n, k)
        d = torch.empty(m, n, dtype=BF16)
        self.fp8_fails(r"fp8_fp4_gemm_nt: argument 'a' must be a CUDA tensor", a, b, d)
        self.fp8_fails(r"argument 'a' must be a pair \(data, scale factors\)", a[0], b, d,
                       error=TypeError)
        self.fp8_fails(r"argument 'a' must have dtype torch.float8_e4m3fn, got torch.bfloat16",
                       (a[0].to(BF16), a[1]), b, d)
        self.fp8_fails(r"argument 'b' must be K-major \(\[N, K\] with stride\(1\) == 1\): FP8 "
                       r"wgmma on sm_90a reads K-major operands only",
                       a, (b[0].t().contiguous().t(), b[1]), d)
        self.fp8_fails(r"argument 'sfa' must have shape \[M, ceil\(K / 128\)\] = \[256, 4\], "
                       r"got \[256, 3\]", (a[0], a[1][:, :3]), b, d)
        self.fp8_fails(r"argument 'sfa' must have dtype torch.float32", (a[0], a[1].half()), b, d)
        self.fp8_fails(r"argument 'sfb' must have shape \[ceil\(N / 128\), ceil\(K / 128\)\] = "
                       r"\[3, 4\]", a, (b[0], torch.ones(n, 4)), d)
        self.fp8_fails(r"argument 'sfb' must be contiguous or contiguous after a transpose",
                       a, (b[0], torch.ones(3, 8)[:, ::2]), d)
        self.fp8_fails(r"argument 'd' must have dtype torch.bfloat16 or torch.float32", a, b,
                       d.half())
        self.fp8_fails(r"argument 'recipe' must be \(gran_m_a, gran_n_b, gran_k\)", a, b, d,
                       recipe=(1, 128))
        self.fp8_fails(r"arguments 'recipe_a' and 'recipe_b' go together", a, b, d,
                       recipe_a=(1, 128))
        self.fp8_fails(r"argument 'c' must have dtype torch.bfloat16", a, b, d,
                       c=torch.empty(m, n))


@needs_torch
@needs_extension
class NotImplementedTest(unittest.TestCase):

    def test_each_missing_function_names_itself(self):
        names = list(dg._NOT_IMPLEMENTED) + [
            "set_tc_util", "get_tc_util", "set_block_size_multiple_of", "set_pdl",
            "get_pdl", "per_token_cast_to_fp4", "transpose_packed_fp4",
            "cast_back_from_fp4", "pack_ue8m0_to_int", "unpack_ue8m0_from_int",
            "get_mn_major_tma_aligned_packed_ue8m0_tensor"]
        for name in names:
            with self.subTest(name=name):
                with self.assertRaisesRegex(NotImplementedError, name):
                    getattr(dg, name)(None, None)

    def test_what_the_kernels_lack_names_the_argument(self):
        from tilec import _specs
        a, b, d = bf16(256, 512), bf16(384, 512), torch.empty(256, 384, dtype=BF16)
        cases = []
        # Checked where the BF16 specs found lack the feature (the examples
        # that stand in before lib/Kernels has BF16 specs).
        if "bf16_gemm_tn" not in _specs.FAMILIES:
            cases += [
                (r"bf16_gemm_nt: argument 'a' is MN-major", lambda: dg.bf16_gemm_nt(
                    a.t().contiguous().t(), b, d)),
                (r"bf16_gemm_tn: argument 'a' is MN-major", lambda: dg.bf16_gemm_tn(
                    a.t().contiguous(), b.t().contiguous(), d))]
        if "f32" not in _specs.FAMILIES["bf16_gemm_nt"].outputs:
            cases.append((r"argument 'd' has dtype torch.float32: tilec's BF16 kernels "
                          r"write torch.bfloat16 only",
                          lambda: dg.bf16_gemm_nt(a, b, torch.empty(256, 384))))
        if not _specs.FAMILIES["bf16_gemm_nt"].accumulates:
            cases.append((r"argument 'c' \(accumulation",
                          lambda: dg.bf16_gemm_nt(a, b, d, c=d)))
        (qa, sfa), (qb, sfb) = fp8_inputs(256, 384, 512)
        cases += [
            (r"argument 'c' with a torch.bfloat16 d", lambda: dg.fp8_gemm_nt(
                (qa, sfa), (qb, sfb), d, c=d)),
            (r"argument 'recipe'", lambda: dg.fp8_gemm_nt(
                (qa, sfa), (qb, sfb), d, recipe=(1, 128, 64))),
            (r"argument 'sfa' holds packed UE8M0", lambda: dg.fp8_gemm_nt(
                (qa, sfa.int()), (qb, sfb), d)),
            (r"argument 'a' looks like packed FP4", lambda: dg.fp8_gemm_nt(
                (qa.view(torch.int8), sfa), (qb, sfb), d)),
        ]
        for pattern, call in cases:
            with self.subTest(pattern=pattern):
                with self.assertRaisesRegex(NotImplementedError, pattern):
                    call()


@needs_compiler
class CustomOpTest(Base):

    def test_registered(self):
        self.assertTrue(hasattr(torch.ops.tilec, "bf16_gemm"))
        self.assertTrue(hasattr(torch.ops.tilec, "fp8_gemm"))
        schema = str(torch.ops.tilec.bf16_gemm.default._schema)
        self.assertRegex(schema, r"Tensor\(a\d+!\) d")

    def test_make_fx_records_one_node_and_checks_shapes(self):
        from torch.fx.experimental.proxy_tensor import make_fx

        def f(a, b, d):
            dg.bf16_gemm_nt(a, b, d)
            return d
        a, b, d = bf16(256, 512), bf16(384, 512), torch.empty(256, 384, dtype=BF16)
        graph = make_fx(f, tracing_mode="fake")(a, b, d)
        self.assertIn("tilec.bf16_gemm", graph.code)
        with self.assertRaisesRegex(ValueError, "argument 'b' must have shape"):
            make_fx(f, tracing_mode="fake")(a, bf16(384, 256), d)

        def g(a, sfa, b, sfb, d):
            dg.fp8_gemm_nt((a, sfa), (b, sfb), d)
            return d
        (qa, sfa), (qb, sfb) = fp8_inputs(256, 384, 512)
        graph = make_fx(g, tracing_mode="fake")(qa, sfa, qb, sfb, d)
        self.assertIn("tilec.fp8_gemm", graph.code)

    def test_torch_compile_traces_the_op(self):
        def gemm(a, b, d):
            dg.bf16_gemm_nt(a, b, d)
            return d + 1
        f, graphs = compiled_with_graphs(gemm)
        a, b, d = bf16(256, 512), bf16(384, 512), torch.empty(256, 384, dtype=BF16)
        f(a, b, d)  # the op's real implementation runs (a dry run)
        self.assertEqual(len(graphs), 1)
        self.assertIn("tilec.bf16_gemm", graphs[0].code)


if __name__ == "__main__":
    unittest.main()

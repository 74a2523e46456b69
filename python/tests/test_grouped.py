"""tilec.deep_gemm's M-grouped GEMMs without a GPU.

- Dry runs: each layout (contiguous, psum, masked) of the BF16 and FP8
  kernels through the checks, the config, the compile, the plan (whose 2-D
  tensors get a leading dim of 1 for the kernel) and the fast path, with the
  runtime checking every kernel argument instead of launching.
- Every ValueError, before any CUDA call; the NotImplementedErrors.
- The configs the compiler library picks for grouped problems.

The K-grouped GEMMs have their own tests (test_kgrouped.py).
"""

import unittest
from unittest import mock

from test_deep_gemm import Base, ChecksBase  # dry runs on (off), a cache directory of its own
from tilec_test_support import (compiled_with_graphs, needs_compiler, needs_extension,
                                needs_torch, torch)

import tilec

if torch is not None:
    import tilec.deep_gemm as dg
    from tilec import _cache, _configs, _grouped, quant

BF16 = torch.bfloat16 if torch else None
FP8 = torch.float8_e4m3fn if torch else None


def contiguous_inputs(group_rows, n, k, dtype, alignment=128):
    """DeepGEMM's contiguous layout: each group's rows padded to the
    alignment; grouped_layout[m] = its group or -1 (padding)."""
    groups = len(group_rows)
    layout = []
    for g, rows in enumerate(group_rows):
        layout += [g] * rows + [-1] * (quant.align(rows, alignment) - rows)
    m = len(layout)
    grouped_layout = torch.tensor(layout, dtype=torch.int32)
    a = torch.randn(m, k).to(dtype)
    b = torch.randn(groups, n, k).to(dtype)
    d = torch.empty(m, n, dtype=BF16)
    return a, b, d, grouped_layout


def fp8_scales(a, b):
    """(a, sfa [rows.., KB]), (b, sfb [G, NB, KB]) with DeepGEMM's shapes."""
    k = a.shape[-1]
    kb = quant.ceil_div(k, 128)
    sfa = torch.rand(*a.shape[:-1], kb) + 0.5
    sfb = torch.rand(b.shape[0], quant.ceil_div(b.shape[1], 128), kb) + 0.5
    return (a, sfa), (b, sfb)


@needs_compiler
class DryRunTest(Base):

    def assert_fast_path(self, call):
        """The call succeeds with the slow path disabled."""
        with mock.patch.object(_grouped, "launch", side_effect=AssertionError("slow")):
            call()

    def test_bf16_contiguous_psum_and_masked(self):
        a, b, d, layout = contiguous_inputs([100, 0, 300], 256, 192, BF16)
        dg.m_grouped_bf16_gemm_nt_contiguous(a, b, d, layout)
        self.assert_fast_path(lambda: dg.m_grouped_bf16_gemm_nt_contiguous(a, b, d, layout))
        ends = torch.tensor([100, 128, 428], dtype=torch.int32)
        dg.m_grouped_bf16_gemm_nt_contiguous(a, b, d, ends, use_psum_layout=True)
        dg.m_grouped_bf16_gemm_nt_contiguous(a, b, d, ends, use_psum_layout=True,
                                             expected_m_for_psum_layout=200)
        masked_m = torch.tensor([5, 0, 64], dtype=torch.int32)
        a3, b3 = bf16_3d(3, 64, 192), bf16_3d(3, 256, 192)
        d3 = torch.empty(3, 64, 256, dtype=BF16)
        dg.m_grouped_bf16_gemm_nt_masked(a3, b3, d3, masked_m, 32)
        self.assert_fast_path(lambda: dg.m_grouped_bf16_gemm_nt_masked(a3, b3, d3, masked_m, 32))
        dg.bf16_m_grouped_gemm_nt_masked(a3, b3, d3, masked_m, 32)   # the older name
        # B MN-major (DeepGEMM's nn: b stored [G, K, N]): the nn family.
        b_kn = b.transpose(1, 2).contiguous()
        loaded = []
        real = _cache.get_kernel
        with mock.patch.object(_cache, "get_kernel", side_effect=lambda *args, **kw:
                               loaded.append(args[0]) or real(*args, **kw)):
            dg.m_grouped_bf16_gemm_nn_contiguous(a, b_kn, d, layout)
            dg.m_grouped_bf16_gemm_nt_contiguous(a, b_kn.transpose(1, 2), d, layout)
            dg.m_grouped_bf16_gemm_nt_masked(a3, b3.transpose(1, 2).contiguous()
                                             .transpose(1, 2), d3, masked_m, 32)
        self.assertEqual(loaded, ["m_grouped_bf16_gemm_nn"] * 2)
        self.assertEqual(dg.get_mk_alignment_for_contiguous_layout(), 128)

    def test_fp8_contiguous_psum_and_masked(self):
        a, b, d, layout = contiguous_inputs([130, 60], 320, 384, FP8)
        a_pair, b_pair = fp8_scales(a, b)
        dg.m_grouped_fp8_fp4_gemm_nt_contiguous(a_pair, b_pair, d, layout)  # SFA copied
        aligned = (a, dg.get_mn_major_tma_aligned_tensor(a_pair[1]))
        dg.m_grouped_fp8_gemm_nt_contiguous(aligned, b_pair, d, layout)
        dg.m_grouped_fp8_gemm_nt_contiguous(aligned, b_pair, d, layout,
                                            recipe=[1, 128, 128])   # a list, as a key
        self.assert_fast_path(lambda: dg.m_grouped_fp8_fp4_gemm_nt_contiguous(
            aligned, b_pair, d, layout))
        ends = torch.tensor([130, 316], dtype=torch.int32)
        dg.m_grouped_fp8_fp4_gemm_nt_contiguous(aligned, b_pair, d, ends,
                                                use_psum_layout=True)
        # SFB stored MN-major: copied contiguous for the kernel's scalar loads.
        sfb_mn = b_pair[1].transpose(1, 2).contiguous().transpose(1, 2)
        dg.m_grouped_fp8_fp4_gemm_nt_contiguous(aligned, (b, sfb_mn), d, layout)
        groups, max_m = 4, 96
        a3 = torch.randn(groups, max_m, 384).to(FP8)
        b3 = torch.randn(groups, 320, 384).to(FP8)
        a3_pair, b3_pair = fp8_scales(a3, b3)
        a3_pair = (a3, dg.get_mn_major_tma_aligned_tensor(a3_pair[1]))
        d3 = torch.empty(groups, max_m, 320, dtype=BF16)
        masked_m = torch.tensor([96, 0, 1, 50], dtype=torch.int32)
        dg.m_grouped_fp8_fp4_gemm_nt_masked(a3_pair, b3_pair, d3, masked_m, 64)
        self.assert_fast_path(lambda: dg.m_grouped_fp8_gemm_nt_masked(
            a3_pair, b3_pair, d3, masked_m, 64))
        dg.fp8_m_grouped_gemm_nt_masked(a3_pair, b3_pair, d3, masked_m, 64)

    def test_einsum_runs_the_masked_kernel_on_strided_views(self):
        # DeepGEMM's test_einsum shapes, smaller: b a slice of a wider tensor.
        x = bf16_3d(32, 8, 512)                       # [B, H, R]
        y = bf16_3d(8, 128, 512 + 128)[:, :, :512]    # [H, D, R], rows of 640
        z = torch.empty(32, 8, 128, dtype=BF16)       # [B, H, D]
        loaded = []
        real = _cache.get_kernel
        with mock.patch.object(_cache, "get_kernel", side_effect=lambda *args, **kw:
                               loaded.append(args[0]) or real(*args, **kw)):
            dg.einsum("bhr,hdr->bhd", x, y, z)
            x2 = bf16_3d(32, 8, 128)                      # [B, H, D]
            z2 = torch.empty(32, 8, 512, dtype=BF16)      # [B, H, R]
            dg.einsum("bhd, hdr -> bhr", x2, bf16_3d(8, 128, 512), z2)
        self.assertEqual(loaded, ["m_grouped_bf16_gemm_nt", "m_grouped_bf16_gemm_nn"])
        self.assert_fast_path(lambda: dg.einsum("bhr,hdr->bhd", x, y, z))
        # The baseline DeepGEMM's tests time against: torch.einsum.
        dg.einsum("bhr,hdr->bhd", x, y, z, use_cublaslt=True)
        self.assertTrue(torch.equal(z, torch.einsum("bhr,hdr->bhd", x, y)))

    def test_einsum_sum_over_the_batch(self):
        # DeepGEMM's test_bmk_bnk_mn: float32 d accumulates (c = d), bf16 d
        # does not (a workspace); the batch is split so tiles x chunks fill
        # the SMs (here 9 tiles of 128 x 128: 14 chunks of 10 batches).
        a, b = bf16_3d(129, 384, 128), bf16_3d(129, 384, 128)
        launched = []
        real = _cache.get_kernel

        class Recording:
            """The kernel, its launches' defines and chunk recorded."""
            def __init__(self, defines, kernel):
                self.defines, self.kernel = defines, kernel

            def set_persistent_limit(self, limit):
                self.kernel.set_persistent_limit(limit)

            def launch(self, inputs):
                launched.append((self.defines, inputs[-1]))
                self.kernel.launch(inputs)

        def recording(*args, **kw):
            return Recording(args[1], real(*args, **kw))
        with mock.patch.object(_cache, "get_kernel", side_effect=recording):
            d = torch.zeros(384, 384)
            dg.einsum("bmk,bnk->mn", a, b, d, c=d)
            dg.einsum("bmk,bnk->mn", a, b, torch.empty(384, 384, dtype=BF16))
            dg.einsum("bmk,bnk->mn", bf16_3d(8, 64, 256), bf16_3d(8, 128, 256),
                      torch.empty(64, 128, dtype=BF16))
        self.assertEqual(launched, [((("BLK_M", "128"), ("BLK_N", "128")), 10)] * 2 +
                         [((("BLK_M", "64"), ("BLK_N", "128")), 1)])

    def test_fp8_einsum_runs_the_masked_fp8_kernel(self):
        # DeepGEMM's test_fp8_bhr_hdr_bhd, smaller: x per token, y per block.
        b, h, r, dd = 32, 4, 512, 256
        x = (torch.randn(b, h, r).to(FP8), torch.rand(b, h, r // 128) + 0.5)
        y = (torch.randn(h, dd, r).to(FP8), torch.rand(h, dd // 128, r // 128) + 0.5)
        z = torch.empty(b, h, dd, dtype=BF16)
        loaded = []
        real = _cache.get_kernel
        with mock.patch.object(_cache, "get_kernel", side_effect=lambda *args, **kw:
                               loaded.append(args[0]) or real(*args, **kw)):
            dg.fp8_einsum("bhr,hdr->bhd", x, y, z)
        self.assertEqual(loaded, ["m_grouped_fp8_gemm_1d2d"])
        # sfx's [H, B, .] view is not the MN-major layout the kernel reads:
        # each call copies it (as DeepGEMM transforms its scales), so each
        # call takes the checked path, and gives the same kernel.
        dg.fp8_einsum("bhr,hdr->bhd", x, y, z)

    def test_empty_problem_launches_nothing(self):
        d = torch.empty(0, 256, dtype=BF16)
        dg.m_grouped_bf16_gemm_nt_contiguous(bf16_3d(0, 64), bf16_3d(2, 256, 64), d,
                                             torch.empty(0, dtype=torch.int32))


def bf16_3d(*shape):
    return torch.randn(*shape).to(BF16)


@needs_compiler
class CustomOpTest(Base):

    def test_make_fx_records_one_node_and_checks_shapes(self):
        from torch.fx.experimental.proxy_tensor import make_fx
        a, b, d, layout = contiguous_inputs([100, 200], 256, 192, BF16)

        def f(a, b, d, layout):
            dg.m_grouped_bf16_gemm_nt_contiguous(a, b, d, layout)
            return d
        graph = make_fx(f, tracing_mode="fake")(a, b, d, layout)
        self.assertIn("tilec.m_grouped_gemm", graph.code)
        with self.assertRaisesRegex(ValueError, "argument 'grouped_layout' must have shape"):
            make_fx(f, tracing_mode="fake")(a, b, d, layout[:10])

        q, bq = a.to(FP8), b.to(FP8)
        (_, sfa), (_, sfb) = fp8_scales(q, bq)

        def g(a, sfa, b, sfb, d, masked_m):
            dg.m_grouped_fp8_fp4_gemm_nt_masked((a, sfa), (b, sfb), d, masked_m, 64)
            return d
        a3 = q[:256].view(2, 128, 192)
        graph = make_fx(g, tracing_mode="fake")(
            a3, sfa[:256].view(2, 128, -1), bq, sfb, torch.empty(2, 128, 256, dtype=BF16),
            torch.ones(2, dtype=torch.int32))
        self.assertIn("tilec.m_grouped_gemm", graph.code)

    def test_torch_compile_traces_the_op(self):
        def gemm(a, b, d, layout):
            dg.m_grouped_bf16_gemm_nt_contiguous(a, b, d, layout)
            return d + 1
        f, graphs = compiled_with_graphs(gemm)
        f(*contiguous_inputs([100, 200], 256, 192, BF16))  # a dry run of the op
        self.assertEqual(len(graphs), 1)
        self.assertIn("tilec.m_grouped_gemm", graphs[0].code)


@needs_torch
@needs_extension
class ConfigTest(unittest.TestCase):

    def params(self, family, m, groups, layout, n=4096, k=7168, alignment=0):
        return dict(_configs.choose(family, m, n, k, num_groups=groups,
                                    group_layout=layout, mk_alignment=alignment)[0])

    def test_block_m_follows_deepgemm(self):
        # Contiguous: tiles of the alignment (DeepGEMM's BLOCK_M = it).
        self.assertEqual(self.params("m_grouped_fp8_gemm_1d2d", 8192, 8, "contiguous")["BLK_M"],
                         "128")
        self.assertEqual(self.params("m_grouped_fp8_gemm_1d2d", 8192, 8, "contiguous",
                                     alignment=64)["BLK_M"], "64")
        # Masked: 64 rows for few expected rows per group, else 128.
        self.assertEqual(self.params("m_grouped_bf16_gemm_nt", 32 * 20, 32, "masked")["BLK_M"],
                         "64")
        self.assertEqual(self.params("m_grouped_bf16_gemm_nt", 6 * 1024, 6, "masked")["BLK_M"],
                         "128")
        psum = self.params("m_grouped_fp8_gemm_1d2d", 8192, 4, "psum")
        self.assertEqual((psum["LAYOUT"], psum["ALIGN"]), ("1", "128"))
        self.assertEqual(self.params("m_grouped_bf16_gemm_nt", 640, 32, "masked")["LAYOUT"], "2")

    def test_errors_name_the_problem_field(self):
        with self.assertRaisesRegex(ValueError, r"problem.num_groups must be positive for "
                                                r"m_grouped_fp8_gemm_1d2d"):
            self.params("m_grouped_fp8_gemm_1d2d", 8192, 0, "contiguous")
        with self.assertRaisesRegex(ValueError, r"problem.mk_alignment must be a positive "
                                                r"multiple of 64"):
            self.params("m_grouped_bf16_gemm_nt", 8192, 4, "psum", alignment=32)
        with self.assertRaisesRegex(ValueError, r"problem.num_groups must be 0 for "
                                                r"bf16_gemm_nt"):
            self.params("bf16_gemm_nt", 8192, 4, "contiguous")


class ErrorsTest(ChecksBase):
    """Every error names the argument and the expected value, before any
    CUDA call."""

    def test_bf16_contiguous(self):
        a, b, d, layout = contiguous_inputs([100, 200], 256, 192, BF16)
        f = dg.m_grouped_bf16_gemm_nt_contiguous
        self.fails(r"m_grouped_bf16_gemm_nt_contiguous: argument 'a' must be a CUDA tensor, "
                   r"got a tensor on cpu", lambda: f(a, b, d, layout))
        self.fails(r"argument 'a' must have dtype torch.bfloat16, got torch.float16",
                   lambda: f(a.half(), b, d, layout))
        self.fails(r"argument 'd' must have dtype torch.bfloat16, got torch.float32",
                   lambda: f(a, b, d.float(), layout))
        self.fails(r"argument 'b' must be 3-D \[G, N, K\], got shape \[256, 192\]",
                   lambda: f(a, b[0], d, layout))
        self.fails(r"argument 'a' must have shape \[M, K\] with K = 192 \(b's\) = \[384, 192\], "
                   r"got \[384, 128\]", lambda: f(a[:, :128], b, d, layout))
        self.fails(r"argument 'd' must have shape \[M, N\] = \[384, 256\], got \[384, 255\]",
                   lambda: f(a, b, d[:, :255], layout))
        self.fails(r"argument 'b' must have N > 0 and K > 0",
                   lambda: f(a[:, :0], b[:, :, :0], d, layout))
        self.fails(r"argument 'a' must be K-major \(stride\(-1\) == 1\)",
                   lambda: f(a.t().contiguous().t(), b, d, layout))
        self.fails(r"argument 'd' needs a stride of dim 0 of a multiple of 16 bytes",
                   lambda: f(a, b, torch.empty(384, 260, dtype=BF16)[:, :256], layout))
        self.fails(r"argument 'grouped_layout' must have dtype torch.int32, got torch.int64",
                   lambda: f(a, b, d, layout.long()))
        self.fails(r"argument 'grouped_layout' must have shape \[M\] \(a's rows\) = \[384\]",
                   lambda: f(a, b, d, layout[:100]))
        self.fails(r"argument 'grouped_layout' must be contiguous, got stride 2",
                   lambda: f(a, b, d, torch.zeros(768, dtype=torch.int32)[::2]))
        self.fails(r"argument 'grouped_layout' must have shape \[G\] \(b's groups\) = \[2\]",
                   lambda: f(a, b, d, layout, use_psum_layout=True))
        self.fails(r"argument 'a' must have a multiple of the mk alignment \(128, "
                   r"get_mk_alignment_for_contiguous_layout\) rows",
                   lambda: f(a[:300], b, d[:300], layout[:300]))
        self.fails(r"argument 'expected_m_for_psum_layout' needs use_psum_layout=True",
                   lambda: f(a, b, d, layout, expected_m_for_psum_layout=64))
        self.fails(r"argument 'expected_m_for_psum_layout' must be a positive int",
                   lambda: f(a, b, d, layout[:2], use_psum_layout=True,
                             expected_m_for_psum_layout=0))
        self.fails(r"argument 'use_psum_layout' must be a bool",
                   lambda: f(a, b, d, layout, use_psum_layout=1))
        self.fails(r"argument 'compiled_dims' must be a string of the letters m, n, k",
                   lambda: f(a, b, d, layout, compiled_dims="q"))
        tilec.set_dry_run(True)   # CPU tensors pass the device check, meta ones not
        self.fails(r"argument 'grouped_layout' must be a CUDA tensor, got a tensor on meta",
                   lambda: f(a, b, d, layout.to("meta")))
        tilec.set_dry_run(False)
        self.fails(r"m_grouped_bf16_gemm_nt_contiguous: argument 'b' must be K-major "
                   r"\(stride\(-1\) == 1\) or MN-major \(stride\(1\) == 1\), got strides "
                   r"\[98304, 384, 2\]", lambda: f(a, bf16_3d(2, 256, 384)[:, :, ::2], d, layout))
        self.fails(r"m_grouped_bf16_gemm_nn_contiguous: argument 'b' needs a stride of dim 1 "
                   r"of a multiple of 16 bytes",
                   lambda: dg.m_grouped_bf16_gemm_nn_contiguous(
                       a, bf16_3d(2, 192, 260)[:, :, :256], d, layout))

    def test_bf16_masked(self):
        a, b = bf16_3d(4, 64, 128), bf16_3d(4, 256, 128)
        d = torch.empty(4, 64, 256, dtype=BF16)
        masked_m = torch.ones(4, dtype=torch.int32)
        f = dg.m_grouped_bf16_gemm_nt_masked
        self.fails(r"m_grouped_bf16_gemm_nt_masked: argument 'a' must be a CUDA tensor",
                   lambda: f(a, b, d, masked_m, 32))
        self.fails(r"argument 'a' must be 3-D \[G, MAX_M, K\], got shape \[64, 128\]",
                   lambda: f(a[0], b, d, masked_m, 32))
        self.fails(r"argument 'a' must have shape \[G, MAX_M, K\] with G = 4 and K = 128 "
                   r"\(b's\) = \[4, 64, 128\], got \[3, 64, 128\]",
                   lambda: f(a[:3], b, d, masked_m, 32))
        self.fails(r"argument 'd' must have shape \[G, MAX_M, N\] = \[4, 64, 256\]",
                   lambda: f(a, b, d[:, :32], masked_m, 32))
        self.fails(r"argument 'masked_m' must have shape \[G\] \(b's groups\) = \[4\], got \[3\]",
                   lambda: f(a, b, d, masked_m[:3], 32))
        self.fails(r"argument 'masked_m' must have dtype torch.int32",
                   lambda: f(a, b, d, masked_m.float(), 32))
        self.fails(r"argument 'expected_m' must be a positive int \(the expected rows per "
                   r"group\), got 0", lambda: f(a, b, d, masked_m, 0))
        self.fails(r"argument 'a' needs a stride of dim 1 of a multiple of 16 bytes",
                   lambda: f(bf16_3d(4, 64, 12), bf16_3d(4, 256, 12), d, masked_m, 32))

    def test_einsum(self):
        x, y = bf16_3d(32, 8, 512), bf16_3d(8, 128, 512)
        z = torch.empty(32, 8, 128, dtype=BF16)
        f = dg.einsum
        self.fails(r"einsum: argument 'a' must be a CUDA tensor",
                   lambda: f("bhr,hdr->bhd", x, y, z))
        self.fails(r"einsum: argument 'expr' must be one of 'bhr,hdr->bhd', "
                   r"'bhd,hdr->bhr', 'bmk,bnk->mn' \(DeepGEMM's expressions\), "
                   r"got 'bhr,hrd->bhd'", lambda: f("bhr,hrd->bhd", x, y, z))
        self.fails(r"einsum: argument 'expr' must be a str", lambda: f(3, x, y, z))
        # 'bmk,bnk->mn': a [S, M, K], b [S, N, K], d [M, N].
        a3, b3 = bf16_3d(4, 128, 256), bf16_3d(4, 64, 256)
        d32, d16 = torch.zeros(128, 64), torch.empty(128, 64, dtype=BF16)
        self.fails(r"einsum: argument 'c' must be d for a float32 d \(DeepGEMM's rule: "
                   r"'bmk,bnk->mn' into float32 accumulates, d \+= the sum\), got None",
                   lambda: f("bmk,bnk->mn", a3, b3, d32))
        self.fails(r"einsum: argument 'c' must be None for a torch.bfloat16 d",
                   lambda: f("bmk,bnk->mn", a3, b3, d16, c=d16))
        self.fails(r"einsum: argument 'use_cublaslt' must be False for 'bmk,bnk->mn'",
                   lambda: f("bmk,bnk->mn", a3, b3, d32, c=d32, use_cublaslt=True))
        self.fails(r"einsum: argument 'b' must have shape \[S, N, K\] with S = 4 and "
                   r"K = 256 \(a's\) = \[4, 64, 256\], got \[3, 64, 256\]",
                   lambda: f("bmk,bnk->mn", a3, b3[:3], d32, c=d32))
        self.fails(r"einsum: argument 'd' must have shape \[M, N\] \(a's M, b's N\) = "
                   r"\[128, 64\], got \[128, 32\]",
                   lambda: f("bmk,bnk->mn", a3, b3, d16[:, :32]))
        self.fails(r"einsum: argument 'a' must be contiguous \(DeepGEMM's rule for "
                   r"'bmk,bnk->mn'\)", lambda: f("bmk,bnk->mn", a3.transpose(1, 2), b3, d16))
        self.fails(r"einsum: argument 'a' must have K a multiple of 8",
                   lambda: f("bmk,bnk->mn", bf16_3d(4, 128, 12), bf16_3d(4, 64, 12), d16))
        self.fails(r"einsum: argument 'd' must have N a multiple of 4",
                   lambda: f("bmk,bnk->mn", a3, bf16_3d(4, 6, 256),
                             torch.empty(128, 6, dtype=BF16)))
        self.fails(r"einsum: argument 'a' must be a CUDA tensor",
                   lambda: f("bmk,bnk->mn", a3, b3, d16))
        self.fails(r"einsum: argument 'c' must be None for 'bhr,hdr->bhd'",
                   lambda: f("bhr,hdr->bhd", x, y, z, c=z))
        self.fails(r"einsum: argument 'use_cublaslt' must be a bool, got 1",
                   lambda: f("bhr,hdr->bhd", x, y, z, use_cublaslt=1))
        self.fails(r"einsum: argument 'b' must have dtype torch.bfloat16, got torch.float32",
                   lambda: f("bhr,hdr->bhd", x, y.float(), z))
        self.fails(r"einsum: argument 'a' must be 3-D \[B, H, R\], got shape \[8, 512\]",
                   lambda: f("bhr,hdr->bhd", x[0], y, z))
        self.fails(r"einsum: argument 'b' must have shape \[H, D, R\] with H = 8 and "
                   r"R = 512 \(a's\) = \[8, 128, 512\], got \[8, 128, 256\]",
                   lambda: f("bhr,hdr->bhd", x, y[:, :, :256], z))
        self.fails(r"einsum: argument 'b' must have shape \[H, D, R\] with H = 8 and "
                   r"D = 512 \(a's\) = \[8, 512, 512\], got \[8, 128, 512\]",
                   lambda: f("bhd,hdr->bhr", x, y, z))
        self.fails(r"einsum: argument 'd' must have shape \[B, H, D\] \(a's B and H, "
                   r"b's D\) = \[32, 8, 128\], got \[32, 8, 64\]",
                   lambda: f("bhr,hdr->bhd", x, y, z[:, :, :64]))
        self.fails(r"einsum: argument 'a' must have its last dim contiguous",
                   lambda: f("bhr,hdr->bhd", x.transpose(1, 2).contiguous().transpose(1, 2),
                             y, z))

    def test_fp8_einsum(self):
        b, h, r, dd = 32, 4, 512, 256
        x = (torch.randn(b, h, r).to(FP8), torch.rand(b, h, r // 128))
        y = (torch.randn(h, dd, r).to(FP8), torch.rand(h, dd // 128, r // 128))
        z = torch.empty(b, h, dd, dtype=BF16)
        f = dg.fp8_einsum
        self.fails(r"fp8_einsum: argument 'a' must be a CUDA tensor",
                   lambda: f("bhr,hdr->bhd", x, y, z))
        self.fails(r"fp8_einsum: argument 'expr' 'bhd,hdr->bhr': DeepGEMM runs it on "
                   r"SM100 only", lambda: f("bhd,hdr->bhr", x, y, z), NotImplementedError)
        self.fails(r"fp8_einsum: argument 'expr' must be one of 'bhr,hdr->bhd', "
                   r"'bhd,hdr->bhr', 'bhd,bhr->hdr'", lambda: f("bhr,hrd->bhd", x, y, z))
        self.fails(r"fp8_einsum: argument 'recipe' must be \(1, 128, 128\)",
                   lambda: f("bhr,hdr->bhd", x, y, z, recipe=(1, 1, 128)))
        self.fails(r"fp8_einsum: argument 'c' \(accumulation\)",
                   lambda: f("bhr,hdr->bhd", x, y, z, c=z), NotImplementedError)
        self.fails(r"fp8_einsum: argument 'a' must be a pair",
                   lambda: f("bhr,hdr->bhd", x[0], y, z), TypeError)
        self.fails(r"fp8_einsum: argument 'a' must have dtype torch.float8_e4m3fn",
                   lambda: f("bhr,hdr->bhd", (x[0].to(BF16), x[1]), y, z))
        self.fails(r"fp8_einsum: argument 'sfa' must have shape \[B, H, ceil\(R / 128\)\] "
                   r"= \[32, 4, 4\], got \[32, 4, 2\]",
                   lambda: f("bhr,hdr->bhd", (x[0], x[1][:, :, :2]), y, z))
        self.fails(r"fp8_einsum: argument 'sfb' must have dtype torch.float32",
                   lambda: f("bhr,hdr->bhd", x, (y[0], y[1].double()), z))
        self.fails(r"fp8_einsum: argument 'd' must have shape \[B, H, D\]",
                   lambda: f("bhr,hdr->bhd", x, y, z[:, :, :128]))

    def test_fp8(self):
        a, b, d, layout = contiguous_inputs([100, 200], 256, 384, FP8)
        a_pair, b_pair = fp8_scales(a, b)
        f = dg.m_grouped_fp8_fp4_gemm_nt_contiguous
        self.fails(r"m_grouped_fp8_fp4_gemm_nt_contiguous: argument 'a' must be a CUDA tensor",
                   lambda: f(a_pair, b_pair, d, layout))
        self.fails(r"argument 'a' must be a pair \(data, scale factors\)",
                   lambda: f(a, b_pair, d, layout), error=TypeError)
        self.fails(r"argument 'b' must have dtype torch.float8_e4m3fn, got torch.bfloat16",
                   lambda: f(a_pair, (b.to(BF16), b_pair[1]), d, layout))
        self.fails(r"argument 'b' must be K-major \(\[G, N, K\] with stride\(-1\) == 1\): FP8 "
                   r"wgmma", lambda: f(a_pair, (b.transpose(1, 2).contiguous().transpose(1, 2),
                                                b_pair[1]), d, layout))
        self.fails(r"argument 'sfa' must have shape \[M, ceil\(K / 128\)\] = \[384, 3\], got "
                   r"\[384, 2\]", lambda: f((a, a_pair[1][:, :2]), b_pair, d, layout))
        self.fails(r"argument 'sfb' must have shape \[G, ceil\(N / 128\), ceil\(K / 128\)\] = "
                   r"\[2, 2, 3\], got \[2, 256, 3\]",
                   lambda: f(a_pair, (b, torch.ones(2, 256, 3)), d, layout))
        self.fails(r"argument 'sfb' must have dtype torch.float32, got torch.float16",
                   lambda: f(a_pair, (b, b_pair[1].half()), d, layout))
        self.fails(r"argument 'd' must have dtype torch.bfloat16, got torch.float32",
                   lambda: f(a_pair, b_pair, d.float(), layout))
        self.fails(r"argument 'recipe' must be \(gran_m_a, gran_n_b, gran_k\)",
                   lambda: f(a_pair, b_pair, d, layout, recipe=(1, 128)))
        self.fails(r"m_grouped_fp8_fp4_gemm_nt_contiguous: argument 'recipe': tilec's grouped "
                   r"FP8 kernels take A scaled per \(1, 128\) and B per \(128, 128\)",
                   lambda: f(a_pair, b_pair, d, layout, recipe=(1, 1, 128)),
                   error=NotImplementedError)
        self.fails(r"argument 'sfa' holds packed UE8M0 scale factors",
                   lambda: f((a, a_pair[1].int()), b_pair, d, layout),
                   error=NotImplementedError)
        self.fails(r"argument 'a' looks like packed FP4",
                   lambda: f((a.view(torch.int8), a_pair[1]), b_pair, d, layout),
                   error=NotImplementedError)
        g = dg.m_grouped_fp8_fp4_gemm_nt_masked
        a3 = torch.randn(2, 64, 384).to(FP8)
        a3_pair, _ = fp8_scales(a3, b)
        d3 = torch.empty(2, 64, 256, dtype=BF16)
        masked_m = torch.ones(2, dtype=torch.int32)
        self.fails(r"m_grouped_fp8_fp4_gemm_nt_masked: argument 'sfa' must have shape "
                   r"\[G, MAX_M, ceil\(K / 128\)\] = \[2, 64, 3\], got \[2, 64, 2\]",
                   lambda: g((a3, a3_pair[1][..., :2]), b_pair, d3, masked_m, 32))
        self.fails(r"m_grouped_fp8_fp4_gemm_nt_masked: argument 'expected_m' must be a "
                   r"positive int", lambda: g(a3_pair, b_pair, d3, masked_m, None))
        self.fails(r"m_grouped_fp8_fp4_gemm_nt_masked: argument 'a' must be a CUDA tensor",
                   lambda: g(a3_pair, b_pair, d3, masked_m, 32))
        self.fails(r"m_grouped_fp8_fp4_gemm_nn_contiguous: argument 'b' must be K-major",
                   lambda: dg.m_grouped_fp8_fp4_gemm_nn_contiguous(
                       a_pair, (b.transpose(1, 2).contiguous(),
                                b_pair[1].transpose(1, 2)), d, layout))

    def test_alignment_setting(self):
        self.addCleanup(dg.set_mk_alignment_for_contiguous_layout, 128)
        self.assertEqual(dg.get_theoretical_mk_alignment_for_contiguous_layout(), 128)
        self.assertEqual(dg.get_theoretical_mk_alignment_for_contiguous_layout(20), 128)
        dg.set_mk_alignment_for_contiguous_layout(64)
        self.assertEqual(dg.get_mk_alignment_for_contiguous_layout(), 64)
        self.assertEqual(dg.get_k_alignment_for_contiguous_layout(), 64)
        self.fails(r"set_mk_alignment_for_contiguous_layout: argument 'new_value' must be a "
                   r"positive multiple of 64", lambda: dg.set_mk_alignment_for_contiguous_layout(32))
        self.fails(r"get_theoretical_mk_alignment_for_contiguous_layout: argument 'expected_m' "
                   r"must be a positive int or None",
                   lambda: dg.get_theoretical_mk_alignment_for_contiguous_layout(-1))


if __name__ == "__main__":
    unittest.main()

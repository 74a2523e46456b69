"""Unit tests of python/tilec/quant.py on the CPU (torch.float8_e4m3fn).

Skipped, each with the reason, where torch is not installed. Run with
`python3 -m unittest discover -s python/tests -v` (ctest runs it so).
"""

import importlib.util
import os
import unittest

try:
    import torch
except ImportError:  # the compiler's machines need no torch
    torch = None

HERE = os.path.dirname(os.path.abspath(__file__))


def load_quant():
    """quant.py by path: it must import standalone (no tilec package)."""
    path = os.path.join(HERE, "..", "tilec", "quant.py")
    spec = importlib.util.spec_from_file_location("tilec_quant", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@unittest.skipIf(torch is None, "torch is not installed")
class QuantTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.q = load_quant()

    def setUp(self):
        self.gen = torch.Generator().manual_seed(11)

    def randn(self, *shape):
        return torch.randn(*shape, generator=self.gen)

    def test_per_token_scales_are_block_amax_over_448(self):
        x = self.randn(5, 300)  # K not a multiple of 128: 3 blocks, 44 in the last
        qx, sf = self.q.per_token_cast_to_fp8(x)
        self.assertEqual(qx.dtype, torch.float8_e4m3fn)
        self.assertEqual(tuple(qx.shape), (5, 300))
        self.assertEqual(tuple(sf.shape), (5, 3))
        self.assertEqual(sf.dtype, torch.float32)
        for b, (lo, hi) in enumerate([(0, 128), (128, 256), (256, 300)]):
            amax = x[:, lo:hi].abs().amax(dim=1)
            torch.testing.assert_close(sf[:, b], amax / 448.0)
            # The largest element of each block lands on e4m3's largest value.
            self.assertTrue(torch.equal(qx[:, lo:hi].float().abs().amax(dim=1),
                                        torch.full((5,), 448.0)))

    def test_per_token_round_trip(self):
        x = self.randn(64, 1000)
        qx, sf = self.q.per_token_cast_to_fp8(x)
        back = self.q.dequantize_per_token(qx, sf)
        # e4m3 keeps 3 mantissa bits: relative error at most 2^-4 per element
        # of a normal value, and below the block's scale for small ones.
        limit = 2.0 ** -4 * x.abs() + sf.repeat_interleave(128, 1)[:, :1000] * 2.0 ** -6
        self.assertTrue(((back - x).abs() <= limit).all())
        self.assertLess(self.q.calc_diff(back, x), 1e-3)

    def test_per_block_cast(self):
        x = self.randn(300, 200)  # 3 x 2 blocks, partial in both dimensions
        qx, sf = self.q.per_block_cast_to_fp8(x)
        self.assertEqual(tuple(qx.shape), (300, 200))
        self.assertEqual(tuple(sf.shape), (3, 2))
        for i in range(3):
            for j in range(2):
                block = x[i * 128:(i + 1) * 128, j * 128:(j + 1) * 128]
                self.assertAlmostEqual(sf[i, j].item(),
                                       block.abs().max().item() / 448.0, places=6)
        back = self.q.dequantize_per_block(qx, sf)
        self.assertLess(self.q.calc_diff(back, x), 1e-3)

    def test_zero_block_has_a_finite_scale(self):
        x = torch.zeros(2, 256)
        x[1, 200] = 3.0
        qx, sf = self.q.per_token_cast_to_fp8(x)
        self.assertTrue(torch.isfinite(sf).all())
        self.assertGreater(sf.min().item(), 0.0)
        self.assertEqual(qx[0].float().abs().sum().item(), 0.0)
        self.assertTrue(torch.equal(self.q.dequantize_per_token(qx, sf), x))

    def test_mn_major_tma_aligned_layout(self):
        for mn, stride in [(1, 4), (128, 128), (333, 336), (4095, 4096)]:
            sf = self.randn(mn, 7).abs()
            t = self.q.mn_major_tma_aligned(sf)
            self.assertEqual(tuple(t.shape), (mn, 7))
            self.assertEqual(t.stride(), (1, stride))
            self.assertTrue(torch.equal(t, sf))
            view = self.q.kernel_view(t)
            self.assertEqual(tuple(view.shape), (7, mn))
            self.assertEqual(view.stride(), (stride, 1))
            self.assertEqual(view.stride(0) * 4 % 16, 0, "TMA needs 16-byte row strides")
            # The padding between columns is zero, never NaN.
            storage = torch.as_strided(t, (7, stride), (stride, 1))
            self.assertEqual(storage[:, mn:].abs().sum().item(), 0.0)
            self.assertGreaterEqual(t.untyped_storage().nbytes(), 7 * stride * 4)

    def test_block_scales_per_column(self):
        sf = self.randn(3, 5)
        cols = self.q.block_scales_per_column(sf, 300)
        self.assertEqual(tuple(cols.shape), (300, 5))
        self.assertTrue(torch.equal(cols[0], sf[0]))
        self.assertTrue(torch.equal(cols[255], sf[1]))
        self.assertTrue(torch.equal(cols[299], sf[2]))

    def test_calc_diff(self):
        x = self.randn(100)
        self.assertEqual(self.q.calc_diff(x, x), 0.0)
        self.assertAlmostEqual(self.q.calc_diff(x, -x), 2.0, places=9)
        self.assertAlmostEqual(self.q.calc_diff(x, 2 * x), 1 - 4 / 5, places=9)
        self.assertEqual(self.q.calc_diff(torch.zeros(3), torch.zeros(3)), 0.0)

    def promoted_gemm(self, qa, sfa_view, qb, sfb_of):
        """The kernels' arithmetic: per K block, the e4m3 product promoted by
        sa[row] * sb, summed in f32 (sfa read through the kernel's view)."""
        m, k = qa.shape
        out = torch.zeros(m, qb.shape[0])
        for kb in range(self.q.ceil_div(k, 128)):
            lo, hi = kb * 128, min(k, kb * 128 + 128)
            part = qa[:, lo:hi].float() @ qb[:, lo:hi].float().t()
            out += part * sfa_view[kb][:, None] * sfb_of(kb)[None, :]
        return out

    def test_1d2d_arithmetic_matches_the_dequantised_reference(self):
        m, n, k = 70, 300, 520
        a, b = self.randn(m, k), self.randn(n, k)
        qa, sfa = self.q.per_token_cast_to_fp8(a)
        qb, sfb = self.q.per_block_cast_to_fp8(b)
        sfa_view = self.q.kernel_view(self.q.mn_major_tma_aligned(sfa))
        got = self.promoted_gemm(qa, sfa_view, qb,
                                 lambda kb: sfb[:, kb].repeat_interleave(128)[:n])
        ref = (self.q.dequantize_per_token(qa, sfa)
               @ self.q.dequantize_per_block(qb, sfb).t())
        self.assertLess(self.q.calc_diff(got, ref), 1e-9)
        self.assertLess(self.q.calc_diff(ref, a @ b.t()), 1e-3)

    def test_1d1d_arithmetic_matches_the_dequantised_reference(self):
        m, n, k = 40, 96, 300
        a, b = self.randn(m, k), self.randn(n, k)
        qa, sfa = self.q.per_token_cast_to_fp8(a)
        qb, sfb = self.q.per_token_cast_to_fp8(b)
        sfa_view = self.q.kernel_view(self.q.mn_major_tma_aligned(sfa))
        sfb_view = self.q.kernel_view(self.q.mn_major_tma_aligned(sfb))
        got = self.promoted_gemm(qa, sfa_view, qb, lambda kb: sfb_view[kb])
        ref = (self.q.dequantize_per_token(qa, sfa)
               @ self.q.dequantize_per_token(qb, sfb).t())
        self.assertLess(self.q.calc_diff(got, ref), 1e-9)

    def test_1d2d_scales_per_column_give_the_same_product(self):
        # fp8_gemm_1d1d with block_scales_per_column computes the 1D2D product.
        n, k = 200, 256
        b = self.randn(n, k)
        qb, sfb = self.q.per_block_cast_to_fp8(b)
        cols = self.q.block_scales_per_column(sfb, n)
        self.assertTrue(torch.equal(self.q.dequantize_per_token(qb, cols),
                                    self.q.dequantize_per_block(qb, sfb)))


if __name__ == "__main__":
    unittest.main()

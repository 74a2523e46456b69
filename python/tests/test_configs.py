"""The shape -> parameters table (tilec._configs) and that every
configuration it picks for DeepGEMM's test shapes compiles.

The picks asserted are the measured winners (bench/results/
2026-12-01-fp8-gemm.md) and docs/kernels.md's recommendations; compiling
needs the tilec command and ptxas (the ptxas-free part runs anywhere).
"""

import io
import unittest
from contextlib import redirect_stderr

from tilec_test_support import CacheDirTest, environment, needs_compiler

from tilec import _cache, _configs, _specs

# DeepGEMM's tests/generators.py enumerate_normal: M in 1, 128, 4096 by its
# (N, K) list; the backward shapes swap them.
DEEPGEMM_NK = [(2112, 7168), (576, 7168), (24576, 1536), (32768, 512),
               (7168, 16384), (4096, 7168), (7168, 2048)]
FORWARD = [(m, n, k) for m in (1, 128, 4096) for n, k in DEEPGEMM_NK]
BACKWARD = [(4096, k, n) for n, k in DEEPGEMM_NK] + \
    [(n, 4096, k) for n, k in DEEPGEMM_NK]


def tile(family, m, n, k, **options):
    defines = dict(_configs.choose(family, m, n, k, **options)[0])
    return int(defines.get("BLK_M", 128)), int(defines["BLK_N"])


class TableTest(unittest.TestCase):

    def test_fp8_measured_winners(self):
        self.assertEqual(tile("fp8_gemm_1d2d", 4096, 4096, 4096), (128, 128))
        self.assertEqual(tile("fp8_gemm_1d2d", 8192, 8192, 8192), (128, 128))
        self.assertEqual(tile("fp8_gemm_1d2d", 128, 7168, 16384), (64, 128))
        self.assertEqual(tile("fp8_gemm_1d2d", 128, 2112, 7168), (64, 32))

    def test_fp8_single_token_rows_of_docs_kernels(self):
        for n, k, expected in [(576, 7168, 16), (2112, 7168, 16), (24576, 1536, 64),
                               (32768, 512, 128), (7168, 16384, 64), (4096, 7168, 32)]:
            self.assertEqual(tile("fp8_gemm_1d2d", 1, n, k), (64, expected), (n, k))

    def test_fp8_weight_gradient_kernel(self):
        self.assertEqual(tile("fp8_gemm_1d1d", 4096, 7168, 4096, out="f32",
                              accumulate=True), (128, 128))
        defines = dict(_configs.choose("fp8_gemm_1d1d", 7168, 4096, 4096, out="f32",
                                       accumulate=True)[0])
        self.assertEqual((defines["OUT"], defines["ACCUMULATE"]), ("f32", "1"))

    def test_bf16_tiles_and_stages(self):
        self.assertEqual(dict(_configs.choose("bf16_gemm_nt", 8192, 8192, 8192)[0]),
                         {"BLK_N": "256", "STAGES": "3"})
        small = dict(_configs.choose("bf16_gemm_nt", 128, 2112, 7168)[0])
        self.assertEqual(small, {"BLK_N": "64", "STAGES": "8"})
        self.assertEqual(_configs._bf16_stages(128, 128), 6)

    def test_fewer_sms_choose_again(self):
        self.assertNotEqual(_configs.choose("fp8_gemm_1d2d", 128, 2112, 7168, num_sms=132),
                            _configs.choose("fp8_gemm_1d2d", 128, 2112, 7168, num_sms=66))

    def test_reason_and_print_configs(self):
        defines, reason = _configs.choose("fp8_gemm_1d2d", 4096, 2112, 7168)
        self.assertIn("4096", reason)
        self.assertIn("compute-bound", reason)
        _configs.choose.cache_clear()
        stderr = io.StringIO()
        with environment(TILEC_PRINT_CONFIGS="1"), redirect_stderr(stderr):
            _configs.choose("fp8_gemm_1d2d", 333, 520, 72)
        self.assertRegex(stderr.getvalue(), r"^tilec: config -D ACCUMULATE=0 "
                                            r"-D BLK_M=\d+ -D BLK_N=\d+ -D OUT=bf16: "
                                            r"fp8_gemm_1d2d M=333 N=520 K=72")

    def test_unknown_family(self):
        with self.assertRaises(NotImplementedError):
            _configs.choose("int4_gemm", 1, 1, 1)


@needs_compiler
class EveryPickCompilesTest(CacheDirTest):
    """Each distinct configuration chosen for DeepGEMM's dense test shapes
    compiles for sm_90a (params within the specs' asserts, shared memory
    within the limit, ptxas clean)."""

    def test_deepgemm_shapes(self):
        picks = set()
        for m, n, k in FORWARD + BACKWARD:
            picks.add(("fp8_gemm_1d2d", _configs.choose("fp8_gemm_1d2d", m, n, k)[0]))
            for family in ("bf16_gemm_nt", "bf16_gemm_nn"):
                picks.add((family, _configs.choose(family, m, n, k)[0]))
        for m, n, k in BACKWARD:
            picks.add(("fp8_gemm_1d1d", _configs.choose(
                "fp8_gemm_1d1d", m, n, k, out="f32", accumulate=True)[0]))
        for family, defines in sorted(picks):
            with self.subTest(family=family, defines=defines):
                spec = _specs.FAMILIES[family].spec
                bundle = _cache.get_bundle(spec, _specs.spec_text(spec), defines,
                                           "sm_90a")
                self.assertTrue(bundle.startswith(b"TILECBND"))


if __name__ == "__main__":
    unittest.main()

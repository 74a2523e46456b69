"""The shape -> parameters choice (tilec._configs, from the compiler
library's tables) and that every configuration it picks for DeepGEMM's test
shapes compiles (needs ptxas)."""

import io
import unittest
from contextlib import redirect_stderr

from tilec_test_support import CacheDirTest, environment, needs_compiler

from tilec import _cache, _configs, _jit, _specs

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


needs_library = unittest.skipUnless(
    _jit.locate_compiler_library(),
    "the configurations come from libtilec_compiler.so, not built")


@needs_library
class LibraryChoiceTest(unittest.TestCase):
    """_configs.choose asks the compiler library (lib/Kernels/
    KernelConfigs.cpp, whose own tests pin the table): the same picks as
    the C API, as defines of the family's spec, with the library's reason."""

    def test_fp8_picks(self):
        self.assertEqual(tile("fp8_gemm_1d2d", 128, 7168, 16384), (64, 128))
        self.assertEqual(tile("fp8_gemm_1d2d", 128, 2112, 7168), (64, 32))
        self.assertEqual(tile("fp8_gemm_1d2d", 8192, 8192, 8192)[1], 128)

    def test_fp8_weight_gradient_kernel(self):
        defines = dict(_configs.choose("fp8_gemm_1d1d", 7168, 4096, 4096, out="f32",
                                       accumulate=True)[0])
        self.assertEqual((defines["OUT"], defines["ACCUMULATE"]), ("f32", "1"))

    def test_bf16_large_is_rung_6(self):
        defines = dict(_configs.choose("bf16_gemm_nt", 8192, 8192, 8192)[0])
        self.assertEqual((defines["BLK_M"], defines["BLK_N"], defines["STAGES"]),
                         ("128", "256", "3"))

    def test_reason_and_print_configs(self):
        defines, reason = _configs.choose("fp8_gemm_1d2d", 4096, 4096, 4096)
        self.assertIn("M=4096 N=4096 K=4096", reason)
        self.assertIn("bench/results", reason)
        _configs.choose.cache_clear()
        stderr = io.StringIO()
        with environment(TILEC_PRINT_CONFIGS="1"), redirect_stderr(stderr):
            _configs.choose("fp8_gemm_1d2d", 333, 520, 72)
        self.assertRegex(stderr.getvalue(), r"tilec: config -D ACCUMULATE=0 "
                                            r"-D BLK_M=\d+ -D BLK_N=\d+ -D MAX_KB=0 -D OUT=bf16 "
                                            r"(-D OVERLAP=1 )?-D STAGES=\d+( -D UNROLL=\d+)?: "
                                            r"fp8_gemm_1d2d M=333 N=520 K=72")

    def test_bad_problem_names_the_argument(self):
        with self.assertRaisesRegex(ValueError, "problem.m must be positive, got 0"):
            _configs.choose("fp8_gemm_1d2d", 0, 512, 512)

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

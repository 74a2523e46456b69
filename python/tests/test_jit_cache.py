"""The compile step (tilec._jit) and the disk cache (tilec._cache).

Needs neither torch nor a GPU; the compiles need the tilec command (the
build tree's, or $TILEC_COMPILER). Run: python3 -m unittest discover -s
python/tests (ctest runs it so).
"""

import io
import multiprocessing
import os
import shutil
import subprocess
import sys
import unittest
from contextlib import redirect_stderr
from unittest import mock

from tilec_test_support import (COMPILER, REPO, CacheDirTest, environment,
                                needs_compiler, spec)

import tilec
from tilec import _cache, _jit

COPY = "examples/copy.tile"


class CompileTests:
    """The compile step's contract, for each way of compiling."""

    def test_compiles_a_spec_to_a_bundle(self):
        bundle = _jit.compile_bundle("copy.tile", spec(COPY), {"BM": 64},
                                     "sm_90a")
        self.assertTrue(bundle.startswith(b"TILECBND"))
        default = _jit.compile_bundle("copy.tile", spec(COPY), None, "sm_90a")
        self.assertNotEqual(bundle, default, "-D BM=64 must change the kernel")

    def test_diagnostics_name_the_spec(self):
        broken = spec(COPY).replace("barrier full: tma[1]", "barrier full: tma[")
        with self.assertRaises(tilec.CompileError) as caught:
            _jit.compile_bundle("my_copy.tile", broken)
        error = caught.exception
        self.assertRegex(error.diagnostics, r"my_copy\.tile:\d+:\d+: error")
        self.assertNotIn("tilec-jit-", error.diagnostics,
                         "the temporary path must not leak into messages")
        self.assertIn("my_copy.tile", str(error))

    def test_a_bad_define_is_a_compile_error(self):
        with self.assertRaises(tilec.CompileError) as caught:
            _jit.compile_bundle("copy.tile", spec(COPY), {"BM": "oops"})
        self.assertIn("BM", caught.exception.diagnostics)

    def test_define_names_are_checked(self):
        with self.assertRaises(ValueError):
            _jit.normalize_defines({"not a name": 1})

    def test_version(self):
        version = _jit.compiler_version()
        self.assertIn(self.version_mark, version)
        self.assertIn("ptxas", version)
        self.assertEqual(version, _jit.compiler_version())
        with environment(TILEC_COMPILER_VERSION="pinned"):
            self.assertEqual(_jit.compiler_version(), "pinned")


@needs_compiler
class CommandCompileTest(CompileTests, unittest.TestCase):
    """The tilec command (the binary's hash is in the version: tilec's
    --version names only LLVM)."""
    version_mark = "binary sha256"

    def setUp(self):
        self._env = environment(TILEC_COMPILER=COMPILER, TILEC_COMPILER_LIB=None)
        self._env.__enter__()
        self.addCleanup(self._env.__exit__, None, None, None)


COMPILER_LIB = os.environ.get("TILEC_TEST_COMPILER_LIB") or _jit.find_compiler_library()


@unittest.skipIf(not COMPILER_LIB or not os.path.isfile(COMPILER_LIB),
                 "no libtilec_compiler.so (set TILEC_TEST_COMPILER_LIB or build lib/CAPI)")
class LibraryCompileTest(CompileTests, unittest.TestCase):
    """The compiler library in process (ctypes over tilec_compiler.h)."""
    version_mark = "libtilec_compiler"

    def setUp(self):
        self._env = environment(TILEC_COMPILER_LIB=COMPILER_LIB)
        self._env.__enter__()
        self.addCleanup(self._env.__exit__, None, None, None)


class NoCompilerTest(unittest.TestCase):

    def test_missing_compiler_is_a_compile_error(self):
        with environment(TILEC_COMPILER="/nonexistent/tilec", TILEC_COMPILER_LIB=None):
            with self.assertRaises(tilec.CompileError) as caught:
                _jit.compile_bundle("copy.tile", "kernel k() {}")
        self.assertIn("/nonexistent/tilec", str(caught.exception))
        with environment(TILEC_COMPILER_LIB="/nonexistent/libtilec_compiler.so"):
            with self.assertRaises(tilec.CompileError) as caught:
                _jit.compile_bundle("copy.tile", "kernel k() {}")
        self.assertIn("cannot load the compiler library", str(caught.exception))


class KeyTest(unittest.TestCase):

    def test_key_covers_spec_defines_target_and_version(self):
        key = _cache.kernel_key("spec", {"A": 1, "B": 2}, "sm_90a", "v1")
        self.assertEqual(key, _cache.kernel_key("spec", [("B", 2), ("A", "1")],
                                                "sm_90a", "v1"),
                         "defines are sorted and stringified")
        for other in (_cache.kernel_key("spec2", {"A": 1, "B": 2}, "sm_90a", "v1"),
                      _cache.kernel_key("spec", {"A": 1, "B": 3}, "sm_90a", "v1"),
                      _cache.kernel_key("spec", {"A": 1, "B": 2}, "sm_100a", "v1"),
                      _cache.kernel_key("spec", {"A": 1, "B": 2}, "sm_90a", "v2")):
            self.assertNotEqual(key, other)
        self.assertRegex(key, "^[0-9a-f]{64}$")


def _fake_bundle(name, text, defines, target):
    return b"TILECBND" + repr((name, text, _jit.normalize_defines(defines),
                               target)).encode()


def _race_writer(path, payload, rounds):
    for _ in range(rounds):
        _cache.write_entry(path, payload)
        if _cache.read_entry(path) != payload:
            raise SystemExit(1)


class DiskCacheTest(CacheDirTest):
    """The cache logic with a stand-in compiler (fast, deterministic)."""

    def setUp(self):
        super().setUp()
        self.compiles = 0

        def counting(*args):
            self.compiles += 1
            return _fake_bundle(*args)
        patches = [mock.patch.object(_jit, "compile_bundle", counting),
                   mock.patch.object(_jit, "compiler_version", lambda: "test v1")]
        for patch in patches:
            patch.start()
            self.addCleanup(patch.stop)

    def entries(self):
        folder = os.path.join(self.cache, "kernels")
        return sorted(os.listdir(folder)) if os.path.isdir(folder) else []

    def test_write_then_hit(self):
        first = _cache.get_bundle("k.tile", "text", {"X": 1}, "sm_90a")
        self.assertEqual(self.compiles, 1)
        self.assertEqual(len(self.entries()), 1)
        self.assertTrue(self.entries()[0].endswith(".tilec"))
        second = _cache.get_bundle("k.tile", "text", {"X": 1}, "sm_90a")
        self.assertEqual(self.compiles, 1, "the second call is a disk hit")
        self.assertEqual(first, second)
        _cache.get_bundle("k.tile", "text", {"X": 2}, "sm_90a")
        self.assertEqual((self.compiles, len(self.entries())), (2, 2))

    def test_a_new_compiler_version_misses(self):
        _cache.get_bundle("k.tile", "text", {}, "sm_90a")
        with mock.patch.object(_jit, "compiler_version", lambda: "test v2"):
            _cache.get_bundle("k.tile", "text", {}, "sm_90a")
        self.assertEqual(self.compiles, 2)

    def test_corrupt_truncated_and_empty_files_are_misses(self):
        bundle = _cache.get_bundle("k.tile", "text", {}, "sm_90a")
        path = os.path.join(self.cache, "kernels", self.entries()[0])
        with open(path, "rb") as f:
            whole = f.read()
        flipped = bytearray(whole)
        flipped[-1] ^= 0xFF
        for damage in (bytes(flipped), whole[:len(whole) // 2], b"",
                       b"TILECKC1", b"garbage"):
            with open(path, "wb") as f:
                f.write(damage)
            self.assertIsNone(_cache.read_entry(path))
            before = self.compiles
            self.assertEqual(_cache.get_bundle("k.tile", "text", {}, "sm_90a"),
                             bundle)
            self.assertEqual(self.compiles, before + 1, "a damaged entry is a miss")
            self.assertEqual(_cache.read_entry(path), bundle, "and is replaced")

    def test_writes_leave_no_temporary_files(self):
        for i in range(5):
            _cache.get_bundle("k.tile", "text", {"I": i}, "sm_90a")
        self.assertEqual(len(self.entries()), 5)
        self.assertFalse([e for e in self.entries() if e.startswith(".tmp-")])

    def test_disable_cache(self):
        with environment(TILEC_DISABLE_CACHE="1"):
            _cache.get_bundle("k.tile", "text", {}, "sm_90a")
            _cache.get_bundle("k.tile", "text", {}, "sm_90a")
        self.assertEqual((self.compiles, self.entries()), (2, []))

    def test_unwritable_cache_dir_still_compiles(self):
        blocker = os.path.join(self.cache, "file")
        with open(blocker, "w") as f:
            f.write("not a directory")
        stderr = io.StringIO()
        with environment(TILEC_CACHE_DIR=os.path.join(blocker, "sub")), \
                mock.patch.object(_cache, "_disk_warning_printed", False), \
                redirect_stderr(stderr):
            bundle = _cache.get_bundle("k.tile", "text", {}, "sm_90a")
        self.assertTrue(bundle.startswith(b"TILECBND"))
        self.assertIn("cannot write the kernel cache", stderr.getvalue())

    def test_print_compiles(self):
        stderr = io.StringIO()
        with environment(TILEC_PRINT_COMPILES="1"), redirect_stderr(stderr):
            _cache.get_bundle("k.tile", "text", {"BLK_N": 64}, "sm_90a")
            _cache.get_bundle("k.tile", "text", {"BLK_N": 64}, "sm_90a")
        lines = stderr.getvalue().splitlines()
        self.assertRegex(lines[0], r"^tilec: compiled k\.tile -D BLK_N=64 for "
                                   r"sm_90a in \d+\.\d+ s$")
        self.assertRegex(lines[1], r"^tilec: loaded k\.tile .* from the disk cache")

    def test_processes_racing_on_one_key_leave_a_whole_file(self):
        path = _cache.entry_path("race")
        payload = os.urandom(1 << 20)
        context = multiprocessing.get_context("fork")
        workers = [context.Process(target=_race_writer, args=(path, payload, 20))
                   for _ in range(3)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
        self.assertEqual([w.exitcode for w in workers], [0, 0, 0])
        self.assertEqual(_cache.read_entry(path), payload)
        self.assertEqual(self.entries(), ["race.tilec"])


@needs_compiler
class EndToEndTest(CacheDirTest):

    def test_tilec_compile_uses_the_disk_cache(self):
        first = tilec.compile(spec(COPY), {"BN": 128}, name="copy.tile")
        self.assertTrue(first.startswith(b"TILECBND"))
        with mock.patch.object(_jit, "compile_bundle",
                               side_effect=AssertionError("compiled again")):
            self.assertEqual(tilec.compile(spec(COPY), {"BN": 128},
                                           name="copy.tile"), first)


PRECOMPILE = os.environ.get("TILEC_TEST_PRECOMPILE") or os.path.join(
    REPO, "build", "bin", "tilec-precompile")

# A fresh process (the library's memory cache empty) that gets the GEMM's
# kernel as tilec.deep_gemm does, with Python's own compile step disabled.
_GET_GEMM_KERNEL = """
import sys
from tilec import _cache, _configs, _jit, _runtime
def no_python_compile(*args):
    raise AssertionError("the Python compile step ran")
_jit.compile_bundle = no_python_compile
_runtime.set_dry_run(True)
problem = dict(m=1, n=7168, k=16384, out="bf16", accumulate=False, num_sms=132)
defines, _ = _configs.choose("fp8_gemm_1d2d", **problem)
kernel = _cache.get_kernel("fp8_gemm_1d2d", defines, None, problem)
print("loaded", kernel.name)
"""

# A split-K call (M = 1, N = 2112, K = 7168: the GEMM and splitk_reduce),
# the whole tilec.deep_gemm path in a dry run.
_SPLIT_CALL = """
import torch
import tilec
import tilec.deep_gemm as dg
from tilec import _jit, quant
def no_python_compile(*args):
    raise AssertionError("the Python compile step ran")
_jit.compile_bundle = no_python_compile
tilec.set_dry_run(True)
a, sfa = quant.per_token_cast_to_fp8(torch.randn(1, 7168))
b, sfb = quant.per_block_cast_to_fp8(torch.randn(2112, 7168))
d = torch.empty(1, 2112, dtype=torch.bfloat16)
dg.fp8_gemm_nt((a, dg.get_mn_major_tma_aligned_tensor(sfa)), (b, sfb), d)
print("called")
"""

# The tiered JIT on 128x2112x7168 (the overlapped 64x32 configuration,
# unrolled 4 times): the first call runs the quick build and records a
# provisional plan; once the background compile is done that plan misses
# and the next call records the tuned kernel, whose plan stays.
_TIERED_CALL = """
import os
import torch
import tilec
import tilec.deep_gemm as dg
from tilec import _cache, _gemm, quant
tilec.set_dry_run(True)
a, sfa = quant.per_token_cast_to_fp8(torch.randn(128, 7168))
b, sfb = quant.per_block_cast_to_fp8(torch.randn(2112, 7168))
sfa = dg.get_mn_major_tma_aligned_tensor(sfa)
d = torch.empty(128, 2112, dtype=torch.bfloat16)
dg.fp8_gemm_nt((a, sfa), (b, sfb), d)
quick = sorted(key[0] for key in _cache._memory)
print("after the first call:", quick)
(dispatcher,) = _gemm._dispatchers.values()
print("provisional plan served:", dispatcher.launch(a, b, d, sfa, sfb))
assert tilec.wait_for_compiles(timeout=120)
print("provisional plan misses:", not dispatcher.launch(a, b, d, sfa, sfb))
dg.fp8_gemm_nt((a, sfa), (b, sfb), d)
print("tuned plan serves:", dispatcher.launch(a, b, d, sfa, sfb))
print("loaded:", sorted(key[0] for key in _cache._memory))
"""


def run_library_script(test: CacheDirTest, script: str,
                       **env_values) -> subprocess.CompletedProcess:
    """Runs `script` in a fresh process (the library's memory cache empty)
    on `test`'s cache with the compiler library, compiles reported on
    stderr; asserts it succeeds."""
    env = dict(os.environ, TILEC_COMPILER_LIB=COMPILER_LIB,
               TILEC_PRINT_COMPILES="1", TILEC_CACHE_DIR=test.cache,
               **env_values)
    env.pop("TILEC_COMPILER", None)
    env["PYTHONPATH"] = os.pathsep.join(
        [os.path.join(REPO, "python"), env.get("PYTHONPATH", "")])
    done = subprocess.run([sys.executable, "-c", script], env=env,
                          capture_output=True, text=True, timeout=300)
    test.assertEqual(done.returncode, 0, done.stderr)
    return done


@unittest.skipIf(not COMPILER_LIB or not os.path.isfile(COMPILER_LIB),
                 "no libtilec_compiler.so (set TILEC_TEST_COMPILER_LIB)")
class TieredJitTest(CacheDirTest):

    def run_call(self, **env_values) -> subprocess.CompletedProcess:
        return run_library_script(self, _TIERED_CALL, **env_values)

    def test_first_call_runs_the_quick_build_then_the_tuned_one(self):
        done = self.run_call()
        self.assertIn("after the first call: ['quick']", done.stdout)
        # Served while the tuned kernel compiles (unless it was done first).
        self.assertIn("provisional plan served:", done.stdout)
        self.assertIn("provisional plan misses: True", done.stdout)
        self.assertIn("tuned plan serves: True", done.stdout)
        self.assertIn("loaded: ['fp8_gemm_1d2d', 'quick']", done.stdout)
        # The quick build drops UNROLL and OVERLAP, nothing else.
        self.assertIn("BLK_M=64 BLK_N=32 MAX_KB=0 OUT=bf16 STAGES=12] for",
                      done.stderr)
        self.assertIn("OVERLAP=1 STAGES=12 UNROLL=4] for", done.stderr)
        # A second process finds the tuned kernel on disk: no tiers.
        again = self.run_call()
        self.assertNotIn("tilec: compiled", again.stderr)
        self.assertIn("after the first call: ['fp8_gemm_1d2d']", again.stdout)

    def test_tiering_off_compiles_the_configuration_first(self):
        done = self.run_call(TILEC_TIERED="0")
        self.assertIn("after the first call: ['fp8_gemm_1d2d']", done.stdout)
        self.assertNotIn("MAX_KB=0 OUT=bf16 STAGES=12] for", done.stderr)


@unittest.skipIf(not COMPILER_LIB or not os.path.isfile(COMPILER_LIB) or
                 not os.access(PRECOMPILE, os.X_OK),
                 "no libtilec_compiler.so or tilec-precompile (set "
                 "TILEC_TEST_COMPILER_LIB and TILEC_TEST_PRECOMPILE)")
class PrecompiledCacheTest(CacheDirTest):
    """A cache that tilec-precompile filled serves tilec.deep_gemm's
    kernels: one key and one file format for the C API and Python."""

    def run_fresh(self, script: str, expected: str) -> str:
        """Runs `script` in a fresh process on the test's cache; its stderr
        (where the library reports compiles)."""
        done = run_library_script(self, script)
        self.assertIn(expected, done.stdout)
        return done.stderr

    def get_gemm_kernel(self):
        return self.run_fresh(_GET_GEMM_KERNEL, "loaded fp8_gemm_1d2d")

    def precompile(self, line: str, compiled: int) -> None:
        listing = os.path.join(self.cache, "gemms.txt")
        with open(listing, "w") as f:
            f.write(line + "\n")
        done = subprocess.run([PRECOMPILE, "--cache-dir", self.cache, listing],
                              capture_output=True, text=True, timeout=300,
                              env=dict(os.environ, TILEC_COMPILER_LIB=COMPILER_LIB))
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn(f"{compiled} compiled", done.stdout + done.stderr)

    def test_a_precompiled_kernel_is_not_compiled_again(self):
        # Control: an empty cache compiles (in the library, which says so).
        self.assertIn("tilec: compiled fp8_gemm_1d2d", self.get_gemm_kernel())
        shutil.rmtree(os.path.join(self.cache, "kernels"))
        self.precompile("fp8_gemm_1d2d 7168 16384 - 1", compiled=1)
        self.assertNotIn("tilec: compiled", self.get_gemm_kernel())

    def test_a_split_call_finds_both_kernels_precompiled(self):
        # The GEMM and its splitk_reduce: two kernels for one line.
        self.precompile("fp8_gemm_1d2d 2112 7168 - 1", compiled=2)
        stderr = self.run_fresh(_SPLIT_CALL, "called")
        self.assertNotIn("tilec: compiled", stderr)


if __name__ == "__main__":
    unittest.main()

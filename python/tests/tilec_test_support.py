"""What the package's tests share: where things are and why a test skips.

The tests run from a source checkout (ctest sets PYTHONPATH to python/,
TILEC_EXTENSION_DIR to the built extension, TILEC_COMPILER to the built
tilec and TILEC_CUDA_DRIVER to a missing file) or against an installed
package. Each test that needs torch, the extension or the compiler skips,
with the reason, when that is missing.
"""

import contextlib
import importlib
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))
if os.path.join(REPO, "python") not in sys.path:
    sys.path.insert(0, os.path.join(REPO, "python"))

try:
    import torch
except ImportError:  # the compiler's machines need no torch
    torch = None

import tilec  # noqa: E402  (needs neither torch nor the extension)
from tilec import _jit  # noqa: E402


def _extension_error():
    try:
        importlib.import_module("tilec._C")
        return None
    except ImportError as error:
        return str(error)


EXTENSION_ERROR = _extension_error()
COMPILER = _jit.find_compiler()

needs_torch = unittest.skipIf(torch is None, "torch is not installed")
needs_extension = unittest.skipIf(
    EXTENSION_ERROR is not None,
    f"the extension tilec._C is not built ({EXTENSION_ERROR}; build with "
    f"nanobind installed, see docs/python.md)")
needs_compiler = unittest.skipIf(
    COMPILER is None or not os.access(COMPILER, os.X_OK),
    "no tilec compiler (set TILEC_COMPILER or build the checkout)")


def spec(relative: str) -> str:
    with open(os.path.join(REPO, relative), encoding="utf-8") as f:
        return f.read()


@contextlib.contextmanager
def environment(**values):
    """Sets (or, for None, removes) environment variables for a block."""
    saved = {name: os.environ.get(name) for name in values}
    try:
        for name, value in values.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


class CacheDirTest(unittest.TestCase):
    """A test with its own empty $TILEC_CACHE_DIR."""

    def setUp(self):
        self._dir = tempfile.TemporaryDirectory(prefix="tilec-test-cache-")
        self.cache = self._dir.name
        self._env = environment(TILEC_CACHE_DIR=self.cache,
                                TILEC_DISABLE_CACHE=None)
        self._env.__enter__()

    def tearDown(self):
        self._env.__exit__(None, None, None)
        self._dir.cleanup()


def compiled_with_graphs(fn):
    """(fn under torch.compile(fullgraph=True), the list its backend appends
    each traced graph to)."""
    graphs = []

    def backend(gm, example_inputs):
        graphs.append(gm)
        return gm.forward
    return torch.compile(fn, backend=backend, fullgraph=True), graphs

"""tilec for Python: compile tile kernel specs in process, cache them, launch
them on torch tensors, and DeepGEMM's API on tilec's kernels.

    import tilec.deep_gemm as deep_gemm          # DeepGEMM's names
    deep_gemm.fp8_gemm_nt((a, sfa), (b, sfb), d)

    import tilec
    bundle = tilec.compile(open("k.tile").read(), {"BLK_N": 128})  # cached
    kernel = tilec.load(bundle)                   # on torch's current device
    kernel.launch([x, y, 1.0])                    # torch's current stream

The compile step (tilec._jit) and the cache (tilec._cache) need neither
torch nor a GPU. The extension tilec._C (runtime + launch fast path) sits
beside this file in an install; in a build tree, $TILEC_EXTENSION_DIR names
the folder that holds it (<build>/python/tilec). See docs/python.md.
"""

import os as _os

if _os.environ.get("TILEC_EXTENSION_DIR"):
    __path__.append(_os.environ["TILEC_EXTENSION_DIR"])  # noqa: F821

from ._cache import cache_dir, get_bundle, get_kernel, wait_for_compiles  # noqa: E402
from ._jit import CompileError, compile_bundle, compiler_version  # noqa: E402

__version__ = "0.1.0"

__all__ = ["CompileError", "TilecError", "compile", "compile_bundle",
           "compiler_version", "cache_dir", "get_bundle", "get_kernel", "load",
           "set_dry_run", "wait_for_compiles"]


def compile(spec_text: str, defines=None, target: str = "sm_90a",
            name: str = "spec.tile") -> bytes:
    """Bundle bytes of `spec_text` with `-D` `defines` for `target`, from the
    disk cache or compiled (CompileError with tilec's diagnostics)."""
    return get_bundle(name, spec_text, defines, target)


def load(bundle: bytes, kernel: str = "", device=None):
    """A loaded kernel (tilec._C.Kernel) of `bundle`: `kernel` names it ('' =
    the only one); on CUDA device `device` (None: torch's current one)."""
    from . import _runtime
    return _runtime.load_kernel(bundle, kernel, device)


def set_dry_run(enabled: bool) -> None:
    """CPU-only mode for tests and benchmarks (tilec._runtime.set_dry_run)."""
    from . import _runtime
    _runtime.set_dry_run(enabled)


def __getattr__(name):
    # The extension's types, without loading it for compile-only use.
    if name in ("TilecError", "Bundle", "Module", "Kernel"):
        from . import _runtime
        return getattr(_runtime, name)
    raise AttributeError(f"module 'tilec' has no attribute {name!r}")

"""Problem shape -> kernel parameters, and why: the compiler library's choice.

choose(family, m, n, k, out=..., accumulate=..., num_sms=...) returns the
-D defines of the family's spec and a one-line reason. The configuration
tables live once, in the compiler library (lib/Kernels/KernelConfigs.cpp,
tilec_kernel_config in lib/CAPI/include/tilec/tilec_compiler.h); this module
asks it through ctypes, so that Python, tilec-precompile and the C API pick
the same kernels. TILEC_PRINT_CONFIGS=1 prints each choice and its reason
to stderr (the library prints its own lookups the same way).

library_bundle(...) is the library's kernel cache (tilec_get_kernel): the
bundle of a problem's kernel from its memory, from the disk cache that
tilec-precompile fills, or compiled and stored there. The kernel-library
GEMMs take their bundles from it, so that one key and one file format serve
the C API, tilec-precompile and Python.
"""

import ctypes
import functools
import os
import sys
from typing import Optional, Tuple

from . import _jit

Defines = Tuple[Tuple[str, str], ...]

# Element types by the names the kernel specs and the C API use.
_INPUT_DTYPE = {"fp8": "e4m3", "bf16": "bf16"}


class _Problem(ctypes.Structure):
    _fields_ = [("m", ctypes.c_int64), ("n", ctypes.c_int64),
                ("k", ctypes.c_int64), ("a_dtype", ctypes.c_char_p),
                ("b_dtype", ctypes.c_char_p), ("d_dtype", ctypes.c_char_p),
                ("accumulate", ctypes.c_int32), ("reserved", ctypes.c_int32),
                ("num_groups", ctypes.c_int32), ("group_layout", ctypes.c_int32),
                ("mk_alignment", ctypes.c_int32), ("reserved2", ctypes.c_int32)]

# tilec_group_layout: how an M-grouped family's rows are grouped.
GROUP_LAYOUTS = {"contiguous": 0, "psum": 1, "masked": 2}


class _Info(ctypes.Structure):
    _fields_ = [("family", ctypes.c_char * 32),
                ("kernel_name", ctypes.c_char * 64),
                ("target", ctypes.c_char * 16), ("key", ctypes.c_char * 80),
                ("params", ctypes.c_char * 256),
                ("reason", ctypes.c_char * 256),
                ("block_m", ctypes.c_int32), ("block_n", ctypes.c_int32),
                ("block_k", ctypes.c_int32), ("stages", ctypes.c_int32),
                ("threads", ctypes.c_uint32), ("cluster", ctypes.c_uint32 * 3),
                ("grid", ctypes.c_uint32 * 3), ("num_tiles", ctypes.c_uint32),
                ("shared_bytes", ctypes.c_uint32), ("source", ctypes.c_int32),
                ("seconds", ctypes.c_double)]


_CACHE_ERROR = 3  # TILEC_COMPILER_ERROR_CACHE
_NOT_CACHED = 5  # TILEC_COMPILER_NOT_CACHED
_KERNEL_QUICK = 1  # tilec_kernel_flags
_KERNEL_CACHED_ONLY = 2


class CacheUnavailable(OSError):
    """The library's disk cache cannot be used (its message says why)."""


def _compiler_library():
    path = _jit.locate_compiler_library()
    if path is None:
        raise RuntimeError(
            "tilec's kernel configurations come from the compiler library "
            "libtilec_compiler.so, which was not found: set TILEC_COMPILER_LIB "
            "or install the package with it")
    library = _jit._library(path)
    if library.tilec_kernel_config.argtypes is None:
        library.tilec_kernel_config.argtypes = [
            ctypes.c_char_p, ctypes.POINTER(_Problem), ctypes.c_int32,
            ctypes.c_char_p, ctypes.POINTER(_Info)]
        library.tilec_kernel_config.restype = ctypes.c_int
        library.tilec_get_kernel.argtypes = [
            ctypes.c_char_p, ctypes.POINTER(_Problem), ctypes.c_int32,
            ctypes.c_char_p, ctypes.POINTER(ctypes.POINTER(ctypes.c_uint8)),
            ctypes.POINTER(ctypes.c_size_t), ctypes.POINTER(_Info)]
        library.tilec_get_kernel.restype = ctypes.c_int
        library.tilec_get_kernel_ex.argtypes = [
            ctypes.c_char_p, ctypes.POINTER(_Problem), ctypes.c_int32,
            ctypes.c_char_p, ctypes.c_int32,
            ctypes.POINTER(ctypes.POINTER(ctypes.c_uint8)),
            ctypes.POINTER(ctypes.c_size_t), ctypes.POINTER(_Info)]
        library.tilec_get_kernel_ex.restype = ctypes.c_int
    return library


def _problem(family: str, m: int, n: int, k: int, out: str,
             accumulate: bool, num_groups: int, group_layout: str,
             mk_alignment: int, inputs: str = "") -> _Problem:
    # splitk_reduce's problem is the split GEMM's: `inputs` names its input
    # dtype (fp8: fp8_gemm_1d2d's, bf16: bf16_gemm_nt's).
    if not family.startswith(("fp8_gemm_", "bf16_gemm_", "splitk_reduce",
                              "m_grouped_")):
        raise NotImplementedError(f"tilec has no configs for family {family!r}")
    bf16 = family.startswith(("bf16", "m_grouped_bf16")) or inputs == "bf16"
    dtype = _INPUT_DTYPE["bf16" if bf16 else "fp8"].encode()
    return _Problem(m=m, n=n, k=k, a_dtype=dtype, b_dtype=dtype,
                    d_dtype=out.encode(), accumulate=int(accumulate),
                    num_groups=num_groups,
                    group_layout=GROUP_LAYOUTS[group_layout],
                    mk_alignment=mk_alignment)


def _defines(info: _Info) -> Defines:
    return tuple(sorted(tuple(item.split("=", 1))
                        for item in info.params.decode().split()))


@functools.lru_cache(maxsize=4096)
def choose(family: str, m: int, n: int, k: int, *, out: str = "bf16",
           accumulate: bool = False, num_sms: int = 132,
           target: str = "sm_90a", num_groups: int = 0,
           group_layout: str = "contiguous",
           mk_alignment: int = 0, inputs: str = "") -> Tuple[Defines, str]:
    """(-D defines, reason) for one problem of `family`. The M-grouped
    families take num_groups (B [G, N, K]), group_layout ('contiguous',
    'psum' or 'masked') and mk_alignment; m is then the rows computed over
    all groups (masked: num_groups * expected_m). splitk_reduce takes
    `inputs` ('fp8' or 'bf16'), the input dtype of the GEMM it follows."""
    problem = _problem(family, m, n, k, out, accumulate, num_groups,
                       group_layout, mk_alignment, inputs)
    info = _Info()
    library = _compiler_library()
    status = library.tilec_kernel_config(family.encode(), ctypes.byref(problem),
                                         num_sms, target.encode(),
                                         ctypes.byref(info))
    if status != 0:
        raise ValueError(library.tilec_compiler_last_error().decode())
    defines = _defines(info)
    groups = f" in {num_groups} {group_layout} groups" if num_groups else ""
    reason = (f"{family} M={m} N={n} K={k}{groups} out={out}"
              f"{' D+=' if accumulate else ''} on {num_sms} SMs: "
              f"{info.block_m}x{info.block_n} tiles, {info.stages} stages, "
              f"{info.num_tiles} tiles: {info.reason.decode()}")
    if os.environ.get("TILEC_PRINT_CONFIGS", "") not in ("", "0"):
        flags = " ".join(f"-D {name}={value}" for name, value in defines)
        print(f"tilec: config {flags}: {reason}", file=sys.stderr)
    return defines, reason


def library_bundle(family: str, m: int, n: int, k: int, *, out: str = "bf16",
                   accumulate: bool = False, num_sms: int = 132,
                   target: str = "sm_90a", num_groups: int = 0,
                   group_layout: str = "contiguous",
                   mk_alignment: int = 0, quick: bool = False,
                   cached_only: bool = False,
                   inputs: str = "") -> Optional[Tuple[bytes, Defines, int]]:
    """(bundle, -D defines, source) of the problem's kernel from the
    library's kernel cache; source is tilec_kernel_source (1 memory, 2 disk,
    3 compiled). `quick`: the configuration's quick build (tilec_get_kernel_ex,
    TILEC_KERNEL_QUICK: not unrolled, not paired, the same bits); with
    `cached_only` None instead of a compile; `inputs` as choose's. Raises
    _jit.CompileError when it does not compile."""
    problem = _problem(family, m, n, k, out, accumulate, num_groups,
                       group_layout, mk_alignment, inputs)
    info = _Info()
    data = ctypes.POINTER(ctypes.c_uint8)()
    size = ctypes.c_size_t()
    library = _compiler_library()
    flags = (_KERNEL_QUICK if quick else 0) | (_KERNEL_CACHED_ONLY if cached_only else 0)
    status = library.tilec_get_kernel_ex(family.encode(), ctypes.byref(problem),
                                         num_sms, target.encode(), flags,
                                         ctypes.byref(data), ctypes.byref(size),
                                         ctypes.byref(info))
    if status == _NOT_CACHED:
        return None
    if status != 0:
        message = library.tilec_compiler_last_error().decode()
        if status == _jit._COMPILE_ERROR:
            raise _jit.CompileError(family, message)
        if status == _CACHE_ERROR:
            raise CacheUnavailable(message)
        raise RuntimeError(f"tilec_get_kernel({family}): {message}")
    return ctypes.string_at(data, size.value), _defines(info), info.source

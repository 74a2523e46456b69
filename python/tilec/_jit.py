"""The compile step: spec text + defines + target -> bundle bytes.

Everything in the package that compiles goes through compile_bundle() and
compiler_version(); nothing else knows how compiling is done. Two ways, the
first found:

1. the compiler library (libtilec_compiler.so, lib/CAPI: tilec_compile,
   tilec_compiler_version), in process through ctypes: $TILEC_COMPILER_LIB,
   else beside this package (a wheel built with it), else the build tree of
   a source checkout. It links LLVM statically, so it runs where LLVM is not
   installed (the GPU machine);
2. the `tilec` command in a temporary directory: $TILEC_COMPILER, else
   `tilec` on PATH, else the build tree's.

$TILEC_COMPILER set (and $TILEC_COMPILER_LIB not) picks the command.
"""

import ctypes
import functools
import hashlib
import os
import shutil
import subprocess
import tempfile
import threading
from typing import Iterable, Mapping, Optional, Tuple, Union

Defines = Union[Mapping[str, object], Iterable[Tuple[str, object]]]

_REPO_ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))


class CompileError(RuntimeError):
    """tilec refused a spec; `diagnostics` is its file:line:col text."""

    def __init__(self, spec_name: str, diagnostics: str):
        self.spec_name = spec_name
        self.diagnostics = diagnostics
        super().__init__(f"tilec could not compile {spec_name}:\n{diagnostics}")


def normalize_defines(defines: Optional[Defines]) -> Tuple[Tuple[str, str], ...]:
    """Sorted (name, value) pairs with string values: the form that keys and
    command lines use."""
    if not defines:
        return ()
    items = defines.items() if isinstance(defines, Mapping) else defines
    pairs = []
    for name, value in items:
        if not isinstance(name, str) or not name.isidentifier():
            raise ValueError(f"define name {name!r} is not an identifier")
        pairs.append((name, str(value)))
    return tuple(sorted(pairs))


def find_compiler() -> Optional[str]:
    """The tilec command to run, or None."""
    configured = os.environ.get("TILEC_COMPILER")
    if configured:
        return configured
    on_path = shutil.which("tilec")
    if on_path:
        return on_path
    in_tree = os.path.join(_REPO_ROOT, "build", "bin", "tilec")
    return in_tree if os.access(in_tree, os.X_OK) else None


def _ptxas() -> Optional[str]:
    """ptxas as tilec finds it ($TILEC_PTXAS, PATH, $CUDA_HOME/bin,
    /usr/local/cuda/bin): its version is part of the compiler's."""
    candidates = [os.environ.get("TILEC_PTXAS"), shutil.which("ptxas")]
    if os.environ.get("CUDA_HOME"):
        candidates.append(os.path.join(os.environ["CUDA_HOME"], "bin", "ptxas"))
    candidates.append("/usr/local/cuda/bin/ptxas")
    for candidate in candidates:
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


def _run_version(command) -> str:
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=60)
        return (done.stdout + done.stderr).strip()
    except (OSError, subprocess.SubprocessError) as error:
        return f"unavailable ({error})"


@functools.lru_cache(maxsize=None)
def _version_of(compiler: str, size: int, mtime_ns: int) -> str:
    """`tilec --version`, the binary's hash (tilec's version text names only
    LLVM, so a rebuilt tilec must change the key by its bytes) and ptxas's
    version."""
    digest = hashlib.sha256()
    with open(compiler, "rb") as binary:
        for block in iter(lambda: binary.read(1 << 20), b""):
            digest.update(block)
    return "\n".join([_run_version([compiler, "--version"]),
                      "binary sha256 " + digest.hexdigest()[:16],
                      "ptxas: " + _ptxas_version()])


@functools.lru_cache(maxsize=None)
def _ptxas_version() -> str:
    ptxas = _ptxas()
    return _run_version([ptxas, "--version"]).splitlines()[-1] if ptxas else "none"


#===------------------------------------------------------------------------===#
# The compiler library (lib/CAPI/include/tilec/tilec_compiler.h)
#===------------------------------------------------------------------------===#


class _Request(ctypes.Structure):
    _fields_ = [("spec", ctypes.c_char_p), ("spec_size", ctypes.c_size_t),
                ("spec_name", ctypes.c_char_p),
                ("defines", ctypes.POINTER(ctypes.c_char_p)),
                ("num_defines", ctypes.c_size_t), ("target", ctypes.c_char_p),
                ("opt_level", ctypes.c_int32),
                ("allow_slow_kernels", ctypes.c_int32),
                ("debug_hangs", ctypes.c_int32)]


class _Result(ctypes.Structure):
    _fields_ = [("bundle", ctypes.POINTER(ctypes.c_uint8)),
                ("bundle_size", ctypes.c_size_t),
                ("diagnostics", ctypes.POINTER(ctypes.c_char)),
                ("diagnostics_size", ctypes.c_size_t),
                ("compile_seconds", ctypes.c_double)]


_COMPILE_ERROR = 2  # TILEC_COMPILER_ERROR_COMPILE
_library_lock = threading.Lock()
_loaded_library = {}


def find_compiler_library() -> Optional[str]:
    """libtilec_compiler.so to compile with, or None (then the command is
    used)."""
    if not os.environ.get("TILEC_COMPILER_LIB") and os.environ.get("TILEC_COMPILER"):
        return None  # the command was asked for
    return locate_compiler_library()


def locate_compiler_library() -> Optional[str]:
    """libtilec_compiler.so ($TILEC_COMPILER_LIB, beside the package, or in
    the build tree), whichever compiles: the kernel configurations always
    come from it."""
    configured = os.environ.get("TILEC_COMPILER_LIB")
    if configured:
        return configured
    for candidate in (os.path.join(os.path.dirname(__file__), "libtilec_compiler.so"),
                      os.path.join(_REPO_ROOT, "build", "lib", "libtilec_compiler.so")):
        if os.path.isfile(candidate):
            return candidate
    return None


def _library(path: str):
    with _library_lock:
        library = _loaded_library.get(path)
        if library is None:
            library = ctypes.CDLL(path)
            library.tilec_compiler_version.restype = ctypes.c_char_p
            library.tilec_compiler_last_error.restype = ctypes.c_char_p
            library.tilec_compile.argtypes = [ctypes.POINTER(_Request),
                                              ctypes.POINTER(_Result)]
            library.tilec_compile.restype = ctypes.c_int
            library.tilec_compile_result_free.argtypes = [ctypes.POINTER(_Result)]
            library.tilec_compile_result_free.restype = None
            _loaded_library[path] = library
        return library


def _compile_in_process(path: str, spec_name: str, spec_text: str, defines,
                        target: Optional[str]) -> bytes:
    try:
        library = _library(path)
    except OSError as error:
        raise CompileError(spec_name, f"cannot load the compiler library "
                                      f"{path}: {error}")
    text = spec_text.encode("utf-8")
    pairs = [f"{name}={value}".encode() for name, value in normalize_defines(defines)]
    request = _Request(spec=text, spec_size=len(text), spec_name=spec_name.encode(),
                       defines=(ctypes.c_char_p * max(len(pairs), 1))(*pairs),
                       num_defines=len(pairs),
                       target=target.encode() if target else None, opt_level=3)
    result = _Result()
    status = library.tilec_compile(ctypes.byref(request), ctypes.byref(result))
    try:
        if status == 0 and result.bundle:
            return ctypes.string_at(result.bundle, result.bundle_size)
        diagnostics = (ctypes.string_at(result.diagnostics).decode("utf-8", "replace")
                       if result.diagnostics else "")
        if status != _COMPILE_ERROR or not diagnostics:
            message = library.tilec_compiler_last_error().decode("utf-8", "replace")
            diagnostics = "\n".join(part for part in (diagnostics, message) if part)
        raise CompileError(spec_name, diagnostics.strip())
    finally:
        library.tilec_compile_result_free(ctypes.byref(result))


def compiler_version() -> str:
    """A string that changes whenever the compiler does; part of every cache
    key. $TILEC_COMPILER_VERSION overrides it (to use a cache filled on
    another machine where this one has no compiler)."""
    override = os.environ.get("TILEC_COMPILER_VERSION")
    if override:
        return override
    library = find_compiler_library()
    if library is not None:
        try:
            version = _library(library).tilec_compiler_version().decode()
        except OSError as error:
            raise CompileError("(no spec)", f"cannot load the compiler library "
                                            f"{library}: {error}")
        return f"libtilec_compiler {version}\nptxas: {_ptxas_version()}"
    compiler = find_compiler()
    if compiler is None:
        raise CompileError("(no spec)", _no_compiler_message())
    try:
        status = os.stat(compiler)
    except OSError as error:
        raise CompileError("(no spec)", f"cannot run tilec at {compiler}: {error}")
    return _version_of(os.path.realpath(compiler), status.st_size,
                       status.st_mtime_ns)


def _no_compiler_message() -> str:
    return ("no tilec compiler found: set $TILEC_COMPILER to the tilec "
            "command, put tilec on PATH, or build the checkout "
            "(./scripts/build.sh)")


def compile_bundle(spec_name: str, spec_text: str, defines: Optional[Defines] = None,
                   target: Optional[str] = None) -> bytes:
    """Compiles `spec_text` (named `spec_name` in diagnostics) with `-D`
    `defines` for `target` ("sm_90a", "sm_100a"; None: the spec's own) into
    bundle bytes. Raises CompileError with tilec's diagnostics."""
    library = find_compiler_library()
    if library is not None:
        return _compile_in_process(library, spec_name, spec_text, defines, target)
    compiler = find_compiler()
    if compiler is None:
        raise CompileError(spec_name, _no_compiler_message())
    with tempfile.TemporaryDirectory(prefix="tilec-jit-") as work:
        source = os.path.join(work, os.path.basename(spec_name) or "spec.tile")
        if not source.endswith((".tile", ".mlir")):
            source += ".tile"
        output = os.path.join(work, "kernel.tilec")
        with open(source, "w", encoding="utf-8") as f:
            f.write(spec_text)
        command = [compiler, source, "-o", output]
        for name, value in normalize_defines(defines):
            command += ["-D", f"{name}={value}"]
        if target:
            command.append(f"--target={target}")
        try:
            done = subprocess.run(command, capture_output=True, text=True)
        except OSError as error:
            raise CompileError(spec_name, f"cannot run {compiler}: {error}")
        # Diagnostics name the spec, not the temporary file.
        diagnostics = (done.stderr + done.stdout).replace(source, spec_name)
        if done.returncode != 0 or not os.path.exists(output):
            raise CompileError(spec_name, diagnostics.strip() or
                               f"tilec exited with status {done.returncode}")
        with open(output, "rb") as f:
            return f.read()

"""Kernel caches: loaded kernels in memory, bundle bytes on disk.

get_kernel(family, defines, device, problem) -> a loaded kernel:
  memory (a dict, per family, params, target and device) -> the bundle:
  - for a kernel-library GEMM (a `problem` given) and the compiler library
    present: the library's own kernel cache (_configs.library_bundle, that is
    tilec_get_kernel: its memory, then <dir>/kernels/<key>.kernel, which
    tilec-precompile fills, then a compile stored there), so that a server
    whose cache was precompiled compiles nothing;
  - otherwise (a spec of the user's, or only the tilec command): this
    module's disk cache below, then a compile (_jit) stored there.

Disk entries are <dir>/kernels/<key>.tilec, key = sha256 of the spec text,
the sorted defines, the target and the compiler version, so that a newer
compiler never loads an older cubin. A file is a magic, the sha256 of its
payload and the bundle bytes; it is written to a temporary file in the same
directory, fsynced and renamed over the entry (atomic on POSIX, so several
processes may share a directory and a reader never sees half a file). An
entry that does not verify is a miss and is replaced.

plan_kernel(...) is what a GEMM's first call takes: the tiered JIT. When
the configuration is in neither cache and has a quick build (its K loop not
unrolled, its K blocks not paired: the same bits, a compile up to 5x
cheaper; tilec_get_kernel_ex's TILEC_KERNEL_QUICK), the call runs the quick
build and the configuration compiles on a background thread; its plan is
recorded with a RetireFlag that the thread sets, so the first call after
the tuned kernel is ready takes the slow path once and records it.
wait_for_compiles() waits for those threads; TILEC_TIERED=0 compiles the
configuration itself on the first call.

Environment: TILEC_PRINT_COMPILES=1 prints each compile (and disk load) with
its time to stderr; TILEC_DISABLE_CACHE=1 skips the disk.
"""

import hashlib
import os
import sys
import tempfile
import threading
import time
from typing import Optional, Tuple

from . import _jit, _runtime, _specs

_MAGIC = b"TILECKC1"
_DIGEST_BYTES = 32

_memory = {}
_lock = threading.Lock()
_disk_warning_printed = False


def cache_dir() -> str:
    configured = os.environ.get("TILEC_CACHE_DIR")
    if configured:
        return configured
    return os.path.join(os.path.expanduser("~"), ".cache", "tilec")


def _flag(name: str) -> bool:
    return os.environ.get(name, "") not in ("", "0")


def kernel_key(spec_text: str, defines, target: str, compiler_version: str) -> str:
    """The hex key of one kernel build."""
    digest = hashlib.sha256()
    digest.update(b"tilec kernel key 1\0")
    for part in (spec_text,
                 "\n".join(f"{k}={v}" for k, v in _jit.normalize_defines(defines)),
                 target or "", compiler_version):
        digest.update(part.encode("utf-8"))
        digest.update(b"\0")
    return digest.hexdigest()


def entry_path(key: str, directory: Optional[str] = None) -> str:
    return os.path.join(directory or cache_dir(), "kernels", key + ".tilec")


def read_entry(path: str) -> Optional[bytes]:
    """The bundle of a cache file, or None when missing or not intact."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return None
    header = len(_MAGIC) + _DIGEST_BYTES
    if len(data) <= header or not data.startswith(_MAGIC):
        return None
    payload = data[header:]
    if hashlib.sha256(payload).digest() != data[len(_MAGIC):header]:
        return None
    return payload


def write_entry(path: str, bundle: bytes) -> None:
    """Writes atomically: temporary file in the same directory, fsync,
    rename over `path`, fsync of the directory. Raises OSError."""
    directory = os.path.dirname(path)
    os.makedirs(directory, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=directory, prefix=".tmp-",
                                         suffix=".tilec")
    try:
        with os.fdopen(handle, "wb") as f:
            f.write(_MAGIC + hashlib.sha256(bundle).digest() + bundle)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise
    try:
        directory_fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(directory_fd)
        finally:
            os.close(directory_fd)
    except OSError:
        pass  # some filesystems cannot fsync a directory; the rename stands


def _warn_disk(error: OSError) -> None:
    global _disk_warning_printed
    if not _disk_warning_printed:
        _disk_warning_printed = True
        print(f"tilec: cannot write the kernel cache ({error}); compiling "
              f"without it", file=sys.stderr)


def get_bundle(spec_name: str, spec_text: str, defines, target: str) -> bytes:
    """Bundle bytes from the disk cache, or compiled and stored."""
    use_disk = not _flag("TILEC_DISABLE_CACHE")
    path = None
    if use_disk:
        path = entry_path(kernel_key(spec_text, defines, target,
                                     _jit.compiler_version()))
        start = time.perf_counter()
        cached = read_entry(path)
        if cached is not None:
            if _flag("TILEC_PRINT_COMPILES"):
                print(f"tilec: loaded {_describe(spec_name, defines, target)} "
                      f"from the disk cache in "
                      f"{(time.perf_counter() - start) * 1e3:.2f} ms ({path})",
                      file=sys.stderr)
            return cached
    start = time.perf_counter()
    bundle = _jit.compile_bundle(spec_name, spec_text, defines, target)
    if _flag("TILEC_PRINT_COMPILES"):
        print(f"tilec: compiled {_describe(spec_name, defines, target)} in "
              f"{time.perf_counter() - start:.3f} s", file=sys.stderr)
    if use_disk:
        try:
            write_entry(path, bundle)
        except OSError as error:
            _warn_disk(error)
    return bundle


def _describe(spec_name: str, defines, target: str) -> str:
    flags = " ".join(f"-D {k}={v}" for k, v in _jit.normalize_defines(defines))
    return f"{spec_name} {flags} for {target}".replace("  ", " ")


_targets = {}


def device_target(device: Optional[int]) -> str:
    """The tilec target of a CUDA device ($TILEC_TARGET overrides; dry
    runs default to sm_90a)."""
    configured = os.environ.get("TILEC_TARGET")
    if configured:
        return configured
    if _runtime.dry_run():
        return "sm_90a"
    target = _targets.get(device)
    if target is None:
        import torch
        major, minor = torch.cuda.get_device_capability(device)
        target = {(9, 0): "sm_90a", (10, 0): "sm_100a"}.get((major, minor))
        if target is None:
            raise NotImplementedError(
                f"tilec has no target for a GPU of compute capability "
                f"{major}.{minor} (it compiles for sm_90a and sm_100a)")
        _targets[device] = target
    return target


def get_kernel(family: str, defines=(), device: Optional[int] = None,
               problem: Optional[dict] = None):
    """The kernel of `family` built with `defines` for `device` (torch's
    current CUDA device when None), loaded once per process. `problem`: the
    keyword arguments of _configs.choose (m, n, k, out, accumulate, num_sms)
    that chose `defines`, for the library's cache."""
    dry = _runtime.dry_run()
    try:  # defines from _configs.choose are normalised already: one lookup
        kernel = _memory.get((family, defines, device, dry))
    except TypeError:  # a dict of defines
        kernel = None
    if kernel is not None:
        return kernel
    key = _memory_key(family, defines, device)
    kernel = _memory.get(key)
    if kernel is not None:
        return kernel
    with _lock:
        kernel = _memory.get(key)
        if kernel is None:
            kernel = _load(family, key[1], device, problem)
            _memory[key] = kernel
    return kernel


def _load(family_name: str, defines: Tuple[Tuple[str, str], ...],
          device: Optional[int], problem: Optional[dict]):
    family = _specs.family(family_name)
    target = device_target(device)
    bundle = None
    if problem is not None and _jit.find_compiler_library() is not None:
        bundle = _library_bundle(family_name, defines, target, problem)
    if bundle is None:
        bundle = get_bundle(os.path.basename(family.spec),
                            _specs.spec_text(family.spec), defines, target)
    return _runtime.load_kernel(bundle, family.kernel, device)


class _TunedCompile:
    """A configuration compiling on a background thread for the plans of
    its quick build; `flag` is set when it is done (or failed: `error`)."""

    def __init__(self, family: str, target: str, problem: dict):
        self.flag = _runtime.RetireFlag()
        self.error = None
        self.warned = False
        self.thread = threading.Thread(
            target=self._run, args=(family, target, dict(problem)),
            name=f"tilec-compile-{family}", daemon=True)
        self.thread.start()

    def _run(self, family: str, target: str, problem: dict) -> None:
        from . import _configs
        try:  # the compile releases the GIL (a ctypes call)
            _configs.library_bundle(family, target=target, **problem)
        except Exception as error:  # reported by the next slow path
            self.error = error
        finally:
            self.flag.set()


_tuned_compiles = {}


def _tiered() -> bool:
    return os.environ.get("TILEC_TIERED", "1") != "0"


def loaded_kernel(family: str, defines=(), device: Optional[int] = None):
    """The kernel of `family` with `defines` if this process has loaded it,
    else None (nothing is compiled or loaded)."""
    return _memory.get(_memory_key(family, defines, device))


def _memory_key(family: str, defines, device: Optional[int]) -> tuple:
    """The key of a loaded kernel in _memory."""
    return (family, _jit.normalize_defines(defines), device, _runtime.dry_run())


def capturing() -> bool:
    """Whether torch's current stream is capturing a CUDA graph: no module
    is loaded then (the quick kernel keeps serving)."""
    if _runtime.dry_run():
        return False
    import torch
    return torch.cuda.is_current_stream_capturing()


def plan_kernel(family: str, defines, device: Optional[int], problem: dict):
    """(kernel, retire flag or None) for a plan of a kernel-library GEMM:
    the configuration's kernel when this process or a cache has it (or
    tiering is off), else its quick build, with the flag that the
    background compile of the configuration sets (module docstring)."""
    defines = _jit.normalize_defines(defines)
    loaded = (family, defines, device, _runtime.dry_run()) in _memory
    if loaded or not _tiered() or _jit.find_compiler_library() is None:
        return get_kernel(family, defines, device, problem), None
    from . import _configs
    target = device_target(device)
    tuned_key = (family, defines, target)
    pending = _tuned_compiles.get(tuned_key)
    try:
        if pending is None:
            # Precompiled, or stored by an earlier process: no tiers.
            if _configs.library_bundle(family, target=target, cached_only=True,
                                       **problem) is not None:
                return get_kernel(family, defines, device, problem), None
            _, quick, _ = _configs.library_bundle(family, target=target,
                                                  quick=True, **problem)
            if quick == defines:  # nothing to drop: that was the configuration
                return get_kernel(family, defines, device, problem), None
            with _lock:
                pending = _tuned_compiles.get(tuned_key)
                if pending is None:
                    pending = _tuned_compiles[tuned_key] = _TunedCompile(
                        family, target, problem)
        elif pending.flag.is_set and pending.error is None:
            if not capturing():  # no module loads while capturing
                return get_kernel(family, defines, device, problem), None
    except _configs.CacheUnavailable:
        return get_kernel(family, defines, device, problem), None  # warns
    if pending.flag.is_set and pending.error is not None:
        if not pending.warned:
            pending.warned = True
            print(f"tilec: {family} [{' '.join(f'{k}={v}' for k, v in defines)}] "
                  f"did not compile ({pending.error}); its quick build serves "
                  f"instead", file=sys.stderr)
        return _quick_kernel(family, defines, device, problem), None
    return _quick_kernel(family, defines, device, problem), pending.flag


def _quick_kernel(family: str, defines, device, problem: dict):
    """The loaded quick build of the configuration `defines`."""
    dry = _runtime.dry_run()
    key = ("quick", family, defines, device, dry)
    kernel = _memory.get(key)
    if kernel is None:
        from . import _configs
        with _lock:
            kernel = _memory.get(key)
            if kernel is None:
                bundle, _, _ = _configs.library_bundle(
                    family, target=device_target(device), quick=True, **problem)
                kernel = _runtime.load_kernel(bundle, _specs.family(family).kernel,
                                              device)
                _memory[key] = kernel
    return kernel


def wait_for_compiles(timeout: Optional[float] = None) -> bool:
    """Waits for the tiered JIT's background compiles (module docstring);
    True when none is left running. Benchmarks call it before timing."""
    deadline = None if timeout is None else time.monotonic() + timeout
    for pending in list(_tuned_compiles.values()):
        thread = getattr(pending, "thread", None)
        if thread is not None:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            thread.join(left)
    return not any(getattr(p, "thread", None) is not None and p.thread.is_alive()
                   for p in _tuned_compiles.values())


def _library_bundle(family: str, defines, target: str,
                    problem: dict) -> Optional[bytes]:
    """The bundle from the library's kernel cache; None when that cache
    cannot be used (its directory is not writable: warned once, and the
    caller compiles without a disk cache as get_bundle does)."""
    from . import _configs
    try:
        bundle, chosen, _ = _configs.library_bundle(family, target=target,
                                                    **problem)
    except _configs.CacheUnavailable as error:
        _warn_disk(error)
        return None
    if chosen != _jit.normalize_defines(defines):
        raise RuntimeError(f"{family}: the library's kernel cache chose "
                           f"{chosen}, the caller {defines}")
    return bundle


def clear_memory() -> None:
    """Forgets the loaded kernels (they stay loaded while referenced)."""
    with _lock:
        _memory.clear()

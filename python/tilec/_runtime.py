"""The extension tilec._C and torch, wired together once.

tilec._C reads torch tensors through the Python C API; here it is handed
torch.Tensor, the dtype table and torch's current-stream function (once, on
first use), and modules are loaded onto the right device.

"Dry" mode (set_dry_run(True)) parses bundles without a driver and makes
every launch run the runtime's CPU checks only, on tensors of any device:
the CPU tests and the CPU microbenchmark use it (docs/python.md).
"""

import os
import threading
from typing import Optional

from . import _C

TilecError = _C.TilecError
Bundle = _C.Bundle
Module = _C.Module
Kernel = _C.Kernel
Dispatcher = _C.Dispatcher
RetireFlag = _C.RetireFlag

# torch dtype attribute -> tilec dtype name (runtime/include/tilec/Vocabulary.h).
_TORCH_DTYPES = {
    "float16": "f16", "bfloat16": "bf16", "float32": "f32", "float64": "f64",
    "int8": "i8", "uint8": "u8", "int16": "i16", "uint16": "u16",
    "int32": "i32", "uint32": "u32", "int64": "i64", "uint64": "u64",
    "float8_e4m3fn": "e4m3", "float8_e5m2": "e5m2", "float8_e8m0fnu": "e8m0",
}

_lock = threading.Lock()
_configured = None  # None, "default" or "attributes"
_dry_run = False


def _current_stream_function(torch):
    """callable(device) -> raw CUstream of torch's current stream."""
    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    if raw is not None:
        return raw
    return lambda device: torch.cuda.current_stream(device).cuda_stream


def configure_torch(attribute_reader: bool = False) -> None:
    """Hands torch's tensor type, dtypes, stream function and, where it can
    serve, tilec._torch_direct's reader to tilec._C. attribute_reader=True
    reads tensors through Python attributes even so (the tests compare the
    two readers)."""
    global _configured
    wanted = "attributes" if attribute_reader else "default"
    if _configured == wanted:
        return
    import torch
    with _lock:
        if _configured == wanted:
            return
        dtypes = {getattr(torch, name): tilec for name, tilec in
                  _TORCH_DTYPES.items() if hasattr(torch, name)}
        _C.configure_torch([torch.Tensor, torch.nn.Parameter], dtypes,
                           _current_stream_function(torch),
                           direct_api=None if attribute_reader else _direct_reader(torch))
        _configured = wanted


def _direct_reader(torch):
    """tilec._torch_direct's reader (tensors read through torch's headers,
    -2.2 us per GEMM call) when the package has it and was built for this
    very torch (another one's C++ layout may differ), and not under
    TILEC_TORCH_DIRECT=0; else None (Python attribute reads)."""
    if os.environ.get("TILEC_TORCH_DIRECT", "1") == "0":
        return None
    try:
        from . import _torch_direct
    except ImportError:
        return None
    if _torch_direct.torch_version != torch.__version__:
        return None
    return _torch_direct.api


def set_dry_run(enabled: bool) -> None:
    """Dry mode: kernels come from parsed bundles (no driver, no GPU) and
    launches only run the runtime's argument checks; CPU tensors pass the
    device checks. For tests and the CPU microbenchmark."""
    global _dry_run
    _dry_run = bool(enabled)
    # Plans recorded in one mode must not serve the other.
    from . import _gemm
    for dispatcher in _gemm._dispatchers.values():
        dispatcher.clear()


def dry_run() -> bool:
    return _dry_run


def load_kernel(bundle: bytes, name: str = "", device: Optional[int] = None):
    """The kernel `name` of `bundle` (bytes): loaded on CUDA device `device`
    (torch's current device when None), or parsed only in dry mode."""
    configure_torch()
    if _dry_run:
        return Bundle(bundle).kernel(name)
    import torch
    index = torch.cuda.current_device() if device is None else device
    # The runtime loads into the context current on this thread: make it the
    # device's primary context, as torch uses it.
    with torch.cuda.device(index):
        torch.cuda.init()
        module = Module(bundle)
    return module.kernel(name)

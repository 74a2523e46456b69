"""ctypes wrapper of the tilec runtime's C API (tilec_runtime.h).

Loads tilec output and launches it on torch tensors:

    import torch, tilec_runtime as tr
    module = tr.Module("gemm.tilec")          # bundle, or .cubin/.ptx + .json
    gemm = module.kernel("gemm")              # or module.kernel() if only one
    gemm(a, b, d, 1.0)                        # torch tensors and Python scalars
    gemm(a, b, d, 1.0, stream=torch.cuda.Stream())

Tensors are passed as (data_ptr, dtype, shape, strides); anything with
`data_ptr()`, `dtype`, `shape` and `stride()` works (torch tensors), and so
does `TensorRef`. Scalars take the dtype the kernel declares. The default
stream is torch's current stream when torch is loaded, else the legacy
default stream. Errors raise TilecError with the runtime's message, which
names the wrong argument.

The library is found through $TILEC_RUNTIME_LIB, then beside this file in an
install prefix (<prefix>/share/tilec/python -> <prefix>/lib), then the
system's search path.
"""

import ctypes
import os
import sys
from typing import NamedTuple, Optional, Sequence

MAX_RANK = 8

# Index = tilec_dtype value (tilec::bundle::DType).
DTYPES = ("f16", "bf16", "f32", "f64", "tf32", "i8", "u8", "i16", "u16",
          "i32", "u32", "i64", "u64", "e4m3", "e5m2", "e8m0")
_FLOAT_DTYPES = {"f16", "bf16", "f32", "f64", "tf32", "e4m3", "e5m2", "e8m0"}

ARG_TENSOR = 0
ARG_SCALAR = 1
ARG_TENSOR_LIST = 2
_KIND_NAMES = {ARG_TENSOR: "tensor", ARG_SCALAR: "scalar",
               ARG_TENSOR_LIST: "tensor_list"}

STATUS_NAMES = ("SUCCESS", "DRIVER_NOT_AVAILABLE", "INVALID_VALUE",
                "INVALID_BUNDLE", "NOT_FOUND", "INVALID_ARGUMENT", "CUDA")


class TilecError(RuntimeError):
    """A failed runtime call: `status` is the tilec_status name."""

    def __init__(self, status: int, message: str):
        self.status = (STATUS_NAMES[status] if 0 <= status < len(STATUS_NAMES)
                       else str(status))
        super().__init__(message)


class TensorRef(NamedTuple):
    """A device tensor without torch: address, dtype name, shape, strides
    (in elements, outermost first)."""
    data_ptr: int
    dtype: str
    shape: Sequence[int]
    strides: Sequence[int]


class _Arg(ctypes.Structure):
    _fields_ = [("kind", ctypes.c_int32), ("dtype", ctypes.c_int32),
                ("rank", ctypes.c_int32), ("reserved", ctypes.c_int32),
                ("data", ctypes.c_uint64),
                ("shape", ctypes.c_int64 * MAX_RANK),
                ("strides", ctypes.c_int64 * MAX_RANK),
                ("int_value", ctypes.c_int64),
                ("float_value", ctypes.c_double)]


class _ArgInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("kind", ctypes.c_int32),
                ("dtype", ctypes.c_int32), ("rank", ctypes.c_int32),
                ("capacity", ctypes.c_int32),
                ("shape", ctypes.c_int64 * MAX_RANK)]


class ArgInfo(NamedTuple):
    """What a kernel expects for one argument; -1 marks a dynamic dim. A
    tensor list's shape is its length, then each tensor's dims; capacity is
    the most tensors it takes (0 for the other kinds)."""
    name: str
    kind: str  # "tensor", "scalar" or "tensor_list"
    dtype: str
    shape: tuple
    capacity: int = 0


def _library_candidates():
    if os.environ.get("TILEC_RUNTIME_LIB"):
        yield os.environ["TILEC_RUNTIME_LIB"]
    here = os.path.dirname(os.path.abspath(__file__))
    for libdir in ("lib", "lib64"):
        yield os.path.join(here, "..", "..", "..", libdir, "libtilec_runtime.so")
    yield "libtilec_runtime.so"


_lib = None


def _library():
    global _lib
    if _lib is not None:
        return _lib
    errors = []
    for candidate in _library_candidates():
        try:
            lib = ctypes.CDLL(candidate)
            break
        except OSError as error:
            errors.append(str(error))
    else:
        raise OSError("cannot load libtilec_runtime.so (set TILEC_RUNTIME_LIB):"
                      " " + "; ".join(errors))
    status, p, size, c_str = (ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t,
                              ctypes.c_char_p)
    handle = ctypes.POINTER(p)
    signatures = {
        "tilec_last_error": ([], c_str),
        "tilec_driver_status": ([], status),
        "tilec_module_load_file": ([c_str, handle], status),
        "tilec_module_load_data": ([p, size, handle], status),
        "tilec_module_load_image": ([p, size, c_str, size, handle], status),
        "tilec_module_unload": ([p], status),
        "tilec_module_num_kernels": ([p], size),
        "tilec_module_kernel_name": ([p, size], c_str),
        "tilec_module_get_kernel": ([p, c_str, handle], status),
        "tilec_kernel_num_args": ([p], size),
        "tilec_kernel_arg_info": ([p, size, ctypes.POINTER(_ArgInfo)], status),
        "tilec_check": ([p, ctypes.POINTER(_Arg), size], status),
        "tilec_launch": ([p, ctypes.POINTER(_Arg), size, p], status),
        "tilec_synchronize": ([p], status),
    }
    for name, (argtypes, restype) in signatures.items():
        function = getattr(lib, name)
        function.argtypes = argtypes
        function.restype = restype
    _lib = lib
    return lib


def _check(status: int) -> None:
    if status != 0:
        message = _library().tilec_last_error().decode("utf-8", "replace")
        raise TilecError(status, message)


def driver_status() -> None:
    """Raises TilecError when the CUDA driver cannot be used."""
    _check(_library().tilec_driver_status())


def synchronize(stream=None) -> None:
    """Waits for `stream` (None: the whole context)."""
    _check(_library().tilec_synchronize(_stream_handle(stream, default=0)))


_torch_dtypes = None


def _dtype_index(dtype) -> int:
    """tilec_dtype of a torch dtype or a dtype name."""
    global _torch_dtypes
    if isinstance(dtype, str):
        if dtype not in DTYPES:
            raise TypeError(f"unknown dtype {dtype!r}")
        return DTYPES.index(dtype)
    if _torch_dtypes is None:
        import torch
        names = {"float16": "f16", "bfloat16": "bf16", "float32": "f32",
                 "float64": "f64", "int8": "i8", "uint8": "u8",
                 "int16": "i16", "uint16": "u16", "int32": "i32",
                 "uint32": "u32", "int64": "i64", "uint64": "u64",
                 "float8_e4m3fn": "e4m3", "float8_e5m2": "e5m2",
                 "float8_e8m0fnu": "e8m0"}
        _torch_dtypes = {getattr(torch, attr): DTYPES.index(name)
                         for attr, name in names.items()
                         if hasattr(torch, attr)}
    if dtype not in _torch_dtypes:
        raise TypeError(f"dtype {dtype} has no tilec equivalent")
    return _torch_dtypes[dtype]


def _stream_handle(stream, default: Optional[int]) -> int:
    if stream is None:
        torch = sys.modules.get("torch")
        if default is None and torch is not None and torch.cuda.is_initialized():
            return torch.cuda.current_stream().cuda_stream
        return 0
    if isinstance(stream, int):
        return stream
    return stream.cuda_stream  # torch.cuda.Stream / ExternalStream


def _to_c_arg(value, info: ArgInfo, index: int, keep: list) -> _Arg:
    """The C argument for `value`; what it points to goes into `keep`."""
    arg = _Arg()
    if info.kind == "tensor_list":
        # A TensorRef is a tuple too, but one tensor.
        if isinstance(value, TensorRef) or not isinstance(value, (list, tuple)):
            raise TypeError(f"argument '{info.name}' (index {index}): expected "
                            f"a list of tensors, got {type(value).__name__}")
        tensor = info._replace(kind="tensor")
        tensors = (_Arg * max(len(value), 1))()
        for e, element in enumerate(value):
            tensors[e] = _to_c_arg(element, tensor, index, keep)
        keep.append(tensors)
        arg.kind = ARG_TENSOR_LIST
        arg.rank = len(value)
        arg.data = ctypes.addressof(tensors)
        return arg
    if info.kind == "scalar":
        arg.kind = ARG_SCALAR
        arg.dtype = DTYPES.index(info.dtype)
        if not isinstance(value, (bool, int, float)):
            raise TypeError(f"argument '{info.name}' (index {index}): expected "
                            f"a Python number, got {type(value).__name__}")
        if info.dtype in _FLOAT_DTYPES:
            arg.float_value = float(value)
        elif info.dtype == "u64" and value >= 2**63:
            arg.int_value = value - 2**64  # the C API takes u64 as raw bits
        elif not -2**63 <= value < 2**63:
            raise OverflowError(f"argument '{info.name}' (index {index}): "
                                f"{value} does not fit in 64 bits")
        else:
            arg.int_value = int(value)
        return arg
    arg.kind = ARG_TENSOR
    if isinstance(value, TensorRef):
        pointer, dtype, shape, strides = value
    else:
        pointer, dtype = value.data_ptr(), value.dtype
        shape, strides = tuple(value.shape), tuple(value.stride())
    if len(shape) > MAX_RANK or len(strides) != len(shape):
        raise ValueError(f"argument '{info.name}' (index {index}): rank "
                         f"{len(shape)} with {len(strides)} strides")
    arg.dtype = _dtype_index(dtype)
    arg.rank = len(shape)
    arg.data = pointer
    for d, (size, stride) in enumerate(zip(shape, strides)):
        arg.shape[d] = size
        arg.strides[d] = stride
    return arg


class Kernel:
    """A kernel of a loaded Module; call it to launch."""

    def __init__(self, module: "Module", handle: int):
        self._module = module  # keeps the module loaded
        self._handle = handle
        lib = _library()
        self.args = []
        for i in range(lib.tilec_kernel_num_args(handle)):
            info = _ArgInfo()
            _check(lib.tilec_kernel_arg_info(handle, i, ctypes.byref(info)))
            self.args.append(ArgInfo(
                info.name.decode(), _KIND_NAMES.get(info.kind, "scalar"),
                DTYPES[info.dtype], tuple(info.shape[:info.rank]),
                info.capacity))

    def _c_args(self, values, keep: list):
        array = (_Arg * max(len(values), 1))()
        for i, value in enumerate(values):
            if i < len(self.args):
                array[i] = _to_c_arg(value, self.args[i], i, keep)
        return array

    def check(self, *values) -> None:
        """Checks the arguments without launching (raises TilecError). A
        tensor list is passed as a Python list of tensors."""
        keep = []
        _check(_library().tilec_check(self._handle, self._c_args(values, keep),
                                      len(values)))

    def __call__(self, *values, stream=None) -> None:
        """Launches on `stream` (torch.cuda.Stream, raw handle or None)."""
        keep = []
        _check(_library().tilec_launch(self._handle, self._c_args(values, keep),
                                       len(values),
                                       _stream_handle(stream, default=None)))


class Module:
    """A loaded bundle (or raw cubin/PTX with metadata); unloaded on close()
    or when garbage-collected."""

    def __init__(self, path: Optional[str] = None, *, data: bytes = None,
                 image: bytes = None, metadata: str = None):
        lib = _library()
        handle = ctypes.c_void_p()
        if path is not None:
            _check(lib.tilec_module_load_file(os.fsencode(path),
                                              ctypes.byref(handle)))
        elif data is not None:
            _check(lib.tilec_module_load_data(data, len(data),
                                              ctypes.byref(handle)))
        elif image is not None and metadata is not None:
            meta = metadata.encode()
            _check(lib.tilec_module_load_image(image, len(image), meta,
                                               len(meta), ctypes.byref(handle)))
        else:
            raise ValueError("pass a path, data=, or image= with metadata=")
        self._handle = handle.value
        self._kernels = {}

    @property
    def kernel_names(self):
        lib = _library()
        return [lib.tilec_module_kernel_name(self._handle, i).decode()
                for i in range(lib.tilec_module_num_kernels(self._handle))]

    def kernel(self, name: Optional[str] = None) -> Kernel:
        if name not in self._kernels:
            handle = ctypes.c_void_p()
            _check(_library().tilec_module_get_kernel(
                self._handle, name.encode() if name else None,
                ctypes.byref(handle)))
            self._kernels[name] = Kernel(self, handle.value)
        return self._kernels[name]

    def close(self) -> None:
        if self._handle:
            self._kernels.clear()
            _library().tilec_module_unload(self._handle)
            self._handle = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        if getattr(self, "_handle", None) and _lib is not None:
            self.close()

"""Argument checks that name the argument and the expected value.

Everything here reads tensor metadata only (dtype, shape, strides, device),
so the checks run on CPU and meta tensors and before any CUDA call; the
data pointer is read last, for CUDA tensors only (alignment).
"""

from typing import Optional, Tuple

import torch

# TMA's rules: 16-byte aligned addresses and strides.
TMA_ALIGN = 16


class Operand:
    """One tensor argument, read once: `view` is how the GEMM sees it (the
    argument's transpose when `transposed`)."""

    __slots__ = ("function", "name", "tensor", "dtype", "shape", "strides",
                 "transposed", "device")

    def __init__(self, function: str, name: str, tensor, transposed: bool = False):
        if not isinstance(tensor, torch.Tensor):
            raise TypeError(f"{function}: argument '{name}' must be a torch.Tensor, "
                            f"got {type(tensor).__name__}")
        self.function, self.name, self.tensor = function, name, tensor
        self.dtype = tensor.dtype
        shape, strides = tuple(tensor.shape), tuple(tensor.stride())
        if transposed and len(shape) == 2:
            shape, strides = shape[::-1], strides[::-1]
        self.shape, self.strides, self.transposed = shape, strides, transposed
        self.device = tensor.device

    def fail(self, what: str) -> ValueError:
        return ValueError(f"{self.function}: argument '{self.name}' {what}")

    def expect_dtype(self, *dtypes) -> None:
        if self.dtype not in dtypes:
            names = " or ".join(str(d) for d in dtypes)
            raise self.fail(f"must have dtype {names}, got {self.dtype}")

    def expect_rank(self, rank: int, labels: str) -> None:
        if len(self.shape) != rank:
            raise self.fail(f"must be {rank}-D {labels}, got shape "
                            f"{list(self.tensor.shape)}")

    def expect_shape(self, expected: Tuple[int, ...], labels: str) -> None:
        if self.shape != tuple(expected):
            view = " (as the GEMM reads it, transposed)" if self.transposed else ""
            raise self.fail(f"must have shape {labels} = {list(expected)}{view}, "
                            f"got {list(self.shape)}")

    def k_major(self) -> bool:
        """DeepGEMM's rule: K-major when the last dim is contiguous."""
        return self.strides[1] == 1

    def expect_major(self, labels: str) -> bool:
        """True for K-major (rows contiguous), False for MN-major (columns
        contiguous); anything else is a ValueError. Overlapping rows are
        rejected too."""
        rows, cols = self.shape
        if self.strides[1] == 1 and (rows <= 1 or self.strides[0] >= cols):
            return True
        if self.strides[0] == 1 and (cols <= 1 or self.strides[1] >= rows):
            return False
        raise self.fail(f"{labels} must be K-major (stride(1) == 1) or MN-major "
                        f"(stride(0) == 1) without overlap, got strides "
                        f"{list(self.strides)}")

    def expect_row_major(self, labels: str) -> None:
        """Rows contiguous (stride(1) == 1), as every tilec output is."""
        rows, cols = self.shape
        if (self.strides[1] != 1 and cols > 1) or (rows > 1 and self.strides[0] < cols):
            raise self.fail(f"{labels} must be row-major (N-major: stride(1) == 1, "
                            f"stride(0) >= {cols}), got strides {list(self.strides)}")

    def expect_contiguous(self, why: str) -> None:
        """torch-contiguous (the layouts that take no strides)."""
        if not self.tensor.is_contiguous():
            raise self.fail(f"must be contiguous ({why}), got strides "
                            f"{list(self.strides)}")

    def expect_tma_rows(self, contiguous_dim: int) -> None:
        """The outer stride of a 2-D TMA operand in bytes is a multiple of 16
        (so, for a contiguous tensor, the contiguous dim's bytes are)."""
        outer = 1 - contiguous_dim
        if self.shape[outer] <= 1:
            return
        size = self.tensor.element_size()
        stride_bytes = self.strides[outer] * size
        if stride_bytes % TMA_ALIGN:
            raise self.fail(
                f"needs a stride of dim {outer} of a multiple of 16 bytes "
                f"({TMA_ALIGN // size} elements) for TMA, got {self.strides[outer]} "
                f"elements ({stride_bytes} bytes)")


def expect_bool(function: str, name: str, value) -> bool:
    """A flag argument: a bool, not a number that happens to be truthy."""
    if not isinstance(value, bool):
        raise ValueError(f"{function}: argument '{name}' must be a bool, got "
                         f"{value!r}")
    return value


def expect_same_device(operands, allow_cpu: bool) -> Optional[int]:
    """The CUDA device index all operands are on (None in dry runs on CPU);
    a ValueError names the first that is elsewhere."""
    first = operands[0]
    for op in operands:
        if op.device.type != "cuda" and not (allow_cpu and op.device.type == "cpu"):
            raise op.fail(f"must be a CUDA tensor, got a tensor on {op.device}")
        if op.device != first.device:
            raise op.fail(f"is on {op.device}, but '{first.name}' is on "
                          f"{first.device}: all tensors must be on one device")
    return first.device.index if first.device.type == "cuda" else None


def expect_aligned(operands) -> None:
    """16-byte aligned data pointers (TMA); read only for device tensors."""
    for op in operands:
        if op.tensor.numel() and op.tensor.data_ptr() % TMA_ALIGN:
            raise op.fail(f"must start at a 16-byte aligned address for TMA, "
                          f"got 0x{op.tensor.data_ptr():x} (a view with a "
                          f"storage offset?)")


def expect_compiled_dims(function: str, compiled_dims) -> None:
    """DeepGEMM's compile-time dims: tilec's kernels take every dim at run
    time, so the value only has to be well-formed."""
    if not isinstance(compiled_dims, str) or set(compiled_dims) - set("mnk"):
        raise ValueError(f"{function}: argument 'compiled_dims' must be a string "
                         f"of the letters m, n, k, got {compiled_dims!r}")

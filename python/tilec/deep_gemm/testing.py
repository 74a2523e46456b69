"""What DeepGEMM's tests import from deep_gemm.testing, for tilec.

calc_diff (DeepGEMM's similarity measure), count_bytes, bench (CUDA
events), bench_kineto (kernel time from torch's profiler, with DeepGEMM's
signature), get_arch_major, test_filter, ignore_env and
assert_bitwise_equal.

bench_kineto matches kernels by substring as DeepGEMM's does; a name that
DeepGEMM's tests use for its own kernels ('bf16_gemm', 'gemm_') also
matches the tilec kernel of every family whose name contains it, so that
the tests time tilec's kernels (hopper_fastest is tilec's bf16_gemm_nt).
"""

import functools
import os
from typing import Callable, Optional

import torch

from .. import _specs
from ..quant import calc_diff  # noqa: F401 (re-exported)

__all__ = ["bench", "bench_kineto", "calc_diff", "count_bytes",
           "assert_bitwise_equal", "get_arch_major", "test_filter", "ignore_env"]


def count_bytes(*tensors) -> int:
    """Bytes of every tensor given, in nested tuples and lists too."""
    total = 0
    for tensor in tensors:
        if isinstance(tensor, (tuple, list)):
            total += count_bytes(*tensor)
        elif tensor is not None:
            total += tensor.numel() * tensor.element_size()
    return total


def assert_bitwise_equal(x: torch.Tensor, y: torch.Tensor, label: str = "") -> None:
    assert x.shape == y.shape and x.dtype == y.dtype, \
        f"{label}: {x.shape} {x.dtype} against {y.shape} {y.dtype}"
    xb, yb = x.contiguous().view(torch.uint8), y.contiguous().view(torch.uint8)
    if not torch.equal(xb, yb):
        first = (xb != yb).flatten().nonzero()[0].item()
        raise AssertionError(f"bitwise mismatch{f' ({label})' if label else ''}: "
                             f"first differing byte {first} of {xb.numel()}")


def get_arch_major() -> int:
    return torch.cuda.get_device_capability()[0]


def test_filter(condition: Callable):
    """Runs the decorated test only when condition() holds."""
    def decorator(function):
        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            if condition():
                return function(*args, **kwargs)
            print(f"{function.__name__}:\n > Filtered by {condition}\n")
        return wrapper
    return decorator


def ignore_env(name: str, condition: Callable):
    """Runs the decorated test without environment variable `name` when
    condition() holds."""
    def decorator(function):
        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            saved = os.environ.pop(name, None) if condition() else None
            try:
                return function(*args, **kwargs)
            finally:
                if saved is not None:
                    os.environ[name] = saved
        return wrapper
    return decorator


def bench(fn, num_warmups: int = 5, num_tests: int = 10,
          high_precision: bool = False) -> float:
    """Seconds per call of fn, CUDA events around num_tests calls."""
    torch.cuda.synchronize()
    torch.empty(int(256e6 // 4), dtype=torch.int, device="cuda").zero_()
    for _ in range(num_warmups):
        fn()
    if high_precision:  # a long kernel first hides the launch latency
        x = torch.randn(8192, 8192, device="cuda")
        x @ x
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(num_tests):
        fn()
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) / num_tests / 1e3


def _aliases(pattern: str):
    """`pattern` and the kernel names of tilec's families named like it."""
    names = [pattern]
    for family in _specs.FAMILIES.values():
        if pattern in family.name and family.kernel not in names:
            names.append(family.kernel)
    return names


def _device_time_us(event) -> float:
    for attribute in ("device_time_total", "cuda_time_total"):
        value = getattr(event, attribute, None)
        if value is not None:
            return value
    return 0.0


def bench_kineto(fn, kernel_names, num_tests: int = 30,
                 suppress_kineto_output: bool = False,
                 trace_path: Optional[str] = None, flush_l2: bool = True,
                 with_multiple_kernels: bool = False,
                 barrier: Optional[Callable] = None):
    """Average GPU seconds per launch of the kernels named (a substring, or a
    tuple of them), over num_tests calls of fn profiled with torch's
    profiler, L2 flushed before each call. NaN for a name no kernel matched:
    a kernel DeepGEMM runs and tilec fuses away (clean_logits, done inside
    mqa_logits) has no time of its own, and NaN prints as such where a 0
    would divide by zero."""
    single = isinstance(kernel_names, str)
    assert single or isinstance(kernel_names, tuple)
    names = (kernel_names,) if single else kernel_names
    if int(os.environ.get("DG_USE_NVIDIA_TOOLS", 0)):
        return 1 if single else (1,) * len(names)
    flush_elements = int(8e9 // 4)  # DeepGEMM's 8 GB memset between calls
    fn()
    schedule = torch.profiler.schedule(wait=0, warmup=1, active=1, repeat=1)
    profiler = torch.profiler.profile(
        activities=[torch.profiler.ProfilerActivity.CUDA], schedule=schedule)
    with profiler:
        for _ in range(2):
            for _ in range(num_tests):
                if flush_l2:
                    torch.empty(flush_elements, dtype=torch.int, device="cuda").zero_()
                if barrier is not None:
                    torch.cuda._sleep(int(2e7))
                    barrier()
                fn()
            torch.cuda.synchronize()
            profiler.step()
    events = [e for e in profiler.key_averages() if _device_time_us(e) > 0]
    if trace_path is not None:
        profiler.export_chrome_trace(trace_path)
    times = []
    for name in names:
        aliases = _aliases(name)
        matched = [e for e in events if any(a in e.key for a in aliases)]
        if not with_multiple_kernels:
            assert len(matched) <= 1, \
                f"kernel name {name!r} matches {[e.key for e in matched]}"
        calls = sum(e.count for e in matched)
        total_us = sum(_device_time_us(e) for e in matched)
        times.append(total_us / calls / 1e6 if calls else float("nan"))
    return times[0] if single else tuple(times)

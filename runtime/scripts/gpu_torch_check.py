"""GPU check of the ctypes wrapper with torch tensors and streams.

    python3 gpu_torch_check.py <tma_copy.tilec>

Runs the reference kernels of test/gpu/tma_copy.cu through
runtime/python/tilec_runtime.py: copies of random data on torch's current
stream and on a side stream, a bf16 persistent copy, a scalar kernel, the
argument errors torch users hit most (sliced and transposed tensors), and
the host overhead of a launch with cached tensor maps. Exits 1 on a
failure, 77 without CUDA.
"""

import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "python"))

import tilec_runtime as tr  # noqa: E402

try:
    import torch
except ImportError:
    print("SKIP: torch is not installed")
    sys.exit(77)
if not torch.cuda.is_available():
    print("SKIP: torch sees no GPU")
    sys.exit(77)

failures = 0


def check(condition, name, detail=""):
    global failures
    print(f"{'PASS' if condition else 'FAIL'}  {name}"
          f"{': ' + detail if detail else ''}")
    failures += 0 if condition else 1


def expect_error(kernel, args, status, starts_with, name):
    try:
        kernel(*args)
    except tr.TilecError as error:
        check(error.status == status and str(error).startswith(starts_with),
              name, str(error))
        return
    check(False, name, "no error raised")


def main(bundle_path):
    device = torch.device("cuda")
    torch.manual_seed(0)
    module = tr.Module(bundle_path)
    check(set(module.kernel_names) ==
          {"tma_copy", "tma_copy_persistent", "scale"}, "kernel names",
          str(module.kernel_names))
    copy = module.kernel("tma_copy")
    persistent = module.kernel("tma_copy_persistent")
    scale = module.kernel("scale")

    x = torch.randn(1000, 1000, device=device)
    y = torch.full_like(x, float("nan"))
    copy(x, y)
    torch.cuda.synchronize()
    check(torch.equal(x, y), "tma_copy on torch's current stream")

    side = torch.cuda.Stream()
    x2 = torch.randn(2048, 4096, device=device)
    y2 = torch.empty_like(x2)
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        copy(x2, y2, stream=side)
    side.synchronize()
    check(torch.equal(x2, y2), "tma_copy on a side stream")

    xb = torch.randn(777, 520, device=device).to(torch.bfloat16)
    yb = torch.zeros_like(xb)
    persistent(xb, yb)
    torch.cuda.synchronize()
    check(torch.equal(xb, yb), "tma_copy_persistent, bf16")

    v = torch.randn(100003, device=device)
    w = torch.empty_like(v)
    scale(v, w, 0.75)
    torch.cuda.synchronize()
    check(torch.equal(w, v * 0.75), "scale with a Python float")

    expect_error(copy, (x[:, 1:], y[:, 1:]), "INVALID_ARGUMENT",
                 "argument 'X' (index 0): data pointer",
                 "sliced tensor refused (not 16-byte aligned)")
    expect_error(copy, (x.t(), y), "INVALID_ARGUMENT",
                 "argument 'X' (index 0): stride of dim 1 is 1000 elements, "
                 "TMA needs the innermost dim to be contiguous",
                 "transposed tensor refused")
    expect_error(copy, (x.half(), y), "INVALID_ARGUMENT",
                 "argument 'X' (index 0): expected dtype f32, got f16",
                 "wrong dtype refused")
    expect_error(copy, (x,), "INVALID_ARGUMENT",
                 "kernel 'tma_copy' takes 2 arguments (X, Y), got 1",
                 "wrong argument count refused")

    # Host cost of a launch whose tensor maps are cached.
    for _ in range(100):
        copy(x, y)
    samples = []
    for _ in range(2000):
        start = time.perf_counter()
        copy(x, y)
        samples.append((time.perf_counter() - start) * 1e6)
    torch.cuda.synchronize()
    check(True, "launch overhead (Python + ctypes + runtime)",
          f"median {statistics.median(samples):.1f} us over 2000 launches")
    module = None
    return 1 if failures else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__)
        sys.exit(2)
    sys.exit(main(sys.argv[1]))

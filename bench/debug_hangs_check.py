#!/usr/bin/env python3
"""The hang-diagnosis build on the GPU (tilec --debug-hangs, issue 16).

1. The correct rung-3 kernel built with --debug-hangs must still compute
   D = A @ B^T (the bounded waits must not fire on a healthy kernel).
2. The wrong-phase kernel (test/Target/Inputs/hang-wrong-phase.tile: the
   producer's ring starts at phase 0), built with --no-check-protocol
   --debug-hangs, must trap after ~4.3 s, and the CUDA driver prints the
   report lines ("tilec --debug-hangs: kernel 'hang_wrong_phase' CTA (...)
   thread ...: role 'producer' waits on barrier 'empty' stage 0 phase 0 ...").
   The trap ruins the CUDA context, so this runs last, in a child process.

Build the bundles on the development machine first:
    bash bench/debug_hangs_build.sh          # -> out/hang_ok.tilec, out/hang_wrong_phase.tilec
then on the GPU machine:
    python3 bench/debug_hangs_check.py out/hang_ok.tilec out/hang_wrong_phase.tilec
"""

import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "runtime", "python"))


def run_ok(path):
    import torch
    import tilec_runtime as tr
    kernel = tr.Module(path).kernel()
    m, n, k = 1024, 1024, 1024
    gen = torch.Generator(device="cuda").manual_seed(1)
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16, generator=gen)
    b = torch.randn(n, k, device="cuda", dtype=torch.bfloat16, generator=gen)
    d = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
    kernel(a, b, d)
    torch.cuda.synchronize()
    ref = a.float() @ b.float().t()
    err = (d.float() - ref).norm().item() / ref.norm().item()
    nan = torch.isnan(d).sum().item()
    print(f"debug-hangs build of rung 3, {m}x{n}x{k}: rel error {err:.2e}, "
          f"NaN {nan}")
    return err < 1e-2 and nan == 0


def run_hang(path):
    """In this (child) process: launch the deadlocking kernel and sync."""
    import torch
    import tilec_runtime as tr
    kernel = tr.Module(path).kernel()
    m = n = k = 512
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
    d = torch.zeros(m, n, device="cuda", dtype=torch.bfloat16)
    start = time.time()
    kernel(a, b, d)
    try:
        tr.synchronize()
    except Exception as error:  # the trap: an illegal-instruction error
        print(f"launch failed after {time.time() - start:.1f} s: {error}",
              flush=True)
        sys.exit(3)
    print(f"the kernel finished after {time.time() - start:.1f} s "
          "without a hang report", flush=True)
    sys.exit(0)


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--child":
        run_hang(sys.argv[2])
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    ok_bundle, hang_bundle = sys.argv[1:]
    ok = run_ok(ok_bundle)
    child = subprocess.run([sys.executable, __file__, "--child", hang_bundle],
                           capture_output=True, text=True, timeout=120)
    output = child.stdout + child.stderr
    print(output.rstrip())
    reports = re.findall(r"tilec --debug-hangs: kernel '(\w+)' CTA \((\d+),(\d+),"
                         r"(\d+)\) thread (\d+): role '(\w+)' waits on barrier "
                         r"'(\w+)' stage (\d+) phase (\d+)", output)
    print(f"{len(reports)} hang report(s); roles/barriers: "
          f"{sorted(set((r[5], r[6], r[7], r[8]) for r in reports))}")
    caught = child.returncode == 3 and len(reports) > 0
    print(f"healthy kernel correct: {ok}; wrong phase caught: {caught}")
    sys.exit(0 if ok and caught else 1)


if __name__ == "__main__":
    main()

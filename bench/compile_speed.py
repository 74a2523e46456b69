#!/usr/bin/env python3
"""Times tilec from spec to PTX and to a cubin (ptxas included): median of
several runs of the whole process, on the machine it runs on.

    python3 bench/compile_speed.py [--tilec build/bin/tilec] [--runs 11] spec.tile...
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time


def time_runs(cmd, runs):
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        samples.append((time.perf_counter() - start) * 1000.0)
    return statistics.median(samples), min(samples), max(samples)


def main():
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tilec", default=os.path.join(root, "build", "bin", "tilec"))
    p.add_argument("--runs", type=int, default=11)
    p.add_argument("specs", nargs="+")
    args = p.parse_args()
    print("| spec | to PTX (ms) | to cubin (ms) |")
    print("|---|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for spec in args.specs:
            base = [args.tilec, spec]
            ptx = time_runs(base + ["--emit=ptx", "-o", os.path.join(tmp, "k.ptx")],
                            args.runs)
            cubin = time_runs(base + ["--emit=cubin", "-o",
                                      os.path.join(tmp, "k.cubin")], args.runs)
            name = os.path.basename(spec)
            print(f"| {name} | {ptx[0]:.0f} (min {ptx[1]:.0f}, max {ptx[2]:.0f}) "
                  f"| {cubin[0]:.0f} (min {cubin[1]:.0f}, max {cubin[2]:.0f}) |",
                  flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""The measured winners per shape over bench/fp8_gemm.py's full tables.

Reads the per-kernel timing rows of the given Markdown files (fp8_gemm.py
--markdown output, as kept in bench/results/2026-12-01-fp8-raw/), and prints
per shape (1D2D, bf16 out) the fastest tilec build relative to DeepGEMM in
the same run (DeepGEMM's time / the build's), which run and build that was,
and the ratio of tilec.deep_gemm with the config table where a run timed it:
how far the table's pick is from the best build measured.

    python3 bench/fp8_winners.py bench/results/2026-12-01-fp8-raw/*.md
"""

import argparse
import os
import re

DEEPGEMM = "DeepGEMM fp8_gemm_nt"
CUBLAS = "cuBLASLt (torch._scaled_mm, per-tensor)"
PACKAGE = "tilec.deep_gemm (config table)"
ROW = re.compile(r"^\| (\d+) \| (\d+) \| (\d+) \| 1d2d bf16 \| ([^|]+) \| ([0-9.]+) \|")


def timings(path):
    """{(m, n, k): {kernel: microseconds}} of one file."""
    shapes = {}
    for line in open(path, encoding="utf-8"):
        match = ROW.match(line)
        # The summary tables' rows (TFLOP/s where a kernel name would be)
        # match the pattern too: a kernel is named, not numbered.
        if match and not match.group(4).strip().isdigit():
            m, n, k, kernel, us = match.groups()
            shapes.setdefault((int(m), int(n), int(k)), {})[kernel.strip()] = float(us)
    return shapes


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tables", nargs="+")
    args = parser.parse_args()
    best = {}     # shape -> (ratio, run, build)
    package = {}  # shape -> [ratios]
    for path in args.tables:
        run = os.path.splitext(os.path.basename(path))[0]
        for shape, times in timings(path).items():
            base = times.get(DEEPGEMM)
            if base is None:
                continue
            for kernel, us in times.items():
                if kernel in (DEEPGEMM, CUBLAS):
                    continue
                if kernel == PACKAGE:
                    package.setdefault(shape, []).append(base / us)
                    continue
                if shape not in best or base / us > best[shape][0]:
                    best[shape] = (base / us, run, kernel)
    print("| M | N | K | best build / DeepGEMM | run | build | "
          "tilec.deep_gemm / DeepGEMM |")
    print("|---:|---:|---:|---:|---|---|---:|")
    for shape in sorted(set(best) | set(package)):
        ratio, run, kernel = best.get(shape, (None, "-", "-"))
        ours = package.get(shape)
        print(f"| {shape[0]} | {shape[1]} | {shape[2]} | "
              f"{f'{ratio:.2f}' if ratio else '-'} | {run} | {kernel} | "
              f"{'-' if not ours else ', '.join(f'{r:.2f}' for r in ours)} |")


if __name__ == "__main__":
    main()

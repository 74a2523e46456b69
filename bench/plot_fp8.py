#!/usr/bin/env python3
"""Plots bench/fp8_gemm.py's timing table (Markdown: microseconds per kernel
and shape) as bars of DeepGEMM's time over the best tilec build's and over
cuBLASLt's: speed relative to DeepGEMM.

    python3 bench/plot_fp8.py RESULTS.md OUT.png [--title TEXT]
"""

import argparse

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


DEEPGEMM = "DeepGEMM fp8_gemm_nt"
CUBLAS = "cuBLASLt (torch._scaled_mm, per-tensor)"


def per_shape_times(path):
    """{(M, N, K, case): {kernel: microseconds}} from the per-kernel timing
    rows of `path` (the last value seen for a kernel wins)."""
    shapes = {}
    for line in open(path):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 9 or not cells[0].isdigit():
            continue
        try:
            us = float(cells[5])
        except ValueError:
            continue  # "(failed check)" rows
        shapes.setdefault(tuple(cells[:4]), {})[cells[4]] = us
    return shapes


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("markdown")
    p.add_argument("png")
    p.add_argument("--title", default="FP8 1D2D GEMM on the H200, relative to DeepGEMM")
    args = p.parse_args()
    rows = [(key, times) for key, times in per_shape_times(args.markdown).items()
            if DEEPGEMM in times]
    if not rows:
        raise SystemExit(f"no timing rows with DeepGEMM in {args.markdown}")
    labels = [f"{m}x{n}x{k}" for (m, n, k, _), _ in rows]
    ours, cublas = [], []
    for _, times in rows:
        tilec = [us for name, us in times.items() if name not in (DEEPGEMM, CUBLAS)]
        ours.append(times[DEEPGEMM] / min(tilec) if tilec else 0.0)
        cublas.append(times[DEEPGEMM] / times[CUBLAS] if CUBLAS in times else 0.0)
    x = range(len(rows))
    fig, ax = plt.subplots(figsize=(max(8, 0.55 * len(rows)), 4.8))
    width = 0.4
    ax.bar([i - width / 2 for i in x], ours, width, label="tilec (best build per shape)")
    ax.bar([i + width / 2 for i in x], cublas, width,
           label="cuBLASLt (per-tensor scales)", color="tab:gray")
    ax.axhline(1.0, color="black", linewidth=1, label="DeepGEMM fp8_gemm_nt")
    ax.set_xticks(list(x))
    ax.set_xticklabels(labels, rotation=60, ha="right", fontsize=8)
    ax.set_ylabel("speed / DeepGEMM's")
    ax.set_title(args.title)
    ax.legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    fig.savefig(args.png, dpi=120)


if __name__ == "__main__":
    main()

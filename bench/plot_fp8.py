#!/usr/bin/env python3
"""Plots bench/fp8_gemm.py's timing table (Markdown: microseconds per kernel
and shape) as bars of DeepGEMM's time over the best tilec build's and over
cuBLASLt's: speed relative to DeepGEMM.

    python3 bench/plot_fp8.py RESULTS.md OUT.png [--title TEXT] [--split PREFIX]

With --split, builds whose names start with PREFIX (split-K builds) get a
bar of their own beside the best of the others; with --builds A,B,... each
named build gets a bar of its own (variants of one kernel side by side).
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
    p.add_argument("--label", default="tilec (best build per shape)",
                   help="the tilec bar's legend (e.g. for a --package run)")
    p.add_argument("--split", metavar="PREFIX",
                   help="plot the builds named PREFIX... as a bar of their own")
    p.add_argument("--builds", metavar="A,B,...",
                   help="a bar per named build instead of the best one")
    args = p.parse_args()
    rows = [(key, times) for key, times in per_shape_times(args.markdown).items()
            if DEEPGEMM in times]
    if not rows:
        raise SystemExit(f"no timing rows with DeepGEMM in {args.markdown}")
    labels = [f"{m}x{n}x{k}" for (m, n, k, _), _ in rows]
    def best(times, keep):
        tilec = [us for name, us in times.items()
                 if name not in (DEEPGEMM, CUBLAS) and keep(name)]
        return times[DEEPGEMM] / min(tilec) if tilec else 0.0

    split = (lambda name: name.startswith(args.split)) if args.split else None
    bars = [(args.label if not split else
             "tilec, best unsplit build",
             [best(t, (lambda n: not split(n)) if split else (lambda n: True))
              for _, t in rows], None)]
    if split:
        bars.append((f"tilec, best split-K build ({args.split}*)",
                     [best(t, split) for _, t in rows], "tab:green"))
    if args.builds:
        bars = [(name, [t[DEEPGEMM] / t[name] if name in t else 0.0
                        for _, t in rows], None)
                for name in args.builds.split(",")]
    bars.append(("cuBLASLt (per-tensor scales)",
                 [t[DEEPGEMM] / t[CUBLAS] if CUBLAS in t else 0.0 for _, t in rows],
                 "tab:gray"))
    x = range(len(rows))
    fig, ax = plt.subplots(figsize=(max(8, 0.55 * len(rows)), 4.8))
    width = 0.8 / len(bars)
    for index, (label, values, color) in enumerate(bars):
        offset = (index - (len(bars) - 1) / 2) * width
        ax.bar([i + offset for i in x], values, width, label=label, color=color)
    ax.axhline(1.0, color="black", linewidth=1, label="DeepGEMM fp8_gemm_nt")
    ax.set_xticks(list(x))
    ax.set_xticklabels(labels, rotation=60, ha="right", fontsize=8)
    ax.set_ylabel("speed / DeepGEMM's")
    ax.set_title(args.title)
    if args.builds:
        # Variants a few percent apart: the interesting range only.
        ax.set_ylim(0.5, 1.1)
        ax.legend(fontsize=8, loc="lower left", ncol=3)
    else:
        ax.legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    fig.savefig(args.png, dpi=120)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Plots bench/epilogue_bench.py's timing table (Markdown) as grouped bars.

    python3 bench/plot_epilogue.py RESULTS.md OUT.png [--act silu]
"""

import argparse

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

SERIES = [("fused TFLOP/s", "tilec fused"),
          ("torch matmul+epilogue", "torch.matmul + PyTorch epilogue"),
          ("torch addmm+act", "torch.addmm + act + residual"),
          ("plain tilec", "tilec plain GEMM (no epilogue)")]


def timing_rows(path):
    header, rows = None, []
    for line in open(path):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if "fused TFLOP/s" in cells:
            header = cells
        elif header and len(cells) == len(header) and cells[0] != "---" \
                and not cells[0].startswith("-"):
            rows.append(dict(zip(header, cells)))
    return rows


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("markdown")
    p.add_argument("png")
    p.add_argument("--act", default="silu")
    p.add_argument("--dtype", default="bfloat16")
    args = p.parse_args()
    rows = [r for r in timing_rows(args.markdown)
            if r["act"] == args.act and r["D"] == args.dtype]
    labels = [f"{r['kernel']}\n{r['M']}x{r['N']}x{r['K']}" for r in rows]
    width = 0.8 / len(SERIES)
    fig, ax = plt.subplots(figsize=(max(8, 1.1 * len(rows)), 4.5))
    for i, (column, name) in enumerate(SERIES):
        values = [float(r[column]) if r[column] != "-" else 0 for r in rows]
        ax.bar([x + i * width for x in range(len(rows))], values, width,
               label=name)
    ax.set_xticks([x + 0.4 - width / 2 for x in range(len(rows))])
    ax.set_xticklabels(labels, fontsize=7)
    ax.set_ylabel("TFLOP/s (GEMM flops)")
    ax.set_title(f"D = {args.act}(alpha A B^T + bias) + R, {args.dtype} out, "
                 "H200")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(args.png, dpi=110)


if __name__ == "__main__":
    main()

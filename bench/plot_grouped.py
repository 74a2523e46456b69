#!/usr/bin/env python3
"""Bar chart of bench/py_grouped_check.py's timing table: tilec / DeepGEMM
speed per case, one bar each, grouped by kind and layout.

    python3 bench/plot_grouped.py TABLE.md OUT.png
"""

import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROW = re.compile(r"^\| (fp8|bf16) \| (\w+) \| ([^|]+) \| (\d+) \| (\d+) \| (\d+) \| "
                 r"[^|]+ \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| ([0-9.]+)x \|")


def main():
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    labels, ratios, colors = [], [], []
    palette = {"contiguous": "tab:blue", "psum": "tab:green", "masked": "tab:orange"}
    for line in open(sys.argv[1], encoding="utf-8"):
        match = ROW.match(line)
        if match:
            kind, layout, groups, m, n, k, ratio = match.groups()
            labels.append(f"{kind} {layout}\nG={groups.strip()} m={m}\n{n}x{k}")
            ratios.append(float(ratio))
            colors.append(palette.get(layout, "tab:gray"))
    fig, ax = plt.subplots(figsize=(max(6, 0.9 * len(labels)), 4.5))
    ax.bar(range(len(ratios)), ratios, color=colors)
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xticks(range(len(labels)), labels, fontsize=6)
    ax.set_ylabel("tilec / DeepGEMM speed")
    ax.set_title("M-grouped GEMMs on the H200: tilec against DeepGEMM, same process")
    for i, r in enumerate(ratios):
        ax.text(i, r + 0.01, f"{r:.2f}", ha="center", fontsize=6)
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=120)


if __name__ == "__main__":
    main()

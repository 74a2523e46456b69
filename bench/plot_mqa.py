#!/usr/bin/env python3
"""Bar chart of an MQA logits bench table: tilec / DeepGEMM speed per case,
coloured by heads x head dim.

    python3 bench/plot_mqa.py TABLE.md OUT.png [title]

Reads py_mqa_bench.py's and py_paged_mqa_bench.py's tables alike.
"""

import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def rows(path):
    """(label, colour key, ratio) of each timed row of the table: the label
    from the columns before 'diff', the colour from heads x head dim."""
    header = None
    for line in open(path, encoding="utf-8"):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if "diff" in cells:
            header = cells
            continue
        if header is None or len(cells) != len(header) or not cells[0].isdigit() \
                or cells[-1] == "-":
            continue
        named = dict(zip(header, cells))
        shape = cells[:header.index("diff")]
        label = "\n".join(" ".join(f"{n}{v}" for n, v in zip(header[i:i + 2], shape[i:i + 2]))
                          for i in range(0, len(shape), 2))
        yield label, f"H{named['H']} D{named['D']}", float(cells[-1])


def main():
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    data = list(rows(sys.argv[1]))
    palette = ["tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple"]
    kinds = sorted({kind for _, kind, _ in data})
    fig, ax = plt.subplots(figsize=(max(6, 0.8 * len(data)), 5))
    for i, (label, kind, ratio) in enumerate(data):
        ax.bar(i, ratio, color=palette[kinds.index(kind) % len(palette)],
               label=kind if kind not in [k for _, k, _ in data[:i]] else None)
        ax.text(i, ratio + 0.01, f"{ratio:.2f}", ha="center", fontsize=6)
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xticks(range(len(data)), [label for label, _, _ in data], fontsize=5)
    ax.set_ylabel("tilec / DeepGEMM speed")
    ax.set_title(sys.argv[3] if len(sys.argv) > 3 else
                 "fp8_mqa_logits on the H200: tilec against DeepGEMM, same process")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=130)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Bar chart of bench/py_mqa_bench.py's table: tilec / DeepGEMM speed of
fp8_mqa_logits per case, coloured by heads x head dim.

    python3 bench/plot_mqa.py TABLE.md OUT.png [title]
"""

import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def rows(path):
    """(label, H x D, ratio) of each timed row of the table."""
    for line in open(path, encoding="utf-8"):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 15 or not cells[0].isdigit() or cells[-1] == "-":
            continue
        sq, skv, h, d, cp, logits, clean, cmp = cells[:8]
        flags = "".join(f for f, on in (("clean", clean), ("cmp", cmp)) if on == "1")
        label = f"{sq}x{skv}\nH{h} D{d} cp{cp}\n{logits} {flags}"
        yield label, f"H{h} D{d}", float(cells[-1])


def main():
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    data = list(rows(sys.argv[1]))
    palette = ["tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple"]
    kinds = sorted({kind for _, kind, _ in data})
    fig, ax = plt.subplots(figsize=(max(6, 0.55 * len(data)), 4.5))
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

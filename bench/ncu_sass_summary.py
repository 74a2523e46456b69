#!/usr/bin/env python3
"""Summarises Nsight Compute's per-instruction SASS page (`ncu -i R.ncu-rep
--page source --print-source sass --csv`): the warp stall samples per
instruction class (opcode without modifiers) and the hottest instructions,
so that two kernels' K loops can be compared side by side.

    python3 bench/ncu_sass_summary.py dg.csv tilec.csv --top 25
"""

import argparse
import csv
import re
import sys
from collections import defaultdict


def rows_of(path):
    with open(path, newline="") as f:
        lines = f.read().splitlines()
    # ncu prints a header line per kernel; keep the first table.
    start = next(i for i, line in enumerate(lines) if '"Source"' in line or line.startswith('"#') or "Address" in line)
    reader = csv.DictReader(lines[start:])
    return [row for row in reader if row.get("Source")]


def column(row, *needles):
    for key in row:
        if key and all(n.lower() in key.lower() for n in needles):
            return key
    return None


def number(text):
    try:
        return float((text or "0").replace(",", ""))
    except ValueError:
        return 0.0


def opcode(source):
    text = re.sub(r"^@!?U?P\w+\s+", "", source.strip())
    return text.split(" ")[0].split(".")[0] if text else "?"


def summarise(path, top):
    rows = rows_of(path)
    if not rows:
        print(f"{path}: no SASS rows")
        return
    samples = column(rows[0], "Warp Stall Sampling", "All")
    not_issued = column(rows[0], "Warp Stall Sampling", "Not")
    executed = column(rows[0], "Instructions Executed")
    total = sum(number(r[samples]) for r in rows) or 1
    per_op = defaultdict(lambda: [0.0, 0.0, 0.0])
    for r in rows:
        op = opcode(r["Source"])
        per_op[op][0] += number(r[samples])
        per_op[op][1] += number(r[not_issued]) if not_issued else 0
        per_op[op][2] += number(r[executed]) if executed else 0
    print(f"## {path}: {len(rows)} instructions, {total:.0f} stall samples")
    print()
    print("| opcode | samples % | not-issued % | executed (warp instr.) |")
    print("|---|---:|---:|---:|")
    for op, (s, n, e) in sorted(per_op.items(), key=lambda kv: -kv[1][0])[:20]:
        print(f"| {op} | {100 * s / total:.1f} | {100 * n / total:.1f} | {e:.0f} |")
    print()
    print(f"Hottest {top} instructions:")
    print()
    print("| address | instruction | samples % | executed |")
    print("|---|---|---:|---:|")
    address = column(rows[0], "Address") or "Address"
    for r in sorted(rows, key=lambda r: -number(r[samples]))[:top]:
        print(f"| {r.get(address, '')} | `{r['Source'].strip()[:70]}` | "
              f"{100 * number(r[samples]) / total:.1f} | {number(r[executed]) if executed else 0:.0f} |")
    print()
    print("columns:", ", ".join(k for k in rows[0] if k)[:600])
    print()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("csv", nargs="+")
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args()
    for path in args.csv:
        try:
            summarise(path, args.top)
        except Exception as error:  # report, go on with the next file
            print(f"{path}: cannot summarise ({error})", file=sys.stderr)


if __name__ == "__main__":
    main()

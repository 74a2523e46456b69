#!/usr/bin/env python3
"""Checks issue 17's synchronisation constructs on one GPU: atomics with
orders and scopes, acquire loads, sync(grid, counter = ...) and peer(...)
views of a symmetric buffer (bench/sync_check.tile).

The "symmetric buffer" is one int32 buffer of 2 x C slots poisoned with -1:
F is its first half, G its second, and OFFS[0] = C * 4 bytes, so peer(F,
OFFS[0]) is G as a remote rank's copy would be. Each launch runs `rounds`
rounds of stamps written through the view and read back from G by the
neighbouring CTA across grid syncs. Checks after each launch: TOTAL[0]
counts every thread of every round; TOTAL[1] (stale stamps) is 0; the grid
counter W moved on by 2 x rounds x CTAs (it is never reset: a second launch
continues from it); F, the first half, was never written (the view landed
in G); G holds the last round's stamps. The build without the syncs
(-D SYNC=0) must see stale stamps, or the check proves nothing.

    build/bin/tilec bench/sync_check.tile -o out/sync_check.tilec
    build/bin/tilec bench/sync_check.tile -D SYNC=0 -o out/sync_check_nosync.tilec
    TILEC_RUNTIME_LIB=.../libtilec_runtime.so python3 bench/sync_check.py \\
        out/sync_check.tilec out/sync_check_nosync.tilec

Exit status 0 when every check passes.
"""

import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "runtime",
                                "python"))
import tilec_runtime as tr  # noqa: E402

STAMP = 4096  # round * STAMP + cta, as the kernel writes


def launch(kernel, rounds, state):
    """One launch on `state` (the buffers, kept across launches); returns
    (threads counted, stale stamps, counter after)."""
    buf, total, counter, offs = state
    c = buf.numel() // 2
    total.zero_()
    kernel(buf[:c], buf[c:], total, counter, offs, rounds)
    torch.cuda.synchronize()
    return int(total[0]), int(total[1]), int(counter[0])


def check(bundle, rounds, launches, expect_stale):
    kernel = tr.Module(bundle).kernel("sync_check")
    ctas = torch.cuda.get_device_properties(0).multi_processor_count
    c = ctas + 8  # slots past the grid stay -1
    buf = torch.full((2 * c,), -1, dtype=torch.int32, device="cuda")
    total = torch.zeros(2, dtype=torch.int32, device="cuda")
    counter = torch.zeros(1, dtype=torch.int32, device="cuda")
    offs = torch.tensor([c * 4], dtype=torch.int64, device="cuda")
    state = (buf, total, counter, offs)
    lines, ok = [], True
    for i in range(launches):
        threads, stale, after = launch(kernel, rounds, state)
        want_threads = rounds * ctas * 128
        want_counter = 0 if expect_stale else 2 * rounds * ctas * (i + 1)
        first_half_clean = bool((buf[:c] == -1).all())
        stamps = buf[c:c + ctas].cpu().tolist()
        want_stamps = [(rounds - 1) * STAMP + j for j in range(ctas)]
        good = (threads == want_threads and after == want_counter and
                first_half_clean and stamps == want_stamps and
                (stale > 0 if expect_stale else stale == 0))
        ok &= good
        lines.append(f"| {os.path.basename(bundle)} | {i + 1} | {ctas} | "
                     f"{rounds} | {threads} / {want_threads} | {stale} | "
                     f"{after} / {want_counter} | {first_half_clean} | "
                     f"{stamps == want_stamps} | {'ok' if good else 'FAIL'} |")
        print(lines[-1], flush=True)
    return ok, lines


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("bundle", help="bench/sync_check.tile compiled by tilec")
    p.add_argument("nosync", help="the same with -D SYNC=0")
    p.add_argument("--rounds", type=int, default=64)
    p.add_argument("--launches", type=int, default=2)
    p.add_argument("--markdown", help="write the table here too")
    args = p.parse_args()
    dev = torch.cuda.get_device_properties(0)
    print(f"device: {dev.name}, {dev.multi_processor_count} SMs", flush=True)
    lines = ["| bundle | launch | CTAs | rounds | threads counted | stale "
             "stamps | grid counter | first half untouched | last stamps | "
             "result |", "|---|---:|---:|---:|---:|---:|---:|---|---|---|"]
    ok, rows = check(args.bundle, args.rounds, args.launches, False)
    lines += rows
    # Without the syncs the neighbours' stamps are read before they are
    # written: stale ones must show up.
    nosync_ok, rows = check(args.nosync, args.rounds, 1, True)
    lines += rows
    ok &= nosync_ok
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write("\n".join(lines) + "\n")
    print("all checks passed" if ok else "SOME CHECKS FAILED", flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

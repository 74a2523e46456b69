#!/usr/bin/env python3
"""tilec.moe.fp8_moe_layer over several ranks on ONE GPU: R processes on
cuda:0, a gloo process group (NCCL refuses two ranks per device) and a
symmetric-memory workspace, so that every dispatch and combine row really
crosses to another process's buffer through peer(...) views (CUDA IPC
mappings of the same device). Issue 17 item 3's "several processes on one
GPU, if the engine supports it".

    python3 -m pip install .            # tilec from the checkout
    python3 bench/moe_ranks_check.py [--ranks 2,4] [--markdown FILE]

Each rank builds the same global weights (E = R x E_local experts, one seed)
and keeps its slice; its tokens come from a seed of its own, routed over all
E experts (about 10% of the entries -1). Checks on every rank, as
bench/moe_check.py's: out poisoned with NaN and the workspace with 0xff,
calc_diff against tilec.moe.reference_moe over the global weights below
2e-3 (worst token below 1e-2), tokens with no expert exactly 0, a repeat
call bitwise equal. If the group or the symmetric memory cannot be set up
(before the first layer call), the rank prints 'unavailable on rank r:
<error>' and that is not a failure (the engine does not support it here);
an error after that is one. Exit status 1 if a check fails.
"""

import argparse
import os
import sys
import tempfile
import traceback

import torch
import torch.multiprocessing as mp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import moe_check as mc  # noqa: E402  (the inputs and the checks)


def rank_main(rank, world, port, cases, results_dir):
    lines = []
    setup = True   # an error before the first layer call: the engine's
    try:
        import torch.distributed as dist
        import tilec.moe as moe
        for name, value in moe.SYMMETRIC_MEMORY_ENV:
            os.environ.setdefault(name, value)
        torch.cuda.set_device(0)
        dist.init_process_group("gloo", rank=rank, world_size=world,
                                init_method=f"tcp://127.0.0.1:{port}")
        group = dist.group.WORLD
        for tokens, hidden, inter, experts_local, topk in cases:
            experts = world * experts_local
            wgen = torch.Generator(device="cuda").manual_seed(7)
            w1, w1_sf, w2, w2_sf = mc.make_weights(experts, hidden, inter, wgen)
            tgen = torch.Generator(device="cuda").manual_seed(100 + rank)
            x, x_sf, idx, weights = mc.make_tokens(tokens, hidden, experts,
                                                   topk, tgen)
            local = slice(rank * experts_local, (rank + 1) * experts_local)
            args = (x, x_sf, idx, weights, w1[local].contiguous(),
                    w1_sf[local].contiguous(), w2[local].contiguous(),
                    w2_sf[local].contiguous())
            # Distinct experts per token: one local expert gets at most
            # tokens rows from each rank.
            ws = moe.MoeWorkspace(hidden, inter, experts_local, topk, tokens,
                                  tokens * world, group=group)
            ws.barrier()
            setup = False
            ws.buffer.fill_(0xFF)
            dist.barrier(group)
            out = torch.full((tokens, hidden), float("nan"),
                             dtype=torch.bfloat16, device="cuda")
            moe.fp8_moe_layer(*args, group=group, workspace=ws, out=out)
            again = moe.fp8_moe_layer(*args, group=group, workspace=ws)
            torch.cuda.synchronize()
            ref = moe.reference_moe(x, x_sf, idx, weights, w1, w1_sf, w2, w2_sf)
            diff, token_diff, equal, bad = mc.check_output(
                f"R={world} rank {rank} T={tokens}", out, again, ref, idx)
            lines.append(f"| {world} | {rank} | {tokens} | {hidden} | {inter} | "
                         f"{experts_local} | {topk} | {diff:.2e} | "
                         f"{token_diff:.2e} | {'yes' if equal else 'NO'} | "
                         f"{'ok' if not bad else 'FAIL: ' + '; '.join(bad)} |")
            del ws
            dist.barrier(group)
        dist.destroy_process_group()
    except Exception as error:  # noqa: BLE001 (reported by rank 0)
        traceback.print_exc()
        what = "unavailable" if setup else "error"
        lines.append(f"{what} on rank {rank}: {type(error).__name__}: "
                     f"{error}".replace("\n", " "))
    with open(os.path.join(results_dir, f"rank{rank}.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--ranks", default="2,4")
    parser.add_argument("--markdown", help="write the table here too")
    parser.add_argument("--port", type=int, default=29531)
    args = parser.parse_args()
    cases = [(100, 2048, 1024, 4, 4), (1024, 7168, 2048, 4, 4)]
    table = ["| R | rank | T | H | I | E_local | TOPK | diff | worst token | "
             "repeat equal | result |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|"]
    notes, failed = [], False
    for i, world in enumerate(int(r) for r in args.ranks.split(",")):
        with tempfile.TemporaryDirectory() as results:
            mp.spawn(rank_main, args=(world, args.port + i, cases, results),
                     nprocs=world, join=True)
            for rank in range(world):
                with open(os.path.join(results, f"rank{rank}.txt")) as f:
                    for line in f.read().splitlines():
                        if line.startswith("|"):
                            table.append(line)
                            failed |= "| FAIL" in line
                        elif line:
                            notes.append(f"R = {world}: {line}")
                            failed |= line.startswith("error")
    text = "\n".join(table)
    if notes:
        text += "\n\n" + "\n".join(notes)
    text += f"\n\nBounds: calc_diff < {mc.BOUND}, worst token < {mc.TOKEN_BOUND}."
    print(text)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

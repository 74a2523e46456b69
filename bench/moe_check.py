#!/usr/bin/env python3
"""tilec.moe.fp8_moe_layer on one GPU (world size 1): correctness against
tilec.moe.reference_moe and time per call, as a Markdown table.

    python3 -m pip install .            # tilec from the checkout
    python3 bench/moe_check.py [--quick] [--markdown FILE] [--no-group]

Inputs: x bf16 randn cast per token to e4m3 (1x128 scales), w1 [E, 2I, H]
and w2 [E, H, I] randn / sqrt(K) cast per 128x128 block, routing the top
TOPK of random scores (distinct experts per token) with about 10% of the
entries -1 and, for T > 1, the last token with no expert at all; weights
random in (0, 1).

Checks per case (exit status 1 if any fails):
- calc_diff(out, reference) < 2e-3 over the whole output, and < 1e-2 for
  every token (worst token reported): the reference takes the same FP8
  inputs and the same FP8 cast of the SwiGLU output, so what differs is
  the GEMMs' accumulation and the roundings to bf16 of L1 and L2 (about
  1e-5), plus the rare activation whose e4m3 rounding flips because h
  differs in its last bf16 bit; 2e-3 is twice DeepGEMM's bound for one FP8
  GEMM (0.001) and far below what a lost or misrouted pair gives (a token
  losing one of 4 equal pairs has a calc_diff of about 0.14; per token,
  1e-2 catches that even where T is large and the global measure would
  dilute it);
- a token with no expert gives exactly 0;
- out is poisoned with NaN, the workspace with 0xff bytes (NaN as e4m3,
  bf16 and f32; -1 as the info rows) before the checked call;
- a repeat call is bitwise equal.

Then the same with group = a 1-rank NCCL process group and a symmetric
memory workspace (torch.distributed._symmetric_memory), if that can be set
up; if not, 'symmetric memory unavailable: <error>' is printed and those
cases are skipped, not failed.

Time: CUDA events around one call (routing with its host sync, the three
dispatch launches, the two GEMMs with SwiGLU and the FP8 cast in torch,
the combine send and the combine), median of 20 after 3 warm-up calls.
Needs only torch and tilec.
"""

import argparse
import math
import os
import statistics
import sys
import traceback

import torch

import tilec
import tilec.moe as moe
from tilec.quant import calc_diff, per_block_cast_to_fp8, per_token_cast_to_fp8

BOUND = 2e-3
TOKEN_BOUND = 1e-2


def make_weights(experts, hidden, inter, gen):
    """(w1, w1_sf, w2, w2_sf) quantised per 128x128 block, per expert."""
    w1 = torch.empty(experts, 2 * inter, hidden, dtype=torch.float8_e4m3fn,
                     device="cuda")
    w1_sf = torch.empty(experts, 2 * inter // 128, hidden // 128, device="cuda")
    w2 = torch.empty(experts, hidden, inter, dtype=torch.float8_e4m3fn,
                     device="cuda")
    w2_sf = torch.empty(experts, hidden // 128, inter // 128, device="cuda")
    for e in range(experts):
        a = torch.randn(2 * inter, hidden, device="cuda", generator=gen)
        w1[e], w1_sf[e] = per_block_cast_to_fp8(a / math.sqrt(hidden))
        b = torch.randn(hidden, inter, device="cuda", generator=gen)
        w2[e], w2_sf[e] = per_block_cast_to_fp8(b / math.sqrt(inter))
    return w1, w1_sf, w2, w2_sf


def make_tokens(tokens, hidden, experts, topk, gen):
    x = torch.randn(tokens, hidden, device="cuda", generator=gen).to(torch.bfloat16)
    x, x_sf = per_token_cast_to_fp8(x)
    scores = torch.rand(tokens, experts, device="cuda", generator=gen)
    idx = scores.topk(topk, dim=1).indices
    drop = torch.rand(tokens, topk, device="cuda", generator=gen) < 0.1
    idx = torch.where(drop, torch.full_like(idx, -1), idx)
    if tokens > 1:
        idx[-1] = -1
    weights = torch.rand(tokens, topk, device="cuda", generator=gen)
    return x, x_sf, idx, weights


def per_token_diff(x, y):
    x, y = x.double(), y.double()
    den = (x * x + y * y).sum(1)
    num = 2 * (x * y).sum(1)
    diff = torch.where(den > 0, 1 - num / den.clamp(min=1e-300),
                       torch.zeros_like(den))
    return float(diff.max())


def time_call(fn, reps):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1000.0)
    return statistics.median(times)


def check_output(label, out, again, ref, idx):
    """The checks of one call's output against the reference: (calc_diff,
    worst token's calc_diff, repeat call equal, failure messages)."""
    failures = []
    diff = calc_diff(out.float(), ref)
    token_diff = per_token_diff(out.float(), ref)
    equal = torch.equal(out, again)
    if out.isnan().any():
        failures.append(f"{label}: NaN in the output")
    if not diff < BOUND:
        failures.append(f"{label}: calc_diff {diff:.3e} >= {BOUND}")
    if not token_diff < TOKEN_BOUND:
        failures.append(f"{label}: worst token calc_diff {token_diff:.3e} >= "
                        f"{TOKEN_BOUND}")
    none = (idx < 0).all(1)
    if none.any() and not torch.all(out[none] == 0):
        failures.append(f"{label}: a token with no expert is not 0")
    if not equal:
        failures.append(f"{label}: a repeat call differs")
    return diff, token_diff, equal, failures


def run_case(label, tokens, hidden, inter, experts, topk, group, reps, seed):
    """(row dict, list of failure messages)."""
    gen = torch.Generator(device="cuda").manual_seed(seed)
    w1, w1_sf, w2, w2_sf = make_weights(experts, hidden, inter, gen)
    x, x_sf, idx, weights = make_tokens(tokens, hidden, experts, topk, gen)
    args = (x, x_sf, idx, weights, w1, w1_sf, w2, w2_sf)
    # distinct experts per token: one expert gets at most T rows
    ws = moe.MoeWorkspace(hidden, inter, experts, topk, tokens, tokens,
                          group=group)
    failures = []
    ws.buffer.fill_(0xFF)
    out = torch.full((tokens, hidden), float("nan"), dtype=torch.bfloat16,
                     device="cuda")
    moe.fp8_moe_layer(*args, group=group, workspace=ws, out=out)
    again = moe.fp8_moe_layer(*args, group=group, workspace=ws)
    torch.cuda.synchronize()
    ref = moe.reference_moe(*args)
    diff, token_diff, equal, bad = check_output(label, out, again, ref, idx)
    failures += bad
    us = time_call(lambda: moe.fp8_moe_layer(*args, group=group, workspace=ws,
                                             out=out), reps)
    row = dict(case=label, T=tokens, H=hidden, I=inter, E=experts, topk=topk,
               diff=diff, token_diff=token_diff, equal=equal, us=us)
    del ws
    return row, failures


def one_rank_group():
    """(group, None) or (None, the error) for a 1-rank NCCL group with a
    working symmetric memory allocation and barrier."""
    try:
        import torch.distributed as dist
        for name, value in moe.SYMMETRIC_MEMORY_ENV:
            os.environ.setdefault(name, value)
        if not dist.is_initialized():
            dist.init_process_group("nccl", rank=0, world_size=1,
                                    init_method="tcp://127.0.0.1:29511",
                                    device_id=torch.device("cuda", 0))
        group = dist.group.WORLD
        probe = moe.MoeWorkspace(128, 128, 1, 1, 1, 1, group=group)
        probe.barrier()
        torch.cuda.synchronize()
        return group, None
    except Exception as error:  # noqa: BLE001 (reported, not a failure)
        return None, f"{type(error).__name__}: {error}"


def profile_layer(path, shape):
    """torch.profiler over 5 calls at T = 1024 (world size 1, one
    workspace): the ops by self CPU time and by GPU time, to `path`."""
    hidden, inter = shape
    gen = torch.Generator(device="cuda").manual_seed(1234)
    args = (*make_tokens(1024, hidden, 8, 4, gen),
            *make_weights(8, hidden, inter, gen))
    ws = moe.MoeWorkspace(hidden, inter, 8, 4, 1024, 1024, device="cuda")
    for _ in range(3):
        moe.fp8_moe_layer(*args, workspace=ws)
    torch.cuda.synchronize()
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for _ in range(5):
            moe.fp8_moe_layer(*args, workspace=ws)
        torch.cuda.synchronize()
    averages = prof.key_averages()
    with open(path, "w") as f:
        f.write(f"# 5 calls, T=1024 H={hidden} I={inter} E_local=8 TOPK=4\n\n")
        f.write(averages.table(sort_by="self_cpu_time_total", row_limit=25))
        f.write("\n\n")
        f.write(averages.table(sort_by="self_cuda_time_total", row_limit=25))
    print(f"profile written to {path}")


def table(rows):
    lines = ["| case | T | H | I | E_local | TOPK | diff | worst token | "
             "repeat equal | us |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---|---:|"]
    for r in rows:
        lines.append(f"| {r['case']} | {r['T']} | {r['H']} | {r['I']} | {r['E']} "
                     f"| {r['topk']} | {r['diff']:.2e} | {r['token_diff']:.2e} | "
                     f"{'yes' if r['equal'] else 'NO'} | {r['us']:.1f} |")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help="H 2048, I 1024 only")
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--markdown", help="write the table here too")
    parser.add_argument("--no-group", action="store_true",
                        help="skip the symmetric memory cases")
    parser.add_argument("--profile", metavar="FILE",
                        help="also profile 5 calls of the T=1024 case "
                             "(torch.profiler) and write where the time "
                             "goes, CPU and GPU, here")
    args = parser.parse_args()
    print(f"tilec from {os.path.dirname(tilec.__file__)}; torch "
          f"{torch.__version__}; {torch.cuda.get_device_name()}")
    shapes = [(2048, 1024)] if args.quick else [(2048, 1024), (7168, 2048)]
    cases = []
    for hidden, inter in shapes:
        for tokens in (1, 100, 1024):
            cases.append((tokens, hidden, inter, 8, 4))
    cases.append((1024, shapes[-1][0], shapes[-1][1], 8, 8))

    groups = [("local", None)]
    notes = []
    if not args.no_group:
        group, error = one_rank_group()
        if group is None:
            notes.append(f"symmetric memory unavailable: {error}")
            print(notes[-1])
        else:
            groups.append(("symm, 1 rank", group))

    rows, failures = [], []
    for name, group in groups:
        for seed, (tokens, hidden, inter, experts, topk) in enumerate(cases):
            label = name
            try:
                row, bad = run_case(label, tokens, hidden, inter, experts, topk,
                                    group, args.reps, seed)
            except Exception as error:  # noqa: BLE001 (a failed check)
                traceback.print_exc()
                failures.append(f"{label} T={tokens} H={hidden} I={inter}: "
                                f"{type(error).__name__}: {error}")
                continue
            rows.append(row)
            failures += bad
            print(f"{label:14s} T={tokens:5d} H={hidden} I={inter} topk={topk}: "
                  f"diff {row['diff']:.2e} worst token {row['token_diff']:.2e} "
                  f"equal {row['equal']} {row['us']:.1f} us", flush=True)

    if args.profile:
        profile_layer(args.profile, shapes[-1])

    text = table(rows)
    if notes:
        text += "\n\n" + "\n".join(notes)
    text += (f"\n\nBounds: calc_diff < {BOUND} overall, < {TOKEN_BOUND} per "
             f"token. {len(failures)} failure(s).")
    print(text)
    for f in failures:
        print("FAIL:", f)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text + "\n")
    try:
        import torch.distributed as dist
        if dist.is_initialized():
            dist.destroy_process_group()
    except Exception:  # noqa: BLE001
        pass
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

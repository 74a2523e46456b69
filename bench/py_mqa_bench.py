#!/usr/bin/env python3
"""tilec's fp8_mqa_logits beside DeepGEMM's, same process, same inputs:
correctness (calc_diff against a float reference and against DeepGEMM,
-inf masks equal, repeated calls bitwise equal) and speed (CUDA events
around the whole call: DeepGEMM's two kernels, tilec's one), as a Markdown
table of ratios.

    PYTHONPATH=/tmp/site python3 bench/py_mqa_bench.py [--quick] [--markdown F]

Inputs are DeepGEMM's test_mqa_logits ones (tests/test_attention.py): q
bf16 randn cast to e4m3, kv cast per token (per_custom_dims_cast_to_fp8),
weights randn, windows with and without context parallelism.
"""

import argparse
import math
import sys
import time

import torch

import tilec.deep_gemm as tilec_dg
from tilec.deep_gemm.utils import per_custom_dims_cast_to_fp8
from tilec.quant import calc_diff

from spec_variant import spec_variant

try:
    import deep_gemm
except ImportError:  # timing tilec alone
    deep_gemm = None


def windows(seq_len: int, seq_len_kv: int, cp: bool):
    """DeepGEMM's generate_ks_ke_tests."""
    if not cp:
        ks = torch.zeros(seq_len, dtype=torch.int, device="cuda")
        ke = torch.arange(seq_len, dtype=torch.int, device="cuda") + (seq_len_kv - seq_len)
        return ks, ke
    chunk = seq_len // 2
    cp_size = seq_len_kv // seq_len
    cp_id = cp_size // 3
    ks = torch.zeros(seq_len, dtype=torch.int, device="cuda")
    ke = torch.zeros(seq_len, dtype=torch.int, device="cuda")
    for i in range(chunk):
        ke[i] = cp_id * chunk + i
        ke[i + chunk] = (cp_size * 2 - 1 - cp_id) * chunk + i
    return ks, ke


def reference(q, kv, kv_sf, weights, ks, ke):
    """float32 logits of the e4m3 inputs, -inf outside the windows."""
    seq_len_kv = kv.shape[0]
    k = kv.float() * kv_sf[:, None]
    logits = torch.empty(q.shape[0], seq_len_kv, device="cuda")
    cols = torch.arange(seq_len_kv, device="cuda")
    chunk = max(1, (1 << 28) // (q.shape[0] * q.shape[1] * 4))
    qf = q.float()
    for n0 in range(0, seq_len_kv, chunk):
        n1 = min(n0 + chunk, seq_len_kv)
        score = torch.einsum("mhd,nd->mhn", qf, k[n0:n1]).relu()
        logits[:, n0:n1] = torch.einsum("mhn,mh->mn", score, weights)
    mask = (cols[None, :] >= ks[:, None]) & (cols[None, :] < ke[:, None])
    return logits.masked_fill(~mask, float("-inf")), int(mask.sum())


def time_round(fn, reps: int) -> float:
    """Seconds per call of `reps` back-to-back calls, by CUDA events."""
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(reps):
        fn()
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) / reps / 1e3


def time_calls(calls, reps: int, rounds: int = 5):
    """Seconds per call of each of `calls`: the median over `rounds` of
    `reps` back-to-back calls (one slow round, a clock dip or an
    allocation, does not decide), the calls' rounds interleaved so that
    each library meets the same clock and memory state (timed one after
    the other, the first one timed right after the correctness checks'
    work: the paged kernel read 0.95x so where it read 0.986x interleaved
    on the same machine, bench/results/2026-12-06-paged-mqa.md)."""
    for fn in calls:
        fn()
    torch.cuda.synchronize()
    times = [[] for _ in calls]
    for _ in range(rounds):
        for fn, kept in zip(calls, times):
            kept.append(time_round(fn, reps))
    return [sorted(t)[len(t) // 2] for t in times]


def time_call(fn, reps: int, rounds: int = 5) -> float:
    """time_calls of one call."""
    return time_calls([fn], reps, rounds)[0]


def run_case(seq_len, seq_len_kv, heads, head_dim, cp, dtype, clean, compressed, reps):
    q = torch.randn(seq_len, heads, head_dim, device="cuda", dtype=torch.bfloat16)
    kv = torch.randn(seq_len_kv, head_dim, device="cuda", dtype=torch.bfloat16)
    weights = torch.randn(seq_len, heads, device="cuda", dtype=torch.float32)
    ks, ke = windows(seq_len, seq_len_kv, cp)
    q8 = q.to(torch.float8_e4m3fn)
    kv8, kv_sf = per_custom_dims_cast_to_fp8(kv, (0,), False)
    max_k = int((ke - ks).max()) if compressed else 0
    args = dict(q=(q8, None), kv=(kv8, kv_sf), weights=weights,
                cu_seq_len_k_start=ks, cu_seq_len_k_end=ke, clean_logits=clean,
                max_seqlen_k=max_k, logits_dtype=dtype)
    ours = tilec_dg.fp8_fp4_mqa_logits(**args)
    ref, cost = reference(q8, kv8, kv_sf, weights, ks, ke)
    if compressed:  # back to [SQ, SKV] for the comparison
        full = torch.full_like(ref, float("-inf"))
        for i in range(seq_len):
            full[i, ks[i]:ke[i]] = ours[i, :ke[i] - ks[i]].float()
        ours_full = full
    else:
        ours_full = ours.float()
    neg = ref == float("-inf")
    mask_ok = bool(torch.equal(ours_full == float("-inf"), neg)) if clean or compressed else None
    diff = calc_diff(ours_full.masked_fill(neg, 0), ref.masked_fill(neg, 0))
    again = tilec_dg.fp8_fp4_mqa_logits(**args)
    if compressed:
        width = torch.arange(ours.shape[1], device="cuda")[None, :] < (ke - ks)[:, None]
        same = torch.equal(again.masked_fill(~width, 0), ours.masked_fill(~width, 0))
    else:
        same = torch.equal(again.masked_fill(neg, 0), ours.masked_fill(neg, 0))
    ours_call = lambda: tilec_dg.fp8_fp4_mqa_logits(**args)  # noqa: E731
    t_dg = dg_diff = None
    if deep_gemm is not None:
        theirs = deep_gemm.fp8_fp4_mqa_logits(**args)
        if not compressed:
            dg_diff = calc_diff(ours.float().masked_fill(neg, 0), theirs.float().masked_fill(neg, 0))
        del theirs
        t_ours, t_dg = time_calls([ours_call, lambda: deep_gemm.fp8_fp4_mqa_logits(**args)], reps)
    else:
        t_ours = time_call(ours_call, reps)
    flops = 2 * cost * heads * head_dim
    return dict(diff=diff, mask_ok=mask_ok, same=same, dg_diff=dg_diff,
                t_ours=t_ours, t_dg=t_dg, tflops=flops / t_ours / 1e12,
                dg_tflops=flops / t_dg / 1e12 if t_dg else None)


def report(rows, ratios, failures: int, markdown) -> int:
    """Prints the table (and the geometric mean of the time ratios), writes
    it to `markdown` if given; the exit code."""
    if ratios:
        geo = math.exp(sum(map(math.log, ratios)) / len(ratios))
        rows.append(f"\nGeometric mean tilec / DeepGEMM (time ratio): {geo:.3f}x over {len(ratios)} cases")
    table = "\n".join(rows)
    print(f"\n{torch.cuda.get_device_name(0)}, {time.strftime('%Y-%m-%d')}\n{table}")
    print(f"{failures} failing cases")
    if markdown:
        with open(markdown, "w") as f:
            f.write(table + "\n")
    return 1 if failures else 0


def options(description: str, spec: str, family: str):
    """The command line both MQA benches take (--quick, --reps, --markdown,
    --define for a variant of `spec`, the kernels of `family`, --cases),
    parsed, with the variant in place."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--quick", action="store_true", help="a few cases")
    parser.add_argument("--small", action="store_true",
                        help="small problems of every kind (for compute-sanitizer)")
    parser.add_argument("--reps", type=int, default=10)
    parser.add_argument("--markdown", help="write the table here too")
    parser.add_argument("--define", action="append", default=[],
                        help=f"NAME=VALUE: a spec param over tilec.deep_gemm's "
                             f"(a variant of {spec})")
    parser.add_argument("--cases", help="only these case indices (comma list)")
    parser.add_argument("--spec", help="another mqa_logits spec file to time")
    args = parser.parse_args()
    if args.spec:  # another spec file in place of the family's
        from tilec import _specs
        text = open(args.spec).read()
        spec_text = _specs.spec_text
        _specs.spec_text = lambda path: text if path == spec else spec_text(path)
        print(f"spec: {args.spec}")
    spec_variant(args.define, family)
    torch.manual_seed(0)
    return args


def cell(value, spec: str) -> str:
    return "-" if value is None else format(value, spec)


def run_table(args, cases, run, passed, header, row) -> int:
    """run(case, reps) for each case of --cases (all by default): a dict
    with t_ours and t_dg (None without DeepGEMM); passed(result) decides
    it, row(case, result, ratio) is its table line. An exception fails
    its case, and the next one runs. The exit code."""
    if args.cases:
        cases = [cases[int(i)] for i in args.cases.split(",")]
    rows = list(header)
    ratios = []
    failures = 0
    for case in cases:
        try:
            r = run(*case, reps=args.reps)
        except Exception as error:  # noqa: BLE001 (report, go on)
            failures += 1
            print(f"case {case}: {type(error).__name__}: {error}", flush=True)
            continue
        finally:
            torch.cuda.empty_cache()
        failures += not passed(r)
        ratio = r["t_dg"] / r["t_ours"] if r["t_dg"] else None
        if ratio:
            ratios.append(ratio)
        rows.append(row(case, r, ratio))
        print(rows[-1], flush=True)
    return report(rows, ratios, failures, args.markdown)


def main():
    from tilec import _mqa
    args = options(__doc__.splitlines()[0], "lib/Kernels/mqa_logits.tile", _mqa.FAMILY)
    cases = []
    for heads, head_dim in ((64, 128), (32, 128), (64, 64), (32, 32)):
        for seq_len, seq_len_kv in ((2048, 8192), (2048, 65536), (8192, 65536)):
            for cp in (True, False):
                cases.append((seq_len, seq_len_kv, heads, head_dim, cp, torch.float32, True, False))
    cases.append((2048, 8192, 64, 128, True, torch.bfloat16, True, False))
    cases.append((2048, 8192, 64, 128, True, torch.float32, False, True))
    cases.append((2048, 8192, 64, 128, False, torch.float32, False, False))
    if args.quick:
        cases = cases[:2] + cases[-3:]
    if args.small:  # odd sizes: partial query blocks, keys past the last block
        cases = [(sq, skv, h, d, cp, dtype, clean, cmp)
                 for sq, skv in ((130, 1000), (64, 512))
                 for h, d in ((64, 128), (32, 32))
                 for cp, dtype, clean, cmp in ((True, torch.float32, True, False),
                                               (False, torch.float32, True, False),
                                               (False, torch.bfloat16, False, True))
                 if not cp or skv % sq == 0]
    header = ["| SQ | SKV | H | D | CP | logits | clean | cmp | diff | masks | repeat | vs DG | tilec TFLOP/s | DeepGEMM TFLOP/s | tilec / DeepGEMM |",
              "|---:|---:|---:|---:|---:|---|---:|---:|---:|---|---|---:|---:|---:|---:|"]

    def row(case, r, ratio):
        seq_len, seq_len_kv, heads, head_dim, cp, dtype, clean, compressed = case
        return (f"| {seq_len} | {seq_len_kv} | {heads} | {head_dim} | {int(cp)} | "
                f"{'bf16' if dtype == torch.bfloat16 else 'f32'} | {int(clean)} | {int(compressed)} | "
                f"{r['diff']:.1e} | {cell(r['mask_ok'], '')} | {r['same']} | {cell(r['dg_diff'], '.1e')} | "
                f"{r['tflops']:.0f} | {cell(r['dg_tflops'], '.0f')} | {cell(ratio, '.3f')} |")
    return run_table(args, cases, run_case,
                     lambda r: r["diff"] < 1e-3 and r["mask_ok"] is not False and r["same"],
                     header, row)


if __name__ == "__main__":
    sys.exit(main())

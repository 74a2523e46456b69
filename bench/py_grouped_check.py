#!/usr/bin/env python3
"""GPU check and timing of tilec.deep_gemm's M-grouped GEMMs against
DeepGEMM's, on DeepGEMM's grouped cases (tests/generators.py:
enumerate_m_grouped_contiguous with and without the psum layout,
enumerate_m_grouped_masked), BF16 and FP8 1D2D, plus cases with an empty
group.

Each case: random inputs built the way DeepGEMM's generators build them
(groups of 0.7-1.3x the expected rows, each padded to the mk alignment,
A's padding rows zero), outputs poisoned with NaN before every call,
DeepGEMM's calc_diff < 0.001 against a reference from the (dequantised)
inputs over the rows DeepGEMM's tests check (contiguous: every row, padding
included, whose reference is 0; psum: each group's rows; masked: each
group's first masked_m rows), the same against DeepGEMM's own output when
deep_gemm imports, a repeated call bitwise identical, and for the masked
kernels a CUDA graph captured once and replayed with other masked_m
(empty and full groups included), checked after each replay. Then tilec and
DeepGEMM timed in one process on the same inputs (interleaved CUDA-graph
rounds, bench/gemm_bench.time_interleaved), TFLOP/s counted as DeepGEMM's
tests count them (contiguous: all M rows; masked: the valid rows).

Prints Markdown tables (checks, then timings with the geometric mean of
tilec / DeepGEMM speed per kind); exits 1 on a failed check.

    python3 bench/py_grouped_check.py [--kinds fp8,bf16] [--layouts contiguous,psum,masked]
        [--quick | --small] [--no-timing] [--markdown out.md]
    compute-sanitizer --tool memcheck python3 bench/py_grouped_check.py --small --no-timing
"""

import argparse
import math
import os
import random
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gemm_bench as gb  # noqa: E402  (time_interleaved)
from fp8_gemm import deep_gemm_module  # noqa: E402
from spec_variant import spec_variant  # noqa: E402  (--define)

import tilec.deep_gemm as tdg  # noqa: E402
from tilec import _configs, _grouped, quant  # noqa: E402

# DeepGEMM's tests/generators.py lists.
CONTIGUOUS_GROUPS = [(4, 8192), (8, 4096)]
MASKED_GROUPS = [(32, 192), (6, 1024), (32, 20), (6, 20)]
MASKED_MAX_M = 4096
NK = [(6144, 7168), (7168, 3072), (4096, 4096), (4096, 2048)]


def calc_diff(x, y):
    x, y = x.double(), y.double()
    denominator = (x * x + y * y).sum()
    if denominator == 0:
        return 0.0
    return float(1 - 2 * (x * y).sum() / denominator)


def worse(a, b):
    """The worse of two calc_diff values (NaN is the worst)."""
    return b if math.isnan(b) or b > a else a


#===------------------------------------------------------------------------===#
# What this script and bench/py_kgrouped_check.py share: options, report
#===------------------------------------------------------------------------===#


def add_options(p, quick_help, small_help):
    p.add_argument("--kinds", default="fp8,bf16")
    p.add_argument("--quick", action="store_true", help=quick_help)
    p.add_argument("--small", action="store_true", help=small_help)
    p.add_argument("--no-timing", action="store_true")
    p.add_argument("--markdown", help="also write the tables here")


def reporter(lines):
    """emit(line): printed at once and kept in `lines` (for --markdown);
    the lines already there are printed first."""
    for line in lines:
        print(line, flush=True)
    return lambda line: (print(line, flush=True), lines.append(line))


def emit_timings(emit, header, rule, timings):
    """The timing table: a row per (label cells, group, flops, {library:
    ms}) of `timings` after the label columns `header` and `rule` (their
    Markdown, '| kind | G |' and '|---|---:|'), then the geometric mean of
    tilec / DeepGEMM speed per group."""
    emit("")
    emit(f"{header} tilec us | TFLOP/s | DeepGEMM us | TFLOP/s | tilec / DeepGEMM |")
    emit(f"{rule}---:|---:|---:|---:|---:|")
    ratios = {}
    for cells, group, flops, ms in timings:
        t, base = ms["tilec"], ms.get("DeepGEMM")
        speed = lambda x: f"{flops / x / 1e9:.0f}"  # noqa: E731
        ratio = base / t if base else None
        if ratio:
            ratios.setdefault(group, []).append(ratio)
        emit(f"| {' | '.join(str(cell) for cell in cells)} | {t * 1e3:.1f} | {speed(t)} | "
             f"{f'{base * 1e3:.1f}' if base else '-'} | {speed(base) if base else '-'} | "
             f"{f'{ratio:.2f}x' if ratio else '-'} |")
    emit("")
    for group, values in ratios.items():
        mean = math.exp(sum(math.log(v) for v in values) / len(values))
        emit(f"- {group}: geometric mean {mean:.2f}x DeepGEMM over {len(values)} shapes")


def write_markdown(path, lines):
    if path:
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")


#===------------------------------------------------------------------------===#
# Inputs (DeepGEMM's generators' recipe, written here)
#===------------------------------------------------------------------------===#


class Operands:
    """A case's inputs for both libraries and its reference rows."""

    def __init__(self, kind, layout, groups, expected_m, n, k, empty_group):
        self.kind, self.layout, self.groups = kind, layout, groups
        self.n, self.k = n, k
        alignment = tdg.get_mk_alignment_for_contiguous_layout()
        rows = [int(expected_m * random.uniform(0.7, 1.3)) for _ in range(groups)]
        if empty_group:
            rows[1 % groups] = 0
        self.rows = rows
        self.expected_m = expected_m
        if layout == "masked":
            self._masked(rows, n, k)
        else:
            self._contiguous(rows, alignment, n, k)

    def _quantize_a(self, a2d):
        """(A, SFA [rows, KB] MN-major TMA-aligned) for FP8; a2d as it is."""
        if self.kind == "bf16":
            return a2d, None
        q, sf = quant.per_token_cast_to_fp8(a2d)
        return q, sf

    def _quantize_b(self, b):
        """(B [G, N, K], SFB [G, NB, KB]) and B's dequantised values."""
        if self.kind == "bf16":
            return b, None, b
        qs, sfs, deq = [], [], []
        for g in range(b.shape[0]):
            q, sf = quant.per_block_cast_to_fp8(b[g])
            qs.append(q)
            sfs.append(sf)
            deq.append(quant.dequantize_per_block(q, sf).to(torch.bfloat16))
        return torch.stack(qs), torch.stack(sfs), torch.stack(deq)

    def _contiguous(self, rows, alignment, n, k):
        aligned = [quant.align(r, alignment) for r in rows]
        m = sum(aligned)
        a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(self.groups, n, k, device="cuda", dtype=torch.bfloat16)
        per_row = torch.full((m,), -1, dtype=torch.int32)
        ends, spans, start = [], [], 0
        for g, (r, al) in enumerate(zip(rows, aligned)):
            per_row[start:start + r] = g
            a[start + r:start + al] = 0   # zero padding, as DeepGEMM's tests
            ends.append(start + r)
            spans.append((start, start + r, start + al))
            start += al
        self.m = m
        self.a, self.sfa = self._quantize_a(a)
        self.b, self.sfb, b_deq = self._quantize_b(b)
        a_deq = a if self.kind == "bf16" else \
            quant.dequantize_per_token(self.a, self.sfa).to(torch.bfloat16)
        if self.sfa is not None:
            self.sfa = tdg.get_mn_major_tma_aligned_tensor(self.sfa)
        self.table = (per_row if self.layout == "contiguous" else
                      torch.tensor(ends, dtype=torch.int32)).cuda()
        # Reference rows: contiguous checks all of D (padding rows are 0);
        # psum each group's rows.
        self.ref = torch.zeros(m, n, device="cuda")
        for g, (s, e, al) in enumerate(spans):
            self.ref[s:al] = (a_deq[s:al] @ b_deq[g].t()).float()
        self.spans = spans
        self.flops = 2 * m * n * k

    def _masked(self, rows, n, k):
        g, max_m = self.groups, MASKED_MAX_M
        a = torch.randn(g, max_m, k, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(g, n, k, device="cuda", dtype=torch.bfloat16)
        self.m = max_m
        if self.kind == "bf16":
            self.a, self.sfa, a_deq = a, None, a
        else:
            q, sf = quant.per_token_cast_to_fp8(a.view(g * max_m, k))
            self.a = q.view(g, max_m, k)
            a_deq = quant.dequantize_per_token(q, sf).to(torch.bfloat16).view(g, max_m, k)
            # Every row's scales stay real (DeepGEMM's generator zeroes those
            # past masked_m): the graph replays grow masked_m.
            self.sfa = tdg.get_mn_major_tma_aligned_tensor(sf.view(g, max_m, -1))
        self.b, self.sfb, b_deq = self._quantize_b(b)
        self.a_deq, self.b_deq = a_deq, b_deq
        self.table = torch.tensor(rows, dtype=torch.int32, device="cuda")
        self.flops = 2 * sum(rows) * n * k

    def masked_ref(self, j, rows):
        return (self.a_deq[j, :rows] @ self.b_deq[j].t()).float()

    def output(self):
        shape = (self.groups, self.m, self.n) if self.layout == "masked" else (self.m, self.n)
        return torch.full(shape, float("nan"), device="cuda", dtype=torch.bfloat16)

    def pairs(self):
        if self.kind == "bf16":
            return self.a, self.b
        return (self.a, self.sfa), (self.b, self.sfb)


#===------------------------------------------------------------------------===#
# Calls
#===------------------------------------------------------------------------===#


def call(lib, op, d, masked_m=None):
    """lib's function for the case (tilec.deep_gemm or deep_gemm)."""
    a, b = op.pairs()
    table = op.table if masked_m is None else masked_m
    fp8 = op.kind == "fp8"
    extra = {"disable_ue8m0_cast": True} if fp8 else {}
    if op.layout == "masked":
        fn = lib.m_grouped_fp8_fp4_gemm_nt_masked if fp8 else lib.m_grouped_bf16_gemm_nt_masked
        return fn(a, b, d, table, int(op.expected_m * 1.2), **extra)
    fn = lib.m_grouped_fp8_fp4_gemm_nt_contiguous if fp8 else lib.m_grouped_bf16_gemm_nt_contiguous
    return fn(a, b, d, table, use_psum_layout=op.layout == "psum", **extra)


def checked_diff(op, d, rows=None):
    """(worst calc_diff over the rows DeepGEMM's tests check, NaN seen)."""
    worst, nan = 0.0, False
    if op.layout == "masked":
        rows = op.rows if rows is None else rows
        for j, r in enumerate(rows):
            if r == 0:
                continue
            got = d[j, :r].float()
            nan |= bool(torch.isnan(got).any())
            worst = worse(worst, calc_diff(got, op.masked_ref(j, r)))
        return worst, nan
    if op.layout == "contiguous":
        got = d.float()
        return calc_diff(got, op.ref), bool(torch.isnan(got).any())
    for s, e, _ in op.spans:
        if e > s:
            got = d[s:e].float()
            nan |= bool(torch.isnan(got).any())
            worst = worse(worst, calc_diff(got, op.ref[s:e]))
    return worst, nan


def checked_rows(op, x, y):
    """The pairs of slices of two outputs that DeepGEMM's tests check (the
    rows no tile writes keep their NaN poison)."""
    if op.layout == "masked":
        return [(x[j, :r], y[j, :r]) for j, r in enumerate(op.rows) if r]
    if op.layout == "psum":
        return [(x[s:e], y[s:e]) for s, e, _ in op.spans if e > s]
    return [(x, y)]


def compare_rows(op, x, y):
    """calc_diff of two outputs over the checked rows."""
    parts = checked_rows(op, x, y)
    worst = 0.0
    for a, b in parts:
        worst = worse(worst, calc_diff(a.float(), b.float()))
    return worst


def graph_replays(op, rounds=4):
    """The masked call captured once, replayed with other masked_m: the
    worst calc_diff over the replays, and whether any saw NaN."""
    masked_m = op.table.clone()
    d = op.output()
    call(tdg, op, d, masked_m)           # the plan is recorded outside capture
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        call(tdg, op, d, masked_m)
    worst, nan = 0.0, False
    for r in range(rounds):
        counts = [random.randint(0, min(MASKED_MAX_M, op.expected_m * 2))
                  for _ in range(op.groups)]
        counts[0] = 0 if r % 2 else MASKED_MAX_M     # an empty and a full group
        masked_m.copy_(torch.tensor(counts, dtype=torch.int32))
        d.fill_(float("nan"))
        graph.replay()
        torch.cuda.synchronize()
        diff, saw_nan = checked_diff(op, d, counts)
        worst, nan = worse(worst, diff), nan or saw_nan
    return worst, nan


#===------------------------------------------------------------------------===#
# Driver
#===------------------------------------------------------------------------===#


def cases(args):
    for kind in args.kinds.split(","):
        for layout in args.layouts.split(","):
            groups_list = MASKED_GROUPS if layout == "masked" else CONTIGUOUS_GROUPS
            nk = NK[:1] if args.quick else NK
            for groups, expected_m in (groups_list[:2] if args.quick else groups_list):
                for n, k in nk:
                    yield kind, layout, groups, expected_m, n, k, False
            groups, expected_m = groups_list[-1]
            n, k = NK[-1]
            yield kind, layout, groups, expected_m, n, k, True   # an empty group


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_options(p, "the first shapes only", "small shapes only (for compute-sanitizer)")
    p.add_argument("--layouts", default="contiguous,psum,masked")
    p.add_argument("--define", action="append", default=[], metavar="NAME=VALUE",
                   help="a spec param over the config's for the kernels of "
                        "--define-kind (a variant: BLK_M, BLK_N, BLK_K, STAGES, "
                        "MMA_INFLIGHT, ...); repeatable")
    p.add_argument("--define-kind", choices=["bf16", "fp8"], default="bf16",
                   help="whose kernels --define changes (default bf16)")
    args = p.parse_args()
    spec_variant(args.define, "m_grouped_fp8_gemm_1d2d" if args.define_kind == "fp8"
                 else "m_grouped_bf16_gemm_nt")
    if args.small:
        global CONTIGUOUS_GROUPS, MASKED_GROUPS, MASKED_MAX_M, NK
        CONTIGUOUS_GROUPS, MASKED_GROUPS = [(3, 100)], [(4, 40)]
        MASKED_MAX_M, NK = 256, [(384, 640)]
    random.seed(0)
    torch.manual_seed(0)
    dg = deep_gemm_module()
    lines = [f"device {torch.cuda.get_device_name(0)}, tilec "
             f"{tilec_version()}, DeepGEMM {'imported' if dg else 'absent'}", "",
             "| kind | layout | G | expected M | N | K | config | calc_diff | vs DeepGEMM "
             "| repeat | graph replays | result |",
             "|---|---|---:|---:|---:|---:|---|---:|---:|---|---|---|"]
    emit = reporter(lines)
    failed = False
    timings = []
    for kind, layout, groups, expected_m, n, k, empty in cases(args):
        op = Operands(kind, layout, groups, expected_m, n, k, empty)
        family = "m_grouped_fp8_gemm_1d2d" if kind == "fp8" else "m_grouped_bf16_gemm_nt"
        plan_rows = groups * int(expected_m * 1.2) if layout == "masked" else op.m
        defines = dict(_configs.choose(family, plan_rows, n, k, num_groups=groups,
                                       group_layout=layout,
                                       mk_alignment=_grouped.mk_alignment())[0])
        variant = args.define if kind == args.define_kind else []
        defines.update(item.split("=", 1) for item in variant)
        config = " ".join([f"{defines['BLK_M']}x{defines['BLK_N']}", *variant])
        d = op.output()
        call(tdg, op, d)
        torch.cuda.synchronize()
        diff, nan = checked_diff(op, d)
        ok = diff < 1e-3 and not nan
        versus = "-"
        d_ref = None
        if dg is not None:
            d_ref = op.output()
            try:
                call(dg, op, d_ref)
                torch.cuda.synchronize()
                versus = f"{compare_rows(op, d, d_ref):.1e}"
                ok &= compare_rows(op, d, d_ref) < 1e-3
            except Exception as e:  # noqa: BLE001 (report DeepGEMM's failure)
                versus = f"DeepGEMM failed: {type(e).__name__}"
                d_ref = None
        again = op.output()
        call(tdg, op, again)
        torch.cuda.synchronize()
        same = all(torch.equal(x, y) for x, y in checked_rows(op, again, d))
        ok &= same
        graph = "-"
        if layout == "masked":
            gdiff, gnan = graph_replays(op)
            graph = f"{gdiff:.1e}{' NaN' if gnan else ''}"
            ok &= gdiff < 1e-3 and not gnan
        failed |= not ok
        label = f"{groups} (one empty)" if empty else f"{groups}"
        emit(f"| {kind} | {layout} | {label} | {expected_m} | {n} | {k} | {config} | "
             f"{diff:.1e}{' NaN' if nan else ''} | {versus} | {'ok' if same else 'FAIL'} | "
             f"{graph} | {'ok' if ok else 'FAIL'} |")
        if not args.no_timing and not empty:
            fns = {"tilec": lambda: call(tdg, op, d)}
            if d_ref is not None:
                fns["DeepGEMM"] = lambda: call(dg, op, d_ref)
            ms = gb.time_interleaved(fns)
            timings.append(((kind, layout, groups, expected_m, n, k, config),
                            f"{kind} {layout}", op.flops, ms))
        del op, d, again, d_ref
        torch.cuda.empty_cache()
    if timings:
        emit_timings(emit, "| kind | layout | G | expected M | N | K | config |",
                     "|---|---|---:|---:|---:|---:|---|", timings)
    write_markdown(args.markdown, lines)
    return 1 if failed else 0


def tilec_version():
    import tilec
    return getattr(tilec, "__version__", "?")


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""tilec's fp8_fp4_paged_mqa_logits beside DeepGEMM's, same process, same
inputs: correctness (calc_diff against a float reference and against
DeepGEMM on the valid positions, the -inf mask with clean_logits, repeated
calls bitwise equal on the valid positions, the schedule and the kernel
replayed from one CUDA graph as eager calls, also after the context
lengths change) and speed (CUDA events around
the whole call, each library with its own schedule from its own
get_paged_mqa_logits_metadata), as a Markdown table of TFLOP/s, GB/s and
the time ratio.

    PYTHONPATH=/tmp/site python3 bench/py_paged_mqa_bench.py [--quick]
        [--define NAME=VALUE] [--cases 0,3] [--markdown F]

Inputs follow DeepGEMM's test_paged_mqa_logits (tests/test_attention.py),
written here from the semantics: q bf16 randn cast to e4m3, weights randn,
context lengths uniform in [0.7, 1.3) x the average, each batch's pages
(64 keys) drawn from a shuffled pool, the keys bf16 randn cast to e4m3 per
key (scale amax / 448) into DeepGEMM's fused cache (uint8 [pages, 64, 1,
D + 4]: a page's 64 x D e4m3 bytes, then its 64 float32 scales); with 2-D
context lengths, each query but the last sees a random prefix, the last the
whole context. Its SM90 cases are the table's first 24 (block_kv 64, batch
256 or 4096, next_n 1 or 2, 32 or 64 heads, head dim 128, average context
8192 or 65536 with batch x average <= 32M tokens, clean_logits False, f32
or bf16 logits); the rest are tilec's own (clean_logits, DeepGEMM's 1-D
context lengths, other head dims), which DeepGEMM's SM90 API refuses
(2-D context lengths only, and no clean with them): DeepGEMM columns "-".
"""

import os
import sys

import torch

import tilec.deep_gemm as tilec_dg
from tilec import _paged_mqa
from tilec.quant import calc_diff

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from py_mqa_bench import cell, deep_gemm, options, run_table, time_call, time_calls  # noqa: E402

PAGE = 64


def fused_cache(keys: torch.Tensor) -> torch.Tensor:
    """bf16 keys [pages, 64, D] -> DeepGEMM's fused e4m3 cache, uint8
    [pages, 64, 1, D + 4], scaled per key (amax / 448, at least 1e-4 / 448)."""
    pages, _, dim = keys.shape
    scale = keys.abs().float().amax(dim=2, keepdim=True).clamp(min=1e-4) / 448.0
    fp8 = (keys.float() / scale).to(torch.float8_e4m3fn)
    cache = torch.empty(pages, PAGE * (dim + 4), dtype=torch.uint8, device=keys.device)
    cache[:, :PAGE * dim] = fp8.view(torch.uint8).reshape(pages, PAGE * dim)
    cache[:, PAGE * dim:] = scale.reshape(pages, PAGE).view(torch.uint8)
    return cache.view(pages, PAGE, 1, dim + 4)


def split_cache(cache: torch.Tensor):
    """The fused cache's e4m3 keys [pages, 64, D] and float32 scales [pages, 64]."""
    pages, _, _, width = cache.shape
    dim = width - 4
    flat = cache.view(pages, PAGE * width)
    keys = flat[:, :PAGE * dim].contiguous().view(torch.float8_e4m3fn).view(pages, PAGE, dim)
    scales = flat[:, PAGE * dim:].contiguous().view(torch.float32)
    return keys, scales


def make_inputs(batch, next_n, heads, head_dim, average, two_d):
    q = torch.randn(batch, next_n, heads, head_dim, device="cuda", dtype=torch.bfloat16)
    weights = torch.randn(batch * next_n, heads, device="cuda", dtype=torch.float32)
    context = torch.randint(int(0.7 * average), int(1.3 * average), (batch,),
                            device="cuda", dtype=torch.int32)
    pages = (context + PAGE - 1) // PAGE
    max_pages = int(pages.max())
    total = int(pages.sum())
    cache = fused_cache(torch.randn(total, PAGE, head_dim, device="cuda", dtype=torch.bfloat16))
    # Batch b's pages are the next pages[b] of a shuffled pool; the rest of
    # its row of the table is 0 (a valid page, as DeepGEMM's test leaves it).
    pool = torch.randperm(total, device="cuda", dtype=torch.int32)
    starts = torch.cumsum(pages, 0) - pages
    column = torch.arange(max_pages, device="cuda", dtype=torch.int32)
    used = column[None, :] < pages[:, None]
    index = (starts[:, None] + column[None, :]).clamp(max=total - 1).long()
    block_table = torch.where(used, pool[index], torch.zeros_like(pool[index]))
    if two_d:
        lens = ((context[:, None] + 1) * torch.rand(batch, next_n, device="cuda")).int()
        lens[:, -1] = context
    else:
        lens = context
    return dict(q=q.to(torch.float8_e4m3fn), weights=weights, context=context,
                lens=lens, cache=cache, block_table=block_table,
                max_context_len=max_pages * PAGE)


def call_args(inputs, clean: bool, dtype, library=None) -> dict:
    """fp8_fp4_paged_mqa_logits' arguments for make_inputs' inputs, with the
    schedule of `library` (tilec.deep_gemm or DeepGEMM; None: without one)."""
    args = dict(q=(inputs["q"], None), kv_cache=inputs["cache"], weights=inputs["weights"],
                context_lens=inputs["lens"], block_table=inputs["block_table"],
                max_context_len=inputs["max_context_len"], clean_logits=clean,
                logits_dtype=dtype)
    if library is not None:
        args["schedule_meta"] = library.get_paged_mqa_logits_metadata(
            inputs["lens"], PAGE, library.get_num_sms())
    return args


def query_lens(lens: torch.Tensor, next_n: int) -> torch.Tensor:
    """Each query's context length, [B * next_n] (the 1-D form: query j of
    batch b sees lens[b] - next_n + j + 1 keys)."""
    if lens.dim() == 2:
        return lens.reshape(-1).long()
    offsets = torch.arange(next_n, device=lens.device) - (next_n - 1)
    return (lens[:, None].long() + offsets[None, :]).reshape(-1)


def reference(inputs) -> torch.Tensor:
    """float32 logits of the e4m3 inputs over each batch's whole context
    (the positions a query does not see are masked by the caller)."""
    q, weights, context = inputs["q"], inputs["weights"], inputs["context"].tolist()
    keys, scales = split_cache(inputs["cache"])
    batch, next_n, heads, head_dim = q.shape
    logits = torch.zeros(batch * next_n, inputs["max_context_len"], device="cuda")
    for b in range(batch):
        pages = inputs["block_table"][b, :(context[b] + PAGE - 1) // PAGE].long()
        k = (keys[pages].float() * scales[pages][..., None]).reshape(-1, head_dim)
        score = torch.einsum("jhd,td->jht", q[b].float(), k).relu()
        w = weights[b * next_n:(b + 1) * next_n]
        logits[b * next_n:(b + 1) * next_n, :k.shape[0]] = torch.einsum("jht,jh->jt", score, w)
    return logits


def graph_check(inputs, args, next_n) -> bool:
    """The schedule and the kernel captured in one CUDA graph (the
    schedule's torch ops need no host sync): replays equal eager calls on
    the valid positions, before and after the context lengths change in
    place (each query's shortened by a random amount)."""
    lens = inputs["lens"].clone()
    num_sms = tilec_dg.get_num_sms()

    def call():
        schedule = tilec_dg.get_paged_mqa_logits_metadata(lens, PAGE, num_sms)
        return tilec_dg.fp8_fp4_paged_mqa_logits(**dict(args, context_lens=lens,
                                                        schedule_meta=schedule))
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # warm up outside the capture, as torch asks
        call()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        captured = call()
    ok = True
    for step in range(2):
        if step:
            lens.sub_((torch.rand(lens.shape, device="cuda") * lens.float() * 0.5).int())
        graph.replay()
        eager = call()
        positions = torch.arange(eager.shape[1], device="cuda")
        invalid = positions[None, :] >= query_lens(lens, next_n)[:, None]
        ok &= torch.equal(captured.masked_fill(invalid, 0), eager.masked_fill(invalid, 0))
    return bool(ok)


def run_case(batch, next_n, heads, head_dim, average, dtype, clean, two_d, reps):
    inputs = make_inputs(batch, next_n, heads, head_dim, average, two_d)
    args = call_args(inputs, clean, dtype)
    ours_args = call_args(inputs, clean, dtype, tilec_dg)
    ours = tilec_dg.fp8_fp4_paged_mqa_logits(**ours_args)
    positions = torch.arange(inputs["max_context_len"], device="cuda")
    invalid = positions[None, :] >= query_lens(inputs["lens"], next_n)[:, None]
    ref = reference(inputs).masked_fill(invalid, 0)
    diff = calc_diff(ours.float().masked_fill(invalid, 0), ref)
    del ref
    mask_ok = bool(torch.equal(ours.float() == float("-inf"), invalid)) if clean else None
    again = tilec_dg.fp8_fp4_paged_mqa_logits(**ours_args)
    same = torch.equal(again.masked_fill(invalid, 0), ours.masked_fill(invalid, 0))
    del again
    graph_ok = graph_check(inputs, args, next_n)
    ours_call = lambda: tilec_dg.fp8_fp4_paged_mqa_logits(**ours_args)  # noqa: E731
    t_dg = dg_diff = None
    # DeepGEMM's SM90 API: 2-D context lengths only, and clean_logits only
    # with the 1-D form.
    if deep_gemm is not None and two_d and not clean:
        dg_args = call_args(inputs, clean, dtype, deep_gemm)
        theirs = deep_gemm.fp8_fp4_paged_mqa_logits(**dg_args)
        dg_diff = calc_diff(ours.float().masked_fill(invalid, 0),
                            theirs.float().masked_fill(invalid, 0))
        del theirs
        t_ours, t_dg = time_calls(
            [ours_call, lambda: deep_gemm.fp8_fp4_paged_mqa_logits(**dg_args)], reps)
    else:
        t_ours = time_call(ours_call, reps)
    # DeepGEMM's counts: every query over its batch's whole context.
    keys = int(inputs["context"].sum())
    flops = 2 * keys * next_n * heads * head_dim
    moved = (inputs["q"].numel() + inputs["weights"].numel() * 4 + keys * (head_dim + 4)
             + keys * next_n * dtype.itemsize)
    return dict(diff=diff, mask_ok=mask_ok, same=same, graph=graph_ok, dg_diff=dg_diff, t_ours=t_ours,
                t_dg=t_dg, tflops=flops / t_ours / 1e12, gbs=moved / t_ours / 1e9,
                dg_tflops=flops / t_dg / 1e12 if t_dg else None,
                dg_gbs=moved / t_dg / 1e9 if t_dg else None)


def cases_of(quick: bool):
    """(batch, next_n, heads, head_dim, average context, logits dtype,
    clean, 2-D context lengths)."""
    if quick:
        return [(64, 2, 64, 128, 2048, torch.float32, False, True),
                (64, 1, 32, 128, 4000, torch.bfloat16, True, True),
                (32, 2, 64, 64, 1000, torch.float32, True, False)]
    cases = []
    for dtype in (torch.bfloat16, torch.float32):
        for batch, average in ((256, 8192), (256, 65536), (4096, 8192)):
            for next_n in (1, 2):
                for heads in (32, 64):
                    cases.append((batch, next_n, heads, 128, average, dtype, False, True))
    cases += [(256, 2, 64, 128, 8192, torch.float32, True, True),
              (256, 2, 64, 128, 8192, torch.float32, True, False),
              (256, 2, 64, 128, 8192, torch.bfloat16, False, False),
              (4096, 1, 32, 128, 8192, torch.float32, True, True),
              (256, 2, 64, 64, 8192, torch.float32, False, True),
              (256, 4, 32, 32, 8192, torch.float32, True, True)]
    return cases


def main():
    args = options(__doc__.splitlines()[0], "lib/Kernels/paged_mqa_logits.tile",
                   _paged_mqa.FAMILY)
    header = ["| B | next_n | H | D | avg ctx | logits | clean | 2-D | diff | masks | repeat | graph | vs DG "
              "| tilec TFLOP/s | tilec GB/s | DeepGEMM TFLOP/s | DeepGEMM GB/s | tilec / DeepGEMM |",
              "|---:|---:|---:|---:|---:|---|---:|---:|---:|---|---|---|---:|---:|---:|---:|---:|---:|"]

    def row(case, r, ratio):
        batch, next_n, heads, head_dim, average, dtype, clean, two_d = case
        return (f"| {batch} | {next_n} | {heads} | {head_dim} | {average} | "
                f"{'bf16' if dtype == torch.bfloat16 else 'f32'} | {int(clean)} | {int(two_d)} | "
                f"{r['diff']:.1e} | {cell(r['mask_ok'], '')} | {r['same']} | {r['graph']} | "
                f"{cell(r['dg_diff'], '.1e')} | {r['tflops']:.0f} | {r['gbs']:.0f} | "
                f"{cell(r['dg_tflops'], '.0f')} | {cell(r['dg_gbs'], '.0f')} | {cell(ratio, '.3f')} |")
    return run_table(args, cases_of(args.quick), run_case,
                     lambda r: (r["diff"] < 1e-3 and r["mask_ok"] is not False
                                and r["same"] and r["graph"]),
                     header, row)


if __name__ == "__main__":
    sys.exit(main())

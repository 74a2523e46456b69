#!/usr/bin/env python3
"""Python-side costs of tilec: launch overhead, cache hits, the first call of
a new shape (beside DeepGEMM's, in one process), CUDA-graph capture.

On the GPU machine (the package installed, docs/python.md):

    python3 bench/py_overhead.py --markdown bench/results/py-overhead.md

Without a GPU (tilec's dry run: the whole call path, the runtime checking
the arguments instead of launching; CPU tensors):

    python3 bench/py_overhead.py --cpu

1. Launch overhead: CPU microseconds per call of back-to-back calls at
   128x256x256 (no synchronisation inside the loop; the anchors' README
   measured torch.matmul 12.3, deep_gemm.bf16_gemm_nt 17.8 and the ctypes
   wrapper 27.9 there), for tilec.deep_gemm's BF16 and FP8 calls, the
   dispatcher alone, the ctypes wrapper on the same kernel, torch.matmul and
   DeepGEMM; and the paged MQA logits call of a decode step at batch 256
   (its kernel takes ~85 us on the H200, so a call must cost less host time
   than that), tilec's and DeepGEMM's. Median and best of --repeats runs of
   --calls calls. Then the paged call's three host paths (checked, planned,
   planned with the cache's views kept), interleaved.
2. Cache hits: the loaded-kernel dict (tilec.get_kernel), the config table,
   and a disk hit (read + verify + module load).
3. First call of a new shape (config + compile + load + launch, finished on
   the GPU), tilec with an empty $TILEC_CACHE_DIR beside DeepGEMM with an
   empty $DG_JIT_CACHE_DIR, same inputs; with --first-call-runs N, in N
   fresh processes, as median and range.
4. CUDA graphs: tilec calls captured and replayed; the replayed result must
   equal the eager one bit for bit.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)

# Empty caches for the first-call measurement, set before tilec and DeepGEMM
# read them ($PY_OVERHEAD_TILEC_CACHE: a cache tilec-precompile filled).
_TILEC_CACHE = (os.environ.get("PY_OVERHEAD_TILEC_CACHE") or
                tempfile.mkdtemp(prefix="tilec-first-call-"))
_DG_CACHE = tempfile.mkdtemp(prefix="deepgemm-first-call-")
os.environ["TILEC_CACHE_DIR"] = _TILEC_CACHE
os.environ.setdefault("DG_JIT_CACHE_DIR", _DG_CACHE)

import torch  # noqa: E402

import tilec  # noqa: E402
import tilec.deep_gemm as tdg  # noqa: E402
from tilec import _cache, _configs, _gemm, _jit, quant  # noqa: E402

LINES = []


def emit(line=""):
    print(line, flush=True)
    LINES.append(line)


def per_call_us(fn, calls, repeats, sync):
    for _ in range(100):
        fn()
    sync()
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        samples.append((time.perf_counter() - start) / calls * 1e6)
        sync()
    return statistics.median(samples), min(samples)


def deep_gemm_module(enabled):
    if not enabled:
        return None
    try:
        import deep_gemm
        return deep_gemm
    except Exception as error:  # noqa: BLE001 (absent or a broken build)
        emit(f"(DeepGEMM not available: {error})")
        return None


def gemm_inputs(m, n, k, device):
    a = torch.randn(m, k, device=device).to(torch.bfloat16)
    b = torch.randn(n, k, device=device).to(torch.bfloat16)
    qa, sfa = quant.per_token_cast_to_fp8(torch.randn(m, k, device=device))
    qb, sfb = quant.per_block_cast_to_fp8(torch.randn(n, k, device=device))
    return dict(a=a, b=b, d=torch.empty(m, n, device=device, dtype=torch.bfloat16),
                fa=(qa, quant.mn_major_tma_aligned(sfa)), fb=(qb, sfb.contiguous()))


def ctypes_kernel(kernel_bundle):
    """The same kernel through runtime/python/tilec_runtime.py (ctypes)."""
    library = os.path.join(os.path.dirname(tilec.__file__), "libtilec_runtime.so.0")
    if os.path.exists(library):
        os.environ.setdefault("TILEC_RUNTIME_LIB", library)
    sys.path.insert(0, os.path.join(REPO, "runtime", "python"))
    import tilec_runtime
    return tilec_runtime.Module(data=kernel_bundle).kernel()


def paged_mqa_inputs(device):
    """A decode step of paged MQA logits (batch 256, next_n 2, 32 heads,
    head dim 128, 8192 keys per query): the call's arguments but the
    schedule, and DeepGEMM's own schedule call."""
    batch, next_n, heads, head_dim, blocks = 256, 2, 32, 128, 1024
    lens = torch.full((batch, next_n), 8192, dtype=torch.int32, device=device)
    return dict(q=(torch.zeros(batch, next_n, heads, head_dim, device=device)
                   .to(torch.float8_e4m3fn), None),
                kv_cache=torch.zeros(blocks, 64, 1, head_dim + 4, dtype=torch.uint8,
                                     device=device),
                weights=torch.zeros(batch * next_n, heads, device=device),
                context_lens=lens,
                block_table=torch.zeros(batch, 8192 // 64, dtype=torch.int32,
                                        device=device),
                max_context_len=8192)


def paged_host_paths(args, gpu):
    """The paged MQA call's host paths, interleaved on the same inputs: the
    checks on every call (its dispatcher plans dropped before each), and
    the recorded plan (tilec._C.Dispatcher: what every call after the first
    takes)."""
    from tilec import _gemm, _paged_mqa
    device = "cuda" if gpu else "cpu"
    sync = torch.cuda.synchronize if gpu else (lambda: None)
    paged = paged_mqa_inputs(device)
    meta = tdg.get_paged_mqa_logits_metadata(paged["context_lens"], 64, tdg.get_num_sms())

    def call():
        tdg.fp8_fp4_paged_mqa_logits(schedule_meta=meta, **paged)

    def checked():
        for key in [k for k in _gemm._dispatchers if k[0] == _paged_mqa.FAMILY]:
            del _gemm._dispatchers[key]
        call()
    variants = [("checked on every call", checked),
                ("the recorded plan (every call after the first)", call)]
    samples = {name: [] for name, _ in variants}
    call()
    sync()
    calls = max(args.calls // 10, 50)
    for _ in range(args.repeats * 2):
        for name, fn in variants:
            start = time.perf_counter()
            for _ in range(calls):
                fn()
            samples[name].append((time.perf_counter() - start) / calls * 1e6)
            sync()
    emit(f"## Paged MQA logits, the call's host paths ({'GPU' if gpu else 'CPU, dry run'}): "
         f"B 256, next_n 2, 32 heads, 8192 keys; {calls} calls a sample, interleaved")
    emit()
    emit("| path | us per call (median) | best |")
    emit("|---|---:|---:|")
    for name, _ in variants:
        emit(f"| {name} | {statistics.median(samples[name]):.2f} | {min(samples[name]):.2f} |")
    emit()


def launch_overhead(args, gpu, dg):
    device = "cuda" if gpu else "cpu"
    sync = torch.cuda.synchronize if gpu else (lambda: None)
    x = gemm_inputs(128, 256, 256, device)
    a, b, d, fa, fb = x["a"], x["b"], x["d"], x["fa"], x["fb"]
    tdg.bf16_gemm_nt(a, b, d)
    tdg.fp8_gemm_nt(fa, fb, d)
    bf16_dispatcher = _gemm._dispatchers[_gemm.bf16_key("nt", "nk", False)]
    cases = [
        ("tilec.deep_gemm.bf16_gemm_nt", lambda: tdg.bf16_gemm_nt(a, b, d)),
        ("tilec.deep_gemm.fp8_gemm_nt", lambda: tdg.fp8_gemm_nt(fa, fb, d)),
        ("tilec._C.Dispatcher.launch (bf16, the C++ fast path alone)",
         lambda: bf16_dispatcher.launch(a, b, d)),
    ]
    paged = paged_mqa_inputs(device)
    paged_meta = tdg.get_paged_mqa_logits_metadata(paged["context_lens"], 64,
                                                   tdg.get_num_sms())
    cases.append(("tilec.deep_gemm.fp8_fp4_paged_mqa_logits (B 256, next_n 2, "
                  "32 heads, 8192 keys)",
                  lambda: tdg.fp8_fp4_paged_mqa_logits(schedule_meta=paged_meta, **paged)))
    if gpu and dg is not None:
        dg_meta = dg.get_paged_mqa_logits_metadata(paged["context_lens"], 64,
                                                   dg.get_num_sms())
        cases.append(("deep_gemm.fp8_fp4_paged_mqa_logits (same)",
                      lambda: dg.fp8_fp4_paged_mqa_logits(schedule_meta=dg_meta, **paged)))
    if gpu:
        defines, _ = _configs.choose("bf16_gemm_nt", 128, 256, 256,
                                     num_sms=_gemm.get_num_sms())
        from tilec import _specs
        spec = _specs.family("bf16_gemm_nt").spec
        bundle = _cache.get_bundle(os.path.basename(spec), _specs.spec_text(spec), defines,
                                   _cache.device_target(torch.cuda.current_device()))
        try:
            legacy = ctypes_kernel(bundle)
            cases.append(("ctypes wrapper (runtime/python/tilec_runtime.py)",
                          lambda: legacy(a, b, d)))
        except Exception as error:  # noqa: BLE001
            emit(f"(ctypes wrapper not measured: {error})")
        cases.append(("torch.matmul (cuBLAS)", lambda: torch.matmul(a, b.t(), out=d)))
        if dg is not None:
            cases.append(("deep_gemm.bf16_gemm_nt", lambda: dg.bf16_gemm_nt(a, b, d)))
            cases.append(("deep_gemm.fp8_gemm_nt",
                          lambda: dg.fp8_gemm_nt(fa, fb, d, disable_ue8m0_cast=True)))
    emit(f"## Launch overhead ({'GPU' if gpu else 'CPU, dry run'}): 128x256x256, "
         f"{args.calls} back-to-back calls, {args.repeats} repeats")
    emit()
    emit("| call | us per call (median) | best |")
    emit("|---|---:|---:|")
    for name, fn in cases:
        median, best = per_call_us(fn, args.calls, args.repeats, sync)
        emit(f"| {name} | {median:.2f} | {best:.2f} |")
    emit()


def timeit_us(fn, number=20000):
    fn()
    start = time.perf_counter()
    for _ in range(number):
        fn()
    return (time.perf_counter() - start) / number * 1e6


def cache_hits(gpu):
    device = torch.cuda.current_device() if gpu else None
    family, defines = "fp8_gemm_1d2d", _configs.choose("fp8_gemm_1d2d", 128, 256, 256)[0]
    _cache.get_kernel(family, defines, device)
    emit("## Cache hits")
    emit()
    emit("| what | cost |")
    emit("|---|---:|")
    emit(f"| memory: tilec.get_kernel(family, defines) | "
         f"{timeit_us(lambda: _cache.get_kernel(family, defines, device)):.2f} us |")
    emit(f"| config: _configs.choose(family, m, n, k) | "
         f"{timeit_us(lambda: _configs.choose(family, 128, 256, 256)):.2f} us |")
    samples = []
    for _ in range(5):
        _cache.clear_memory()
        start = time.perf_counter()
        _cache.get_kernel(family, defines, device)
        samples.append((time.perf_counter() - start) * 1e3)
    what = "read + verify + cuModuleLoadData" if gpu else "read + verify + parse"
    emit(f"| disk: a new process's first get_kernel ({what}) | "
         f"{statistics.median(samples):.2f} ms |")
    emit()


class CompileCounter:
    """Counts compiles: Python's compile step and the library cache's
    (_configs.library_bundle reports a compile as source 3)."""

    def __init__(self):
        self.count = 0
        self.original = _jit.compile_bundle
        self.original_library = _configs.library_bundle

    def __enter__(self):
        def counted(*a, **k):
            self.count += 1
            return self.original(*a, **k)

        def counted_library(*a, **k):
            result = self.original_library(*a, **k)
            self.count += result is not None and result[2] == 3
            return result
        _jit.compile_bundle = counted
        _configs.library_bundle = counted_library
        return self

    def __exit__(self, *exc):
        _jit.compile_bundle = self.original
        _configs.library_bundle = self.original_library


FIRST_CALL_SHAPES = [(4096, 7168, 2048), (128, 2112, 7168), (1, 7168, 16384)]


def measure_first_calls(gpu, dg):
    """[(m, n, k, tilec seconds, compiles, DeepGEMM seconds or None)] for
    FIRST_CALL_SHAPES, in this process (its caches must be empty)."""
    device = "cuda" if gpu else "cpu"
    sync = torch.cuda.synchronize if gpu else (lambda: None)
    results = []
    for m, n, k in FIRST_CALL_SHAPES:
        x = gemm_inputs(m, n, k, device)
        sync()
        with CompileCounter() as counter:
            start = time.perf_counter()
            tdg.fp8_gemm_nt(x["fa"], x["fb"], x["d"])
            sync()
            ours = time.perf_counter() - start
        # The tiered JIT: the first call may have run the quick build while
        # the configuration compiles; wait for it (so that DeepGEMM's compile
        # runs alone), then the tuned kernel must give the same bits.
        first = x["d"].clone()
        tilec.wait_for_compiles()
        tuned_ready = time.perf_counter() - start
        x["d"].fill_(float("nan"))
        tdg.fp8_gemm_nt(x["fa"], x["fb"], x["d"])
        sync()
        same = bool(torch.equal(first, x["d"]))
        theirs = None
        if dg is not None:
            start = time.perf_counter()
            dg.fp8_gemm_nt(x["fa"], x["fb"], x["d"], disable_ue8m0_cast=True)
            sync()
            theirs = time.perf_counter() - start
        results.append((m, n, k, ours, counter.count, theirs, tuned_ready, same))
    return results


def first_calls(gpu, dg):
    emit("## First call of a new shape (FP8 1D2D, config + compile + load + launch)")
    emit()
    emit("| M | N | K | tilec first call | compiles | DeepGEMM first call | DeepGEMM / tilec |")
    emit("|---:|---:|---:|---:|---:|---:|---:|")
    for m, n, k, ours, compiles, theirs, _, _ in measure_first_calls(gpu, dg):
        emit(f"| {m} | {n} | {k} | {ours * 1e3:.0f} ms | {compiles} | "
             f"{'-' if theirs is None else f'{theirs * 1e3:.0f} ms'} | "
             f"{'-' if theirs is None else f'{theirs / ours:.1f}x'} |")
    emit()


def first_calls_in_processes(args, runs):
    """The first-call table over `runs` fresh processes, each with empty
    caches (this script with --first-calls-only): per shape the median and
    the range of tilec's time, of DeepGEMM's and of their ratio. One process
    measures one machine state; the host's noise moved single runs by 30%."""
    command = [sys.executable, os.path.abspath(__file__), "--first-calls-only"]
    if args.cpu:
        command.append("--cpu")
    if args.no_deepgemm:
        command.append("--no-deepgemm")
    # Each process makes its own empty cache directories.
    env = {key: value for key, value in os.environ.items()
           if key not in ("TILEC_CACHE_DIR", "DG_JIT_CACHE_DIR")}
    samples = {}
    for _ in range(runs):
        out = subprocess.run(command, check=True, capture_output=True, text=True,
                             env=env).stdout
        for row in json.loads(out.strip().splitlines()[-1]):
            samples.setdefault(tuple(row[:3]), []).append(row[3:])
    emit(f"## First call of a new shape (FP8 1D2D, config + compile + load + launch), "
         f"{runs} fresh processes")
    emit()
    emit("| M | N | K | tilec median (range) | DeepGEMM median (range) | ratio median (range) | runs at or above 20x | tuned kernel ready (median) | tuned = first call's bits |")
    emit("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    span = lambda xs, f: f"{f(statistics.median(xs))} ({f(min(xs))}-{f(max(xs))})"  # noqa: E731
    ms = lambda x: f"{x * 1e3:.0f} ms"  # noqa: E731
    for (m, n, k), rows in samples.items():
        ours = [r[0] for r in rows]
        theirs = [r[2] for r in rows if r[2] is not None]
        ratios = [r[2] / r[0] for r in rows if r[2] is not None]
        emit(f"| {m} | {n} | {k} | {span(ours, ms)} | "
             f"{span(theirs, ms) if theirs else '-'} | "
             f"{span(ratios, lambda x: f'{x:.1f}x') if ratios else '-'} | "
             f"{sum(r >= 20 for r in ratios) if ratios else '-'} of {len(rows)} | "
             f"{ms(statistics.median(r[3] for r in rows))} | "
             f"{sum(bool(r[4]) for r in rows)} of {len(rows)} |")
    emit()


def first_calls_precompiled(args):
    """tilec-precompile fills a cache with FIRST_CALL_SHAPES' kernels (timed);
    then a fresh process makes their first calls from it: no compile."""
    cache = tempfile.mkdtemp(prefix="tilec-precompiled-")
    listing = os.path.join(cache, "gemms.txt")
    with open(listing, "w") as f:
        for m, n, k in FIRST_CALL_SHAPES:
            f.write(f"fp8_gemm_1d2d {n} {k} - {m}\n")
    start = time.perf_counter()
    done = subprocess.run([args.precompile, "--cache-dir", cache, listing],
                          capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        emit(f"tilec-precompile failed: {done.stderr.strip()}")
        return
    command = [sys.executable, os.path.abspath(__file__), "--first-calls-only",
               "--no-deepgemm"] + (["--cpu"] if args.cpu else [])
    env = dict(os.environ, PY_OVERHEAD_TILEC_CACHE=cache)
    out = subprocess.run(command, check=True, capture_output=True, text=True,
                         env=env).stdout
    rows = json.loads(out.strip().splitlines()[-1])
    emit(f"## First call from a precompiled cache ({done.stdout.strip().splitlines()[-1]}; "
         f"the command took {seconds:.2f} s)")
    emit()
    emit("| M | N | K | tilec first call | compiles in the process |")
    emit("|---:|---:|---:|---:|---:|")
    for m, n, k, ours, compiles, *_ in rows:
        emit(f"| {m} | {n} | {k} | {ours * 1e3:.1f} ms | {compiles} |")
    emit()


def cuda_graphs():
    x = gemm_inputs(512, 1024, 1024, "cuda")
    eager = torch.empty_like(x["d"])
    tdg.fp8_gemm_nt(x["fa"], x["fb"], eager)
    tdg.bf16_gemm_nt(x["a"], x["b"], x["d"])
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    out_fp8, out_bf16 = torch.zeros_like(eager), torch.zeros_like(eager)
    with torch.cuda.graph(graph):
        for _ in range(10):
            tdg.fp8_gemm_nt(x["fa"], x["fb"], out_fp8)
            tdg.bf16_gemm_nt(x["a"], x["b"], out_bf16)
    graph.replay()
    torch.cuda.synchronize()
    reference = torch.empty_like(eager)
    tdg.bf16_gemm_nt(x["a"], x["b"], reference)
    torch.cuda.synchronize()
    same = torch.equal(out_fp8, eager) and torch.equal(out_bf16, reference)
    start = time.perf_counter()
    for _ in range(20):
        graph.replay()
    torch.cuda.synchronize()
    replay_us = (time.perf_counter() - start) / 20 / 20 * 1e6
    emit("## CUDA graphs")
    emit()
    emit(f"20 tilec calls (FP8 + BF16, 512x1024x1024) captured in one graph: "
         f"replayed result {'bitwise equal to eager' if same else 'DIFFERENT from eager'}; "
         f"{replay_us:.1f} us per replayed call (GPU time included)")
    emit()
    return same


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cpu", action="store_true",
                        help="no GPU: tilec's dry run on CPU tensors")
    parser.add_argument("--calls", type=int, default=3000)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--no-deepgemm", action="store_true")
    parser.add_argument("--markdown", help="append the tables to this file")
    parser.add_argument("--first-call-runs", type=int, default=1,
                        help="measure the first calls in this many fresh "
                             "processes (median and range) instead of this one")
    parser.add_argument("--precompile", metavar="TILEC_PRECOMPILE",
                        help="also time the first calls from a cache this "
                             "tilec-precompile binary filled")
    parser.add_argument("--first-calls-only", action="store_true",
                        help=argparse.SUPPRESS)  # one sample, as JSON
    args = parser.parse_args()
    gpu = not args.cpu
    if args.cpu:
        tilec.set_dry_run(True)
    else:
        props = torch.cuda.get_device_properties(0)
        emit(f"device: {props.name}, {props.multi_processor_count} SMs, torch "
             f"{torch.__version__}")
    try:
        emit(f"compiler: {_jit.compiler_version().splitlines()[0]} ({_jit.find_compiler()})")
    except tilec.CompileError as error:
        emit(f"compiler: none ({error.diagnostics})")
    emit()
    if args.first_calls_only:
        dg = deep_gemm_module(gpu and not args.no_deepgemm)
        print(json.dumps([list(row) for row in measure_first_calls(gpu, dg)]))
        return 0
    if args.first_call_runs > 1:
        first_calls_in_processes(args, args.first_call_runs)
    if args.precompile:
        first_calls_precompiled(args)
    dg = deep_gemm_module(gpu and not args.no_deepgemm)
    if args.first_call_runs <= 1:
        first_calls(gpu, dg)  # first: every cache is still empty
    launch_overhead(args, gpu, dg)
    paged_host_paths(args, gpu)
    cache_hits(gpu)
    ok = cuda_graphs() if gpu else True
    if args.markdown:
        with open(args.markdown, "a") as f:
            f.write("\n".join(LINES) + "\n")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

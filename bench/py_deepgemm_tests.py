#!/usr/bin/env python3
"""Runs DeepGEMM's own GEMM tests on tilec: test_gemm (and with --functions
test_m_grouped_gemm_contiguous, test_m_grouped_gemm_masked,
test_k_grouped_gemm_contiguous) of tests/test_bf16.py and of
tests/test_fp8_fp4.py (their SM90 cases), with --tests attention
test_mqa_logits and test_paged_mqa_logits of tests/test_attention.py, and
with --tests einsum test_bmk_bnk_mn, test_bhr_hdr_bhd, test_bhd_hdr_bhr
and test_fp8_bhr_hdr_bhd of tests/test_einsum.py, with
`import tilec.deep_gemm as deep_gemm` in place of `import deep_gemm`.

DeepGEMM's files are never copied into this repository: they are read from
an untarred copy of ../shared/anchors/deepgemm-src.tgz (or the tarball
itself, unpacked to a temporary folder), and the substitution is made at
run time by aliasing the modules deep_gemm, deep_gemm.testing and
deep_gemm.utils to tilec's before the test files are imported.

    python3 bench/py_deepgemm_tests.py --tarball ../shared/anchors/deepgemm-src.tgz \\
        [--tests bf16,fp8,attention,einsum] [--functions test_gemm,test_m_grouped_gemm_contiguous,
        test_mqa_logits,test_paged_mqa_logits,...]
        [--all-cases] [--log out/deepgemm-tests.log]

By default each DeepGEMM case that tilec cannot run (what raises
NotImplementedError: today, with the example BF16 kernels, MN-major A,
float32 BF16 output and BF16 accumulation) is skipped and listed, decided
by tilec's own checks on meta tensors of the case's shapes; --all-cases
runs every case (the first unsupported one stops the test). The exit code
is 0 when every test function run passed.

test_paged_mqa_logits takes its schedule from tilec's
get_paged_mqa_logits_metadata (the alias); its 'clean_logits' kernel time
is NaN, as tilec has no such kernel (and the test's SM90 cases do not
clean). DG_MQA_NUM_CASES=n samples n cases of either MQA test.

test_k_grouped_gemm_contiguous's perf lines time tilec by bench_kineto's
kernel average: with one launch per non-empty group, that is a group's
time, not the call's (bench/py_kgrouped_check.py times whole calls).
"""

import argparse
import importlib
import os
import sys
import tarfile
import tempfile
import time
import traceback

import torch

import tilec.deep_gemm as tilec_deep_gemm
from tilec import _gemm, _grouped


def alias_deep_gemm():
    """`import deep_gemm` (and its testing and utils modules) -> tilec's."""
    sys.modules["deep_gemm"] = tilec_deep_gemm
    sys.modules["deep_gemm.testing"] = tilec_deep_gemm.testing
    sys.modules["deep_gemm.utils"] = tilec_deep_gemm.utils
    # tests/test_einsum.py imports its casts from deep_gemm.utils.math.
    sys.modules["deep_gemm.utils.math"] = tilec_deep_gemm.utils


def tests_folder(args) -> str:
    if args.src:
        folder = os.path.join(args.src, "DeepGEMM", "tests")
        if not os.path.isdir(folder):
            folder = os.path.join(args.src, "tests")
        return folder
    target = tempfile.mkdtemp(prefix="deepgemm-src-")
    with tarfile.open(args.tarball) as tar:
        members = [m for m in tar.getmembers()
                   if m.name.startswith(("DeepGEMM/tests/", "./DeepGEMM/tests/"))]
        tar.extractall(target, members=members)
    return os.path.join(target, "DeepGEMM", "tests")


def meta(shape, dtype, k_major=True):
    """A meta tensor of `shape` ([MN, K]) K-major, or MN-major."""
    if k_major:
        return torch.empty(shape, dtype=dtype, device="meta")
    return torch.empty(shape[::-1], dtype=dtype, device="meta").t()


def unsupported(dtype, case):
    """Why tilec cannot run one enumerate_normal case, or None: tilec's
    checks on meta tensors of the case's shapes and layouts (the checks that
    precede every launch)."""
    kernel_type, quant_config, m, n, k, major_a, major_b, accumulate, out_dtype = case
    d = torch.empty(m, n, dtype=out_dtype, device="meta")
    c = d if accumulate else None
    try:
        if dtype == torch.bfloat16:
            a = meta((m, k), torch.bfloat16, major_a.is_k_major())
            b = meta((n, k), torch.bfloat16, major_b.is_k_major())
            _gemm.bf16_plan(a, b, d, c, "nt")
        else:
            recipe, recipe_a, recipe_b = quant_config.get_recipes(
                is_wgrad=kernel_type.is_1d1d() and accumulate)
            kb = (k + 127) // 128
            block_b = not (kernel_type.is_1d1d() and accumulate)
            sfb_rows = (n + 127) // 128 if block_b else n
            a = (meta((m, k), torch.float8_e4m3fn, major_a.is_k_major()),
                 torch.empty(m, kb, device="meta"))
            b = (meta((n, k), torch.float8_e4m3fn, major_b.is_k_major()),
                 torch.empty(sfb_rows, kb, device="meta"))
            _gemm.fp8_plan(a, b, d, c, recipe, recipe_a, recipe_b)
    except NotImplementedError as error:
        return str(error)
    return None


def unsupported_m_grouped_contiguous(dtype, case):
    """Why tilec cannot run one enumerate_m_grouped_contiguous case, or
    None (tilec's checks on meta tensors: today an MN-major BF16 B)."""
    _, _, groups, expected_m, n, k, major_a, major_b, psum, _ = case
    m = groups * expected_m
    a = meta((m, k), dtype, major_a.is_k_major())
    b = torch.empty(groups, n, k, dtype=dtype, device="meta") if major_b.is_k_major() \
        else torch.empty(groups, k, n, dtype=dtype, device="meta").transpose(1, 2)
    d = torch.empty(m, n, dtype=torch.bfloat16, device="meta")
    layout = torch.empty(groups if psum else m, dtype=torch.int32, device="meta")
    try:
        if dtype == torch.bfloat16:
            _grouped.bf16_plan(a, b, d, layout, "contiguous", "m_grouped_bf16_gemm_nt_contiguous",
                               use_psum_layout=psum)
        else:
            kb = (k + 127) // 128
            _grouped.fp8_plan((a, torch.empty(m, kb, device="meta")),
                              (b, torch.empty(groups, (n + 127) // 128, kb, device="meta")),
                              d, layout, "contiguous", "m_grouped_fp8_fp4_gemm_nt_contiguous",
                              use_psum_layout=psum)
    except NotImplementedError as error:
        return str(error)
    return None


# The generators tilec's checks filter, the check, and the case's label.
FILTERS = {
    "enumerate_normal": (unsupported, lambda case: case[2:5]),
    "enumerate_m_grouped_contiguous": (unsupported_m_grouped_contiguous,
                                       lambda case: case[2:6]),
}


def filtered_enumerate(module, name, dtype, skipped):
    original = getattr(module, name)
    check, label = FILTERS[name]

    # The tests pass the dtype by position or, in test_fp8_fp4's grouped
    # tests, as dtype=.
    def enumerate_cases(*args, **kwargs):
        for case in original(*args, **kwargs):
            reason = check(dtype, case)
            if reason is None:
                yield case
            else:
                skipped.append((label(case), reason))
    return enumerate_cases


def run_test(folder, name, dtype, all_cases, function="test_gemm"):
    if folder not in sys.path:
        sys.path.insert(0, folder)
    module = importlib.import_module(name)
    generators = importlib.import_module("generators")
    skipped = []
    if not all_cases:
        # The test modules import the generators by name: filter both.
        for generator in FILTERS:
            filtered = filtered_enumerate(generators, generator, dtype, skipped)
            setattr(module, generator, filtered)
    print(f"=== {name}.{function} on tilec.deep_gemm", flush=True)
    start = time.time()
    ok = True
    try:
        getattr(module, function)()
    except Exception:  # noqa: BLE001 (report and go on with the next test)
        traceback.print_exc()
        ok = False
    print(f"=== {name}.{function}: {'passed' if ok else 'FAILED'} in "
          f"{time.time() - start:.0f} s; {len(skipped)} cases skipped", flush=True)
    reasons = {}
    for shape, reason in skipped:
        reasons.setdefault(reason, []).append(shape)
    for reason, shapes in reasons.items():
        print(f"  skipped {len(shapes)} (M, N, K) {shapes[:4]}{' ...' if len(shapes) > 4 else ''}:"
              f" {reason}", flush=True)
    return ok


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--tarball", help="../shared/anchors/deepgemm-src.tgz")
    source.add_argument("--src", help="an untarred copy of it")
    parser.add_argument("--tests", default="bf16,fp8")
    parser.add_argument("--functions", default="test_gemm",
                        help="the test functions to run: test_gemm, "
                             "test_m_grouped_gemm_contiguous, test_m_grouped_gemm_masked, "
                             "test_k_grouped_gemm_contiguous; with --tests attention, "
                             "test_mqa_logits, test_paged_mqa_logits; with --tests "
                             "einsum, test_bmk_bnk_mn, test_bhr_hdr_bhd, test_bhd_hdr_bhr, "
                             "test_fp8_bhr_hdr_bhd")
    parser.add_argument("--all-cases", action="store_true",
                        help="do not skip the cases tilec cannot run")
    parser.add_argument("--log", help="also write the output here")
    args = parser.parse_args()
    if args.log:
        os.makedirs(os.path.dirname(os.path.abspath(args.log)), exist_ok=True)
        log = open(args.log, "w")
        for stream in ("stdout", "stderr"):
            original = getattr(sys, stream)

            class Tee:
                def write(self, text, original=original):
                    original.write(text)
                    log.write(text)

                def flush(self, original=original):
                    original.flush()
                    log.flush()
            setattr(sys, stream, Tee())
    alias_deep_gemm()
    folder = tests_folder(args)
    print(f"DeepGEMM tests from {folder}; device "
          f"{torch.cuda.get_device_name(0)}", flush=True)
    torch.manual_seed(0)
    tests = {"bf16": ("test_bf16", torch.bfloat16),
             "fp8": ("test_fp8_fp4", torch.float8_e4m3fn),
             # test_mqa_logits, test_paged_mqa_logits (DG_MQA_NUM_CASES=n
             # samples n of their cases)
             "attention": ("test_attention", None),
             # test_bmk_bnk_mn, test_bhr_hdr_bhd, test_bhd_hdr_bhr,
             # test_fp8_bhr_hdr_bhd (einsum, fp8_einsum)
             "einsum": ("test_einsum", None)}
    results = [run_test(folder, *tests[name], args.all_cases, function)
               for name in args.tests.split(",")
               for function in args.functions.split(",")]
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())

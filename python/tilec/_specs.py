"""The kernel families tilec.deep_gemm launches, and where their specs are.

A family is one parameterised spec and the kernel in it; its config
(_configs.choose) sets the spec's params with -D. Specs are read from the
installed package (tilec/specs/<path>, put there by python/CMakeLists.txt)
or from the source checkout around this file.
"""

import functools
import os
import re
from typing import NamedTuple, Optional, Tuple

_HERE = os.path.dirname(os.path.abspath(__file__))
_ROOTS = (os.path.join(_HERE, "specs"), os.path.normpath(os.path.join(_HERE, "..", "..")))


class Family(NamedTuple):
    name: str
    #: The spec's path relative to the repository root.
    spec: str
    #: The kernel's entry name in the spec.
    kernel: str
    #: D dtypes the spec writes: bf16, and f32 when it has `param OUT`.
    outputs: Tuple[str, ...]
    #: Whether the spec can add to D (`param ACCUMULATE`).
    accumulates: bool


def _has_param(text: str, name: str) -> bool:
    return re.search(rf"^param\s+{name}\b", text, re.MULTILINE) is not None


def _family(name: str, candidates) -> Optional[Family]:
    """The first of (spec path, kernel) that exists, with what it can do
    read from its params."""
    for path, kernel in candidates:
        try:
            text = spec_text(path)
        except FileNotFoundError:
            continue
        outputs = ("bf16", "f32") if _has_param(text, "OUT") else ("bf16",)
        return Family(name, path, kernel, outputs, _has_param(text, "ACCUMULATE"))
    return None


# The library's specs (lib/Kernels), the ones the compiler library's
# configuration tables set params for.
_CANDIDATES = {
    "bf16_gemm_nt": [("lib/Kernels/bf16_gemm_nt.tile", "bf16_gemm_nt")],
    "bf16_gemm_nn": [("lib/Kernels/bf16_gemm_nn.tile", "bf16_gemm_nn")],
    "bf16_gemm_tn": [("lib/Kernels/bf16_gemm_tn.tile", "bf16_gemm_tn")],
    "bf16_gemm_tt": [("lib/Kernels/bf16_gemm_tt.tile", "bf16_gemm_tt")],
    "fp8_gemm_1d2d": [("lib/Kernels/fp8_gemm_1d2d.tile", "fp8_gemm_1d2d")],
    "fp8_gemm_1d1d": [("lib/Kernels/fp8_gemm_1d1d.tile", "fp8_gemm_1d1d")],
    # Split K's second kernel: its config is the split GEMM's (the library's
    # splitk_reduce family).
    "splitk_reduce": [("lib/Kernels/splitk_reduce.tile", "splitk_reduce")],
    # DeepGEMM's M-grouped GEMMs; the spec's LAYOUT param picks contiguous,
    # psum or masked.
    "m_grouped_bf16_gemm_nt": [("lib/Kernels/m_grouped_bf16_gemm_nt.tile",
                                "m_grouped_bf16_gemm_nt")],
    # B [G, K, N]: the nt spec's kernel with B_MN = 1 (the config sets it).
    "m_grouped_bf16_gemm_nn": [("lib/Kernels/m_grouped_bf16_gemm_nt.tile",
                                "m_grouped_bf16_gemm_nt")],
    "m_grouped_fp8_gemm_1d2d": [("lib/Kernels/m_grouped_fp8_gemm_1d2d.tile",
                                 "m_grouped_fp8_gemm_1d2d")],
    # DeepGEMM's einsum 'bmk,bnk->mn': its params are the problem's
    # (_einsum.py).
    "bf16_bmk_bnk_mn": [("lib/Kernels/bf16_bmk_bnk_mn.tile", "bf16_bmk_bnk_mn")],
    # DeepGEMM's fp8_mqa_logits: its params are the problem's (_mqa.py).
    "mqa_logits": [("lib/Kernels/mqa_logits.tile", "mqa_logits")],
    # DeepGEMM's fp8_paged_mqa_logits (decode): the problem's params too
    # (_paged_mqa.py).
    "paged_mqa_logits": [("lib/Kernels/paged_mqa_logits.tile", "paged_mqa_logits")],
    # K-grouped BF16 in one launch (_kgrouped.one_launch_bf16): default
    # params.
    "k_grouped_bf16_gemm_tn": [("lib/Kernels/k_grouped_bf16_gemm_tn.tile",
                                "k_grouped_bf16_gemm_tn")],
    # K-grouped FP8 in one launch (opt-in, _kgrouped.one_launch_fp8): A and
    # B tensor lists of up to MAX_GROUPS groups; default params.
    "k_grouped_fp8_gemm_1d1d": [("lib/Kernels/k_grouped_fp8_gemm_1d1d.tile",
                                 "k_grouped_fp8_gemm_1d1d")],
    # The expert-parallel MoE layer's token movement and combine
    # (tilec.moe): default params.
    "moe_scatter_rows": [("lib/Kernels/moe_scatter_rows.tile", "moe_scatter_rows")],
    "moe_combine": [("lib/Kernels/moe_combine.tile", "moe_combine")],
    "moe_swiglu_fp8": [("lib/Kernels/moe_swiglu_fp8.tile", "moe_swiglu_fp8")],
}


def family(name: str) -> Family:
    """The family `name`, or NotImplementedError naming what is missing."""
    found = FAMILIES.get(name)
    if found is None:
        raise NotImplementedError(
            f"tilec has no kernel family {name!r} yet (it has: "
            f"{', '.join(sorted(FAMILIES))})")
    return found


def spec_path(relative: str) -> str:
    for root in _ROOTS:
        candidate = os.path.join(root, relative)
        if os.path.isfile(candidate):
            return candidate
    raise FileNotFoundError(
        f"spec {relative} is neither in the installed package ({_ROOTS[0]}) "
        f"nor in a source checkout ({_ROOTS[1]})")


@functools.lru_cache(maxsize=None)
def spec_text(relative: str) -> str:
    with open(spec_path(relative), encoding="utf-8") as f:
        return f.read()


FAMILIES = {name: found for name, found in
            ((name, _family(name, candidates))
             for name, candidates in _CANDIDATES.items()) if found is not None}

"""The kernel families tilec.deep_gemm launches, and where their specs are.

A family is one parameterised spec and the kernel in it; its config
(_configs.choose) sets the spec's params with -D. Specs are read from the
installed package (tilec/specs/<path>, put there by python/CMakeLists.txt)
or from the source checkout around this file.
"""

import functools
import os
from typing import NamedTuple, Tuple

_HERE = os.path.dirname(os.path.abspath(__file__))
_ROOTS = (os.path.join(_HERE, "specs"), os.path.normpath(os.path.join(_HERE, "..", "..")))


class Family(NamedTuple):
    name: str
    #: The spec's path relative to the repository root.
    spec: str
    #: The kernel's entry name in the spec.
    kernel: str
    #: D dtypes the spec writes (its OUT param, when it has one).
    outputs: Tuple[str, ...]
    #: Whether the spec can add to D (param ACCUMULATE).
    accumulates: bool


# BF16: examples/hopper/06 (B [N, K]) and 07 (B [K, N]) are the measured
# BF16 kernels (bench/results/2026-11-29-hopper-gemm-ladder.md,
# 2026-12-01-wgmma-majors-scale-d.md); they write bf16 and do not
# accumulate. No spec reads A MN-major yet (DeepGEMM's TN and TT).
FAMILIES = {
    family.name: family for family in (
        Family("bf16_gemm_nt", "examples/hopper/06_fastest.tile",
               "hopper_fastest", ("bf16",), False),
        Family("bf16_gemm_nn", "examples/hopper/07_nn_gemm.tile",
               "hopper_nn_gemm", ("bf16",), False),
        Family("fp8_gemm_1d2d", "lib/Kernels/fp8_gemm_1d2d.tile",
               "fp8_gemm_1d2d", ("bf16", "f32"), True),
        Family("fp8_gemm_1d1d", "lib/Kernels/fp8_gemm_1d1d.tile",
               "fp8_gemm_1d1d", ("bf16", "f32"), True),
    )
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

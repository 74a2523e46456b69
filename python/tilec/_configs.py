"""Problem shape -> kernel parameters, and why.

choose(family, m, n, k, out=..., accumulate=..., num_sms=...) returns the
-D defines of the family's spec and a one-line reason. A small table from
the measurements, until the compiler library's config functions (lib/Kernels,
C++) take over; the real heuristic is issue 13's work.

- FP8 (lib/Kernels/fp8_gemm_1d2d.tile, fp8_gemm_1d1d.tile): docs/kernels.md
  "Recommended configurations" and bench/results/2026-12-01-fp8-gemm.md:
  128x128 on large shapes (the best tile there, 0.73-0.86x DeepGEMM),
  64-row tiles for M <= 64, 64x128 at M = 128, N = 7168 (1.06x / 0.98x
  DeepGEMM in runs 1-2), 64x32 at M = 128, N = 2112 (run 1's best). Tiles
  are picked by wave efficiency on the SM count, ties going to the larger
  tile and then the wider N.
- BF16 (examples/hopper/06_fastest.tile, 07_nn_gemm.tile): 128x256 with 3
  stages where it fills the GPU (bench/results/2026-11-29-hopper-gemm-
  ladder.md: 1.00-1.02x cuBLAS at 8192^3), else 128x128 or 128x64 with as
  many stages as fit (2026-12-01-epilogue-example.md: 128x64 tiles win at
  M = 128).

TILEC_PRINT_CONFIGS=1 prints each choice and its reason to stderr.
"""

import functools
import os
import sys
from typing import Tuple

# Dynamic shared memory per CTA on sm_90a (227 KiB).
SMEM_BYTES = 232448
# Slack for the allocator's 1024-byte alignment of swizzled buffers.
SMEM_SLACK = 1024
# Wave efficiencies closer than this count as a tie.
TIE = 0.02

Defines = Tuple[Tuple[str, str], ...]


def ceil_div(x: int, y: int) -> int:
    return (x + y - 1) // y


def wave_efficiency(tiles: int, num_sms: int) -> float:
    """Busy fraction of the SMs over the waves a persistent grid needs."""
    if tiles == 0:
        return 1.0
    return tiles / (ceil_div(tiles, num_sms) * num_sms)


def _best_tile(m: int, n: int, candidates, num_sms: int):
    """The (block_m, block_n) of `candidates` with the best wave
    efficiency; near-ties go to the larger tile, then the wider N."""
    def score(tile):
        bm, bn = tile
        return wave_efficiency(ceil_div(m, bm) * ceil_div(n, bn), num_sms)
    best = max(score(t) for t in candidates)
    tied = [t for t in candidates if score(t) >= best - TIE]
    return max(tied, key=lambda t: (t[0] * t[1], t[1])), score


def _fp8(family: str, m: int, n: int, out: str, accumulate: bool,
         num_sms: int):
    if family == "fp8_gemm_1d1d":
        # The weight-gradient kernel: 128x128 (docs/kernels.md), 64 rows for
        # a single token block.
        candidates = [(64 if m <= 64 else 128, 128)]
    elif m <= 64:
        candidates = [(64, bn) for bn in (16, 32, 64, 128)]
    elif m <= 256:
        candidates = [(bm, bn) for bm in (64, 128) for bn in (16, 32, 64, 128)]
    else:
        # Large M: 128-row tiles; narrower N only to fill the last wave.
        candidates = [(128, bn) for bn in (32, 64, 128)]
    (bm, bn), score = _best_tile(m, n, candidates, num_sms)
    defines = {"BLK_M": bm, "BLK_N": bn, "OUT": out,
               "ACCUMULATE": int(accumulate)}
    return defines, bm, bn, score((bm, bn))


def _bf16_stages(block_m: int, block_n: int, block_k: int = 64) -> int:
    stage = (block_m + block_n) * block_k * 2 + 16  # A, B tiles, 2 barriers
    output = block_m * block_n * 2
    return min(8, (SMEM_BYTES - SMEM_SLACK - output) // stage)


def _bf16(m: int, n: int, num_sms: int):
    tiles_256 = ceil_div(m, 128) * ceil_div(n, 256)
    if tiles_256 >= num_sms and wave_efficiency(tiles_256, num_sms) >= 0.8:
        bn = 256
        score = wave_efficiency(tiles_256, num_sms)
    else:
        (_, bn), by_tile = _best_tile(m, n, [(128, 128), (128, 64)], num_sms)
        score = by_tile((128, bn))
    stages = 3 if bn == 256 else _bf16_stages(128, bn)
    return {"BLK_N": bn, "STAGES": stages}, 128, bn, score


@functools.lru_cache(maxsize=4096)
def choose(family: str, m: int, n: int, k: int, *, out: str = "bf16",
           accumulate: bool = False, num_sms: int = 132) -> Tuple[Defines, str]:
    """(-D defines, reason) for one problem of `family`."""
    if family.startswith("fp8_gemm_"):
        defines, bm, bn, score = _fp8(family, m, n, out, accumulate, num_sms)
        source = "docs/kernels.md, bench/results/2026-12-01-fp8-gemm.md"
    elif family.startswith("bf16_gemm_"):
        defines, bm, bn, score = _bf16(m, n, num_sms)
        source = ("bench/results/2026-11-29-hopper-gemm-ladder.md, "
                  "2026-12-01-epilogue-example.md")
    else:
        raise NotImplementedError(f"tilec has no configs for family {family!r}")
    tiles = ceil_div(m, bm) * ceil_div(n, bn)
    reason = (f"{family} M={m} N={n} K={k} out={out}"
              f"{' D+=' if accumulate else ''} on {num_sms} SMs: {bm}x{bn} "
              f"tiles, {tiles} tiles in {ceil_div(tiles, num_sms)} wave(s), "
              f"{score:.0%} busy ({source})")
    result = tuple(sorted((name, str(value)) for name, value in defines.items()))
    if os.environ.get("TILEC_PRINT_CONFIGS", "") not in ("", "0"):
        flags = " ".join(f"-D {k}={v}" for k, v in result)
        print(f"tilec: config {flags}: {reason}", file=sys.stderr)
    return result, reason

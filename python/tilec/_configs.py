"""Problem shape -> kernel parameters, and why.

choose(family, m, n, k, out=..., accumulate=..., num_sms=...) returns the
-D defines of the family's spec and a one-line reason. A small model fitted
to the measurements, until the compiler library's config functions
(lib/Kernels, C++) take over; the real heuristic is issue 13's work.

Two regimes, both on a persistent grid of `num_sms` CTAs:
- M <= 256 (memory-bound): a tile costs about the bytes it loads, so the
  time is waves * (BLOCK_M + BLOCK_N); ties go to more tiles, then to the
  wider N. This reproduces the measured winners of
  bench/results/2026-12-01-fp8-gemm.md (FP8 1D2D: 64x128 at 128x7168x16384,
  1.06x / 0.98x DeepGEMM in runs 1-2; 64x32 at 128x2112x7168, run 1's best)
  and docs/kernels.md's M = 1 rows; and for BF16, 128x64 tiles at M = 128
  (2026-12-01-epilogue-example.md).
- M > 256 (compute-bound): the busy fraction of the waves times the tile's
  measured throughput relative to the largest tile: FP8 128x128 1.0, 128x64
  0.72 (run 2 at 4096^3: 796 against 1101 TFLOP/s), 128x32 0.5 (not
  measured); BF16 128x256 1.0 (2026-11-29-hopper-gemm-ladder.md, 1.00-1.02x
  cuBLAS at 8192^3), 128x128 0.75 (2026-11-29-tuning-notes.md: 0.73 / 0.77
  against 0.99 / 1.04), 128x64 0.5 (not measured).

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
# Below this M a GEMM is bound by loading its operands.
MEMORY_BOUND_M = 256

# Relative throughput of a tile on large problems (see above).
FP8_TILE_SPEED = {(128, 128): 1.0, (128, 64): 0.72, (128, 32): 0.5}
BF16_TILE_SPEED = {(128, 256): 1.0, (128, 128): 0.75, (128, 64): 0.5}

Defines = Tuple[Tuple[str, str], ...]


def ceil_div(x: int, y: int) -> int:
    return (x + y - 1) // y


def wave_efficiency(tiles: int, num_sms: int) -> float:
    """Busy fraction of the SMs over the waves a persistent grid needs."""
    if tiles == 0:
        return 1.0
    return tiles / (ceil_div(tiles, num_sms) * num_sms)


def _tiles(m: int, n: int, tile) -> int:
    return ceil_div(m, tile[0]) * ceil_div(n, tile[1])


def _memory_bound_tile(m: int, n: int, candidates, num_sms: int):
    """The tile with the fewest bytes loaded per SM: waves * (BM + BN)."""
    def cost(tile):
        tiles = _tiles(m, n, tile)
        return (ceil_div(tiles, num_sms) * (tile[0] + tile[1]), -tiles, -tile[1])
    return min(candidates, key=cost)


def _compute_bound_tile(m: int, n: int, speeds, num_sms: int):
    """The tile with the best busy fraction times relative throughput."""
    return max(speeds, key=lambda tile: (
        wave_efficiency(_tiles(m, n, tile), num_sms) * speeds[tile], tile[1]))


def _fp8(family: str, m: int, n: int, num_sms: int):
    if family == "fp8_gemm_1d1d":
        # The weight-gradient kernel: 128x128 (docs/kernels.md), 64 rows for
        # a single token block.
        return (64 if m <= 64 else 128, 128)
    if m <= 64:
        candidates = [(64, bn) for bn in (16, 32, 64, 128)]
    elif m <= MEMORY_BOUND_M:
        candidates = [(bm, bn) for bm in (64, 128) for bn in (16, 32, 64, 128)]
    else:
        return _compute_bound_tile(m, n, FP8_TILE_SPEED, num_sms)
    return _memory_bound_tile(m, n, candidates, num_sms)


def _bf16_stages(block_m: int, block_n: int, out_bytes: int = 2,
                 block_k: int = 64) -> int:
    stage = (block_m + block_n) * block_k * 2 + 16  # A, B tiles, 2 barriers
    output = block_m * block_n * out_bytes
    return min(8, (SMEM_BYTES - SMEM_SLACK - output) // stage)


def _bf16(m: int, n: int, out: str, num_sms: int):
    # BLOCK_M is 128: the specs' two consumer warpgroups of 64 rows. An f32
    # output tile of 128x256 would leave room for 2 stages only.
    speeds = {tile: speed for tile, speed in BF16_TILE_SPEED.items()
              if out == "bf16" or tile[1] < 256}
    if m <= MEMORY_BOUND_M:
        return _memory_bound_tile(m, n, list(speeds), num_sms)
    return _compute_bound_tile(m, n, speeds, num_sms)


@functools.lru_cache(maxsize=4096)
def choose(family: str, m: int, n: int, k: int, *, out: str = "bf16",
           accumulate: bool = False, num_sms: int = 132) -> Tuple[Defines, str]:
    """(-D defines, reason) for one problem of `family`."""
    if family.startswith("fp8_gemm_"):
        bm, bn = _fp8(family, m, n, num_sms)
        defines = {"BLK_M": bm, "BLK_N": bn, "OUT": out,
                   "ACCUMULATE": int(accumulate)}
    elif family.startswith("bf16_gemm_"):
        bm, bn = _bf16(m, n, out, num_sms)
        stages = 3 if bn == 256 else _bf16_stages(bm, bn, 4 if out == "f32" else 2)
        defines = {"BLK_N": bn, "STAGES": stages}
        # Only when not the default: the examples that stand in for the
        # library's BF16 specs have neither param.
        if out != "bf16":
            defines["OUT"] = out
        if accumulate:
            defines["ACCUMULATE"] = 1
    else:
        raise NotImplementedError(f"tilec has no configs for family {family!r}")
    tiles = _tiles(m, n, (bm, bn))
    regime = "memory-bound" if m <= MEMORY_BOUND_M else "compute-bound"
    score = wave_efficiency(tiles, num_sms)
    reason = (f"{family} M={m} N={n} K={k} out={out}"
              f"{' D+=' if accumulate else ''} on {num_sms} SMs: {bm}x{bn} "
              f"tiles, {tiles} tiles in {ceil_div(tiles, num_sms)} wave(s), "
              f"{score:.0%} busy, {regime} (tilec/_configs.py)")
    result = tuple(sorted((name, str(value)) for name, value in defines.items()))
    if os.environ.get("TILEC_PRINT_CONFIGS", "") not in ("", "0"):
        flags = " ".join(f"-D {k}={v}" for k, v in result)
        print(f"tilec: config {flags}: {reason}", file=sys.stderr)
    return result, reason

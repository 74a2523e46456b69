//===- TensorMemory.h - tcgen05 tensor-memory helpers -----------*- C++ -*-===//
//
// Part of tilec. TileSupport is compiler-only: LLVM Support, no MLIR or CUDA.
//
//===----------------------------------------------------------------------===//
//
// Tensor memory (sm_100a) is 128 lanes x 512 columns of 32-bit cells per SM.
// tcgen05.alloc hands out a power of two of columns, at least 32 and at most
// 512 (CUTLASS tmem_allocator_sm100.hpp). Warp w of a warpgroup may only
// access lanes 32*(w%4) .. 32*(w%4)+31 (PTX "Tensor Memory access
// restrictions"). With .32x32b a warp reads 32 lanes and .num consecutive
// 32-bit columns: thread i gets lane base+i and register j column base+j
// (PTX "Matrix fragments for shape .32x32b"). For the accumulator of a
// tcgen05.mma with M = 128 (cta_group::1), or each CTA's half of M = 256
// (cta_group::2), row r of D is lane r and column n (f32) is column n.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_SUPPORT_TENSORMEMORY_H
#define TILEC_SUPPORT_TENSORMEMORY_H

#include "llvm/Support/Error.h"

#include <cstdint>

namespace tilec {

/// Columns of tensor memory per SM.
constexpr uint32_t TmemColumns = 512;
/// Lanes of tensor memory per SM.
constexpr uint32_t TmemLanes = 128;

/// Columns to pass to tcgen05.alloc for \p NeededColumns 32-bit columns: the
/// next power of two that is at least 32; an error for 0 or above 512. Why:
/// any other count faults at run time.
llvm::Expected<uint32_t> tmemAllocColumns(uint32_t NeededColumns);

/// Tensor-memory address of (Lane, Column): lane in bits 16-31, column in
/// bits 0-15. Why: tcgen05.ld / .st / .mma take this 32-bit address.
uint32_t tmemAddress(uint32_t Lane, uint32_t Column);

/// First lane that warp \p WarpId may access: 32 * (WarpId % 4). Why: each
/// warp of a warpgroup reads its own quarter of the accumulator.
uint32_t tmemWarpLaneBase(uint32_t WarpId);

/// How a warpgroup reads a 128 x N f32 accumulator with tcgen05.ld.32x32b.
struct TmemLoadPlan {
  /// The .num of each load (.32x32b.x<Num>); also registers per thread.
  uint32_t Num = 0;
  /// Loads each warp issues, at columns 0, Num, 2*Num, ...
  uint32_t LoadsPerWarp = 0;
};

/// Plans reading \p NColumns columns with \p RegsPerLoad registers per thread
/// per tcgen05.ld: .32x32b.x<RegsPerLoad>, NColumns / RegsPerLoad loads per
/// warp. RegsPerLoad must be a power of two in [1, 128] dividing NColumns.
/// Why: the epilogue trades registers against the number of loads.
llvm::Expected<TmemLoadPlan> planTcgen05Ld32x32b(uint32_t NColumns,
                                                 uint32_t RegsPerLoad);

/// A position in tensor memory.
struct TmemCoord {
  uint32_t Lane = 0;
  uint32_t Column = 0;
};

/// Lane and column that register \p Reg of thread \p ThreadInWarpgroup holds
/// after a tcgen05.ld.32x32b at column \p BaseColumn: lane 32*(warp%4) +
/// (thread%32), column BaseColumn + Reg. Why: the epilogue maps registers to
/// accumulator rows (= lanes for M = 128) and columns.
TmemCoord tcgen05Ld32x32bCoord(uint32_t ThreadInWarpgroup, uint32_t Reg,
                               uint32_t BaseColumn);

} // namespace tilec

#endif // TILEC_SUPPORT_TENSORMEMORY_H

//===- TensorMemory.cpp - tcgen05 tensor-memory helpers -------------------===//
//
// Part of tilec. TileSupport is compiler-only: LLVM Support, no MLIR or CUDA.
//
//===----------------------------------------------------------------------===//

#include "lib/Support/TensorMemory.h"
#include "lib/Support/EncodingError.h"

namespace tilec {

namespace {
bool isPowerOfTwo(uint32_t X) { return X != 0 && (X & (X - 1)) == 0; }
} // namespace

llvm::Expected<uint32_t> tmemAllocColumns(uint32_t NeededColumns) {
  if (NeededColumns == 0)
    return encodingError("tensor memory allocation of 0 columns");
  if (NeededColumns > TmemColumns)
    return encodingError("tensor memory allocation of {0} columns exceeds the "
                         "{1} columns of an sm",
                         NeededColumns, TmemColumns);
  uint32_t Columns = 32;
  while (Columns < NeededColumns)
    Columns *= 2;
  return Columns;
}

uint32_t tmemAddress(uint32_t Lane, uint32_t Column) {
  return (Lane << 16) | (Column & 0xFFFFu);
}

uint32_t tmemWarpLaneBase(uint32_t WarpId) { return 32 * (WarpId % 4); }

llvm::Expected<TmemLoadPlan> planTcgen05Ld32x32b(uint32_t NColumns,
                                                 uint32_t RegsPerLoad) {
  if (!isPowerOfTwo(RegsPerLoad) || RegsPerLoad > 128)
    return encodingError(
        "tcgen05.ld.32x32b needs .num a power of two in [1, 128], got {0}",
        RegsPerLoad);
  if (NColumns == 0 || NColumns % RegsPerLoad != 0)
    return encodingError("cannot read {0} columns with loads of {1} columns",
                         NColumns, RegsPerLoad);
  TmemLoadPlan Plan;
  Plan.Num = RegsPerLoad;
  Plan.LoadsPerWarp = NColumns / RegsPerLoad;
  return Plan;
}

TmemCoord tcgen05Ld32x32bCoord(uint32_t ThreadInWarpgroup, uint32_t Reg,
                               uint32_t BaseColumn) {
  TmemCoord C;
  C.Lane = tmemWarpLaneBase(ThreadInWarpgroup / 32) + ThreadInWarpgroup % 32;
  C.Column = BaseColumn + Reg;
  return C;
}

} // namespace tilec

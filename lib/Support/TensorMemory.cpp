//===- TensorMemory.cpp - tcgen05 tensor-memory helpers -------------------===//
//
// Part of tilec. TileSupport is plain C++17: no LLVM, MLIR or CUDA headers.
//
//===----------------------------------------------------------------------===//

#include "lib/Support/TensorMemory.h"

namespace tilec {

namespace {
bool isPowerOfTwo(uint32_t X) { return X != 0 && (X & (X - 1)) == 0; }
} // namespace

Outcome<uint32_t> tmemAllocColumns(uint32_t NeededColumns) {
  if (NeededColumns == 0)
    return Outcome<uint32_t>::failure("tensor memory allocation of 0 columns");
  if (NeededColumns > TmemColumns)
    return Outcome<uint32_t>::failure(formatMessage(
        "tensor memory allocation of ", NeededColumns, " columns exceeds the ",
        TmemColumns, " columns of an sm"));
  uint32_t Columns = 32;
  while (Columns < NeededColumns)
    Columns *= 2;
  return Columns;
}

uint32_t tmemAddress(uint32_t Lane, uint32_t Column) {
  return (Lane << 16) | (Column & 0xFFFFu);
}

uint32_t tmemWarpLaneBase(uint32_t WarpId) { return 32 * (WarpId % 4); }

Outcome<TmemLoadPlan> planTcgen05Ld32x32b(uint32_t NColumns,
                                          uint32_t RegsPerLoad) {
  using Result = Outcome<TmemLoadPlan>;
  if (!isPowerOfTwo(RegsPerLoad) || RegsPerLoad > 128)
    return Result::failure(formatMessage(
        "tcgen05.ld.32x32b needs .num a power of two in [1, 128], got ",
        RegsPerLoad));
  if (NColumns == 0 || NColumns % RegsPerLoad != 0)
    return Result::failure(formatMessage("cannot read ", NColumns,
                                         " columns with loads of ", RegsPerLoad,
                                         " columns"));
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

//===- HoistInnermostInvariants.cpp - LICM on innermost scf.for loops -----===//

#include "lib/Transforms/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEHOISTINNERMOSTINVARIANTS
#include "lib/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;

namespace {

/// Whether `loop` contains no other scf.for.
bool isInnermost(scf::ForOp loop) {
  return !loop.getBody()
              ->walk([](scf::ForOp) { return WalkResult::interrupt(); })
              .wasInterrupted();
}

/// A load of memory the kernel never writes (`invariant`: tile.load's `nc`,
/// set where the kernel writes no part of the tensor) from a guarded
/// address (a select between the element and __tile_zeros, so any address
/// it can take is valid memory). Its value is the same on every iteration,
/// and reading it before a loop that runs no iteration reads valid memory,
/// so it can leave the loop like a pure op: mqa_logits' window bounds, read
/// per query and key block, are read once per query block instead.
bool isHoistableInvariantLoad(Operation *op) {
  auto load = dyn_cast<LLVM::LoadOp>(op);
  return load && load.getInvariant() && !load.getVolatile_() &&
         load.getOrdering() == LLVM::AtomicOrdering::not_atomic &&
         load.getAddr().getDefiningOp<LLVM::SelectOp>();
}

struct HoistInnermostInvariantsPass
    : public tile::impl::TileHoistInnermostInvariantsBase<
          HoistInnermostInvariantsPass> {
  void runOnOperation() override {
    // Only innermost loops: hoisting the epilogue's addressing out of the
    // tile loop as well made straight-line blocks on which NVPTX's
    // straight-line strength reduction took seconds.
    getOperation().walk([](scf::ForOp loop) {
      if (!isInnermost(loop))
        return;
      auto loopLike = cast<LoopLikeOpInterface>(loop.getOperation());
      moveLoopInvariantCode(
          loopLike.getLoopRegions(),
          [&](Value value, Region *) {
            return loopLike.isDefinedOutsideOfLoop(value);
          },
          [&](Operation *op, Region *) {
            return (isMemoryEffectFree(op) && isSpeculatable(op)) ||
                   isHoistableInvariantLoad(op);
          },
          [&](Operation *op, Region *) { loopLike.moveOutOfLoop(op); });
    });
  }
};

} // namespace

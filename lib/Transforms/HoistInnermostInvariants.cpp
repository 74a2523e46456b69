//===- HoistInnermostInvariants.cpp - LICM on innermost scf.for loops -----===//

#include "lib/Transforms/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
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

struct HoistInnermostInvariantsPass
    : public tile::impl::TileHoistInnermostInvariantsBase<
          HoistInnermostInvariantsPass> {
  void runOnOperation() override {
    // Only innermost loops: hoisting the epilogue's addressing out of the
    // tile loop as well made straight-line blocks on which NVPTX's
    // straight-line strength reduction took seconds.
    getOperation().walk([](scf::ForOp loop) {
      if (isInnermost(loop))
        moveLoopInvariantCode(cast<LoopLikeOpInterface>(loop.getOperation()));
    });
  }
};

} // namespace

//===- AssignNamedBarriers.cpp - ids for warpgroup-scoped syncs ----------===//

#include "lib/Transforms/Passes.h"

#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "tile-assign-named-barriers"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEASSIGNNAMEDBARRIERS
#include "lib/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

struct AssignNamedBarriersPass
    : public tile::impl::TileAssignNamedBarriersBase<AssignNamedBarriersPass> {
  void runOnOperation() override {
    Builder b(&getContext());
    // Barrier 0 is bar.sync 0, the CTA barrier. Warpgroup w uses 1 + w
    // (at most 8 warpgroups, so ids stay below 16):
    // warpgroups running the same code never share a counter, and one
    // warpgroup's successive syncs reuse its barrier safely because all of
    // its 128 threads pass them in the same order.
    getOperation().walk([&](SyncOp sync) {
      if (sync.getScope() == SyncScope::warpgroup && !sync.getBarrierId()) {
        LLVM_DEBUG(llvm::dbgs() << "named barrier 1 (+ warpgroup id) for "
                                << sync.getLoc() << "\n");
        sync.setBarrierIdAttr(b.getI64IntegerAttr(1));
      }
    });
  }
};

} // namespace

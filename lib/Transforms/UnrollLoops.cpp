//===- UnrollLoops.cpp - unroll the scf.for loops marked tile.unroll ------===//

#include "lib/Transforms/Passes.h"
#include "lib/Transforms/ScfUnroll.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEUNROLLLOOPS
#include "lib/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;

namespace {

struct UnrollLoopsPass
    : public tile::impl::TileUnrollLoopsBase<UnrollLoopsPass> {
  void runOnOperation() override {
    tile::TileDialect::UnrollAttrHelper unroll(&getContext());
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) {
      if (unroll.isAttrPresent(loop))
        loops.push_back(loop);
    });
    // Inner loops first (the walk is post-order), so that an outer loop
    // repeats its already unrolled inner ones.
    for (scf::ForOp loop : loops) {
      uint64_t factor = unroll.getAttr(loop).getInt();
      unroll.removeAttr(loop);
      // The unroller computes the trip count unsigned, which is wrong for a
      // loop whose bound lies below its start (it runs no iteration, but
      // the remainder loop would): clamp the bound to the start first.
      if (!getConstantIntValue(loop.getUpperBound()) ||
          !getConstantIntValue(loop.getLowerBound())) {
        OpBuilder builder(loop);
        loop.setUpperBound(arith::MaxSIOp::create(builder, loop.getLoc(),
                                                  loop.getUpperBound(),
                                                  loop.getLowerBound()));
      }
      if (failed(tilec::unrollScfFor(loop, factor))) {
        loop.emitError("cannot unroll this loop by ") << factor;
        return signalPassFailure();
      }
    }
  }
};

} // namespace

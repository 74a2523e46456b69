//===- TestAhead.cpp - test the next iteration's barrier during the MMA --===//
//
// A K loop waits at its top for the stage the next block reads. The wait is
// an mbarrier try_wait whose result a branch needs at once, so its latency
// is exposed once per iteration, and no compiler moves it across the loop's
// back edge. tile-test-ahead takes the test into the previous iteration: it
// computes the stage and phase the next iteration will wait for, tests them
// (tile.barrier.test) while this iteration's MMA runs, and carries the
// result to the wait as `unless %ready`. A wait whose test saw the phase
// complete spins no more; one whose test did not waits as before, so the
// transformation is correct whatever the timing (docs/passes.md).
//
//===----------------------------------------------------------------------===//

#include "lib/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILETESTAHEAD
#include "lib/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// Rebuilds values of a loop body at one insertion point: `current` as they
/// are in this iteration, `next` as they will be in the next one. Only pure
/// ops are cloned; anything else (a load, a wait's result) fails, and the
/// loop is left as it is.
class IterationValues {
public:
  IterationValues(scf::ForOp loop, OpBuilder &builder)
      : loop(loop), builder(builder) {}

  /// `v` in this iteration, available at the insertion point.
  Value current(Value v) {
    if (dominatesInsertion(v))
      return v;
    if (Value known = currentMap.lookupOrNull(v))
      return known;
    return rebuild(v, /*nextIteration=*/false);
  }

  /// `v` in the next iteration, computed at the insertion point from this
  /// iteration's values.
  Value next(Value v) {
    if (!loop.getRegion().isAncestor(v.getParentRegion()))
      return v; // defined outside the loop: the same in every iteration
    if (Value known = nextMap.lookupOrNull(v))
      return known;
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      if (arg.getOwner() != loop.getBody())
        return {};
      Value result;
      if (arg == loop.getInductionVar()) {
        result =
            arith::AddIOp::create(builder, loop.getLoc(), arg, loop.getStep());
      } else {
        auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
        unsigned i = arg.getArgNumber() - loop.getNumInductionVars();
        result = current(yield.getOperand(i));
      }
      if (result)
        nextMap.map(v, result);
      return result;
    }
    if (v.getDefiningOp()->getBlock() != loop.getBody())
      return {};
    return rebuild(v, /*nextIteration=*/true);
  }

private:
  bool dominatesInsertion(Value v) {
    Block *insertBlock = builder.getInsertionBlock();
    if (auto arg = dyn_cast<BlockArgument>(v))
      return arg.getOwner()->getParent()->isAncestor(insertBlock->getParent());
    Operation *def = v.getDefiningOp();
    if (def->getBlock() != insertBlock)
      return def->getBlock()->getParent()->isAncestor(
                 insertBlock->getParent()) &&
             !loop.getRegion().isAncestor(def->getParentRegion());
    return builder.getInsertionPoint() == insertBlock->end() ||
           def->isBeforeInBlock(&*builder.getInsertionPoint());
  }

  /// A clone of `v`'s pure, region-free defining op on the operands'
  /// current or next values; null for anything else.
  Value rebuild(Value v, bool nextIteration) {
    Operation *def = v.getDefiningOp();
    if (!def || !isMemoryEffectFree(def) || def->getNumRegions() != 0)
      return {};
    IRMapping operandMap;
    for (Value operand : def->getOperands()) {
      Value value = nextIteration ? next(operand) : current(operand);
      if (!value)
        return {};
      operandMap.map(operand, value);
    }
    Operation *copy = builder.clone(*def, operandMap);
    IRMapping &map = nextIteration ? nextMap : currentMap;
    for (auto [from, to] : llvm::zip(def->getResults(), copy->getResults()))
      map.map(from, to);
    return map.lookup(v);
  }

  scf::ForOp loop;
  OpBuilder &builder;
  IRMapping currentMap, nextMap;
};

/// The first tile.gemm_wait after `wait` in its block: where the test goes,
/// so that its latency overlaps the MMA the wait stands for.
Operation *mmaWaitAfter(BarrierWaitOp wait) {
  for (Operation *op = wait->getNextNode(); op; op = op->getNextNode())
    if (isa<GemmWaitOp>(op))
      return op;
  return nullptr;
}

/// Whether `index` indexes `barrier` in range whatever its value: the stage
/// of a pipeline state no deeper than the array.
bool stageInRange(Value index, BarrierType barrier) {
  auto stage = index.getDefiningOp<PipelineStageOp>();
  return stage && cast<PipelineType>(stage.getState().getType()).getDepth() <=
                      barrier.getDepth();
}

/// Tests each of `loop`'s top-level barrier waits one iteration ahead.
void testAhead(scf::ForOp loop) {
  SmallVector<std::pair<BarrierWaitOp, Value>> tested;
  for (auto wait : loop.getBody()->getOps<BarrierWaitOp>()) {
    if (wait.getReady() || wait.getDebugBarrier())
      continue;
    Operation *at = mmaWaitAfter(wait);
    if (!at)
      continue;
    OpBuilder builder(at);
    IterationValues values(loop, builder);
    Value barrier = values.next(wait.getBarrier());
    Value index = barrier ? values.next(wait.getIndex()) : Value();
    Value phase = index ? values.next(wait.getPhase()) : Value();
    // Ops cloned for a wait that cannot be tested are dead: canonicalisation
    // drops them.
    if (!phase)
      continue;
    // The last iteration tests a wait that never comes: where its index
    // could lie past the array (a stage taken from the loop index, say), it
    // tests this iteration's barrier instead, so that the test reads an
    // mbarrier whatever the bounds. A pipeline state's stage is in range.
    Location loc = wait.getLoc();
    if (!stageInRange(index, cast<BarrierType>(barrier.getType()))) {
      Value nextIv = arith::AddIOp::create(builder, loc, loop.getInductionVar(),
                                           loop.getStep());
      Value exists =
          arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::slt, nextIv,
                                loop.getUpperBound());
      index =
          arith::SelectOp::create(builder, loc, exists, index, wait.getIndex());
    }
    Value ready = BarrierTestOp::create(
        builder, wait.getLoc(), builder.getI1Type(), barrier, index, phase);
    tested.push_back({wait, ready});
  }
  if (tested.empty())
    return;
  // The first iteration's waits have no test before them: ready = false.
  IRRewriter rewriter(loop.getContext());
  rewriter.setInsertionPoint(loop);
  Value no = arith::ConstantIntOp::create(rewriter, loop.getLoc(),
                                          rewriter.getI1Type(), 0);
  SmallVector<Value> inits(tested.size(), no);
  FailureOr<LoopLikeOpInterface> grown = loop.replaceWithAdditionalYields(
      rewriter, inits, /*replaceInitOperandUsesInLoop=*/false,
      [&](OpBuilder &, Location, ArrayRef<BlockArgument>) {
        return llvm::to_vector(
            llvm::map_range(tested, [](auto &pair) { return pair.second; }));
      });
  if (failed(grown))
    return;
  auto newLoop = cast<scf::ForOp>(grown->getOperation());
  ValueRange readyArgs = newLoop.getRegionIterArgs().take_back(tested.size());
  for (auto [pair, ready] : llvm::zip(tested, readyArgs))
    pair.first.getReadyMutable().assign(ready);
}

struct TestAheadPass : public tile::impl::TileTestAheadBase<TestAheadPass> {
  void runOnOperation() override {
    TileDialect::TestAheadAttrHelper marker(&getContext());
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) {
      if (marker.isAttrPresent(loop))
        loops.push_back(loop);
    });
    for (scf::ForOp loop : loops) {
      marker.removeAttr(loop);
      testAhead(loop);
    }
  }
};

} // namespace

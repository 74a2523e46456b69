//===- LowerPipelines.cpp - pipeline states become packed i32 ------------===//

#include "lib/Transforms/Passes.h"

#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "tile-lower-pipelines"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILELOWERPIPELINES
#include "lib/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

// Stage in bits 0..30, phase in bit 31: one register per state, and stage and
// phase each come out with one instruction.
constexpr int64_t kPhaseBit = int64_t(1) << 31;
constexpr int64_t kStageMask = kPhaseBit - 1;

Value constI32(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIntOp::create(b, loc, b.getI32Type(),
                                      static_cast<int32_t>(v));
}

struct InitLowering : OpConversionPattern<PipelineInitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(PipelineInitOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(
        op, constI32(rewriter, op.getLoc(), op.getPhase() ? kPhaseBit : 0));
    return success();
  }
};

struct AdvanceLowering : OpConversionPattern<PipelineAdvanceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(PipelineAdvanceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    int64_t depth = cast<PipelineType>(op.getType()).getDepth();
    Value state = adaptor.getState();
    if (depth == 1) {
      rewriter.replaceOpWithNewOp<arith::XOrIOp>(
          op, state, constI32(rewriter, loc, kPhaseBit));
      return success();
    }
    Value stage = arith::AndIOp::create(rewriter, loc, state,
                                        constI32(rewriter, loc, kStageMask));
    Value next =
        arith::AddIOp::create(rewriter, loc, stage, constI32(rewriter, loc, 1));
    Value wrap = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                       next, constI32(rewriter, loc, depth));
    // Past the last stage: back to stage 0 with the phase flipped. Adding
    // (2^31 - depth) does both at once, since the phase bit is the carry.
    Value wrapped = arith::AddIOp::create(
        rewriter, loc, state, constI32(rewriter, loc, kPhaseBit - depth + 1));
    Value plain =
        arith::AddIOp::create(rewriter, loc, state, constI32(rewriter, loc, 1));
    rewriter.replaceOpWithNewOp<arith::SelectOp>(op, wrap, wrapped, plain);
    return success();
  }
};

struct StageLowering : OpConversionPattern<PipelineStageOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(PipelineStageOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (cast<PipelineType>(op.getState().getType()).getDepth() == 1) {
      rewriter.replaceOp(op, constI32(rewriter, op.getLoc(), 0));
      return success();
    }
    rewriter.replaceOpWithNewOp<arith::AndIOp>(
        op, adaptor.getState(), constI32(rewriter, op.getLoc(), kStageMask));
    return success();
  }
};

struct PhaseLowering : OpConversionPattern<PipelinePhaseOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(PipelinePhaseOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<arith::ShRUIOp>(
        op, adaptor.getState(), constI32(rewriter, op.getLoc(), 31));
    return success();
  }
};

struct LowerPipelinesPass
    : public tile::impl::TileLowerPipelinesBase<LowerPipelinesPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    TypeConverter converter;
    converter.addConversion([](Type t) { return t; });
    converter.addConversion(
        [ctx](PipelineType) -> Type { return IntegerType::get(ctx, 32); });

    ConversionTarget target(*ctx);
    target.addIllegalOp<PipelineInitOp, PipelineAdvanceOp, PipelineStageOp,
                        PipelinePhaseOp>();
    target.markUnknownOpDynamicallyLegal([&](Operation *op) {
      return converter.isLegal(op) &&
             llvm::all_of(op->getRegions(),
                          [&](Region &r) { return converter.isLegal(&r); });
    });
    // The kernel's own signature never holds pipelines; its body does.
    target.addLegalOp<KernelOp, RoleOp, SingleThreadOp>();

    RewritePatternSet patterns(ctx);
    patterns.add<InitLowering, AdvanceLowering, StageLowering, PhaseLowering>(
        converter, ctx);
    scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                         target);
    LLVM_DEBUG(llvm::dbgs() << "pipelines of " << getOperation().getSymName()
                            << " become (stage, phase) i32 pairs\n");
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

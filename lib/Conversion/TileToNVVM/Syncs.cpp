//===- Syncs.cpp - CTA, cluster and warpgroup syncs; fences ---------------===//

#include "lib/Conversion/TileToNVVM/Common.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::lowering;

namespace {

LogicalResult lowerSync(SyncOp op, SyncOp::Adaptor,
                        ConversionPatternRewriter &rewriter) {
  Location loc = op.getLoc();
  OpBuilder &b = rewriter;
  switch (op.getScope()) {
  case SyncScope::cta:
    NVVM::Barrier0Op::create(b, loc);
    break;
  case SyncScope::cluster:
    NVVM::ClusterArriveOp::create(b, loc, b.getUnitAttr());
    NVVM::ClusterWaitOp::create(b, loc, b.getUnitAttr());
    break;
  case SyncScope::warpgroup: {
    if (!op.getBarrierId())
      return op.emitOpError(
          "has no barrier id; run tile-assign-named-barriers first");
    Value wg =
        arith::ShRUIOp::create(b, loc, threadIdx(b, loc), i32Const(b, loc, 7));
    Value id =
        arith::AddIOp::create(b, loc, wg, i32Const(b, loc, *op.getBarrierId()));
    NVVM::BarrierOp::create(b, loc, TypeRange{}, id, i32Const(b, loc, 128),
                            NVVM::BarrierReductionAttr(), Value());
    break;
  }
  }
  rewriter.eraseOp(op);
  return success();
}

LogicalResult lowerFence(FenceOp op, FenceOp::Adaptor,
                         ConversionPatternRewriter &rewriter) {
  Location loc = op.getLoc();
  MLIRContext *ctx = rewriter.getContext();
  switch (op.getKind()) {
  case FenceKind::proxy_async:
    NVVM::FenceProxyOp::create(
        rewriter, loc,
        NVVM::ProxyKindAttr::get(ctx, NVVM::ProxyKind::async_shared),
        NVVM::SharedSpaceAttr::get(ctx, NVVM::SharedSpace::shared_cta));
    break;
  case FenceKind::mbarrier_init:
    NVVM::FenceMbarrierInitOp::create(rewriter, loc);
    break;
  case FenceKind::tcgen05_before_sync:
    NVVM::Tcgen05FenceOp::create(rewriter, loc,
                                 NVVM::Tcgen05FenceKind::BEFORE_THREAD_SYNC);
    break;
  case FenceKind::tcgen05_after_sync:
    NVVM::Tcgen05FenceOp::create(rewriter, loc,
                                 NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
    break;
  }
  rewriter.eraseOp(op);
  return success();
}

} // namespace

void mlir::tile::populateTileSyncsToNVVMPatterns(LLVMTypeConverter &converter,
                                                 RewritePatternSet &patterns) {
  patterns.add<OpLowering<SyncOp, lowerSync>, OpLowering<FenceOp, lowerFence>>(
      converter);
}

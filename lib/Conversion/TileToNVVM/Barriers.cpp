//===- Barriers.cpp - shared-memory declarations and mbarriers ------------===//

#include "lib/Conversion/TileToNVVM/Common.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::lowering;

namespace {

LogicalResult lowerSmemAlloc(SmemAllocOp op, SmemAllocOp::Adaptor adaptor,
                             ConversionPatternRewriter &rewriter) {
  FailureOr<Value> address = poolAddress(op, rewriter);
  if (failed(address))
    return failure();
  rewriter.replaceOp(op, *address);
  return success();
}

/// Thread 0 initialises every barrier of the array; the setup fence and sync
/// (inserted by tile-warp-specialize) publish them.
LogicalResult lowerBarrierAlloc(BarrierAllocOp op,
                                BarrierAllocOp::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) {
  FailureOr<Value> address = poolAddress(op, rewriter);
  if (failed(address))
    return failure();
  Value base = *address;
  Location loc = op.getLoc();
  OpBuilder &b = rewriter;
  Value isFirst = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                        threadIdx(b, loc), i32Const(b, loc, 0));
  auto ifOp = scf::IfOp::create(b, loc, isFirst, false);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    Value count = i32Const(b, loc, op.getArrivals());
    int64_t depth = cast<BarrierType>(op.getType()).getDepth();
    for (int64_t i = 0; i < depth; ++i)
      NVVM::MBarrierInitOp::create(b, loc, byteGep(b, loc, base, 8 * i), count,
                                   Value());
  }
  rewriter.replaceOp(op, base);
  return success();
}

LogicalResult lowerRemoteView(BarrierRemoteViewOp op,
                              BarrierRemoteViewOp::Adaptor adaptor,
                              ConversionPatternRewriter &rewriter) {
  Location loc = op.getLoc();
  auto clusterPtr =
      LLVM::LLVMPointerType::get(rewriter.getContext(), kSharedClusterSpace);
  rewriter.replaceOpWithNewOp<NVVM::MapaOp>(
      op, clusterPtr, adaptor.getBarrier(),
      i32Const(rewriter, loc, op.getCta()));
  return success();
}

LogicalResult lowerArrive(BarrierArriveOp op, BarrierArriveOp::Adaptor adaptor,
                          ConversionPatternRewriter &rewriter) {
  Location loc = op.getLoc();
  Value bar =
      barrierAt(rewriter, loc, adaptor.getBarrier(), adaptor.getIndex());
  // CTA scope even for a peer's barrier (as CUTLASS's ClusterBarrier does):
  // a cluster-scope release fences every prior write of the thread first,
  // which stalled the multicast GEMM's consumers by a third of their time,
  // and the arrivals here publish no data of their own.
  auto scope = NVVM::MemScopeKind::CTA;
  Value pred = adaptor.getPred();
  // mbarrier.arrive.expect_tx is the NVVM op that takes a predicate; with 0
  // bytes it is a plain arrive.
  auto bytes = [&] {
    return i32Const(rewriter, loc, op.getExpectTx().value_or(0));
  };
  if (!pred && !op.getExpectTx()) {
    NVVM::MBarrierArriveOp::create(rewriter, loc, Type(), bar, Value(), scope,
                                   /*relaxed=*/false);
  } else if (pred && cast<BarrierType>(op.getBarrier().getType()).getRemote()) {
    // Inline PTX: LLVM 22's op takes no predicate with a shared::cluster
    // pointer (and its generic form would read the peer's address as a
    // generic one).
    Value flag =
        arith::ExtUIOp::create(rewriter, loc, rewriter.getI32Type(), pred);
    inlinePtx(
        rewriter, loc, {}, {sharedAddress(rewriter, loc, bar), bytes(), flag},
        "{\n.reg .pred p;\nsetp.ne.b32 p, $2, 0;\n"
        "@p mbarrier.arrive.expect_tx.shared::cluster.b64 _, [$0], $1;\n}",
        "r,r,r");
  } else {
    NVVM::MBarrierArriveExpectTxOp::create(rewriter, loc, Type(), bar, bytes(),
                                           scope, /*relaxed=*/false, pred);
  }
  rewriter.eraseOp(op);
  return success();
}

LogicalResult lowerWait(BarrierWaitOp op, BarrierWaitOp::Adaptor adaptor,
                        ConversionPatternRewriter &rewriter) {
  Location loc = op.getLoc();
  Value bar =
      barrierAt(rewriter, loc, adaptor.getBarrier(), adaptor.getIndex());
  // try_wait suspends up to this many ns per attempt (CUTLASS's value).
  NVVM::MBarrierTryWaitParityOp::create(rewriter, loc, bar, adaptor.getPhase(),
                                        i32Const(rewriter, loc, 0x989680));
  rewriter.eraseOp(op);
  return success();
}

} // namespace

void mlir::tile::populateTileBarriersToNVVMPatterns(
    LLVMTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<OpLowering<SmemAllocOp, lowerSmemAlloc>,
               OpLowering<BarrierAllocOp, lowerBarrierAlloc>,
               OpLowering<BarrierRemoteViewOp, lowerRemoteView>,
               OpLowering<BarrierArriveOp, lowerArrive>,
               OpLowering<BarrierWaitOp, lowerWait>>(converter);
}

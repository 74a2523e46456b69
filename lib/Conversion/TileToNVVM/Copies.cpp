//===- Copies.cpp - TMA copies and bulk async groups ----------------------===//

#include "lib/Conversion/TileToNVVM/Common.h"
#include "lib/Support/TmaBoxes.h"
#include "lib/Transforms/LayoutUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::lowering;

namespace {

LogicalResult lowerCopyAsync(CopyAsyncOp op, CopyAsyncOp::Adaptor adaptor,
                             ConversionPatternRewriter &rewriter) {
  Location loc = op.getLoc();
  OpBuilder &b = rewriter;
  // tile-convert-to-nvvm checked that every copy has its tensor map.
  LLVM::LLVMFuncOp func = getFunc(op);
  int64_t mapIndex = getKernelAbi(func).getParamIndex(op.getTensormapAttr());
  if (mapIndex < 0)
    return rewriter.notifyMatchFailure(op, "tensor map not in the ABI");
  Value tmap = func.getArgument(mapIndex);
  SmemType smemType = op.getSmemType();
  tilec::TmaBoxPlan plan = getCopyBoxPlan(op);
  bool load = op.isLoad();
  ValueRange smemIdx = load ? adaptor.getDstIndices() : adaptor.getSrcIndices();
  ValueRange globalIdx =
      load ? adaptor.getSrcIndices() : adaptor.getDstIndices();
  // A tensor list: the first index picks the tensor, hence its map among
  // the parameter's (128 bytes each); the others are that tensor's.
  unsigned firstCoord = 0;
  if (op.getGlobalType().isList()) {
    Value offset =
        arith::MulIOp::create(b, loc, globalIdx[0], i32Const(b, loc, 128));
    tmap = byteGep(b, loc, tmap, offset);
    firstCoord = 1;
  }
  Value smem = load ? adaptor.getDst() : adaptor.getSrc();
  Value tile = smem;
  if (Value off = tileOffset(b, loc, smemType, smemIdx))
    tile = byteGep(b, loc, smem, off);

  Value bar;
  if (load) {
    bar = barrierAt(b, loc, adaptor.getBarrier(), adaptor.getBarrierIndex());
    if (op.getCtaGroup() == 2) {
      // The 2-CTA form names the leader CTA's barrier: the local address
      // with the peer bit (bit 24) cleared.
      Value addr = sharedAddress(b, loc, bar);
      Value masked =
          arith::AndIOp::create(b, loc, addr, i32Const(b, loc, 0xFEFFFFFF));
      bar = LLVM::IntToPtrOp::create(b, loc, sharedPtrType(b.getContext()),
                                     masked);
    } else if (cast<BarrierType>(op.getBarrier().getType()).getRemote()) {
      return op.emitOpError("a remote barrier needs the 2-CTA form "
                            "(cta_group 2)");
    }
  }
  Value mask;
  if (auto m = op.getMulticast())
    mask = arith::ConstantIntOp::create(b, loc, b.getI16Type(), *m);

  unsigned rank = globalIdx.size();
  for (const tilec::TmaBox &box : plan.Boxes) {
    // TMA coordinates run innermost first.
    SmallVector<Value> coords;
    for (unsigned d = rank; d-- > firstCoord;) {
      Value c = globalIdx[d];
      if (d == rank - 1 && box.ColOffset)
        c = arith::AddIOp::create(b, loc, c, i32Const(b, loc, box.ColOffset));
      if (d == rank - 2 && box.RowOffset)
        c = arith::AddIOp::create(b, loc, c, i32Const(b, loc, box.RowOffset));
      coords.push_back(c);
    }
    Value boxSmem = byteGep(b, loc, tile, box.SmemOffset);
    if (load) {
      NVVM::CTAGroupKindAttr group;
      if (op.getCtaGroup() == 2)
        group = NVVM::CTAGroupKindAttr::get(b.getContext(),
                                            NVVM::CTAGroupKind::CTA_2);
      // The shared::cta window lies inside the shared::cluster window, so
      // the CTA's own address names its own buffer there.
      Value clusterDst = LLVM::AddrSpaceCastOp::create(
          b, loc,
          LLVM::LLVMPointerType::get(b.getContext(), kSharedClusterSpace),
          boxSmem);
      NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
          b, loc, clusterDst, tmap, coords, bar, ValueRange{}, mask, Value(),
          NVVM::TMALoadMode::TILE, /*isCTAOnly=*/false, group, Value());
    } else if (op.getReduceAdd()) {
      NVVM::CpAsyncBulkTensorReduceOp::create(
          b, loc, tmap, boxSmem, NVVM::TMAReduxKind::ADD,
          NVVM::TMAStoreMode::TILE, coords, Value());
    } else {
      NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp::create(
          b, loc, tmap, boxSmem, coords, Value(), NVVM::TMAStoreMode::TILE,
          Value());
    }
  }
  rewriter.eraseOp(op);
  return success();
}

LogicalResult lowerBulkCommit(BulkCommitOp op, BulkCommitOp::Adaptor,
                              ConversionPatternRewriter &rewriter) {
  rewriter.replaceOpWithNewOp<NVVM::CpAsyncBulkCommitGroupOp>(op);
  return success();
}

LogicalResult lowerBulkWait(BulkWaitOp op, BulkWaitOp::Adaptor,
                            ConversionPatternRewriter &rewriter) {
  rewriter.replaceOpWithNewOp<NVVM::CpAsyncBulkWaitGroupOp>(
      op, rewriter.getI32IntegerAttr(op.getPending()),
      op.getRead() ? rewriter.getUnitAttr() : UnitAttr());
  return success();
}

} // namespace

void mlir::tile::populateTileCopiesToNVVMPatterns(LLVMTypeConverter &converter,
                                                  RewritePatternSet &patterns) {
  patterns.add<OpLowering<CopyAsyncOp, lowerCopyAsync>,
               OpLowering<BulkCommitOp, lowerBulkCommit>,
               OpLowering<BulkWaitOp, lowerBulkWait>>(converter);
}

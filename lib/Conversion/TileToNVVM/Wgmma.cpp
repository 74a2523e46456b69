//===- Wgmma.cpp - wgmma (sm_90a): fence, mma_async, commit, wait ---------===//

#include "lib/Conversion/TileToNVVM/Common.h"
#include "lib/Support/Descriptors.h"
#include "lib/Transforms/LayoutUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::lowering;

namespace {

NVVM::WGMMATypes toWgmmaType(Type t) {
  if (t.isBF16())
    return NVVM::WGMMATypes::bf16;
  if (t.isF16())
    return NVVM::WGMMATypes::f16;
  if (isa<Float8E4M3FNType>(t))
    return NVVM::WGMMATypes::e4m3;
  if (isa<Float8E5M2Type>(t))
    return NVVM::WGMMATypes::e5m2;
  return NVVM::WGMMATypes::f32;
}

/// wgmma.mma_async for a register accumulator: per 64-row block and K step
/// one instruction reading both operands through descriptors.
struct WgmmaGemmLowering : ConvertOpToLLVMPattern<GemmAsyncOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(GemmAsyncOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isa<FragType>(op.getAcc().getType()))
      return rewriter.notifyMatchFailure(op, "accumulator is not a fragment");
    GemmOperands g = getGemmOperands(op, adaptor.getOperands());
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    auto frag = cast<FragType>(op.getAcc().getType());
    FailureOr<MmaTiles> tiles =
        getMmaTiles(op, tilec::wgmmaOperandDesc, "wgmma");
    if (failed(tiles))
      return failure();
    auto [aType, bType, aLayout, bLayout, aDesc, bDesc] = *tiles;
    Value aBase = mmaOperandAddress(b, loc, aType, g.a, g.aIndices, aLayout);
    Value bBase = mmaOperandAddress(b, loc, bType, g.b, g.bIndices, bLayout);

    int64_t m = frag.getShape()[0], n = frag.getShape()[1];
    int64_t k = aType.getShape().back();
    Type elem = aType.getElementType();
    int64_t kStep = getElementBytes(elem) == 1 ? 32 : 16;
    int64_t kStepBytes = kStep * getElementBytes(elem);
    int64_t regsPerBlock = n / 2;
    MLIRContext *ctx = b.getContext();
    Type f32 = b.getF32Type();
    auto blockType = LLVM::LLVMStructType::getLiteral(
        ctx, SmallVector<Type>(regsPerBlock, f32));

    SmallVector<Value> acc = g.acc;
    NVVM::WgmmaFenceAlignedOp::create(b, loc);
    auto shape = NVVM::MMAShapeAttr::get(ctx, 64, n, kStep);
    auto typeA = NVVM::WGMMATypesAttr::get(ctx, toWgmmaType(elem));
    auto typeD = NVVM::WGMMATypesAttr::get(ctx, NVVM::WGMMATypes::f32);
    auto scaleOne = NVVM::WGMMAScaleInAttr::get(ctx, NVVM::WGMMAScaleIn::one);
    auto scaleD = NVVM::WGMMAScaleOutAttr::get(ctx, NVVM::WGMMAScaleOut::one);
    auto rowLayout = NVVM::MMALayoutAttr::get(ctx, NVVM::MMALayout::row);
    auto colLayout = NVVM::MMALayoutAttr::get(ctx, NVVM::MMALayout::col);
    for (int64_t mb = 0; mb < m / 64; ++mb) {
      // The instruction takes and returns its accumulators as one struct;
      // it is built and taken apart in this block, so no struct crosses a
      // block (SelectionDAG copies a cross-block struct per element use).
      Value block = packStruct(
          b, loc, blockType,
          ArrayRef<Value>(acc).slice(mb * regsPerBlock, regsPerBlock));
      for (int64_t ks = 0; ks < k / kStep; ++ks) {
        int64_t aOff =
            tilec::logicalByteOffset(aLayout, 64 * mb, ks * kStepBytes);
        int64_t bOff = tilec::logicalByteOffset(bLayout, 0, ks * kStepBytes);
        Value descA = buildSmemDesc(b, loc, aDesc, aBase, aOff);
        Value descB = buildSmemDesc(b, loc, bDesc, bBase, bOff);
        block = NVVM::WgmmaMmaAsyncOp::create(
            b, loc, blockType, block, descA, descB, shape, typeA, typeA, typeD,
            scaleD, scaleOne, scaleOne, rowLayout, colLayout,
            NVVM::MMAIntOverflowAttr());
      }
      SmallVector<Value> blockValues = unpackStruct(b, loc, block);
      llvm::copy(blockValues, acc.begin() + mb * regsPerBlock);
    }
    replaceWithFragment(rewriter, op, acc);
    return success();
  }
};

/// A commit without a barrier closes a wgmma group (with one, it is
/// tcgen05.commit: Tcgen05.cpp).
struct WgmmaCommitLowering : ConvertOpToLLVMPattern<GemmCommitOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(GemmCommitOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (op.getBarrier())
      return rewriter.notifyMatchFailure(op, "a barrier commit is tcgen05");
    rewriter.replaceOpWithNewOp<NVVM::WgmmaGroupSyncAlignedOp>(op);
    return success();
  }
};

struct WgmmaWaitLowering : ConvertOpToLLVMPattern<GemmWaitOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(GemmWaitOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    NVVM::WgmmaWaitGroupSyncOp::create(rewriter, loc, op.getPending());
    replaceWithFragment(rewriter, op,
                        fenceRegisters(rewriter, loc, adaptor.getAcc()));
    return success();
  }
};

} // namespace

void mlir::tile::populateTileWgmmaToNVVMPatterns(LLVMTypeConverter &converter,
                                                 RewritePatternSet &patterns) {
  patterns.add<WgmmaGemmLowering, WgmmaCommitLowering, WgmmaWaitLowering>(
      converter);
}

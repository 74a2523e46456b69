//===- Wgmma.cpp - wgmma (sm_90a): fence, mma_async, commit, wait ---------===//

#include "lib/Conversion/TileToNVVM/Common.h"
#include "lib/Support/Descriptors.h"
#include "lib/Transforms/LayoutUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/BasicPtxBuilderInterface.h"
#include "mlir/IR/Matchers.h"

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

/// Position of scale-d among the values NVVM's wgmma.mma_async hands to its
/// inline PTX (the result, the accumulator struct, descriptor A, descriptor
/// B, scale-d, ...): `setp.ne.b32 p, $scale_d, 0` feeds the instruction's
/// predicate.
constexpr size_t kScaleDAsmValue = 4;

/// `mma` with its scale-d immediate replaced by the i32 register `scaleD`
/// (non-zero: accumulate): NVVM's op takes scale-d only as an attribute, so
/// its PTX is built here, by NVVM's own builder, with a register in that
/// place. Returns the accumulator struct.
FailureOr<Value> wgmmaWithScaleD(GemmAsyncOp op,
                                 ConversionPatternRewriter &rewriter,
                                 NVVM::WgmmaMmaAsyncOp mma, Value scaleD) {
  SmallVector<std::pair<Value, NVVM::PTXRegisterMod>> asmValues;
  bool manualMapping = mma.getAsmValues(rewriter, asmValues);
  auto immediate =
      asmValues.size() > kScaleDAsmValue
          ? asmValues[kScaleDAsmValue].first.getDefiningOp<LLVM::ConstantOp>()
          : LLVM::ConstantOp();
  if (!immediate)
    return op.emitOpError("internal: NVVM's wgmma.mma_async no longer passes "
                          "scale-d as PTX value ")
           << kScaleDAsmValue;
  asmValues[kScaleDAsmValue].first = scaleD;
  NVVM::PtxBuilder ptx(mma, rewriter, manualMapping);
  for (auto [value, mod] : asmValues)
    if (failed(ptx.insertValue(value, mod)))
      return op.emitOpError("internal: a wgmma operand has no PTX register");
  LLVM::InlineAsmOp asmOp = ptx.build();
  rewriter.eraseOp(mma);
  rewriter.eraseOp(immediate);
  return asmOp.getResult(0);
}

/// The byte offset, from the operand's first element, of the operand of
/// one wgmma: `mn` (M or N) and `k` in elements, stepped by TileSupport's
/// descriptor rules for the operand's major.
FailureOr<int64_t> wgmmaOperandOffset(GemmAsyncOp op,
                                      const tilec::SmemTileLayout &layout,
                                      tilec::MmaMajor major, int64_t mn,
                                      int64_t k) {
  bool kMajor = major == tilec::MmaMajor::K;
  llvm::Expected<uint32_t> advance =
      tilec::smemDescAdvance(layout, major, kMajor ? mn : k, kMajor ? k : mn);
  if (!advance)
    return op.emitOpError("cannot step the wgmma descriptor: ")
           << llvm::toString(advance.takeError());
  return int64_t(*advance) * 16;
}

/// wgmma.mma_async for a register accumulator: per 64-row block and K step
/// one instruction reading both operands through descriptors. The first K
/// step of each block takes the op's `accumulate` as scale-d (an attribute
/// when it is a constant, a register otherwise); the later ones accumulate.
LogicalResult lowerWgmmaGemm(GemmAsyncOp op, OneToNAdaptor<GemmAsyncOp> adaptor,
                             ConversionPatternRewriter &rewriter) {
  if (!isa<FragType>(op.getAcc().getType()))
    return rewriter.notifyMatchFailure(op, "accumulator is not a fragment");
  GemmOperands g = getGemmOperands(op, adaptor.getOperands());
  Location loc = op.getLoc();
  OpBuilder &b = rewriter;
  auto frag = cast<FragType>(op.getAcc().getType());
  FailureOr<MmaTiles> tiles = getMmaTiles(op, tilec::wgmmaOperandDesc, "wgmma");
  if (failed(tiles))
    return failure();
  auto [aType, bType, aLayout, bLayout, aDesc, bDesc] = *tiles;
  tilec::MmaMajor aMajor = toSupportMajor(op.getAMajor());
  tilec::MmaMajor bMajor = toSupportMajor(op.getBMajor());
  MmaOperandRef aBase =
      mmaOperandRef(b, loc, aType, g.a, g.aIndices, aLayout, aMajor);
  MmaOperandRef bBase =
      mmaOperandRef(b, loc, bType, g.b, g.bIndices, bLayout, bMajor);

  int64_t m = frag.getShape()[0], n = frag.getShape()[1];
  // K is the columns of a K-major A, the rows of an MN-major one.
  int64_t k = aMajor == tilec::MmaMajor::K ? aLayout.Cols : aLayout.Rows;
  Type elem = aType.getElementType();
  int64_t kStep = getElementBytes(elem) == 1 ? 32 : 16;
  int64_t regsPerBlock = n / 2;
  MLIRContext *ctx = b.getContext();
  Type f32 = b.getF32Type();
  auto blockType = LLVM::LLVMStructType::getLiteral(
      ctx, SmallVector<Type>(regsPerBlock, f32));

  // scale-d of the first K step: a constant, or an i32 register.
  bool firstAccumulates = true;
  Value firstScaleD;
  APInt constant;
  if (op.getAccumulate() &&
      matchPattern(op.getAccumulate(), m_ConstantInt(&constant)))
    firstAccumulates = !constant.isZero();
  else if (op.getAccumulate())
    firstScaleD = arith::ExtUIOp::create(b, loc, b.getI32Type(), g.accumulate);

  SmallVector<Value> acc = g.acc;
  NVVM::WgmmaFenceAlignedOp::create(b, loc);
  auto shape = NVVM::MMAShapeAttr::get(ctx, 64, n, kStep);
  auto typeA = NVVM::WGMMATypesAttr::get(ctx, toWgmmaType(elem));
  auto typeD = NVVM::WGMMATypesAttr::get(ctx, NVVM::WGMMATypes::f32);
  auto scaleOne = NVVM::WGMMAScaleInAttr::get(ctx, NVVM::WGMMAScaleIn::one);
  auto accumulate = NVVM::WGMMAScaleOutAttr::get(ctx, NVVM::WGMMAScaleOut::one);
  auto overwrite = NVVM::WGMMAScaleOutAttr::get(ctx, NVVM::WGMMAScaleOut::zero);
  // Row-major A and column-major B are K-major (no transpose).
  auto layoutOf = [&](tilec::MmaMajor major, NVVM::MMALayout kMajor,
                      NVVM::MMALayout mnMajor) {
    return NVVM::MMALayoutAttr::get(ctx, major == tilec::MmaMajor::K ? kMajor
                                                                     : mnMajor);
  };
  auto aLayoutAttr =
      layoutOf(aMajor, NVVM::MMALayout::row, NVVM::MMALayout::col);
  auto bLayoutAttr =
      layoutOf(bMajor, NVVM::MMALayout::col, NVVM::MMALayout::row);
  for (int64_t mb = 0; mb < m / 64; ++mb) {
    // The instruction takes and returns its accumulators as one struct;
    // it is built and taken apart in this block, so no struct crosses a
    // block (SelectionDAG copies a cross-block struct per element use).
    Value block =
        packStruct(b, loc, blockType,
                   ArrayRef<Value>(acc).slice(mb * regsPerBlock, regsPerBlock));
    for (int64_t ks = 0; ks < k / kStep; ++ks) {
      FailureOr<int64_t> aOff =
          wgmmaOperandOffset(op, aLayout, aMajor, 64 * mb, ks * kStep);
      FailureOr<int64_t> bOff =
          wgmmaOperandOffset(op, bLayout, bMajor, 0, ks * kStep);
      if (failed(aOff) || failed(bOff))
        return failure();
      Value descA = buildSmemDesc(b, loc, aDesc, aBase, *aOff);
      Value descB = buildSmemDesc(b, loc, bDesc, bBase, *bOff);
      bool first = ks == 0;
      auto mma = NVVM::WgmmaMmaAsyncOp::create(
          b, loc, blockType, block, descA, descB, shape, typeA, typeA, typeD,
          first && !firstAccumulates ? overwrite : accumulate, scaleOne,
          scaleOne, aLayoutAttr, bLayoutAttr, NVVM::MMAIntOverflowAttr());
      block = mma.getResult();
      if (first && firstScaleD) {
        FailureOr<Value> predicated =
            wgmmaWithScaleD(op, rewriter, mma, firstScaleD);
        if (failed(predicated))
          return failure();
        block = *predicated;
      }
    }
    SmallVector<Value> blockValues = unpackStruct(b, loc, block);
    llvm::copy(blockValues, acc.begin() + mb * regsPerBlock);
  }
  replaceWithFragment(rewriter, op, acc);
  return success();
}

/// A fragment with no defined value: poison registers, so nothing is
/// zeroed for a wgmma that overwrites its accumulator.
LogicalResult lowerFragUndef(FragUndefOp op, FragUndefOp::Adaptor,
                             ConversionPatternRewriter &rewriter) {
  auto frag = cast<FragType>(op.getType());
  Value poison =
      LLVM::PoisonOp::create(rewriter, op.getLoc(), frag.getElementType());
  replaceWithFragment(rewriter, op,
                      SmallVector<Value>(frag.getElementsPerThread(), poison));
  return success();
}

/// A commit without a barrier closes a wgmma group (with one, it is
/// tcgen05.commit: Tcgen05.cpp).
LogicalResult lowerWgmmaCommit(GemmCommitOp op, GemmCommitOp::Adaptor,
                               ConversionPatternRewriter &rewriter) {
  if (op.getBarrier())
    return rewriter.notifyMatchFailure(op, "a barrier commit is tcgen05");
  rewriter.replaceOpWithNewOp<NVVM::WgmmaGroupSyncAlignedOp>(op);
  return success();
}

LogicalResult lowerWgmmaWait(GemmWaitOp op, OneToNAdaptor<GemmWaitOp> adaptor,
                             ConversionPatternRewriter &rewriter) {
  Location loc = op.getLoc();
  NVVM::WgmmaWaitGroupSyncOp::create(rewriter, loc, op.getPending());
  replaceWithFragment(rewriter, op,
                      fenceRegisters(rewriter, loc, adaptor.getAcc()));
  return success();
}

} // namespace

void mlir::tile::populateTileWgmmaToNVVMPatterns(LLVMTypeConverter &converter,
                                                 RewritePatternSet &patterns) {
  patterns.add<OpLowering<GemmAsyncOp, lowerWgmmaGemm>,
               OpLowering<GemmCommitOp, lowerWgmmaCommit>,
               OpLowering<GemmWaitOp, lowerWgmmaWait>,
               OpLowering<FragUndefOp, lowerFragUndef>>(converter);
}

//===- Tcgen05.cpp - tensor memory and tcgen05 (sm_100a) ------------------===//

#include "lib/Conversion/TileToNVVM/Common.h"
#include "lib/Support/Descriptors.h"
#include "lib/Support/TensorMemory.h"
#include "lib/Transforms/LayoutUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::lowering;

namespace {

NVVM::CTAGroupKind ctaGroupKind(int64_t group) {
  return group == 2 ? NVVM::CTAGroupKind::CTA_2 : NVVM::CTAGroupKind::CTA_1;
}

/// Tensor memory travels as its i32 address; the NVVM ops take it as a
/// tensor-memory pointer (32 bits too: the conversion is free).
Value tmemPointer(OpBuilder &b, Location loc, Value address) {
  return LLVM::IntToPtrOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext(), kTensorSpace),
      address);
}

/// Runs `body` on warp 0 of the CTA.
template <typename Fn> void onWarpZero(OpBuilder &b, Location loc, Fn body) {
  Value warp =
      arith::ShRUIOp::create(b, loc, threadIdx(b, loc), i32Const(b, loc, 5));
  Value isZero = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, warp,
                                       i32Const(b, loc, 0));
  auto ifOp = scf::IfOp::create(b, loc, isZero, false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  body();
}

int64_t tmemColumns(Type type) {
  int64_t cols = cast<TmemType>(type).getShape()[1];
  return llvm::expectedToOptional(tilec::tmemAllocColumns(cols)).value_or(512);
}

LogicalResult lowerTmemAlloc(TmemAllocOp op, TmemAllocOp::Adaptor,
                             ConversionPatternRewriter &rewriter) {
  FailureOr<Value> slot = poolAddress(op, rewriter);
  if (failed(slot))
    return failure();
  Location loc = op.getLoc();
  OpBuilder &b = rewriter;
  int64_t cols = tmemColumns(op.getType());
  auto group = ctaGroupKind(op.getCtaGroup());
  onWarpZero(b, loc, [&] {
    NVVM::Tcgen05AllocOp::create(b, loc, *slot, i32Const(b, loc, cols), group);
  });
  // The address is read after the setup sync (tile.tmem_address).
  rewriter.replaceOp(op, i32Const(b, loc, 0));
  return success();
}

LogicalResult lowerTmemAddress(TmemAddressOp op, TmemAddressOp::Adaptor,
                               ConversionPatternRewriter &rewriter) {
  FailureOr<Value> slot = poolAddress(op, rewriter, "slot");
  if (failed(slot))
    return failure();
  rewriter.replaceOpWithNewOp<LLVM::LoadOp>(op, rewriter.getI32Type(), *slot);
  return success();
}

LogicalResult lowerTmemDealloc(TmemDeallocOp op, TmemDeallocOp::Adaptor adaptor,
                               ConversionPatternRewriter &rewriter) {
  Location loc = op.getLoc();
  OpBuilder &b = rewriter;
  auto groupAttr = op->getAttrOfType<IntegerAttr>("cta_group");
  auto group = ctaGroupKind(groupAttr ? groupAttr.getInt() : 1);
  int64_t cols = tmemColumns(op.getTmem().getType());
  onWarpZero(b, loc, [&] {
    NVVM::Tcgen05RelinquishAllocPermitOp::create(b, loc, group);
    NVVM::Tcgen05DeallocOp::create(b, loc,
                                   tmemPointer(b, loc, adaptor.getTmem()),
                                   i32Const(b, loc, cols), group);
  });
  rewriter.eraseOp(op);
  return success();
}

/// tcgen05.ld.32x32b: thread t of the warpgroup reads lane t; warp w may only
/// address lanes 32w..32w+31, so its address carries lane 32w in bits 16..31.
LogicalResult lowerTmemLoad(TmemLoadOp op, TmemLoadOp::Adaptor adaptor,
                            ConversionPatternRewriter &rewriter) {
  Location loc = op.getLoc();
  OpBuilder &b = rewriter;
  auto frag = cast<FragType>(op.getType());
  int64_t cols = frag.getShape()[1];
  Value warp = arith::AndIOp::create(
      b, loc,
      arith::ShRUIOp::create(b, loc, threadIdx(b, loc), i32Const(b, loc, 5)),
      i32Const(b, loc, 3));
  Value lane = arith::ShLIOp::create(b, loc, mulConst(b, loc, warp, 32),
                                     i32Const(b, loc, 16));
  Value addr = arith::AddIOp::create(
      b, loc, adaptor.getTmem(),
      arith::AddIOp::create(b, loc, lane, adaptor.getColumn()));
  // One .x<cols> load returns a vector of b32; the fragment's elements
  // are its lanes, reinterpreted as f32 (same registers in PTX).
  Type i32 = b.getI32Type();
  Value loaded = NVVM::Tcgen05LdOp::create(
      b, loc, cols == 1 ? i32 : Type(VectorType::get(cols, i32)),
      /*pack=*/false, NVVM::Tcgen05LdStShape::SHAPE_32X32B,
      tmemPointer(b, loc, addr), /*offset=*/Value());
  SmallVector<Value> values;
  for (int64_t i = 0; i < cols; ++i) {
    Value word = cols == 1 ? loaded
                           : LLVM::ExtractElementOp::create(b, loc, loaded,
                                                            i32Const(b, loc, i))
                                 .getResult();
    values.push_back(LLVM::BitcastOp::create(b, loc, b.getF32Type(), word));
  }
  replaceWithFragment(rewriter, op, values);
  return success();
}

LogicalResult lowerTmemWait(TmemWaitOp op, OneToNAdaptor<TmemWaitOp> adaptor,
                            ConversionPatternRewriter &rewriter) {
  Location loc = op.getLoc();
  NVVM::Tcgen05WaitOp::create(rewriter, loc, NVVM::Tcgen05WaitKind::LOAD);
  replaceWithFragment(rewriter, op,
                      fenceRegisters(rewriter, loc, adaptor.getValue()));
  return success();
}

/// tcgen05.mma for a tensor-memory accumulator: one instruction per K step,
/// issued by one thread.
LogicalResult lowerTcgen05Gemm(GemmAsyncOp op,
                               OneToNAdaptor<GemmAsyncOp> adaptor,
                               ConversionPatternRewriter &rewriter) {
  if (!isa<TmemType>(op.getAcc().getType()))
    return rewriter.notifyMatchFailure(op, "accumulator is not tensor memory");
  GemmOperands g = getGemmOperands(op, adaptor.getOperands());
  Location loc = op.getLoc();
  OpBuilder &b = rewriter;
  FailureOr<MmaTiles> tiles =
      getMmaTiles(op, tilec::tcgen05OperandDesc, "tcgen05");
  if (failed(tiles))
    return failure();
  auto [aType, bType, aLayout, bLayout, aDesc, bDesc] = *tiles;
  int64_t cg = op.getCtaGroup();
  tilec::Tcgen05MmaConfig config;
  config.A = config.B = getVocabElementType(aType.getElementType())
                            .value_or(tilec::vocab::ElementType::F16);
  config.D = tilec::vocab::ElementType::F32;
  config.M = aType.getShape()[aType.getRank() - 2] * cg;
  config.N = bType.getShape()[bType.getRank() - 2] * cg;
  config.CtaGroup = cg;
  auto idesc = tilec::makeTcgen05InstrDesc(config);
  if (!idesc)
    return op.emitOpError("cannot build the tcgen05 instruction descriptor: ")
           << llvm::toString(idesc.takeError());
  auto kind = tilec::tcgen05KindFor(config.A, config.B);
  if (!kind)
    return op.emitOpError(llvm::toString(kind.takeError()));
  // The NVVM kind of the same spelling ("f16", "tf32", "f8f6f4").
  auto mmaKind = NVVM::symbolizeTcgen05MMAKind(tilec::tcgen05KindName(*kind));
  if (!mmaKind)
    return op.emitOpError("no NVVM tcgen05.mma kind ")
           << tilec::tcgen05KindName(*kind);

  MmaOperandRef aBase = mmaOperandRef(b, loc, aType, g.a, g.aIndices, aLayout);
  MmaOperandRef bBase = mmaOperandRef(b, loc, bType, g.b, g.bIndices, bLayout);
  Value dAddr =
      tmemPointer(b, loc, arith::AddIOp::create(b, loc, g.acc[0], g.accColumn));
  Value one = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
  Value accFlag = g.accumulate ? g.accumulate : one;
  auto group = ctaGroupKind(cg);
  Value idescValue = i32Const(b, loc, *idesc);
  int64_t kBytes = (getElementBytes(aType.getElementType()) == 1 ? 32 : 16) *
                   getElementBytes(aType.getElementType());
  int64_t k = aType.getShape().back();
  int64_t steps = k * getElementBytes(aType.getElementType()) / kBytes;
  for (int64_t ks = 0; ks < steps; ++ks) {
    int64_t aOff = tilec::logicalByteOffset(aLayout, 0, ks * kBytes);
    int64_t bOff = tilec::logicalByteOffset(bLayout, 0, ks * kBytes);
    Value descA = buildSmemDesc(b, loc, aDesc, aBase, aOff);
    Value descB = buildSmemDesc(b, loc, bDesc, bBase, bOff);
    // Only the first K step may overwrite; the rest accumulate.
    Value enableInputD = ks == 0 ? accFlag : one;
    NVVM::Tcgen05MMAOp::create(
        b, loc, *mmaKind, group, NVVM::Tcgen05MMACollectorOp::DISCARD,
        /*aShift=*/false, dAddr, descA, descB, idescValue, enableInputD,
        /*scaleInputD=*/Value(),
        /*disableOutputLane=*/Value());
  }
  rewriter.eraseOp(op);
  return success();
}

/// A commit naming a barrier: tcgen05.commit, optionally multicast to the
/// CTAs of `cta_mask`.
LogicalResult lowerTcgen05Commit(GemmCommitOp op, GemmCommitOp::Adaptor adaptor,
                                 ConversionPatternRewriter &rewriter) {
  if (!op.getBarrier())
    return rewriter.notifyMatchFailure(op, "a commit without barrier is wgmma");
  Location loc = op.getLoc();
  OpBuilder &b = rewriter;
  Value bar = barrierAt(b, loc, adaptor.getBarrier(), adaptor.getIndex());
  Value mask;
  if (auto m = op.getCtaMask())
    mask = arith::ConstantIntOp::create(b, loc, b.getI16Type(), *m);
  int64_t group = op.getCtaGroup();
  if (!cast<BarrierType>(op.getBarrier().getType()).getRemote()) {
    NVVM::Tcgen05CommitOp::create(b, loc, bar, mask, ctaGroupKind(group));
  } else {
    // Inline PTX for a peer CTA's barrier (a shared::cluster pointer):
    // LLVM 22's tcgen05.commit takes a shared::cta or a generic pointer
    // only, and its generic form still prints `.shared::cluster`, which
    // would read the generic address as a shared::cluster one.
    std::string ptx = "tcgen05.commit.cta_group::" + std::to_string(group) +
                      ".mbarrier::arrive::one.shared::cluster";
    Value addr = sharedAddress(b, loc, bar);
    if (mask)
      inlinePtx(b, loc, {}, {addr, mask},
                ptx + ".multicast::cluster.b64 [$0], $1;", "r,h");
    else
      inlinePtx(b, loc, {}, {addr}, ptx + ".b64 [$0];", "r");
  }
  rewriter.eraseOp(op);
  return success();
}

} // namespace

void mlir::tile::populateTileTcgen05ToNVVMPatterns(
    LLVMTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<OpLowering<TmemAllocOp, lowerTmemAlloc>,
               OpLowering<TmemAddressOp, lowerTmemAddress>,
               OpLowering<TmemDeallocOp, lowerTmemDealloc>,
               OpLowering<TmemLoadOp, lowerTmemLoad>,
               OpLowering<TmemWaitOp, lowerTmemWait>,
               OpLowering<GemmAsyncOp, lowerTcgen05Gemm>,
               OpLowering<GemmCommitOp, lowerTcgen05Commit>>(converter);
}

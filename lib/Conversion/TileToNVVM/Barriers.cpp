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

/// How long a --debug-hangs wait spins before it reports: 2^32 ns of
/// %globaltimer (about 4.3 s). A healthy wait takes microseconds (a stage's
/// copy or MMA) to milliseconds (a producer waiting out an epilogue); the
/// margin covers a GPU shared with other work. Time rather than a count of
/// try_wait attempts, because each attempt may suspend for up to its hint.
constexpr uint64_t kHangTimeoutNs = uint64_t(1) << 32;

/// `text` with `%` doubled, so that printf prints it as it is.
std::string escapePercent(StringRef text) {
  std::string out;
  for (char c : text) {
    out += c;
    if (c == '%')
      out += '%';
  }
  return out;
}

/// The address of a NUL-terminated string constant of the module, created
/// once per distinct text.
Value stringConstant(OpBuilder &b, Location loc, Operation *from,
                     StringRef text) {
  auto module = from->getParentOfType<ModuleOp>();
  MLIRContext *ctx = b.getContext();
  std::string value = text.str();
  value.push_back('\0');
  auto type = LLVM::LLVMArrayType::get(IntegerType::get(ctx, 8), value.size());
  std::string name;
  for (unsigned i = 0;; ++i) {
    name = "__tile_hang_format_" + std::to_string(i);
    auto existing = module.lookupSymbol<LLVM::GlobalOp>(name);
    if (!existing)
      break;
    if (auto v = dyn_cast_or_null<StringAttr>(existing.getValueOrNull());
        v && v.getValue() == value)
      return LLVM::AddressOfOp::create(b, loc, LLVM::LLVMPointerType::get(ctx),
                                       name);
  }
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    LLVM::GlobalOp::create(b, loc, type, /*isConstant=*/true,
                           LLVM::Linkage::Internal, name,
                           b.getStringAttr(value), /*alignment=*/1);
  }
  return LLVM::AddressOfOp::create(b, loc, LLVM::LLVMPointerType::get(ctx),
                                   name);
}

/// vprintf(format, args): the CUDA device printf that NVPTX calls.
void callVprintf(OpBuilder &b, Location loc, Operation *from, Value format,
                 ValueRange args) {
  auto module = from->getParentOfType<ModuleOp>();
  MLIRContext *ctx = b.getContext();
  auto ptr = LLVM::LLVMPointerType::get(ctx);
  auto i32 = b.getI32Type();
  auto fnType = LLVM::LLVMFunctionType::get(i32, {ptr, ptr});
  if (!module.lookupSymbol("vprintf")) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    LLVM::LLVMFuncOp::create(b, loc, "vprintf", fnType);
  }
  // The arguments as vprintf reads them: a packed buffer of 32-bit values.
  // The buffer is a per-thread alloca; ConvertToNVVMPass moves it to the
  // function's entry block afterwards (a static stack slot).
  SmallVector<Type> fields(args.size(), i32);
  auto bufferType = LLVM::LLVMStructType::getLiteral(ctx, fields);
  Value one = LLVM::ConstantOp::create(b, loc, b.getI64Type(), 1);
  auto buffer = LLVM::AllocaOp::create(b, loc, ptr, bufferType, one,
                                       /*alignment=*/4);
  buffer->setAttr(kHangBufferAttr, UnitAttr::get(ctx));
  for (auto [i, arg] : llvm::enumerate(args)) {
    Value field =
        LLVM::GEPOp::create(b, loc, ptr, bufferType, buffer,
                            ArrayRef<LLVM::GEPArg>{0, static_cast<int32_t>(i)});
    LLVM::StoreOp::create(b, loc, arg, field);
  }
  LLVM::CallOp::create(b, loc, fnType, "vprintf", ValueRange{format, buffer});
}

/// tilec --debug-hangs: a bounded spin on try_wait.parity; on time-out the
/// lowest waiting lane of each warp prints where the thread hangs, and the
/// thread traps.
void lowerBoundedWait(BarrierWaitOp op, Value bar, Value stage, Value phase,
                      ConversionPatternRewriter &rewriter) {
  Location loc = op.getLoc();
  OpBuilder &b = rewriter;
  std::string spin =
      "{\n.reg .pred p;\n.reg .pred q;\n.reg .u64 t0;\n.reg .u64 t;\n"
      "mbarrier.try_wait.parity.shared::cta.b64 p, [$1], $2, 10000000;\n"
      "@p bra DONE;\n"
      "mov.u64 t0, %globaltimer;\n"
      "WAIT:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 p, [$1], $2, 10000000;\n"
      "@p bra DONE;\n"
      "mov.u64 t, %globaltimer;\n"
      "sub.u64 t, t, t0;\n"
      "setp.lt.u64 q, t, " +
      std::to_string(kHangTimeoutNs) +
      ";\n"
      "@q bra WAIT;\n"
      "DONE:\n"
      "selp.u32 $0, 1, 0, p;\n}";
  Value done = inlinePtx(b, loc, b.getI32Type(),
                         {sharedAddress(b, loc, bar), phase}, spin, "=r,r,r")
                   .front();
  Value timedOut = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, done,
                                         i32Const(b, loc, 0));
  auto ifOp = scf::IfOp::create(b, loc, timedOut, false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  // The active lanes below this one: none for the warp's lowest waiting lane.
  Value below = inlinePtx(b, loc, b.getI32Type(), {},
                          "{\n.reg .b32 m;\n.reg .b32 lt;\n"
                          "activemask.b32 m;\nmov.u32 lt, %lanemask_lt;\n"
                          "and.b32 $0, m, lt;\n}",
                          "=r")
                    .front();
  Value leader = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, below,
                                       i32Const(b, loc, 0));
  auto print = scf::IfOp::create(b, loc, leader, false);
  {
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(print.thenBlock());
    StringRef kernel = "?";
    if (auto fn = op->getParentOfType<FunctionOpInterface>())
      kernel = fn.getName();
    std::string format =
        "tilec --debug-hangs: kernel '" + escapePercent(kernel) +
        "' CTA (%u,%u,%u) thread %u: role '" +
        escapePercent(op.getDebugRole().value_or("kernel")) +
        "' waits on barrier '" + escapePercent(*op.getDebugBarrier()) +
        "' stage %u phase %u for more than 4.3 s (2^32 ns); trapping\n";
    Type i32 = b.getI32Type();
    SmallVector<Value> args = {NVVM::BlockIdXOp::create(b, loc, i32),
                               NVVM::BlockIdYOp::create(b, loc, i32),
                               NVVM::BlockIdZOp::create(b, loc, i32),
                               threadIdx(b, loc),
                               stage,
                               phase};
    callVprintf(b, loc, op, stringConstant(b, loc, op, format), args);
  }
  LLVM::Trap::create(b, loc);
}

LogicalResult lowerWait(BarrierWaitOp op, BarrierWaitOp::Adaptor adaptor,
                        ConversionPatternRewriter &rewriter) {
  Location loc = op.getLoc();
  Value bar =
      barrierAt(rewriter, loc, adaptor.getBarrier(), adaptor.getIndex());
  // `unless %ready`: the spin runs only where an earlier test has not seen
  // the phase complete.
  OpBuilder::InsertionGuard guard(rewriter);
  if (Value ready = adaptor.getReady()) {
    Value notReady = arith::XOrIOp::create(
        rewriter, loc, ready,
        arith::ConstantIntOp::create(rewriter, loc, rewriter.getI1Type(), 1));
    auto ifOp = scf::IfOp::create(rewriter, loc, notReady, false);
    rewriter.setInsertionPointToStart(ifOp.thenBlock());
  }
  if (op.getDebugBarrier()) {
    lowerBoundedWait(op, bar, adaptor.getIndex(), adaptor.getPhase(), rewriter);
    rewriter.eraseOp(op);
    return success();
  }
  // try_wait suspends up to this many ns per attempt (CUTLASS's value).
  NVVM::MBarrierTryWaitParityOp::create(rewriter, loc, bar, adaptor.getPhase(),
                                        i32Const(rewriter, loc, 0x989680));
  rewriter.eraseOp(op);
  return success();
}

/// mbarrier.test_wait.parity: non-blocking, acquire when it returns true.
LogicalResult lowerTest(BarrierTestOp op, BarrierTestOp::Adaptor adaptor,
                        ConversionPatternRewriter &rewriter) {
  Location loc = op.getLoc();
  Value bar =
      barrierAt(rewriter, loc, adaptor.getBarrier(), adaptor.getIndex());
  rewriter.replaceOpWithNewOp<NVVM::MBarrierTestWaitOp>(
      op, rewriter.getI1Type(), bar, adaptor.getPhase());
  return success();
}

} // namespace

void mlir::tile::populateTileBarriersToNVVMPatterns(
    LLVMTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<OpLowering<SmemAllocOp, lowerSmemAlloc>,
               OpLowering<BarrierAllocOp, lowerBarrierAlloc>,
               OpLowering<BarrierRemoteViewOp, lowerRemoteView>,
               OpLowering<BarrierArriveOp, lowerArrive>,
               OpLowering<BarrierWaitOp, lowerWait>,
               OpLowering<BarrierTestOp, lowerTest>>(converter);
}

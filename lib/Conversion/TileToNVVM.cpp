//===- TileToNVVM.cpp - lower tile kernels to the LLVM and NVVM dialects -===//

#include "lib/Conversion/Passes.h"
#include "lib/Transforms/LayoutUtils.h"

#include "lib/Support/Descriptors.h"
#include "lib/Support/TensorMemory.h"
#include "lib/Support/TmaBoxes.h"

#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILECONVERTTONVVM
#include "lib/Conversion/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

constexpr StringLiteral kSmemSymbol = "__tile_smem";
constexpr unsigned kSharedSpace = 3;
constexpr unsigned kSharedClusterSpace = 7;

//===----------------------------------------------------------------------===//
// Small builders
//===----------------------------------------------------------------------===//

Value i32Const(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIntOp::create(b, loc, b.getI32Type(),
                                      static_cast<int32_t>(v));
}

Value i64Const(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIntOp::create(b, loc, b.getI64Type(), v);
}

Value mulConst(OpBuilder &b, Location loc, Value v, int64_t c) {
  if (c == 1)
    return v;
  return arith::MulIOp::create(b, loc, v, i32Const(b, loc, c));
}

Value addValues(OpBuilder &b, Location loc, Value x, Value y) {
  if (!x)
    return y;
  if (!y)
    return x;
  return arith::AddIOp::create(b, loc, x, y);
}

LLVM::LLVMPointerType sharedPtrType(MLIRContext *ctx) {
  return LLVM::LLVMPointerType::get(ctx, kSharedSpace);
}

/// The address of the kernel's dynamic shared-memory pool, declared once per
/// module as an external zero-length array aligned to 1024 bytes.
Value getSmemBase(OpBuilder &b, Location loc, Operation *from) {
  auto module = from->getParentOfType<ModuleOp>();
  MLIRContext *ctx = b.getContext();
  auto arrayType = LLVM::LLVMArrayType::get(IntegerType::get(ctx, 8), 0);
  if (!module.lookupSymbol(kSmemSymbol)) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    LLVM::GlobalOp::create(b, loc, arrayType, /*isConstant=*/false,
                           LLVM::Linkage::External, kSmemSymbol, Attribute(),
                           /*alignment=*/1024, kSharedSpace);
  }
  return LLVM::AddressOfOp::create(b, loc, sharedPtrType(ctx), kSmemSymbol);
}

/// `base` + `offset` bytes (offset: i32 value).
Value byteGep(OpBuilder &b, Location loc, Value base, Value offset) {
  return LLVM::GEPOp::create(b, loc, base.getType(), b.getI8Type(), base,
                             ValueRange{offset});
}

Value byteGep(OpBuilder &b, Location loc, Value base, int64_t offset) {
  if (offset == 0)
    return base;
  return LLVM::GEPOp::create(b, loc, base.getType(), b.getI8Type(), base,
                             ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(offset)});
}

/// The 32-bit shared address of a shared pointer.
Value sharedAddress(OpBuilder &b, Location loc, Value ptr) {
  return LLVM::PtrToIntOp::create(b, loc, b.getI32Type(), ptr);
}

/// tid.x and friends.
Value threadIdx(OpBuilder &b, Location loc) {
  return NVVM::ThreadIdXOp::create(b, loc, b.getI32Type());
}

/// The byte offset of the tile selected by `leading` indices in `type`.
Value tileOffset(OpBuilder &b, Location loc, SmemType type,
                 ValueRange leading) {
  Value offset;
  for (auto [i, index] : llvm::enumerate(leading))
    offset = addValues(b, loc, offset,
                       mulConst(b, loc, index, getTileStride(type, i)));
  return offset;
}

/// Elements of a converted fragment.
SmallVector<Value> unpackStruct(OpBuilder &b, Location loc, Value s) {
  auto type = cast<LLVM::LLVMStructType>(s.getType());
  SmallVector<Value> values;
  for (unsigned i = 0, e = type.getBody().size(); i < e; ++i)
    values.push_back(LLVM::ExtractValueOp::create(b, loc, s, i));
  return values;
}

Value packStruct(OpBuilder &b, Location loc, Type type, ValueRange values) {
  Value s = LLVM::UndefOp::create(b, loc, type);
  for (auto [i, v] : llvm::enumerate(values))
    s = LLVM::InsertValueOp::create(b, loc, s, v, i);
  return s;
}

/// A struct of `types` for the inline asm / wgmma operands.
LLVM::LLVMStructType structOf(MLIRContext *ctx, TypeRange types) {
  return LLVM::LLVMStructType::getLiteral(ctx, SmallVector<Type>(types));
}

/// One side-effecting empty asm that ties every value to itself, so that
/// neither LLVM nor ptxas moves their uses above the preceding wait (CUTLASS's
/// warpgroup_fence_operand, for a whole fragment at once).
SmallVector<Value> fenceRegisters(OpBuilder &b, Location loc,
                                  ValueRange values) {
  std::string constraints;
  for (Value v : values) {
    Type type = v.getType();
    constraints += type.isF32()                    ? "=f,"
                   : type.isF16() || type.isBF16() ? "=h,"
                                                   : "=r,";
  }
  for (size_t i = 0; i < values.size(); ++i)
    constraints += std::to_string(i) + (i + 1 < values.size() ? "," : "");
  Type resultType = values.size() == 1
                        ? values[0].getType()
                        : Type(structOf(b.getContext(), values.getTypes()));
  auto asmOp = LLVM::InlineAsmOp::create(
      b, loc, resultType, values, "", constraints,
      /*has_side_effects=*/true, /*is_align_stack=*/false,
      LLVM::TailCallKind::None, LLVM::AsmDialectAttr(), ArrayAttr());
  if (values.size() == 1)
    return {asmOp.getResult(0)};
  return unpackStruct(b, loc, asmOp.getResult(0));
}

/// One inline-PTX statement with side effects.
SmallVector<Value> inlinePtx(OpBuilder &b, Location loc, TypeRange results,
                             ValueRange operands, StringRef ptx,
                             StringRef constraints) {
  Type resultType;
  if (results.size() == 1)
    resultType = results[0];
  else if (results.size() > 1)
    resultType = LLVM::LLVMStructType::getLiteral(b.getContext(),
                                                  SmallVector<Type>(results));
  auto asmOp = LLVM::InlineAsmOp::create(
      b, loc, resultType ? TypeRange{resultType} : TypeRange{}, operands, ptx,
      constraints, /*has_side_effects=*/true, /*is_align_stack=*/false,
      LLVM::TailCallKind::None, LLVM::AsmDialectAttr(), ArrayAttr());
  if (results.empty())
    return {};
  if (results.size() == 1)
    return {asmOp.getResult(0)};
  return unpackStruct(b, loc, asmOp.getResult(0));
}

/// Replaces a single-result op producing a fragment by its scalars (a
/// fragment is one SSA value per element after conversion).
void replaceWithFragment(ConversionPatternRewriter &rewriter, Operation *op,
                         ValueRange values) {
  SmallVector<SmallVector<Value>> replacement;
  replacement.emplace_back(values.begin(), values.end());
  rewriter.replaceOpWithMultiple(op, std::move(replacement));
}

/// The converted values of ODS operand group `index` of `op` (one fragment
/// operand is many values after conversion).
template <typename OpT>
SmallVector<Value> operandGroup(OpT op, ArrayRef<ValueRange> operands,
                                unsigned index) {
  auto [start, length] = op.getODSOperandIndexAndLength(index);
  SmallVector<Value> values;
  for (unsigned i = 0; i < length; ++i)
    llvm::append_range(values, operands[start + i]);
  return values;
}

/// Marks the placeholder that stands for a global tensor argument.
constexpr llvm::StringLiteral kTileArgAttr =
    TileDialect::ArgAttrHelper::getNameStr();

/// The llvm.func a converted op sits in.
LLVM::LLVMFuncOp getFunc(Operation *op) {
  return op->getParentOfType<LLVM::LLVMFuncOp>();
}

/// The kernel's ABI, kept on the llvm.func it became.
KernelAbiAttr getKernelAbi(LLVM::LLVMFuncOp func) {
  return func->getContext()
      ->getLoadedDialect<TileDialect>()
      ->getKernelAbiAttrHelper()
      .getAttr(func);
}

/// The kernel argument number a global tensor value stands for (the
/// unrealized cast made when the kernel became an llvm.func records it).
int64_t getGlobalArg(Value v) {
  if (auto cast = v.getDefiningOp<UnrealizedConversionCastOp>())
    if (auto arg = cast->getAttrOfType<IntegerAttr>(kTileArgAttr))
      return arg.getInt();
  return -1;
}

//===----------------------------------------------------------------------===//
// Identity, dims, scheduler
//===----------------------------------------------------------------------===//

struct IdLowering : ConvertOpToLLVMPattern<IdOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(IdOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    Type i32 = b.getI32Type();
    auto linear3 = [&](Value x, Value y, Value z, Value nx, Value ny) {
      Value yz = arith::AddIOp::create(
          b, loc, y, arith::MulIOp::create(b, loc, ny, z));
      return arith::AddIOp::create(b, loc, x,
                                   arith::MulIOp::create(b, loc, nx, yz))
          .getResult();
    };
    Value result;
    switch (op.getKind()) {
    case IdKind::cta:
      result = linear3(NVVM::BlockIdXOp::create(b, loc, i32),
                       NVVM::BlockIdYOp::create(b, loc, i32),
                       NVVM::BlockIdZOp::create(b, loc, i32),
                       NVVM::GridDimXOp::create(b, loc, i32),
                       NVVM::GridDimYOp::create(b, loc, i32));
      break;
    case IdKind::num_ctas:
      result = arith::MulIOp::create(
          b, loc, NVVM::GridDimXOp::create(b, loc, i32),
          arith::MulIOp::create(b, loc, NVVM::GridDimYOp::create(b, loc, i32),
                                NVVM::GridDimZOp::create(b, loc, i32)));
      break;
    case IdKind::cta_x:
      result = NVVM::BlockIdXOp::create(b, loc, i32);
      break;
    case IdKind::cta_y:
      result = NVVM::BlockIdYOp::create(b, loc, i32);
      break;
    case IdKind::cta_z:
      result = NVVM::BlockIdZOp::create(b, loc, i32);
      break;
    case IdKind::cta_in_cluster:
      result = linear3(NVVM::BlockInClusterIdXOp::create(b, loc, i32),
                       NVVM::BlockInClusterIdYOp::create(b, loc, i32),
                       NVVM::BlockInClusterIdZOp::create(b, loc, i32),
                       NVVM::ClusterDimBlocksXOp::create(b, loc, i32),
                       NVVM::ClusterDimBlocksYOp::create(b, loc, i32));
      break;
    case IdKind::cluster:
      result = linear3(NVVM::ClusterIdXOp::create(b, loc, i32),
                       NVVM::ClusterIdYOp::create(b, loc, i32),
                       NVVM::ClusterIdZOp::create(b, loc, i32),
                       NVVM::ClusterDimXOp::create(b, loc, i32),
                       NVVM::ClusterDimYOp::create(b, loc, i32));
      break;
    case IdKind::num_clusters:
      result = arith::MulIOp::create(
          b, loc, NVVM::ClusterDimXOp::create(b, loc, i32),
          arith::MulIOp::create(b, loc,
                                NVVM::ClusterDimYOp::create(b, loc, i32),
                                NVVM::ClusterDimZOp::create(b, loc, i32)));
      break;
    case IdKind::warpgroup:
      result = arith::ShRUIOp::create(b, loc, threadIdx(b, loc),
                                      i32Const(b, loc, 7));
      break;
    case IdKind::warp_in_warpgroup:
      result = arith::AndIOp::create(
          b, loc,
          arith::ShRUIOp::create(b, loc, threadIdx(b, loc),
                                 i32Const(b, loc, 5)),
          i32Const(b, loc, 3));
      break;
    case IdKind::lane:
      result = arith::AndIOp::create(b, loc, threadIdx(b, loc),
                                     i32Const(b, loc, 31));
      break;
    case IdKind::thread_in_warpgroup:
      result = arith::AndIOp::create(b, loc, threadIdx(b, loc),
                                     i32Const(b, loc, 127));
      break;
    case IdKind::thread:
      result = threadIdx(b, loc);
      break;
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct DimLowering : ConvertOpToLLVMPattern<DimOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(DimOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<GlobalType>(op.getTensor().getType());
    int64_t index = op.getIndex();
    if (!type.isDynamicDim(index)) {
      rewriter.replaceOp(op, i32Const(rewriter, op.getLoc(),
                                      type.getShape()[index]));
      return success();
    }
    LLVM::LLVMFuncOp func = getFunc(op);
    int64_t arg = getGlobalArg(adaptor.getTensor());
    int64_t param = getKernelAbi(func).getDimParamIndex(arg, index);
    if (param < 0)
      return rewriter.notifyMatchFailure(op, "no parameter for this dim");
    rewriter.replaceOp(op, func.getArgument(param));
    return success();
  }
};

struct NumTilesLowering : ConvertOpToLLVMPattern<SchedNumTilesOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(SchedNumTilesOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    ArrayRef<int64_t> block = op.getBlock();
    Value mTiles = arith::CeilDivSIOp::create(
        rewriter, loc, adaptor.getM(), i32Const(rewriter, loc, block[0]));
    Value nTiles = arith::CeilDivSIOp::create(
        rewriter, loc, adaptor.getN(), i32Const(rewriter, loc, block[1]));
    rewriter.replaceOpWithNewOp<arith::MulIOp>(op, mTiles, nTiles);
    return success();
  }
};

/// Grouped rasterisation: tiles walk `group` block rows at a time, so that
/// CTAs in flight together share A rows and B columns in L2.
struct CoordsLowering : ConvertOpToLLVMPattern<SchedCoordsOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(SchedCoordsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    ArrayRef<int64_t> block = op.getBlock();
    Value t = adaptor.getTile();
    Value mTiles = arith::CeilDivSIOp::create(b, loc, adaptor.getM(),
                                              i32Const(b, loc, block[0]));
    Value nTiles = arith::CeilDivSIOp::create(b, loc, adaptor.getN(),
                                              i32Const(b, loc, block[1]));
    Value group = i32Const(b, loc, op.getGroup());
    Value perGroup = arith::MulIOp::create(b, loc, group, nTiles);
    Value groupId = arith::DivUIOp::create(b, loc, t, perGroup);
    Value firstM = arith::MulIOp::create(b, loc, groupId, group);
    Value left = arith::SubIOp::create(b, loc, mTiles, firstM);
    Value groupRows = arith::MinSIOp::create(b, loc, left, group);
    Value inGroup = arith::RemUIOp::create(b, loc, t, perGroup);
    Value m = arith::AddIOp::create(
        b, loc, firstM, arith::RemUIOp::create(b, loc, inGroup, groupRows));
    Value n = arith::DivUIOp::create(b, loc, inGroup, groupRows);
    rewriter.replaceOp(op, {m, n});
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Memory declarations
//===----------------------------------------------------------------------===//

int64_t getOffset(Operation *op) {
  auto attr = op->getAttrOfType<IntegerAttr>("offset");
  return attr ? attr.getInt() : -1;
}

struct SmemAllocLowering : ConvertOpToLLVMPattern<SmemAllocOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(SmemAllocOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    int64_t offset = getOffset(op);
    if (offset < 0)
      return op.emitOpError("has no offset; run tile-allocate-smem first");
    Location loc = op.getLoc();
    rewriter.replaceOp(
        op, byteGep(rewriter, loc, getSmemBase(rewriter, loc, op), offset));
    return success();
  }
};

/// Thread 0 initialises every barrier of the array; the setup fence and sync
/// (inserted by tile-warp-specialize) publish them.
struct BarrierAllocLowering : ConvertOpToLLVMPattern<BarrierAllocOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(BarrierAllocOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    int64_t offset = getOffset(op);
    if (offset < 0)
      return op.emitOpError("has no offset; run tile-allocate-smem first");
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    Value base = byteGep(b, loc, getSmemBase(b, loc, op), offset);
    Value isFirst = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                          threadIdx(b, loc), i32Const(b, loc, 0));
    auto ifOp = scf::IfOp::create(b, loc, isFirst, false);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(ifOp.thenBlock());
      Value count = i32Const(b, loc, op.getArrivals());
      int64_t depth = cast<BarrierType>(op.getType()).getDepth();
      for (int64_t i = 0; i < depth; ++i)
        NVVM::MBarrierInitOp::create(b, loc, byteGep(b, loc, base, 8 * i),
                                     count, Value());
    }
    rewriter.replaceOp(op, base);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Barriers
//===----------------------------------------------------------------------===//

/// The address of barrier `index` of an array.
Value barrierAt(OpBuilder &b, Location loc, Value base, Value index) {
  return byteGep(b, loc, base, mulConst(b, loc, index, 8));
}

struct RemoteViewLowering : ConvertOpToLLVMPattern<BarrierRemoteViewOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(BarrierRemoteViewOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto clusterPtr =
        LLVM::LLVMPointerType::get(rewriter.getContext(), kSharedClusterSpace);
    rewriter.replaceOpWithNewOp<NVVM::MapaOp>(
        op, clusterPtr, adaptor.getBarrier(), i32Const(rewriter, loc, op.getCta()));
    return success();
  }
};

struct ArriveLowering : ConvertOpToLLVMPattern<BarrierArriveOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(BarrierArriveOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value bar = barrierAt(rewriter, loc, adaptor.getBarrier(), adaptor.getIndex());
    // CTA scope even for a peer's barrier (as CUTLASS's ClusterBarrier does):
    // a cluster-scope release fences every prior write of the thread first,
    // which stalled the multicast GEMM's consumers by a third of their time,
    // and the arrivals here publish no data of their own.
    auto scope = NVVM::MemScopeKind::CTA;
    if (auto tx = op.getExpectTx()) {
      auto arrive = NVVM::MBarrierArriveExpectTxOp::create(
          rewriter, loc, Type(), bar, i32Const(rewriter, loc, *tx), scope,
          /*relaxed=*/false, Value());
      (void)arrive;
    } else {
      NVVM::MBarrierArriveOp::create(rewriter, loc, Type(), bar, Value(),
                                     scope, /*relaxed=*/false);
    }
    rewriter.eraseOp(op);
    return success();
  }
};

struct WaitLowering : ConvertOpToLLVMPattern<BarrierWaitOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(BarrierWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value bar = barrierAt(rewriter, loc, adaptor.getBarrier(), adaptor.getIndex());
    // try_wait suspends up to this many ns per attempt (CUTLASS's value).
    NVVM::MBarrierTryWaitParityOp::create(rewriter, loc, bar, adaptor.getPhase(),
                                          i32Const(rewriter, loc, 0x989680));
    rewriter.eraseOp(op);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Copies
//===----------------------------------------------------------------------===//

struct CopyAsyncLowering : ConvertOpToLLVMPattern<CopyAsyncOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(CopyAsyncOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    LLVM::LLVMFuncOp func = getFunc(op);
    int64_t mapIndex = op.getTensormapAttr()
                           ? getKernelAbi(func).getParamIndex(op.getTensormapAttr())
                           : -1;
    if (mapIndex < 0)
      return op.emitOpError("has no tensor map; run tile-dispatch first");
    Value tmap = func.getArgument(mapIndex);
    SmemType smemType = op.getSmemType();
    auto plan = tilec::planTmaBoxes(*getTileLayout(smemType));
    bool load = op.isLoad();
    ValueRange smemIdx = load ? adaptor.getDstIndices() : adaptor.getSrcIndices();
    ValueRange globalIdx = load ? adaptor.getSrcIndices() : adaptor.getDstIndices();
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
        Value masked = arith::AndIOp::create(b, loc, addr,
                                             i32Const(b, loc, 0xFEFFFFFF));
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
    for (const tilec::TmaBox &box : plan->Boxes) {
      // TMA coordinates run innermost first.
      SmallVector<Value> coords;
      for (unsigned d = rank; d-- > 0;) {
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
            b, loc, LLVM::LLVMPointerType::get(b.getContext(), kSharedClusterSpace),
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
};

struct BulkCommitLowering : ConvertOpToLLVMPattern<BulkCommitOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(BulkCommitOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::CpAsyncBulkCommitGroupOp>(op);
    return success();
  }
};

struct BulkWaitLowering : ConvertOpToLLVMPattern<BulkWaitOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(BulkWaitOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::CpAsyncBulkWaitGroupOp>(
        op, rewriter.getI32IntegerAttr(op.getPending()),
        op.getRead() ? rewriter.getUnitAttr() : UnitAttr());
    return success();
  }
};

//===----------------------------------------------------------------------===//
// wgmma (sm_90a)
//===----------------------------------------------------------------------===//

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

/// A descriptor for the operand tile `type` starting at shared address
/// `addr` (i32): the constant fields from TileSupport, the address field
/// computed at run time.
Value buildWgmmaDesc(OpBuilder &b, Location loc, uint64_t constant,
                     Value addr) {
  Value field = arith::ShRUIOp::create(
      b, loc, arith::AndIOp::create(b, loc, addr, i32Const(b, loc, 0x3FFFF)),
      i32Const(b, loc, 4));
  Value wide = arith::ExtUIOp::create(b, loc, b.getI64Type(), field);
  return arith::OrIOp::create(b, loc, wide,
                              i64Const(b, loc, static_cast<int64_t>(constant)));
}

/// The converted operands of a gemm_async.
struct GemmOperands {
  SmallVector<Value> acc; ///< fragment scalars, or the tensor-memory address
  Value accColumn;
  Value a, b;
  SmallVector<Value> aIndices, bIndices;
  Value accumulate;
};

struct GemmAsyncLowering : ConvertOpToLLVMPattern<GemmAsyncOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(GemmAsyncOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ArrayRef<ValueRange> operands = adaptor.getOperands();
    GemmOperands g;
    g.acc = operandGroup(op, operands, 0);
    auto column = operandGroup(op, operands, 1);
    g.accColumn = column.empty() ? Value() : column[0];
    g.a = operandGroup(op, operands, 2)[0];
    g.aIndices = operandGroup(op, operands, 3);
    g.b = operandGroup(op, operands, 4)[0];
    g.bIndices = operandGroup(op, operands, 5);
    auto accumulate = operandGroup(op, operands, 6);
    g.accumulate = accumulate.empty() ? Value() : accumulate[0];
    if (isa<TmemType>(op.getAcc().getType()))
      return lowerTcgen05(op, g, rewriter);
    return lowerWgmma(op, g, rewriter);
  }

  /// The shared address of the tile named by `indices` (leading tile indices,
  /// then the first row) of an MMA operand.
  static Value operandAddress(OpBuilder &b, Location loc, SmemType type,
                              Value base, ValueRange indices,
                              const tilec::SmemTileLayout &layout) {
    Value addr = sharedAddress(b, loc, base);
    Value off = tileOffset(b, loc, type, indices.drop_back());
    // Rows are BlockBytes apart inside each column block.
    off = addValues(b, loc, off,
                    mulConst(b, loc, indices.back(), layout.BlockBytes));
    return addValues(b, loc, addr, off);
  }

  LogicalResult lowerWgmma(GemmAsyncOp op, const GemmOperands &g,
                           ConversionPatternRewriter &rewriter) const {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    auto frag = cast<FragType>(op.getAcc().getType());
    auto aType = cast<SmemType>(op.getA().getType());
    auto bType = cast<SmemType>(op.getB().getType());
    auto aLayout = *getTileLayout(aType);
    auto bLayout = *getTileLayout(bType);
    auto aConst = tilec::wgmmaOperandDesc(aLayout, tilec::MmaMajor::K);
    auto bConst = tilec::wgmmaOperandDesc(bLayout, tilec::MmaMajor::K);
    if (!aConst || !bConst)
      return op.emitOpError("cannot build a wgmma descriptor: ")
             << (aConst ? bConst.error() : aConst.error());
    Value aBase = operandAddress(b, loc, aType, g.a, g.aIndices, aLayout);
    Value bBase = operandAddress(b, loc, bType, g.b, g.bIndices, bLayout);

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
        int64_t aOff = tilec::logicalByteOffset(aLayout, 64 * mb, ks * kStepBytes);
        int64_t bOff = tilec::logicalByteOffset(bLayout, 0, ks * kStepBytes);
        Value descA = buildWgmmaDesc(
            b, loc, *aConst,
            arith::AddIOp::create(b, loc, aBase, i32Const(b, loc, aOff)));
        Value descB = buildWgmmaDesc(
            b, loc, *bConst,
            arith::AddIOp::create(b, loc, bBase, i32Const(b, loc, bOff)));
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

  LogicalResult lowerTcgen05(GemmAsyncOp op, const GemmOperands &g,
                             ConversionPatternRewriter &rewriter) const;
};

struct GemmCommitLowering : ConvertOpToLLVMPattern<GemmCommitOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(GemmCommitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!op.getBarrier()) {
      rewriter.replaceOpWithNewOp<NVVM::WgmmaGroupSyncAlignedOp>(op);
      return success();
    }
    return lowerTcgen05Commit(op, adaptor, rewriter);
  }
  LogicalResult lowerTcgen05Commit(GemmCommitOp op, OpAdaptor adaptor,
                                   ConversionPatternRewriter &rewriter) const;
};

struct GemmWaitLowering : ConvertOpToLLVMPattern<GemmWaitOp> {
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

//===----------------------------------------------------------------------===//
// Fragments
//===----------------------------------------------------------------------===//

struct FragZeroLowering : ConvertOpToLLVMPattern<FragZeroOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(FragZeroOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto frag = cast<FragType>(op.getType());
    Type elem = frag.getElementType();
    Value zero = arith::ConstantOp::create(
        rewriter, op.getLoc(), elem, rewriter.getFloatAttr(elem, 0.0));
    replaceWithFragment(
        rewriter, op,
        SmallVector<Value>(frag.getElementsPerThread(), zero));
    return success();
  }
};

struct FragCastLowering : ConvertOpToLLVMPattern<FragCastOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(FragCastOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type to = cast<FragType>(op.getType()).getElementType();
    Type from = cast<FragType>(op.getSource().getType()).getElementType();
    SmallVector<Value> values(adaptor.getSource().begin(),
                              adaptor.getSource().end());
    for (Value &v : values) {
      if (to.getIntOrFloatBitWidth() < from.getIntOrFloatBitWidth())
        v = arith::TruncFOp::create(rewriter, loc, to, v);
      else if (to.getIntOrFloatBitWidth() > from.getIntOrFloatBitWidth())
        v = arith::ExtFOp::create(rewriter, loc, to, v);
      else if (to != from)
        v = arith::TruncFOp::create(
            rewriter, loc, to,
            arith::ExtFOp::create(rewriter, loc, rewriter.getF32Type(), v));
    }
    replaceWithFragment(rewriter, op, values);
    return success();
  }
};

struct FragElementwiseLowering : ConvertOpToLLVMPattern<FragElementwiseOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(FragElementwiseOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SmallVector<Value> lhs(adaptor.getLhs().begin(), adaptor.getLhs().end());
    bool scalar = !isa<FragType>(op.getRhs().getType());
    SmallVector<Value> rhs =
        scalar ? SmallVector<Value>(lhs.size(), adaptor.getRhs().front())
               : SmallVector<Value>(adaptor.getRhs().begin(),
                                    adaptor.getRhs().end());
    for (auto [l, r] : llvm::zip(lhs, rhs)) {
      switch (op.getKind()) {
      case EpilogueOp::add:
        l = arith::AddFOp::create(rewriter, loc, l, r);
        break;
      case EpilogueOp::mul:
        l = arith::MulFOp::create(rewriter, loc, l, r);
        break;
      case EpilogueOp::max:
        l = arith::MaxNumFOp::create(rewriter, loc, l, r);
        break;
      case EpilogueOp::min:
        l = arith::MinNumFOp::create(rewriter, loc, l, r);
        break;
      }
    }
    replaceWithFragment(rewriter, op, lhs);
    return success();
  }
};

/// Stores `values` (consecutive columns of one row) at shared byte `offset`
/// as one vector store.
void storeVector(OpBuilder &b, Location loc, Value tileBase, Value offset,
                 ArrayRef<Value> values) {
  Value ptr = byteGep(b, loc, tileBase, offset);
  if (values.size() == 1) {
    LLVM::StoreOp::create(b, loc, values[0], ptr);
    return;
  }
  auto vecType = VectorType::get(values.size(), values[0].getType());
  Value vec = LLVM::UndefOp::create(b, loc, vecType);
  for (auto [i, v] : llvm::enumerate(values))
    vec = LLVM::InsertElementOp::create(b, loc, vec, v,
                                        i32Const(b, loc, i));
  int64_t bytes = values.size() * getElementBytes(values[0].getType());
  LLVM::StoreOp::create(b, loc, vec, ptr, bytes);
}

struct FragStoreLowering : ConvertOpToLLVMPattern<FragStoreOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(FragStoreOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    auto frag = cast<FragType>(op.getValue().getType());
    auto smem = cast<SmemType>(op.getDst().getType());
    auto layout = getTileLayout(smem);
    if (!layout)
      return op.emitOpError("destination layout: ") << layout.error();
    int64_t elemBytes = smem.getElementBytes();
    int64_t blockBytes = layout->BlockBytes;
    int64_t blockSize = layout->blockSizeBytes();
    int64_t span = getSwizzleBytes(smem.getSwizzle());
    SmallVector<Value> indices = operandGroup(op, adaptor.getOperands(), 2);
    Value tile = adaptor.getDst().front();
    if (Value off =
            tileOffset(b, loc, smem, ArrayRef<Value>(indices).drop_back()))
      tile = byteGep(b, loc, tile, off);
    Value row0 = indices.back();
    SmallVector<Value> values(adaptor.getValue().begin(),
                              adaptor.getValue().end());
    Value tid = arith::AndIOp::create(b, loc, threadIdx(b, loc),
                                      i32Const(b, loc, 127));

    // Byte offset of (row, column) for a runtime row and constant column.
    // Inside a column block a row is `blockBytes` wide, so the swizzle XORs
    // bits of the row number into the 16-byte chunk index: the swizzled
    // offset is rowBase + (columnByte ^ rowXor), with rowXor computed once
    // per row (CUTLASS Swizzle<B,4,3> on rowBase + columnByte).
    struct Row {
      Value base, xorBits;
    };
    auto rowOf = [&](Value row) {
      Value base = mulConst(b, loc, row, blockBytes);
      Value xorBits;
      if (span) {
        int64_t bits = span == 128 ? 3 : span == 64 ? 2 : 1;
        Value high = arith::ShRUIOp::create(b, loc, base, i32Const(b, loc, 7));
        Value masked = arith::AndIOp::create(b, loc, high,
                                             i32Const(b, loc, (1 << bits) - 1));
        xorBits = arith::ShLIOp::create(b, loc, masked, i32Const(b, loc, 4));
      }
      return Row{base, xorBits};
    };
    // `extraBytes` (run time) moves inside the same column block.
    auto address = [&](const Row &row, int64_t col, Value extraBytes) {
      int64_t colByte = col * elemBytes;
      int64_t block = colByte / blockBytes;
      Value inRow = i32Const(b, loc, colByte % blockBytes);
      if (extraBytes)
        inRow = arith::AddIOp::create(b, loc, inRow, extraBytes);
      if (row.xorBits)
        inRow = arith::XOrIOp::create(b, loc, inRow, row.xorBits);
      Value offset = arith::AddIOp::create(b, loc, row.base, inRow);
      if (block)
        offset = arith::AddIOp::create(b, loc, offset,
                                       i32Const(b, loc, block * blockSize));
      return offset;
    };

    int64_t n = frag.getShape()[1];
    if (frag.getLayout() == FragLayout::wgmma_acc && elemBytes == 2 &&
        n % 16 == 0) {
      // stmatrix.x4: the accumulator's pairs are exactly the m8n8 b16
      // fragments; one instruction stores rows 0-7 and 8-15 of two 8-column
      // groups, lane l giving the address of row l%8 of matrix l/8. Each
      // matrix row is one 16-byte chunk, which the swizzle keeps whole.
      Value warp = arith::ShRUIOp::create(b, loc, tid, i32Const(b, loc, 5));
      Value lane = arith::AndIOp::create(b, loc, tid, i32Const(b, loc, 31));
      Value matrix = arith::ShRUIOp::create(b, loc, lane, i32Const(b, loc, 3));
      Value rowInBlock = arith::AddIOp::create(
          b, loc, mulConst(b, loc, warp, 16),
          arith::AddIOp::create(
              b, loc,
              mulConst(b, loc,
                       arith::AndIOp::create(b, loc, matrix,
                                             i32Const(b, loc, 1)),
                       8),
              arith::AndIOp::create(b, loc, lane, i32Const(b, loc, 7))));
      // Matrices 2 and 3 are the next 8 columns: 16 bytes further.
      Value columnBytes = mulConst(
          b, loc, arith::ShRUIOp::create(b, loc, matrix, i32Const(b, loc, 1)),
          16);
      Value smemBase = sharedAddress(b, loc, tile);
      Type i32 = b.getI32Type();
      auto pack = [&](Value lo, Value hi) {
        auto vecType = VectorType::get(2, lo.getType());
        Value vec = LLVM::UndefOp::create(b, loc, vecType);
        vec = LLVM::InsertElementOp::create(b, loc, vec, lo, i32Const(b, loc, 0));
        vec = LLVM::InsertElementOp::create(b, loc, vec, hi, i32Const(b, loc, 1));
        return LLVM::BitcastOp::create(b, loc, i32, vec).getResult();
      };
      for (int64_t mb = 0; mb < frag.getShape()[0] / 64; ++mb) {
        Row row = rowOf(arith::AddIOp::create(
            b, loc, row0,
            arith::AddIOp::create(b, loc, rowInBlock,
                                  i32Const(b, loc, 64 * mb))));
        for (int64_t jj = 0; jj < n / 16; ++jj) {
          Value addr = arith::AddIOp::create(
              b, loc, smemBase, address(row, 16 * jj, columnBytes));
          SmallVector<Value> regs = {addr};
          for (int64_t m = 0; m < 4; ++m) {
            int64_t j = 2 * jj + m / 2, half = m % 2;
            int64_t base = mb * (n / 2) + 4 * j + 2 * half;
            regs.push_back(pack(values[base], values[base + 1]));
          }
          inlinePtx(b, loc, {}, regs,
                    "stmatrix.sync.aligned.m8n8.x4.shared.b16 [$0], {$1, $2, "
                    "$3, $4};",
                    "r,r,r,r,r");
        }
      }
    } else if (frag.getLayout() == FragLayout::wgmma_acc) {
      // Thread t holds, per 64-row block and 8-column group j, the pairs
      // (r, 8j + 2(t%4) + {0,1}) and (r + 8, ...) with r = 16(t/32) + (t%32)/4.
      Value warp = arith::ShRUIOp::create(b, loc, tid, i32Const(b, loc, 5));
      Value lane = arith::AndIOp::create(b, loc, tid, i32Const(b, loc, 31));
      Value rowInBlock = arith::AddIOp::create(
          b, loc, mulConst(b, loc, warp, 16),
          arith::ShRUIOp::create(b, loc, lane, i32Const(b, loc, 2)));
      Value colPair = mulConst(
          b, loc, arith::AndIOp::create(b, loc, lane, i32Const(b, loc, 3)), 2);
      Value colPairBytes = mulConst(b, loc, colPair, elemBytes);
      for (int64_t mb = 0; mb < frag.getShape()[0] / 64; ++mb) {
        for (int64_t half = 0; half < 2; ++half) {
          Row row = rowOf(arith::AddIOp::create(
              b, loc, row0,
              arith::AddIOp::create(b, loc, rowInBlock,
                                    i32Const(b, loc, 64 * mb + 8 * half))));
          for (int64_t j = 0; j < n / 8; ++j) {
            // Columns 8j + 2(t%4), + 1 of this row.
            Value off = address(row, 8 * j, colPairBytes);
            int64_t base = mb * (n / 2) + 4 * j + 2 * half;
            storeVector(b, loc, tile, off, {values[base], values[base + 1]});
          }
        }
      }
    } else {
      // row_per_thread: thread t holds row t, all columns; 16-byte stores.
      int64_t cols = n;
      int64_t perStore = 16 / elemBytes;
      Row row = rowOf(arith::AddIOp::create(b, loc, row0, tid));
      for (int64_t c = 0; c < cols; c += perStore) {
        int64_t count = std::min(perStore, cols - c);
        storeVector(b, loc, tile, address(row, c, Value()),
                    ArrayRef<Value>(values).slice(c, count));
      }
    }
    rewriter.eraseOp(op);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Syncs and fences
//===----------------------------------------------------------------------===//

struct SyncLowering : ConvertOpToLLVMPattern<SyncOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(SyncOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
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
      Value wg = arith::ShRUIOp::create(b, loc, threadIdx(b, loc),
                                        i32Const(b, loc, 7));
      Value id = arith::AddIOp::create(b, loc, wg,
                                       i32Const(b, loc, *op.getBarrierId()));
      NVVM::BarrierOp::create(b, loc, TypeRange{}, id, i32Const(b, loc, 128),
                              NVVM::BarrierReductionAttr(), Value());
      break;
    }
    }
    rewriter.eraseOp(op);
    return success();
  }
};

struct FenceLowering : ConvertOpToLLVMPattern<FenceOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(FenceOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    switch (op.getKind()) {
    case FenceKind::proxy_async:
      NVVM::FenceProxyOp::create(
          rewriter, loc, NVVM::ProxyKindAttr::get(ctx, NVVM::ProxyKind::async_shared),
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
};

//===----------------------------------------------------------------------===//
// Tensor memory and tcgen05 (sm_100a)
//===----------------------------------------------------------------------===//

#include "lib/Conversion/Tcgen05Lowering.inc"

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

/// Replaces a tile.kernel by an llvm.func whose parameters follow
/// `tile.params`, moving the body and keeping the metadata as attributes.
LogicalResult convertKernelSignature(KernelOp kernel) {
  KernelAbiAttr abi = kernel.getAbi();
  MLIRContext *ctx = kernel.getContext();
  OpBuilder b(kernel);
  Location loc = kernel.getLoc();
  auto genericPtr = LLVM::LLVMPointerType::get(ctx);
  SmallVector<Type> argTypes;
  SmallVector<Attribute> argAttrs;
  for (Attribute param : abi.getParams()) {
    if (isa<TensorMapParamAttr>(param)) {
      argTypes.push_back(genericPtr);
      argAttrs.push_back(b.getDictionaryAttr({
          b.getNamedAttr(LLVM::LLVMDialect::getByValAttrName(),
                         TypeAttr::get(LLVM::LLVMArrayType::get(b.getI8Type(), 128))),
          b.getNamedAttr(LLVM::LLVMDialect::getAlignAttrName(),
                         b.getI64IntegerAttr(64)),
          b.getNamedAttr(NVVM::NVVMDialect::getGridConstantAttrName(),
                         b.getUnitAttr()),
      }));
    } else if (isa<DimParamAttr>(param)) {
      argTypes.push_back(b.getI32Type());
      argAttrs.push_back(b.getDictionaryAttr({}));
    } else {
      int64_t arg = cast<ScalarParamAttr>(param).getArg();
      argTypes.push_back(kernel.getArgumentTypes()[arg]);
      argAttrs.push_back(b.getDictionaryAttr({}));
    }
  }
  auto funcType =
      LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx), argTypes);
  auto func = LLVM::LLVMFuncOp::create(b, loc, kernel.getSymName(), funcType);
  func.setArgAttrsAttr(b.getArrayAttr(argAttrs));
  int32_t threads = static_cast<int32_t>(kernel.getNumThreads());
  func->setAttr(NVVM::NVVMDialect::getKernelFuncAttrName(), b.getUnitAttr());
  func->setAttr(NVVM::NVVMDialect::getReqntidAttrName(),
                b.getDenseI32ArrayAttr({threads, 1, 1}));
  func->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(),
                b.getI32IntegerAttr(1));
  ArrayRef<int64_t> cluster = kernel.getCluster();
  if (kernel.getClusterSize() > 1)
    func->setAttr(NVVM::NVVMDialect::getClusterDimAttrName(),
                  b.getDenseI32ArrayAttr({(int32_t)cluster[0],
                                          (int32_t)cluster[1],
                                          (int32_t)cluster[2]}));
  // Metadata for the bundle writer.
  ctx->getLoadedDialect<TileDialect>()->getKernelAbiAttrHelper().setAttr(func,
                                                                         abi);

  Block *entry = func.addEntryBlock(b);
  Block &old = kernel.getBody().front();
  b.setInsertionPointToStart(entry);
  SmallVector<Value> replacements;
  for (auto [i, type] : llvm::enumerate(kernel.getArgumentTypes())) {
    if (isa<GlobalType>(type)) {
      auto cast = UnrealizedConversionCastOp::create(b, loc, type, ValueRange{});
      cast->setAttr(kTileArgAttr, b.getI64IntegerAttr(i));
      replacements.push_back(cast.getResult(0));
      continue;
    }
    replacements.push_back(func.getArgument(abi.getScalarParamIndex(i)));
  }
  Block *oldBlock = &old;
  entry->getOperations().splice(entry->end(), oldBlock->getOperations());
  for (auto [oldArg, repl] : llvm::zip(oldBlock->getArguments(), replacements))
    oldArg.replaceAllUsesWith(repl);
  b.setInsertionPointToEnd(entry);
  LLVM::ReturnOp::create(b, loc, ValueRange{});
  kernel.erase();
  return success();
}

/// Copies the tensor-memory slot of the allocation onto the ops that read it,
/// so that their patterns need not chase the replaced allocation.
void annotateTmemUsers(ModuleOp module) {
  module.walk([](Operation *op) {
    if (!isa<TmemAddressOp, TmemDeallocOp>(op))
      return;
    Value tmem = op->getOperand(0);
    if (auto read = tmem.getDefiningOp<TmemAddressOp>())
      tmem = read.getTmem();
    if (auto alloc = tmem.getDefiningOp<TmemAllocOp>()) {
      op->setAttr("offset", alloc.getOffsetAttr());
      op->setAttr("cta_group", alloc.getCtaGroupAttr());
    }
  });
}

struct ConvertToNVVMPass
    : public tile::impl::TileConvertToNVVMBase<ConvertToNVVMPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    annotateTmemUsers(module);
    SmallVector<KernelOp> kernels;
    module.walk([&](KernelOp k) { kernels.push_back(k); });
    for (KernelOp kernel : kernels)
      if (failed(convertKernelSignature(kernel)))
        return signalPassFailure();

    LowerToLLVMOptions options(ctx);
    LLVMTypeConverter converter(ctx, options);
    populateTileToNVVMTypeConversions(converter);
    RewritePatternSet patterns(ctx);
    populateTileToNVVMConversionPatterns(converter, patterns);

    ConversionTarget target(*ctx);
    target.addIllegalDialect<TileDialect>();
    target.addLegalDialect<LLVM::LLVMDialect, NVVM::NVVMDialect,
                           arith::ArithDialect>();
    target.addLegalOp<UnrealizedConversionCastOp>();
    scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                         target);
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      return signalPassFailure();

    // Hoist what does not change across the K loops (descriptor bases, tile
    // addresses) out of them: what LLVM's LICM bought (10% on the pipelined
    // GEMM). Only innermost loops: hoisting the epilogue's addressing out of
    // the tile loop as well made straight-line blocks on which NVPTX's
    // straight-line strength reduction took seconds.
    module.walk([](scf::ForOp loop) {
      bool innermost = true;
      loop.getBody()->walk([&](scf::ForOp) { innermost = false; });
      if (innermost)
        moveLoopInvariantCode(cast<LoopLikeOpInterface>(loop.getOperation()));
    });

    // The placeholders for global tensors have no users left.
    module.walk([](UnrealizedConversionCastOp cast) {
      if (cast->hasAttr(kTileArgAttr) && cast->use_empty())
        cast.erase();
    });
  }
};

} // namespace

void mlir::tile::populateTileToNVVMTypeConversions(
    LLVMTypeConverter &converter) {
  MLIRContext *ctx = &converter.getContext();
  // A fragment is one SSA value per element each thread holds: scalars cross
  // loops and branches as separate registers.
  converter.addConversion(
      [](FragType type, SmallVectorImpl<Type> &results) -> LogicalResult {
        results.append(type.getElementsPerThread(), type.getElementType());
        return success();
      });
  converter.addConversion([ctx](SmemType) -> Type {
    return LLVM::LLVMPointerType::get(ctx, kSharedSpace);
  });
  converter.addConversion([ctx](BarrierType type) -> Type {
    return LLVM::LLVMPointerType::get(
        ctx, type.getRemote() ? kSharedClusterSpace : kSharedSpace);
  });
  converter.addConversion(
      [ctx](TmemType) -> Type { return IntegerType::get(ctx, 32); });
  converter.addConversion([](GlobalType type) -> Type { return type; });
}

void mlir::tile::populateTileToNVVMConversionPatterns(
    LLVMTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<IdLowering, DimLowering, NumTilesLowering, CoordsLowering,
               SmemAllocLowering, BarrierAllocLowering, RemoteViewLowering,
               ArriveLowering, WaitLowering, CopyAsyncLowering,
               BulkCommitLowering, BulkWaitLowering, GemmAsyncLowering,
               GemmCommitLowering, GemmWaitLowering, FragZeroLowering,
               FragCastLowering, FragElementwiseLowering, FragStoreLowering,
               SyncLowering, FenceLowering, TmemAllocLowering,
               TmemAddressLowering, TmemDeallocLowering, TmemLoadLowering,
               TmemWaitLowering>(converter);
}

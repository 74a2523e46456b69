//===- Common.cpp - helpers shared by the tile -> NVVM patterns -----------===//

#include "lib/Conversion/TileToNVVM/Common.h"
#include "lib/Transforms/LayoutUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinOps.h"

using namespace mlir;
using namespace mlir::tile;

namespace mlir::tile::lowering {

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

/// `x` op `y` where either may be null (then the other is returned).
template <typename BinaryOp>
static Value combineOptional(OpBuilder &b, Location loc, Value x, Value y) {
  if (!x)
    return y;
  if (!y)
    return x;
  return BinaryOp::create(b, loc, x, y);
}

Value addValues(OpBuilder &b, Location loc, Value x, Value y) {
  return combineOptional<arith::AddIOp>(b, loc, x, y);
}

Value andValues(OpBuilder &b, Location loc, Value x, Value y) {
  return combineOptional<arith::AndIOp>(b, loc, x, y);
}

LLVM::LLVMPointerType sharedPtrType(MLIRContext *ctx) {
  return LLVM::LLVMPointerType::get(ctx, kSharedSpace);
}

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

Value byteGep(OpBuilder &b, Location loc, Value base, Value offset) {
  return LLVM::GEPOp::create(b, loc, base.getType(), b.getI8Type(), base,
                             ValueRange{offset});
}

Value byteGep(OpBuilder &b, Location loc, Value base, int64_t offset) {
  if (offset == 0)
    return base;
  return LLVM::GEPOp::create(
      b, loc, base.getType(), b.getI8Type(), base,
      ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(offset)});
}

Value sharedAddress(OpBuilder &b, Location loc, Value ptr) {
  return LLVM::PtrToIntOp::create(b, loc, b.getI32Type(), ptr);
}

Value threadIdx(OpBuilder &b, Location loc) {
  return NVVM::ThreadIdXOp::create(b, loc, b.getI32Type());
}

Value numCtas(OpBuilder &b, Location loc) {
  Type i32 = b.getI32Type();
  return arith::MulIOp::create(
      b, loc, NVVM::GridDimXOp::create(b, loc, i32),
      arith::MulIOp::create(b, loc, NVVM::GridDimYOp::create(b, loc, i32),
                            NVVM::GridDimZOp::create(b, loc, i32)));
}

std::pair<Value, Value> fragmentThreadCoord(OpBuilder &b, Location loc,
                                            FragType frag, Value tid) {
  if (frag.getLayout() == FragLayout::row_per_thread)
    return {tid, i32Const(b, loc, 0)};
  Value warp = arith::ShRUIOp::create(b, loc, tid, i32Const(b, loc, 5));
  Value lane = arith::AndIOp::create(b, loc, tid, i32Const(b, loc, 31));
  Value quadRow = arith::AddIOp::create(
      b, loc, mulConst(b, loc, warp, 16),
      arith::ShRUIOp::create(b, loc, lane, i32Const(b, loc, 2)));
  if (frag.getLayout() == FragLayout::quad_spread) {
    // Lane bit 0 picks the accumulator row (+8), bit 1 the half of the groups.
    Value col = arith::AddIOp::create(
        b, loc, quadRow,
        mulConst(b, loc,
                 arith::AndIOp::create(b, loc, lane, i32Const(b, loc, 1)), 8));
    Value half = arith::AndIOp::create(
        b, loc, arith::ShRUIOp::create(b, loc, lane, i32Const(b, loc, 1)),
        i32Const(b, loc, 1));
    return {mulConst(b, loc, half, frag.getShape()[0] / 2), col};
  }
  Value col = mulConst(
      b, loc, arith::AndIOp::create(b, loc, lane, i32Const(b, loc, 3)), 2);
  return {quadRow, col};
}

Value tileOffset(OpBuilder &b, Location loc, SmemType type,
                 ValueRange leading) {
  Value offset;
  for (auto [i, index] : llvm::enumerate(leading))
    offset = addValues(b, loc, offset,
                       mulConst(b, loc, index, getTileStride(type, i)));
  return offset;
}

/// The allocation's `offset` (set by tile-allocate-smem), or -1.
static int64_t getOffset(Operation *op) {
  auto attr = op->getAttrOfType<IntegerAttr>("offset");
  return attr ? attr.getInt() : -1;
}

FailureOr<Value> poolAddress(Operation *op, OpBuilder &b, StringRef what) {
  int64_t offset = getOffset(op);
  if (offset < 0)
    return op->emitOpError("has no ")
           << what << "; run tile-allocate-smem first";
  Location loc = op->getLoc();
  return byteGep(b, loc, getSmemBase(b, loc, op), offset);
}

Value barrierAt(OpBuilder &b, Location loc, Value base, Value index) {
  return byteGep(b, loc, base, mulConst(b, loc, index, 8));
}

//===----------------------------------------------------------------------===//
// Inline PTX and structs
//===----------------------------------------------------------------------===//

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
      constraints, /*has_side_effects=*/true,
      /*is_align_stack=*/false, LLVM::TailCallKind::None,
      LLVM::AsmDialectAttr(), ArrayAttr());
  if (results.empty())
    return {};
  if (results.size() == 1)
    return {asmOp.getResult(0)};
  return unpackStruct(b, loc, asmOp.getResult(0));
}

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
  return inlinePtx(b, loc, values.getTypes(), values, "", constraints);
}

//===----------------------------------------------------------------------===//
// Fragments
//===----------------------------------------------------------------------===//

void replaceWithFragment(ConversionPatternRewriter &rewriter, Operation *op,
                         ValueRange values) {
  SmallVector<SmallVector<Value>> replacement;
  replacement.emplace_back(values.begin(), values.end());
  rewriter.replaceOpWithMultiple(op, std::move(replacement));
}

SmallVector<Value> alignToFragment(Type operandType, ValueRange values,
                                   FragType result) {
  int64_t regs = result.getElementsPerThread();
  auto frag = dyn_cast<FragType>(operandType);
  if (!frag)
    return SmallVector<Value>(regs, values.front());
  if (frag.getBroadcast() == result.getBroadcast())
    return SmallVector<Value>(values.begin(), values.end());
  // Both line up with the full fragment's registers: result register r takes
  // the operand's register of the first full register that r stands for.
  tilec::FragmentShape shape = result.getSupportShape();
  tilec::BroadcastMap from =
      tilec::fragmentBroadcastMap(shape, frag.getSupportBroadcast());
  tilec::BroadcastMap to =
      tilec::fragmentBroadcastMap(shape, result.getSupportBroadcast());
  SmallVector<Value> aligned(regs);
  for (auto [reg, slot] : llvm::enumerate(to.SlotOfReg))
    if (!aligned[slot])
      aligned[slot] = values[from.SlotOfReg[reg]];
  return aligned;
}

//===----------------------------------------------------------------------===//
// The kernel ABI
//===----------------------------------------------------------------------===//

LLVM::LLVMFuncOp getFunc(Operation *op) {
  return op->getParentOfType<LLVM::LLVMFuncOp>();
}

KernelAbiAttr getKernelAbi(LLVM::LLVMFuncOp func) {
  return func->getContext()
      ->getLoadedDialect<TileDialect>()
      ->getKernelAbiAttrHelper()
      .getAttr(func);
}

int64_t getGlobalArg(Value v) {
  auto cast = v.getDefiningOp<UnrealizedConversionCastOp>();
  if (!cast)
    return -1;
  if (auto arg = cast->getAttrOfType<IntegerAttr>(kGlobalArgAttr))
    return arg.getInt();
  if (cast->hasAttr(kPeerViewAttr))
    return getGlobalArg(cast.getOperand(0));
  return -1;
}

Value getPeerOffset(OpBuilder &b, Location loc, Value v) {
  Value total;
  while (auto cast = v.getDefiningOp<UnrealizedConversionCastOp>()) {
    if (!cast->hasAttr(kPeerViewAttr))
      break;
    Value offset = cast.getOperand(1);
    total = total ? arith::AddIOp::create(b, loc, total, offset) : offset;
    v = cast.getOperand(0);
  }
  return total;
}

//===----------------------------------------------------------------------===//
// MMA operands
//===----------------------------------------------------------------------===//

GemmOperands getGemmOperands(GemmAsyncOp op, ArrayRef<ValueRange> operands) {
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
  return g;
}

FailureOr<MmaTiles> getMmaTiles(GemmAsyncOp op, SmemDescEncoder encode,
                                StringRef unit) {
  MmaTiles t;
  t.aType = cast<SmemType>(op.getA().getType());
  t.bType = cast<SmemType>(op.getB().getType());
  // The gemm_async verifier and tile-dispatch accepted both layouts.
  t.aLayout = llvm::cantFail(getTileLayout(t.aType));
  t.bLayout = llvm::cantFail(getTileLayout(t.bType));
  for (auto [layout, desc, major] :
       {std::tuple(&t.aLayout, &t.aDesc, op.getAMajor()),
        std::tuple(&t.bLayout, &t.bDesc, op.getBMajor())}) {
    llvm::Expected<uint64_t> encoded = encode(*layout, toSupportMajor(major));
    if (!encoded)
      return op.emitOpError("cannot build a ")
             << unit << " descriptor: " << llvm::toString(encoded.takeError());
    *desc = *encoded;
  }
  return t;
}

MmaOperandRef mmaOperandRef(OpBuilder &b, Location loc, SmemType type,
                            Value base, ValueRange indices,
                            const tilec::SmemTileLayout &layout,
                            tilec::MmaMajor major) {
  // The terms of the operand's offset: (index, bytes per index step).
  SmallVector<std::pair<Value, int64_t>> terms;
  for (auto [i, index] : llvm::enumerate(indices.drop_back()))
    terms.push_back({index, getTileStride(type, i)});
  if (major == tilec::MmaMajor::K) {
    // Rows are BlockBytes apart inside each column block.
    terms.push_back({indices.back(), layout.BlockBytes});
  } else {
    // The first column starts a column block (the verifier checks constant
    // columns); blocks follow each other.
    Value block = arith::DivUIOp::create(
        b, loc, indices.back(),
        i32Const(b, loc, layout.BlockBytes / layout.ElemBytes));
    terms.push_back({block, layout.blockSizeBytes()});
  }
  MmaOperandRef ref;
  ref.buffer = sharedAddress(b, loc, base);
  ref.inUnits = llvm::all_of(terms, [](auto &t) { return t.second % 16 == 0; });
  for (auto [index, bytes] : terms)
    ref.offset =
        addValues(b, loc, ref.offset,
                  mulConst(b, loc, index, ref.inUnits ? bytes / 16 : bytes));
  return ref;
}

Value buildSmemDesc(OpBuilder &b, Location loc, uint64_t constant,
                    const MmaOperandRef &ref, int64_t offset) {
  // The address field, ((address + offset) & 0x3FFFF) >> 4 in bits 0-13, is
  // computed as the buffer's field (one per buffer: loop-invariant) or'ed
  // with the constant's low word, plus the operand's run-time offset and
  // the constant offset in 16-byte units: equal for every address inside
  // the shared window (the masked address plus the offsets stays below
  // 2^18, so the sum never carries out of bits 0-13, and buffers are
  // 16-byte aligned). A stage or K step then spends an add (and the stage's
  // multiply) per descriptor where it spent an add, a shift, a mask and an
  // or: DeepGEMM's base descriptor plus a stage stride. Offsets in other
  // units (the lowerings make none) take the long way.
  bool inUnits = ref.inUnits && offset >= 0 && offset % 16 == 0;
  Value addr = ref.buffer;
  if (!inUnits) {
    // The long way adds bytes: the run-time offset back from its units.
    Value bytes = ref.offset && ref.inUnits ? mulConst(b, loc, ref.offset, 16)
                                            : ref.offset;
    addr = addValues(b, loc, addr, bytes);
    addr = arith::AddIOp::create(b, loc, addr, i32Const(b, loc, offset));
  }
  Value field = arith::ShRUIOp::create(
      b, loc, arith::AndIOp::create(b, loc, addr, i32Const(b, loc, 0x3FFFF)),
      i32Const(b, loc, 4));
  Value low = arith::OrIOp::create(
      b, loc, field,
      i32Const(b, loc, static_cast<int32_t>(constant & 0xFFFFFFFFu)));
  if (inUnits) {
    low = addValues(b, loc, low, ref.offset);
    if (offset != 0)
      low = arith::AddIOp::create(b, loc, low, i32Const(b, loc, offset / 16));
  }
  Value wide = arith::ExtUIOp::create(b, loc, b.getI64Type(), low);
  return arith::OrIOp::create(
      b, loc, wide,
      i64Const(b, loc,
               static_cast<int64_t>(constant & ~uint64_t(0xFFFFFFFFu))));
}

} // namespace mlir::tile::lowering

//===- Loads.cpp - loads into registers, guarded stores, 1-D copies -------===//
//
// tile.load, tile.store (shared), tile.atomic, tile.grid_sync (through a
// global counter), tile.frag.load and tile.frag.store_global address memory
// element by element. A global tensor is
// its pointer parameter plus its strides (KernelOp::getAbi), and every access
// is guarded by its dims: a load past the edge reads 16 zero bytes in global
// memory (__tile_zeros) instead, so no access can fault and no branch is taken;
// a store there is skipped. A shared buffer is read where the pool put it,
// unguarded. The registers a thread holds come from lib/Support's fragment map
// (fragmentMemoryCoord): thread 0's coordinates plus the thread's offset.
//
// A copy_async of a rank-1 tensor is a 1-D TMA copy (one box) or, where
// tile-dispatch chose it, a bulk copy (cp.async.bulk), guarded at the
// tensor's end: it copies the bytes inside the tensor and completes the
// rest of the barrier's transaction count with mbarrier.complete_tx.
//
//===----------------------------------------------------------------------===//

#include "lib/Conversion/TileToNVVM/Common.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::lowering;

namespace {

constexpr StringLiteral kZerosSymbol = "__tile_zeros";
/// The widest access (16 bytes) reads from __tile_zeros.
constexpr int64_t kZerosBytes = 16;

/// The address of 16 zero bytes in global memory, what an access past a
/// tensor's edge reads; declared once per module.
Value getZerosAddress(OpBuilder &b, Location loc, Operation *from) {
  auto module = from->getParentOfType<ModuleOp>();
  MLIRContext *ctx = b.getContext();
  if (!module.lookupSymbol(kZerosSymbol)) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    LLVM::GlobalOp::create(
        b, loc, LLVM::LLVMArrayType::get(b.getI8Type(), kZerosBytes),
        /*isConstant=*/true, LLVM::Linkage::Internal, kZerosSymbol,
        b.getStringAttr(std::string(kZerosBytes, '\0')),
        /*alignment=*/kZerosBytes, kGlobalSpace);
  }
  return LLVM::AddressOfOp::create(
      b, loc, LLVM::LLVMPointerType::get(ctx, kGlobalSpace), kZerosSymbol);
}

/// A load's source or a store's destination, addressed element by element.
struct Memory {
  Value base; ///< !llvm.ptr<1> (global) or !llvm.ptr<3> (shared)
  bool global = false;
  SmallVector<Value> dims;    ///< i32, for the guards (global only)
  SmallVector<Value> strides; ///< elements: i64 (global), i32 (shared)
  Type elementType;           ///< as converted (fp8 is i8)
  int64_t elementBytes = 0;
};

/// The memory of `type`, whose converted value is `converted`: a shared
/// buffer's pool address, or a global tensor's pointer, dims and strides.
FailureOr<Memory> getMemory(Operation *op, Type type, Value converted,
                            const TypeConverter &converter, OpBuilder &b) {
  Location loc = op->getLoc();
  Memory m;
  if (auto smem = dyn_cast<SmemType>(type)) {
    m.base = converted;
    m.elementType = converter.convertType(smem.getElementType());
    m.elementBytes = smem.getElementBytes();
    ArrayRef<int64_t> shape = smem.getShape();
    m.strides.resize(shape.size());
    int64_t stride = 1;
    for (size_t d = shape.size(); d-- > 0;) {
      m.strides[d] = i32Const(b, loc, stride);
      stride *= shape[d];
    }
    return m;
  }
  auto global = cast<GlobalType>(type);
  LLVM::LLVMFuncOp func = getFunc(op);
  KernelAbiAttr abi = getKernelAbi(func);
  int64_t arg = getGlobalArg(converted);
  int64_t pointer = abi.getPointerParamIndex(arg);
  if (pointer < 0)
    return op->emitOpError("has no pointer parameter for its tensor");
  m.global = true;
  m.base = func.getArgument(pointer);
  // A peer's copy of the tensor: its bytes lie `offset` away.
  if (Value offset = getPeerOffset(b, loc, converted))
    m.base = LLVM::GEPOp::create(b, loc, m.base.getType(), b.getI8Type(),
                                 m.base, ValueRange{offset});
  m.elementType = converter.convertType(global.getElementType());
  m.elementBytes = getElementBytes(global.getElementType());
  for (unsigned d = 0; d < global.getRank(); ++d) {
    if (!global.isDynamicDim(d)) {
      m.dims.push_back(i32Const(b, loc, global.getShape()[d]));
    } else {
      int64_t param = abi.getDimParamIndex(arg, d);
      if (param < 0)
        return op->emitOpError("has no parameter for dim ") << d;
      m.dims.push_back(func.getArgument(param));
    }
    if (d + 1 == global.getRank()) {
      m.strides.push_back(i64Const(b, loc, 1)); // contiguous (runtime check)
      continue;
    }
    int64_t param = abi.getStrideParamIndex(arg, d);
    if (param < 0)
      return op->emitOpError("has no parameter for the stride of dim ") << d;
    m.strides.push_back(func.getArgument(param));
  }
  return m;
}

/// `index` of dimension `dim` times its stride, in the offset type.
Value scaledIndex(OpBuilder &b, Location loc, const Memory &m, Value index,
                  unsigned dim) {
  if (m.global)
    index = arith::ExtSIOp::create(b, loc, b.getI64Type(), index);
  if (dim + 1 == m.strides.size())
    return index; // the innermost dimension is contiguous
  return arith::MulIOp::create(b, loc, index, m.strides[dim]);
}

/// `index` names an element of dimension `dim` (a negative one does not);
/// null for shared memory, which is not guarded.
Value insideDim(OpBuilder &b, Location loc, const Memory &m, Value index,
                unsigned dim) {
  if (!m.global)
    return Value();
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, index,
                               m.dims[dim]);
}

Value elementAddress(OpBuilder &b, Location loc, const Memory &m,
                     Value offset) {
  return LLVM::GEPOp::create(b, loc, m.base.getType(), m.elementType, m.base,
                             ValueRange{offset});
}

/// One element of a tensor or buffer: its memory, its address and whether
/// it lies inside the tensor (null for shared memory, which is not guarded).
struct Element {
  Memory memory;
  Value address;
  Value inside;
};

/// The element at `indices` of `type`, whose converted value is
/// `converted`: what each scalar access (load, store, atomic, grid sync)
/// starts from.
FailureOr<Element> getElement(Operation *op, Type type, Value converted,
                              ValueRange indices,
                              const TypeConverter &converter, OpBuilder &b) {
  Location loc = op->getLoc();
  FailureOr<Memory> m = getMemory(op, type, converted, converter, b);
  if (failed(m))
    return failure();
  Value offset, inside;
  for (auto [d, index] : llvm::enumerate(indices)) {
    offset = addValues(b, loc, offset, scaledIndex(b, loc, *m, index, d));
    inside = andValues(b, loc, inside, insideDim(b, loc, *m, index, d));
  }
  return Element{*m, elementAddress(b, loc, *m, offset), inside};
}

/// The type one access of `width` elements moves: the element, or a vector
/// of them; 8- and 16-bit elements as 16- and 32-bit words, which NVPTX would
/// otherwise split into one instruction per element.
Type accessType(OpBuilder &b, const Memory &m, int64_t width) {
  if (width == 1)
    return m.elementType;
  int64_t bytes = width * m.elementBytes;
  if (m.elementBytes >= 4)
    return VectorType::get(width, m.elementType);
  if (bytes <= 4)
    return b.getIntegerType(8 * bytes);
  return VectorType::get(bytes / 4, b.getI32Type());
}

/// How an ordered load reads: LLVM's atomic ordering and the NVPTX sync
/// scope that prints as PTX's (ld.acquire.gpu, ld.relaxed.sys, ...).
struct LoadOrdering {
  LLVM::AtomicOrdering ordering = LLVM::AtomicOrdering::not_atomic;
  StringRef syncscope;
};

LoadOrdering getLoadOrdering(LoadOp op) {
  LoadOrdering result;
  std::optional<MemoryOrder> order = op.getOrder();
  if (!order)
    return result;
  result.ordering = *order == MemoryOrder::acquire
                        ? LLVM::AtomicOrdering::acquire
                        : LLVM::AtomicOrdering::monotonic;
  switch (op.getScope().value_or(MemoryScope::gpu)) {
  case MemoryScope::cta:
    result.syncscope = "block";
    break;
  case MemoryScope::cluster:
    result.syncscope = "cluster";
    break;
  case MemoryScope::gpu:
    result.syncscope = "device";
    break;
  case MemoryScope::sys:
    result.syncscope = ""; // the system scope
    break;
  }
  return result;
}

/// Reads `width` consecutive elements at `ptr`. Where `inside` is false (a
/// guarded global access) it reads __tile_zeros instead, then `other` if
/// given. `nc`: through the read-only cache (ld.global.nc); `ordering`: an
/// ordered load of one element.
SmallVector<Value> readElements(OpBuilder &b, Location loc, Operation *op,
                                const Memory &m, Value ptr, Value inside,
                                int64_t width, bool nc, Value other,
                                LoadOrdering ordering = {}) {
  if (inside)
    ptr = LLVM::SelectOp::create(b, loc, inside, ptr,
                                 getZerosAddress(b, loc, op));
  Type type = accessType(b, m, width);
  Value loaded =
      LLVM::LoadOp::create(b, loc, type, ptr, width * m.elementBytes,
                           /*isVolatile=*/false,
                           /*isNonTemporal=*/false,
                           /*isInvariant=*/nc, /*isInvariantGroup=*/false,
                           ordering.ordering, ordering.syncscope);
  SmallVector<Value> elements;
  if (width == 1) {
    elements.push_back(loaded);
  } else if (m.elementBytes >= 4) {
    for (int64_t i = 0; i < width; ++i)
      elements.push_back(
          LLVM::ExtractElementOp::create(b, loc, loaded, i32Const(b, loc, i)));
  } else {
    // Split the words with shifts: a bitcast to a vector of halves would
    // fold into the load, which NVPTX then splits again.
    Type bits = b.getIntegerType(8 * m.elementBytes);
    int64_t perWord = 4 / m.elementBytes;
    for (int64_t i = 0; i < width; ++i) {
      Value word = loaded;
      if (auto words = dyn_cast<VectorType>(type))
        word = LLVM::ExtractElementOp::create(b, loc, loaded,
                                              i32Const(b, loc, i / perWord));
      int64_t shift = 8 * m.elementBytes * (i % perWord);
      if (shift)
        word = LLVM::LShrOp::create(
            b, loc, word,
            LLVM::ConstantOp::create(b, loc, word.getType(),
                                     b.getIntegerAttr(word.getType(), shift)));
      Value element = LLVM::TruncOp::create(b, loc, bits, word);
      if (element.getType() != m.elementType)
        element = LLVM::BitcastOp::create(b, loc, m.elementType, element);
      elements.push_back(element);
    }
  }
  if (other && inside)
    for (Value &element : elements)
      element = arith::SelectOp::create(b, loc, inside, element, other);
  return elements;
}

/// One access of a fragment: `width` registers from `reg` on at `ptr`,
/// inside the tensor where `inside` holds (null: unguarded).
struct Access {
  int64_t reg;
  Value ptr;
  Value inside;
};

/// The accesses of `frag` in `m` from `indices`, one per dimension: the
/// leading ones, then the start of each dimension the fragment spans (rows
/// and columns of a full fragment; the last one of a broadcast fragment).
/// `threadGuard` (if given) joins each access's guard: the threads that
/// access at all. `rowNumbers` (a gather or scatter: the registers of an
/// i32 rows fragment of `frag`'s shape and layout) moves row r of a full
/// fragment to the tensor's row start + rowNumbers[r].
SmallVector<Access> fragmentAccesses(OpBuilder &b, Location loc,
                                     const Memory &m, FragType frag,
                                     ArrayRef<Value> indices, int64_t width,
                                     Value threadGuard = Value(),
                                     ArrayRef<Value> rowNumbers = {}) {
  unsigned rank = indices.size();
  bool full = !frag.isBroadcast();
  unsigned spanned = full ? 2 : 1;
  Value leading, inside;
  for (unsigned d = 0; d + spanned < rank; ++d) {
    leading = addValues(b, loc, leading, scaledIndex(b, loc, m, indices[d], d));
    inside = andValues(b, loc, inside, insideDim(b, loc, m, indices[d], d));
  }
  auto [rowOffset, colOffset] = fragmentThreadCoord(
      b, loc, frag,
      arith::AndIOp::create(b, loc, threadIdx(b, loc), i32Const(b, loc, 127)));
  Value lineOffset =
      frag.getBroadcast() == FragBroadcast::rows ? rowOffset : colOffset;
  tilec::FragmentShape shape = frag.getSupportShape();
  tilec::FragmentBroadcast broadcast = frag.getSupportBroadcast();
  // The register of the row numbers that holds each of the thread's rows
  // (a rows register's row is its position along memory's innermost
  // dimension: the coordinate's Col).
  llvm::DenseMap<uint32_t, Value> rowNumberOf;
  for (auto [reg, number] : llvm::enumerate(rowNumbers))
    rowNumberOf[tilec::fragmentMemoryCoord(shape,
                                           tilec::FragmentBroadcast::Rows, 0,
                                           static_cast<uint32_t>(reg))
                    .Col] = number;
  // A full fragment's rows: the offset and guard of each, made once.
  llvm::DenseMap<uint32_t, std::pair<Value, Value>> rows;
  auto rowOf = [&](uint32_t row) {
    auto it = rows.find(row);
    if (it != rows.end())
      return it->second;
    Value index = arith::AddIOp::create(
        b, loc, indices[rank - 2],
        rowNumbers.empty()
            ? arith::AddIOp::create(b, loc, rowOffset, i32Const(b, loc, row))
                  .getResult()
            : rowNumberOf.lookup(row));
    auto entry = std::make_pair(scaledIndex(b, loc, m, index, rank - 2),
                                insideDim(b, loc, m, index, rank - 2));
    rows[row] = entry;
    return entry;
  };
  // The thread's first column, extended to the offset type once: each
  // access adds its constant column there, so the backend sees one base
  // address plus immediates instead of an extension per access (the
  // innermost dimension is contiguous, its stride 1).
  Value colStart = arith::AddIOp::create(b, loc, indices[rank - 1],
                                         full ? colOffset : lineOffset);
  Value colStartOffset = scaledIndex(b, loc, m, colStart, rank - 1);
  auto offsetConst = [&](int64_t v) {
    return m.global ? i64Const(b, loc, v) : i32Const(b, loc, v);
  };
  SmallVector<Access> accesses;
  int64_t regs = frag.getElementsPerThread();
  for (int64_t reg = 0; reg < regs; reg += width) {
    tilec::TileCoord coord = tilec::fragmentMemoryCoord(
        shape, broadcast, 0, static_cast<uint32_t>(reg));
    Value offset = leading, ok;
    if (full) {
      auto [rowPart, rowInside] = rowOf(coord.Row);
      offset = addValues(b, loc, offset, rowPart);
      ok = rowInside;
    }
    Value col = colStartOffset;
    Value pos = colStart;
    if (coord.Col) {
      col = arith::AddIOp::create(b, loc, col, offsetConst(coord.Col));
      pos = arith::AddIOp::create(b, loc, pos, i32Const(b, loc, coord.Col));
    }
    offset = addValues(b, loc, offset, col);
    // The register's own guard first, then the leading dims': accesses of
    // several fragments at the same rows and columns (one per query of
    // mqa_logits) share the first part.
    ok = andValues(b, loc, ok, insideDim(b, loc, m, pos, rank - 1));
    ok = andValues(b, loc, andValues(b, loc, ok, threadGuard), inside);
    accesses.push_back({reg, elementAddress(b, loc, m, offset), ok});
  }
  return accesses;
}

/// `elements`, consecutive in memory, as the value one access moves
/// (accessType).
Value packAccess(OpBuilder &b, Location loc, const Memory &m,
                 ArrayRef<Value> elements) {
  int64_t width = elements.size();
  if (width == 1)
    return elements.front();
  Value value =
      LLVM::UndefOp::create(b, loc, VectorType::get(width, m.elementType));
  for (int64_t i = 0; i < width; ++i)
    value = LLVM::InsertElementOp::create(b, loc, value, elements[i],
                                          i32Const(b, loc, i));
  Type type = accessType(b, m, width);
  if (type != value.getType())
    value = LLVM::BitcastOp::create(b, loc, type, value);
  return value;
}

/// Stores `elements` at the global `ptr` where `pred` holds, as one
/// predicated st.global. Inline PTX because no NVVM op stores under a
/// predicate: an llvm.store inside an scf.if let NVPTX sink each store's
/// address and the value's last ops into a branch of its own, which ptxas
/// kept (BSSY/BSYNC/BRA around every store); mqa_logits spent 40 of its 261
/// SASS instructions per key block there (docs/passes.md).
void storePredicated(OpBuilder &b, Location loc, const Memory &m,
                     ArrayRef<Value> elements, Value ptr, Value pred) {
  int64_t bytes = static_cast<int64_t>(elements.size()) * m.elementBytes;
  Value packed = packAccess(b, loc, m, elements);
  SmallVector<Value> operands = {pred, ptr};
  std::string constraints = "b,l";
  std::string ptx;
  if (bytes <= 2) {
    // A byte or a half as a 16-bit register.
    Type bits = b.getIntegerType(8 * bytes);
    if (packed.getType() != bits)
      packed = LLVM::BitcastOp::create(b, loc, bits, packed);
    if (bytes == 1)
      packed = LLVM::ZExtOp::create(b, loc, b.getI16Type(), packed);
    operands.push_back(packed);
    constraints += ",h";
    ptx = bytes == 1 ? "@$0 st.global.b8 [$1], $2;"
                     : "@$0 st.global.b16 [$1], $2;";
  } else {
    // Whole 32-bit words: b32, v2.b32 or v4.b32.
    int64_t words = bytes / 4;
    Type wordsType = words == 1 ? Type(b.getI32Type())
                                : Type(VectorType::get(words, b.getI32Type()));
    if (packed.getType() != wordsType)
      packed = LLVM::BitcastOp::create(b, loc, wordsType, packed);
    std::string list;
    for (int64_t i = 0; i < words; ++i) {
      Value word = words == 1 ? packed
                              : LLVM::ExtractElementOp::create(
                                    b, loc, packed, i32Const(b, loc, i))
                                    .getResult();
      operands.push_back(word);
      constraints += ",r";
      list += (i ? ", $" : "$") + std::to_string(i + 2);
    }
    ptx = words == 1 ? "@$0 st.global.b32 [$1], " + list + ";"
                     : "@$0 st.global.v" + std::to_string(words) +
                           ".b32 [$1], {" + list + "};";
  }
  inlinePtx(b, loc, {}, operands, ptx, constraints);
}

/// Stores `elements` at `ptr`: predicated on `guard` (a global access's
/// inside-the-tensor test) where there is one, else a plain store.
void storeElements(OpBuilder &b, Location loc, const Memory &m,
                   ArrayRef<Value> elements, Value ptr, Value guard) {
  if (guard)
    storePredicated(b, loc, m, elements, ptr, guard);
  else
    LLVM::StoreOp::create(b, loc, packAccess(b, loc, m, elements), ptr,
                          static_cast<int64_t>(elements.size()) *
                              m.elementBytes);
}

LogicalResult lowerLoad(LoadOp op, LoadOp::Adaptor adaptor,
                        ConversionPatternRewriter &rewriter,
                        const LLVMTypeConverter &converter) {
  Location loc = op.getLoc();
  OpBuilder &b = rewriter;
  FailureOr<Element> e =
      getElement(op, op.getSource().getType(), adaptor.getSource(),
                 adaptor.getIndices(), converter, b);
  if (failed(e))
    return failure();
  SmallVector<Value> value =
      readElements(b, loc, op, e->memory, e->address, e->inside, 1, op.getNc(),
                   adaptor.getOther(), getLoadOrdering(op));
  rewriter.replaceOp(op, value.front());
  return success();
}

/// atom / red with PTX's .sem and .scope as inline PTX: LLVM 22's NVPTX
/// prints an atomicrmw's ordering and scope as neither (a release add
/// became a plain atom.global.add, 2026-12-06), and NVVM has no such op.
/// Past the tensor's edge the predicate skips the update and the result
/// is 0.
LogicalResult lowerAtomic(AtomicOp op, AtomicOp::Adaptor adaptor,
                          ConversionPatternRewriter &rewriter,
                          const LLVMTypeConverter &converter) {
  Location loc = op.getLoc();
  OpBuilder &b = rewriter;
  FailureOr<Element> e =
      getElement(op, op.getDest().getType(), adaptor.getDest(),
                 adaptor.getIndices(), converter, b);
  if (failed(e))
    return failure();
  Value ptr = e->address;
  Value guard = arith::ExtUIOp::create(b, loc, b.getI32Type(), e->inside);
  Type elementType = e->memory.elementType;
  bool isFloat = elementType.isF32();
  StringRef type;
  switch (op.getKind()) {
  case AtomicKind::add:
    type = isFloat ? ".f32" : ".u32";
    break;
  case AtomicKind::max:
  case AtomicKind::min:
    type = ".s32";
    break;
  case AtomicKind::exch:
    type = ".b32";
    break;
  }
  std::string qualifiers = "." + stringifyMemoryOrder(op.getOrder()).str() +
                           "." + stringifyMemoryScope(op.getScope()).str() +
                           ".global." +
                           stringifyAtomicKind(op.getKind()).str() + type.str();
  // red (no result) takes relaxed and release only.
  bool reduce = op.getOld().use_empty() && op.getKind() != AtomicKind::exch &&
                (op.getOrder() == MemoryOrder::relaxed ||
                 op.getOrder() == MemoryOrder::release);
  StringRef reg = isFloat ? "f" : "r";
  if (reduce) {
    inlinePtx(b, loc, {}, {ptr, guard, adaptor.getValue()},
              "{\n.reg .pred p;\nsetp.ne.b32 p, $1, 0;\n@p red" + qualifiers +
                  " [$0], $2;\n}",
              ("l,r," + reg).str());
    // The result has no use: any value of its type stands for it.
    rewriter.replaceOp(op, adaptor.getValue());
    return success();
  }
  std::string zero = isFloat ? "0f00000000" : "0";
  Value old =
      inlinePtx(b, loc, {elementType}, {ptr, guard, adaptor.getValue()},
                "{\n.reg .pred p;\nsetp.ne.b32 p, $2, 0;\nmov.b32 $0, " + zero +
                    ";\n@p atom" + qualifiers + " $0, [$1], $3;\n}",
                ("=" + reg + ",l,r," + reg).str())
          .front();
  rewriter.replaceOp(op, old);
  return success();
}

/// CUDA's grid.sync(), on the counter: a CTA barrier; thread 0 fences,
/// adds 1 (atom.release.gpu), waits with acquire loads until the counter
/// reaches the next multiple of the CTA count (a signed difference, so the
/// counter may wrap), fences; a CTA barrier.
LogicalResult lowerGridSync(GridSyncOp op, GridSyncOp::Adaptor adaptor,
                            ConversionPatternRewriter &rewriter,
                            const LLVMTypeConverter &converter) {
  Location loc = op.getLoc();
  OpBuilder &b = rewriter;
  FailureOr<Element> e =
      getElement(op, op.getCounter().getType(), adaptor.getCounter(),
                 adaptor.getIndices(), converter, b);
  if (failed(e))
    return failure();
  Value ptr = e->address, inside = e->inside;
  Type i32 = b.getI32Type();
  NVVM::Barrier0Op::create(b, loc);
  Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                      threadIdx(b, loc), i32Const(b, loc, 0));
  auto ifOp =
      scf::IfOp::create(b, loc, arith::AndIOp::create(b, loc, first, inside),
                        /*withElseRegion=*/false);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    LLVM::FenceOp::create(b, loc, LLVM::AtomicOrdering::acq_rel, "device");
    Value old =
        inlinePtx(b, loc, {i32}, {ptr},
                  "atom.add.release.gpu.global.u32 $0, [$1], 1;", "=r,l")
            .front();
    Value ctas = numCtas(b, loc);
    Value target = arith::MulIOp::create(
        b, loc,
        arith::AddIOp::create(b, loc, arith::DivUIOp::create(b, loc, old, ctas),
                              i32Const(b, loc, 1)),
        ctas);
    auto spin = scf::WhileOp::create(b, loc, TypeRange{}, ValueRange{});
    {
      OpBuilder::InsertionGuard inner(b);
      b.createBlock(&spin.getBefore());
      Value now = LLVM::LoadOp::create(
          b, loc, i32, ptr, /*alignment=*/4, /*isVolatile=*/false,
          /*isNonTemporal=*/false, /*isInvariant=*/false,
          /*isInvariantGroup=*/false, LLVM::AtomicOrdering::acquire, "device");
      Value behind = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::slt,
          arith::SubIOp::create(b, loc, now, target), i32Const(b, loc, 0));
      scf::ConditionOp::create(b, loc, behind, ValueRange{});
      b.createBlock(&spin.getAfter());
      scf::YieldOp::create(b, loc);
    }
    LLVM::FenceOp::create(b, loc, LLVM::AtomicOrdering::acq_rel, "device");
  }
  NVVM::Barrier0Op::create(b, loc);
  rewriter.eraseOp(op);
  return success();
}

/// A cast marked kPeerViewAttr that getMemory reads back: the offset is
/// added to the pointer where the view is accessed.
LogicalResult lowerPeerView(PeerViewOp op, PeerViewOp::Adaptor adaptor,
                            ConversionPatternRewriter &rewriter) {
  auto cast = UnrealizedConversionCastOp::create(
      rewriter, op.getLoc(), op.getType(),
      ValueRange{adaptor.getTensor(), adaptor.getOffset()});
  cast->setAttr(kPeerViewAttr, rewriter.getUnitAttr());
  rewriter.replaceOp(op, cast.getResult(0));
  return success();
}

LogicalResult lowerStore(StoreOp op, StoreOp::Adaptor adaptor,
                         ConversionPatternRewriter &rewriter,
                         const LLVMTypeConverter &converter) {
  Location loc = op.getLoc();
  OpBuilder &b = rewriter;
  FailureOr<Element> e =
      getElement(op, op.getDest().getType(), adaptor.getDest(),
                 adaptor.getIndices(), converter, b);
  if (failed(e))
    return failure();
  // A global element is written only inside the tensor (as loads read).
  storeElements(b, loc, e->memory, {adaptor.getValue()}, e->address, e->inside);
  rewriter.eraseOp(op);
  return success();
}

LogicalResult lowerFragLoad(FragLoadOp op, OneToNAdaptor<FragLoadOp> adaptor,
                            ConversionPatternRewriter &rewriter,
                            const LLVMTypeConverter &converter) {
  Location loc = op.getLoc();
  OpBuilder &b = rewriter;
  auto frag = cast<FragType>(op.getType());
  FailureOr<Memory> m = getMemory(op, op.getSource().getType(),
                                  adaptor.getSource().front(), converter, b);
  if (failed(m))
    return failure();
  SmallVector<Value> indices = operandGroup(op, adaptor.getOperands(), 1);
  SmallVector<Value> rowNumbers = operandGroup(op, adaptor.getOperands(), 2);
  SmallVector<Value> other = operandGroup(op, adaptor.getOperands(), 3);
  int64_t width = op.getVectorWidth();
  SmallVector<Value> values;
  for (const Access &access :
       fragmentAccesses(b, loc, *m, frag, indices, width, Value(), rowNumbers))
    llvm::append_range(values,
                       readElements(b, loc, op, *m, access.ptr, access.inside,
                                    width, op.getNc(),
                                    other.empty() ? Value() : other.front()));
  replaceWithFragment(rewriter, op, values);
  return success();
}

LogicalResult lowerFragStoreGlobal(FragStoreGlobalOp op,
                                   OneToNAdaptor<FragStoreGlobalOp> adaptor,
                                   ConversionPatternRewriter &rewriter,
                                   const LLVMTypeConverter &converter) {
  Location loc = op.getLoc();
  OpBuilder &b = rewriter;
  auto frag = cast<FragType>(op.getValue().getType());
  FragType full = frag.withBroadcast(FragBroadcast::none);
  FailureOr<Memory> m = getMemory(op, op.getDst().getType(),
                                  adaptor.getDst().front(), converter, b);
  if (failed(m))
    return failure();
  // A broadcast fragment writes the full tile it stands for, or with
  // `lines` its own values along the last dimension, each by the threads
  // that have none of the bits of the threads sharing its lines.
  FragType written = op.getLines() ? frag : full;
  SmallVector<Value> values =
      op.getLines() ? SmallVector<Value>(adaptor.getValue().begin(),
                                         adaptor.getValue().end())
                    : alignToFragment(frag, adaptor.getValue(), full);
  Value writer;
  if (op.getLines()) {
    uint32_t shared = tilec::fragmentLineSharing(frag.getSupportShape(),
                                                 frag.getSupportBroadcast())
                          .ThreadBits;
    if (shared)
      writer =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                arith::AndIOp::create(b, loc, threadIdx(b, loc),
                                                      i32Const(b, loc, shared)),
                                i32Const(b, loc, 0));
  }
  SmallVector<Value> indices = operandGroup(op, adaptor.getOperands(), 2);
  SmallVector<Value> rowNumbers = operandGroup(op, adaptor.getOperands(), 3);
  int64_t width = op.getVectorWidth();
  for (const Access &access : fragmentAccesses(b, loc, *m, written, indices,
                                               width, writer, rowNumbers)) {
    SmallVector<Value> elements(values.begin() + access.reg,
                                values.begin() + access.reg + width);
    // Only the elements inside the tensor are written.
    storeElements(b, loc, *m, elements, access.ptr, access.inside);
  }
  rewriter.eraseOp(op);
  return success();
}

/// copy_async of a rank-1 tensor: a 1-D tile of the shared buffer's
/// innermost dimension, by a 1-D tensor map or a bulk copy. Before the
/// general TMA pattern (Copies.cpp), which plans 2-D boxes.
struct VectorCopyLowering : ConvertOpToLLVMPattern<CopyAsyncOp> {
  explicit VectorCopyLowering(const LLVMTypeConverter &converter)
      : ConvertOpToLLVMPattern(converter, /*benefit=*/2) {}

  LogicalResult
  matchAndRewrite(CopyAsyncOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (op.getGlobalType().getRank() != 1)
      return failure();
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    bool load = op.isLoad();
    SmemType smemType = op.getSmemType();
    ArrayRef<int64_t> shape = smemType.getShape();
    int64_t elementBytes = smemType.getElementBytes();
    ValueRange smemIdx =
        load ? adaptor.getDstIndices() : adaptor.getSrcIndices();
    Value start = (load ? adaptor.getSrcIndices() : adaptor.getDstIndices())[0];
    // The leading indices select the tile, row-major.
    Value tileOffset;
    int64_t stride = shape.back() * elementBytes;
    for (size_t d = smemIdx.size(); d-- > 0;) {
      tileOffset =
          addValues(b, loc, tileOffset, mulConst(b, loc, smemIdx[d], stride));
      stride *= shape[d];
    }
    Value tile = load ? adaptor.getDst() : adaptor.getSrc();
    if (tileOffset)
      tile = byteGep(b, loc, tile, tileOffset);
    Value bar;
    if (load) {
      if (cast<BarrierType>(op.getBarrier().getType()).getRemote())
        return op.emitOpError("a remote barrier needs the 2-CTA form "
                              "(cta_group 2), which 1-D copies lack");
      bar = barrierAt(b, loc, adaptor.getBarrier(), adaptor.getBarrierIndex());
    }
    auto clusterTile = [&] {
      return LLVM::AddrSpaceCastOp::create(
          b, loc,
          LLVM::LLVMPointerType::get(b.getContext(), kSharedClusterSpace),
          tile);
    };

    if (op.getDispatch() == CopyDispatch::bulk) {
      FailureOr<Memory> m = getMemory(op, op.getGlobalType(), adaptor.getSrc(),
                                      *getTypeConverter(), b);
      if (failed(m))
        return failure();
      // The bytes inside the tensor; the barrier expects the whole tile.
      int64_t total = shape.back() * elementBytes;
      Value inside = insideDim(b, loc, *m, start, 0);
      Value count = arith::MinSIOp::create(
          b, loc, arith::SubIOp::create(b, loc, m->dims[0], start),
          i32Const(b, loc, shape.back()));
      Value bytes = arith::SelectOp::create(
          b, loc, inside, mulConst(b, loc, count, elementBytes),
          i32Const(b, loc, 0));
      // Copy what is inside (if anything); complete the rest on the barrier.
      auto ifNonZero = [&](Value count, llvm::function_ref<void()> body) {
        auto guard = scf::IfOp::create(
            b, loc,
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, count,
                                  i32Const(b, loc, 0)),
            /*withElseRegion=*/false);
        OpBuilder::InsertionGuard insertion(b);
        b.setInsertionPoint(guard.thenBlock()->getTerminator());
        body();
      };
      ifNonZero(bytes, [&] {
        Value src =
            elementAddress(b, loc, *m, scaledIndex(b, loc, *m, start, 0));
        NVVM::CpAsyncBulkGlobalToSharedClusterOp::create(
            b, loc, clusterTile(), src, bar, bytes, /*multicastMask=*/Value(),
            /*l2CacheHint=*/Value());
      });
      Value missing =
          arith::SubIOp::create(b, loc, i32Const(b, loc, total), bytes);
      ifNonZero(missing, [&] {
        NVVM::MBarrierCompleteTxOp::create(b, loc, bar, missing);
      });
      rewriter.eraseOp(op);
      return success();
    }

    LLVM::LLVMFuncOp func = getFunc(op);
    int64_t mapIndex = getKernelAbi(func).getParamIndex(op.getTensormapAttr());
    if (mapIndex < 0)
      return rewriter.notifyMatchFailure(op, "tensor map not in the ABI");
    Value tmap = func.getArgument(mapIndex);
    if (load) {
      Value mask;
      if (auto bits = op.getMulticast())
        mask = arith::ConstantIntOp::create(b, loc, b.getI16Type(), *bits);
      NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
          b, loc, clusterTile(), tmap, ValueRange{start}, bar, ValueRange{},
          mask, Value(), NVVM::TMALoadMode::TILE, /*isCTAOnly=*/false,
          NVVM::CTAGroupKindAttr(), Value());
    } else if (op.getReduceAdd()) {
      NVVM::CpAsyncBulkTensorReduceOp::create(
          b, loc, tmap, tile, NVVM::TMAReduxKind::ADD, NVVM::TMAStoreMode::TILE,
          ValueRange{start}, Value());
    } else {
      NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp::create(
          b, loc, tmap, tile, ValueRange{start}, Value(),
          NVVM::TMAStoreMode::TILE, Value());
    }
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void mlir::tile::populateTileLoadsToNVVMPatterns(LLVMTypeConverter &converter,
                                                 RewritePatternSet &patterns) {
  patterns.add<
      OpLowering<LoadOp, lowerLoad>, OpLowering<StoreOp, lowerStore>,
      OpLowering<AtomicOp, lowerAtomic>, OpLowering<GridSyncOp, lowerGridSync>,
      OpLowering<PeerViewOp, lowerPeerView>,
      OpLowering<FragLoadOp, lowerFragLoad>,
      OpLowering<FragStoreGlobalOp, lowerFragStoreGlobal>, VectorCopyLowering>(
      converter);
}

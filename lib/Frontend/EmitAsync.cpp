//===- EmitAsync.cpp - copies, MMA, stores and tensor memory -------------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//
//
// The asynchronous data movers: TMA copies (copy_async, bulk_commit,
// bulk_wait), MMAs (gemm_async, gemm_commit, gemm_wait), fragment stores to
// shared memory and tensor-memory loads. Each checks its buffers against
// each other (box against tile, accumulator against operands) where the
// shapes are written.
//
//===----------------------------------------------------------------------===//

#include "lib/Frontend/Emitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/STLExtras.h"

using namespace tilec::frontend;
using namespace mlir;

//===----------------------------------------------------------------------===//
// Asynchronous copies
//===----------------------------------------------------------------------===//

static const llvm::StringRef kCopyDispatch[] = {"auto", "tma", "bulk"};
static const llvm::StringRef kGemmDispatch[] = {"auto", "wgmma", "tcgen05"};
static const llvm::StringRef kMmaMajors[] = {"k", "mn"};

/// cta_group = N (default 1); the verifiers check that it is 1 or 2.
static std::optional<int64_t> evalCtaGroup(Emitter &emitter, const Expr *expr) {
  if (!expr)
    return 1;
  return emitter.evalConstUnsigned(*expr, "cta_group");
}

/// Points at the declaration of the buffer `ref` names, if it is a name.
static void noteDeclaration(Emitter &emitter, const BufferRef &ref) {
  if (auto *name = llvm::dyn_cast<NameExpr>(ref.baseExpr))
    if (Symbol *symbol = emitter.lookup(name->name))
      emitter.note(symbol->defRange, "'" + name->name + "' is declared here");
}

Val Emitter::emitCopyAsync(const CallExpr &call) {
  SmallVector<const Expr *> args;
  if (!bindArgs(call, "copy_async",
                {{"dst", true},
                 {"src", true},
                 {"barrier", false},
                 {"dispatch", false},
                 {"multicast", false},
                 {"cta_group", false},
                 {"reduce", false}},
                args))
    return Val::error();
  std::optional<BufferRef> dst =
      evalBufferRef(*args[0], "the destination of copy_async");
  std::optional<BufferRef> src =
      evalBufferRef(*args[1], "the source of copy_async");
  if (!dst || !src)
    return Val::error();
  bool load = dst->base.getValueType<tile::SmemType>() &&
              src->base.getValueType<tile::GlobalType>();
  bool store = dst->base.getValueType<tile::GlobalType>() &&
               src->base.getValueType<tile::SmemType>();
  if (!load && !store) {
    error(call.callee->getRange(),
          "copy_async copies between a global tensor and a shared-memory "
          "buffer (either way), got " +
              describeVal(dst->base) + " and " + describeVal(src->base));
    return Val::error();
  }
  const BufferRef &smemRef = load ? *dst : *src;
  const BufferRef &globalRef = load ? *src : *dst;
  auto smem = smemRef.base.getValueType<tile::SmemType>();
  auto global = globalRef.base.getValueType<tile::GlobalType>();
  SmallVector<Value> smemIndices, globalIndices;
  SmallVector<std::optional<int64_t>> extents;
  // The rows and columns of the tile the copy moves (a prefix or all).
  ArrayRef<int64_t> smemShape = smem.getShape();
  std::pair<int64_t, int64_t> moved = {
      smemShape.size() >= 2 ? smemShape[smemShape.size() - 2] : 1,
      smemShape.back()};
  const std::pair<int64_t, int64_t> wholeTile = moved;
  bool tileIndicesOk =
      global.getRank() == 1
          ? vectorTileIndices(smemRef, smemIndices)
          : smemTileIndices(smemRef, /*withRow=*/false, "copy_async",
                            smemIndices, /*rowExtent=*/nullptr,
                            /*firstColumn=*/false, &moved);
  if (!tileIndicesOk || !globalCoords(globalRef, globalIndices, extents))
    return Val::error();
  // The box in global memory is the shared tile: check the ranges written.
  size_t grank = global.getRank(), srank = smem.getRank();
  for (size_t i = 0; i < grank; ++i) {
    if (!extents[i])
      continue;
    const IndexItem &item = globalRef.items[i];
    if (i + 2 < grank) {
      if (*extents[i] != 1) {
        error(item.range, "only the last two dimensions of '" +
                              globalRef.name() +
                              "' can be ranges: the copy moves one 2-D tile");
        return Val::error();
      }
      continue;
    }
    size_t tileDim = srank - (grank - i);
    if (srank < grank - i)
      continue;
    bool isRows = i + 2 == grank;
    int64_t expected = grank == 1 ? smem.getShape()[tileDim]
                       : isRows   ? moved.first
                                  : moved.second;
    if (*extents[i] != expected) {
      std::string what =
          llvm::Twine(expected).str() + (isRows ? " rows" : " columns");
      error(item.range,
            "this range spans " + llvm::Twine(*extents[i]) + " elements, but " +
                (moved == wholeTile
                     ? "the tile of '" + smemRef.name() + "' has " + what
                     : "the copy moves " + what + " of '" + smemRef.name() +
                           "'"));
      noteDeclaration(*this, smemRef);
      return Val::error();
    }
  }
  // Which copies take a barrier, multicast or reduce, and of which kind, is
  // the tile.copy_async verifier's to check.
  Value barrier, barrierIdx;
  if (args[2]) {
    std::optional<BufferRef> ref =
        evalBufferRef(*args[2], "the barrier of copy_async");
    if (!ref)
      return Val::error();
    if (!ref->base.getValueType<tile::BarrierType>()) {
      error(args[2]->getRange(),
            "barrier = ... takes a barrier, got " + describeVal(ref->base));
      return Val::error();
    }
    if (!barrierIndex(*ref, barrierIdx))
      return Val::error();
    barrier = ref->base.value;
  }
  tile::CopyDispatch dispatch = tile::CopyDispatch::auto_;
  if (args[3]) {
    std::optional<unsigned> choice =
        evalChoice(*args[3], "dispatch", kCopyDispatch);
    if (!choice)
      return Val::error();
    dispatch = static_cast<tile::CopyDispatch>(*choice);
  }
  IntegerAttr multicast;
  if (args[4]) {
    std::optional<int64_t> mask =
        evalConstUnsigned(*args[4], "a multicast mask");
    if (!mask)
      return Val::error();
    multicast = builder.getI64IntegerAttr(*mask);
  }
  std::optional<int64_t> ctaGroup = evalCtaGroup(*this, args[5]);
  if (!ctaGroup)
    return Val::error();
  bool reduceAdd = false;
  if (args[6]) {
    static const llvm::StringRef kReduce[] = {"add"};
    if (!evalChoice(*args[6], "reduction", kReduce))
      return Val::error();
    reduceAdd = true;
  }
  Value dstValue = dst->base.value, srcValue = src->base.value;
  ValueRange dstIndices =
      load ? ValueRange(smemIndices) : ValueRange(globalIndices);
  ValueRange srcIndices =
      load ? ValueRange(globalIndices) : ValueRange(smemIndices);
  tile::CopyAsyncOp::create(
      builder, loc(call.getLoc()), dstValue, dstIndices, srcValue, srcIndices,
      barrier, barrierIdx, dispatch, multicast,
      static_cast<uint64_t>(*ctaGroup), reduceAdd,
      moved == wholeTile
          ? DenseI64ArrayAttr()
          : builder.getDenseI64ArrayAttr({moved.first, moved.second}),
      /*tensormap=*/nullptr);
  return Val::error();
}

Val Emitter::emitBulkCommit(const CallExpr &call) {
  SmallVector<const Expr *> args;
  if (!bindArgs(call, "bulk_commit", {}, args))
    return Val::error();
  tile::BulkCommitOp::create(builder, loc(call.getLoc()));
  return Val::error();
}

Val Emitter::emitBulkWait(const CallExpr &call) {
  SmallVector<const Expr *> args;
  if (!bindArgs(call, "bulk_wait", {{"pending", false}, {"read", false}}, args))
    return Val::error();
  int64_t pending = 0;
  if (args[0]) {
    // The verifier checks the range (and prints a negative count as such).
    std::optional<int64_t> n =
        evalConstInt(*args[0], "the number of pending copy groups");
    if (!n)
      return Val::error();
    pending = *n;
  }
  bool read = false;
  if (args[1]) {
    std::optional<bool> b = evalConstBool(*args[1], "read");
    if (!b)
      return Val::error();
    read = *b;
  }
  tile::BulkWaitOp::create(builder, loc(call.getLoc()),
                           static_cast<uint64_t>(pending), read);
  return Val::error();
}

//===----------------------------------------------------------------------===//
// MMA
//===----------------------------------------------------------------------===//

/// The fragment variable an op updates in place (`gemm_wait(acc)`).
static Symbol *fragVariable(Emitter &emitter, const Expr &expr,
                            llvm::StringRef opName, Val &value) {
  value = emitter.eval(expr);
  if (value.isError())
    return nullptr;
  auto *name = llvm::dyn_cast<NameExpr>(&expr);
  if (!value.getValueType<tile::FragType>() || !name) {
    emitter.error(expr.getRange(),
                  opName +
                      " updates a register-fragment variable in place; "
                      "got " +
                      Emitter::describeVal(value));
    return nullptr;
  }
  return emitter.lookup(name->name);
}

Val Emitter::emitGemmAsync(const CallExpr &call) {
  SmallVector<const Expr *> args;
  if (!bindArgs(call, "gemm_async",
                {{"acc", true},
                 {"a", true},
                 {"b", true},
                 {"accumulate", false},
                 {"dispatch", false},
                 {"cta_group", false},
                 {"a_major", false},
                 {"b_major", false}},
                args))
    return Val::error();
  // The accumulator: a fragment variable or a tensor-memory slice.
  std::optional<BufferRef> tmemRef;
  Val accValue;
  if (llvm::isa<IndexExpr>(args[0])) {
    tmemRef = evalBufferRef(*args[0], "the accumulator");
    if (!tmemRef)
      return Val::error();
    accValue = tmemRef->base;
  } else {
    accValue = eval(*args[0]);
    if (accValue.isError())
      return Val::error();
    if (accValue.getValueType<tile::TmemType>()) {
      tmemRef.emplace();
      tmemRef->expr = tmemRef->baseExpr = args[0];
      tmemRef->base = accValue;
    }
  }
  auto fragType = accValue.getValueType<tile::FragType>();
  if (!fragType && !tmemRef) {
    error(args[0]->getRange(),
          "the accumulator is a register fragment (wgmma) or a slice of "
          "tensor memory like tmem[:, 0:256] (tcgen05), got " +
              describeVal(accValue));
    return Val::error();
  }
  if (tmemRef && !tmemRef->base.getValueType<tile::TmemType>()) {
    error(args[0]->getRange(),
          "the accumulator is a register fragment (wgmma) or a slice of "
          "tensor memory like tmem[:, 0:256] (tcgen05), got " +
              describeVal(tmemRef->base));
    return Val::error();
  }
  std::optional<BufferRef> a = evalBufferRef(*args[1], "the A operand");
  std::optional<BufferRef> b = evalBufferRef(*args[2], "the B operand");
  if (!a || !b)
    return Val::error();
  // `a_major = mn` / `b_major = mn`: the tile is [K, M] / [K, N].
  tile::MmaMajor majors[2] = {tile::MmaMajor::k, tile::MmaMajor::k};
  for (int i = 0; i < 2; ++i) {
    if (!args[6 + i])
      continue;
    std::optional<unsigned> choice =
        evalChoice(*args[6 + i], i ? "b_major" : "a_major", kMmaMajors);
    if (!choice)
      return Val::error();
    majors[i] = static_cast<tile::MmaMajor>(*choice);
  }
  bool aByColumn = majors[0] == tile::MmaMajor::mn;
  SmallVector<Value> aIndices, bIndices;
  std::optional<int64_t> aRows, bRows;
  if (!smemTileIndices(*a, /*withRow=*/true, "gemm_async", aIndices, &aRows,
                       aByColumn) ||
      !smemTileIndices(*b, /*withRow=*/true, "gemm_async", bIndices, &bRows,
                       majors[1] == tile::MmaMajor::mn))
    return Val::error();
  tile::GemmDispatch dispatch = tile::GemmDispatch::auto_;
  if (args[4]) {
    std::optional<unsigned> choice =
        evalChoice(*args[4], "dispatch", kGemmDispatch);
    if (!choice)
      return Val::error();
    dispatch = static_cast<tile::GemmDispatch>(*choice);
  }
  std::optional<int64_t> ctaGroup = evalCtaGroup(*this, args[5]);
  if (!ctaGroup)
    return Val::error();
  // `accumulate = false` (or a predicate, e.g. `k != 0`) overwrites the
  // accumulator in the first K step: tcgen05's enable-input-d, wgmma's
  // scale-d.
  Value accumulate;
  auto evalAccumulate = [&] {
    if (args[3])
      accumulate = evalI1(*args[3], "accumulate");
    return !args[3] || accumulate;
  };
  Location l = loc(call.getLoc());
  auto aType = cast<tile::SmemType>(a->base.type);
  auto bType = cast<tile::SmemType>(b->base.type);

  if (fragType) {
    if (!evalAccumulate())
      return Val::error();
    // `a[s, row : row + 64]` names the rows of A (the columns of an
    // MN-major A: `a[s, :, row : row + 64]`); `a[s]` starts at 0.
    int64_t m = fragType.getShape()[0];
    size_t mItem = aType.getRank() - (aByColumn ? 1 : 2);
    bool rowsWritten = a->items.size() > mItem &&
                       a->items[mItem].kind == IndexItem::Kind::Range;
    if (rowsWritten && aRows && *aRows != m) {
      error(a->items[mItem].range,
            "these " + llvm::Twine(*aRows) +
                (aByColumn ? " columns" : " rows") + " of A do not match the " +
                llvm::Twine(m) + " rows of the accumulator");
      return Val::error();
    }
    auto *name = llvm::dyn_cast<NameExpr>(args[0]);
    if (!name) {
      error(args[0]->getRange(), "the accumulator must be a variable: "
                                 "gemm_async assigns the new fragment to it");
      return Val::error();
    }
    auto op = tile::GemmAsyncOp::create(
        builder, l, fragType, accValue.value, Value(), a->base.value, aIndices,
        b->base.value, bIndices, accumulate, dispatch,
        static_cast<uint64_t>(*ctaGroup), majors[0], majors[1]);
    assignVariable(name->name, name->getRange(), Val::of(op.getResult()));
    return Val::error();
  }

  Value column;
  std::optional<int64_t> width;
  if (!tmemColumns(*tmemRef, column, width))
    return Val::error();
  // N is the rows of B times cta_group; a cta_group other than 1 or 2 is
  // the verifier's to report (and could make N overflow).
  int64_t rowsB = bType.getShape()[bType.getRank() - 2];
  if (width && majors[1] == tile::MmaMajor::k &&
      (*ctaGroup == 1 || *ctaGroup == 2) && *width != rowsB * *ctaGroup) {
    error(args[0]->getRange(),
          "the accumulator slice has " + llvm::Twine(*width) +
              " columns, but the MMA's N is " + llvm::Twine(rowsB * *ctaGroup) +
              " (" + llvm::Twine(rowsB) + " rows of '" + b->name() +
              "' x cta_group " + llvm::Twine(*ctaGroup) + ")");
    noteDeclaration(*this, *b);
    return Val::error();
  }
  if (!evalAccumulate())
    return Val::error();
  tile::GemmAsyncOp::create(
      builder, l, Type(), tmemRef->base.value, column, a->base.value, aIndices,
      b->base.value, bIndices, accumulate, dispatch,
      static_cast<uint64_t>(*ctaGroup), majors[0], majors[1]);
  return Val::error();
}

Val Emitter::emitGemmCommit(const CallExpr &call) {
  SmallVector<const Expr *> args;
  if (!bindArgs(call, "gemm_commit",
                {{"barrier", false}, {"cta_group", false}, {"cta_mask", false}},
                args))
    return Val::error();
  Value barrier, index;
  if (args[0]) {
    std::optional<BufferRef> ref =
        evalBufferRef(*args[0], "the barrier of gemm_commit");
    if (!ref)
      return Val::error();
    if (!ref->base.getValueType<tile::BarrierType>()) {
      error(args[0]->getRange(),
            "gemm_commit signals a barrier, got " + describeVal(ref->base));
      return Val::error();
    }
    if (!barrierIndex(*ref, index))
      return Val::error();
    barrier = ref->base.value;
  }
  std::optional<int64_t> ctaGroup = evalCtaGroup(*this, args[1]);
  if (!ctaGroup)
    return Val::error();
  IntegerAttr ctaMask;
  if (args[2]) {
    std::optional<int64_t> mask = evalConstInt(*args[2], "cta_mask");
    if (!mask)
      return Val::error();
    if (*mask < 0 || *mask >= (int64_t(1) << 16)) {
      error(args[2]->getRange(),
            "cta_mask is a mask of up to 16 CTAs, got " + llvm::Twine(*mask));
      return Val::error();
    }
    ctaMask = builder.getI64IntegerAttr(*mask);
  }
  tile::GemmCommitOp::create(builder, loc(call.getLoc()), barrier, index,
                             ctaMask, static_cast<uint64_t>(*ctaGroup));
  return Val::error();
}

Val Emitter::emitGemmWait(const CallExpr &call) {
  SmallVector<const Expr *> args;
  if (!bindArgs(call, "gemm_wait", {{"acc", true}, {"pending", false}}, args))
    return Val::error();
  Val value;
  Symbol *symbol = fragVariable(*this, *args[0], "gemm_wait", value);
  if (!symbol)
    return Val::error();
  int64_t pending = 0;
  if (args[1]) {
    // The verifier checks the range (and prints a negative count as such).
    std::optional<int64_t> n =
        evalConstInt(*args[1], "the number of pending MMA groups");
    if (!n)
      return Val::error();
    pending = *n;
  }
  auto op =
      tile::GemmWaitOp::create(builder, loc(call.getLoc()), value.type,
                               value.value, static_cast<uint64_t>(pending));
  assignVariable(symbol->name, args[0]->getRange(), Val::of(op.getResult()));
  return Val::error();
}

//===----------------------------------------------------------------------===//
// Registers and tensor memory
//===----------------------------------------------------------------------===//

Val Emitter::emitStore(const CallExpr &call) {
  SmallVector<const Expr *> args;
  if (!bindArgs(call, "store",
                {{"dst", true}, {"value", true}, {"broadcast", false}}, args))
    return Val::error();
  std::optional<BufferRef> dst = evalBufferRef(*args[0], "the destination "
                                                         "of store");
  Val value = eval(*args[1]);
  if (!dst || value.isError())
    return Val::error();
  auto frag = value.getValueType<tile::FragType>();
  if (!frag) {
    if (args[2]) {
      error(args[2]->getRange(), "broadcast = ... writes a fragment's values; "
                                 "a store of one element takes none");
      return Val::error();
    }
    return storeScalar(call, *dst, value, *args[1]);
  }
  if (dst->base.getValueType<tile::GlobalType>())
    return storeGlobal(call, *dst, value, args[2]);
  if (args[2]) {
    error(args[2]->getRange(), "broadcast = ... writes a fragment's values "
                               "along a global tensor's last dimension; "
                               "'" +
                                   dst->name() + "' is shared memory");
    return Val::error();
  }
  SmallVector<Value> indices;
  std::optional<int64_t> rows;
  if (!smemTileIndices(*dst, /*withRow=*/true, "store", indices, &rows))
    return Val::error();
  if (rows && *rows != frag.getShape()[0]) {
    error(dst->getRange(), "these " + llvm::Twine(*rows) +
                               " rows do not match the fragment's " +
                               llvm::Twine(frag.getShape()[0]));
    return Val::error();
  }
  tile::FragStoreOp::create(builder, loc(call.getLoc()), value.value,
                            dst->base.value, indices);
  return Val::error();
}

Val Emitter::emitTmemLoad(const CallExpr &call) {
  SmallVector<const Expr *> args;
  if (!bindArgs(call, "tmem_load", {{"src", true}}, args))
    return Val::error();
  std::optional<BufferRef> src = evalBufferRef(*args[0], "the source of "
                                                         "tmem_load");
  if (!src)
    return Val::error();
  auto tmem = src->base.getValueType<tile::TmemType>();
  if (!tmem) {
    error(args[0]->getRange(),
          "tmem_load reads tensor memory, got " + describeVal(src->base));
    return Val::error();
  }
  Value column;
  std::optional<int64_t> width;
  if (!tmemColumns(*src, column, width))
    return Val::error();
  if (!width) {
    error(args[0]->getRange(),
          "give the columns to load as a range of constant width, as in " +
              src->name() + "[:, c : c + 64]");
    return Val::error();
  }
  Location l = loc(call.getLoc());
  auto type = tile::FragType::getChecked(
      [&] { return emitError(l); }, &context, ArrayRef<int64_t>{128, *width},
      tmem.getElementType(), tile::FragLayout::row_per_thread);
  if (!type)
    return Val::error();
  return Val::of(
      tile::TmemLoadOp::create(builder, l, type, src->base.value, column));
}

Val Emitter::emitTmemWait(const CallExpr &call) {
  SmallVector<const Expr *> args;
  if (!bindArgs(call, "tmem_wait", {{"value", true}}, args))
    return Val::error();
  Val value;
  Symbol *symbol = fragVariable(*this, *args[0], "tmem_wait", value);
  if (!symbol)
    return Val::error();
  auto op = tile::TmemWaitOp::create(builder, loc(call.getLoc()), value.type,
                                     value.value);
  assignVariable(symbol->name, args[0]->getRange(), Val::of(op.getResult()));
  return Val::error();
}

//===- EmitCalls.cpp - builtins, methods and buffer views ----------------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//
//
// Every builtin binds its arguments by position or by keyword (as in
// Python), checks them with messages in the DSL's terms, and builds one tile
// op. Buffer operands are written with Python-like indexing: leading indices
// select a tile of a shared buffer, ranges `a:b` give a global box or a slice
// of tensor-memory columns.
//
//===----------------------------------------------------------------------===//

#include "lib/Frontend/Emitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSwitch.h"

using namespace tilec::frontend;
using namespace mlir;

namespace {
struct Builtin {
  llvm::StringRef name;
  /// A statement (gives no value) or an expression.
  bool isStatement;
  /// Builds ops, so only allowed inside a kernel body.
  bool needsKernel;
  Val (Emitter::*emit)(const CallExpr &);
};
} // namespace

static const Builtin kBuiltins[] = {
    {"copy_async", true, true, &Emitter::emitCopyAsync},
    {"gemm_async", true, true, &Emitter::emitGemmAsync},
    {"gemm_commit", true, true, &Emitter::emitGemmCommit},
    {"gemm_wait", true, true, &Emitter::emitGemmWait},
    {"bulk_commit", true, true, &Emitter::emitBulkCommit},
    {"bulk_wait", true, true, &Emitter::emitBulkWait},
    {"store", true, true, &Emitter::emitStore},
    {"tmem_wait", true, true, &Emitter::emitTmemWait},
    {"sync", true, true, &Emitter::emitSync},
    {"fence", true, true, &Emitter::emitFence},
    {"pipeline", false, true, &Emitter::emitPipeline},
    {"zeros", false, true, &Emitter::emitZeros},
    {"tmem_load", false, true, &Emitter::emitTmemLoad},
    {"cast", false, false, &Emitter::emitCast},
    {"ceildiv", false, false, &Emitter::emitCeilDiv},
    {"min", false, false, nullptr},
    {"max", false, false, nullptr},
    {"sizeof", false, false, &Emitter::emitSizeof},
};

static const llvm::StringRef kCallableNames[] = {
    "copy_async", "gemm_async", "gemm_commit", "gemm_wait", "bulk_commit",
    "bulk_wait",  "store",      "tmem_wait",   "sync",      "fence",
    "pipeline",   "zeros",      "tmem_load",   "cast",      "ceildiv",
    "min",        "max",        "sizeof",      "range",     "unroll",
    "tiles"};

/// "an f32", "a bf16".
static std::string withArticle(llvm::StringRef name) {
  bool vowelSound =
      name.starts_with("f") || name.starts_with("e") || name.starts_with("i");
  return (vowelSound ? "an " : "a ") + name.str();
}

/// The text of `range` in the source.
static llvm::StringRef textOf(llvm::SMRange range) {
  return llvm::StringRef(range.Start.getPointer(),
                         range.End.getPointer() - range.Start.getPointer());
}

/// The closing parenthesis of a call, where missing arguments are reported.
static llvm::SMRange closingParen(const CallExpr &call) {
  const char *end = call.getRange().End.getPointer();
  return {llvm::SMLoc::getFromPointer(end - 1),
          llvm::SMLoc::getFromPointer(end)};
}

Val Emitter::evalCall(const CallExpr &call, bool isStatement) {
  if (auto *member = llvm::dyn_cast<MemberExpr>(call.callee.get()))
    return emitMethod(call, *member, isStatement);
  auto *callee = llvm::dyn_cast<NameExpr>(call.callee.get());
  if (!callee) {
    if (!llvm::isa<ErrorExpr>(call.callee.get()))
      error(call.callee->getRange(),
            "only builtins (copy_async, ...) and methods (full.wait, ...) can "
            "be called");
    return Val::error();
  }
  llvm::StringRef name = callee->name;
  const Builtin *builtin = nullptr;
  for (const Builtin &b : kBuiltins)
    if (b.name == name)
      builtin = &b;
  if (!builtin) {
    if (name == "range" || name == "unroll" || name == "tiles") {
      error(callee->getRange(), name +
                                    "(...) is only used in a for loop, as "
                                    "in 'for i in " +
                                    name + "(...)'");
      return Val::error();
    }
    llvm::StringRef close = closestName(name, kCallableNames);
    if (!close.empty())
      diag.errorWithFixIt(callee->getRange(),
                          "unknown function '" + name + "'; did you mean '" +
                              close + "'?",
                          close);
    else
      error(callee->getRange(), "unknown function '" + name + "'");
    return Val::error();
  }
  if (builtin->needsKernel && !inKernelBody()) {
    error(callee->getRange(),
          name + "(...) can only be used inside a kernel body");
    return Val::error();
  }
  if (builtin->isStatement && !isStatement) {
    error(callee->getRange(), name + "(...) is a statement: it gives no value");
    return Val::error();
  }
  Val result;
  if (name == "min" || name == "max")
    result = emitMinMax(call, name == "max");
  else
    result = (this->*builtin->emit)(call);
  if (!builtin->isStatement && isStatement && !result.isError())
    error(call.getRange(), "the value of " + name +
                               "(...) is not used; bind it with 'let name = "
                               "...'");
  return result;
}

bool Emitter::bindArgs(const CallExpr &call, llvm::StringRef callee,
                       llvm::ArrayRef<ArgSpec> specs,
                       llvm::SmallVectorImpl<const Expr *> &out) {
  out.assign(specs.size(), nullptr);
  std::string signature = callee.str() + "(";
  std::vector<llvm::StringRef> names;
  for (const ArgSpec &spec : specs) {
    if (!names.empty())
      signature += ", ";
    signature += spec.name.str();
    names.push_back(spec.name);
  }
  signature += ")";
  bool ok = true;
  if (call.args.size() > specs.size()) {
    error(call.args[specs.size()]->getRange(),
          "too many arguments: " + signature + " takes " +
              llvm::Twine(specs.size()));
    ok = false;
  }
  for (size_t i = 0; i < std::min(call.args.size(), specs.size()); ++i)
    out[i] = call.args[i].get();
  for (const KeywordArg &keyword : call.keywords) {
    auto it = llvm::find(names, keyword.name);
    if (it == names.end()) {
      llvm::StringRef close = closestName(keyword.name, names);
      std::string message =
          "unknown argument '" + keyword.name.str() + "' of " + signature;
      if (!close.empty())
        diag.errorWithFixIt(keyword.nameRange,
                            message + "; did you mean '" + close.str() + "'?",
                            close);
      else
        error(keyword.nameRange, message);
      ok = false;
      continue;
    }
    size_t index = it - names.begin();
    if (out[index]) {
      error(keyword.nameRange,
            "argument '" + keyword.name + "' is given twice");
      ok = false;
      continue;
    }
    out[index] = keyword.value.get();
  }
  for (auto [spec, arg] : llvm::zip(specs, out))
    if (spec.required && !arg) {
      error(closingParen(call),
            "missing argument '" + spec.name + "' of " + signature);
      ok = false;
    }
  // An argument the parser could not read was reported already.
  for (const Expr *arg : out)
    if (arg && llvm::isa<ErrorExpr>(arg))
      ok = false;
  return ok;
}

//===----------------------------------------------------------------------===//
// Buffer views
//===----------------------------------------------------------------------===//

std::string BufferRef::name() const {
  return textOf(baseExpr->getRange()).str();
}

std::optional<BufferRef> Emitter::evalBufferRef(const Expr &expr,
                                                llvm::StringRef what) {
  BufferRef ref;
  ref.expr = &expr;
  ref.baseExpr = &expr;
  const std::vector<ExprPtr> *items = nullptr;
  if (auto *index = llvm::dyn_cast<IndexExpr>(&expr)) {
    ref.indexed = true;
    ref.baseExpr = index->base.get();
    items = &index->items;
  }
  ref.base = eval(*ref.baseExpr);
  if (ref.base.isError())
    return std::nullopt;
  Type type = ref.base.isValue() ? ref.base.type : Type();
  if (!type ||
      !isa<tile::GlobalType, tile::SmemType, tile::TmemType, tile::BarrierType>(
          type)) {
    error(ref.baseExpr->getRange(),
          what +
              " is a buffer (a global tensor, a shared or tensor-memory "
              "buffer, or a barrier), got " +
              describeVal(ref.base));
    return std::nullopt;
  }
  if (items)
    for (const ExprPtr &item : *items) {
      IndexItem entry;
      entry.range = item->getRange();
      if (auto *slice = llvm::dyn_cast<SliceExpr>(item.get())) {
        entry.start = slice->start.get();
        entry.stop = slice->stop.get();
        entry.kind = !entry.start && !entry.stop ? IndexItem::Kind::Full
                                                 : IndexItem::Kind::Range;
      } else {
        entry.kind = IndexItem::Kind::Scalar;
        entry.start = item.get();
      }
      ref.items.push_back(entry);
    }
  return ref;
}

/// Whether two expressions are written the same (for `i : i + 64`).
static bool sameExpr(const Expr &a, const Expr &b) {
  if (a.getKind() != b.getKind())
    return false;
  switch (a.getKind()) {
  case Expr::Kind::Int:
    return llvm::cast<IntExpr>(a).value == llvm::cast<IntExpr>(b).value;
  case Expr::Kind::Name:
    return llvm::cast<NameExpr>(a).name == llvm::cast<NameExpr>(b).name;
  case Expr::Kind::Unary: {
    auto &x = llvm::cast<UnaryExpr>(a), &y = llvm::cast<UnaryExpr>(b);
    return x.op == y.op && sameExpr(*x.operand, *y.operand);
  }
  case Expr::Kind::Binary: {
    auto &x = llvm::cast<BinaryExpr>(a), &y = llvm::cast<BinaryExpr>(b);
    return x.op == y.op && sameExpr(*x.lhs, *y.lhs) && sameExpr(*x.rhs, *y.rhs);
  }
  case Expr::Kind::Member: {
    auto &x = llvm::cast<MemberExpr>(a), &y = llvm::cast<MemberExpr>(b);
    return x.member == y.member && sameExpr(*x.base, *y.base);
  }
  default:
    return false;
  }
}

std::optional<int64_t> Emitter::extentOf(const IndexItem &item,
                                         int64_t dimSize) {
  bool knownDim = dimSize > 0;
  switch (item.kind) {
  case IndexItem::Kind::Scalar:
    return std::nullopt;
  case IndexItem::Kind::Full:
    return knownDim ? std::optional<int64_t>(dimSize) : std::nullopt;
  case IndexItem::Kind::Range:
    break;
  }
  std::optional<int64_t> start =
      item.start ? tryFoldInt(*item.start) : std::optional<int64_t>(0);
  std::optional<int64_t> stop = item.stop  ? tryFoldInt(*item.stop)
                                : knownDim ? std::optional<int64_t>(dimSize)
                                           : std::nullopt;
  if (start && stop) {
    int64_t extent;
    if (llvm::SubOverflow(*stop, *start, extent))
      return std::nullopt;
    return extent;
  }
  // `x : x + N` (or `x : N + x`).
  if (item.start && item.stop) {
    if (auto *sum = llvm::dyn_cast<BinaryExpr>(item.stop);
        sum && sum->op == Tok::Plus) {
      if (sameExpr(*sum->lhs, *item.start))
        return tryFoldInt(*sum->rhs);
      if (sameExpr(*sum->rhs, *item.start))
        return tryFoldInt(*sum->lhs);
    }
  }
  return std::nullopt;
}

Value Emitter::startOf(const IndexItem &item) {
  if (item.start)
    return evalI32(*item.start, "an index");
  return arith::ConstantIntOp::create(builder, loc(item.range.Start),
                                      builder.getI32Type(), 0);
}

/// Whether `item` covers a whole dimension of `size`: absent, `:`, or a
/// range from 0 to size.
static bool coversWhole(Emitter &emitter, const IndexItem &item, int64_t size) {
  if (item.kind == IndexItem::Kind::Full)
    return true;
  if (item.kind != IndexItem::Kind::Range)
    return false;
  std::optional<int64_t> start =
      item.start ? emitter.tryFoldInt(*item.start) : std::optional<int64_t>(0);
  std::optional<int64_t> stop =
      item.stop ? emitter.tryFoldInt(*item.stop) : std::optional<int64_t>(size);
  return start == 0 && stop == size;
}

bool Emitter::smemTileIndices(const BufferRef &ref, bool withRow,
                              llvm::StringRef opName,
                              SmallVectorImpl<Value> &indices,
                              std::optional<int64_t> *rowExtent) {
  auto type = ref.base.getValueType<tile::SmemType>();
  if (!type) {
    error(ref.getRange(), opName + " needs a shared-memory buffer here, got " +
                              describeVal(ref.base));
    return false;
  }
  ArrayRef<int64_t> shape = type.getShape();
  size_t rank = shape.size();
  std::string name = ref.name();
  if (rank < 2) {
    error(ref.getRange(), opName + " works on 2-D tiles, but '" + name +
                              "' has shape " +
                              llvm::StringRef(shapeText(shape)));
    return false;
  }
  size_t lead = rank - 2;
  if (ref.items.size() > rank) {
    error(ref.items[rank].range,
          "'" + name + "' has rank " + llvm::Twine(rank) + " (shape " +
              shapeText(shape) + "), but " + llvm::Twine(ref.items.size()) +
              " indices are given");
    return false;
  }
  if (ref.items.size() < lead) {
    std::string example = name + "[";
    for (size_t i = 0; i < lead; ++i)
      example += i ? ", i" + std::to_string(i) : "i0";
    example = lead == 1 ? name + "[stage]" : example + "]";
    error(ref.getRange(), "'" + name + "' has shape " + shapeText(shape) +
                              ": select one of "
                              "its tiles with " +
                              llvm::Twine(lead) + " leading ind" +
                              (lead == 1 ? "ex" : "ices") + ", as in " +
                              example);
    return false;
  }
  bool ok = true;
  for (size_t i = 0; i < lead; ++i) {
    const IndexItem &item = ref.items[i];
    if (item.kind != IndexItem::Kind::Scalar) {
      error(item.range, "the leading dimensions of '" + name +
                            "' select one tile: write an index here, not a "
                            "range");
      ok = false;
      continue;
    }
    Value index = evalI32(*item.start, "a tile index");
    if (!index)
      ok = false;
    else
      indices.push_back(index);
  }
  if (!ok)
    return false;
  IndexItem whole;
  whole.kind = IndexItem::Kind::Full;
  const IndexItem &rowItem = ref.items.size() > lead ? ref.items[lead] : whole;
  const IndexItem &colItem =
      ref.items.size() > lead + 1 ? ref.items[lead + 1] : whole;
  int64_t rows = shape[rank - 2], cols = shape[rank - 1];
  if (withRow) {
    Value row;
    if (rowItem.kind == IndexItem::Kind::Scalar)
      row = evalI32(*rowItem.start, "the first row");
    else
      row = startOf(rowItem);
    if (!row)
      return false;
    indices.push_back(row);
    if (rowExtent)
      *rowExtent = extentOf(rowItem, rows);
  } else if (!coversWhole(*this, rowItem, rows)) {
    error(rowItem.range, opName + " moves whole tiles: write '" + name +
                             "[...]' or '" + name + "[..., :, :]'");
    return false;
  }
  if (!coversWhole(*this, colItem, cols)) {
    error(colItem.range, opName +
                             " uses whole rows of the tile: write ':' "
                             "for the last dimension of '" +
                             name + "'");
    return false;
  }
  return true;
}

bool Emitter::globalCoords(const BufferRef &ref, SmallVectorImpl<Value> &coords,
                           SmallVectorImpl<std::optional<int64_t>> &extents) {
  auto type = ref.base.getValueType<tile::GlobalType>();
  if (!type)
    return false;
  std::string name = ref.name();
  size_t rank = type.getRank();
  if (!ref.indexed) {
    error(ref.getRange(), "give the coordinates of the tile in '" + name +
                              "', as in " + name + "[m, k]");
    return false;
  }
  if (ref.items.size() != rank) {
    error(ref.getRange(), "'" + name + "' has rank " + llvm::Twine(rank) +
                              ": give " + llvm::Twine(rank) +
                              " coordinates, got " +
                              llvm::Twine(ref.items.size()));
    return false;
  }
  bool ok = true;
  for (auto [i, item] : llvm::enumerate(ref.items)) {
    int64_t size = type.getShape()[i];
    Value start = item.kind == IndexItem::Kind::Scalar
                      ? evalI32(*item.start, "a coordinate")
                      : startOf(item);
    if (!start) {
      ok = false;
      continue;
    }
    coords.push_back(start);
    extents.push_back(extentOf(item, ShapedType::isDynamic(size) ? -1 : size));
  }
  return ok;
}

bool Emitter::tmemColumns(const BufferRef &ref, Value &column,
                          std::optional<int64_t> &width) {
  auto type = ref.base.getValueType<tile::TmemType>();
  if (!type)
    return false;
  int64_t cols = type.getShape()[1];
  std::string name = ref.name();
  if (!ref.indexed) {
    column = arith::ConstantIntOp::create(builder, loc(ref.getRange()),
                                          builder.getI32Type(), 0);
    width = cols;
    return true;
  }
  if (ref.items.size() != 2) {
    error(ref.getRange(), "index tensor memory by lanes and columns, as in " +
                              name + "[:, c0 : c0 + 64]");
    return false;
  }
  if (!coversWhole(*this, ref.items[0], 128)) {
    error(ref.items[0].range, "a tensor-memory slice spans all 128 lanes: "
                              "write ':' for the lanes");
    return false;
  }
  const IndexItem &item = ref.items[1];
  column = item.kind == IndexItem::Kind::Scalar
               ? evalI32(*item.start, "a column")
               : startOf(item);
  width = extentOf(item, cols);
  return static_cast<bool>(column);
}

bool Emitter::barrierIndex(const BufferRef &ref, Value &index) {
  auto type = ref.base.getValueType<tile::BarrierType>();
  if (!type)
    return false;
  std::string name = ref.name();
  if (!ref.indexed) {
    if (type.getDepth() != 1) {
      error(ref.getRange(),
            "'" + name + "' holds " + llvm::Twine(type.getDepth()) +
                " barriers: select one, as in " + name + "[stage]");
      return false;
    }
    index = arith::ConstantIntOp::create(builder, loc(ref.getRange()),
                                         builder.getI32Type(), 0);
    return true;
  }
  if (ref.items.size() != 1 || ref.items[0].kind != IndexItem::Kind::Scalar) {
    error(ref.getRange(), "select one barrier of '" + name +
                              "' with one index, as in " + name + "[stage]");
    return false;
  }
  Val val = eval(*ref.items[0].start);
  if (val.getValueType<tile::PipelineType>()) {
    index = tile::PipelineStageOp::create(builder, loc(ref.getRange()),
                                          builder.getI32Type(), val.value);
    return true;
  }
  if (val.isError())
    return false;
  if (!val.isInt() && !(val.isValue() && val.type.isSignlessInteger(32))) {
    error(ref.items[0].range,
          "a barrier index is an i32 or a pipeline state, got " +
              describeVal(val));
    return false;
  }
  index = materialize(val, ref.items[0].range);
  return static_cast<bool>(index);
}

//===----------------------------------------------------------------------===//
// Asynchronous copies
//===----------------------------------------------------------------------===//

static const llvm::StringRef kCopyDispatch[] = {"auto", "tma"};
static const llvm::StringRef kGemmDispatch[] = {"auto", "wgmma", "tcgen05"};

/// cta_group = 1 or 2 (default 1).
static std::optional<int64_t> evalCtaGroup(Emitter &emitter, const Expr *expr) {
  if (!expr)
    return 1;
  std::optional<int64_t> n = emitter.evalConstInt(*expr, "cta_group");
  if (!n)
    return std::nullopt;
  if (*n != 1 && *n != 2) {
    emitter.error(expr->getRange(),
                  "cta_group is 1 or 2, got " + llvm::Twine(*n));
    emitter.noteParamsIn(*expr);
    return std::nullopt;
  }
  return n;
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
  if (!smemTileIndices(smemRef, /*withRow=*/false, "copy_async", smemIndices) ||
      !globalCoords(globalRef, globalIndices, extents))
    return Val::error();
  if (smem.getElementType() != global.getElementType()) {
    error(call.callee->getRange(),
          "copy_async between " +
              tile::getElementTypeName(global.getElementType()) + " tensor '" +
              globalRef.name() + "' and " +
              tile::getElementTypeName(smem.getElementType()) + " buffer '" +
              smemRef.name() + "': the element types must match");
    return Val::error();
  }
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
    int64_t expected = smem.getShape()[tileDim];
    if (*extents[i] != expected) {
      bool isRows = i + 2 == grank;
      error(item.range, "this range spans " + llvm::Twine(*extents[i]) +
                            " elements, but the tile of '" + smemRef.name() +
                            "' has " + llvm::Twine(expected) +
                            (isRows ? " rows" : " columns"));
      noteDeclaration(*this, smemRef);
      return Val::error();
    }
  }
  Value barrier, barrierIdx;
  if (load) {
    if (!args[2]) {
      error(call.callee->getRange(),
            "a copy into shared memory completes on a tma barrier: add "
            "'barrier = full[stage]'");
      return Val::error();
    }
    std::optional<BufferRef> ref =
        evalBufferRef(*args[2], "the barrier of copy_async");
    if (!ref)
      return Val::error();
    auto type = ref->base.getValueType<tile::BarrierType>();
    if (!type) {
      error(args[2]->getRange(),
            "barrier = ... takes a barrier, got " + describeVal(ref->base));
      return Val::error();
    }
    if (type.getKind() != tile::BarrierKind::tma) {
      error(args[2]->getRange(),
            "a copy into shared memory completes on a tma barrier, but '" +
                ref->name() + "' is " +
                (type.getKind() == tile::BarrierKind::mma ? "an mma"
                                                          : "a threads") +
                " barrier");
      noteDeclaration(*this, *ref);
      return Val::error();
    }
    if (!barrierIndex(*ref, barrierIdx))
      return Val::error();
    barrier = ref->base.value;
  } else if (args[2]) {
    error(args[2]->getRange(), "a copy to global memory takes no barrier: it "
                               "completes with bulk_commit() and "
                               "bulk_wait()");
    return Val::error();
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
    if (!load) {
      error(args[4]->getRange(),
            "multicast applies to copies into shared memory");
      return Val::error();
    }
    std::optional<int64_t> mask = evalConstInt(*args[4], "a multicast mask");
    if (!mask)
      return Val::error();
    if (*mask < 1 || *mask >= (int64_t(1) << clusterSize)) {
      error(args[4]->getRange(), "multicast mask " + llvm::Twine(*mask) +
                                     " names CTAs outside the cluster of " +
                                     llvm::Twine(clusterSize));
      noteParamsIn(*args[4]);
      return Val::error();
    }
    multicast = builder.getI64IntegerAttr(*mask);
  }
  std::optional<int64_t> ctaGroup = evalCtaGroup(*this, args[5]);
  if (!ctaGroup)
    return Val::error();
  bool reduceAdd = false;
  if (args[6]) {
    if (load) {
      error(args[6]->getRange(),
            "reduce applies to copies to global memory (TMA reduce-add)");
      return Val::error();
    }
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
  tile::CopyAsyncOp::create(builder, loc(call.getLoc()), dstValue, dstIndices,
                            srcValue, srcIndices, barrier, barrierIdx, dispatch,
                            multicast, static_cast<uint64_t>(*ctaGroup),
                            reduceAdd, /*tensormap=*/nullptr);
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
    std::optional<int64_t> n =
        evalConstInt(*args[0], "the number of pending copy groups");
    if (!n)
      return Val::error();
    if (*n < 0 || *n > 63) {
      error(args[0]->getRange(),
            "pending is 0 to 63 copy groups, got " + llvm::Twine(*n));
      return Val::error();
    }
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
                 {"cta_group", false}},
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
  SmallVector<Value> aIndices, bIndices;
  std::optional<int64_t> aRows, bRows;
  if (!smemTileIndices(*a, /*withRow=*/true, "gemm_async", aIndices, &aRows) ||
      !smemTileIndices(*b, /*withRow=*/true, "gemm_async", bIndices, &bRows))
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
  Location l = loc(call.getLoc());
  auto aType = cast<tile::SmemType>(a->base.type);
  auto bType = cast<tile::SmemType>(b->base.type);

  if (fragType) {
    if (args[3]) {
      error(args[3]->getRange(),
            "wgmma always accumulates into the fragment: start from "
            "zeros(...) instead of passing accumulate");
      return Val::error();
    }
    // `a[s, row : row + 64]` names the rows of A; `a[s]` starts at row 0.
    int64_t m = fragType.getShape()[0];
    size_t rowItem = aType.getRank() - 2;
    bool rowsWritten = a->items.size() > rowItem &&
                       a->items[rowItem].kind == IndexItem::Kind::Range;
    if (rowsWritten && aRows && *aRows != m) {
      error(a->items.size() > aType.getRank() - 2
                ? a->items[aType.getRank() - 2].range
                : a->getRange(),
            "these " + llvm::Twine(*aRows) + " rows of A do not match the " +
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
        b->base.value, bIndices, Value(), dispatch,
        static_cast<uint64_t>(*ctaGroup));
    assignVariable(name->name, name->getRange(), Val::of(op.getResult()));
    return Val::error();
  }

  Value column;
  std::optional<int64_t> width;
  if (!tmemColumns(*tmemRef, column, width))
    return Val::error();
  int64_t n = bType.getShape()[bType.getRank() - 2] * *ctaGroup;
  if (width && *width != n) {
    error(args[0]->getRange(),
          "the accumulator slice has " + llvm::Twine(*width) +
              " columns, but the MMA's N is " + llvm::Twine(n) + " (" +
              llvm::Twine(bType.getShape()[bType.getRank() - 2]) +
              " rows of '" + b->name() + "' x cta_group " +
              llvm::Twine(*ctaGroup) + ")");
    noteDeclaration(*this, *b);
    return Val::error();
  }
  Value accumulate;
  if (args[3]) {
    accumulate = evalI1(*args[3], "accumulate");
    if (!accumulate)
      return Val::error();
  }
  tile::GemmAsyncOp::create(builder, l, Type(), tmemRef->base.value, column,
                            a->base.value, aIndices, b->base.value, bIndices,
                            accumulate, dispatch,
                            static_cast<uint64_t>(*ctaGroup));
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
    std::optional<int64_t> n =
        evalConstInt(*args[1], "the number of pending MMA groups");
    if (!n)
      return Val::error();
    if (*n < 0 || *n > 7) {
      error(args[1]->getRange(),
            "pending is 0 to 7 wgmma groups, got " + llvm::Twine(*n));
      return Val::error();
    }
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
  if (!bindArgs(call, "store", {{"dst", true}, {"value", true}}, args))
    return Val::error();
  std::optional<BufferRef> dst = evalBufferRef(*args[0], "the destination "
                                                         "of store");
  Val value = eval(*args[1]);
  if (!dst || value.isError())
    return Val::error();
  auto frag = value.getValueType<tile::FragType>();
  if (!frag) {
    error(args[1]->getRange(),
          "store writes a register fragment, got " + describeVal(value));
    return Val::error();
  }
  SmallVector<Value> indices;
  std::optional<int64_t> rows;
  if (!smemTileIndices(*dst, /*withRow=*/true, "store", indices, &rows))
    return Val::error();
  auto smem = cast<tile::SmemType>(dst->base.type);
  if (frag.getElementType() != smem.getElementType()) {
    error(call.callee->getRange(),
          "store writes " +
              withArticle(tile::getElementTypeName(frag.getElementType())) +
              " fragment into " +
              tile::getElementTypeName(smem.getElementType()) + " buffer '" +
              dst->name() + "'; cast it first with cast(x, " +
              tile::getElementTypeName(smem.getElementType()) + ")");
    return Val::error();
  }
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
  if (*width < 1 || *width > 128 || !llvm::isPowerOf2_64(*width)) {
    error(args[0]->getRange(),
          "tmem_load reads a power-of-two number of columns up to 128, got " +
              llvm::Twine(*width) +
              "; load wider slices in chunks with 'for i in unroll(...)'");
    noteParamsIn(*args[0]);
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

static const llvm::StringRef kFragLayouts[] = {"wgmma_acc", "row_per_thread"};

Val Emitter::emitZeros(const CallExpr &call) {
  SmallVector<const Expr *> args;
  if (!bindArgs(call, "zeros", {{"type", true}, {"layout", true}}, args))
    return Val::error();
  std::optional<ShapeExpr> shape = evalShapeExpr(*args[0], "a fragment");
  std::optional<unsigned> layout =
      evalChoice(*args[1], "fragment layout", kFragLayouts);
  if (!shape || !layout)
    return Val::error();
  if (shape->shape.size() != 2) {
    error(args[0]->getRange(),
          "a fragment is two-dimensional: write f32[rows, columns]");
    return Val::error();
  }
  int64_t rows = shape->shape[0], cols = shape->shape[1];
  auto kind = static_cast<tile::FragLayout>(*layout);
  if (rows < 1 || cols < 1) {
    error(args[0]->getRange(), "fragment dimensions must be positive");
    noteParamsIn(*args[0]);
    return Val::error();
  }
  if (kind == tile::FragLayout::wgmma_acc) {
    if (rows % 64 != 0) {
      error(shape->dims[0]->getRange(),
            "a wgmma_acc fragment has a multiple of 64 rows (one warpgroup "
            "holds 64 rows of an MMA), got " +
                llvm::Twine(rows));
      noteParamsIn(*shape->dims[0]);
      return Val::error();
    }
    if (cols % 8 != 0 || cols > 256) {
      error(shape->dims[1]->getRange(),
            "a wgmma_acc fragment has a multiple of 8 columns up to 256 "
            "(the MMA's N), got " +
                llvm::Twine(cols));
      noteParamsIn(*shape->dims[1]);
      return Val::error();
    }
  } else if (rows != 128) {
    error(shape->dims[0]->getRange(),
          "a row_per_thread fragment has 128 rows (one per thread of the "
          "warpgroup), got " +
              llvm::Twine(rows));
    noteParamsIn(*shape->dims[0]);
    return Val::error();
  }
  if (rows > (int64_t(1) << 20) || cols > (int64_t(1) << 20) ||
      rows * cols > (int64_t(1) << 20)) {
    error(args[0]->getRange(), "a fragment of " + llvm::Twine(rows) + "x" +
                                   llvm::Twine(cols) +
                                   " elements does not fit in registers");
    return Val::error();
  }
  Location l = loc(call.getLoc());
  auto type = tile::FragType::getChecked([&] { return emitError(l); }, &context,
                                         ArrayRef<int64_t>(shape->shape),
                                         shape->elementType, kind);
  if (!type)
    return Val::error();
  return Val::of(tile::FragZeroOp::create(builder, l, type));
}

Val Emitter::emitCast(const CallExpr &call) {
  SmallVector<const Expr *> args;
  if (!bindArgs(call, "cast", {{"value", true}, {"type", true}}, args))
    return Val::error();
  Val value = eval(*args[0]);
  Type to = evalDType(*args[1], "the type to cast to");
  if (value.isError() || !to)
    return Val::error();
  Location l = loc(call.getLoc());
  if (auto frag = value.getValueType<tile::FragType>()) {
    auto type =
        tile::FragType::getChecked([&] { return emitError(l); }, &context,
                                   frag.getShape(), to, frag.getLayout());
    if (!type)
      return Val::error();
    return Val::of(tile::FragCastOp::create(builder, l, type, value.value));
  }
  bool toInt = to.isSignlessInteger(32) || to.isSignlessInteger(64);
  if (value.isInt() && (toInt || to.isF32()))
    return toInt ? value : Val::ofFloat(static_cast<double>(value.intValue));
  if (value.isFloat() && (toInt || to.isF32())) {
    if (to.isF32())
      return value;
    if (!(value.floatValue > -9.2e18 && value.floatValue < 9.2e18)) {
      error(args[0]->getRange(), "the number does not fit in an integer");
      return Val::error();
    }
    return Val::ofInt(static_cast<int64_t>(value.floatValue));
  }
  if (value.isValue()) {
    Type from = value.type;
    if (from == to)
      return value;
    if (from.isSignlessInteger() && !from.isInteger(1) && to.isF32())
      return Val::of(arith::SIToFPOp::create(builder, l, to, value.value));
    if (from.isF32() && toInt)
      return Val::of(arith::FPToSIOp::create(builder, l, to, value.value));
    if (from.isSignlessInteger() && toInt &&
        from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth())
      return Val::of(
          from.isInteger(1)
              ? Value(arith::ExtUIOp::create(builder, l, to, value.value))
              : Value(arith::ExtSIOp::create(builder, l, to, value.value)));
    if (from.isSignlessInteger() && toInt)
      return Val::of(arith::TruncIOp::create(builder, l, to, value.value));
  }
  error(call.getRange(), "cannot cast " + describeVal(value) + " to " +
                             describeType(to) +
                             " (a scalar converts between i32, i64 and f32; "
                             "a fragment to any element type)");
  return Val::error();
}

//===----------------------------------------------------------------------===//
// Scalars
//===----------------------------------------------------------------------===//

Val Emitter::emitCeilDiv(const CallExpr &call) {
  SmallVector<const Expr *> args;
  if (!bindArgs(call, "ceildiv", {{"a", true}, {"b", true}}, args))
    return Val::error();
  Val a = eval(*args[0]), b = eval(*args[1]);
  if (a.isError() || b.isError())
    return Val::error();
  if (b.isInt() && b.intValue <= 0) {
    error(args[1]->getRange(), "ceildiv divides by a positive number, got " +
                                   llvm::Twine(b.intValue));
    noteParamsIn(*args[1]);
    return Val::error();
  }
  if (a.isInt() && b.isInt()) {
    int64_t q = a.intValue / b.intValue;
    if (a.intValue % b.intValue != 0 && a.intValue > 0)
      ++q;
    return Val::ofInt(q);
  }
  auto isI32 = [](const Val &v) {
    return v.isInt() || (v.isValue() && v.type.isSignlessInteger(32));
  };
  if (!isI32(a) || !isI32(b)) {
    error(call.getRange(), "ceildiv takes two integers, got " + describeVal(a) +
                               " and " + describeVal(b));
    return Val::error();
  }
  Value x = materialize(a, args[0]->getRange());
  Value y = materialize(b, args[1]->getRange());
  if (!x || !y)
    return Val::error();
  return Val::of(arith::CeilDivSIOp::create(builder, loc(call.getLoc()), x, y));
}

Val Emitter::emitMinMax(const CallExpr &call, bool isMax) {
  SmallVector<const Expr *> args;
  if (!bindArgs(call, isMax ? "max" : "min", {{"a", true}, {"b", true}}, args))
    return Val::error();
  Val a = eval(*args[0]), b = eval(*args[1]);
  return minMax(isMax, a, b, call.getRange());
}

Val Emitter::emitSizeof(const CallExpr &call) {
  SmallVector<const Expr *> args;
  if (!bindArgs(call, "sizeof", {{"type", true}}, args))
    return Val::error();
  Type type = evalDType(*args[0], "sizeof's argument");
  if (!type)
    return Val::error();
  return Val::ofInt(tile::getElementBytes(type));
}

//===----------------------------------------------------------------------===//
// Synchronisation and pipelines
//===----------------------------------------------------------------------===//

static const llvm::StringRef kSyncScopes[] = {"cta", "cluster", "warpgroup"};
static const llvm::StringRef kFenceKinds[] = {
    "proxy_async", "tcgen05_before_sync", "tcgen05_after_sync"};

Val Emitter::emitSync(const CallExpr &call) {
  SmallVector<const Expr *> args;
  if (!bindArgs(call, "sync", {{"scope", true}}, args))
    return Val::error();
  std::optional<unsigned> scope =
      evalChoice(*args[0], "sync scope", kSyncScopes);
  if (!scope)
    return Val::error();
  if (llvm::is_contained(regionKinds, "single_thread block")) {
    error(call.getRange(), "a sync inside a single_thread block deadlocks: "
                           "only one thread reaches it");
    return Val::error();
  }
  if (currentRole && *scope != 2) {
    error(call.getRange(),
          llvm::Twine("a ") + (*scope == 0 ? "CTA" : "cluster") +
              "-wide sync inside role '" + currentRole->name +
              "' deadlocks: the other roles never reach it; use "
              "sync(warpgroup) to sync this role's warpgroup");
    note(currentRole->nameRange, "the role is declared here");
    return Val::error();
  }
  tile::SyncOp::create(builder, loc(call.getLoc()),
                       static_cast<tile::SyncScope>(*scope),
                       /*barrier_id=*/nullptr);
  return Val::error();
}

Val Emitter::emitFence(const CallExpr &call) {
  SmallVector<const Expr *> args;
  if (!bindArgs(call, "fence", {{"kind", true}}, args))
    return Val::error();
  if (auto *name = llvm::dyn_cast<NameExpr>(args[0]);
      name && name->name == "mbarrier_init") {
    error(args[0]->getRange(), "the compiler initialises the barriers and "
                               "fences them itself");
    return Val::error();
  }
  std::optional<unsigned> kind = evalChoice(*args[0], "fence", kFenceKinds);
  if (!kind)
    return Val::error();
  std::optional<tile::FenceKind> fence =
      tile::symbolizeFenceKind(kFenceKinds[*kind]);
  if (!fence)
    return Val::error();
  tile::FenceOp::create(builder, loc(call.getLoc()), *fence);
  return Val::error();
}

Val Emitter::emitPipeline(const CallExpr &call) {
  SmallVector<const Expr *> args;
  if (!bindArgs(call, "pipeline", {{"depth", true}, {"phase", false}}, args))
    return Val::error();
  std::optional<int64_t> depth = evalConstInt(*args[0], "a pipeline's depth");
  if (!depth)
    return Val::error();
  if (*depth < 1 || *depth > 64) {
    error(args[0]->getRange(),
          "a pipeline's depth is 1 to 64 stages, got " + llvm::Twine(*depth));
    noteParamsIn(*args[0]);
    return Val::error();
  }
  if (!args[1]) {
    error(closingParen(call),
          "give the start phase: 'phase = 1' for a producer (its first wait "
          "on a fresh barrier passes at once), 'phase = 0' for a consumer");
    return Val::error();
  }
  std::optional<int64_t> phase = evalConstInt(*args[1], "the start phase");
  if (!phase)
    return Val::error();
  if (*phase != 0 && *phase != 1) {
    error(args[1]->getRange(),
          "the start phase is 0 or 1, got " + llvm::Twine(*phase));
    return Val::error();
  }
  Location l = loc(call.getLoc());
  auto type = tile::PipelineType::getChecked([&] { return emitError(l); },
                                             &context, *depth);
  if (!type)
    return Val::error();
  return Val::of(tile::PipelineInitOp::create(builder, l, type,
                                              static_cast<uint64_t>(*phase)));
}

static const llvm::StringRef kBarrierMethods[] = {"wait", "arrive",
                                                  "remote_view"};

Val Emitter::emitMethod(const CallExpr &call, const MemberExpr &callee,
                        bool isStatement) {
  if (!inKernelBody()) {
    error(callee.getRange(), "methods can only be called inside a kernel "
                             "body");
    return Val::error();
  }
  Val base = eval(*callee.base);
  if (base.isError())
    return base;
  llvm::StringRef method = callee.member;
  auto checkStatement = [&](bool wantStatement) {
    if (wantStatement && !isStatement) {
      error(callee.memberRange,
            method + "() is a statement: it gives no value");
      return false;
    }
    if (!wantStatement && isStatement) {
      error(call.getRange(), "the value of " + method +
                                 "() is not used; bind it with 'let name = "
                                 "...'");
      return false;
    }
    return true;
  };
  if (auto barrier = base.getValueType<tile::BarrierType>()) {
    if (method == "wait")
      return checkStatement(true) ? emitBarrierWait(call, base.value)
                                  : Val::error();
    if (method == "arrive")
      return checkStatement(true) ? emitBarrierArrive(call, base.value)
                                  : Val::error();
    if (method == "remote_view")
      return checkStatement(false) ? emitRemoteView(call, base.value)
                                   : Val::error();
    llvm::StringRef close = closestName(method, kBarrierMethods);
    std::string message = "a barrier has no method '" + method.str() +
                          "' (it has wait, arrive and remote_view)";
    if (!close.empty())
      diag.errorWithFixIt(callee.memberRange,
                          message + "; did you mean '" + close.str() + "'?",
                          close);
    else
      error(callee.memberRange, message);
    return Val::error();
  }
  if (base.getValueType<tile::PipelineType>()) {
    if (method == "advance")
      return checkStatement(true) ? emitAdvance(call, callee) : Val::error();
    if (method == "wait" || method == "arrive") {
      error(callee.memberRange, "a pipeline state is not a barrier: " + method +
                                    " on a barrier with it, as in 'full." +
                                    method + "(" +
                                    textOf(callee.base->getRange()) + ")'");
      return Val::error();
    }
    if (method == "stage" || method == "phase") {
      error(call.getRange(), method + " is not a method: write '" +
                                 textOf(callee.getRange()) + "'");
      return Val::error();
    }
    static const llvm::StringRef kPipelineMethods[] = {"advance"};
    error(callee.memberRange, "a pipeline state has no method '" + method +
                                  "' (it has advance(), and the members "
                                  "stage and phase)" +
                                  didYouMean(method, kPipelineMethods));
    return Val::error();
  }
  error(callee.memberRange,
        describeVal(base) + " has no method '" + method + "'");
  return Val::error();
}

/// The (stage, phase) of a pipeline state, or null values.
static std::pair<Value, Value> stageAndPhase(Emitter &emitter, const Val &val,
                                             Location l) {
  if (!val.getValueType<tile::PipelineType>())
    return {};
  Type i32 = emitter.builder.getI32Type();
  return {tile::PipelineStageOp::create(emitter.builder, l, i32, val.value),
          tile::PipelinePhaseOp::create(emitter.builder, l, i32, val.value)};
}

Val Emitter::emitBarrierWait(const CallExpr &call, Value barrier) {
  SmallVector<const Expr *> args;
  if (!bindArgs(call, "wait", {{"index", true}, {"phase", false}}, args))
    return Val::error();
  Location l = loc(call.getLoc());
  Val index = eval(*args[0]);
  if (index.isError())
    return index;
  Value stage, phase;
  if (index.getValueType<tile::PipelineType>()) {
    if (args[1]) {
      error(args[1]->getRange(), "the phase comes from the pipeline state; "
                                 "write wait(ps) or wait(index, phase)");
      return Val::error();
    }
    std::tie(stage, phase) = stageAndPhase(*this, index, l);
  } else {
    if (!index.isInt() &&
        !(index.isValue() && index.type.isSignlessInteger(32))) {
      error(args[0]->getRange(), "wait takes a barrier index and a phase, or "
                                 "a pipeline state, got " +
                                     describeVal(index));
      return Val::error();
    }
    if (!args[1]) {
      error(closingParen(call),
            "give the phase to wait for: wait(index, phase), or pass a "
            "pipeline state: wait(ps)");
      return Val::error();
    }
    stage = materialize(index, args[0]->getRange());
    phase = evalI32(*args[1], "the phase");
  }
  if (!stage || !phase)
    return Val::error();
  tile::BarrierWaitOp::create(builder, l, barrier, stage, phase);
  return Val::error();
}

Val Emitter::emitBarrierArrive(const CallExpr &call, Value barrier) {
  for (const KeywordArg &keyword : call.keywords)
    if (keyword.name == "cta_group" || keyword.name == "cta_mask") {
      auto *member = llvm::cast<MemberExpr>(call.callee.get());
      error(keyword.nameRange,
            "an MMA completion is signalled with gemm_commit, as in "
            "'gemm_commit(" +
                textOf(member->base->getRange()) +
                "[stage], cta_group = 2, cta_mask = 3)'");
      return Val::error();
    }
  SmallVector<const Expr *> args;
  if (!bindArgs(call, "arrive", {{"index", true}, {"expect_tx", false}}, args))
    return Val::error();
  Location l = loc(call.getLoc());
  Val index = eval(*args[0]);
  if (index.isError())
    return index;
  Value stage;
  if (index.getValueType<tile::PipelineType>())
    stage = stageAndPhase(*this, index, l).first;
  else if (index.isInt() ||
           (index.isValue() && index.type.isSignlessInteger(32)))
    stage = materialize(index, args[0]->getRange());
  else
    error(args[0]->getRange(), "arrive takes a barrier index or a pipeline "
                               "state, got " +
                                   describeVal(index));
  if (!stage)
    return Val::error();
  IntegerAttr expectTx;
  if (args[1]) {
    std::optional<int64_t> bytes =
        evalConstInt(*args[1], "expect_tx (the bytes the copies deliver)");
    if (!bytes)
      return Val::error();
    if (*bytes < 0 || *bytes >= (1 << 20)) {
      error(args[1]->getRange(),
            "expect_tx is the bytes the copies of one phase deliver, at "
            "most 1048575, got " +
                llvm::Twine(*bytes));
      noteParamsIn(*args[1]);
      return Val::error();
    }
    auto type = cast<tile::BarrierType>(barrier.getType());
    if (type.getKind() != tile::BarrierKind::tma) {
      error(args[1]->getRange(),
            llvm::Twine("expect_tx needs a tma barrier, this one is ") +
                (type.getKind() == tile::BarrierKind::mma ? "an mma"
                                                          : "a threads") +
                " barrier");
      return Val::error();
    }
    expectTx = builder.getI64IntegerAttr(*bytes);
  }
  tile::BarrierArriveOp::create(builder, l, barrier, stage, expectTx);
  return Val::error();
}

Val Emitter::emitRemoteView(const CallExpr &call, Value barrier) {
  SmallVector<const Expr *> args;
  if (!bindArgs(call, "remote_view", {{"cta", true}}, args))
    return Val::error();
  std::optional<int64_t> cta =
      evalConstInt(*args[0], "the CTA of a remote view");
  if (!cta)
    return Val::error();
  if (*cta < 0 || *cta >= clusterSize) {
    error(args[0]->getRange(), "CTA " + llvm::Twine(*cta) +
                                   " is not in the cluster of " +
                                   llvm::Twine(clusterSize) + " CTA" +
                                   (clusterSize == 1 ? "" : "s"));
    noteParamsIn(*args[0]);
    return Val::error();
  }
  auto type = cast<tile::BarrierType>(barrier.getType());
  if (type.getRemote()) {
    error(call.callee->getRange(), "this barrier is already a remote view");
    return Val::error();
  }
  auto remote = tile::BarrierType::get(&context, type.getKind(),
                                       type.getDepth(), /*remote=*/true);
  return Val::of(
      tile::BarrierRemoteViewOp::create(builder, loc(call.getLoc()), remote,
                                        barrier, static_cast<uint64_t>(*cta)));
}

Val Emitter::emitAdvance(const CallExpr &call, const MemberExpr &callee) {
  if (!call.args.empty() || !call.keywords.empty()) {
    error(call.getRange(), "advance() takes no arguments");
    return Val::error();
  }
  auto *name = llvm::dyn_cast<NameExpr>(callee.base.get());
  if (!name) {
    error(callee.base->getRange(),
          "advance() updates a pipeline-state variable in place");
    return Val::error();
  }
  Val state = eval(*name);
  if (state.isError())
    return state;
  Value next = tile::PipelineAdvanceOp::create(builder, loc(call.getLoc()),
                                               state.type, state.value);
  assignVariable(name->name, name->getRange(), Val::of(next));
  return Val::error();
}

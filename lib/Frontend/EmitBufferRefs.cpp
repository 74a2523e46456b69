//===- EmitBufferRefs.cpp - buffer operands and their index items --------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//
//
// Buffer operands are written with Python-like indexing: leading indices
// select a tile of a shared buffer, ranges `a:b` give a global box or a slice
// of tensor-memory columns.
//
//===----------------------------------------------------------------------===//

#include "lib/Frontend/Emitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/STLExtras.h"

using namespace tilec::frontend;
using namespace mlir;

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

/// The length of `item` when it is a range from 0 to a constant (`:` and
/// an absent index: `size`).
static std::optional<int64_t>
prefixLength(Emitter &emitter, const IndexItem &item, int64_t size) {
  if (item.kind == IndexItem::Kind::Full)
    return size;
  if (item.kind != IndexItem::Kind::Range)
    return std::nullopt;
  std::optional<int64_t> start =
      item.start ? emitter.tryFoldInt(*item.start) : std::optional<int64_t>(0);
  std::optional<int64_t> stop =
      item.stop ? emitter.tryFoldInt(*item.stop) : std::optional<int64_t>(size);
  if (start != 0 || !stop)
    return std::nullopt;
  return stop;
}

/// Whether `item` covers a whole dimension of `size`: absent, `:`, or a
/// range from 0 to size.
static bool coversWhole(Emitter &emitter, const IndexItem &item, int64_t size) {
  return prefixLength(emitter, item, size) == size;
}

bool Emitter::leadingTileIndices(const BufferRef &ref, size_t lead,
                                 SmallVectorImpl<Value> &indices) {
  bool ok = true;
  for (size_t i = 0; i < lead; ++i) {
    const IndexItem &item = ref.items[i];
    if (item.kind != IndexItem::Kind::Scalar) {
      error(item.range, "the leading dimensions of '" + ref.name() +
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
  return ok;
}

bool Emitter::smemTileIndices(const BufferRef &ref, bool withRow,
                              llvm::StringRef opName,
                              SmallVectorImpl<Value> &indices,
                              std::optional<int64_t> *rowExtent,
                              bool firstColumn,
                              std::pair<int64_t, int64_t> *moved) {
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
  if (!leadingTileIndices(ref, lead, indices))
    return false;
  IndexItem whole;
  whole.kind = IndexItem::Kind::Full;
  const IndexItem &rowItem = ref.items.size() > lead ? ref.items[lead] : whole;
  const IndexItem &colItem =
      ref.items.size() > lead + 1 ? ref.items[lead + 1] : whole;
  int64_t rows = shape[rank - 2], cols = shape[rank - 1];
  if (moved) {
    // The verifier and tile-dispatch check which prefixes TMA can move.
    std::optional<int64_t> movedRows = prefixLength(*this, rowItem, rows);
    std::optional<int64_t> movedCols = prefixLength(*this, colItem, cols);
    for (auto [item, length, what] :
         {std::tuple(&rowItem, movedRows, "rows"),
          std::tuple(&colItem, movedCols, "columns")}) {
      if (!length) {
        error(item->range, opName + " moves a whole tile or its first " + what +
                               ": write ':' or '0 : N' with a "
                               "constant N");
        return false;
      }
    }
    *moved = {*movedRows, *movedCols};
    return true;
  }
  if (withRow) {
    // An MN-major MMA operand picks its first column instead of its first row.
    const IndexItem &item = firstColumn ? colItem : rowItem;
    Value start;
    if (item.kind == IndexItem::Kind::Scalar)
      start = evalI32(*item.start,
                      firstColumn ? "the first column" : "the first row");
    else
      start = startOf(item);
    if (!start)
      return false;
    indices.push_back(start);
    if (rowExtent)
      *rowExtent = extentOf(item, firstColumn ? cols : rows);
  } else {
    assert(moved && "a whole-tile operand without a first row is a copy");
  }
  if (firstColumn) {
    if (!coversWhole(*this, rowItem, rows)) {
      error(rowItem.range, opName +
                               " uses whole columns of an MN-major tile: "
                               "write ':' for the rows of '" +
                               name + "'");
      return false;
    }
  } else if (!coversWhole(*this, colItem, cols)) {
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

//===- EmitLoads.cpp - loads into registers and stores to global memory --===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//
//
// An indexed global tensor or shared buffer used as a value is a scalar load
// (`let g = grp[mb]`); `load(src[...], like = acc, broadcast = rows)` reads a
// fragment in the layout of `acc` (or one value per row or column of it);
// `store(D[m, n], frag)` into a global tensor writes the fragment, guarded at
// the tensor's edges. Each checks what the text shows (ranks, ranges against
// the fragment); the verifiers check types and constant bounds.
//
//===----------------------------------------------------------------------===//

#include "lib/Frontend/Emitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/StringSwitch.h"

using namespace tilec::frontend;
using namespace mlir;

/// In FragBroadcast order after `none`.
static const llvm::StringRef kLoadBroadcasts[] = {"rows", "cols"};

/// The extents a fragment access spans in memory, and their names for
/// messages: rows and columns of a full fragment; one line along the last
/// dimension for a broadcast one (its rows, or its columns). Loads and
/// stores of fragments share it.
static void spannedExtents(ArrayRef<int64_t> fragShape,
                           tile::FragBroadcast broadcast,
                           SmallVectorImpl<int64_t> &extents,
                           SmallVectorImpl<llvm::StringRef> &what) {
  if (broadcast == tile::FragBroadcast::none) {
    extents.assign({fragShape[0], fragShape[1]});
    what.assign({"rows", "columns"});
  } else if (broadcast == tile::FragBroadcast::rows) {
    extents.assign({fragShape[0]});
    what.assign({"rows"});
  } else {
    extents.assign({fragShape[1]});
    what.assign({"columns"});
  }
}

/// The shape and element type of a global tensor or shared buffer, or
/// nothing for other buffers.
static std::optional<std::pair<ArrayRef<int64_t>, Type>>
memoryShape(const BufferRef &ref) {
  if (auto global = ref.base.getValueType<tile::GlobalType>())
    return std::make_pair(global.getShape(), global.getElementType());
  if (auto smem = ref.base.getValueType<tile::SmemType>())
    return std::make_pair(smem.getShape(), smem.getElementType());
  return std::nullopt;
}

Value Emitter::loadFill(const Expr &expr, Type elementType) {
  Val val = eval(expr);
  if (val.isError())
    return {};
  Location l = loc(expr.getLoc());
  if (auto floatType = dyn_cast<FloatType>(elementType);
      floatType && (val.isInt() || val.isFloat())) {
    llvm::APFloat value(val.isInt() ? static_cast<double>(val.intValue)
                                    : val.floatValue);
    bool lost = false;
    value.convert(floatType.getFloatSemantics(),
                  llvm::APFloat::rmNearestTiesToEven, &lost);
    return arith::ConstantFloatOp::create(builder, l, floatType, value);
  }
  if (elementType.isSignlessInteger() && val.isInt())
    return materialize(val, expr.getRange(), elementType);
  if (val.isValue() && val.type == elementType)
    return val.value;
  error(expr.getRange(), "other is what a load reads past the tensor's edge: "
                         "a number or a value of the elements' type, " +
                             tile::getElementTypeName(elementType) + ", got " +
                             describeVal(val));
  return {};
}

bool Emitter::elementIndices(const BufferRef &ref, bool store,
                             SmallVectorImpl<Value> &indices) {
  auto [shape, elementType] = *memoryShape(ref);
  std::string name = ref.name();
  if (ref.items.size() != shape.size()) {
    error(
        ref.getRange(),
        "'" + name + "' has rank " + llvm::Twine(shape.size()) + " (shape " +
            shapeText(shape) +
            (store ? "): a store of one element takes " : "): index it with ") +
            llvm::Twine(shape.size()) + " indices, got " +
            llvm::Twine(ref.items.size()));
    return false;
  }
  // Stores also write 16-bit floats (a row of -inf for a TMA store of bf16
  // logits); loads read what scalar math takes.
  // Loads read i64 too: a symmetric buffer's table of peer offsets.
  bool half = elementType.isF16() || elementType.isBF16();
  if (!elementType.isSignlessInteger(32) && !elementType.isF32() &&
      !(store && half) && !(!store && elementType.isSignlessInteger(64))) {
    error(ref.getRange(),
          std::string(store ? "a scalar store writes i32, f32, f16 or bf16"
                            : "a scalar load reads i32, i64 or f32") +
              " elements, but '" + name + "' holds " +
              tile::getElementTypeName(elementType));
    return false;
  }
  for (const IndexItem &item : ref.items) {
    if (item.kind != IndexItem::Kind::Scalar) {
      error(item.range,
            store ? "a store of one element takes an index here, not a range; "
                    "store a fragment with store(" +
                        name + "[...], frag)"
                  : "a load of one element takes an index here, not a range; "
                    "load a fragment with load(" +
                        name + "[...], like = acc)");
      return false;
    }
    Value index = evalI32(*item.start, "an index");
    if (!index)
      return false;
    indices.push_back(index);
  }
  return true;
}

bool Emitter::evalMemoryOrdering(const Expr *order, const Expr *scope,
                                 tile::MemoryOrderAttr &orderAttr,
                                 tile::MemoryScopeAttr &scopeAttr) {
  // One of the dialect's enum names (tile.atomic's and tile.load's), the
  // choices read off the enum itself.
  auto choose = [&](const Expr *expr, llvm::StringRef what, auto stringify,
                    uint64_t maxValue, auto &attr) {
    if (!expr)
      return true;
    using Enum = decltype(attr.getValue());
    SmallVector<llvm::StringRef, 4> names;
    for (uint64_t i = 0; i <= maxValue; ++i)
      names.push_back(stringify(static_cast<Enum>(i)));
    std::optional<unsigned> choice = evalChoice(*expr, what, names);
    if (choice)
      attr = std::remove_reference_t<decltype(attr)>::get(
          &context, static_cast<Enum>(*choice));
    return choice.has_value();
  };
  return choose(order, "order", tile::stringifyMemoryOrder,
                tile::getMaxEnumValForMemoryOrder(), orderAttr) &&
         choose(scope, "scope", tile::stringifyMemoryScope,
                tile::getMaxEnumValForMemoryScope(), scopeAttr);
}

Val Emitter::loadScalar(const BufferRef &ref, const Expr *other, llvm::SMLoc at,
                        const Expr *order, const Expr *scope) {
  SmallVector<Value> indices;
  if (!elementIndices(ref, /*store=*/false, indices))
    return Val::error();
  Type elementType = memoryShape(ref)->second;
  Value fill;
  if (other && !(fill = loadFill(*other, elementType)))
    return Val::error();
  tile::MemoryOrderAttr orderAttr;
  tile::MemoryScopeAttr scopeAttr;
  if (!evalMemoryOrdering(order, scope, orderAttr, scopeAttr))
    return Val::error();
  // A scope alone means an acquire at that scope; an order alone, at gpu.
  if (scopeAttr && !orderAttr)
    orderAttr =
        tile::MemoryOrderAttr::get(&context, tile::MemoryOrder::acquire);
  if (orderAttr && !scopeAttr)
    scopeAttr = tile::MemoryScopeAttr::get(&context, tile::MemoryScope::gpu);
  return Val::of(tile::LoadOp::create(builder, loc(at), elementType,
                                      ref.base.value, indices, fill,
                                      /*nc=*/false, orderAttr, scopeAttr));
}

Val Emitter::emitPeer(const CallExpr &call) {
  SmallVector<const Expr *> args;
  if (!bindArgs(call, "peer", {{"tensor", true}, {"offset", true}}, args))
    return Val::error();
  Val tensor = eval(*args[0]);
  if (tensor.isError())
    return Val::error();
  if (!tensor.getValueType<tile::GlobalType>()) {
    error(args[0]->getRange(), "peer views a global tensor on another GPU, "
                               "got " +
                                   describeVal(tensor));
    return Val::error();
  }
  Val offset = eval(*args[1]);
  if (offset.isError())
    return Val::error();
  Value bytes = materialize(offset, args[1]->getRange(), builder.getI64Type());
  if (!bytes)
    return Val::error();
  if (!bytes.getType().isSignlessInteger(64)) {
    error(args[1]->getRange(),
          "a peer's offset is the i64 distance in bytes from this GPU's copy "
          "(a symmetric buffer's offset table, global i64[...]), got " +
              describeVal(offset));
    return Val::error();
  }
  return Val::of(tile::PeerViewOp::create(builder, loc(call.getLoc()),
                                          tensor.type, tensor.value, bytes));
}

Val Emitter::emitAtomic(const CallExpr &call) {
  llvm::StringRef name = cast<NameExpr>(call.callee.get())->name;
  SmallVector<const Expr *> args;
  if (!bindArgs(
          call, name,
          {{"dst", true}, {"value", true}, {"order", false}, {"scope", false}},
          args))
    return Val::error();
  std::optional<BufferRef> dst =
      evalBufferRef(*args[0], "the destination of " + name.str());
  if (!dst)
    return Val::error();
  auto global = dst->base.getValueType<tile::GlobalType>();
  if (!global) {
    error(args[0]->getRange(), name +
                                   " updates an element of a global "
                                   "tensor, got " +
                                   describeVal(dst->base));
    return Val::error();
  }
  Type elementType = global.getElementType();
  if (!elementType.isSignlessInteger(32) && !elementType.isF32()) {
    error(args[0]->getRange(), name + " updates i32 or f32 elements, but '" +
                                   dst->name() + "' holds " +
                                   tile::getElementTypeName(elementType));
    return Val::error();
  }
  for (const IndexItem &item : dst->items)
    if (item.kind != IndexItem::Kind::Scalar) {
      error(item.range, name + " updates one element: give an index here, "
                               "not a range");
      return Val::error();
    }
  SmallVector<Value> indices;
  if (!elementIndices(*dst, /*store=*/false, indices))
    return Val::error();
  Val value = eval(*args[1]);
  if (value.isError())
    return Val::error();
  Value operand = materialize(value, args[1]->getRange(), elementType);
  if (!operand)
    return Val::error();
  if (operand.getType() != elementType) {
    error(args[1]->getRange(), "'" + dst->name() + "' holds " +
                                   tile::getElementTypeName(elementType) +
                                   ", but this value is " +
                                   describeType(operand.getType()));
    return Val::error();
  }
  tile::MemoryOrderAttr orderAttr;
  tile::MemoryScopeAttr scopeAttr;
  if (!evalMemoryOrdering(args[2], args[3], orderAttr, scopeAttr))
    return Val::error();
  auto kind = llvm::StringSwitch<tile::AtomicKind>(name)
                  .Case("atomic_max", tile::AtomicKind::max)
                  .Case("atomic_min", tile::AtomicKind::min)
                  .Case("atomic_exch", tile::AtomicKind::exch)
                  .Default(tile::AtomicKind::add);
  auto op = tile::AtomicOp::create(builder, loc(call.getLoc()), elementType,
                                   tile::AtomicKindAttr::get(&context, kind),
                                   dst->base.value, indices, operand, orderAttr,
                                   scopeAttr);
  return Val::of(op.getOld());
}

Val Emitter::storeScalar(const CallExpr &call, const BufferRef &dst,
                         const Val &value, const Expr &valueExpr) {
  if (!memoryShape(dst)) {
    error(dst.getRange(), "store writes into a shared buffer or a global "
                          "tensor, got " +
                              describeVal(dst.base));
    return Val::error();
  }
  SmallVector<Value> indices;
  if (!elementIndices(dst, /*store=*/true, indices))
    return Val::error();
  Type elementType = memoryShape(dst)->second;
  Location l = loc(call.getLoc());
  Value stored;
  if (auto half = dyn_cast<FloatType>(elementType);
      half && half.getWidth() == 16 &&
      (value.kind == Val::Kind::Int || value.kind == Val::Kind::Float)) {
    // A number into a 16-bit float buffer: rounded to nearest at compile
    // time (an f32 value is cast, as below).
    llvm::APFloat number(value.kind == Val::Kind::Int
                             ? static_cast<double>(value.intValue)
                             : value.floatValue);
    bool inexact;
    number.convert(half.getFloatSemantics(), llvm::APFloat::rmNearestTiesToEven,
                   &inexact);
    stored = arith::ConstantFloatOp::create(builder, l, half, number);
  } else {
    stored = materialize(value, valueExpr.getRange(), elementType);
  }
  if (!stored)
    return Val::error();
  if (stored.getType() != elementType) {
    error(valueExpr.getRange(), "'" + dst.name() + "' holds " +
                                    tile::getElementTypeName(elementType) +
                                    ", but this value is " +
                                    describeVal(value) + "; cast it first");
    return Val::error();
  }
  tile::StoreOp::create(builder, l, stored, dst.base.value, indices);
  return Val::error();
}

Val Emitter::emitIndexLoad(const IndexExpr &expr) {
  std::optional<BufferRef> ref = evalBufferRef(expr, "an indexed value");
  if (!ref)
    return Val::error();
  return loadScalar(*ref, nullptr, expr.getLoc());
}

bool Emitter::tileStarts(const BufferRef &ref, ArrayRef<int64_t> extents,
                         llvm::ArrayRef<llvm::StringRef> what,
                         SmallVectorImpl<Value> &indices, Value *rowNumbers) {
  auto [shape, elementType] = *memoryShape(ref);
  std::string name = ref.name();
  size_t rank = shape.size(), spanned = extents.size();
  if (ref.items.size() != rank) {
    error(ref.getRange(), "'" + name + "' has rank " + llvm::Twine(rank) +
                              ": give " + llvm::Twine(rank) +
                              " indices (the leading ones, then where the "
                              "fragment starts), got " +
                              llvm::Twine(ref.items.size()));
    return false;
  }
  for (auto [d, item] : llvm::enumerate(ref.items)) {
    bool leading = d + spanned < rank;
    if (leading && item.kind != IndexItem::Kind::Scalar) {
      error(item.range, "the leading dimensions of '" + name +
                            "' select one row or stage: write an index "
                            "here, not a range");
      return false;
    }
    Value start;
    if (item.kind == IndexItem::Kind::Scalar) {
      Val val = eval(*item.start);
      if (val.isError())
        return false;
      if (auto numbers = val.getValueType<tile::FragType>()) {
        // A gather or scatter: one tensor row per row of the fragment.
        if (!rowNumbers || spanned != 2 || d != rank - 2) {
          error(item.range, "a fragment of row numbers gathers or scatters "
                            "the rows of a full fragment: it goes in the "
                            "row index of a global tensor, got " +
                                describeVal(val));
          return false;
        }
        if (!numbers.getElementType().isSignlessInteger(32) ||
            numbers.getBroadcast() != tile::FragBroadcast::rows) {
          error(item.range,
                "row numbers are an i32 rows fragment (load(IDX[p0 : p0 + "
                "rows], like = frag, broadcast = rows)), got " +
                    describeVal(val));
          return false;
        }
        *rowNumbers = val.value;
        start = materialize(Val::ofInt(0), item.range);
      } else {
        start = asI32(val, *item.start, "an index");
      }
    } else {
      start = startOf(item);
    }
    if (!start)
      return false;
    indices.push_back(start);
    if (leading)
      continue;
    size_t span = d - (rank - spanned);
    int64_t size = ShapedType::isDynamic(shape[d]) ? -1 : shape[d];
    std::optional<int64_t> extent = extentOf(item, size);
    if (item.kind != IndexItem::Kind::Scalar && extent &&
        *extent != extents[span]) {
      error(item.range, "this range spans " + llvm::Twine(*extent) +
                            " elements, but the fragment has " +
                            llvm::Twine(extents[span]) + " " + what[span]);
      return false;
    }
  }
  return true;
}

Val Emitter::emitLoad(const CallExpr &call) {
  SmallVector<const Expr *> args;
  if (!bindArgs(call, "load",
                {{"src", true},
                 {"like", false},
                 {"broadcast", false},
                 {"other", false},
                 {"order", false},
                 {"scope", false}},
                args))
    return Val::error();
  std::optional<BufferRef> src = evalBufferRef(*args[0], "the source of load");
  if (!src)
    return Val::error();
  if (!memoryShape(*src)) {
    error(args[0]->getRange(),
          "load reads a global tensor or a shared-memory buffer, got " +
              describeVal(src->base));
    return Val::error();
  }
  if (!args[1]) {
    if (args[2]) {
      error(args[2]->getRange(), "broadcast = ... shapes a fragment: give "
                                 "the fragment with like = ...");
      return Val::error();
    }
    return loadScalar(*src, args[3], call.getLoc(), args[4], args[5]);
  }
  if (args[4] || args[5]) {
    error((args[4] ? args[4] : args[5])->getRange(),
          "order and scope apply to a load of one element of a global "
          "tensor, not to a fragment");
    return Val::error();
  }
  Val like = eval(*args[1]);
  if (like.isError())
    return Val::error();
  auto likeType = like.getValueType<tile::FragType>();
  if (!likeType) {
    error(args[1]->getRange(),
          "like = ... takes a register fragment whose shape and layout the "
          "load follows (the accumulator), got " +
              describeVal(like));
    return Val::error();
  }
  auto broadcast = tile::FragBroadcast::none;
  if (args[2]) {
    std::optional<unsigned> choice =
        evalChoice(*args[2], "broadcast", kLoadBroadcasts);
    if (!choice)
      return Val::error();
    broadcast = static_cast<tile::FragBroadcast>(*choice + 1);
  }
  auto [shape, elementType] = *memoryShape(*src);
  ArrayRef<int64_t> fragShape = likeType.getShape();
  if (broadcast == tile::FragBroadcast::none && shape.size() < 2) {
    error(args[0]->getRange(),
          "a full fragment reads a 2-D tile, but '" + src->name() +
              "' has rank 1; read one value per column with broadcast = "
              "cols (or per row with rows)");
    return Val::error();
  }
  SmallVector<int64_t, 2> extents;
  SmallVector<llvm::StringRef, 2> what;
  spannedExtents(fragShape, broadcast, extents, what);
  SmallVector<Value> indices;
  Value rowNumbers;
  // Row numbers (a gather) index global tensors only.
  if (!tileStarts(*src, extents, what, indices,
                  src->base.getValueType<tile::GlobalType>() ? &rowNumbers
                                                             : nullptr))
    return Val::error();
  Value fill;
  if (args[3] && !(fill = loadFill(*args[3], elementType)))
    return Val::error();
  Location l = loc(call.getLoc());
  auto type = tile::FragType::getChecked([&] { return emitError(l); }, &context,
                                         fragShape, elementType,
                                         likeType.getLayout(), broadcast);
  if (!type)
    return Val::error();
  return Val::of(tile::FragLoadOp::create(builder, l, type, src->base.value,
                                          indices, rowNumbers, fill,
                                          /*nc=*/false, /*vector=*/nullptr));
}

Val Emitter::storeGlobal(const CallExpr &call, const BufferRef &dst,
                         const Val &value, const Expr *broadcast) {
  auto frag = cast<tile::FragType>(value.type);
  auto global = dst.base.getValueType<tile::GlobalType>();
  if (broadcast) {
    // The inverse of load(..., broadcast = ...): one value per row (column)
    // along the last dimension.
    std::optional<unsigned> choice =
        evalChoice(*broadcast, "broadcast", kLoadBroadcasts);
    if (!choice)
      return Val::error();
    auto lines = static_cast<tile::FragBroadcast>(*choice + 1);
    if (frag.getBroadcast() != lines) {
      error(broadcast->getRange(),
            "broadcast = " + kLoadBroadcasts[*choice] + " writes a " +
                kLoadBroadcasts[*choice] +
                (lines == tile::FragBroadcast::rows
                     ? " fragment (one value per row, as sum(x, axis = 1) "
                       "gives), got "
                     : " fragment (one value per column), got ") +
                describeVal(value));
      return Val::error();
    }
    SmallVector<int64_t, 2> extents;
    SmallVector<llvm::StringRef, 2> what;
    spannedExtents(frag.getShape(), lines, extents, what);
    SmallVector<Value> indices;
    if (!tileStarts(dst, extents, what, indices))
      return Val::error();
    auto op = tile::FragStoreGlobalOp::create(
        builder, loc(call.getLoc()), value.value, dst.base.value, indices,
        /*rows=*/Value(), /*vector=*/nullptr);
    op.setLines(true);
    return Val::error();
  }
  if (global.getRank() < 2) {
    error(dst.getRange(),
          "store writes a 2-D tile, but '" + dst.name() + "' has rank 1");
    return Val::error();
  }
  static const llvm::StringRef kWhat[] = {"rows", "columns"};
  SmallVector<Value> indices;
  Value rowNumbers;
  if (!tileStarts(dst, frag.getShape(), kWhat, indices,
                  frag.isBroadcast() ? nullptr : &rowNumbers))
    return Val::error();
  tile::FragStoreGlobalOp::create(builder, loc(call.getLoc()), value.value,
                                  dst.base.value, indices, rowNumbers,
                                  /*vector=*/nullptr);
  return Val::error();
}

bool Emitter::vectorTileIndices(const BufferRef &ref,
                                SmallVectorImpl<Value> &indices) {
  auto type = ref.base.getValueType<tile::SmemType>();
  ArrayRef<int64_t> shape = type.getShape();
  std::string name = ref.name();
  size_t lead = shape.size() - 1;
  if (ref.items.size() > shape.size() ||
      (ref.items.size() < lead && ref.indexed) || (!ref.indexed && lead != 0)) {
    error(ref.getRange(),
          "a rank-1 tensor copies a 1-D tile: select one row of '" + name +
              "' (shape " + shapeText(shape) + ") with " + llvm::Twine(lead) +
              " leading ind" + (lead == 1 ? "ex" : "ices"));
    return false;
  }
  if (!leadingTileIndices(ref, lead, indices))
    return false;
  if (ref.items.size() == shape.size()) {
    const IndexItem &item = ref.items.back();
    std::optional<int64_t> extent = extentOf(item, shape.back());
    if (item.kind != IndexItem::Kind::Full &&
        !(extent && *extent == shape.back() &&
          item.kind == IndexItem::Kind::Range &&
          (!item.start || tryFoldInt(*item.start) == 0))) {
      error(item.range, "copy_async moves whole tiles: write ':' for the "
                        "last dimension of '" +
                            name + "'");
      return false;
    }
  }
  return true;
}

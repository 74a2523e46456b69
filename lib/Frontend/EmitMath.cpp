//===- EmitMath.cpp - fragment math and the value builtins ---------------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//
//
// The value builtins (zeros, cast, ceildiv, min, max, sizeof) fold on
// constants and build one op otherwise; min and max of fragments, and max /
// min with an axis, are fragment math (EmitFragMath.cpp).
//
//===----------------------------------------------------------------------===//

#include "lib/Frontend/Emitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace tilec::frontend;
using namespace mlir;

Val Emitter::minMax(bool isMax, Val lhs, Val rhs, llvm::SMRange range) {
  if (lhs.isError() || rhs.isError())
    return Val::error();
  const char *name = isMax ? "max" : "min";
  if (lhs.getValueType<tile::FragType>() || rhs.getValueType<tile::FragType>())
    return fragMinMax(isMax, lhs, rhs, range);
  if (lhs.isInt() && rhs.isInt())
    return Val::ofInt(isMax ? std::max(lhs.intValue, rhs.intValue)
                            : std::min(lhs.intValue, rhs.intValue));
  if ((lhs.isInt() || lhs.isFloat()) && (rhs.isInt() || rhs.isFloat())) {
    double a = lhs.isInt() ? lhs.intValue : lhs.floatValue;
    double b = rhs.isInt() ? rhs.intValue : rhs.floatValue;
    return Val::ofFloat(isMax ? std::max(a, b) : std::min(a, b));
  }
  Type type = lhs.isValue() ? lhs.type : rhs.type;
  if (!(lhs.isValue() || lhs.isInt() || lhs.isFloat()) ||
      !(rhs.isValue() || rhs.isInt() || rhs.isFloat()) ||
      !(type.isSignlessInteger() || type.isF32()) || type.isInteger(1) ||
      (lhs.isValue() && rhs.isValue() && lhs.type != rhs.type) ||
      (type.isSignlessInteger() && (lhs.isFloat() || rhs.isFloat()))) {
    error(range, llvm::Twine(name) + " cannot be applied to " +
                     describeVal(lhs) + " and " + describeVal(rhs));
    return Val::error();
  }
  Value a = materialize(lhs, range, type), b = materialize(rhs, range, type);
  if (!a || !b)
    return Val::error();
  Location l = loc(range.Start);
  if (type.isF32())
    return Val::of(isMax ? Value(arith::MaximumFOp::create(builder, l, a, b))
                         : Value(arith::MinimumFOp::create(builder, l, a, b)));
  return Val::of(isMax ? Value(arith::MaxSIOp::create(builder, l, a, b))
                       : Value(arith::MinSIOp::create(builder, l, a, b)));
}

//===----------------------------------------------------------------------===//
// Fragments and casts
//===----------------------------------------------------------------------===//

static const llvm::StringRef kFragLayouts[] = {"wgmma_acc", "row_per_thread",
                                               "quad_spread"};
/// In FragBroadcast order after `none`.
static const llvm::StringRef kFragBroadcasts[] = {"rows", "cols"};

Val Emitter::emitZeros(const CallExpr &call) {
  // `undef(...)` takes the same arguments: the input of a gemm_async that
  // overwrites its accumulator (accumulate = false or a predicate); so does
  // `index(...)`, a rows or cols fragment of row or column indices.
  auto *callee = llvm::cast<NameExpr>(call.callee.get());
  bool undef = callee->name == "undef";
  bool index = callee->name == "index";
  SmallVector<const Expr *> args;
  SmallVector<ArgSpec> params = {
      {"type", true}, {"layout", true}, {"broadcast", false}};
  if (index)
    params.push_back({"align", false});
  if (!bindArgs(call, callee->name, params, args))
    return Val::error();
  std::optional<int64_t> align = 1;
  if (index && args[3])
    align = evalConstInt(*args[3], "an index alignment");
  if (!align)
    return Val::error();
  std::optional<ShapeExpr> shape = evalShapeExpr(*args[0], "a fragment");
  std::optional<unsigned> layout =
      evalChoice(*args[1], "fragment layout", kFragLayouts);
  std::optional<unsigned> broadcast;
  if (args[2])
    broadcast = evalChoice(*args[2], "broadcast", kFragBroadcasts);
  if (!shape || !layout || (args[2] && !broadcast))
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
  // Shape rules in the DSL's terms, pointing at the dimension; quad_spread's
  // is the fragment type's verifier's (getChecked below).
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
  } else if (kind == tile::FragLayout::row_per_thread && rows != 128) {
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
  auto type = tile::FragType::getChecked(
      [&] { return emitError(l); }, &context, ArrayRef<int64_t>(shape->shape),
      shape->elementType, kind,
      broadcast ? static_cast<tile::FragBroadcast>(*broadcast + 1)
                : tile::FragBroadcast::none);
  if (!type)
    return Val::error();
  if (undef)
    return Val::of(tile::FragUndefOp::create(builder, l, type));
  if (index)
    return Val::of(tile::FragIndexOp::create(builder, l, type, *align));
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
    auto type = tile::FragType::getChecked(
        [&] { return emitError(l); }, &context, frag.getShape(), to,
        frag.getLayout(), frag.getBroadcast());
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
  const char *name = isMax ? "max" : "min";
  SmallVector<const Expr *> args;
  if (!bindArgs(call, name,
                {{"a", true}, {"b", false}, {"axis", false}, {"groups", false}},
                args))
    return Val::error();
  // max(x, axis = 1[, groups = G]): a reduction; max(a, b): elementwise.
  if (args[2] && !args[1])
    return fragReduce(isMax ? tile::FragReduceKind::max
                            : tile::FragReduceKind::min,
                      call, *args[0], *args[2], args[3]);
  if (args[2] || args[3] || !args[1]) {
    error(closingParen(call), llvm::Twine(name) + " takes two values, " + name +
                                  "(a, b), or a fragment and an axis, " + name +
                                  "(x, axis = 1)");
    return Val::error();
  }
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

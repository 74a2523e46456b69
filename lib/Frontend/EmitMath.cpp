//===- EmitMath.cpp - fragment math and the value builtins ---------------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//
//
// Arithmetic on register fragments (the epilogue: acc * alpha + bias,
// min / max) becomes tile.frag.elementwise ops; the value builtins (zeros,
// cast, ceildiv, min, max, sizeof) fold on constants and build one op
// otherwise.
//
//===----------------------------------------------------------------------===//

#include "lib/Frontend/Emitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace tilec::frontend;
using namespace mlir;

//===----------------------------------------------------------------------===//
// Fragment math
//===----------------------------------------------------------------------===//

static bool isComparison(Tok op) {
  return op == Tok::EqEq || op == Tok::NotEq || op == Tok::Less ||
         op == Tok::LessEq || op == Tok::Greater || op == Tok::GreaterEq;
}

Val Emitter::fragOp(Tok op, Val lhs, Val rhs, llvm::SMRange range,
                    llvm::SMRange opRange) {
  Location l = loc(range.Start);
  bool fragOnLeft = static_cast<bool>(lhs.getValueType<tile::FragType>());
  Val frag = fragOnLeft ? lhs : rhs;
  Val other = fragOnLeft ? rhs : lhs;
  auto fragType = cast<tile::FragType>(frag.type);
  if (!fragType.getElementType().isF32()) {
    error(opRange, "epilogue math works on f32 fragments, got " +
                       describeType(fragType) +
                       "; do the math before the cast");
    return Val::error();
  }
  if (isComparison(op) || op == Tok::KwAnd || op == Tok::KwOr) {
    error(opRange, describe(op) + " cannot be applied to a fragment");
    return Val::error();
  }
  auto apply = [&](tile::EpilogueOp kind, Value a, Value b) {
    return Val::of(
        tile::FragElementwiseOp::create(builder, l, fragType, kind, a, b));
  };
  // Fragment with fragment.
  if (auto otherFrag = other.getValueType<tile::FragType>()) {
    if (otherFrag != fragType) {
      error(opRange, describe(op) + " needs two fragments of one type, got " +
                         describeType(lhs.type) + " and " +
                         describeType(rhs.type));
      return Val::error();
    }
    if (op == Tok::Plus)
      return apply(tile::EpilogueOp::add, lhs.value, rhs.value);
    if (op == Tok::Star)
      return apply(tile::EpilogueOp::mul, lhs.value, rhs.value);
    error(opRange, describe(op) +
                       " of two fragments is not supported; elementwise math "
                       "on fragments is +, *, min and max");
    return Val::error();
  }
  // Fragment with an f32 scalar.
  bool scalarOk = other.isInt() || other.isFloat() ||
                  (other.isValue() && other.type.isF32());
  if (!scalarOk) {
    error(opRange, "a fragment combines with an f32 scalar or a fragment of "
                   "the same type, got " +
                       describeVal(other));
    return Val::error();
  }
  double constant =
      other.isInt() ? static_cast<double>(other.intValue) : other.floatValue;
  Type f32 = builder.getF32Type();
  switch (op) {
  case Tok::Plus:
  case Tok::Star: {
    Value scalar = materialize(other, range, f32);
    if (!scalar)
      return Val::error();
    return apply(op == Tok::Plus ? tile::EpilogueOp::add
                                 : tile::EpilogueOp::mul,
                 frag.value, scalar);
  }
  case Tok::Minus: {
    if (!fragOnLeft) {
      // s - f = (f * -1) + s
      Val negated = fragOp(Tok::Star, frag, Val::ofFloat(-1.0), range, opRange);
      if (negated.isError())
        return negated;
      return fragOp(Tok::Plus, negated, other, range, opRange);
    }
    Value scalar;
    if (other.isValue())
      scalar = arith::NegFOp::create(builder, l, other.value);
    else
      scalar = materialize(Val::ofFloat(-constant), range, f32);
    return apply(tile::EpilogueOp::add, frag.value, scalar);
  }
  case Tok::Slash: {
    if (!fragOnLeft) {
      error(opRange, "a scalar cannot be divided by a fragment");
      return Val::error();
    }
    Value scalar;
    if (other.isValue()) {
      Value one = materialize(Val::ofFloat(1.0), range, f32);
      scalar = arith::DivFOp::create(builder, l, one, other.value);
    } else {
      if (constant == 0) {
        error(opRange, "division by zero");
        return Val::error();
      }
      scalar = materialize(Val::ofFloat(1.0 / constant), range, f32);
    }
    return apply(tile::EpilogueOp::mul, frag.value, scalar);
  }
  default:
    error(opRange, describe(op) + " cannot be applied to a fragment; "
                                  "elementwise math on fragments is +, -, *, "
                                  "/, min and max");
    return Val::error();
  }
}

Val Emitter::minMax(bool isMax, Val lhs, Val rhs, llvm::SMRange range) {
  if (lhs.isError() || rhs.isError())
    return Val::error();
  const char *name = isMax ? "max" : "min";
  Location l = loc(range.Start);
  if (lhs.getValueType<tile::FragType>() ||
      rhs.getValueType<tile::FragType>()) {
    if (!lhs.getValueType<tile::FragType>())
      std::swap(lhs, rhs);
    auto fragType = cast<tile::FragType>(lhs.type);
    if (!fragType.getElementType().isF32()) {
      error(range, llvm::Twine(name) + " works on f32 fragments, got " +
                       describeType(fragType));
      return Val::error();
    }
    Value other;
    if (auto otherFrag = rhs.getValueType<tile::FragType>()) {
      if (otherFrag != fragType) {
        error(range,
              llvm::Twine(name) + " needs two fragments of one type, got " +
                  describeType(fragType) + " and " + describeType(otherFrag));
        return Val::error();
      }
      other = rhs.value;
    } else if (rhs.isInt() || rhs.isFloat() ||
               (rhs.isValue() && rhs.type.isF32())) {
      other = materialize(rhs, range, builder.getF32Type());
    } else {
      error(range, llvm::Twine(name) +
                       " combines a fragment with an f32 scalar or a "
                       "fragment, got " +
                       describeVal(rhs));
      return Val::error();
    }
    if (!other)
      return Val::error();
    return Val::of(tile::FragElementwiseOp::create(
        builder, l, fragType,
        isMax ? tile::EpilogueOp::max : tile::EpilogueOp::min, lhs.value,
        other));
  }
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
  if (type.isF32())
    return Val::of(isMax ? Value(arith::MaximumFOp::create(builder, l, a, b))
                         : Value(arith::MinimumFOp::create(builder, l, a, b)));
  return Val::of(isMax ? Value(arith::MaxSIOp::create(builder, l, a, b))
                       : Value(arith::MinSIOp::create(builder, l, a, b)));
}

//===----------------------------------------------------------------------===//
// Fragments and casts
//===----------------------------------------------------------------------===//

static const llvm::StringRef kFragLayouts[] = {"wgmma_acc", "row_per_thread"};

Val Emitter::emitZeros(const CallExpr &call) {
  // `undef(...)` takes the same arguments: the input of a gemm_async that
  // overwrites its accumulator (accumulate = false or a predicate).
  auto *callee = llvm::cast<NameExpr>(call.callee.get());
  bool undef = callee->name == "undef";
  SmallVector<const Expr *> args;
  if (!bindArgs(call, callee->name, {{"type", true}, {"layout", true}}, args))
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
  if (undef)
    return Val::of(tile::FragUndefOp::create(builder, l, type));
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

//===- EmitFragMath.cpp - fragment math, reductions and activations ------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//
//
// Arithmetic, comparisons and the math builtins on register fragments (the
// epilogue) become tile.frag.unary / binary / fma / cmp / select / reduce.
// Numbers become f32 constants; which operand kinds combine (f32 only, one
// shape and layout, full or broadcast) is the dialect verifiers' rule, and
// their errors point at the expression's line. silu and gelu are expanded
// here into those ops (docs/dsl.md says why).
//
//===----------------------------------------------------------------------===//

#include "lib/Frontend/Emitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include <cmath>

using namespace tilec::frontend;
using namespace mlir;

/// The name a builtin was called by, for messages.
static llvm::StringRef calleeName(const CallExpr &call) {
  return llvm::cast<NameExpr>(call.callee.get())->name;
}

Value Emitter::fragOperand(const Val &val, llvm::SMRange range,
                           llvm::StringRef what) {
  if (val.isError())
    return {};
  if (val.getValueType<tile::FragType>() || (val.isValue() && val.type.isF32()))
    return val.value;
  if (val.isInt() || val.isFloat())
    return materialize(val, range, builder.getF32Type());
  error(range, what + " takes fragments and f32 scalars, got " +
                   describeVal(val) +
                   (val.isValue() && val.type.isSignlessInteger() &&
                            !val.type.isInteger(1)
                        ? "; convert it with cast(x, f32)"
                        : ""));
  return {};
}

/// Builds elementwise math on `operands` (Vals of fragments and scalars):
/// `build` makes the op of result type `resultElement` at `range`.
template <typename BuildFn>
static Val fragElementwise(Emitter &emitter, llvm::SMRange range,
                           llvm::StringRef what, ArrayRef<Val> operands,
                           Type resultElement, BuildFn build) {
  SmallVector<Value, 3> values;
  for (const Val &operand : operands) {
    Value value = emitter.fragOperand(operand, range, what);
    if (!value)
      return Val::error();
    values.push_back(value);
  }
  auto type = tile::getElementwiseResultType(TypeRange(ValueRange(values)),
                                             resultElement);
  if (!type) {
    emitter.error(range, what + " needs a fragment operand");
    return Val::error();
  }
  return Val::of(build(type, values));
}

Val Emitter::fragUnary(tile::FragUnaryKind kind, Val x, llvm::SMRange range,
                       llvm::StringRef what) {
  if (x.isError())
    return x;
  auto frag = x.getValueType<tile::FragType>();
  if (!frag) {
    error(range, what + " works on fragments, got " + describeVal(x));
    return Val::error();
  }
  return Val::of(
      tile::FragUnaryOp::create(builder, loc(range), frag, kind, x.value));
}

Val Emitter::fragBinary(tile::FragBinaryKind kind, Val lhs, Val rhs,
                        llvm::SMRange range, llvm::StringRef what) {
  Location l = loc(range);
  return fragElementwise(*this, range, what, {lhs, rhs}, builder.getF32Type(),
                         [&](tile::FragType type, ArrayRef<Value> v) {
                           return tile::FragBinaryOp::create(builder, l, type,
                                                             kind, v[0], v[1]);
                         });
}

static std::optional<tile::FragCmpPredicate> cmpPredicate(Tok op) {
  switch (op) {
  case Tok::Less:
    return tile::FragCmpPredicate::lt;
  case Tok::LessEq:
    return tile::FragCmpPredicate::le;
  case Tok::Greater:
    return tile::FragCmpPredicate::gt;
  case Tok::GreaterEq:
    return tile::FragCmpPredicate::ge;
  case Tok::EqEq:
    return tile::FragCmpPredicate::eq;
  case Tok::NotEq:
    return tile::FragCmpPredicate::ne;
  default:
    return std::nullopt;
  }
}

Val Emitter::fragOp(Tok op, Val lhs, Val rhs, llvm::SMRange range,
                    llvm::SMRange opRange) {
  std::string what = describe(op);
  if (std::optional<tile::FragCmpPredicate> predicate = cmpPredicate(op)) {
    Location l = loc(range.Start);
    return fragElementwise(*this, opRange, what, {lhs, rhs},
                           builder.getI1Type(),
                           [&](tile::FragType type, ArrayRef<Value> v) {
                             return tile::FragCmpOp::create(
                                 builder, l, type, *predicate, v[0], v[1]);
                           });
  }
  bool fragOnLeft = static_cast<bool>(lhs.getValueType<tile::FragType>());
  Val other = fragOnLeft ? rhs : lhs;
  bool constant = other.isInt() || other.isFloat();
  double number =
      other.isInt() ? static_cast<double>(other.intValue) : other.floatValue;
  Type f32 = builder.getF32Type();
  Location l = loc(range.Start);
  auto apply = [&](tile::FragBinaryKind kind, Val a, Val b) {
    return fragElementwise(*this, opRange, what, {a, b}, f32,
                           [&](tile::FragType type, ArrayRef<Value> v) {
                             return tile::FragBinaryOp::create(
                                 builder, l, type, kind, v[0], v[1]);
                           });
  };
  switch (op) {
  case Tok::Plus:
    return apply(tile::FragBinaryKind::add, lhs, rhs);
  case Tok::Star:
    return apply(tile::FragBinaryKind::mul, lhs, rhs);
  case Tok::Minus:
    // f - c is f + (-c): one constant, no negation per element.
    if (fragOnLeft && constant)
      return apply(tile::FragBinaryKind::add, lhs, Val::ofFloat(-number));
    if (fragOnLeft && other.isValue() && other.type.isF32())
      return apply(tile::FragBinaryKind::add, lhs,
                   Val::of(arith::NegFOp::create(builder, l, other.value)));
    return apply(tile::FragBinaryKind::sub, lhs, rhs);
  case Tok::Slash:
    // f / s is f * (1 / s): one division per thread, not per element.
    if (fragOnLeft && constant) {
      if (number == 0) {
        error(opRange, "division by zero");
        return Val::error();
      }
      return apply(tile::FragBinaryKind::mul, lhs, Val::ofFloat(1.0 / number));
    }
    if (fragOnLeft && other.isValue() && other.type.isF32()) {
      Value one = materialize(Val::ofFloat(1.0), range, f32);
      return apply(
          tile::FragBinaryKind::mul, lhs,
          Val::of(arith::DivFOp::create(builder, l, one, other.value)));
    }
    return apply(tile::FragBinaryKind::div, lhs, rhs);
  default:
    error(opRange, what + " cannot be applied to a fragment; fragment math "
                          "is + - * /, comparisons and the math builtins");
    return Val::error();
  }
}

Val Emitter::fragMinMax(bool isMax, Val lhs, Val rhs, llvm::SMRange range) {
  return fragBinary(isMax ? tile::FragBinaryKind::max
                          : tile::FragBinaryKind::min,
                    lhs, rhs, range, isMax ? "max" : "min");
}

//===----------------------------------------------------------------------===//
// Builtins
//===----------------------------------------------------------------------===//

Val Emitter::emitFragUnaryCall(const CallExpr &call, tile::FragUnaryKind kind) {
  llvm::StringRef name = calleeName(call);
  SmallVector<const Expr *> args;
  if (!bindArgs(call, name, {{"x", true}}, args))
    return Val::error();
  return fragUnary(kind, eval(*args[0]), call.getRange(), name);
}

Val Emitter::emitActivation(const CallExpr &call) {
  llvm::StringRef name = calleeName(call);
  SmallVector<const Expr *> args;
  if (!bindArgs(call, name, {{"x", true}}, args))
    return Val::error();
  llvm::SMRange range = call.getRange();
  Val x = eval(*args[0]);
  if (x.isError())
    return x;
  if (!x.getValueType<tile::FragType>()) {
    error(range, name + " works on fragments, got " + describeVal(x));
    return Val::error();
  }
  using Binary = tile::FragBinaryKind;
  using Unary = tile::FragUnaryKind;
  // Both are x * sigmoid(z) = x * rcp(1 + exp2(-z * log2(e))): silu with
  // z = x, gelu's tanh form with z = 2 sqrt(2/pi) (x + 0.044715 x^3), since
  // 0.5 (1 + tanh(z/2)) = sigmoid(z).
  Val exponent;
  if (name == "silu") {
    exponent = fragBinary(Binary::mul, x, Val::ofFloat(-M_LOG2E), range, name);
  } else {
    const double k = -2.0 * std::sqrt(2.0 / M_PI) * M_LOG2E;
    Val square = fragBinary(Binary::mul, x, x, range, name);
    Val poly = fragFma(square, Val::ofFloat(0.044715 * k), Val::ofFloat(k),
                       range, name);
    exponent = fragBinary(Binary::mul, poly, x, range, name);
  }
  Val denominator =
      fragBinary(Binary::add, fragUnary(Unary::exp2, exponent, range, name),
                 Val::ofFloat(1.0), range, name);
  return fragBinary(Binary::mul, x,
                    fragUnary(Unary::rcp, denominator, range, name), range,
                    name);
}

Val Emitter::fragFma(Val a, Val b, Val c, llvm::SMRange range,
                     llvm::StringRef what) {
  Location l = loc(range);
  return fragElementwise(*this, range, what, {a, b, c}, builder.getF32Type(),
                         [&](tile::FragType type, ArrayRef<Value> v) {
                           return tile::FragFmaOp::create(builder, l, type,
                                                          v[0], v[1], v[2]);
                         });
}

Val Emitter::emitFma(const CallExpr &call) {
  SmallVector<const Expr *> args;
  if (!bindArgs(call, "fma", {{"a", true}, {"b", true}, {"c", true}}, args))
    return Val::error();
  return fragFma(eval(*args[0]), eval(*args[1]), eval(*args[2]),
                 call.getRange(), "fma");
}

Val Emitter::emitSelect(const CallExpr &call) {
  SmallVector<const Expr *> args;
  if (!bindArgs(call, "select", {{"cond", true}, {"a", true}, {"b", true}},
                args))
    return Val::error();
  Val cond = eval(*args[0]), a = eval(*args[1]), b = eval(*args[2]);
  if (cond.isError() || a.isError() || b.isError())
    return Val::error();
  if (!cond.getValueType<tile::FragType>()) {
    error(args[0]->getRange(),
          "select's condition is a fragment comparison such as 'x > 0.0', "
          "got " +
              describeVal(cond));
    return Val::error();
  }
  Value a0 = fragOperand(a, args[1]->getRange(), "select");
  Value b0 = fragOperand(b, args[2]->getRange(), "select");
  if (!a0 || !b0)
    return Val::error();
  SmallVector<Type, 3> types = {cond.type, a0.getType(), b0.getType()};
  auto type = tile::getElementwiseResultType(types, builder.getF32Type());
  return Val::of(tile::FragSelectOp::create(builder, loc(call.getLoc()), type,
                                            cond.value, a0, b0));
}

Val Emitter::fragReduce(tile::FragReduceKind kind, const CallExpr &call,
                        const Expr &x, const Expr &axis, const Expr *groups) {
  llvm::StringRef name = calleeName(call);
  Val source = eval(x);
  std::optional<int64_t> along = evalConstUnsigned(axis, "axis");
  std::optional<int64_t> count = 1;
  if (groups)
    count = evalConstUnsigned(*groups, "groups");
  if (source.isError() || !along || !count)
    return Val::error();
  auto frag = source.getValueType<tile::FragType>();
  if (!frag) {
    error(x.getRange(), name + " with an axis reduces a fragment, got " +
                            describeVal(source));
    return Val::error();
  }
  Location l = loc(call.getLoc());
  if (*count != 1) {
    // x(..., axis = 1, groups = G): G column groups of a wgmma_acc fragment,
    // each reduced on its own, as a G x rows quad_spread fragment. The
    // verifier checks G, the layout, the axis and the column split.
    auto type = tile::FragType::get(&context, {*count, frag.getShape()[0]},
                                    frag.getElementType(),
                                    tile::FragLayout::quad_spread);
    return Val::of(tile::FragReduceOp::create(builder, l, type, kind,
                                              source.value, *along, *count));
  }
  // The verifier checks the axis (and that the lines stay inside a warp).
  auto type = frag.withBroadcast(*along == 0 ? tile::FragBroadcast::cols
                                             : tile::FragBroadcast::rows);
  return Val::of(
      tile::FragReduceOp::create(builder, l, type, kind, source.value, *along));
}

Val Emitter::emitFragSlice(const IndexExpr &expr, const Val &frag) {
  auto type = frag.getValueType<tile::FragType>();
  auto *rows = expr.items.size() == 2
                   ? llvm::dyn_cast<SliceExpr>(expr.items[0].get())
                   : nullptr;
  auto *cols = expr.items.size() == 2
                   ? llvm::dyn_cast<SliceExpr>(expr.items[1].get())
                   : nullptr;
  if (!rows || rows->start || rows->stop || !cols || !cols->start ||
      !cols->stop) {
    error(expr.getRange(), "a fragment is sliced by columns, as in "
                           "'acc[:, 64 : 128]' (every row, constant column "
                           "bounds)");
    return Val::error();
  }
  std::optional<int64_t> start =
      evalConstUnsigned(*cols->start, "the first column of a slice");
  std::optional<int64_t> stop =
      evalConstUnsigned(*cols->stop, "the end column of a slice");
  if (!start || !stop)
    return Val::error();
  int64_t width = *stop - *start;
  if (width <= 0 || *stop > type.getShape()[1]) {
    error(cols->getRange(), "columns " + llvm::Twine(*start) + " to " +
                                llvm::Twine(*stop) +
                                " are not a range inside the fragment's " +
                                llvm::Twine(type.getShape()[1]) + " columns");
    return Val::error();
  }
  Location l = loc(expr.getRange().Start);
  auto result = tile::FragType::getChecked(
      [&] { return emitError(l); }, &context, {type.getShape()[0], width},
      type.getElementType(), type.getLayout(), type.getBroadcast());
  if (!result)
    return Val::error();
  // The verifier checks that the columns are whole register groups.
  return Val::of(
      tile::FragSliceOp::create(builder, l, result, frag.value, *start));
}

Val Emitter::emitSum(const CallExpr &call) {
  SmallVector<const Expr *> args;
  if (!bindArgs(call, "sum", {{"x", true}, {"axis", true}, {"groups", false}},
                args))
    return Val::error();
  return fragReduce(tile::FragReduceKind::sum, call, *args[0], *args[1],
                    args[2]);
}

Val Emitter::emitInsert(const CallExpr &call) {
  SmallVector<const Expr *> args;
  if (!bindArgs(call, "insert", {{"x", true}, {"part", true}, {"col", true}},
                args))
    return Val::error();
  Val whole = eval(*args[0]), part = eval(*args[1]);
  std::optional<int64_t> col =
      evalConstUnsigned(*args[2], "the first column of an insert");
  if (whole.isError() || part.isError() || !col)
    return Val::error();
  auto wholeType = whole.getValueType<tile::FragType>();
  auto partType = part.getValueType<tile::FragType>();
  if (!wholeType || !partType) {
    error((wholeType ? args[1] : args[0])->getRange(),
          "insert(x, part, col = c) puts the fragment part into columns c "
          "onwards of the fragment x, got " +
              describeVal(wholeType ? part : whole));
    return Val::error();
  }
  if (partType.getShape()[1] + *col > wholeType.getShape()[1]) {
    error(args[2]->getRange(), "columns " + llvm::Twine(*col) + " to " +
                                   llvm::Twine(*col + partType.getShape()[1]) +
                                   " are not a range inside the fragment's " +
                                   llvm::Twine(wholeType.getShape()[1]) +
                                   " columns");
    return Val::error();
  }
  // The verifier checks the rest (the same rows, layout and element type;
  // whole register groups), and its message points at the call.
  return Val::of(tile::FragInsertOp::create(
      builder, loc(call.getLoc()), wholeType, part.value, whole.value, *col));
}

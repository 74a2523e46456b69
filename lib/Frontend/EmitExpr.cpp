//===- EmitExpr.cpp - expressions, constants and types -------------------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//
//
// Expressions whose leaves are all constants (literals, params, consts,
// unrolled loop indices) fold at compile time with overflow checks; the rest
// become arith ops on i32 (integers), i1 (booleans) and f32 (floats), or
// tile.frag.elementwise ops on register fragments (the epilogue math).
//
//===----------------------------------------------------------------------===//

#include "lib/Frontend/Emitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>
#include <cstdio>

using namespace tilec::frontend;
using namespace mlir;

//===----------------------------------------------------------------------===//
// Types and names
//===----------------------------------------------------------------------===//

Type Emitter::lookupDType(llvm::StringRef name) {
  MLIRContext *ctx = &context;
  return llvm::StringSwitch<std::function<Type()>>(name)
      .Case("f16", [&] { return Float16Type::get(ctx); })
      .Case("bf16", [&] { return BFloat16Type::get(ctx); })
      .Case("f32", [&] { return Float32Type::get(ctx); })
      .Case("f64", [&] { return Float64Type::get(ctx); })
      .Case("e4m3", [&] { return Float8E4M3FNType::get(ctx); })
      .Case("e5m2", [&] { return Float8E5M2Type::get(ctx); })
      .Case("i8", [&] { return IntegerType::get(ctx, 8); })
      .Case("i16", [&] { return IntegerType::get(ctx, 16); })
      .Case("i32", [&] { return IntegerType::get(ctx, 32); })
      .Case("i64", [&] { return IntegerType::get(ctx, 64); })
      .Case("u8",
            [&] { return IntegerType::get(ctx, 8, IntegerType::Unsigned); })
      .Case("u32",
            [&] { return IntegerType::get(ctx, 32, IntegerType::Unsigned); })
      .Default([] { return Type(); })();
}

std::string tilec::frontend::shapeText(llvm::ArrayRef<int64_t> shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      text += ", ";
    text += ShapedType::isDynamic(shape[i]) ? "?" : std::to_string(shape[i]);
  }
  return text + "]";
}

std::string Emitter::describeType(Type type) {
  if (!type)
    return "an invalid value";
  if (type.isInteger(1))
    return "bool";
  if (auto global = dyn_cast<tile::GlobalType>(type))
    return "global " + tile::getElementTypeName(global.getElementType()) +
           shapeText(global.getShape());
  if (auto smem = dyn_cast<tile::SmemType>(type)) {
    std::string text = "smem " +
                       tile::getElementTypeName(smem.getElementType()) +
                       shapeText(smem.getShape());
    if (int64_t span = tile::getSwizzleBytes(smem.getSwizzle()))
      text += " swizzle " + std::to_string(span) + "B";
    return text;
  }
  if (auto tmem = dyn_cast<tile::TmemType>(type))
    return "tmem " + tile::getElementTypeName(tmem.getElementType()) +
           shapeText(tmem.getShape());
  if (auto barrier = dyn_cast<tile::BarrierType>(type))
    return std::string(barrier.getRemote() ? "remote " : "") +
           tile::stringifyBarrierKind(barrier.getKind()).str() + " barrier[" +
           std::to_string(barrier.getDepth()) + "]";
  if (auto pipeline = dyn_cast<tile::PipelineType>(type))
    return "pipeline state of depth " + std::to_string(pipeline.getDepth());
  if (auto frag = dyn_cast<tile::FragType>(type))
    return "fragment " + tile::getElementTypeName(frag.getElementType()) +
           shapeText(frag.getShape()) + " " +
           tile::stringifyFragLayout(frag.getLayout()).str();
  return tile::getElementTypeName(type);
}

std::string Emitter::describeVal(const Val &val) {
  switch (val.kind) {
  case Val::Kind::Error:
    return "an invalid value";
  case Val::Kind::Int:
    return "the integer " + std::to_string(val.intValue);
  case Val::Kind::Float: {
    char text[32];
    std::snprintf(text, sizeof(text), "%g", val.floatValue);
    std::string number = text;
    if (number.find_first_of(".eni") == std::string::npos)
      number += ".0";
    return "the number " + number;
  }
  case Val::Kind::Bool:
    return val.intValue ? "true" : "false";
  case Val::Kind::Value:
    return describeType(val.type);
  case Val::Kind::DType:
    return "the type " + tile::getElementTypeName(val.type);
  }
  return "";
}

static std::optional<tile::IdKind> identityKind(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<tile::IdKind>>(name)
      .Case("cta_id", tile::IdKind::cta)
      .Case("num_ctas", tile::IdKind::num_ctas)
      .Case("cta_in_cluster", tile::IdKind::cta_in_cluster)
      .Case("cluster_id", tile::IdKind::cluster)
      .Case("num_clusters", tile::IdKind::num_clusters)
      .Case("warpgroup_id", tile::IdKind::warpgroup)
      .Case("warp_id", tile::IdKind::warp_in_warpgroup)
      .Case("lane_id", tile::IdKind::lane)
      .Case("tid_in_wg", tile::IdKind::thread_in_warpgroup)
      .Case("thread_id", tile::IdKind::thread)
      .Case("cta_x", tile::IdKind::cta_x)
      .Case("cta_y", tile::IdKind::cta_y)
      .Case("cta_z", tile::IdKind::cta_z)
      .Default(std::nullopt);
}

/// Calls `fn` on every name `expr` reads (not the names of called builtins).
static void forEachName(const Expr &expr,
                        llvm::function_ref<void(const NameExpr &)> fn) {
  switch (expr.getKind()) {
  case Expr::Kind::Name:
    fn(llvm::cast<NameExpr>(expr));
    return;
  case Expr::Kind::Unary:
    forEachName(*llvm::cast<UnaryExpr>(expr).operand, fn);
    return;
  case Expr::Kind::Binary: {
    auto &binary = llvm::cast<BinaryExpr>(expr);
    forEachName(*binary.lhs, fn);
    forEachName(*binary.rhs, fn);
    return;
  }
  case Expr::Kind::Call: {
    auto &call = llvm::cast<CallExpr>(expr);
    if (auto *member = llvm::dyn_cast<MemberExpr>(call.callee.get()))
      forEachName(*member->base, fn);
    for (const ExprPtr &arg : call.args)
      forEachName(*arg, fn);
    for (const KeywordArg &keyword : call.keywords)
      forEachName(*keyword.value, fn);
    return;
  }
  case Expr::Kind::Member:
    forEachName(*llvm::cast<MemberExpr>(expr).base, fn);
    return;
  case Expr::Kind::Index: {
    auto &index = llvm::cast<IndexExpr>(expr);
    forEachName(*index.base, fn);
    for (const ExprPtr &item : index.items)
      forEachName(*item, fn);
    return;
  }
  case Expr::Kind::Slice: {
    auto &slice = llvm::cast<SliceExpr>(expr);
    if (slice.start)
      forEachName(*slice.start, fn);
    if (slice.stop)
      forEachName(*slice.stop, fn);
    return;
  }
  case Expr::Kind::Tuple:
    for (const ExprPtr &e : llvm::cast<TupleExpr>(expr).elements)
      forEachName(*e, fn);
    return;
  case Expr::Kind::List:
    for (const ExprPtr &e : llvm::cast<ListExpr>(expr).elements)
      forEachName(*e, fn);
    return;
  default:
    return;
  }
}

void Emitter::noteRuntimeName(const Expr &expr) {
  bool done = false;
  forEachName(expr, [&](const NameExpr &name) {
    if (done)
      return;
    Symbol *symbol = lookup(name.name);
    if (!symbol) {
      if (identityKind(name.name)) {
        note(name.getRange(), "'" + name.name + "' is known only at run time");
        done = true;
      }
      return;
    }
    if (!symbol->val.isValue())
      return;
    done = true;
    switch (symbol->kind) {
    case Symbol::Kind::Dim:
      note(symbol->defRange, "'" + name.name + "' is a runtime dimension of " +
                                 symbol->argName + ", bound here");
      return;
    case Symbol::Kind::Arg:
      note(symbol->defRange,
           "'" + name.name + "' is a kernel argument, known at launch");
      return;
    case Symbol::Kind::LoopVar:
      note(symbol->defRange, "'" + name.name + "' is a loop variable");
      return;
    default:
      note(symbol->defRange,
           "'" + name.name + "' holds a value known only at run time");
      return;
    }
  });
}

void Emitter::noteParamsIn(const Expr &expr) {
  llvm::SmallPtrSet<const Symbol *, 4> seen;
  forEachName(expr, [&](const NameExpr &name) {
    Symbol *symbol = lookup(name.name);
    if (!symbol || !symbol->val.isInt() ||
        (symbol->kind != Symbol::Kind::Param &&
         symbol->kind != Symbol::Kind::Const) ||
        !seen.insert(symbol).second)
      return;
    noteParam(diag, *symbol);
  });
}

void Emitter::collectOverriddenParams(
    const Expr &expr, llvm::SmallVectorImpl<const Symbol *> &out) {
  forEachName(expr, [&](const NameExpr &name) {
    Symbol *symbol = lookup(name.name);
    if (!symbol)
      return;
    for (const Symbol *param : symbol->overriddenParams)
      if (!llvm::is_contained(out, param))
        out.push_back(param);
  });
}

//===----------------------------------------------------------------------===//
// Evaluation
//===----------------------------------------------------------------------===//

Val Emitter::eval(const Expr &expr) {
  switch (expr.getKind()) {
  case Expr::Kind::Error:
    return Val::error();
  case Expr::Kind::Int: {
    auto &literal = llvm::cast<IntExpr>(expr);
    if (!literal.suffix.empty()) {
      error(expr.getRange(), "unexpected '" + literal.suffix +
                                 "' after a number (a unit is only written "
                                 "in a swizzle, as in 'swizzle 128B')");
      return Val::error();
    }
    return Val::ofInt(literal.value);
  }
  case Expr::Kind::Float:
    return Val::ofFloat(llvm::cast<FloatExpr>(expr).value);
  case Expr::Kind::Bool:
    return Val::ofBool(llvm::cast<BoolExpr>(expr).value);
  case Expr::Kind::String:
    error(expr.getRange(), "a string is only allowed as an assert message");
    return Val::error();
  case Expr::Kind::Name:
    return evalName(llvm::cast<NameExpr>(expr));
  case Expr::Kind::Unary:
    return evalUnary(llvm::cast<UnaryExpr>(expr));
  case Expr::Kind::Binary:
    return evalBinary(llvm::cast<BinaryExpr>(expr));
  case Expr::Kind::Call:
    return evalCall(llvm::cast<CallExpr>(expr), /*isStatement=*/false);
  case Expr::Kind::Member:
    return evalMember(llvm::cast<MemberExpr>(expr));
  case Expr::Kind::Index: {
    auto &index = llvm::cast<IndexExpr>(expr);
    Val base = eval(*index.base);
    if (base.isError())
      return base;
    if (base.isDType())
      error(expr.getRange(), "a shaped type like '" +
                                 tile::getElementTypeName(base.type) +
                                 "[...]' is only written in a declaration or "
                                 "in zeros(...)");
    else
      error(expr.getRange(),
            "an indexed buffer is an operand of copy_async, gemm_async, "
            "store, tmem_load or gemm_commit, not a value");
    return Val::error();
  }
  case Expr::Kind::Slice:
    error(expr.getRange(), "a range 'a:b' is only allowed inside [...]");
    return Val::error();
  case Expr::Kind::Tuple:
    error(expr.getRange(), "a tuple is only allowed where sizes are listed, "
                           "as in 'block = (BLK_M, BLK_N)'");
    return Val::error();
  case Expr::Kind::List:
    error(expr.getRange(), "a list is only allowed in a role's warpgroup and "
                           "warp clauses");
    return Val::error();
  }
  return Val::error();
}

Val Emitter::evalName(const NameExpr &expr) {
  if (Symbol *symbol = lookup(expr.name)) {
    if (!inKernelBody() && (symbol->kind == Symbol::Kind::Dim ||
                            symbol->kind == Symbol::Kind::Arg)) {
      error(expr.getRange(),
            "'" + expr.name + "' is " +
                (symbol->kind == Symbol::Kind::Dim
                     ? "a runtime dimension of " + symbol->argName.str()
                     : std::string("a kernel argument")) +
                ": it is known only when the kernel runs, and a constant is "
                "needed here");
      return Val::error();
    }
    return symbol->val;
  }
  if (std::optional<tile::IdKind> kind = identityKind(expr.name)) {
    if (!inKernelBody()) {
      error(expr.getRange(),
            "'" + expr.name + "' is only known inside a kernel body");
      return Val::error();
    }
    return Val::of(tile::IdOp::create(builder, loc(expr.getLoc()),
                                      builder.getI32Type(), *kind));
  }
  if (Type type = lookupDType(expr.name))
    return Val::dtype(type);
  std::vector<llvm::StringRef> names = visibleNames();
  llvm::StringRef close = closestName(expr.name, names);
  if (!close.empty())
    diag.errorWithFixIt(expr.getRange(),
                        "unknown name '" + expr.name + "'; did you mean '" +
                            close + "'?",
                        close);
  else
    error(expr.getRange(), "unknown name '" + expr.name + "'");
  return Val::error();
}

Val Emitter::evalUnary(const UnaryExpr &expr) {
  Val operand = eval(*expr.operand);
  if (operand.isError())
    return operand;
  Location l = loc(expr.getLoc());
  llvm::SMRange opRange{expr.getLoc(), expr.operand->getLoc()};
  switch (expr.op) {
  case Tok::Minus:
    if (operand.isInt()) {
      if (operand.intValue == INT64_MIN) {
        error(expr.getRange(), "overflow in a constant expression");
        return Val::error();
      }
      return Val::ofInt(-operand.intValue);
    }
    if (operand.isFloat())
      return Val::ofFloat(-operand.floatValue);
    if (operand.isValue() && operand.type.isSignlessInteger() &&
        !operand.type.isInteger(1)) {
      Value zero = arith::ConstantIntOp::create(builder, l, operand.type, 0);
      return Val::of(arith::SubIOp::create(builder, l, zero, operand.value));
    }
    if (operand.isValue() && operand.type.isF32())
      return Val::of(arith::NegFOp::create(builder, l, operand.value));
    if (operand.getValueType<tile::FragType>())
      return fragOp(Tok::Star, operand, Val::ofFloat(-1.0), expr.getRange(),
                    opRange);
    break;
  case Tok::Tilde:
    if (operand.isInt())
      return Val::ofInt(~operand.intValue);
    if (operand.isValue() && operand.type.isSignlessInteger() &&
        !operand.type.isInteger(1)) {
      Value ones = arith::ConstantIntOp::create(builder, l, operand.type, -1);
      return Val::of(arith::XOrIOp::create(builder, l, operand.value, ones));
    }
    break;
  case Tok::KwNot:
    if (operand.isBool())
      return Val::ofBool(!operand.intValue);
    if (operand.isValue() && operand.type.isInteger(1)) {
      Value one = arith::ConstantIntOp::create(builder, l, operand.type, 1);
      return Val::of(arith::XOrIOp::create(builder, l, operand.value, one));
    }
    break;
  default:
    break;
  }
  error(opRange,
        describe(expr.op) + " cannot be applied to " + describeVal(operand));
  return Val::error();
}

Val Emitter::evalBinary(const BinaryExpr &expr) {
  Val lhs = eval(*expr.lhs);
  Val rhs = eval(*expr.rhs);
  return binaryOp(expr.op, lhs, rhs, expr.getRange(), expr.opRange);
}

static bool isComparison(Tok op) {
  return op == Tok::EqEq || op == Tok::NotEq || op == Tok::Less ||
         op == Tok::LessEq || op == Tok::Greater || op == Tok::GreaterEq;
}

/// Folds `lhs op rhs` on integers; sets `problem` when it overflows or
/// divides by zero.
static std::optional<int64_t> foldInt(Tok op, int64_t lhs, int64_t rhs,
                                      std::string &problem) {
  int64_t result = 0;
  switch (op) {
  case Tok::Plus:
    if (llvm::AddOverflow(lhs, rhs, result))
      break;
    return result;
  case Tok::Minus:
    if (llvm::SubOverflow(lhs, rhs, result))
      break;
    return result;
  case Tok::Star:
    if (llvm::MulOverflow(lhs, rhs, result))
      break;
    return result;
  case Tok::Slash:
  case Tok::SlashSlash:
  case Tok::Percent:
    if (rhs == 0) {
      problem = "division by zero";
      return std::nullopt;
    }
    if (lhs == INT64_MIN && rhs == -1)
      break;
    return op == Tok::Percent ? lhs % rhs : lhs / rhs;
  case Tok::Shl:
    if (rhs < 0 || rhs > 62) {
      problem = "shift by " + std::to_string(rhs) + " bits";
      return std::nullopt;
    }
    if (lhs < 0 || lhs > (INT64_MAX >> rhs))
      break;
    return lhs << rhs;
  case Tok::Shr:
    if (rhs < 0 || rhs > 63) {
      problem = "shift by " + std::to_string(rhs) + " bits";
      return std::nullopt;
    }
    return lhs >> rhs;
  case Tok::Amp:
    return lhs & rhs;
  case Tok::Pipe:
    return lhs | rhs;
  case Tok::Caret:
    return lhs ^ rhs;
  default:
    problem = "unsupported";
    return std::nullopt;
  }
  problem = "overflow";
  return std::nullopt;
}

/// Folds a comparison of two constants; nullopt for other operators.
template <typename T> static std::optional<bool> compare(Tok op, T a, T b) {
  switch (op) {
  case Tok::EqEq:
    return a == b;
  case Tok::NotEq:
    return a != b;
  case Tok::Less:
    return a < b;
  case Tok::LessEq:
    return a <= b;
  case Tok::Greater:
    return a > b;
  case Tok::GreaterEq:
    return a >= b;
  default:
    return std::nullopt;
  }
}

static std::optional<arith::CmpIPredicate> intPredicate(Tok op) {
  switch (op) {
  case Tok::EqEq:
    return arith::CmpIPredicate::eq;
  case Tok::NotEq:
    return arith::CmpIPredicate::ne;
  case Tok::Less:
    return arith::CmpIPredicate::slt;
  case Tok::LessEq:
    return arith::CmpIPredicate::sle;
  case Tok::Greater:
    return arith::CmpIPredicate::sgt;
  case Tok::GreaterEq:
    return arith::CmpIPredicate::sge;
  default:
    return std::nullopt;
  }
}

/// Ordered comparisons: false when either side is NaN.
static std::optional<arith::CmpFPredicate> floatPredicate(Tok op) {
  switch (op) {
  case Tok::EqEq:
    return arith::CmpFPredicate::OEQ;
  case Tok::NotEq:
    return arith::CmpFPredicate::ONE;
  case Tok::Less:
    return arith::CmpFPredicate::OLT;
  case Tok::LessEq:
    return arith::CmpFPredicate::OLE;
  case Tok::Greater:
    return arith::CmpFPredicate::OGT;
  case Tok::GreaterEq:
    return arith::CmpFPredicate::OGE;
  default:
    return std::nullopt;
  }
}

Val Emitter::binaryOp(Tok op, Val lhs, Val rhs, llvm::SMRange range,
                      llvm::SMRange opRange) {
  if (lhs.isError() || rhs.isError())
    return Val::error();
  if (lhs.isDType() || rhs.isDType()) {
    error(opRange, describe(op) + " cannot be applied to a type");
    return Val::error();
  }
  if (lhs.getValueType<tile::FragType>() || rhs.getValueType<tile::FragType>())
    return fragOp(op, lhs, rhs, range, opRange);
  auto invalid = [&]() {
    error(opRange, describe(op) + " cannot be applied to " + describeVal(lhs) +
                       " and " + describeVal(rhs));
    return Val::error();
  };

  // Both constant: fold.
  if (lhs.isConst() && rhs.isConst()) {
    if (lhs.isBool() || rhs.isBool()) {
      if (!lhs.isBool() || !rhs.isBool())
        return invalid();
      bool a = lhs.intValue, b = rhs.intValue;
      switch (op) {
      case Tok::KwAnd:
        return Val::ofBool(a && b);
      case Tok::KwOr:
        return Val::ofBool(a || b);
      case Tok::EqEq:
        return Val::ofBool(a == b);
      case Tok::NotEq:
        return Val::ofBool(a != b);
      default:
        return invalid();
      }
    }
    if (lhs.isInt() && rhs.isInt()) {
      int64_t a = lhs.intValue, b = rhs.intValue;
      if (std::optional<bool> result = compare(op, a, b))
        return Val::ofBool(*result);
      if (op == Tok::KwAnd || op == Tok::KwOr)
        return invalid();
      std::string problem;
      if (std::optional<int64_t> result = foldInt(op, a, b, problem))
        return Val::ofInt(*result);
      error(opRange, problem + " in a constant expression: " + llvm::Twine(a) +
                         " " + llvm::StringRef(describe(op)).trim('\'') + " " +
                         llvm::Twine(b));
      return Val::error();
    }
    double a = lhs.isInt() ? static_cast<double>(lhs.intValue) : lhs.floatValue;
    double b = rhs.isInt() ? static_cast<double>(rhs.intValue) : rhs.floatValue;
    if (std::optional<bool> result = compare(op, a, b))
      return Val::ofBool(*result);
    switch (op) {
    case Tok::Plus:
      return Val::ofFloat(a + b);
    case Tok::Minus:
      return Val::ofFloat(a - b);
    case Tok::Star:
      return Val::ofFloat(a * b);
    case Tok::Slash:
      if (b == 0) {
        error(opRange, "division by zero in a constant expression");
        return Val::error();
      }
      return Val::ofFloat(a / b);
    default:
      return invalid();
    }
  }

  // At least one runtime scalar: find the common type.
  Type type = lhs.isValue() ? lhs.type : rhs.type;
  if (!type.isSignlessInteger() && !type.isF32())
    return invalid();
  if (lhs.isValue() && rhs.isValue() && lhs.type != rhs.type) {
    error(opRange, describe(op) + " mixes " + describeType(lhs.type) + " and " +
                       describeType(rhs.type) + "; convert one with cast(x, " +
                       describeType(lhs.type) + ")");
    return Val::error();
  }
  for (const Val *side : {&lhs, &rhs}) {
    if (side->isValue())
      continue;
    bool fits = (side->isInt() && !type.isInteger(1)) ||
                (side->isFloat() && type.isF32()) ||
                (side->isBool() && type.isInteger(1));
    if (!fits) {
      error(opRange,
            describe(op) + " mixes " + describeType(type) + " and " +
                describeVal(*side) +
                (side->isFloat() ? "; convert with cast(x, f32)" : ""));
      return Val::error();
    }
  }
  if ((op == Tok::Slash || op == Tok::SlashSlash || op == Tok::Percent) &&
      rhs.isInt() && rhs.intValue == 0) {
    error(opRange, "division by zero");
    return Val::error();
  }
  Location l = loc(range.Start);
  Value a = materialize(lhs, range, type);
  Value b = materialize(rhs, range, type);
  if (!a || !b)
    return Val::error();

  if (type.isInteger(1)) {
    switch (op) {
    case Tok::KwAnd:
    case Tok::Amp:
      return Val::of(arith::AndIOp::create(builder, l, a, b));
    case Tok::KwOr:
    case Tok::Pipe:
      return Val::of(arith::OrIOp::create(builder, l, a, b));
    case Tok::Caret:
    case Tok::NotEq:
      return Val::of(arith::XOrIOp::create(builder, l, a, b));
    case Tok::EqEq:
      return Val::of(
          arith::CmpIOp::create(builder, l, arith::CmpIPredicate::eq, a, b));
    default:
      return invalid();
    }
  }
  if (type.isF32()) {
    if (std::optional<arith::CmpFPredicate> predicate = floatPredicate(op))
      return Val::of(arith::CmpFOp::create(builder, l, *predicate, a, b));
    switch (op) {
    case Tok::Plus:
      return Val::of(arith::AddFOp::create(builder, l, a, b));
    case Tok::Minus:
      return Val::of(arith::SubFOp::create(builder, l, a, b));
    case Tok::Star:
      return Val::of(arith::MulFOp::create(builder, l, a, b));
    case Tok::Slash:
      return Val::of(arith::DivFOp::create(builder, l, a, b));
    default:
      return invalid();
    }
  }
  if (std::optional<arith::CmpIPredicate> predicate = intPredicate(op))
    return Val::of(arith::CmpIOp::create(builder, l, *predicate, a, b));
  switch (op) {
  case Tok::Plus:
    return Val::of(arith::AddIOp::create(builder, l, a, b));
  case Tok::Minus:
    return Val::of(arith::SubIOp::create(builder, l, a, b));
  case Tok::Star:
    return Val::of(arith::MulIOp::create(builder, l, a, b));
  case Tok::Slash:
  case Tok::SlashSlash:
    return Val::of(arith::DivSIOp::create(builder, l, a, b));
  case Tok::Percent:
    return Val::of(arith::RemSIOp::create(builder, l, a, b));
  case Tok::Shl:
    return Val::of(arith::ShLIOp::create(builder, l, a, b));
  case Tok::Shr:
    return Val::of(arith::ShRSIOp::create(builder, l, a, b));
  case Tok::Amp:
    return Val::of(arith::AndIOp::create(builder, l, a, b));
  case Tok::Pipe:
    return Val::of(arith::OrIOp::create(builder, l, a, b));
  case Tok::Caret:
    return Val::of(arith::XOrIOp::create(builder, l, a, b));
  default:
    return invalid();
  }
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

static const llvm::StringRef kPipelineMembers[] = {"stage", "phase", "advance"};
static const llvm::StringRef kBarrierMembers[] = {"depth", "wait", "arrive",
                                                  "remote_view"};

Val Emitter::evalMember(const MemberExpr &expr) {
  Val base = eval(*expr.base);
  if (base.isError())
    return base;
  Location l = loc(expr.memberRange.Start);
  if (auto pipeline = base.getValueType<tile::PipelineType>()) {
    if (expr.member == "stage")
      return Val::of(tile::PipelineStageOp::create(
          builder, l, builder.getI32Type(), base.value));
    if (expr.member == "phase")
      return Val::of(tile::PipelinePhaseOp::create(
          builder, l, builder.getI32Type(), base.value));
    if (expr.member == "advance") {
      error(expr.memberRange,
            "advance is a method: call it, as in '" +
                llvm::StringRef(expr.getRange().Start.getPointer(),
                                expr.getRange().End.getPointer() -
                                    expr.getRange().Start.getPointer()) +
                "()'");
      return Val::error();
    }
    error(expr.memberRange, "a pipeline state has no member '" + expr.member +
                                "' (it has stage, phase and advance())" +
                                didYouMean(expr.member, kPipelineMembers));
    return Val::error();
  }
  if (auto barrier = base.getValueType<tile::BarrierType>()) {
    if (expr.member == "depth")
      return Val::ofInt(barrier.getDepth());
    if (llvm::is_contained(kBarrierMembers, expr.member)) {
      error(expr.memberRange, expr.member + " is a method: call it, as in "
                                            "'full.wait(stage, phase)'");
      return Val::error();
    }
    error(expr.memberRange, "a barrier has no member '" + expr.member +
                                "' (it has depth, wait(), arrive() and "
                                "remote_view())" +
                                didYouMean(expr.member, kBarrierMembers));
    return Val::error();
  }
  error(expr.memberRange,
        describeVal(base) + " has no member '" + expr.member + "'");
  return Val::error();
}

//===----------------------------------------------------------------------===//
// Conversions to what ops and attributes need
//===----------------------------------------------------------------------===//

Value Emitter::materialize(const Val &val, llvm::SMRange range, Type want) {
  Location l = loc(range.Start);
  switch (val.kind) {
  case Val::Kind::Error:
    return {};
  case Val::Kind::Int: {
    if (want && want.isF32())
      return arith::ConstantFloatOp::create(
          builder, l, builder.getF32Type(),
          llvm::APFloat(static_cast<float>(val.intValue)));
    Type type = want && want.isSignlessInteger() && !want.isInteger(1)
                    ? want
                    : builder.getI32Type();
    unsigned width = type.getIntOrFloatBitWidth();
    if (width < 64 && (val.intValue < -(int64_t(1) << (width - 1)) ||
                       val.intValue >= (int64_t(1) << (width - 1)))) {
      error(range, "the value " + llvm::Twine(val.intValue) +
                       " does not fit in i" + llvm::Twine(width));
      return {};
    }
    return arith::ConstantIntOp::create(builder, l, type, val.intValue);
  }
  case Val::Kind::Float:
    return arith::ConstantFloatOp::create(
        builder, l, builder.getF32Type(),
        llvm::APFloat(static_cast<float>(val.floatValue)));
  case Val::Kind::Bool:
    return arith::ConstantIntOp::create(builder, l, builder.getI1Type(),
                                        val.intValue);
  case Val::Kind::Value:
    return val.value;
  case Val::Kind::DType:
    error(range, "a type is not a value");
    return {};
  }
  return {};
}

Value Emitter::evalI32(const Expr &expr, llvm::StringRef what) {
  Val val = eval(expr);
  if (val.isError())
    return {};
  if (val.isInt() || (val.isValue() && val.type.isSignlessInteger(32)))
    return materialize(val, expr.getRange());
  error(expr.getRange(), what + " must be an i32 integer, got " +
                             describeVal(val) +
                             (val.isValue() && val.type.isSignlessInteger(64)
                                  ? "; convert it with cast(x, i32)"
                                  : ""));
  return {};
}

Value Emitter::evalI1(const Expr &expr, llvm::StringRef what) {
  Val val = eval(expr);
  if (val.isError())
    return {};
  if (val.isBool() || (val.isValue() && val.type.isInteger(1)))
    return materialize(val, expr.getRange());
  error(expr.getRange(),
        what + " must be a boolean, got " + describeVal(val) +
            (val.isInt() || (val.isValue() && val.type.isSignlessInteger())
                 ? "; compare it, as in 'x != 0'"
                 : ""));
  return {};
}

std::optional<int64_t> Emitter::evalConstInt(const Expr &expr,
                                             llvm::StringRef what) {
  Val val = eval(expr);
  if (val.isError())
    return std::nullopt;
  if (val.isInt())
    return val.intValue;
  if (val.isValue()) {
    error(expr.getRange(), what + " must be a compile-time constant");
    noteRuntimeName(expr);
    return std::nullopt;
  }
  error(expr.getRange(), what + " must be an integer, got " + describeVal(val));
  return std::nullopt;
}

std::optional<bool> Emitter::evalConstBool(const Expr &expr,
                                           llvm::StringRef what) {
  Val val = eval(expr);
  if (val.isError())
    return std::nullopt;
  if (val.isBool())
    return val.intValue != 0;
  error(expr.getRange(),
        what + " must be true or false, got " + describeVal(val));
  if (val.isValue())
    noteRuntimeName(expr);
  return std::nullopt;
}

std::optional<int64_t> Emitter::tryFoldInt(const Expr &expr) {
  switch (expr.getKind()) {
  case Expr::Kind::Int: {
    auto &literal = llvm::cast<IntExpr>(expr);
    if (!literal.suffix.empty())
      return std::nullopt;
    return literal.value;
  }
  case Expr::Kind::Name: {
    Symbol *symbol = lookup(llvm::cast<NameExpr>(expr).name);
    if (symbol && symbol->val.isInt())
      return symbol->val.intValue;
    return std::nullopt;
  }
  case Expr::Kind::Unary: {
    auto &unary = llvm::cast<UnaryExpr>(expr);
    std::optional<int64_t> v = tryFoldInt(*unary.operand);
    if (!v || unary.op != Tok::Minus || *v == INT64_MIN)
      return std::nullopt;
    return -*v;
  }
  case Expr::Kind::Binary: {
    auto &binary = llvm::cast<BinaryExpr>(expr);
    std::optional<int64_t> a = tryFoldInt(*binary.lhs);
    if (!a)
      return std::nullopt;
    std::optional<int64_t> b = tryFoldInt(*binary.rhs);
    if (!b)
      return std::nullopt;
    std::string problem;
    return foldInt(binary.op, *a, *b, problem);
  }
  default:
    return std::nullopt;
  }
}

Type Emitter::evalDType(const Expr &expr, llvm::StringRef what) {
  Val val = eval(expr);
  if (val.isError())
    return {};
  if (val.isDType())
    return val.type;
  error(expr.getRange(), what +
                             " must be an element type (f16, bf16, f32, "
                             "e4m3, e5m2, i8, i32, ...), got " +
                             describeVal(val));
  return {};
}

std::optional<Emitter::ShapeExpr> Emitter::evalShapeExpr(const Expr &expr,
                                                         llvm::StringRef what) {
  if (llvm::isa<ErrorExpr>(expr))
    return std::nullopt;
  auto *index = llvm::dyn_cast<IndexExpr>(&expr);
  if (!index) {
    Val val = eval(expr);
    if (val.isDType())
      error(expr.getRange(), what + " needs a shape: write " +
                                 tile::getElementTypeName(val.type) +
                                 "[rows, columns]");
    else if (!val.isError())
      error(expr.getRange(), what + " is written as an element type and a "
                                    "shape, as in 'f16[128, 64]'");
    return std::nullopt;
  }
  ShapeExpr result;
  result.elementType = evalDType(*index->base, "the element type");
  if (!result.elementType)
    return std::nullopt;
  if (index->items.empty()) {
    error(expr.getRange(), what + " needs at least one dimension");
    return std::nullopt;
  }
  for (const ExprPtr &dim : index->items) {
    if (llvm::isa<SliceExpr>(dim.get())) {
      error(dim->getRange(), "a dimension is a size, not a range");
      return std::nullopt;
    }
    std::optional<int64_t> size =
        evalConstInt(*dim, ("a dimension of " + what).str());
    if (!size)
      return std::nullopt;
    result.shape.push_back(*size);
    result.dims.push_back(dim.get());
  }
  return result;
}

std::optional<unsigned>
Emitter::evalChoice(const Expr &expr, llvm::StringRef what,
                    llvm::ArrayRef<llvm::StringRef> choices) {
  if (llvm::isa<ErrorExpr>(expr))
    return std::nullopt;
  llvm::StringRef text;
  if (auto *name = llvm::dyn_cast<NameExpr>(&expr))
    text = name->name;
  else if (auto *string = llvm::dyn_cast<StringExpr>(&expr))
    text = string->value;
  std::string expected = joinChoices(choices);
  if (text.empty()) {
    error(expr.getRange(), what + " is one of " + expected);
    return std::nullopt;
  }
  for (auto [i, choice] : llvm::enumerate(choices))
    if (choice == text)
      return i;
  llvm::StringRef close = closestName(text, choices);
  std::string message =
      ("unknown " + what + " '" + text + "' (expected " + expected + ")").str();
  if (!close.empty() && llvm::isa<NameExpr>(expr))
    diag.errorWithFixIt(expr.getRange(),
                        message + "; did you mean '" + close.str() + "'?",
                        close);
  else
    error(expr.getRange(), message);
  return std::nullopt;
}

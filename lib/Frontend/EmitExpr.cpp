//===- EmitExpr.cpp - expressions: names, operators and members ----------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//
//
// Expressions whose leaves are all constants (literals, params, consts,
// unrolled loop indices) fold at compile time with overflow checks; the rest
// become arith ops on i32 (integers), i1 (booleans) and f32 (floats), or
// tile.frag.elementwise ops on register fragments (the epilogue math, in
// EmitMath.cpp).
//
//===----------------------------------------------------------------------===//

#include "lib/Frontend/Emitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/Support/MathExtras.h"

#include <limits>

using namespace tilec::frontend;
using namespace mlir;

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
    // A global tensor or a shared buffer indexed as a value is a load.
    if (base.getValueType<tile::GlobalType>() ||
        base.getValueType<tile::SmemType>())
      return emitIndexLoad(index);
    if (base.getValueType<tile::FragType>())
      return emitFragSlice(index, base);
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
    if (symbol->kind == Symbol::Kind::Dim && symbol->perListTensor) {
      error(expr.getRange(),
            "'" + expr.name + "' is a dimension of each tensor in list " +
                symbol->argName.str() +
                ", which may differ between them: the kernel cannot read "
                "it (only the list's length)");
      return Val::error();
    }
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
  // f32 infinity: `-inf` marks masked logits, as torch's float('-inf').
  if (expr.name == "inf")
    return Val::ofFloat(std::numeric_limits<double>::infinity());
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
      return fragUnary(tile::FragUnaryKind::neg, operand, expr.getRange(),
                       "'-'");
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
  // Types compare for equality, so a spec can check a type param
  // (`assert OUT == bf16 or OUT == f32`).
  if (lhs.isDType() && rhs.isDType() && (op == Tok::EqEq || op == Tok::NotEq))
    return Val::ofBool((lhs.type == rhs.type) == (op == Tok::EqEq));
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
// Folding without emitting
//===----------------------------------------------------------------------===//

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

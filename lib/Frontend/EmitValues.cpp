//===- EmitValues.cpp - dtypes, names, constants and conversions ---------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//
//
// The names the DSL knows without a declaration (element types, thread and
// CTA identities), how values read in messages, the notes that say where a
// value came from, and the conversions of a value to what an op or an
// attribute needs: an SSA value of a type, a constant, an element type, a
// shape or one of a few names.
//
//===----------------------------------------------------------------------===//

#include "lib/Frontend/Emitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include <cstdio>

using namespace tilec::frontend;
using namespace mlir;

//===----------------------------------------------------------------------===//
// Types and names
//===----------------------------------------------------------------------===//

namespace {
struct IdentityName {
  llvm::StringRef name;
  tile::IdKind kind;
};
} // namespace

/// The thread and CTA identities a kernel body may read.
static const IdentityName kIdentities[] = {
    {"cta_id", tile::IdKind::cta},
    {"num_ctas", tile::IdKind::num_ctas},
    {"cta_in_cluster", tile::IdKind::cta_in_cluster},
    {"cluster_id", tile::IdKind::cluster},
    {"num_clusters", tile::IdKind::num_clusters},
    {"warpgroup_id", tile::IdKind::warpgroup},
    {"warp_id", tile::IdKind::warp_in_warpgroup},
    {"lane_id", tile::IdKind::lane},
    {"tid_in_wg", tile::IdKind::thread_in_warpgroup},
    {"thread_id", tile::IdKind::thread},
    {"cta_x", tile::IdKind::cta_x},
    {"cta_y", tile::IdKind::cta_y},
    {"cta_z", tile::IdKind::cta_z},
};

/// The element types by name (the shared vocabulary's spellings), in the
/// order did-you-mean considers them.
static llvm::StringRef dtypeName(const tilec::vocab::ElementTypeInfo &info) {
  std::string_view name = tilec::vocab::toString(info.type);
  return llvm::StringRef(name.data(), name.size());
}

Type Emitter::lookupDType(llvm::StringRef name) {
  if (auto type = tilec::vocab::parseElementType(
          std::string_view(name.data(), name.size())))
    return tile::getMlirElementType(&context, *type);
  return Type();
}

std::optional<tile::IdKind>
tilec::frontend::identityKind(llvm::StringRef name) {
  for (const IdentityName &identity : kIdentities)
    if (identity.name == name)
      return identity.kind;
  return std::nullopt;
}

std::vector<llvm::StringRef> Emitter::visibleNames() {
  std::vector<llvm::StringRef> names;
  for (auto &scope : scopes)
    for (auto &entry : scope)
      names.push_back(entry.getKey());
  if (inKernelBody())
    for (const IdentityName &identity : kIdentities)
      names.push_back(identity.name);
  for (const tilec::vocab::ElementTypeInfo &info : tilec::vocab::kElementTypes)
    names.push_back(dtypeName(info));
  return names;
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
           tile::stringifyFragLayout(frag.getLayout()).str() +
           (frag.isBroadcast()
                ? " " + tile::stringifyFragBroadcast(frag.getBroadcast()).str()
                : "");
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
    // A type param gets its note too (`OUT is f16`); a type const does not.
    bool typeParam =
        symbol && symbol->val.isDType() && symbol->kind == Symbol::Kind::Param;
    if (!symbol || !(symbol->val.isInt() || typeParam) ||
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

void Emitter::recordParamNotes(llvm::SMRange range,
                               llvm::ArrayRef<const Expr *> exprs) {
  llvm::SmallVector<const Symbol *, 2> params;
  for (const Expr *expr : exprs)
    if (expr)
      collectOverriddenParams(*expr, params);
  if (params.empty())
    return;
  StatementParamNotes &entry = paramNotes[range.Start.getPointer()];
  entry.end = range.End.getPointer();
  entry.notes.clear();
  for (const Symbol *param : params)
    entry.notes.push_back(makeParamNote(*param));
}

const StatementParamNotes *
tilec::frontend::findParamNotes(const ParamNoteMap &paramNotes,
                                llvm::SMLoc loc) {
  const char *p = loc.getPointer();
  auto it = paramNotes.upper_bound(p);
  if (it == paramNotes.begin())
    return nullptr;
  --it;
  return p < it->second.end ? &it->second : nullptr;
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
  return asI32(val, expr, what);
}

Value Emitter::asI32(const Val &val, const Expr &expr, llvm::StringRef what) {
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

std::optional<int64_t> Emitter::evalConstUnsigned(const Expr &expr,
                                                  llvm::StringRef what) {
  std::optional<int64_t> n = evalConstInt(expr, what);
  if (!n || *n >= 0)
    return n;
  error(expr.getRange(), what + " cannot be negative, got " + llvm::Twine(*n));
  noteParamsIn(expr);
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

//===- EmitDecls.cpp - buffers, barriers, consts, variables, assignments -===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//
//
// Shared-memory and tensor-memory buffers and barriers are declared at the
// top of a kernel body; the compiler allocates and initialises them. consts
// are compile-time values, `let` variables SSA values that assignments
// replace.
//
//===----------------------------------------------------------------------===//

#include "lib/Frontend/Emitter.h"

#include "llvm/ADT/STLExtras.h"

using namespace tilec::frontend;
using namespace mlir;

//===----------------------------------------------------------------------===//
// Constants, variables and assignments
//===----------------------------------------------------------------------===//

void Emitter::emitLocalConst(const ParamStmt &stmt) {
  Val value = eval(*stmt.value);
  if (value.isValue()) {
    error(stmt.value->getRange(), "a const must be a compile-time value; use "
                                  "'let' for a value known at run time");
    noteRuntimeName(*stmt.value);
    value = Val::error();
  }
  Symbol *symbol =
      declare(Symbol::Kind::Const, stmt.name, stmt.nameRange, value);
  collectOverriddenParams(*stmt.value, symbol->overriddenParams);
}

void Emitter::emitLet(const LetStmt &stmt) {
  if (!stmt.unpacked.empty())
    return emitUnpackingLet(stmt);
  Val value = eval(*stmt.value);
  if (value.isDType()) {
    error(stmt.value->getRange(), "a type cannot be stored in a variable; "
                                  "use 'const' to name a type");
    value = Val::error();
  }
  // Name the op that made the value, so that the IR printed with
  // --mlir-use-nameloc-as-prefix reads %acc, %tma_ps.
  if (value.isValue())
    if (Operation *op = value.value.getDefiningOp();
        op && op->getNumResults() == 1 && isa<FileLineColLoc>(op->getLoc()))
      op->setLoc(namedLoc(stmt.name, op->getLoc()));
  Symbol *symbol = declare(Symbol::Kind::Var, stmt.name, stmt.nameRange, value);
  collectOverriddenParams(*stmt.value, symbol->overriddenParams);
}

void Emitter::emitUnpackingLet(const LetStmt &stmt) {
  SmallVector<Val, 3> values;
  bool ok = false;
  if (auto *call = llvm::dyn_cast<CallExpr>(stmt.value.get()))
    ok = evalCallValues(*call, values);
  else if (!eval(*stmt.value).isError())
    error(stmt.value->getRange(), "'let (...)' unpacks the values of " +
                                      describeBuiltins(BuiltinKind::Values) +
                                      ", not a single value");
  if (ok && values.size() != stmt.unpacked.size()) {
    llvm::SMRange names(stmt.unpacked.front().range.Start,
                        stmt.unpacked.back().range.End);
    llvm::StringRef callee =
        llvm::cast<NameExpr>(llvm::cast<CallExpr>(*stmt.value).callee.get())
            ->name;
    error(names, callee + "(...) gives " + llvm::Twine(values.size()) +
                     " values, but the let names " +
                     llvm::Twine(stmt.unpacked.size()));
    ok = false;
  }
  for (auto [i, name] : llvm::enumerate(stmt.unpacked)) {
    Symbol *symbol = declare(Symbol::Kind::Var, name.name, name.range,
                             ok ? values[i] : Val::error());
    collectOverriddenParams(*stmt.value, symbol->overriddenParams);
  }
}

void Emitter::emitAssign(const AssignStmt &stmt) {
  Symbol *symbol = lookup(stmt.name);
  if (!symbol) {
    std::vector<llvm::StringRef> names = visibleNames();
    llvm::StringRef close = closestName(stmt.name, names);
    std::string message = "unknown variable '" + stmt.name.str() +
                          "'; declare it with 'let " + stmt.name.str() +
                          " = ...'";
    if (!close.empty())
      diag.errorWithFixIt(stmt.nameRange,
                          message + ", or did you mean '" + close.str() + "'?",
                          close);
    else
      error(stmt.nameRange, message);
    eval(*stmt.value);
    return;
  }
  Val value = eval(*stmt.value);
  if (stmt.op != Tok::Assign) {
    Tok op = stmt.op == Tok::PlusAssign    ? Tok::Plus
             : stmt.op == Tok::MinusAssign ? Tok::Minus
                                           : Tok::Star;
    value = binaryOp(op, symbol->val, value, stmt.getRange(), stmt.opRange);
  }
  assignVariable(stmt.name, stmt.nameRange, value);
}

//===----------------------------------------------------------------------===//
// Declarations: shared memory, tensor memory, barriers
//===----------------------------------------------------------------------===//

void Emitter::emitDecl(const DeclStmt &stmt) {
  if (!atKernelTop()) {
    const char *what = stmt.getKind() == Stmt::Kind::Smem ? "shared-memory "
                                                            "buffers"
                       : stmt.getKind() == Stmt::Kind::Tmem
                           ? "tensor-memory buffers"
                           : "barriers";
    error({stmt.getLoc(), stmt.nameRange.End},
          llvm::Twine(what) +
              " are declared at the top of the kernel body, outside roles, "
              "loops and branches: the compiler allocates and initialises "
              "them before any role runs");
    declare(Symbol::Kind::Buffer, stmt.name, stmt.nameRange, Val::error());
    return;
  }
  switch (stmt.getKind()) {
  case Stmt::Kind::Smem:
    emitSmem(stmt);
    return;
  case Stmt::Kind::Tmem:
    emitTmem(stmt);
    return;
  default:
    emitBarrier(stmt);
    return;
  }
}

/// Reports clauses of a declaration other than `allowed`; returns the value
/// of clause `name` (or null).
static const Expr *findClause(Emitter &emitter, const DeclStmt &stmt,
                              llvm::StringRef what,
                              llvm::ArrayRef<llvm::StringRef> allowed,
                              llvm::StringRef name) {
  const Expr *found = nullptr;
  llvm::StringMap<llvm::SMRange> seen;
  for (const Clause &clause : stmt.clauses) {
    if (!llvm::is_contained(allowed, clause.keyword)) {
      std::string expected = allowed.empty() ? std::string("takes no clauses")
                                             : "takes " + joinChoices(allowed);
      emitter.error(clause.keywordRange,
                    "unknown clause '" + clause.keyword + "': " + what + " " +
                        expected + didYouMean(clause.keyword, allowed));
      continue;
    }
    auto [it, inserted] = seen.try_emplace(clause.keyword, clause.keywordRange);
    if (!inserted) {
      emitter.error(clause.keywordRange,
                    "'" + clause.keyword + "' is given twice");
      emitter.note(it->second, "first given here");
      continue;
    }
    if (clause.keyword == name)
      found = clause.value.get();
  }
  return found;
}

void Emitter::emitSmem(const DeclStmt &stmt) {
  Symbol *symbol =
      declare(Symbol::Kind::Buffer, stmt.name, stmt.nameRange, Val::error());
  const Expr *swizzleExpr =
      findClause(*this, stmt, "a shared-memory buffer", {"swizzle"}, "swizzle");
  std::optional<ShapeExpr> shape =
      evalShapeExpr(*stmt.type, "a shared-memory buffer");
  tile::Swizzle swizzle = tile::Swizzle::none;
  bool ok = shape.has_value();
  if (swizzleExpr) {
    std::optional<int64_t> bytes;
    auto *literal = llvm::dyn_cast<IntExpr>(swizzleExpr);
    auto *name = llvm::dyn_cast<NameExpr>(swizzleExpr);
    if (literal && !literal->suffix.empty()) {
      if (literal->suffix == "B" || literal->suffix == "b")
        bytes = literal->value;
      else
        error(swizzleExpr->getRange(),
              "a swizzle is written 128B, 64B, 32B or none");
    } else if (name && name->name == "none") {
      bytes = 0;
    } else {
      bytes = evalConstInt(*swizzleExpr, "the swizzle (in bytes)");
    }
    if (bytes) {
      switch (*bytes) {
      case 0:
        swizzle = tile::Swizzle::none;
        break;
      case 32:
        swizzle = tile::Swizzle::swizzle_32b;
        break;
      case 64:
        swizzle = tile::Swizzle::swizzle_64b;
        break;
      case 128:
        swizzle = tile::Swizzle::swizzle_128b;
        break;
      default:
        error(swizzleExpr->getRange(),
              "a swizzle is 128B, 64B, 32B or none, got " +
                  llvm::Twine(*bytes) + " bytes");
        noteParamsIn(*swizzleExpr);
        ok = false;
      }
    } else {
      ok = false;
    }
  }
  if (!ok)
    return;
  Type elementType = shape->elementType;
  int64_t elementBytes = tile::getElementBytes(elementType);
  // Sizes, each at the dimension that breaks them.
  int64_t totalBytes = elementBytes;
  for (auto [size, dim] : llvm::zip(shape->shape, shape->dims)) {
    if (size < 1) {
      error(dim->getRange(),
            "a shared-memory dimension must be positive, got " +
                llvm::Twine(size));
      noteParamsIn(*dim);
      return;
    }
    if (llvm::MulOverflow(totalBytes, size, totalBytes) ||
        totalBytes > (int64_t(1) << 24)) {
      error(stmt.type->getRange(),
            "shared-memory buffer '" + stmt.name +
                "' is far larger than shared memory (at most 227 KiB per "
                "CTA)");
      noteParamsIn(*stmt.type);
      return;
    }
  }
  int64_t span = tile::getSwizzleBytes(swizzle);
  if (span != 0) {
    size_t rank = shape->shape.size();
    if (rank < 2) {
      error(stmt.type->getRange(),
            "a swizzled buffer has at least two dimensions (rows and "
            "columns of a tile)");
      return;
    }
    int64_t cols = shape->shape[rank - 1];
    int64_t rowBytes = cols * elementBytes;
    if (rowBytes % span != 0) {
      std::string message =
          "the innermost dimension of '" + stmt.name.str() + "' is " +
          std::to_string(cols) + " " + tile::getElementTypeName(elementType) +
          " elements (" + std::to_string(rowBytes) +
          " bytes), not a multiple of the " + std::to_string(span) +
          "-byte swizzle span; use a multiple of " +
          std::to_string(std::max<int64_t>(1, span / elementBytes)) +
          " elements";
      for (int64_t narrower : {64, 32})
        if (narrower < span && rowBytes % narrower == 0) {
          message += " or swizzle " + std::to_string(narrower) + "B";
          break;
        }
      error(shape->dims[rank - 1]->getRange(), message);
      noteParamsIn(*shape->dims[rank - 1]);
      return;
    }
    int64_t rows = shape->shape[rank - 2];
    if (rows % 8 != 0) {
      error(shape->dims[rank - 2]->getRange(),
            "a swizzled tile has a multiple of 8 rows (one swizzle atom), "
            "got " +
                llvm::Twine(rows));
      noteParamsIn(*shape->dims[rank - 2]);
      return;
    }
  }
  Location l = loc(stmt.getLoc());
  auto type = tile::SmemType::getChecked(
      [&] { return emitError(loc(stmt.type->getRange())); }, &context,
      ArrayRef<int64_t>(shape->shape), elementType, swizzle);
  if (!type)
    return;
  symbol->val =
      Val::of(tile::SmemAllocOp::create(builder, namedLoc(stmt.name, l), type,
                                        /*offset=*/nullptr));
}

void Emitter::emitTmem(const DeclStmt &stmt) {
  Symbol *symbol =
      declare(Symbol::Kind::Buffer, stmt.name, stmt.nameRange, Val::error());
  const Expr *ctaGroupExpr = findClause(*this, stmt, "a tensor-memory buffer",
                                        {"cta_group"}, "cta_group");
  if (!isBlackwell()) {
    error({stmt.getLoc(), stmt.nameRange.End},
          "tensor memory needs sm_100a (Blackwell); this kernel targets " +
              kernel->target);
    noteTarget();
    return;
  }
  std::optional<ShapeExpr> shape =
      evalShapeExpr(*stmt.type, "a tensor-memory buffer");
  if (!shape)
    return;
  if (shape->shape.size() != 2) {
    error(stmt.type->getRange(), "tensor memory is two-dimensional: write "
                                 "f32[128, columns]");
    return;
  }
  if (shape->shape[0] != 128) {
    error(shape->dims[0]->getRange(),
          "tensor memory has 128 lanes, got " + llvm::Twine(shape->shape[0]));
    noteParamsIn(*shape->dims[0]);
    return;
  }
  if (shape->shape[1] < 1 || shape->shape[1] > 512) {
    error(shape->dims[1]->getRange(), "tensor memory has 1 to 512 columns, "
                                      "got " +
                                          llvm::Twine(shape->shape[1]));
    noteParamsIn(*shape->dims[1]);
    return;
  }
  int64_t ctaGroup = 1;
  if (ctaGroupExpr) {
    std::optional<int64_t> n = evalConstUnsigned(*ctaGroupExpr, "cta_group");
    if (!n)
      return;
    ctaGroup = *n;
  }
  auto type = tile::TmemType::getChecked(
      [&] { return emitError(loc(stmt.type->getRange())); }, &context,
      ArrayRef<int64_t>(shape->shape), shape->elementType);
  if (!type)
    return;
  symbol->val = Val::of(
      tile::TmemAllocOp::create(builder, namedLoc(stmt.name, stmt.getRange()),
                                type, static_cast<uint64_t>(ctaGroup),
                                /*offset=*/nullptr));
}

static const llvm::StringRef kBarrierKinds[] = {"tma", "mma", "threads"};

void Emitter::emitBarrier(const DeclStmt &stmt) {
  Symbol *symbol =
      declare(Symbol::Kind::Buffer, stmt.name, stmt.nameRange, Val::error());
  const Expr *arrivalsExpr =
      findClause(*this, stmt, "a barrier", {"arrivals"}, "arrivals");
  const Expr *kindExpr = stmt.type.get();
  const Expr *depthExpr = nullptr;
  if (auto *index = llvm::dyn_cast<IndexExpr>(kindExpr)) {
    kindExpr = index->base.get();
    if (index->items.size() != 1) {
      error(index->getRange(), "a barrier array has one size: write "
                               "'tma[4]'");
      return;
    }
    depthExpr = index->items[0].get();
  }
  if (llvm::isa<ErrorExpr>(kindExpr))
    return;
  std::optional<unsigned> kind =
      evalChoice(*kindExpr, "barrier kind", kBarrierKinds);
  if (!kind)
    return;
  int64_t depth = 1;
  if (depthExpr) {
    std::optional<int64_t> n =
        evalConstInt(*depthExpr, "the number of barriers");
    if (!n)
      return;
    if (*n < 1 || *n > 64) {
      error(depthExpr->getRange(), "a barrier array holds 1 to 64 barriers, "
                                   "got " +
                                       llvm::Twine(*n));
      noteParamsIn(*depthExpr);
      return;
    }
    depth = *n;
  }
  int64_t arrivals = 1;
  if (arrivalsExpr) {
    std::optional<int64_t> n =
        evalConstUnsigned(*arrivalsExpr, "the number of arrivals");
    if (!n)
      return;
    arrivals = *n;
  }
  auto type = tile::BarrierType::getChecked(
      [&] { return emitError(loc(stmt.type->getRange())); }, &context,
      static_cast<tile::BarrierKind>(*kind), depth, /*remote=*/false);
  if (!type)
    return;
  symbol->val = Val::of(tile::BarrierAllocOp::create(
      builder, namedLoc(stmt.name, stmt.getRange()), type,
      static_cast<uint64_t>(arrivals),
      /*offset=*/nullptr));
}

//===- EmitRoles.cpp - roles and single_thread blocks --------------------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//
//
// A role runs its body on some warps of some warpgroups, with a register
// budget; roles of one kernel must not overlap (the tile dialect's verifiers
// check both). A single_thread block runs its body on one thread of a warp,
// warpgroup or CTA. Both are regions a value cannot flow out of.
//
//===----------------------------------------------------------------------===//

#include "lib/Frontend/Emitter.h"

#include "llvm/ADT/STLExtras.h"

using namespace tilec::frontend;
using namespace mlir;

//===----------------------------------------------------------------------===//
// Roles and single-thread blocks
//===----------------------------------------------------------------------===//

static const llvm::StringRef kRoleClauses[] = {
    "warpgroup", "warpgroups", "warp", "warps", "one", "all", "regs"};

/// `range(stop)` or `range(start, stop)` as a list of constants, so that a
/// role's warpgroups can follow a param (`warpgroups range(BLK_M / 64)`).
/// False if `expr` is not a call of range.
static bool evalRangeList(Emitter &emitter, const Expr &expr,
                          llvm::StringRef what,
                          llvm::SmallVectorImpl<int64_t> &out) {
  auto *call = llvm::dyn_cast<CallExpr>(&expr);
  auto *callee = call ? llvm::dyn_cast<NameExpr>(call->callee.get()) : nullptr;
  if (!callee || callee->name != "range")
    return false;
  if (!call->keywords.empty() || call->args.empty() || call->args.size() > 2) {
    emitter.error(expr.getRange(), "a list of " + what +
                                       " as range(...) takes (stop) or "
                                       "(start, stop)");
    return true;
  }
  std::optional<int64_t> start = 0;
  if (call->args.size() == 2)
    start = emitter.evalConstInt(*call->args[0], what);
  std::optional<int64_t> stop = emitter.evalConstInt(*call->args.back(), what);
  if (!start || !stop)
    return true;
  if (*stop <= *start) {
    emitter.error(expr.getRange(), "the list of " + what +
                                       " is empty: " + llvm::Twine(*start) +
                                       " to " + llvm::Twine(*stop));
    emitter.noteParamsIn(expr);
    return true;
  }
  // The verifier bounds the entries by the kernel's warpgroups (at most 8).
  for (int64_t i = *start; i < *stop && i < *start + 16; ++i)
    out.push_back(i);
  return true;
}

/// `1`, `[0, 1]` or `range(2)` as a list of constants (those that are).
static void evalIntList(Emitter &emitter, const Expr &expr,
                        llvm::StringRef what,
                        llvm::SmallVectorImpl<int64_t> &out) {
  if (evalRangeList(emitter, expr, what, out))
    return;
  llvm::SmallVector<const Expr *, 4> elements;
  if (auto *list = llvm::dyn_cast<ListExpr>(&expr))
    for (const ExprPtr &e : list->elements)
      elements.push_back(e.get());
  else if (auto *tuple = llvm::dyn_cast<TupleExpr>(&expr))
    for (const ExprPtr &e : tuple->elements)
      elements.push_back(e.get());
  else
    elements.push_back(&expr);
  if (elements.empty()) {
    emitter.error(expr.getRange(), "the list of " + what + " is empty");
    return;
  }
  for (const Expr *e : elements)
    if (std::optional<int64_t> n = emitter.evalConstInt(*e, what))
      out.push_back(*n);
}

void Emitter::emitRole(const RoleStmt &stmt) {
  llvm::SMRange head{stmt.getLoc(), stmt.nameRange.End};
  if (!atKernelTop()) {
    error(head, kernel->currentRole
                    ? "roles do not nest: declare this role in the "
                      "kernel body, next to role '" +
                          kernel->currentRole->name + "'"
                    : llvm::Twine("a role is declared directly in the "
                                  "kernel body, not inside a loop, "
                                  "branch or single_thread block"));
    return;
  }
  llvm::SmallVector<int64_t, 4> warpgroups, warps;
  std::optional<int64_t> regs;
  bool singleThread = false;
  llvm::StringMap<llvm::SMRange> seen;
  for (const Clause &clause : stmt.clauses) {
    llvm::StringRef keyword = clause.keyword;
    if (keyword == "warpgroups")
      keyword = "warpgroup";
    if (keyword == "warps")
      keyword = "warp";
    if (!llvm::is_contained(kRoleClauses, keyword)) {
      error(clause.keywordRange,
            "unknown role clause '" + clause.keyword +
                "' (expected warpgroup, warp, one thread, all threads or "
                "regs)" +
                didYouMean(clause.keyword, kRoleClauses));
      continue;
    }
    llvm::StringRef slot =
        keyword == "one" || keyword == "all" ? "threads" : keyword;
    auto [it, inserted] = seen.try_emplace(slot, clause.getRange());
    if (!inserted) {
      llvm::StringRef what = slot == "warpgroup" ? "warpgroups are"
                             : slot == "warp"    ? "warps are"
                             : slot == "regs"    ? "register budget is"
                                                 : "threads are";
      error(clause.getRange(), "the role's " + what + " given twice");
      note(it->second, "first given here");
      continue;
    }
    if (keyword == "one" || keyword == "all")
      singleThread = keyword == "one";
    else if (keyword == "regs")
      regs = evalConstUnsigned(*clause.value, "a register budget");
    else if (keyword == "warpgroup")
      evalIntList(*this, *clause.value, "warpgroups", warpgroups);
    else
      evalIntList(*this, *clause.value, "warps", warps);
  }
  auto warpsAttr = warps.empty() ? DenseI64ArrayAttr()
                                 : DenseI64ArrayAttr::get(&context, warps);
  auto regsAttr = regs ? builder.getI64IntegerAttr(*regs) : IntegerAttr();
  auto roleOp =
      tile::RoleOp::create(builder, loc(stmt.getLoc()), stmt.name, warpgroups,
                           warpsAttr, singleThread, regsAttr);
  OpBuilder::InsertionGuard guard(builder);
  builder.createBlock(&roleOp.getBody());
  ++kernel->regionLevel;
  kernel->regionKinds.push_back("role");
  kernel->currentRole = &stmt;
  pushScope();
  emitStmts(stmt.body);
  popScope();
  kernel->currentRole = nullptr;
  kernel->regionKinds.pop_back();
  --kernel->regionLevel;
}

static const llvm::StringRef kThreadScopes[] = {"warp", "warpgroup", "cta"};

void Emitter::emitSingleThread(const SingleThreadStmt &stmt) {
  NameExpr scopeName(stmt.scopeRange, stmt.scope);
  std::optional<unsigned> scope =
      evalChoice(scopeName, "single_thread scope", kThreadScopes);
  if (!scope)
    return;
  auto op = tile::SingleThreadOp::create(
      builder, loc(stmt.getLoc()), static_cast<tile::ThreadScope>(*scope));
  OpBuilder::InsertionGuard guard(builder);
  builder.createBlock(&op.getBody());
  ++kernel->regionLevel;
  kernel->regionKinds.push_back("single_thread block");
  pushScope();
  emitStmts(stmt.body);
  popScope();
  kernel->regionKinds.pop_back();
  --kernel->regionLevel;
}

//===- EmitRoles.cpp - roles and single_thread blocks --------------------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//
//
// A role runs its body on some warps of some warpgroups, with a register
// budget; roles of one kernel must not overlap. A single_thread block runs
// its body on one thread of a warp, warpgroup or CTA. Both are regions a
// value cannot flow out of.
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

/// `1` or `[0, 1]` as a list of constants.
static bool
evalIntList(Emitter &emitter, const Expr &expr, llvm::StringRef what,
            llvm::SmallVectorImpl<std::pair<int64_t, const Expr *>> &out) {
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
    return false;
  }
  for (const Expr *e : elements) {
    std::optional<int64_t> n = emitter.evalConstInt(*e, what);
    if (!n)
      return false;
    out.push_back({*n, e});
  }
  return true;
}

bool Emitter::checkRoleOverlap(const RoleInfo &role) {
  for (const RoleInfo &other : kernel->roles) {
    if (other.name == role.name) {
      error(role.nameRange, "role '" + role.name + "' is already declared");
      note(other.nameRange, "the first declaration is here");
      return false;
    }
    auto warpsOf = [](const RoleInfo &r) {
      return r.warps.empty() ? llvm::SmallVector<int64_t, 4>{0, 1, 2, 3}
                             : r.warps;
    };
    for (int64_t wg : role.warpgroups) {
      if (!llvm::is_contained(other.warpgroups, wg))
        continue;
      if (role.regs && other.regs && *role.regs != *other.regs) {
        error(role.regsRange,
              "role '" + role.name + "' gives warpgroup " + llvm::Twine(wg) +
                  " " + llvm::Twine(*role.regs) +
                  " registers per thread, but role '" + other.name +
                  "' gives it " + llvm::Twine(*other.regs) +
                  "; setmaxnreg sets one budget for a whole warpgroup");
        note(other.regsRange, "'" + other.name + "' sets its budget here");
        return false;
      }
      for (int64_t warp : warpsOf(role)) {
        if (!llvm::is_contained(warpsOf(other), warp))
          continue;
        error(role.nameRange, "role '" + role.name + "' runs on warp " +
                                  llvm::Twine(warp) + " of warpgroup " +
                                  llvm::Twine(wg) + ", which role '" +
                                  other.name + "' already runs on");
        note(other.nameRange, "'" + other.name + "' is declared here");
        return false;
      }
    }
  }
  return true;
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
  RoleInfo info;
  info.name = stmt.name;
  info.nameRange = stmt.nameRange;
  bool singleThread = false;
  bool ok = true, haveWarpgroups = false;
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
      ok = false;
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
      ok = false;
      continue;
    }
    if (keyword == "one" || keyword == "all") {
      singleThread = keyword == "one";
      continue;
    }
    if (keyword == "regs") {
      std::optional<int64_t> regs =
          evalConstInt(*clause.value, "a register budget");
      if (!regs) {
        ok = false;
        continue;
      }
      if (*regs < 24 || *regs > 256 || *regs % 8 != 0) {
        error(clause.value->getRange(),
              "a register budget is a multiple of 8 from 24 to 256 "
              "(setmaxnreg), got " +
                  llvm::Twine(*regs));
        noteParamsIn(*clause.value);
        ok = false;
        continue;
      }
      info.regs = *regs;
      info.regsRange = clause.getRange();
      continue;
    }
    llvm::SmallVector<std::pair<int64_t, const Expr *>, 4> values;
    bool isWarpgroup = keyword == "warpgroup";
    if (!evalIntList(*this, *clause.value, isWarpgroup ? "warpgroups" : "warps",
                     values)) {
      ok = false;
      continue;
    }
    auto &list = isWarpgroup ? info.warpgroups : info.warps;
    for (auto [value, expr] : values) {
      int64_t limit = isWarpgroup ? kernel->numWarpgroups : 4;
      if (value < 0 || value >= limit) {
        if (isWarpgroup) {
          error(expr->getRange(),
                "warpgroup " + llvm::Twine(value) +
                    " does not exist: the kernel has " +
                    llvm::Twine(kernel->numWarpgroups) + " warpgroup" +
                    (kernel->numWarpgroups == 1 ? "" : "s") + " (0 to " +
                    llvm::Twine(kernel->numWarpgroups - 1) + ")");
          if (kernel->warpgroupsRange.isValid())
            note(kernel->warpgroupsRange,
                 "the kernel's warpgroups are set here");
          else
            diag.note("a kernel without a 'warpgroups' clause has one "
                      "warpgroup");
        } else {
          error(expr->getRange(), "warp " + llvm::Twine(value) +
                                      " does not exist: a warpgroup has "
                                      "warps 0 to 3");
        }
        noteParamsIn(*expr);
        ok = false;
        continue;
      }
      if (llvm::is_contained(list, value)) {
        error(expr->getRange(), (isWarpgroup ? "warpgroup " : "warp ") +
                                    llvm::Twine(value) + " is listed twice");
        ok = false;
        continue;
      }
      list.push_back(value);
    }
    haveWarpgroups |= isWarpgroup;
  }
  if (!haveWarpgroups && ok) {
    error(head, "role '" + stmt.name +
                    "' needs the warpgroups that run it, as in 'role " +
                    stmt.name + ": warpgroup 1'");
    ok = false;
  }
  if (ok)
    ok = checkRoleOverlap(info);
  if (ok)
    kernel->roles.push_back(info);
  Location l = loc(stmt.getLoc());
  auto warps = info.warps.empty()
                   ? DenseI64ArrayAttr()
                   : DenseI64ArrayAttr::get(&context, info.warps);
  auto regs = info.regs ? builder.getI64IntegerAttr(*info.regs) : IntegerAttr();
  auto roleOp = tile::RoleOp::create(builder, l, stmt.name, info.warpgroups,
                                     warps, singleThread, regs);
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

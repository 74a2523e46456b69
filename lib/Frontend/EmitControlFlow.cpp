//===- EmitControlFlow.cpp - statements, blocks, loops and branches ------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//
//
// Statements are emitted in order, under a budget that bounds what unrolled
// loops can expand to. Loops and branches become scf.for / scf.while /
// scf.if; the variables their bodies assign are threaded through as
// iter_args and results (see Emitter.h). unroll(...) repeats its body at
// compile time; tiles(...) and persistent(...) are in EmitTiles.cpp.
//
//===----------------------------------------------------------------------===//

#include "lib/Frontend/Emitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/STLExtras.h"

#include <functional>

using namespace tilec::frontend;
using namespace mlir;

/// Statements an input may expand to (through unrolled loops) before the
/// emitter gives up: a bound on time and memory for any input.
static constexpr size_t kMaxStatements = 100000;
/// Iterations of one unrolled loop.
static constexpr int64_t kMaxUnroll = 1024;

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

void Emitter::emitBlock(const Body &block) {
  pushScope();
  emitStmts(block);
  popScope();
}

void Emitter::emitStmts(const Body &block) {
  for (const StmtPtr &stmt : block.stmts) {
    if (budgetExceeded || diag.tooManyErrors())
      return;
    emitStmt(*stmt);
  }
}

bool Emitter::spendStatementBudget(llvm::SMRange range) {
  if (++emittedStmts <= kMaxStatements)
    return false;
  if (!budgetExceeded)
    error(range, "the unrolled loops expand to more than " +
                     llvm::Twine(kMaxStatements) +
                     " statements; unroll fewer iterations");
  budgetExceeded = true;
  return true;
}

void Emitter::emitStmt(const Stmt &stmt) {
  if (spendStatementBudget(stmt.getRange()))
    return;
  // The -D params behind this statement, for notes on verifier errors.
  switch (stmt.getKind()) {
  case Stmt::Kind::Expr:
    recordParamNotes(stmt.getRange(), {llvm::cast<ExprStmt>(stmt).expr.get()});
    break;
  case Stmt::Kind::Let:
    recordParamNotes(stmt.getRange(), {llvm::cast<LetStmt>(stmt).value.get()});
    break;
  case Stmt::Kind::Smem:
  case Stmt::Kind::Tmem:
  case Stmt::Kind::Barrier: {
    auto &decl = llvm::cast<DeclStmt>(stmt);
    llvm::SmallVector<const Expr *, 4> exprs{decl.type.get()};
    for (const Clause &clause : decl.clauses)
      exprs.push_back(clause.value.get());
    recordParamNotes(stmt.getRange(), exprs);
    break;
  }
  case Stmt::Kind::For: {
    // The ops of the loop's header (tiles(...)): not its body.
    auto &loop = llvm::cast<ForStmt>(stmt);
    recordParamNotes({stmt.getLoc(), loop.body.range.Start}, {loop.iter.get()});
    break;
  }
  case Stmt::Kind::Role: {
    // The role op's own errors (budgets, warps): its header, not its body.
    auto &role = llvm::cast<RoleStmt>(stmt);
    llvm::SmallVector<const Expr *, 4> exprs;
    for (const Clause &clause : role.clauses)
      exprs.push_back(clause.value.get());
    recordParamNotes({stmt.getLoc(), role.body.range.Start}, exprs);
    break;
  }
  default:
    break;
  }

  switch (stmt.getKind()) {
  case Stmt::Kind::Param: {
    auto &param = llvm::cast<ParamStmt>(stmt);
    if (param.isParam) {
      error(param.getRange(), "a param is declared at the top of the file, "
                              "outside kernels (so that -D can set it); use "
                              "'const' here");
      declare(Symbol::Kind::Const, param.name, param.nameRange, Val::error());
      return;
    }
    emitLocalConst(param);
    return;
  }
  case Stmt::Kind::Assert:
    emitAssert(llvm::cast<AssertStmt>(stmt));
    return;
  case Stmt::Kind::Smem:
  case Stmt::Kind::Tmem:
  case Stmt::Kind::Barrier:
    emitDecl(llvm::cast<DeclStmt>(stmt));
    return;
  case Stmt::Kind::Let:
    emitLet(llvm::cast<LetStmt>(stmt));
    return;
  case Stmt::Kind::Assign:
    emitAssign(llvm::cast<AssignStmt>(stmt));
    return;
  case Stmt::Kind::Expr:
    emitExprStmt(llvm::cast<ExprStmt>(stmt));
    return;
  case Stmt::Kind::For:
    emitFor(llvm::cast<ForStmt>(stmt));
    return;
  case Stmt::Kind::While:
    emitWhile(llvm::cast<WhileStmt>(stmt));
    return;
  case Stmt::Kind::If:
    emitIf(llvm::cast<IfStmt>(stmt));
    return;
  case Stmt::Kind::Role:
    emitRole(llvm::cast<RoleStmt>(stmt));
    return;
  case Stmt::Kind::SingleThread:
    emitSingleThread(llvm::cast<SingleThreadStmt>(stmt));
    return;
  }
}

void Emitter::emitExprStmt(const ExprStmt &stmt) {
  if (auto *call = llvm::dyn_cast<CallExpr>(stmt.expr.get())) {
    evalCall(*call, /*isStatement=*/true);
    return;
  }
  Val value = eval(*stmt.expr);
  if (value.isError())
    return;
  error(stmt.expr->getRange(),
        "this expression computes a value that is not used; bind it with "
        "'let name = ...' or assign it with 'name = ...'");
}

//===----------------------------------------------------------------------===//
// Loops and branches
//===----------------------------------------------------------------------===//

void Emitter::collectAssigned(const Body &block,
                              llvm::SmallVectorImpl<Symbol *> &out) {
  std::vector<llvm::StringSet<>> locals;
  llvm::SmallPtrSet<Symbol *, 8> seen;
  collectAssignedIn(block, locals, seen, out);
}

void Emitter::collectAssignedIn(const Body &block,
                                std::vector<llvm::StringSet<>> &locals,
                                llvm::SmallPtrSetImpl<Symbol *> &seen,
                                llvm::SmallVectorImpl<Symbol *> &out) {
  auto consider = [&](llvm::StringRef name) {
    for (const llvm::StringSet<> &scope : locals)
      if (scope.contains(name))
        return;
    Symbol *symbol = lookup(name);
    if (symbol && symbol->kind == Symbol::Kind::Var && !symbol->val.isError() &&
        symbol->regionLevel == kernel->regionLevel &&
        seen.insert(symbol).second)
      out.push_back(symbol);
  };
  locals.emplace_back();
  for (const StmtPtr &stmt : block.stmts) {
    switch (stmt->getKind()) {
    case Stmt::Kind::Param:
      locals.back().insert(llvm::cast<ParamStmt>(*stmt).name);
      break;
    case Stmt::Kind::Smem:
    case Stmt::Kind::Tmem:
    case Stmt::Kind::Barrier:
      locals.back().insert(llvm::cast<DeclStmt>(*stmt).name);
      break;
    case Stmt::Kind::Let: {
      auto &let = llvm::cast<LetStmt>(*stmt);
      locals.back().insert(let.name);
      for (const LetStmt::Name &name : let.unpacked)
        locals.back().insert(name.name);
      break;
    }
    case Stmt::Kind::Assign:
      consider(llvm::cast<AssignStmt>(*stmt).name);
      break;
    case Stmt::Kind::Expr:
      if (auto *call =
              llvm::dyn_cast<CallExpr>(llvm::cast<ExprStmt>(*stmt).expr.get()))
        if (const NameExpr *name = updatedVariable(*call))
          consider(name->name);
      break;
    case Stmt::Kind::For: {
      auto &loop = llvm::cast<ForStmt>(*stmt);
      locals.emplace_back();
      for (const ForStmt::Var &var : loop.vars)
        locals.back().insert(var.name);
      collectAssignedIn(loop.body, locals, seen, out);
      locals.pop_back();
      break;
    }
    case Stmt::Kind::While:
      collectAssignedIn(llvm::cast<WhileStmt>(*stmt).body, locals, seen, out);
      break;
    case Stmt::Kind::If: {
      auto &branch = llvm::cast<IfStmt>(*stmt);
      collectAssignedIn(branch.thenBlock, locals, seen, out);
      if (branch.elseBlock)
        collectAssignedIn(*branch.elseBlock, locals, seen, out);
      break;
    }
    // A role or single_thread body cannot assign outer variables (that is
    // reported when it is emitted), so nothing flows out of it.
    case Stmt::Kind::Role:
    case Stmt::Kind::SingleThread:
    case Stmt::Kind::Assert:
      break;
    }
  }
  locals.pop_back();
}

SmallVector<Value>
Emitter::materializeCarried(llvm::SmallVectorImpl<Symbol *> &carried,
                            llvm::SMRange range) {
  SmallVector<Value> values;
  SmallVector<Symbol *> kept;
  for (Symbol *symbol : carried) {
    Value value = materialize(symbol->val, range);
    if (!value) {
      symbol->val = Val::error();
      continue;
    }
    kept.push_back(symbol);
    values.push_back(value);
  }
  carried.assign(kept.begin(), kept.end());
  return values;
}

SmallVector<Value> Emitter::yieldValues(llvm::ArrayRef<Symbol *> carried,
                                        ValueRange fallback,
                                        llvm::SMRange range) {
  SmallVector<Value> values;
  for (auto [symbol, other] : llvm::zip(carried, fallback)) {
    Value value;
    if (!symbol->val.isError())
      value = materialize(symbol->val, range, other.getType());
    values.push_back(value && value.getType() == other.getType() ? value
                                                                 : other);
  }
  return values;
}

/// Drops the terminator a builder put into a fresh body block.
static void eraseTerminator(Block *block) {
  if (!block->empty() && block->back().hasTrait<OpTrait::IsTerminator>())
    block->back().erase();
}

void Emitter::emitFor(const ForStmt &stmt) {
  auto *call = llvm::dyn_cast<CallExpr>(stmt.iter.get());
  auto *callee = call ? llvm::dyn_cast<NameExpr>(call->callee.get()) : nullptr;
  const Builtin *iterator = callee ? findBuiltin(callee->name) : nullptr;
  if (iterator && iterator->kind == BuiltinKind::ForIterator)
    return (this->*iterator->emitLoop)(stmt, *call);
  if (llvm::isa<ErrorExpr>(stmt.iter.get()))
    return;
  std::string hint =
      callee ? didYouMean(callee->name, getForIteratorNames()) : "";
  error(callee ? callee->getRange() : stmt.iter->getRange(),
        "a for loop runs over " + describeBuiltins(BuiltinKind::ForIterator) +
            hint);
}

/// range(...)'s keyword arguments, null when absent.
struct RangeKeywords {
  const Expr *unroll = nullptr;    // unroll = N
  const Expr *testAhead = nullptr; // test_ahead = 0 or 1
};

/// The bounds of range(...) and unroll(...): (stop), (start, stop) or
/// (start, stop, step); `keywords`, when given, takes range's keywords.
static bool rangeArgs(Emitter &emitter, const ForStmt &stmt,
                      const CallExpr &call, llvm::StringRef name,
                      const Expr *&start, const Expr *&stop, const Expr *&step,
                      RangeKeywords *keywords = nullptr) {
  if (stmt.vars.size() != 1) {
    emitter.error(stmt.vars[1].range,
                  name + "(...) gives one loop variable, not " +
                      llvm::Twine(stmt.vars.size()));
    return false;
  }
  for (const KeywordArg &keyword : call.keywords) {
    const Expr **slot = nullptr;
    if (keywords && keyword.name == "unroll")
      slot = &keywords->unroll;
    else if (keywords && keyword.name == "test_ahead")
      slot = &keywords->testAhead;
    if (slot && !*slot) {
      *slot = keyword.value.get();
      continue;
    }
    if (slot) {
      emitter.error(keyword.nameRange, "'" + keyword.name + "' is given twice");
      return false;
    }
    emitter.error(
        keyword.nameRange,
        keywords ? name +
                       "(...) takes the keyword arguments 'unroll' and "
                       "'test_ahead'; write " +
                       name + "(start, stop, step, unroll = N, test_ahead = 1)"
                 : name + "(...) takes no keyword arguments; write " + name +
                       "(start, stop, step)");
    return false;
  }
  if (call.args.empty() || call.args.size() > 3) {
    emitter.error(call.getRange(), name + "(...) takes (stop), (start, stop) "
                                          "or (start, stop, step)");
    return false;
  }
  start = call.args.size() >= 2 ? call.args[0].get() : nullptr;
  stop = call.args.size() >= 2 ? call.args[1].get() : call.args[0].get();
  step = call.args.size() == 3 ? call.args[2].get() : nullptr;
  return true;
}

void Emitter::emitRangeFor(const ForStmt &stmt, const CallExpr &iter) {
  const Expr *startExpr, *stopExpr, *stepExpr;
  RangeKeywords keywords;
  if (!rangeArgs(*this, stmt, iter, "range", startExpr, stopExpr, stepExpr,
                 &keywords))
    return;
  const Expr *unrollExpr = keywords.unroll;
  // `unroll = N`: tile-unroll-loops repeats the body N times per iteration
  // (and runs the rest in a remainder loop) once the loop holds NVVM ops.
  int64_t unrollFactor = 1;
  if (unrollExpr) {
    std::optional<int64_t> factor =
        evalConstInt(*unrollExpr, "an unroll factor");
    if (!factor)
      return;
    if (*factor < 1 || *factor > kMaxUnroll) {
      error(unrollExpr->getRange(), "an unroll factor must be 1 to " +
                                        llvm::Twine(kMaxUnroll) + ", got " +
                                        llvm::Twine(*factor));
      noteParamsIn(*unrollExpr);
      return;
    }
    unrollFactor = *factor;
  }
  // `test_ahead = 1`: tile-test-ahead tests each next iteration's barrier
  // wait during this iteration's MMA wait.
  bool testAhead = false;
  if (keywords.testAhead) {
    std::optional<int64_t> flag =
        evalConstInt(*keywords.testAhead, "test_ahead");
    if (!flag)
      return;
    if (*flag != 0 && *flag != 1) {
      error(keywords.testAhead->getRange(),
            "test_ahead must be 0 or 1, got " + llvm::Twine(*flag));
      noteParamsIn(*keywords.testAhead);
      return;
    }
    testAhead = *flag == 1;
  }
  Location l = loc(stmt.getLoc());
  Value lb = startExpr ? evalI32(*startExpr, "a loop bound")
                       : Value(arith::ConstantIntOp::create(
                             builder, l, builder.getI32Type(), 0));
  Value ub = evalI32(*stopExpr, "a loop bound");
  Value step;
  if (stepExpr) {
    if (std::optional<int64_t> known = tryFoldInt(*stepExpr);
        known && *known < 1) {
      error(stepExpr->getRange(),
            "a loop step must be positive, got " + llvm::Twine(*known));
      noteParamsIn(*stepExpr);
      return;
    }
    step = evalI32(*stepExpr, "a loop step");
  } else {
    step = arith::ConstantIntOp::create(builder, l, builder.getI32Type(), 1);
  }
  if (!lb || !ub || !step)
    return;
  const ForStmt::Var &var = stmt.vars.front();
  scf::ForOp loop = emitScfFor(stmt, lb, ub, step, [&](Value iv) {
    cast<BlockArgument>(iv).setLoc(namedLoc(var.name, var.range));
    declare(Symbol::Kind::LoopVar, var.name, var.range, Val::of(iv));
  });
  if (loop && unrollFactor > 1)
    tile::TileDialect::UnrollAttrHelper(builder.getContext())
        .setAttr(loop, builder.getI64IntegerAttr(unrollFactor));
  if (loop && testAhead)
    tile::TileDialect::TestAheadAttrHelper(builder.getContext())
        .setAttr(loop, builder.getUnitAttr());
}

void Emitter::emitUnrollFor(const ForStmt &stmt, const CallExpr &iter) {
  const Expr *startExpr, *stopExpr, *stepExpr;
  if (!rangeArgs(*this, stmt, iter, "unroll", startExpr, stopExpr, stepExpr))
    return;
  std::optional<int64_t> start =
      startExpr ? evalConstInt(*startExpr, "an unrolled loop's bound")
                : std::optional<int64_t>(0);
  std::optional<int64_t> stop =
      evalConstInt(*stopExpr, "an unrolled loop's bound");
  std::optional<int64_t> step =
      stepExpr ? evalConstInt(*stepExpr, "an unrolled loop's step")
               : std::optional<int64_t>(1);
  if (!start || !stop || !step)
    return;
  if (*step < 1) {
    error(stepExpr->getRange(),
          "a loop step must be positive, got " + llvm::Twine(*step));
    noteParamsIn(*stepExpr);
    return;
  }
  // Compute the trip count without overflow.
  int64_t count = 0;
  if (*stop > *start) {
    uint64_t span =
        static_cast<uint64_t>(*stop) - static_cast<uint64_t>(*start);
    count = static_cast<int64_t>((span - 1) / static_cast<uint64_t>(*step) + 1);
  }
  if (count > kMaxUnroll) {
    error(iter.getRange(), "unroll(...) runs " + llvm::Twine(count) +
                               " iterations; at most " +
                               llvm::Twine(kMaxUnroll) +
                               " are unrolled (use range(...) for a loop)");
    noteParamsIn(iter);
    return;
  }
  const ForStmt::Var &var = stmt.vars.front();
  for (int64_t i = 0; i < count; ++i) {
    // An iteration counts even with nothing in its body (say, statements
    // dropped by parse errors): nested empty loops expand too.
    if (budgetExceeded || diag.tooManyErrors() ||
        spendStatementBudget(stmt.getRange()))
      return;
    pushScope();
    // start + i * step lies in [start, stop), but i * step alone may not
    // fit: compute it modulo 2^64.
    uint64_t value = static_cast<uint64_t>(*start) +
                     static_cast<uint64_t>(i) * static_cast<uint64_t>(*step);
    declare(Symbol::Kind::LoopVar, var.name, var.range,
            Val::ofInt(static_cast<int64_t>(value)));
    emitStmts(stmt.body);
    popScope();
  }
}

/// Bodies one specialize(...) may copy.
static constexpr size_t kMaxSpecializations = 16;

void Emitter::emitSpecializeFor(const ForStmt &stmt, const CallExpr &iter) {
  if (stmt.vars.size() != 1) {
    error(stmt.vars[1].range, "specialize(...) gives one variable, not " +
                                  llvm::Twine(stmt.vars.size()));
    return;
  }
  const Expr *exhaustiveExpr = nullptr;
  for (const KeywordArg &keyword : iter.keywords) {
    if (keyword.name == "exhaustive" && !exhaustiveExpr) {
      exhaustiveExpr = keyword.value.get();
      continue;
    }
    error(keyword.nameRange, "specialize(...) takes one keyword argument, "
                             "'exhaustive'; write specialize(x, 64, 128, "
                             "exhaustive = 1)");
    return;
  }
  if (iter.args.size() < 2) {
    error(iter.getRange(), "specialize(...) takes a value and the constants "
                           "to specialize it for, as in specialize(x, 64, "
                           "128)");
    return;
  }
  // The constants, each once, in order.
  SmallVector<int64_t> cases;
  for (size_t i = 1; i < iter.args.size(); ++i) {
    std::optional<int64_t> c =
        evalConstInt(*iter.args[i], "a value to specialize for");
    if (!c)
      return;
    if (!llvm::is_contained(cases, *c))
      cases.push_back(*c);
  }
  std::optional<int64_t> exhaustive =
      exhaustiveExpr ? evalConstInt(*exhaustiveExpr, "specialize's exhaustive")
                     : std::optional<int64_t>(0);
  if (!exhaustive)
    return;
  if (cases.size() + (*exhaustive ? 0 : 1) > kMaxSpecializations) {
    error(iter.getRange(), "specialize(...) copies its body " +
                               llvm::Twine(cases.size() + !*exhaustive) +
                               " times; at most " +
                               llvm::Twine(kMaxSpecializations));
    return;
  }
  const ForStmt::Var &var = stmt.vars.front();
  auto emitCopy = [&](Val value) {
    pushScope();
    declare(Symbol::Kind::LoopVar, var.name, var.range, value);
    emitStmts(stmt.body);
    popScope();
  };
  Val x = eval(*iter.args[0]);
  if (x.isError())
    return;
  if (x.isInt()) { // known at compile time: the one copy it selects
    emitCopy(x);
    return;
  }
  if (!x.isValue() || !x.type.isInteger(32)) {
    error(iter.args[0]->getRange(),
          "specialize(...) takes an i32 value, got " + describeVal(x));
    return;
  }
  SmallVector<Symbol *> carried;
  collectAssigned(stmt.body, carried);
  Location l = loc(stmt.getLoc());
  // Case i as `if x == c_i { copy } else { case i + 1 }`; past the last,
  // the copy with x itself, or with exhaustive the last constant's copy as
  // the final else.
  std::function<void(size_t)> emitCase = [&](size_t i) {
    bool last = *exhaustive && i + 1 == cases.size();
    if (i == cases.size() || last) {
      emitCopy(i == cases.size() ? x : Val::ofInt(cases[i]));
      return;
    }
    SmallVector<Value> inits = materializeCarried(carried, stmt.getRange());
    SmallVector<Type> types;
    for (Value v : inits)
      types.push_back(v.getType());
    SmallVector<Val> saved;
    for (Symbol *symbol : carried)
      saved.push_back(symbol->val);
    Value cond =
        arith::CmpIOp::create(builder, l, arith::CmpIPredicate::eq, x.value,
                              arith::ConstantIntOp::create(
                                  builder, l, builder.getI32Type(), cases[i]));
    auto ifOp = scf::IfOp::create(builder, l, types, cond, /*withElse=*/true);
    emitIfBranch(ifOp.thenBlock(), carried, inits, saved, stmt.getRange(), l,
                 [&] { emitCopy(Val::ofInt(cases[i])); });
    emitIfBranch(ifOp.elseBlock(), carried, inits, saved, stmt.getRange(), l,
                 [&] { emitCase(i + 1); });
    for (auto [symbol, result] : llvm::zip(carried, ifOp.getResults()))
      if (!symbol->val.isError())
        symbol->val = Val::of(result);
  };
  emitCase(0);
}

scf::ForOp Emitter::emitScfFor(const ForStmt &stmt, Value lb, Value ub,
                               Value step,
                               llvm::function_ref<void(Value)> bindVars) {
  if (lb.getType() != ub.getType() || lb.getType() != step.getType())
    return {}; // reported by evalI32
  SmallVector<Symbol *> carried;
  collectAssigned(stmt.body, carried);
  SmallVector<Value> inits = materializeCarried(carried, stmt.getRange());
  Location l = loc(stmt.getLoc());
  auto forOp = scf::ForOp::create(builder, l, lb, ub, step, inits);
  Block *body = forOp.getBody();
  eraseTerminator(body);
  {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToEnd(body);
    ++kernel->scfDepth;
    pushScope();
    bindVars(forOp.getInductionVar());
    for (auto [symbol, arg] : llvm::zip(carried, forOp.getRegionIterArgs())) {
      arg.setLoc(namedLoc(symbol->name, l));
      symbol->val = Val::of(arg);
    }
    emitStmts(stmt.body);
    SmallVector<Value> yields =
        yieldValues(carried, forOp.getRegionIterArgs(), stmt.getRange());
    scf::YieldOp::create(builder, l, yields);
    popScope();
    --kernel->scfDepth;
  }
  for (auto [symbol, result] : llvm::zip(carried, forOp.getResults()))
    if (!symbol->val.isError())
      symbol->val = Val::of(result);
  return forOp;
}

void Emitter::emitWhile(const WhileStmt &stmt) {
  SmallVector<Symbol *> carried;
  collectAssigned(stmt.body, carried);
  SmallVector<Value> inits = materializeCarried(carried, stmt.getRange());
  SmallVector<Type> types;
  for (Value v : inits)
    types.push_back(v.getType());
  Location l = loc(stmt.getLoc());
  SmallVector<Location> locs;
  for (Symbol *symbol : carried)
    locs.push_back(namedLoc(symbol->name, l));
  auto whileOp =
      scf::WhileOp::create(builder, l, TypeRange(types), ValueRange(inits),
                           ArrayRef<NamedAttribute>{});
  {
    OpBuilder::InsertionGuard guard(builder);
    ++kernel->scfDepth;
    Block *before = builder.createBlock(&whileOp.getBefore(), {}, types, locs);
    pushScope();
    for (auto [symbol, arg] : llvm::zip(carried, before->getArguments()))
      symbol->val = Val::of(arg);
    Value cond = evalI1(*stmt.cond, "a while condition");
    if (!cond)
      cond = arith::ConstantIntOp::create(builder, l, builder.getI1Type(), 0);
    scf::ConditionOp::create(builder, l, cond, before->getArguments());
    popScope();

    Block *after = builder.createBlock(&whileOp.getAfter(), {}, types, locs);
    pushScope();
    for (auto [symbol, arg] : llvm::zip(carried, after->getArguments()))
      symbol->val = Val::of(arg);
    emitStmts(stmt.body);
    SmallVector<Value> yields =
        yieldValues(carried, after->getArguments(), stmt.getRange());
    scf::YieldOp::create(builder, l, yields);
    popScope();
    --kernel->scfDepth;
  }
  for (auto [symbol, result] : llvm::zip(carried, whileOp.getResults()))
    if (!symbol->val.isError())
      symbol->val = Val::of(result);
}

void Emitter::emitIfBranch(Block *block, ArrayRef<Symbol *> carried,
                           ValueRange inits, ArrayRef<Val> saved,
                           llvm::SMRange range, Location l,
                           llvm::function_ref<void()> body) {
  eraseTerminator(block);
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToEnd(block);
  ++kernel->scfDepth;
  pushScope();
  body();
  SmallVector<Value> yields = yieldValues(carried, inits, range);
  scf::YieldOp::create(builder, l, yields);
  popScope();
  --kernel->scfDepth;
  for (auto [symbol, value] : llvm::zip(carried, saved))
    if (!symbol->val.isError())
      symbol->val = value;
}

void Emitter::emitIf(const IfStmt &stmt) {
  Val cond = eval(*stmt.cond);
  if (cond.isError()) {
    // Still check both branches.
    emitBlock(stmt.thenBlock);
    if (stmt.elseBlock)
      emitBlock(*stmt.elseBlock);
    return;
  }
  // A constant condition picks a branch at compile time (as `if constexpr`):
  // the other branch is not emitted, so it may use what only the other
  // configuration declares.
  if (cond.isBool()) {
    if (cond.intValue)
      emitBlock(stmt.thenBlock);
    else if (stmt.elseBlock)
      emitBlock(*stmt.elseBlock);
    return;
  }
  if (!cond.isValue() || !cond.type.isInteger(1)) {
    error(stmt.cond->getRange(), "a condition must be a boolean, got " +
                                     describeVal(cond) +
                                     (cond.isValue() && cond.type.isIntOrIndex()
                                          ? "; compare it, as in 'x != 0'"
                                          : ""));
    return;
  }
  SmallVector<Symbol *> carried;
  collectAssigned(stmt.thenBlock, carried);
  if (stmt.elseBlock) {
    SmallVector<Symbol *> elseCarried;
    collectAssigned(*stmt.elseBlock, elseCarried);
    for (Symbol *symbol : elseCarried)
      if (!llvm::is_contained(carried, symbol))
        carried.push_back(symbol);
  }
  SmallVector<Value> inits = materializeCarried(carried, stmt.getRange());
  SmallVector<Type> types;
  for (Value v : inits)
    types.push_back(v.getType());
  SmallVector<Val> saved;
  for (Symbol *symbol : carried)
    saved.push_back(symbol->val);
  Location l = loc(stmt.getLoc());
  bool withElse = stmt.elseBlock || !types.empty();
  auto ifOp = scf::IfOp::create(builder, l, types, cond.value, withElse);
  emitIfBranch(ifOp.thenBlock(), carried, inits, saved, stmt.getRange(), l,
               [&] { emitStmts(stmt.thenBlock); });
  if (withElse)
    emitIfBranch(ifOp.elseBlock(), carried, inits, saved, stmt.getRange(), l,
                 [&] {
                   if (stmt.elseBlock)
                     emitStmts(*stmt.elseBlock);
                 });
  for (auto [symbol, result] : llvm::zip(carried, ifOp.getResults()))
    if (!symbol->val.isError())
      symbol->val = Val::of(result);
}

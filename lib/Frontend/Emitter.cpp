//===- Emitter.cpp - files, kernels, statements and control flow ---------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//

#include "lib/Frontend/Emitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSwitch.h"

using namespace tilec::frontend;
using namespace mlir;

/// Statements an input may expand to (through unrolled loops) before the
/// emitter gives up: a bound on time and memory for any input.
static constexpr size_t kMaxStatements = 100000;
/// Iterations of one unrolled loop.
static constexpr int64_t kMaxUnroll = 1024;

Emitter::Emitter(MLIRContext &context, DiagnosticEngine &diag,
                 const FrontendOptions &options, llvm::StringRef filename,
                 ParamNoteMap &paramNotes)
    : context(context), diag(diag), options(options), filename(filename),
      paramNotes(paramNotes), builder(&context) {
  filenameAttr = StringAttr::get(&context, filename);
}

Location Emitter::loc(llvm::SMLoc l) {
  if (!l.isValid())
    return UnknownLoc::get(&context);
  auto [line, col] = diag.getSourceMgr().getLineAndColumn(l);
  return FileLineColLoc::get(filenameAttr, line, col);
}

Location Emitter::namedLoc(llvm::StringRef name, llvm::SMRange range) {
  return NameLoc::get(builder.getStringAttr(name), loc(range));
}

Location Emitter::namedLoc(llvm::StringRef name, Location l) {
  return NameLoc::get(builder.getStringAttr(name), l);
}

ParamNote tilec::frontend::makeParamNote(const Symbol &param) {
  std::string value =
      param.val.isInt() ? std::to_string(param.val.intValue) : std::string("?");
  if (param.overridden)
    return {param.defRange, param.name.str() + " is " + value +
                                ", set on the command line with -D " +
                                param.name.str() + "=" + value};
  // A const computed from -D params says which.
  std::string from;
  for (const Symbol *source : param.overriddenParams) {
    from += from.empty() ? ", computed from " : " and ";
    from +=
        "-D " + source->name.str() + "=" + std::to_string(source->val.intValue);
  }
  return {param.defRange, param.name.str() + " is " + value + from};
}

void tilec::frontend::noteParam(DiagnosticEngine &diag, const Symbol &param) {
  ParamNote note = makeParamNote(param);
  diag.note(note.range, note.message);
}

//===----------------------------------------------------------------------===//
// Names and scopes
//===----------------------------------------------------------------------===//

Symbol *Emitter::lookup(llvm::StringRef name) {
  for (auto it = scopes.rbegin(); it != scopes.rend(); ++it) {
    auto found = it->find(name);
    if (found != it->end())
      return found->second;
  }
  return nullptr;
}

Symbol *Emitter::declare(Symbol::Kind kind, llvm::StringRef name,
                         llvm::SMRange defRange, Val val) {
  Symbol &symbol = symbols.emplace_back();
  symbol.kind = kind;
  symbol.name = name;
  symbol.defRange = defRange;
  symbol.val = val;
  symbol.regionLevel = regionLevel;
  auto &scope = scopes.back();
  auto found = scope.find(name);
  if (found != scope.end()) {
    error(defRange, "'" + name + "' is already defined");
    note(found->second->defRange, "'" + name + "' was defined here");
    // Keep the first definition for later uses; the second one's symbol is
    // one that no name refers to.
    return &symbol;
  }
  // A name from the top of the file stays what it is: a param shadowed by a
  // local would no longer follow -D.
  if (scopes.size() > 1) {
    auto outer = scopes.front().find(name);
    if (outer != scopes.front().end()) {
      error(
          defRange,
          "'" + name + "' is already a " +
              (outer->second->kind == Symbol::Kind::Param ? "param" : "const") +
              " of the file; choose another name");
      note(outer->second->defRange, "'" + name + "' was defined here");
    }
  }
  scope[name] = &symbol;
  return &symbol;
}

static const llvm::StringRef kIdentityNames[] = {
    "cta_id",       "num_ctas", "cta_in_cluster", "cluster_id", "num_clusters",
    "warpgroup_id", "warp_id",  "lane_id",        "tid_in_wg",  "thread_id",
    "cta_x",        "cta_y",    "cta_z"};
static const llvm::StringRef kDTypeNames[] = {"f16",  "bf16", "f32", "f64",
                                              "e4m3", "e5m2", "i8",  "i16",
                                              "i32",  "i64",  "u8",  "u32"};

std::vector<llvm::StringRef> Emitter::visibleNames() {
  std::vector<llvm::StringRef> names;
  for (auto &scope : scopes)
    for (auto &entry : scope)
      names.push_back(entry.getKey());
  if (inKernelBody())
    names.insert(names.end(), std::begin(kIdentityNames),
                 std::end(kIdentityNames));
  names.insert(names.end(), std::begin(kDTypeNames), std::end(kDTypeNames));
  return names;
}

const NameExpr *Emitter::updatedVariable(const CallExpr &call) {
  if (auto *member = llvm::dyn_cast<MemberExpr>(call.callee.get())) {
    if (member->member == "advance")
      return llvm::dyn_cast<NameExpr>(member->base.get());
    return nullptr;
  }
  auto *callee = llvm::dyn_cast<NameExpr>(call.callee.get());
  if (!callee)
    return nullptr;
  if (callee->name != "gemm_async" && callee->name != "gemm_wait" &&
      callee->name != "tmem_wait")
    return nullptr;
  const Expr *first = call.args.empty() ? nullptr : call.args.front().get();
  for (const KeywordArg &keyword : call.keywords)
    if (keyword.name == "acc" || keyword.name == "value")
      first = keyword.value.get();
  return first ? llvm::dyn_cast<NameExpr>(first) : nullptr;
}

void Emitter::assignVariable(llvm::StringRef name, llvm::SMRange range,
                             Val val) {
  Symbol *symbol = lookup(name);
  if (!symbol)
    return; // reported by whoever evaluated the name
  if (symbol->kind != Symbol::Kind::Var) {
    static const char *const kinds[] = {
        "param",  "const",    "tensor dimension", "kernel argument",
        "buffer", "variable", "loop variable"};
    error(range, "cannot assign to '" + name + "': it is a " +
                     kinds[static_cast<int>(symbol->kind)] +
                     "; declare a variable with 'let'");
    note(symbol->defRange, "'" + name + "' is defined here");
    return;
  }
  if (symbol->regionLevel < regionLevel) {
    error(range, "cannot assign to '" + name + "' inside this " +
                     regionKinds[symbol->regionLevel] +
                     ": its new value cannot flow out of the region; declare "
                     "the variable inside it");
    note(symbol->defRange, "'" + name + "' is declared outside here");
    return;
  }
  if (val.isError() || symbol->val.isError()) {
    symbol->val = Val::error();
    return;
  }
  auto typeOf = [&](const Val &v) -> Type {
    switch (v.kind) {
    case Val::Kind::Int:
      return builder.getI32Type();
    case Val::Kind::Float:
      return builder.getF32Type();
    case Val::Kind::Bool:
      return builder.getI1Type();
    default:
      return v.type;
    }
  };
  if (val.isDType()) {
    error(range, "a type cannot be assigned to a variable");
    return;
  }
  Type oldType = typeOf(symbol->val), newType = typeOf(val);
  if (oldType != newType) {
    error(range, "cannot assign " + describeType(newType) + " to '" + name +
                     "', which holds " + describeType(oldType));
    note(symbol->defRange, "'" + name + "' is declared here");
    return;
  }
  symbol->val = val;
}

//===----------------------------------------------------------------------===//
// Files
//===----------------------------------------------------------------------===//

OwningOpRef<ModuleOp> Emitter::run(const Module &ast) {
  OwningOpRef<ModuleOp> module =
      ModuleOp::create(FileLineColLoc::get(filenameAttr, 1, 1));
  builder.setInsertionPointToEnd(module->getBody());
  pushScope();
  checkDefines(ast);
  llvm::StringMap<llvm::SMRange> kernelNames;
  for (const TopLevelItem &item : ast.items) {
    if (diag.tooManyErrors())
      break;
    if (item.kernel) {
      const KernelDecl &kernel = *item.kernel;
      if (!kernel.name.empty()) {
        auto [it, inserted] =
            kernelNames.try_emplace(kernel.name, kernel.nameRange);
        if (!inserted) {
          error(kernel.nameRange,
                "kernel '" + kernel.name + "' is already defined");
          note(it->second, "the first definition is here");
          continue;
        }
      }
      emitKernel(kernel);
      builder.setInsertionPointToEnd(module->getBody());
      continue;
    }
    if (auto *param = llvm::dyn_cast<ParamStmt>(item.stmt.get()))
      emitTopLevelParam(*param);
    else if (auto *assertStmt = llvm::dyn_cast<AssertStmt>(item.stmt.get()))
      emitAssert(*assertStmt);
  }
  popScope();
  if (diag.hadError())
    return nullptr;
  return module;
}

void Emitter::checkDefines(const Module &ast) {
  llvm::StringMap<const ParamStmt *> declared;
  std::vector<llvm::StringRef> paramNames;
  for (const TopLevelItem &item : ast.items)
    if (auto *param = llvm::dyn_cast_or_null<ParamStmt>(item.stmt.get())) {
      declared.try_emplace(param->name, param);
      if (param->isParam)
        paramNames.push_back(param->name);
    }
  for (const auto &[name, value] : options.defines) {
    std::string option = "-D " + name + "=" + std::to_string(value);
    auto found = declared.find(name);
    if (found == declared.end()) {
      diag.error("the spec has no param '" + name + "' to set with " + option +
                 didYouMean(name, paramNames));
      continue;
    }
    if (!found->second->isParam) {
      diag.error("'" + name + "' is a const, not a param: " + option +
                 " cannot set it");
      diag.note(found->second->nameRange,
                "declare it with 'param' to make it settable");
    }
  }
}

void Emitter::emitTopLevelParam(const ParamStmt &stmt) {
  Val value = eval(*stmt.value);
  llvm::SmallVector<const Symbol *, 2> deps;
  collectOverriddenParams(*stmt.value, deps);
  bool overridden = false;
  if (stmt.isParam) {
    auto define = options.defines.find(stmt.name.str());
    if (define != options.defines.end()) {
      value = Val::ofInt(define->second);
      overridden = true;
    } else if (!value.isError() && !value.isInt()) {
      error(stmt.value->getRange(),
            "a param is an integer (so that -D can set it), got " +
                describeVal(value) + "; use 'const' for other values");
      value = Val::error();
    }
  } else if (value.isValue()) {
    error(stmt.value->getRange(), "a const must be a compile-time value");
    noteRuntimeName(*stmt.value);
    value = Val::error();
  }
  Symbol *symbol =
      declare(stmt.isParam ? Symbol::Kind::Param : Symbol::Kind::Const,
              stmt.name, stmt.nameRange, value);
  symbol->overridden = overridden;
  if (overridden)
    symbol->overriddenParams.push_back(symbol);
  else
    symbol->overriddenParams = deps;
}

void Emitter::emitAssert(const AssertStmt &stmt) {
  Val cond = eval(*stmt.cond);
  if (cond.isError())
    return;
  if (!cond.isBool()) {
    error(stmt.cond->getRange(),
          cond.isValue() ? "assert checks a compile-time condition; this one "
                           "depends on values known only at run time"
                         : "assert needs a condition (true or false), got " +
                               describeVal(cond));
    if (cond.isValue())
      noteRuntimeName(*stmt.cond);
    return;
  }
  if (cond.intValue)
    return;
  error(stmt.cond->getRange(),
        "assertion failed" +
            (stmt.message.empty() ? std::string() : ": " + stmt.message));
  noteParamsIn(*stmt.cond);
}

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

static const llvm::StringRef kScalarArgTypes[] = {"i32", "i64", "f32"};

void Emitter::emitKernel(const KernelDecl &kernel) {
  pushScope();
  roles.clear();
  target.clear();
  targetClauseRange = {};
  numWarpgroups = 1;
  warpgroupsRange = {};
  clusterSize = 1;
  clusterShape = {1, 1, 1};
  gridPolicy = tile::GridPolicy::persistent;
  gridAxes = nullptr;

  // Arguments: global tensors bind their named dimensions.
  llvm::SmallVector<Type> argTypes;
  llvm::SmallVector<Location> argLocs;
  llvm::SmallVector<Symbol *> argSymbols;
  llvm::SmallVector<Symbol *> dimSymbols;
  std::vector<llvm::StringRef> fileNames;
  for (auto &entry : scopes.front())
    fileNames.push_back(entry.getKey());
  for (auto [argIndex, arg] : llvm::enumerate(kernel.args)) {
    Type type;
    if (arg.isGlobal) {
      const Expr *typeExpr = arg.type.get();
      auto *index = llvm::dyn_cast<IndexExpr>(typeExpr);
      if (!index) {
        if (!llvm::isa<ErrorExpr>(typeExpr))
          error(typeExpr->getRange(),
                "a global tensor has a shape: write 'global f16[M, K]'");
      } else {
        Type elementType = evalDType(*index->base, "the element type");
        llvm::SmallVector<int64_t> shape;
        bool ok = static_cast<bool>(elementType);
        for (auto [dimIndex, dim] : llvm::enumerate(index->items)) {
          auto *name = llvm::dyn_cast<NameExpr>(dim.get());
          Symbol *symbol = name ? lookup(name->name) : nullptr;
          if (name && (!symbol || symbol->kind == Symbol::Kind::Dim)) {
            // A runtime dimension: bound here, or the same as an earlier one.
            shape.push_back(ShapedType::kDynamic);
            if (symbol)
              continue;
            symbol = declare(Symbol::Kind::Dim, name->name, name->getRange(),
                             Val::error());
            symbol->argIndex = argIndex;
            symbol->dimIndex = dimIndex;
            symbol->argName = arg.name;
            dimSymbols.push_back(symbol);
            // A name one typo away from a param is most likely that param
            // (`BLK_KK`); short names like M, N, K are meant as dimensions.
            llvm::StringRef close = closestName(name->name, fileNames);
            if (!close.empty() && name->name.size() >= 3 &&
                (name->name.equals_insensitive(close) ||
                 name->name.edit_distance(close) <= 1))
              diag.warning(name->getRange(),
                           "'" + name->name +
                               "' is not a param, so it names a runtime "
                               "dimension of " +
                               arg.name + "; did you mean '" + close + "'?");
            continue;
          }
          std::optional<int64_t> size =
              evalConstInt(*dim, "a tensor dimension");
          if (!size) {
            ok = false;
            continue;
          }
          if (*size < 1 || *size > INT32_MAX) {
            error(dim->getRange(), "a tensor dimension must be 1 to " +
                                       llvm::Twine(INT32_MAX) + ", got " +
                                       llvm::Twine(*size));
            noteParamsIn(*dim);
            ok = false;
            continue;
          }
          shape.push_back(*size);
        }
        if (ok && (shape.empty() || shape.size() > 5)) {
          error(index->getRange(), "a global tensor has rank 1 to 5, got " +
                                       llvm::Twine(shape.size()));
          ok = false;
        }
        if (ok)
          type = tile::GlobalType::getChecked(
              [&] { return emitError(loc(typeExpr->getRange())); }, &context,
              ArrayRef<int64_t>(shape), elementType);
      }
    } else {
      auto *name = llvm::dyn_cast<NameExpr>(arg.type.get());
      Type scalar = name ? lookupDType(name->name) : Type();
      if (scalar && (scalar.isSignlessInteger(32) ||
                     scalar.isSignlessInteger(64) || scalar.isF32())) {
        type = scalar;
      } else if (llvm::isa<IndexExpr>(arg.type.get())) {
        std::string text(arg.type->getRange().Start.getPointer(),
                         arg.type->getRange().End.getPointer());
        error(arg.type->getRange(),
              "a tensor argument lives in global memory: write '" + arg.name +
                  ": global " + text + "'");
      } else if (!llvm::isa<ErrorExpr>(arg.type.get())) {
        std::string hint =
            name ? didYouMean(name->name, kScalarArgTypes) : std::string();
        error(arg.type->getRange(),
              "a kernel argument is a global tensor ('global f16[M, K]') or a "
              "scalar (i32, i64 or f32)" +
                  (scalar ? ", got " + Emitter::describeType(scalar)
                          : std::string()) +
                  hint);
      }
    }
    argTypes.push_back(type ? type : builder.getI32Type());
    argLocs.push_back(namedLoc(arg.name, arg.nameRange));
    argSymbols.push_back(
        declare(Symbol::Kind::Arg, arg.name, arg.nameRange, Val::error()));
  }

  emitKernelClauses(kernel, argTypes);

  std::string name = kernel.name.empty() ? "kernel" : kernel.name.str();
  // The argument names reach the bundle, so the runtime's messages name `A`.
  SmallVector<StringRef> argNames;
  for (const auto &arg : kernel.args)
    argNames.push_back(arg.name);
  auto kernelOp = tile::KernelOp::create(
      builder, loc(kernel.range), name, builder.getFunctionType(argTypes, {}),
      /*arg_attrs=*/nullptr, /*res_attrs=*/nullptr, target,
      static_cast<uint64_t>(numWarpgroups), clusterShape, gridPolicy, gridAxes,
      /*smem_bytes=*/nullptr, builder.getStrArrayAttr(argNames));

  OpBuilder::InsertionGuard guard(builder);
  kernelBody = builder.createBlock(&kernelOp.getBody(), {}, argTypes, argLocs);
  for (auto [symbol, arg] : llvm::zip(argSymbols, kernelBody->getArguments()))
    if (symbol->defRange.Start.isValid() && symbol->kind == Symbol::Kind::Arg)
      symbol->val = Val::of(arg);
  for (Symbol *dim : dimSymbols) {
    Value tensor = kernelBody->getArgument(dim->argIndex);
    if (!isa<tile::GlobalType>(tensor.getType()))
      continue;
    dim->val = Val::of(
        tile::DimOp::create(builder, namedLoc(dim->name, dim->defRange),
                            builder.getI32Type(), tensor, dim->dimIndex));
  }

  pushScope();
  emitStmts(kernel.body);
  popScope();

  kernelBody = nullptr;
  popScope();
}

static const llvm::StringRef kKernelClauses[] = {"target", "warpgroups",
                                                 "cluster", "grid"};
static const llvm::StringRef kTargets[] = {"sm_90a", "sm_100a"};

void Emitter::emitKernelClauses(const KernelDecl &kernel,
                                llvm::ArrayRef<Type> argTypes) {
  llvm::StringMap<llvm::SMRange> seen;
  std::string clauseTarget;
  bool haveGrid = false;
  for (const Clause &clause : kernel.clauses) {
    auto [it, inserted] = seen.try_emplace(clause.keyword, clause.getRange());
    if (!inserted) {
      error(clause.keywordRange, "'" + clause.keyword + "' is given twice");
      note(it->second, "first given here");
      continue;
    }
    const Expr &value = *clause.value;
    if (clause.keyword == "target") {
      if (std::optional<unsigned> choice =
              evalChoice(value, "target", kTargets)) {
        clauseTarget = kTargets[*choice].str();
        targetClauseRange = clause.getRange();
      }
    } else if (clause.keyword == "warpgroups") {
      if (std::optional<int64_t> n =
              evalConstInt(value, "the number of warpgroups")) {
        if (*n < 1 || *n > 8) {
          error(value.getRange(), "a kernel has 1 to 8 warpgroups (128 to "
                                  "1024 threads), got " +
                                      llvm::Twine(*n));
          noteParamsIn(value);
        } else {
          numWarpgroups = *n;
          warpgroupsRange = clause.getRange();
        }
      }
    } else if (clause.keyword == "cluster") {
      llvm::SmallVector<const Expr *, 3> dims;
      if (auto *tuple = llvm::dyn_cast<TupleExpr>(&value))
        for (const ExprPtr &e : tuple->elements)
          dims.push_back(e.get());
      else if (auto *list = llvm::dyn_cast<ListExpr>(&value))
        for (const ExprPtr &e : list->elements)
          dims.push_back(e.get());
      else
        dims.push_back(&value);
      if (dims.size() > 3) {
        error(value.getRange(), "a cluster has at most three dimensions, "
                                "as in 'cluster (2, 1, 1)'");
        continue;
      }
      llvm::SmallVector<int64_t, 3> shape;
      for (const Expr *dim : dims) {
        std::optional<int64_t> n = evalConstInt(*dim, "a cluster dimension");
        if (!n)
          break;
        if (*n < 1 || *n > 16) {
          error(dim->getRange(),
                "a cluster dimension must be 1 to 16, got " + llvm::Twine(*n));
          noteParamsIn(*dim);
          break;
        }
        shape.push_back(*n);
      }
      if (shape.size() != dims.size())
        continue;
      shape.resize(3, 1);
      int64_t size = shape[0] * shape[1] * shape[2];
      if (size > 16) {
        error(value.getRange(), "a cluster of " + llvm::Twine(size) +
                                    " CTAs is over the limit of 16");
        noteParamsIn(value);
        continue;
      }
      clusterShape = shape;
      clusterSize = size;
    } else if (clause.keyword == "grid") {
      haveGrid = true;
      if (auto *name = llvm::dyn_cast<NameExpr>(&value);
          name && name->name == "persistent") {
        gridPolicy = tile::GridPolicy::persistent;
        continue;
      }
      auto *call = llvm::dyn_cast<CallExpr>(&value);
      auto *callee =
          call ? llvm::dyn_cast<NameExpr>(call->callee.get()) : nullptr;
      if (!callee || callee->name != "fixed") {
        if (!llvm::isa<ErrorExpr>(value))
          error(value.getRange(),
                "a grid is 'persistent' (one CTA per SM, each looping over "
                "tiles) or 'fixed(x, y, z)' (one CTA per tile)");
        continue;
      }
      if (call->args.empty() || call->args.size() > 3 ||
          !call->keywords.empty()) {
        error(call->getRange(), "fixed(...) takes one to three grid axes");
        continue;
      }
      gridPolicy = tile::GridPolicy::fixed;
      llvm::SmallVector<Attribute, 3> axes;
      for (const ExprPtr &axis : call->args)
        if (Attribute attr = emitGridAxis(*axis))
          axes.push_back(attr);
      if (axes.size() != call->args.size())
        continue;
      while (axes.size() < 3)
        axes.push_back(tile::GridAxisAttr::get(&context, -1, 0, 1));
      gridAxes = ArrayAttr::get(&context, axes);
    } else {
      std::string hint = didYouMean(clause.keyword, kKernelClauses);
      error(clause.keywordRange,
            "unknown kernel clause '" + clause.keyword +
                "' (expected target, warpgroups, cluster or grid)" + hint);
    }
  }
  if (!options.target.empty()) {
    target = options.target;
    if (!clauseTarget.empty() && clauseTarget != target)
      error(targetClauseRange, "kernel '" + kernel.name + "' is written for " +
                                   clauseTarget + ", but the target is " +
                                   target + " (set with --target)");
  } else {
    target = clauseTarget.empty() ? "sm_90a" : clauseTarget;
  }
  if (!haveGrid && !kernel.headerError)
    error(kernel.nameRange,
          "kernel '" + kernel.name +
              "' needs a grid: 'grid persistent' (one CTA per SM, looping "
              "over tiles) or 'grid fixed(...)' (one CTA per tile)");
}

Attribute Emitter::emitGridAxis(const Expr &axis) {
  // A runtime dimension N alone: one CTA per element, ceildiv(N, 1).
  if (auto *name = llvm::dyn_cast<NameExpr>(&axis))
    if (Symbol *dim = lookup(name->name); dim && dim->kind == Symbol::Kind::Dim)
      return tile::GridAxisAttr::get(&context, dim->argIndex, dim->dimIndex, 1);
  // ceildiv(N, BLK_N) over a runtime dimension N.
  if (auto *call = llvm::dyn_cast<CallExpr>(&axis)) {
    auto *callee = llvm::dyn_cast<NameExpr>(call->callee.get());
    if (callee && callee->name == "ceildiv" && call->args.size() == 2 &&
        call->keywords.empty()) {
      auto *dimName = llvm::dyn_cast<NameExpr>(call->args[0].get());
      Symbol *dim = dimName ? lookup(dimName->name) : nullptr;
      if (dim && dim->kind == Symbol::Kind::Dim) {
        std::optional<int64_t> tile =
            evalConstInt(*call->args[1], "the tile size of a grid axis");
        if (!tile)
          return {};
        if (*tile < 1) {
          error(call->args[1]->getRange(),
                "the tile size of a grid axis must be positive, got " +
                    llvm::Twine(*tile));
          noteParamsIn(*call->args[1]);
          return {};
        }
        return tile::GridAxisAttr::get(&context, dim->argIndex, dim->dimIndex,
                                       *tile);
      }
    }
  }
  Val value = eval(axis);
  if (value.isError())
    return {};
  if (!value.isInt()) {
    error(axis.getRange(),
          "a grid axis is a constant or ceildiv(DIM, TILE) of a tensor "
          "dimension, as in 'ceildiv(N, BLK_N)'");
    return {};
  }
  if (value.intValue < 1 || value.intValue > INT32_MAX) {
    error(axis.getRange(),
          "a grid axis must be positive, got " + llvm::Twine(value.intValue));
    noteParamsIn(axis);
    return {};
  }
  return tile::GridAxisAttr::get(&context, -1, 0, value.intValue);
}

void Emitter::noteTarget() {
  if (targetClauseRange.isValid())
    note(targetClauseRange, "the kernel's target is set here");
  else if (!options.target.empty())
    diag.note("the target is " + target + ", set with --target");
  else
    diag.note("the target defaults to sm_90a; write 'target sm_100a' in the "
              "kernel header or pass --target=sm_100a");
}

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

void Emitter::emitStmt(const Stmt &stmt) {
  if (++emittedStmts > kMaxStatements) {
    if (!budgetExceeded)
      error(stmt.getRange(), "the unrolled loops expand to more than " +
                                 llvm::Twine(kMaxStatements) +
                                 " statements; unroll fewer iterations");
    budgetExceeded = true;
    return;
  }
  // The -D params behind this statement, for notes on verifier errors.
  llvm::SmallVector<const Symbol *, 2> params;
  auto collect = [&](const Expr *expr) {
    if (expr)
      collectOverriddenParams(*expr, params);
  };
  switch (stmt.getKind()) {
  case Stmt::Kind::Expr:
    collect(llvm::cast<ExprStmt>(stmt).expr.get());
    break;
  case Stmt::Kind::Let:
    collect(llvm::cast<LetStmt>(stmt).value.get());
    break;
  case Stmt::Kind::Smem:
  case Stmt::Kind::Tmem:
  case Stmt::Kind::Barrier: {
    auto &decl = llvm::cast<DeclStmt>(stmt);
    collect(decl.type.get());
    for (const Clause &clause : decl.clauses)
      collect(clause.value.get());
    break;
  }
  default:
    break;
  }
  if (!params.empty()) {
    auto &notes = paramNotes[stmt.getLoc().getPointer()];
    notes.clear();
    for (const Symbol *param : params)
      notes.push_back(makeParamNote(*param));
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
              target);
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
    std::optional<int64_t> n = evalConstInt(*ctaGroupExpr, "cta_group");
    if (!n)
      return;
    if (*n != 1 && *n != 2) {
      error(ctaGroupExpr->getRange(),
            "cta_group is 1 or 2, got " + llvm::Twine(*n));
      noteParamsIn(*ctaGroupExpr);
      return;
    }
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
        evalConstInt(*arrivalsExpr, "the number of arrivals");
    if (!n)
      return;
    if (*n < 1 || *n >= (1 << 20)) {
      error(arrivalsExpr->getRange(),
            "a barrier expects 1 to 1048575 arrivals per phase, got " +
                llvm::Twine(*n));
      noteParamsIn(*arrivalsExpr);
      return;
    }
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
        symbol->regionLevel == regionLevel && seen.insert(symbol).second)
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
    case Stmt::Kind::Let:
      locals.back().insert(llvm::cast<LetStmt>(*stmt).name);
      break;
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

static const llvm::StringRef kLoopIterators[] = {"range", "unroll", "tiles"};

void Emitter::emitFor(const ForStmt &stmt) {
  auto *call = llvm::dyn_cast<CallExpr>(stmt.iter.get());
  auto *callee = call ? llvm::dyn_cast<NameExpr>(call->callee.get()) : nullptr;
  if (callee && callee->name == "range")
    return emitRangeFor(stmt, *call);
  if (callee && callee->name == "unroll")
    return emitUnrollFor(stmt, *call);
  if (callee && callee->name == "tiles")
    return emitTilesFor(stmt, *call);
  if (llvm::isa<ErrorExpr>(stmt.iter.get()))
    return;
  std::string hint = callee ? didYouMean(callee->name, kLoopIterators) : "";
  error(callee ? callee->getRange() : stmt.iter->getRange(),
        "a for loop runs over range(...), unroll(...) or tiles(...)" + hint);
}

/// The bounds of range(...) and unroll(...): (stop), (start, stop) or
/// (start, stop, step).
static bool rangeArgs(Emitter &emitter, const ForStmt &stmt,
                      const CallExpr &call, llvm::StringRef name,
                      const Expr *&start, const Expr *&stop,
                      const Expr *&step) {
  if (stmt.vars.size() != 1) {
    emitter.error(stmt.vars[1].range,
                  name + "(...) gives one loop variable, not " +
                      llvm::Twine(stmt.vars.size()));
    return false;
  }
  if (!call.keywords.empty()) {
    emitter.error(call.keywords.front().nameRange,
                  name + "(...) takes no keyword arguments; write " + name +
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
  if (!rangeArgs(*this, stmt, iter, "range", startExpr, stopExpr, stepExpr))
    return;
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
  emitScfFor(stmt, lb, ub, step, [&](Value iv) {
    cast<BlockArgument>(iv).setLoc(namedLoc(var.name, var.range));
    declare(Symbol::Kind::LoopVar, var.name, var.range, Val::of(iv));
  });
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
    if (budgetExceeded || diag.tooManyErrors())
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

static const llvm::StringRef kTileWorkers[] = {"cta", "cluster"};

void Emitter::emitTilesFor(const ForStmt &stmt, const CallExpr &iter) {
  if (stmt.vars.size() != 2) {
    error(stmt.vars.front().range,
          "tiles(...) gives the two block indices of a tile: write "
          "'for (m_blk, n_blk) in tiles(...)'");
    return;
  }
  SmallVector<const Expr *> args;
  if (!bindArgs(iter, "tiles",
                {{"m", true},
                 {"n", true},
                 {"block", true},
                 {"group", false},
                 {"per", false}},
                args))
    return;
  Value m = evalI32(*args[0], "the number of rows");
  Value n = evalI32(*args[1], "the number of columns");
  llvm::SmallVector<int64_t, 2> block;
  llvm::SmallVector<const Expr *, 2> blockDims;
  if (auto *tuple = llvm::dyn_cast<TupleExpr>(args[2]))
    for (const ExprPtr &e : tuple->elements)
      blockDims.push_back(e.get());
  else if (auto *list = llvm::dyn_cast<ListExpr>(args[2]))
    for (const ExprPtr &e : list->elements)
      blockDims.push_back(e.get());
  if (blockDims.size() != 2) {
    error(args[2]->getRange(), "block is the tile's two sizes, as in "
                               "'block = (BLK_M, BLK_N)'");
    return;
  }
  for (const Expr *dim : blockDims) {
    std::optional<int64_t> size = evalConstInt(*dim, "a block size");
    if (!size)
      return;
    if (*size < 1 || *size > INT32_MAX) {
      error(dim->getRange(),
            "a block size must be positive, got " + llvm::Twine(*size));
      noteParamsIn(*dim);
      return;
    }
    block.push_back(*size);
  }
  int64_t group = 1;
  if (args[3]) {
    std::optional<int64_t> g = evalConstInt(*args[3], "the group size");
    if (!g)
      return;
    if (*g < 1 || *g > INT32_MAX) {
      error(args[3]->getRange(),
            "the group size must be positive, got " + llvm::Twine(*g));
      noteParamsIn(*args[3]);
      return;
    }
    group = *g;
  }
  bool perCluster = false;
  if (args[4]) {
    std::optional<unsigned> worker =
        evalChoice(*args[4], "worker", kTileWorkers);
    if (!worker)
      return;
    perCluster = *worker == 1;
  }
  if (!m || !n)
    return;
  Location l = loc(stmt.getLoc());
  Type i32 = builder.getI32Type();
  Value numTiles = tile::SchedNumTilesOp::create(builder, loc(iter.getLoc()),
                                                 i32, m, n, block);
  Value first = tile::IdOp::create(
      builder, l, i32, perCluster ? tile::IdKind::cluster : tile::IdKind::cta);
  Value stride = tile::IdOp::create(builder, l, i32,
                                    perCluster ? tile::IdKind::num_clusters
                                               : tile::IdKind::num_ctas);
  emitScfFor(stmt, first, numTiles, stride, [&](Value t) {
    cast<BlockArgument>(t).setLoc(namedLoc("tile", l));
    auto coords =
        tile::SchedCoordsOp::create(builder, loc(iter.getLoc()), i32, i32, t, m,
                                    n, block, static_cast<uint64_t>(group));
    declare(Symbol::Kind::LoopVar, stmt.vars[0].name, stmt.vars[0].range,
            Val::of(coords.getMBlock()));
    declare(Symbol::Kind::LoopVar, stmt.vars[1].name, stmt.vars[1].range,
            Val::of(coords.getNBlock()));
  });
}

void Emitter::emitScfFor(const ForStmt &stmt, Value lb, Value ub, Value step,
                         llvm::function_ref<void(Value)> bindVars) {
  if (lb.getType() != ub.getType() || lb.getType() != step.getType())
    return; // reported by evalI32
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
    ++scfDepth;
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
    --scfDepth;
  }
  for (auto [symbol, result] : llvm::zip(carried, forOp.getResults()))
    if (!symbol->val.isError())
      symbol->val = Val::of(result);
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
    ++scfDepth;
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
    --scfDepth;
  }
  for (auto [symbol, result] : llvm::zip(carried, whileOp.getResults()))
    if (!symbol->val.isError())
      symbol->val = Val::of(result);
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
  auto emitBranch = [&](Block *block, const ::tilec::frontend::Body *body) {
    eraseTerminator(block);
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToEnd(block);
    ++scfDepth;
    pushScope();
    if (body)
      emitStmts(*body);
    SmallVector<Value> yields = yieldValues(carried, inits, stmt.getRange());
    scf::YieldOp::create(builder, l, yields);
    popScope();
    --scfDepth;
    for (auto [symbol, value] : llvm::zip(carried, saved))
      if (!symbol->val.isError())
        symbol->val = value;
  };
  emitBranch(ifOp.thenBlock(), &stmt.thenBlock);
  if (withElse)
    emitBranch(ifOp.elseBlock(), stmt.elseBlock.get());
  for (auto [symbol, result] : llvm::zip(carried, ifOp.getResults()))
    if (!symbol->val.isError())
      symbol->val = Val::of(result);
}

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
  for (const RoleInfo &other : roles) {
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
    error(head, currentRole ? "roles do not nest: declare this role in the "
                              "kernel body, next to role '" +
                                  currentRole->name + "'"
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
      int64_t limit = isWarpgroup ? numWarpgroups : 4;
      if (value < 0 || value >= limit) {
        if (isWarpgroup) {
          error(expr->getRange(),
                "warpgroup " + llvm::Twine(value) +
                    " does not exist: the kernel has " +
                    llvm::Twine(numWarpgroups) + " warpgroup" +
                    (numWarpgroups == 1 ? "" : "s") + " (0 to " +
                    llvm::Twine(numWarpgroups - 1) + ")");
          if (warpgroupsRange.isValid())
            note(warpgroupsRange, "the kernel's warpgroups are set here");
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
    roles.push_back(info);
  Location l = loc(stmt.getLoc());
  auto warps = info.warps.empty()
                   ? DenseI64ArrayAttr()
                   : DenseI64ArrayAttr::get(&context, info.warps);
  auto regs = info.regs ? builder.getI64IntegerAttr(*info.regs) : IntegerAttr();
  auto roleOp = tile::RoleOp::create(builder, l, stmt.name, info.warpgroups,
                                     warps, singleThread, regs);
  OpBuilder::InsertionGuard guard(builder);
  builder.createBlock(&roleOp.getBody());
  ++regionLevel;
  regionKinds.push_back("role");
  currentRole = &stmt;
  pushScope();
  emitStmts(stmt.body);
  popScope();
  currentRole = nullptr;
  regionKinds.pop_back();
  --regionLevel;
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
  ++regionLevel;
  regionKinds.push_back("single_thread block");
  pushScope();
  emitStmts(stmt.body);
  popScope();
  regionKinds.pop_back();
  --regionLevel;
}

OwningOpRef<ModuleOp> tilec::frontend::emitModule(
    const Module &module, MLIRContext &context, DiagnosticEngine &diag,
    const tilec::FrontendOptions &options, llvm::StringRef filename,
    ParamNoteMap &paramNotes) {
  return Emitter(context, diag, options, filename, paramNotes).run(module);
}

//===- EmitKernel.cpp - files, params, kernels, kernel clauses, grid -----===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//
//
// A file is params, consts, asserts and kernels. A kernel's header (its
// arguments and its target / warpgroups / cluster / grid clauses) fills the
// KernelState that its body is then emitted with.
//
//===----------------------------------------------------------------------===//

#include "lib/Frontend/Emitter.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/SaveAndRestore.h"

using namespace tilec::frontend;
using namespace mlir;

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
      const KernelDecl &decl = *item.kernel;
      if (!decl.name.empty()) {
        auto [it, inserted] =
            kernelNames.try_emplace(decl.name, decl.nameRange);
        if (!inserted) {
          error(decl.nameRange,
                "kernel '" + decl.name + "' is already defined");
          note(it->second, "the first definition is here");
          continue;
        }
      }
      emitKernel(decl);
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
  std::vector<std::pair<llvm::StringRef, std::string>> given;
  for (const auto &[name, value] : options.defines)
    given.emplace_back(name, std::to_string(value));
  for (const auto &[name, value] : options.typeDefines)
    given.emplace_back(name, value);
  for (const auto &[name, value] : given) {
    std::string option = "-D " + name.str() + "=" + value;
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
    if (!value.isError() && !value.isInt() && !value.isDType()) {
      error(stmt.value->getRange(),
            "a param is an integer or an element type (so that -D can set "
            "it), got " +
                describeVal(value) + "; use 'const' for other values");
      value = Val::error();
    } else if (std::optional<Val> given = definedValue(stmt, value)) {
      value = *given;
      overridden = !value.isError();
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

std::optional<Val> Emitter::definedValue(const ParamStmt &stmt,
                                         const Val &declared) {
  std::string name = stmt.name.str();
  auto number = options.defines.find(name);
  auto type = options.typeDefines.find(name);
  if (number == options.defines.end() && type == options.typeDefines.end())
    return std::nullopt;
  std::string option =
      "-D " + name + "=" +
      (type != options.typeDefines.end() ? type->second
                                         : std::to_string(number->second));
  bool givesType = type != options.typeDefines.end();
  if (!declared.isError() && declared.isDType() != givesType) {
    error(stmt.nameRange,
          "param '" + name + "' is " +
              (declared.isDType() ? "an element type" : "an integer") +
              ", so " + option + " cannot set it");
    return Val::error();
  }
  if (!givesType)
    return Val::ofInt(number->second);
  if (Type t = lookupDType(type->second))
    return Val::dtype(t);
  error(stmt.nameRange, option + ": '" + type->second +
                            "' is not an element type (f16, bf16, f32, e4m3, "
                            "e5m2, i8, i32, ...)");
  return Val::error();
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

void Emitter::emitKernel(const KernelDecl &decl) {
  // This kernel's state, gone when it ends.
  KernelState state;
  llvm::SaveAndRestore<KernelState *> enterKernel(kernel, &state);
  pushScope();

  // Arguments: global tensors bind their named dimensions.
  llvm::SmallVector<Type> argTypes;
  llvm::SmallVector<Location> argLocs;
  llvm::SmallVector<Symbol *> argSymbols;
  llvm::SmallVector<Symbol *> dimSymbols;
  std::vector<llvm::StringRef> fileNames;
  for (auto &entry : scopes.front())
    fileNames.push_back(entry.getKey());
  for (auto [argIndex, arg] : llvm::enumerate(decl.args)) {
    Type type;
    if (arg.isGlobal) {
      const Expr *typeExpr = arg.type.get();
      // `list(CAPACITY, f16[G, M, K])`: up to CAPACITY tensors [M, K], G of
      // them at launch, each with its own tensor map.
      int64_t listCapacity = 0;
      bool listOk = true;
      if (auto *call = llvm::dyn_cast<CallExpr>(typeExpr)) {
        auto *callee = llvm::dyn_cast<NameExpr>(call->callee.get());
        if (!callee || callee->name != "list" || call->args.size() != 2 ||
            !call->keywords.empty()) {
          error(typeExpr->getRange(),
                "a global argument is a tensor ('global f16[M, K]') or a "
                "tensor list ('global list(CAPACITY, f16[G, M, K])')");
          typeExpr = nullptr;
        } else {
          std::optional<int64_t> capacity =
              evalConstInt(*call->args[0], "the capacity of a tensor list");
          if (capacity && (*capacity < 1 ||
                           *capacity > tilec::vocab::kMaxTensorListCapacity)) {
            error(call->args[0]->getRange(),
                  "a tensor list holds 1 to " +
                      llvm::Twine(tilec::vocab::kMaxTensorListCapacity) +
                      " tensors (their tensor maps travel in the kernel's "
                      "parameters), got " +
                      llvm::Twine(*capacity));
            noteParamsIn(*call->args[0]);
            capacity.reset();
          }
          listOk = capacity.has_value();
          listCapacity = capacity.value_or(1);
          typeExpr = call->args[1].get();
        }
      }
      auto *index = llvm::dyn_cast_or_null<IndexExpr>(typeExpr);
      if (!typeExpr) {
        // reported above
      } else if (!index) {
        if (!llvm::isa<ErrorExpr>(typeExpr))
          error(typeExpr->getRange(),
                listCapacity
                    ? "a tensor list's tensors have a shape, the list's length "
                      "first: write 'list(CAPACITY, f16[G, M, K])'"
                    : "a global tensor has a shape: write 'global f16[M, K]'");
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
            bool perListTensor = listCapacity && dimIndex > 0;
            if (symbol && symbol->perListTensor && !perListTensor) {
              // Named by a list's tensors first: this dim gives it a value.
              symbol->argIndex = argIndex;
              symbol->dimIndex = dimIndex;
              symbol->argName = arg.name;
              symbol->perListTensor = false;
            }
            if (symbol)
              continue;
            symbol = declare(Symbol::Kind::Dim, name->name, name->getRange(),
                             Val::error());
            symbol->argIndex = argIndex;
            symbol->dimIndex = dimIndex;
            symbol->argName = arg.name;
            // A list's tensors each have their own sizes: the name is
            // bound but has no value in the kernel (unless a later argument
            // names it too).
            symbol->perListTensor = perListTensor;
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
        if (ok && !listCapacity && (shape.empty() || shape.size() > 5)) {
          error(index->getRange(), "a global tensor has rank 1 to 5, got " +
                                       llvm::Twine(shape.size()));
          ok = false;
        }
        if (ok && listCapacity && (shape.size() < 3 || shape.size() > 5)) {
          error(index->getRange(),
                "a tensor list's shape is its length, then its tensors' "
                "dims (rank 2 to 4): 2 to 4 dims after the length, got " +
                    llvm::Twine(shape.size() - 1));
          ok = false;
        }
        if (ok && listOk)
          type = tile::GlobalType::getChecked(
              [&] { return emitError(loc(typeExpr->getRange())); }, &context,
              ArrayRef<int64_t>(shape), elementType, listCapacity);
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

  emitKernelClauses(decl, argTypes);
  // The kernel op's own errors (warpgroups, cluster) for its header.
  llvm::SmallVector<const Expr *, 4> clauseValues;
  for (const Clause &clause : decl.clauses)
    clauseValues.push_back(clause.value.get());
  recordParamNotes({decl.range.Start, decl.body.range.Start}, clauseValues);

  std::string name = decl.name.empty() ? "kernel" : decl.name.str();
  // The argument names reach the bundle, so the runtime's messages name `A`.
  SmallVector<StringRef> argNames;
  for (const auto &arg : decl.args)
    argNames.push_back(arg.name);
  auto kernelOp = tile::KernelOp::create(
      builder, loc(decl.range), name, builder.getFunctionType(argTypes, {}),
      /*arg_attrs=*/nullptr, /*res_attrs=*/nullptr,
      tile::symbolizeTarget(kernel->target).value_or(tile::Target::sm_90a),
      static_cast<uint64_t>(kernel->numWarpgroups), kernel->clusterShape,
      kernel->gridPolicy, kernel->gridAxes,
      /*smem_bytes=*/nullptr, builder.getStrArrayAttr(argNames));

  OpBuilder::InsertionGuard guard(builder);
  kernel->body =
      builder.createBlock(&kernelOp.getBody(), {}, argTypes, argLocs);
  for (auto [symbol, arg] : llvm::zip(argSymbols, kernel->body->getArguments()))
    if (symbol->defRange.Start.isValid() && symbol->kind == Symbol::Kind::Arg)
      symbol->val = Val::of(arg);
  for (Symbol *dim : dimSymbols) {
    Value tensor = kernel->body->getArgument(dim->argIndex);
    if (!isa<tile::GlobalType>(tensor.getType()) || dim->perListTensor)
      continue;
    dim->val = Val::of(
        tile::DimOp::create(builder, namedLoc(dim->name, dim->defRange),
                            builder.getI32Type(), tensor, dim->dimIndex));
  }

  pushScope();
  emitStmts(decl.body);
  popScope();
  popScope();
}

static const llvm::StringRef kKernelClauses[] = {"target", "warpgroups",
                                                 "cluster", "grid"};

void Emitter::emitKernelClauses(const KernelDecl &decl,
                                llvm::ArrayRef<Type> argTypes) {
  llvm::StringMap<llvm::SMRange> seen;
  std::string clauseTarget;
  bool haveGrid = false;
  for (const Clause &clause : decl.clauses) {
    auto [it, inserted] = seen.try_emplace(clause.keyword, clause.getRange());
    if (!inserted) {
      error(clause.keywordRange, "'" + clause.keyword + "' is given twice");
      note(it->second, "first given here");
      continue;
    }
    const Expr &value = *clause.value;
    if (clause.keyword == "target") {
      if (std::optional<unsigned> choice =
              evalChoice(value, "target", targetNames())) {
        clauseTarget = targetNames()[*choice].str();
        kernel->targetClauseRange = clause.getRange();
      }
    } else if (clause.keyword == "warpgroups") {
      if (std::optional<int64_t> n =
              evalConstUnsigned(value, "the number of warpgroups"))
        kernel->numWarpgroups = *n;
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
        // The verifier checks the sizes and their product; a size over 16
        // (over the limit whatever the others are) stops here so that the
        // product it computes cannot overflow.
        if (*n > 16) {
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
      kernel->clusterShape = shape;
    } else if (clause.keyword == "grid") {
      haveGrid = true;
      if (auto *name = llvm::dyn_cast<NameExpr>(&value);
          name && name->name == "persistent") {
        kernel->gridPolicy = tile::GridPolicy::persistent;
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
      kernel->gridPolicy = tile::GridPolicy::fixed;
      llvm::SmallVector<Attribute, 3> axes;
      for (const ExprPtr &axis : call->args)
        if (Attribute attr = emitGridAxis(*axis))
          axes.push_back(attr);
      if (axes.size() != call->args.size())
        continue;
      while (axes.size() < 3)
        axes.push_back(tile::GridAxisAttr::get(&context, -1, 0, 1));
      kernel->gridAxes = ArrayAttr::get(&context, axes);
    } else {
      std::string hint = didYouMean(clause.keyword, kKernelClauses);
      error(clause.keywordRange,
            "unknown kernel clause '" + clause.keyword +
                "' (expected target, warpgroups, cluster or grid)" + hint);
    }
  }
  if (!options.target.empty()) {
    kernel->target = options.target;
    if (!clauseTarget.empty() && clauseTarget != kernel->target)
      error(kernel->targetClauseRange,
            "kernel '" + decl.name + "' is written for " + clauseTarget +
                ", but the target is " + kernel->target +
                " (set with --target)");
  } else {
    kernel->target = clauseTarget.empty()
                         ? std::string(vocab::toString(vocab::kDefaultTarget))
                         : clauseTarget;
  }
  if (!haveGrid && !decl.headerError)
    error(decl.nameRange,
          "kernel '" + decl.name +
              "' needs a grid: 'grid persistent' (one CTA per SM, looping "
              "over tiles) or 'grid fixed(...)' (one CTA per tile)");
}

Attribute Emitter::emitGridAxis(const Expr &axis) {
  // A runtime dimension N alone: one CTA per element, ceildiv(N, 1).
  if (auto *name = llvm::dyn_cast<NameExpr>(&axis))
    if (Symbol *dim = lookup(name->name); dim && dim->kind == Symbol::Kind::Dim)
      return dim->perListTensor
                 ? (evalName(*name), Attribute()) // reports why not
                 : tile::GridAxisAttr::get(&context, dim->argIndex,
                                           dim->dimIndex, 1);
  // ceildiv(N, BLK_N) over a runtime dimension N.
  if (auto *call = llvm::dyn_cast<CallExpr>(&axis)) {
    auto *callee = llvm::dyn_cast<NameExpr>(call->callee.get());
    if (callee && callee->name == "ceildiv" && call->args.size() == 2 &&
        call->keywords.empty()) {
      auto *dimName = llvm::dyn_cast<NameExpr>(call->args[0].get());
      Symbol *dim = dimName ? lookup(dimName->name) : nullptr;
      if (dim && dim->kind == Symbol::Kind::Dim && dim->perListTensor) {
        evalName(*dimName); // reports why not
        return {};
      }
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
  if (kernel->targetClauseRange.isValid())
    note(kernel->targetClauseRange, "the kernel's target is set here");
  else if (!options.target.empty())
    diag.note("the target is " + kernel->target + ", set with --target");
  else
    diag.note("the target defaults to sm_90a; write 'target sm_100a' in the "
              "kernel header or pass --target=sm_100a");
}

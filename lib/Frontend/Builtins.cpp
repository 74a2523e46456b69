//===- Builtins.cpp - the builtin table, calls and argument binding ------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//
//
// Every builtin binds its arguments by position or by keyword (as in
// Python), checks them with messages in the DSL's terms, and builds one tile
// op. The table below is the only list of builtin names: the dispatch of
// calls and of for loops and the did-you-mean suggestions all read it.
//
//===----------------------------------------------------------------------===//

#include "lib/Frontend/Builtins.h"
#include "lib/Frontend/Emitter.h"

#include "llvm/ADT/STLExtras.h"

#include <vector>

using namespace tilec::frontend;

llvm::ArrayRef<Builtin> tilec::frontend::getBuiltins() {
  using Kind = BuiltinKind;
  // Each row: name, kind, needs a kernel body, handler(s).
  static const Builtin kBuiltins[] = {
      {"copy_async", Kind::Statement, true, &Emitter::emitCopyAsync},
      {"gemm_async", Kind::Statement, true, &Emitter::emitGemmAsync, nullptr,
       /*updatesFirstArg=*/true},
      {"gemm_commit", Kind::Statement, true, &Emitter::emitGemmCommit},
      {"gemm_wait", Kind::Statement, true, &Emitter::emitGemmWait, nullptr,
       /*updatesFirstArg=*/true},
      {"bulk_commit", Kind::Statement, true, &Emitter::emitBulkCommit},
      {"bulk_wait", Kind::Statement, true, &Emitter::emitBulkWait},
      {"store", Kind::Statement, true, &Emitter::emitStore},
      {"tmem_wait", Kind::Statement, true, &Emitter::emitTmemWait, nullptr,
       /*updatesFirstArg=*/true},
      {"sync", Kind::Statement, true, &Emitter::emitSync},
      {"fence", Kind::Statement, true, &Emitter::emitFence},
      {"pipeline", Kind::Expression, true, &Emitter::emitPipeline},
      {"zeros", Kind::Expression, true, &Emitter::emitZeros},
      {"undef", Kind::Expression, true, &Emitter::emitZeros},
      {"index", Kind::Expression, true, &Emitter::emitZeros},
      {"tmem_load", Kind::Expression, true, &Emitter::emitTmemLoad},
      {"load", Kind::Expression, true, &Emitter::emitLoad},
      {"peer", Kind::Expression, true, &Emitter::emitPeer},
      {"atomic_add", Kind::Expression, true, &Emitter::emitAtomic, nullptr,
       false, nullptr, /*valueOptional=*/true},
      {"atomic_max", Kind::Expression, true, &Emitter::emitAtomic, nullptr,
       false, nullptr, /*valueOptional=*/true},
      {"atomic_min", Kind::Expression, true, &Emitter::emitAtomic, nullptr,
       false, nullptr, /*valueOptional=*/true},
      {"atomic_exch", Kind::Expression, true, &Emitter::emitAtomic, nullptr,
       false, nullptr, /*valueOptional=*/true},
      // Fragment math.
      {"abs", Kind::Expression, true, &Emitter::emitAbs},
      {"exp2", Kind::Expression, true, &Emitter::emitExp2},
      {"exp", Kind::Expression, true, &Emitter::emitExp},
      {"rsqrt", Kind::Expression, true, &Emitter::emitRsqrt},
      {"rcp", Kind::Expression, true, &Emitter::emitRcp},
      {"relu", Kind::Expression, true, &Emitter::emitRelu},
      {"silu", Kind::Expression, true, &Emitter::emitActivation},
      {"gelu", Kind::Expression, true, &Emitter::emitActivation},
      {"fma", Kind::Expression, true, &Emitter::emitFma},
      {"select", Kind::Expression, true, &Emitter::emitSelect},
      {"sum", Kind::Expression, true, &Emitter::emitSum},
      {"insert", Kind::Expression, true, &Emitter::emitInsert},
      // These fold when their arguments are constants, so params and kernel
      // headers may use them too.
      {"cast", Kind::Expression, false, &Emitter::emitCast},
      {"ceildiv", Kind::Expression, false, &Emitter::emitCeilDiv},
      {"min", Kind::Expression, false, &Emitter::emitMin},
      {"max", Kind::Expression, false, &Emitter::emitMax},
      {"sizeof", Kind::Expression, false, &Emitter::emitSizeof},
      // What a for loop runs over.
      {"range", Kind::ForIterator, true, nullptr, &Emitter::emitRangeFor},
      {"unroll", Kind::ForIterator, true, nullptr, &Emitter::emitUnrollFor},
      {"specialize", Kind::ForIterator, true, nullptr,
       &Emitter::emitSpecializeFor},
      {"tiles", Kind::ForIterator, true, nullptr, &Emitter::emitTilesFor},
      {"persistent", Kind::ForIterator, true, nullptr,
       &Emitter::emitPersistentFor},
      // Gives several values (`let (a, b) = ...`).
      {"tile_coords", Kind::Values, true, nullptr, nullptr, false,
       &Emitter::emitTileCoords},
  };
  return kBuiltins;
}

const Builtin *tilec::frontend::findBuiltin(llvm::StringRef name) {
  for (const Builtin &builtin : getBuiltins())
    if (builtin.name == name)
      return &builtin;
  return nullptr;
}

/// The names of the builtins `keep` accepts, in table order.
static std::vector<llvm::StringRef>
builtinNamesWhere(llvm::function_ref<bool(const Builtin &)> keep) {
  std::vector<llvm::StringRef> names;
  for (const Builtin &builtin : getBuiltins())
    if (keep(builtin))
      names.push_back(builtin.name);
  return names;
}

llvm::ArrayRef<llvm::StringRef> tilec::frontend::getBuiltinNames() {
  static const std::vector<llvm::StringRef> names =
      builtinNamesWhere([](const Builtin &) { return true; });
  return names;
}

llvm::ArrayRef<llvm::StringRef> tilec::frontend::getForIteratorNames() {
  static const std::vector<llvm::StringRef> names =
      builtinNamesWhere([](const Builtin &builtin) {
        return builtin.kind == BuiltinKind::ForIterator;
      });
  return names;
}

std::string tilec::frontend::describeBuiltins(BuiltinKind kind) {
  std::vector<llvm::StringRef> names = builtinNamesWhere(
      [&](const Builtin &builtin) { return builtin.kind == kind; });
  std::string text;
  for (auto [i, name] : llvm::enumerate(names))
    text += (i == 0                  ? ""
             : i + 1 == names.size() ? " or "
                                     : ", ") +
            name.str() + "(...)";
  return text;
}

Val Emitter::evalCall(const CallExpr &call, bool isStatement) {
  if (auto *member = llvm::dyn_cast<MemberExpr>(call.callee.get()))
    return emitMethod(call, *member, isStatement);
  auto *callee = llvm::dyn_cast<NameExpr>(call.callee.get());
  if (!callee) {
    if (!llvm::isa<ErrorExpr>(call.callee.get()))
      error(call.callee->getRange(),
            "only builtins (copy_async, ...) and methods (full.wait, ...) can "
            "be called");
    return Val::error();
  }
  llvm::StringRef name = callee->name;
  const Builtin *builtin = findBuiltin(name);
  // Loop iterators and builtins of several values are no expressions.
  if (builtin && (builtin->kind == BuiltinKind::ForIterator ||
                  builtin->kind == BuiltinKind::Values)) {
    bool isLoop = builtin->kind == BuiltinKind::ForIterator;
    error(callee->getRange(),
          name +
              (isLoop ? "(...) is only used in a for loop, as in 'for i in "
                      : "(...) gives several values; unpack them, as in "
                        "'let (a, b) = ") +
              name + "(...)'");
    return Val::error();
  }
  if (!builtin) {
    llvm::StringRef close = closestName(name, getBuiltinNames());
    if (!close.empty())
      diag.errorWithFixIt(callee->getRange(),
                          "unknown function '" + name + "'; did you mean '" +
                              close + "'?",
                          close);
    else
      error(callee->getRange(), "unknown function '" + name + "'");
    return Val::error();
  }
  if (builtin->needsKernel && !inKernelBody()) {
    error(callee->getRange(),
          name + "(...) can only be used inside a kernel body");
    return Val::error();
  }
  bool givesNoValue = builtin->kind == BuiltinKind::Statement;
  if (givesNoValue && !isStatement) {
    error(callee->getRange(), name + "(...) is a statement: it gives no value");
    return Val::error();
  }
  Val result = (this->*builtin->emitCall)(call);
  if (!givesNoValue && isStatement && !result.isError() &&
      !builtin->valueOptional)
    error(call.getRange(), "the value of " + name +
                               "(...) is not used; bind it with 'let name = "
                               "...'");
  return result;
}

bool Emitter::evalCallValues(const CallExpr &call,
                             llvm::SmallVectorImpl<Val> &values) {
  auto *callee = llvm::dyn_cast<NameExpr>(call.callee.get());
  const Builtin *builtin = callee ? findBuiltin(callee->name) : nullptr;
  if (!builtin || builtin->kind != BuiltinKind::Values) {
    // Not a builtin of several values: evaluate it as one, so that it reports
    // its own errors, and say what the let wanted.
    if (evalCall(call, /*isStatement=*/false).isError())
      return false;
    error(call.getRange(), "'let (...)' unpacks the values of " +
                               describeBuiltins(BuiltinKind::Values) +
                               "; this call gives one value");
    return false;
  }
  if (builtin->needsKernel && !inKernelBody()) {
    error(callee->getRange(),
          callee->name + "(...) can only be used inside a kernel body");
    return false;
  }
  return (this->*builtin->emitValues)(call, values);
}

bool Emitter::bindArgs(const CallExpr &call, llvm::StringRef callee,
                       llvm::ArrayRef<ArgSpec> specs,
                       llvm::SmallVectorImpl<const Expr *> &out) {
  out.assign(specs.size(), nullptr);
  std::string signature = callee.str() + "(";
  std::vector<llvm::StringRef> names;
  for (const ArgSpec &spec : specs) {
    if (!names.empty())
      signature += ", ";
    signature += spec.name.str();
    names.push_back(spec.name);
  }
  signature += ")";
  bool ok = true;
  if (call.args.size() > specs.size()) {
    error(call.args[specs.size()]->getRange(),
          "too many arguments: " + signature + " takes " +
              llvm::Twine(specs.size()));
    ok = false;
  }
  for (size_t i = 0; i < std::min(call.args.size(), specs.size()); ++i)
    out[i] = call.args[i].get();
  for (const KeywordArg &keyword : call.keywords) {
    auto it = llvm::find(names, keyword.name);
    if (it == names.end()) {
      llvm::StringRef close = closestName(keyword.name, names);
      std::string message =
          "unknown argument '" + keyword.name.str() + "' of " + signature;
      if (!close.empty())
        diag.errorWithFixIt(keyword.nameRange,
                            message + "; did you mean '" + close.str() + "'?",
                            close);
      else
        error(keyword.nameRange, message);
      ok = false;
      continue;
    }
    size_t index = it - names.begin();
    if (out[index]) {
      error(keyword.nameRange,
            "argument '" + keyword.name + "' is given twice");
      ok = false;
      continue;
    }
    out[index] = keyword.value.get();
  }
  for (auto [spec, arg] : llvm::zip(specs, out))
    if (spec.required && !arg) {
      error(closingParen(call),
            "missing argument '" + spec.name + "' of " + signature);
      ok = false;
    }
  // An argument the parser could not read was reported already.
  for (const Expr *arg : out)
    if (arg && llvm::isa<ErrorExpr>(arg))
      ok = false;
  return ok;
}

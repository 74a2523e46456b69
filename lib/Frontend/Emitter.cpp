//===- Emitter.cpp - locations, param notes, names and scopes ------------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//

#include "lib/Frontend/Emitter.h"

using namespace tilec::frontend;
using namespace mlir;

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

/// A param's value as -D writes it: a number or an element type's name.
static std::string paramValueText(const Val &val) {
  if (val.isInt())
    return std::to_string(val.intValue);
  if (val.isDType())
    return tile::getElementTypeName(val.type);
  return "?";
}

ParamNote tilec::frontend::makeParamNote(const Symbol &param) {
  std::string value = paramValueText(param.val);
  if (param.overridden)
    return {param.defRange, param.name.str() + " is " + value +
                                ", set on the command line with -D " +
                                param.name.str() + "=" + value};
  // A const computed from -D params says which.
  std::string from;
  for (const Symbol *source : param.overriddenParams) {
    from += from.empty() ? ", computed from " : " and ";
    from += "-D " + source->name.str() + "=" + paramValueText(source->val);
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
  symbol.regionLevel = regionLevel();
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

const NameExpr *Emitter::updatedVariable(const CallExpr &call) {
  if (auto *member = llvm::dyn_cast<MemberExpr>(call.callee.get())) {
    if (member->member == "advance")
      return llvm::dyn_cast<NameExpr>(member->base.get());
    return nullptr;
  }
  auto *callee = llvm::dyn_cast<NameExpr>(call.callee.get());
  if (!callee)
    return nullptr;
  const Builtin *builtin = findBuiltin(callee->name);
  if (!builtin || !builtin->updatesFirstArg)
    return nullptr;
  // The first argument, by position or as `acc =` / `value =`.
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
  if (symbol->regionLevel < regionLevel()) {
    error(range, "cannot assign to '" + name + "' inside this " +
                     kernel->regionKinds[symbol->regionLevel] +
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

OwningOpRef<ModuleOp> tilec::frontend::emitModule(
    const Module &module, MLIRContext &context, DiagnosticEngine &diag,
    const tilec::FrontendOptions &options, llvm::StringRef filename,
    ParamNoteMap &paramNotes) {
  return Emitter(context, diag, options, filename, paramNotes).run(module);
}

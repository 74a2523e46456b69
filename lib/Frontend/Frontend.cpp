//===- Frontend.cpp - the tile DSL front end: .tile -> tile dialect ------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//

#include "lib/Frontend/Frontend.h"

#include "lib/Frontend/Diagnostics.h"
#include "lib/Frontend/Emitter.h"
#include "lib/Frontend/Parser.h"

#include "dialects/Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace tilec;
using namespace tilec::frontend;

namespace {
/// Prints MLIR diagnostics (type and op verifiers) through the front end's
/// engine, at the .tile location of the op, with the notes the front end
/// knows for that place (the -D params the statement uses).
class MlirDiagnosticBridge {
public:
  MlirDiagnosticBridge(mlir::MLIRContext &context, DiagnosticEngine &diag,
                       unsigned bufferID, const ParamNoteMap &paramNotes)
      : diag(diag), bufferID(bufferID), paramNotes(paramNotes),
        handler(&context, [this](mlir::Diagnostic &d) {
          report(d);
          return mlir::success();
        }) {}

private:
  llvm::SMLoc toSMLoc(mlir::Location loc) {
    auto fileLoc = loc->findInstanceOf<mlir::FileLineColLoc>();
    llvm::SourceMgr &sourceMgr = diag.getSourceMgr();
    if (!fileLoc ||
        fileLoc.getFilename() !=
            sourceMgr.getMemoryBuffer(bufferID)->getBufferIdentifier())
      return {};
    return sourceMgr.FindLocForLineAndColumn(bufferID, fileLoc.getLine(),
                                             fileLoc.getColumn());
  }

  void report(mlir::Diagnostic &d) {
    llvm::SMLoc loc = toSMLoc(d.getLocation());
    std::string message = d.str();
    switch (d.getSeverity()) {
    case mlir::DiagnosticSeverity::Error:
      if (loc.isValid())
        diag.error({loc, loc}, message);
      else
        diag.error(message);
      break;
    case mlir::DiagnosticSeverity::Warning:
      diag.warning({loc, loc}, message);
      break;
    case mlir::DiagnosticSeverity::Note:
    case mlir::DiagnosticSeverity::Remark:
      if (loc.isValid())
        diag.note({loc, loc}, message);
      else
        diag.note(message);
      break;
    }
    for (mlir::Diagnostic &note : d.getNotes()) {
      llvm::SMLoc noteLoc = toSMLoc(note.getLocation());
      if (noteLoc.isValid())
        diag.note({noteLoc, noteLoc}, note.str());
      else
        diag.note(note.str());
    }
    if (d.getSeverity() != mlir::DiagnosticSeverity::Error || !loc.isValid())
      return;
    if (const StatementParamNotes *notes = findParamNotes(paramNotes, loc))
      for (const ParamNote &note : notes->notes)
        diag.note(note.range, note.message);
  }

  DiagnosticEngine &diag;
  unsigned bufferID;
  const ParamNoteMap &paramNotes;
  mlir::ScopedDiagnosticHandler handler;
};

/// Restores the context's "print the op on a diagnostic" flag: a DSL user
/// gets the .tile line, not the generic form of the op.
class PrintOpOnDiagnosticGuard {
public:
  explicit PrintOpOnDiagnosticGuard(mlir::MLIRContext &context)
      : context(context), saved(context.shouldPrintOpOnDiagnostic()) {
    context.printOpOnDiagnostic(false);
  }
  ~PrintOpOnDiagnosticGuard() { context.printOpOnDiagnostic(saved); }

private:
  mlir::MLIRContext &context;
  bool saved;
};
} // namespace

mlir::OwningOpRef<mlir::ModuleOp>
tilec::parseTileSpec(llvm::SourceMgr &sourceMgr, mlir::MLIRContext &context,
                     const FrontendOptions &options) {
  context.loadDialect<mlir::tile::TileDialect, mlir::arith::ArithDialect,
                      mlir::scf::SCFDialect>();
  llvm::raw_ostream &os =
      options.diagnosticStream ? *options.diagnosticStream : llvm::errs();
  DiagnosticEngine diag(sourceMgr, os, std::max(1u, options.errorLimit));
  unsigned bufferID = sourceMgr.getMainFileID();
  if (bufferID == 0 || bufferID > sourceMgr.getNumBuffers()) {
    diag.error("no input buffer to parse");
    return nullptr;
  }
  if (!options.target.empty() &&
      !llvm::is_contained(targetNames(), options.target)) {
    diag.error("unknown target '" + options.target + "' (expected " +
               joinChoices(targetNames()) + ")" +
               didYouMean(options.target, targetNames()));
    return nullptr;
  }
  const llvm::MemoryBuffer *buffer = sourceMgr.getMemoryBuffer(bufferID);
  ParamNoteMap paramNotes;
  PrintOpOnDiagnosticGuard printGuard(context);
  MlirDiagnosticBridge bridge(context, diag, bufferID, paramNotes);

  Module ast = parseModule(buffer->getBuffer(), diag);
  if (diag.tooManyErrors())
    return nullptr;
  mlir::OwningOpRef<mlir::ModuleOp> module = emitModule(
      ast, context, diag, options, buffer->getBufferIdentifier(), paramNotes);
  if (!module || diag.hadError())
    return nullptr;
  if (options.verify && mlir::failed(mlir::verify(*module)))
    return nullptr;
  if (diag.hadError())
    return nullptr;
  return module;
}

bool tilec::parseDefine(llvm::StringRef text, FrontendOptions &options,
                        std::string &error) {
  auto [name, value] = text.split('=');
  name = name.trim();
  value = value.trim();
  auto isIdent = [](llvm::StringRef s) {
    if (s.empty() ||
        !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_'))
      return false;
    return llvm::all_of(s, [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    });
  };
  if (!isIdent(name)) {
    error = "-D takes NAME=VALUE, as in -D BLK_N=128; got '" + text.str() + "'";
    return false;
  }
  if (!text.contains('=')) {
    error =
        "-D " + name.str() + " needs a value, as in -D " + name.str() + "=128";
    return false;
  }
  int64_t parsed = 0;
  if (!value.getAsInteger(0, parsed)) {
    options.defines[name.str()] = parsed;
    options.typeDefines.erase(name.str());
    return true;
  }
  // A name sets a param that is an element type; the front end checks that
  // the param is one and that the name is a type.
  if (!isIdent(value)) {
    error = "-D " + name.str() + "=" + value.str() +
            ": the value must be an integer or an element type name";
    return false;
  }
  options.typeDefines[name.str()] = value.str();
  options.defines.erase(name.str());
  return true;
}

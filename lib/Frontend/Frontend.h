//===- Frontend.h - the tile DSL front end: .tile -> tile dialect -*- C++ -*-=//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//
//
// The public entry point of lib/Frontend. A driver loads a .tile file into a
// llvm::SourceMgr and calls parseTileSpec:
//
//   llvm::SourceMgr sourceMgr;
//   sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
//   tilec::FrontendOptions options;
//   options.target = "sm_100a";         // or "" for the spec's own choice
//   options.defines["BLK_N"] = 128;     // -D BLK_N=128
//   mlir::OwningOpRef<mlir::ModuleOp> module =
//       tilec::parseTileSpec(sourceMgr, context, options);
//   if (!module)
//     return 1; // the errors have been printed
//
// Every op in the module carries a FileLineColLoc into the .tile buffer, so a
// mlir::SourceMgrDiagnosticHandler over the same SourceMgr prints later pass
// errors at the right line and column of the spec.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_FRONTEND_FRONTEND_H
#define TILEC_LIB_FRONTEND_FRONTEND_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <map>
#include <string>

namespace tilec {

struct FrontendOptions {
  /// The GPU target, "sm_90a" or "sm_100a". Empty: each kernel's `target`
  /// clause, or sm_90a for a kernel without one. A target given here that
  /// differs from a kernel's `target` clause is an error.
  std::string target;
  /// `-D NAME=VALUE`: replaces the value of `param NAME` in the spec. Naming
  /// a param the spec does not declare is an error.
  std::map<std::string, int64_t> defines;
  /// `-D NAME=TYPE` (an element type name such as f32): replaces the value
  /// of a param whose value is an element type (`param OUT = bf16`).
  std::map<std::string, std::string> typeDefines;
  /// Where diagnostics are printed; null means llvm::errs().
  llvm::raw_ostream *diagnosticStream = nullptr;
  /// Errors printed before the front end stops ("too many errors").
  unsigned errorLimit = 20;
  /// Run the MLIR verifier on the result (errors are reported at the .tile
  /// locations).
  bool verify = true;
};

/// Parses the main buffer of `sourceMgr` as a tile spec and builds the tile
/// dialect for its kernels. Loads the tile, arith and scf dialects into
/// `context`. On error, prints clang-style diagnostics
/// (`file:line:col: error: message`, the source line, a caret, notes) and
/// returns null.
mlir::OwningOpRef<mlir::ModuleOp> parseTileSpec(llvm::SourceMgr &sourceMgr,
                                                mlir::MLIRContext &context,
                                                const FrontendOptions &options);

/// Parses a `-D` argument, "NAME=VALUE" (VALUE: a decimal or 0x integer,
/// optionally negative, into `options.defines`; or a name, for a param that
/// is an element type, into `options.typeDefines`). Returns false and sets
/// `error` when it is malformed.
bool parseDefine(llvm::StringRef text, FrontendOptions &options,
                 std::string &error);

} // namespace tilec

#endif // TILEC_LIB_FRONTEND_FRONTEND_H

//===- Parser.h - recursive-descent parser of the tile DSL ------*- C++ -*-===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_FRONTEND_PARSER_H
#define TILEC_LIB_FRONTEND_PARSER_H

#include "lib/Frontend/AST.h"
#include "lib/Frontend/Diagnostics.h"

namespace tilec::frontend {

/// How deep expressions and blocks may nest; deeper input is reported, not
/// followed, so that no input can exhaust the stack.
constexpr unsigned kMaxNestingDepth = 100;
/// How tall an expression tree may grow (`a + b + ...` grows one level per
/// operator).
constexpr unsigned kMaxExpressionHeight = 256;

/// Parses a whole file. Errors are reported to `diag`; the parser recovers at
/// the next statement, so one run reports several errors. The tree it
/// returns is complete enough for the emitter to report further (semantic)
/// errors.
Module parseModule(llvm::StringRef buffer, DiagnosticEngine &diag);

} // namespace tilec::frontend

#endif // TILEC_LIB_FRONTEND_PARSER_H

//===- Diagnostics.h - clang-style diagnostics for the tile DSL -*- C++ -*-===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//
//
// Every message the front end reports goes through DiagnosticEngine and is
// printed by llvm::SourceMgr in clang's format:
//
//   gemm.tile:12:7: error: unknown name 'tma_sp'; did you mean 'tma_ps'?
//       copy_async(Asmem[tma_sp.stage], ...)
//                        ^~~~~~
//
// followed by notes for related places. After `errorLimit` errors the engine
// prints one last error and swallows the rest, so that a bad input cannot
// flood the terminal (or slow the fuzzer down).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_FRONTEND_DIAGNOSTICS_H
#define TILEC_LIB_FRONTEND_DIAGNOSTICS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/SMLoc.h"
#include "llvm/Support/SourceMgr.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tilec::frontend {

class DiagnosticEngine {
public:
  DiagnosticEngine(llvm::SourceMgr &sourceMgr, llvm::raw_ostream &os,
                   unsigned errorLimit);
  /// Prints what is left.
  ~DiagnosticEngine();

  /// Prints the diagnostics collected so far in source order (each with its
  /// notes): the parser and the emitter find errors in different passes, but
  /// the user reads them top to bottom.
  void flush();

  /// An error with a caret at the start of `range` and `~` under the rest.
  void error(llvm::SMRange range, const llvm::Twine &message);
  /// An error with a caret and a suggested replacement of `range`.
  void errorWithFixIt(llvm::SMRange range, const llvm::Twine &message,
                      llvm::StringRef replacement);
  /// An error that belongs to no place in the source (a command-line option).
  void error(const llvm::Twine &message);
  void warning(llvm::SMRange range, const llvm::Twine &message);
  /// A note for the diagnostic just reported; dropped when that diagnostic
  /// was swallowed by the error limit.
  void note(llvm::SMRange range, const llvm::Twine &message);
  void note(const llvm::Twine &message);

  unsigned getNumErrors() const { return numErrors; }
  bool hadError() const { return numErrors != 0; }
  /// True once the error limit is reached: callers stop early.
  bool tooManyErrors() const { return numErrors > errorLimit; }

  llvm::SourceMgr &getSourceMgr() { return sourceMgr; }
  llvm::raw_ostream &getStream() { return os; }

private:
  /// Counts an error; false when it must not be printed.
  bool countError();
  void printWithoutLocation(llvm::SourceMgr::DiagKind kind,
                            const llvm::Twine &message);
  void print(llvm::SMRange range, llvm::SourceMgr::DiagKind kind,
             const llvm::Twine &message,
             llvm::ArrayRef<llvm::SMFixIt> fixIts = {});

  /// Starts the text of a diagnostic at `loc` (and of its notes).
  std::string &startGroup(llvm::SMLoc loc);

  struct Group {
    uintptr_t key;
    std::string text;
  };
  std::vector<Group> groups;
  llvm::SourceMgr &sourceMgr;
  llvm::raw_ostream &os;
  unsigned errorLimit;
  unsigned numErrors = 0;
  bool lastSuppressed = false;
};

/// The candidate closest to `name` by edit distance, or "" when none is close
/// enough to be a plausible typo.
llvm::StringRef closestName(llvm::StringRef name,
                            llvm::ArrayRef<llvm::StringRef> candidates);

/// "; did you mean 'x'?" for the closest candidate, or "".
std::string didYouMean(llvm::StringRef name,
                       llvm::ArrayRef<llvm::StringRef> candidates);

/// "a, b or c".
std::string joinChoices(llvm::ArrayRef<llvm::StringRef> choices,
                        llvm::StringRef lastSeparator = " or ");

/// The targets' names ("sm_90a", "sm_100a"), from the shared vocabulary.
llvm::ArrayRef<llvm::StringRef> targetNames();

} // namespace tilec::frontend

#endif // TILEC_LIB_FRONTEND_DIAGNOSTICS_H

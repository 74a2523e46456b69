//===- Builtins.h - the one table of the tile DSL's builtins ----*- C++ -*-===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//
//
// Every builtin the DSL knows (copy_async, pipeline, range, ...) is one row
// of one table: its name, what kind of builtin it is and the Emitter method
// that emits it. The call dispatch, the for-loop dispatch and every
// did-you-mean list of builtin names are read from that table.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_FRONTEND_BUILTINS_H
#define TILEC_LIB_FRONTEND_BUILTINS_H

#include "lib/Frontend/AST.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace tilec::frontend {

class Emitter;
struct Val;

enum class BuiltinKind {
  /// Builds an op and gives no value (`copy_async(...)`).
  Statement,
  /// Gives a value (`pipeline(4, phase = 1)`, `ceildiv(N, BLK_N)`).
  Expression,
  /// What a for loop runs over (`for i in range(...)`); not callable.
  ForIterator,
  /// Gives several values, unpacked by a let:
  /// `let (m_blk, n_blk) = tile_coords(t, m_tiles, n_tiles)`.
  Values,
};

struct Builtin {
  using CallHandler = Val (Emitter::*)(const CallExpr &call);
  using LoopHandler = void (Emitter::*)(const ForStmt &loop,
                                        const CallExpr &iter);
  using ValuesHandler = bool (Emitter::*)(const CallExpr &call,
                                          llvm::SmallVectorImpl<Val> &values);

  llvm::StringRef name;
  BuiltinKind kind;
  /// Builds ops, so only allowed inside a kernel body.
  bool needsKernel;
  /// Statements and expressions: emits the call.
  CallHandler emitCall = nullptr;
  /// For-iterators: emits the whole loop.
  LoopHandler emitLoop = nullptr;
  /// Assigns a new value to the variable given as its first argument
  /// (`gemm_wait(acc)`), so a loop or branch around it carries that variable.
  bool updatesFirstArg = false;
  /// Values: emits the call and gives its values.
  ValuesHandler emitValues = nullptr;
  /// Expressions whose value may go unused (an atomic's old value).
  bool valueOptional = false;
};

/// Every builtin, in the order did-you-mean considers their names.
llvm::ArrayRef<Builtin> getBuiltins();
/// The builtin called `name`, or null.
const Builtin *findBuiltin(llvm::StringRef name);
/// The names of all builtins (for-iterators included).
llvm::ArrayRef<llvm::StringRef> getBuiltinNames();
/// The names of the for-iterators: range, unroll, tiles, persistent.
llvm::ArrayRef<llvm::StringRef> getForIteratorNames();
/// The builtins of one kind, for messages: "range(...), unroll(...) or
/// tiles(...)".
std::string describeBuiltins(BuiltinKind kind);

} // namespace tilec::frontend

#endif // TILEC_LIB_FRONTEND_BUILTINS_H

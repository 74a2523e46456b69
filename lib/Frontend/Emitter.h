//===- Emitter.h - tile DSL syntax tree -> tile dialect ---------*- C++ -*-===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//
//
// The emitter resolves names, folds constant expressions (params, consts,
// -D overrides), checks what only the DSL's text shows (names, kinds of
// expressions, values that must be constants, ranges whose extents must
// match a tile) and builds the tile dialect with an OpBuilder. Every op gets
// a FileLineColLoc of the text it came from. Rules the dialect states (role
// overlap, register budgets, masks, pending counts, ...) are left to its
// verifiers: parseTileSpec reports their errors at the op's .tile location,
// with notes for the -D params of that statement.
//
// Mutable DSL variables (pipeline states, accumulators, scalars) become SSA
// values: before a loop or branch the emitter scans its body for variables it
// assigns and threads them through scf.for / scf.while iter_args and scf.if
// results, the way Python-AST-to-MLIR generators do.
//
// The Emitter's methods are defined in one file per construct; each section
// of the class below names its file. What one kernel knows lives in a
// KernelState made for that kernel alone; the Emitter itself keeps only what
// the whole file shares (scopes, symbols, the builder, the diagnostics).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_FRONTEND_EMITTER_H
#define TILEC_LIB_FRONTEND_EMITTER_H

#include "lib/Frontend/AST.h"
#include "lib/Frontend/Builtins.h"
#include "lib/Frontend/Diagnostics.h"
#include "lib/Frontend/Frontend.h"

#include "dialects/Tile/TileDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <deque>
#include <map>
#include <optional>

namespace tilec::frontend {

/// A note with the value of a param ("BLK_N is 96, set on the command line
/// with -D BLK_N=96") at its declaration.
struct ParamNote {
  llvm::SMRange range;
  std::string message;
};

/// The -D params a statement (or a kernel or role header) uses, for
/// verifier errors reported inside its text.
struct StatementParamNotes {
  /// One past the statement's last character.
  const char *end = nullptr;
  llvm::SmallVector<ParamNote, 2> notes;
};
/// By the address of each statement's first character. The entries do not
/// overlap: a kernel's, role's or loop's entry covers its header, not its
/// body.
using ParamNoteMap = std::map<const char *, StatementParamNotes>;

/// The notes for a verifier error at `loc`: those of the statement whose
/// text holds it, if any.
const StatementParamNotes *findParamNotes(const ParamNoteMap &paramNotes,
                                          llvm::SMLoc loc);

/// Builds the tile dialect for `module`. Returns null when an error was
/// reported (the module is not verified here).
mlir::OwningOpRef<mlir::ModuleOp>
emitModule(const Module &module, mlir::MLIRContext &context,
           DiagnosticEngine &diag, const FrontendOptions &options,
           llvm::StringRef filename, ParamNoteMap &paramNotes);

/// `[4, 128, 64]` (`?` for a dynamic dimension).
std::string shapeText(llvm::ArrayRef<int64_t> shape);

/// The note that says what a param or const is and where its value came
/// from.
ParamNote makeParamNote(const struct Symbol &param);
void noteParam(DiagnosticEngine &diag, const struct Symbol &param);

//===----------------------------------------------------------------------===//
// Internals shared by the emitter's source files
//===----------------------------------------------------------------------===//

/// A value while emitting: a compile-time constant, an SSA value, or a type
/// name (`f16`, as in `cast(x, f16)`). Error values are silent: whoever
/// produced one reported it.
struct Val {
  enum class Kind : uint8_t { Error, Int, Float, Bool, Value, DType };
  Kind kind = Kind::Error;
  int64_t intValue = 0;
  double floatValue = 0;
  mlir::Value value;
  /// Value: the value's type; DType: the element type it names.
  mlir::Type type;

  static Val error() { return Val(); }
  static Val ofInt(int64_t v) {
    Val r;
    r.kind = Kind::Int;
    r.intValue = v;
    return r;
  }
  static Val ofFloat(double v) {
    Val r;
    r.kind = Kind::Float;
    r.floatValue = v;
    return r;
  }
  static Val ofBool(bool v) {
    Val r;
    r.kind = Kind::Bool;
    r.intValue = v;
    return r;
  }
  static Val of(mlir::Value v) {
    if (!v)
      return error();
    Val r;
    r.kind = Kind::Value;
    r.value = v;
    r.type = v.getType();
    return r;
  }
  static Val dtype(mlir::Type t) {
    Val r;
    r.kind = Kind::DType;
    r.type = t;
    return r;
  }
  bool isError() const { return kind == Kind::Error; }
  bool isInt() const { return kind == Kind::Int; }
  bool isFloat() const { return kind == Kind::Float; }
  bool isBool() const { return kind == Kind::Bool; }
  bool isValue() const { return kind == Kind::Value; }
  bool isDType() const { return kind == Kind::DType; }
  bool isConst() const { return isInt() || isFloat() || isBool(); }
  template <typename T> T getValueType() const {
    return isValue() ? llvm::dyn_cast<T>(type) : T();
  }
};

/// A name in scope.
struct Symbol {
  enum class Kind {
    Param,   // `param` at the top level (settable with -D)
    Const,   // `const`
    Dim,     // a named runtime dimension of a global tensor (`M`)
    Arg,     // a kernel argument
    Buffer,  // smem, tmem, barrier
    Var,     // `let`
    LoopVar, // a for-loop variable
  };
  Kind kind = Kind::Var;
  llvm::StringRef name;
  llvm::SMRange defRange;
  Val val;
  /// How many role / single_thread regions enclose the declaration: a value
  /// cannot flow out of such a region, so it cannot be assigned from inside.
  unsigned regionLevel = 0;
  /// Param: set on the command line.
  bool overridden = false;
  /// The -D params this symbol's value depends on (itself for one).
  llvm::SmallVector<const Symbol *, 2> overriddenParams;
  /// Dim: the tensor argument and dimension it names.
  unsigned argIndex = 0;
  unsigned dimIndex = 0;
  llvm::StringRef argName;
  /// Dim: a dim of each tensor of a tensor list, which may differ between
  /// them, so the kernel cannot read it.
  bool perListTensor = false;
};

/// One `[...]` item of a buffer view.
struct IndexItem {
  enum class Kind { Scalar, Full, Range };
  Kind kind = Kind::Scalar;
  /// Scalar: the index. Range: the bounds (either may be null).
  const Expr *start = nullptr;
  const Expr *stop = nullptr;
  llvm::SMRange range;
};

/// A memory operand as written: `Asmem[s, row:]`, `A[m, k]`, `tmem[:, 0:N]`,
/// `full[s]` or a bare name.
struct BufferRef {
  const Expr *expr = nullptr;
  const Expr *baseExpr = nullptr;
  Val base;
  bool indexed = false;
  llvm::SmallVector<IndexItem, 4> items;
  llvm::SMRange getRange() const { return expr->getRange(); }
  /// The buffer's name as written, for messages.
  std::string name() const;
};

/// Argument binding for builtins: `name` positional or keyword.
struct ArgSpec {
  llvm::StringRef name;
  bool required;
};

/// What the emitter knows about the kernel being emitted. emitKernel makes
/// one when it starts and drops it when it ends, so that no kernel sees
/// another's target, roles or regions.
struct KernelState {
  /// The kernel's body; null while its header (arguments, clauses) is read.
  mlir::Block *body = nullptr;
  std::string target;
  llvm::SMRange targetClauseRange;
  int64_t numWarpgroups = 1;
  llvm::SmallVector<int64_t, 3> clusterShape{1, 1, 1};
  mlir::tile::GridPolicy gridPolicy = mlir::tile::GridPolicy::persistent;
  mlir::ArrayAttr gridAxes;
  const RoleStmt *currentRole = nullptr;
  /// "role" or "single_thread block" for each enclosing region.
  llvm::SmallVector<llvm::StringRef, 4> regionKinds;
  /// How many role / single_thread regions enclose the current statement.
  unsigned regionLevel = 0;
  /// How many loops and branches enclose it.
  unsigned scfDepth = 0;
};

/// The thread or CTA identity a name like `warp_id` reads, if it is one.
std::optional<mlir::tile::IdKind> identityKind(llvm::StringRef name);

/// The text of `range` in the source.
inline llvm::StringRef textOf(llvm::SMRange range) {
  return llvm::StringRef(range.Start.getPointer(),
                         range.End.getPointer() - range.Start.getPointer());
}

/// The closing parenthesis of a call, where missing arguments are reported.
inline llvm::SMRange closingParen(const CallExpr &call) {
  const char *end = call.getRange().End.getPointer();
  return {llvm::SMLoc::getFromPointer(end - 1),
          llvm::SMLoc::getFromPointer(end)};
}

class Emitter {
public:
  Emitter(mlir::MLIRContext &context, DiagnosticEngine &diag,
          const FrontendOptions &options, llvm::StringRef filename,
          ParamNoteMap &paramNotes);

  /// EmitKernel.cpp: the whole file.
  mlir::OwningOpRef<mlir::ModuleOp> run(const Module &module);

  //===--------------------------------------------------------------------===//
  // Emitter.cpp: locations, diagnostics, names and scopes
  //===--------------------------------------------------------------------===//

  mlir::Location loc(llvm::SMLoc l);
  mlir::Location loc(llvm::SMRange r) { return loc(r.Start); }
  /// A location that also names the value (`%Asmem` with
  /// --mlir-use-nameloc-as-prefix).
  mlir::Location namedLoc(llvm::StringRef name, llvm::SMRange range);
  mlir::Location namedLoc(llvm::StringRef name, mlir::Location l);
  void error(llvm::SMRange range, const llvm::Twine &message) {
    diag.error(range, message);
  }
  void note(llvm::SMRange range, const llvm::Twine &message) {
    diag.note(range, message);
  }

  void pushScope() { scopes.emplace_back(); }
  void popScope() { scopes.pop_back(); }
  Symbol *lookup(llvm::StringRef name);
  Symbol *declare(Symbol::Kind kind, llvm::StringRef name,
                  llvm::SMRange defRange, Val val);
  /// Assigns `val` to the variable `name` (for `x = ...`, `ps.advance()`,
  /// `gemm_async(acc, ...)`): checks that it exists, may be assigned here,
  /// and keeps its type.
  void assignVariable(llvm::StringRef name, llvm::SMRange range, Val val);
  /// The variable written as `expr` that `call` updates in place, if any.
  static const NameExpr *updatedVariable(const CallExpr &call);

  bool inKernelBody() const { return kernel && kernel->body; }
  /// True where smem / tmem / barriers / roles may be declared.
  bool atKernelTop() const {
    return inKernelBody() && kernel->regionLevel == 0 && kernel->scfDepth == 0;
  }
  /// How many role / single_thread regions enclose the current statement.
  unsigned regionLevel() const { return kernel ? kernel->regionLevel : 0; }
  bool isBlackwell() const {
    return tilec::vocab::parseTarget(kernel->target) ==
           tilec::vocab::Target::SM100a;
  }

  //===--------------------------------------------------------------------===//
  // EmitExpr.cpp: expressions
  //===--------------------------------------------------------------------===//

  Val eval(const Expr &expr);
  Val evalName(const NameExpr &expr);
  Val evalUnary(const UnaryExpr &expr);
  Val evalBinary(const BinaryExpr &expr);
  Val binaryOp(Tok op, Val lhs, Val rhs, llvm::SMRange range,
               llvm::SMRange opRange);
  Val evalMember(const MemberExpr &expr);
  /// Folds `expr` without emitting anything or reporting: for extents.
  std::optional<int64_t> tryFoldInt(const Expr &expr);

  //===--------------------------------------------------------------------===//
  // EmitMath.cpp: min / max
  //===--------------------------------------------------------------------===//

  Val minMax(bool isMax, Val lhs, Val rhs, llvm::SMRange range);

  //===--------------------------------------------------------------------===//
  // EmitFragMath.cpp: fragment math (the epilogue)
  //===--------------------------------------------------------------------===//

  /// `lhs op rhs` where either side is a fragment.
  Val fragOp(Tok op, Val lhs, Val rhs, llvm::SMRange range,
             llvm::SMRange opRange);
  Val fragMinMax(bool isMax, Val lhs, Val rhs, llvm::SMRange range);
  Val fragUnary(mlir::tile::FragUnaryKind kind, Val x, llvm::SMRange range,
                llvm::StringRef what);
  Val fragBinary(mlir::tile::FragBinaryKind kind, Val lhs, Val rhs,
                 llvm::SMRange range, llvm::StringRef what);
  Val fragFma(Val a, Val b, Val c, llvm::SMRange range, llvm::StringRef what);
  /// `call` reduces `x` along `axis` (a constant).
  Val fragReduce(mlir::tile::FragReduceKind kind, const CallExpr &call,
                 const Expr &x, const Expr &axis, const Expr *groups = nullptr);
  /// An operand of fragment math as a value: a fragment as it is, a number
  /// as an f32 constant, an f32 value. Null (after a report naming `what`)
  /// for anything else.
  mlir::Value fragOperand(const Val &val, llvm::SMRange range,
                          llvm::StringRef what);

  //===--------------------------------------------------------------------===//
  // EmitValues.cpp: dtypes, names, constants and conversions
  //===--------------------------------------------------------------------===//

  /// The element type a dtype name (`f16`, `e4m3`) stands for, or null.
  mlir::Type lookupDType(llvm::StringRef name);
  /// Every name an expression here may read, for did-you-mean.
  std::vector<llvm::StringRef> visibleNames();

  /// An SSA value for `val`: constants become arith.constant of `want` (or
  /// i32 / f32 / i1). Null (after a report) when that is impossible.
  mlir::Value materialize(const Val &val, llvm::SMRange range,
                          mlir::Type want = {});
  /// `expr` as an i32 value (an index, a bound).
  mlir::Value evalI32(const Expr &expr, llvm::StringRef what);
  /// `val` (of `expr`) as an i32 value, or an error naming `what`.
  mlir::Value asI32(const Val &val, const Expr &expr, llvm::StringRef what);
  /// `expr` as an i1 value (a condition).
  mlir::Value evalI1(const Expr &expr, llvm::StringRef what);
  /// `expr` as a compile-time integer; reports `what` must be one.
  std::optional<int64_t> evalConstInt(const Expr &expr, llvm::StringRef what);
  /// `expr` as a compile-time integer for an I64Attr of the tile dialect,
  /// which reads it as unsigned: a negative value is reported here (the
  /// verifier would see a huge one); the verifier checks the rest.
  std::optional<int64_t> evalConstUnsigned(const Expr &expr,
                                           llvm::StringRef what);
  /// A note at the first name in `expr` whose value is only known at run
  /// time.
  void noteRuntimeName(const Expr &expr);
  /// Notes with the value of every param and const named in `expr`.
  void noteParamsIn(const Expr &expr);
  /// The -D params the names in `expr` depend on.
  void collectOverriddenParams(const Expr &expr,
                               llvm::SmallVectorImpl<const Symbol *> &out);
  /// Records the -D params that `exprs` use as the notes of the text
  /// `range`, for verifier errors reported there.
  void recordParamNotes(llvm::SMRange range,
                        llvm::ArrayRef<const Expr *> exprs);

  /// `expr` as an element type.
  mlir::Type evalDType(const Expr &expr, llvm::StringRef what);
  /// `f16[a, b]`: an element type and a static shape, with the expression
  /// of each dimension for messages.
  struct ShapeExpr {
    mlir::Type elementType;
    llvm::SmallVector<int64_t, 4> shape;
    llvm::SmallVector<const Expr *, 4> dims;
  };
  std::optional<ShapeExpr> evalShapeExpr(const Expr &expr,
                                         llvm::StringRef what);
  /// One of `choices` written as a bare name (`dispatch = tma`).
  std::optional<unsigned> evalChoice(const Expr &expr, llvm::StringRef what,
                                     llvm::ArrayRef<llvm::StringRef> choices);
  /// `true` / `false` or a constant comparison.
  std::optional<bool> evalConstBool(const Expr &expr, llvm::StringRef what);

  /// How a type reads in messages ("i32", "fragment f32[64, 256] wgmma_acc").
  static std::string describeType(mlir::Type type);
  static std::string describeVal(const Val &val);

  //===--------------------------------------------------------------------===//
  // EmitBufferRefs.cpp: buffer operands and their index items
  //===--------------------------------------------------------------------===//

  std::optional<BufferRef> evalBufferRef(const Expr &expr,
                                         llvm::StringRef what);
  /// The leading indices that select a tile of a shared buffer, then (with
  /// `withRow`) the tile's first row. `rowExtent` receives the number of
  /// rows written (`row : row + 64`) when known. With `firstColumn` (an
  /// MN-major MMA operand) it is the first column and the rows are whole.
  /// The first `lead` indices of `ref`, each selecting one tile.
  bool leadingTileIndices(const BufferRef &ref, size_t lead,
                          llvm::SmallVectorImpl<mlir::Value> &indices);
  /// Without `withRow`, `moved` (when given) lets the tile's rows and
  /// columns be constant prefixes (`0 : R`) and receives them (copy_async's
  /// extent); otherwise the tile is whole.
  bool smemTileIndices(const BufferRef &ref, bool withRow,
                       llvm::StringRef opName,
                       llvm::SmallVectorImpl<mlir::Value> &indices,
                       std::optional<int64_t> *rowExtent = nullptr,
                       bool firstColumn = false,
                       std::pair<int64_t, int64_t> *moved = nullptr);
  /// The element coordinates of a global box, and the extent of each
  /// dimension where it is written as a range.
  bool globalCoords(const BufferRef &ref,
                    llvm::SmallVectorImpl<mlir::Value> &coords,
                    llvm::SmallVectorImpl<std::optional<int64_t>> &extents);
  /// The first column of a tensor-memory slice and its width if known.
  bool tmemColumns(const BufferRef &ref, mlir::Value &column,
                   std::optional<int64_t> &width);
  /// The barrier of an array (`full[s]`; `full` alone for depth 1).
  bool barrierIndex(const BufferRef &ref, mlir::Value &index);
  std::optional<int64_t> extentOf(const IndexItem &item, int64_t dimSize);
  mlir::Value startOf(const IndexItem &item);

  //===--------------------------------------------------------------------===//
  // EmitLoads.cpp: loads into registers, stores to global memory
  //===--------------------------------------------------------------------===//

  /// `grp[mb]` as a value: a scalar load from a global tensor or a shared
  /// buffer.
  Val emitIndexLoad(const IndexExpr &expr);
  /// `frag[:, a : b]`: the columns [a, b) of a fragment (constants).
  Val emitFragSlice(const IndexExpr &expr, const Val &frag);
  /// One element of `ref` (every index a scalar), reading `other` past the
  /// edge of a global tensor; `order` and `scope` (`order = acquire, scope
  /// = sys`) make it an ordered global load.
  Val loadScalar(const BufferRef &ref, const Expr *other, llvm::SMLoc at,
                 const Expr *order = nullptr, const Expr *scope = nullptr);
  /// `order = ...` and `scope = ...` of a load or an atomic; false after a
  /// report.
  bool evalMemoryOrdering(const Expr *order, const Expr *scope,
                          mlir::tile::MemoryOrderAttr &orderAttr,
                          mlir::tile::MemoryScopeAttr &scopeAttr);
  /// The indices of one i32 or f32 element of `ref` (a global tensor or a
  /// shared buffer), or false after a report worded for a load or a store.
  bool elementIndices(const BufferRef &ref, bool store,
                      llvm::SmallVectorImpl<mlir::Value> &indices);
  /// store(X[i, j], x) of one i32, f32, f16 or bf16 element of a shared
  /// buffer or a global tensor (guarded there).
  Val storeScalar(const CallExpr &call, const BufferRef &dst, const Val &value,
                  const Expr &valueExpr);
  /// `other = ...` of a load as a value of `elementType`.
  mlir::Value loadFill(const Expr &expr, mlir::Type elementType);
  /// One start per dimension of `ref`: the leading indices, then where the
  /// fragment starts in each of the last `extents.size()` dimensions, whose
  /// ranges (if written) must span `extents` (`what`: "rows", "columns").
  /// With `rowNumbers`, a full fragment's row index may be an i32 rows
  /// fragment instead (a gather or scatter: each row's tensor row); its
  /// start is then 0 and the fragment goes to `*rowNumbers`.
  bool tileStarts(const BufferRef &ref, llvm::ArrayRef<int64_t> extents,
                  llvm::ArrayRef<llvm::StringRef> what,
                  llvm::SmallVectorImpl<mlir::Value> &indices,
                  mlir::Value *rowNumbers = nullptr);
  /// The leading indices that select a 1-D tile (the innermost dimension)
  /// of a shared buffer, for a copy of a rank-1 tensor.
  bool vectorTileIndices(const BufferRef &ref,
                         llvm::SmallVectorImpl<mlir::Value> &indices);
  /// `store(D[m, n], frag)` into a global tensor.
  Val storeGlobal(const CallExpr &call, const BufferRef &dst, const Val &value,
                  const Expr *broadcast);

  //===--------------------------------------------------------------------===//
  // Builtins.cpp: calls of builtins
  //===--------------------------------------------------------------------===//

  /// A call as a statement (`copy_async(...)`) or in an expression
  /// (`pipeline(4, phase = 1)`).
  Val evalCall(const CallExpr &call, bool isStatement);
  /// A call to a builtin that gives several values (`tile_coords(...)`), for
  /// `let (a, b) = ...`; false after an error.
  bool evalCallValues(const CallExpr &call, llvm::SmallVectorImpl<Val> &values);
  bool bindArgs(const CallExpr &call, llvm::StringRef callee,
                llvm::ArrayRef<ArgSpec> specs,
                llvm::SmallVectorImpl<const Expr *> &out);

  // The statement and construct emitters below are reached through run(),
  // emitStmt() and the builtin table.
private:
  friend llvm::ArrayRef<Builtin> getBuiltins();

  //===--------------------------------------------------------------------===//
  // EmitKernel.cpp: files, params, kernels, kernel clauses, grid
  //===--------------------------------------------------------------------===//

  void checkDefines(const Module &module);
  void emitTopLevelParam(const ParamStmt &stmt);
  /// The value `-D` gives param `stmt` (declared as `declared`), an error
  /// value after a mismatch, or none when no -D names it.
  std::optional<Val> definedValue(const ParamStmt &stmt, const Val &declared);
  void emitAssert(const AssertStmt &stmt);
  void emitKernel(const KernelDecl &decl);
  void emitKernelClauses(const KernelDecl &decl,
                         llvm::ArrayRef<mlir::Type> argTypes);
  mlir::Attribute emitGridAxis(const Expr &axis);
  /// Where the kernel's target came from, as a note.
  void noteTarget();

  //===--------------------------------------------------------------------===//
  // EmitControlFlow.cpp: statements, blocks, loops and branches
  //===--------------------------------------------------------------------===//

  void emitBlock(const Body &block);
  void emitStmts(const Body &block);
  void emitStmt(const Stmt &stmt);
  /// Counts one statement (or one unrolled iteration) against the file's
  /// budget; true, with the error reported once, when it is spent.
  bool spendStatementBudget(llvm::SMRange range);
  void emitExprStmt(const ExprStmt &stmt);
  void emitFor(const ForStmt &stmt);
  /// The for-iterator builtins: `for ... in range / unroll / tiles(...)`.
  void emitRangeFor(const ForStmt &stmt, const CallExpr &iter);
  void emitUnrollFor(const ForStmt &stmt, const CallExpr &iter);
  /// `for v in specialize(x, c0, c1, ...)`: one copy of the body per
  /// constant, v that constant, chosen where x equals it at run time.
  void emitSpecializeFor(const ForStmt &stmt, const CallExpr &iter);
  /// The loop (null when its bounds did not evaluate).
  mlir::scf::ForOp emitScfFor(const ForStmt &stmt, mlir::Value lb,
                              mlir::Value ub, mlir::Value step,
                              llvm::function_ref<void(mlir::Value)> bindVars);
  void emitWhile(const WhileStmt &stmt);
  void emitIf(const IfStmt &stmt);

  /// The variables a block assigns that live outside it, in first-assigned
  /// order: they become iter_args / results.
  void collectAssigned(const Body &block, llvm::SmallVectorImpl<Symbol *> &out);
  void collectAssignedIn(const Body &block,
                         std::vector<llvm::StringSet<>> &locals,
                         llvm::SmallPtrSetImpl<Symbol *> &seen,
                         llvm::SmallVectorImpl<Symbol *> &out);
  /// Materializes the current values of `carried` (dropping any that are
  /// errors) for iter_args.
  llvm::SmallVector<mlir::Value>
  materializeCarried(llvm::SmallVectorImpl<Symbol *> &carried,
                     llvm::SMRange range);
  llvm::SmallVector<mlir::Value> yieldValues(llvm::ArrayRef<Symbol *> carried,
                                             mlir::ValueRange fallback,
                                             llvm::SMRange range);
  /// One branch of an scf.if that carries `carried`: `body` emitted into
  /// `block` in its own scope, the carried values yielded, then the
  /// symbols reset to `saved` (their values before the if).
  void emitIfBranch(mlir::Block *block, llvm::ArrayRef<Symbol *> carried,
                    mlir::ValueRange inits, llvm::ArrayRef<Val> saved,
                    llvm::SMRange range, mlir::Location l,
                    llvm::function_ref<void()> body);

  //===--------------------------------------------------------------------===//
  // EmitDecls.cpp: smem / tmem / barrier declarations, const, let, assignment
  //===--------------------------------------------------------------------===//

  void emitLocalConst(const ParamStmt &stmt);
  void emitLet(const LetStmt &stmt);
  /// `let (a, b) = tile_coords(...)`.
  void emitUnpackingLet(const LetStmt &stmt);
  void emitAssign(const AssignStmt &stmt);
  void emitDecl(const DeclStmt &stmt);
  void emitSmem(const DeclStmt &stmt);
  void emitTmem(const DeclStmt &stmt);
  void emitBarrier(const DeclStmt &stmt);

  //===--------------------------------------------------------------------===//
  // EmitTiles.cpp: the tile schedule
  //===--------------------------------------------------------------------===//

  /// `for (m_blk, n_blk) in tiles(M, N, block = ...)` and its batched form.
  void emitTilesFor(const ForStmt &stmt, const CallExpr &iter);
  /// `for t in persistent([start,] stop)`: this worker's linear tile indices.
  void emitPersistentFor(const ForStmt &stmt, const CallExpr &iter);
  /// `tile_coords(t, [batches,] m_tiles, n_tiles, group = G)`.
  bool emitTileCoords(const CallExpr &call, llvm::SmallVectorImpl<Val> &values);

  //===--------------------------------------------------------------------===//
  // EmitRoles.cpp: roles and single_thread blocks
  //===--------------------------------------------------------------------===//

  void emitRole(const RoleStmt &stmt);
  void emitSingleThread(const SingleThreadStmt &stmt);

  //===--------------------------------------------------------------------===//
  // EmitAsync.cpp: copies, MMA, stores and tensor memory
  //===--------------------------------------------------------------------===//

  Val emitCopyAsync(const CallExpr &call);
  Val emitBulkCommit(const CallExpr &call);
  Val emitBulkWait(const CallExpr &call);
  Val emitGemmAsync(const CallExpr &call);
  Val emitGemmCommit(const CallExpr &call);
  Val emitGemmWait(const CallExpr &call);
  Val emitStore(const CallExpr &call);
  Val emitTmemLoad(const CallExpr &call);
  Val emitTmemWait(const CallExpr &call);
  /// load(src, like = frag, broadcast = rows | cols, other = x): EmitLoads.
  Val emitLoad(const CallExpr &call);
  /// atomic_add(X[i], v, order = release, scope = sys) and atomic_max,
  /// atomic_min, atomic_exch: EmitLoads.
  Val emitAtomic(const CallExpr &call);
  /// peer(X, offset): X on another GPU, `offset` bytes away: EmitLoads.
  Val emitPeer(const CallExpr &call);

  //===--------------------------------------------------------------------===//
  // EmitSync.cpp: sync, fence, pipelines, barrier and pipeline methods
  //===--------------------------------------------------------------------===//

  Val emitSync(const CallExpr &call);
  Val emitFence(const CallExpr &call);
  Val emitPipeline(const CallExpr &call);
  Val emitMethod(const CallExpr &call, const MemberExpr &callee,
                 bool isStatement);
  Val emitBarrierWait(const CallExpr &call, mlir::Value barrier);
  Val emitBarrierArrive(const CallExpr &call, mlir::Value barrier);
  Val emitRemoteView(const CallExpr &call, mlir::Value barrier);
  Val emitAdvance(const CallExpr &call, const MemberExpr &callee);

  //===--------------------------------------------------------------------===//
  // EmitMath.cpp: the value builtins
  //===--------------------------------------------------------------------===//

  Val emitZeros(const CallExpr &call); // zeros(...) and undef(...)
  Val emitCast(const CallExpr &call);
  Val emitCeilDiv(const CallExpr &call);
  Val emitMin(const CallExpr &call) {
    return emitMinMax(call, /*isMax=*/false);
  }
  Val emitMax(const CallExpr &call) { return emitMinMax(call, /*isMax=*/true); }
  Val emitMinMax(const CallExpr &call, bool isMax);
  Val emitSizeof(const CallExpr &call);

  //===--------------------------------------------------------------------===//
  // EmitFragMath.cpp: the fragment math builtins
  //===--------------------------------------------------------------------===//

  /// abs, exp2, exp, rsqrt, rcp, relu: one tile.frag.unary.
  Val emitFragUnaryCall(const CallExpr &call, mlir::tile::FragUnaryKind kind);
  Val emitAbs(const CallExpr &call) {
    return emitFragUnaryCall(call, mlir::tile::FragUnaryKind::abs);
  }
  Val emitExp2(const CallExpr &call) {
    return emitFragUnaryCall(call, mlir::tile::FragUnaryKind::exp2);
  }
  Val emitExp(const CallExpr &call) {
    return emitFragUnaryCall(call, mlir::tile::FragUnaryKind::exp);
  }
  Val emitRsqrt(const CallExpr &call) {
    return emitFragUnaryCall(call, mlir::tile::FragUnaryKind::rsqrt);
  }
  Val emitRcp(const CallExpr &call) {
    return emitFragUnaryCall(call, mlir::tile::FragUnaryKind::rcp);
  }
  Val emitRelu(const CallExpr &call) {
    return emitFragUnaryCall(call, mlir::tile::FragUnaryKind::relu);
  }
  /// silu and gelu, expanded into fragment math.
  Val emitActivation(const CallExpr &call);
  Val emitFma(const CallExpr &call);
  Val emitSelect(const CallExpr &call);
  Val emitSum(const CallExpr &call);
  Val emitInsert(const CallExpr &call);

public:
  //===--------------------------------------------------------------------===//
  // State
  //===--------------------------------------------------------------------===//

  mlir::MLIRContext &context;
  DiagnosticEngine &diag;
  const FrontendOptions &options;
  llvm::StringRef filename;
  ParamNoteMap &paramNotes;
  mlir::OpBuilder builder;
  mlir::StringAttr filenameAttr;

  std::vector<llvm::StringMap<Symbol *>> scopes;
  std::deque<Symbol> symbols;

  /// The kernel being emitted (owned by emitKernel), or null between
  /// kernels.
  KernelState *kernel = nullptr;
  /// Statements and unrolled iterations emitted so far in the whole file,
  /// against a budget.
  size_t emittedStmts = 0;
  bool budgetExceeded = false;
};

} // namespace tilec::frontend

#endif // TILEC_LIB_FRONTEND_EMITTER_H

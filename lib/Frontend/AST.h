//===- AST.h - syntax tree of the tile DSL ----------------------*- C++ -*-===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//
//
// The parser builds this tree; the emitter walks it once to resolve names,
// fold constants and build the tile dialect. Every node keeps the source
// range it came from. A piece the parser could not read becomes an
// ErrorExpr (or a statement whose parts are ErrorExprs), so that the names it
// declares still exist and later uses do not pile up follow-on errors.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_FRONTEND_AST_H
#define TILEC_LIB_FRONTEND_AST_H

#include "lib/Frontend/Lexer.h"

#include "llvm/Support/Casting.h"
#include "llvm/Support/SMLoc.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

namespace tilec::frontend {

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

class Expr {
public:
  enum class Kind {
    Error,
    Int,
    Float,
    Bool,
    String,
    Name,
    Unary,
    Binary,
    Call,
    Member,
    Index,
    Slice,
    Tuple,
    List,
  };
  Expr(Kind kind, llvm::SMRange range) : kind(kind), range(range) {}
  virtual ~Expr() = default;

  Kind getKind() const { return kind; }
  llvm::SMRange getRange() const { return range; }
  llvm::SMLoc getLoc() const { return range.Start; }
  /// The longest path to a leaf: the parser bounds it, so that walking the
  /// tree cannot exhaust the stack.
  unsigned getHeight() const { return height; }

protected:
  void addChild(const Expr *child) {
    if (child)
      height = std::max(height, child->height + 1);
  }

private:
  Kind kind;
  llvm::SMRange range;
  unsigned height = 1;
};
using ExprPtr = std::unique_ptr<Expr>;

/// A part the parser could not read (already reported).
class ErrorExpr : public Expr {
public:
  explicit ErrorExpr(llvm::SMRange range) : Expr(Kind::Error, range) {}
  static bool classof(const Expr *e) { return e->getKind() == Kind::Error; }
};

class IntExpr : public Expr {
public:
  IntExpr(llvm::SMRange range, int64_t value, llvm::StringRef suffix)
      : Expr(Kind::Int, range), value(value), suffix(suffix) {}
  static bool classof(const Expr *e) { return e->getKind() == Kind::Int; }
  int64_t value;
  /// Letters right after the digits, as in `128B`.
  llvm::StringRef suffix;
};

class FloatExpr : public Expr {
public:
  FloatExpr(llvm::SMRange range, double value)
      : Expr(Kind::Float, range), value(value) {}
  static bool classof(const Expr *e) { return e->getKind() == Kind::Float; }
  double value;
};

class BoolExpr : public Expr {
public:
  BoolExpr(llvm::SMRange range, bool value)
      : Expr(Kind::Bool, range), value(value) {}
  static bool classof(const Expr *e) { return e->getKind() == Kind::Bool; }
  bool value;
};

class StringExpr : public Expr {
public:
  StringExpr(llvm::SMRange range, std::string value)
      : Expr(Kind::String, range), value(std::move(value)) {}
  static bool classof(const Expr *e) { return e->getKind() == Kind::String; }
  std::string value;
};

class NameExpr : public Expr {
public:
  NameExpr(llvm::SMRange range, llvm::StringRef name)
      : Expr(Kind::Name, range), name(name) {}
  static bool classof(const Expr *e) { return e->getKind() == Kind::Name; }
  llvm::StringRef name;
};

class UnaryExpr : public Expr {
public:
  UnaryExpr(llvm::SMRange range, Tok op, ExprPtr operand)
      : Expr(Kind::Unary, range), op(op), operand(std::move(operand)) {
    addChild(this->operand.get());
  }
  static bool classof(const Expr *e) { return e->getKind() == Kind::Unary; }
  Tok op; // Minus, Tilde or KwNot
  ExprPtr operand;
};

class BinaryExpr : public Expr {
public:
  BinaryExpr(llvm::SMRange range, Tok op, llvm::SMRange opRange, ExprPtr lhs,
             ExprPtr rhs)
      : Expr(Kind::Binary, range), op(op), opRange(opRange),
        lhs(std::move(lhs)), rhs(std::move(rhs)) {
    addChild(this->lhs.get());
    addChild(this->rhs.get());
  }
  static bool classof(const Expr *e) { return e->getKind() == Kind::Binary; }
  Tok op;
  llvm::SMRange opRange;
  ExprPtr lhs, rhs;
};

struct KeywordArg {
  llvm::StringRef name;
  llvm::SMRange nameRange;
  ExprPtr value;
};

/// `callee(args..., name = value...)`; the callee is a NameExpr (a builtin)
/// or a MemberExpr (a method: `full.wait(...)`).
class CallExpr : public Expr {
public:
  CallExpr(llvm::SMRange range, ExprPtr callee, std::vector<ExprPtr> args,
           std::vector<KeywordArg> keywords)
      : Expr(Kind::Call, range), callee(std::move(callee)),
        args(std::move(args)), keywords(std::move(keywords)) {
    addChild(this->callee.get());
    for (const ExprPtr &arg : this->args)
      addChild(arg.get());
    for (const KeywordArg &keyword : this->keywords)
      addChild(keyword.value.get());
  }
  static bool classof(const Expr *e) { return e->getKind() == Kind::Call; }
  ExprPtr callee;
  std::vector<ExprPtr> args;
  std::vector<KeywordArg> keywords;
};

class MemberExpr : public Expr {
public:
  MemberExpr(llvm::SMRange range, ExprPtr base, llvm::StringRef member,
             llvm::SMRange memberRange)
      : Expr(Kind::Member, range), base(std::move(base)), member(member),
        memberRange(memberRange) {
    addChild(this->base.get());
  }
  static bool classof(const Expr *e) { return e->getKind() == Kind::Member; }
  ExprPtr base;
  llvm::StringRef member;
  llvm::SMRange memberRange;
};

/// `base[items]`: a buffer view (`Asmem[s, row:]`), a barrier (`full[s]`) or
/// a type (`f16[128, 64]`, `tma[4]`).
class IndexExpr : public Expr {
public:
  IndexExpr(llvm::SMRange range, ExprPtr base, std::vector<ExprPtr> items)
      : Expr(Kind::Index, range), base(std::move(base)),
        items(std::move(items)) {
    addChild(this->base.get());
    for (const ExprPtr &item : this->items)
      addChild(item.get());
  }
  static bool classof(const Expr *e) { return e->getKind() == Kind::Index; }
  ExprPtr base;
  std::vector<ExprPtr> items;
};

/// `start:stop` inside an index; either bound may be missing.
class SliceExpr : public Expr {
public:
  SliceExpr(llvm::SMRange range, ExprPtr start, ExprPtr stop)
      : Expr(Kind::Slice, range), start(std::move(start)),
        stop(std::move(stop)) {
    addChild(this->start.get());
    addChild(this->stop.get());
  }
  static bool classof(const Expr *e) { return e->getKind() == Kind::Slice; }
  ExprPtr start, stop;
};

/// `(a, b, ...)`.
class TupleExpr : public Expr {
public:
  TupleExpr(llvm::SMRange range, std::vector<ExprPtr> elements)
      : Expr(Kind::Tuple, range), elements(std::move(elements)) {
    for (const ExprPtr &e : this->elements)
      addChild(e.get());
  }
  static bool classof(const Expr *e) { return e->getKind() == Kind::Tuple; }
  std::vector<ExprPtr> elements;
};

/// `[a, b, ...]`.
class ListExpr : public Expr {
public:
  ListExpr(llvm::SMRange range, std::vector<ExprPtr> elements)
      : Expr(Kind::List, range), elements(std::move(elements)) {
    for (const ExprPtr &e : this->elements)
      addChild(e.get());
  }
  static bool classof(const Expr *e) { return e->getKind() == Kind::List; }
  std::vector<ExprPtr> elements;
};

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

/// `keyword value` in a kernel header, a role or a declaration
/// (`warpgroups 2`, `swizzle 128B`, `one thread`).
struct Clause {
  llvm::StringRef keyword;
  llvm::SMRange keywordRange;
  /// Null for clauses without a value (`one thread`).
  ExprPtr value;
  llvm::SMRange getRange() const {
    return {keywordRange.Start,
            value ? value->getRange().End : keywordRange.End};
  }
};

class Stmt;
using StmtPtr = std::unique_ptr<Stmt>;

struct Body {
  llvm::SMRange range;
  std::vector<StmtPtr> stmts;
};

class Stmt {
public:
  enum class Kind {
    Param,
    Assert,
    Smem,
    Tmem,
    Barrier,
    Let,
    Assign,
    Expr,
    For,
    While,
    If,
    Role,
    SingleThread,
  };
  Stmt(Kind kind, llvm::SMRange range) : kind(kind), range(range) {}
  virtual ~Stmt() = default;
  Kind getKind() const { return kind; }
  llvm::SMRange getRange() const { return range; }
  llvm::SMLoc getLoc() const { return range.Start; }

private:
  Kind kind;
  llvm::SMRange range;
};

/// `param NAME = expr` (settable with -D) or `const NAME = expr`.
class ParamStmt : public Stmt {
public:
  ParamStmt(llvm::SMRange range, bool isParam, llvm::StringRef name,
            llvm::SMRange nameRange, ExprPtr value)
      : Stmt(Kind::Param, range), isParam(isParam), name(name),
        nameRange(nameRange), value(std::move(value)) {}
  static bool classof(const Stmt *s) { return s->getKind() == Kind::Param; }
  bool isParam;
  llvm::StringRef name;
  llvm::SMRange nameRange;
  ExprPtr value;
};

/// `assert cond, "message"`: checked at compile time.
class AssertStmt : public Stmt {
public:
  AssertStmt(llvm::SMRange range, ExprPtr cond, std::string message)
      : Stmt(Kind::Assert, range), cond(std::move(cond)),
        message(std::move(message)) {}
  static bool classof(const Stmt *s) { return s->getKind() == Kind::Assert; }
  ExprPtr cond;
  std::string message;
};

/// `smem NAME: type clauses`, `tmem NAME: type clauses` and
/// `barrier NAME: kind[depth] clauses`.
class DeclStmt : public Stmt {
public:
  DeclStmt(Kind kind, llvm::SMRange range, llvm::StringRef name,
           llvm::SMRange nameRange, ExprPtr type, std::vector<Clause> clauses)
      : Stmt(kind, range), name(name), nameRange(nameRange),
        type(std::move(type)), clauses(std::move(clauses)) {}
  static bool classof(const Stmt *s) {
    return s->getKind() == Kind::Smem || s->getKind() == Kind::Tmem ||
           s->getKind() == Kind::Barrier;
  }
  llvm::StringRef name;
  llvm::SMRange nameRange;
  ExprPtr type;
  std::vector<Clause> clauses;
};

/// `let NAME = expr`, or `let (NAME, NAME, ...) = call` unpacking the
/// values of a builtin that gives several (`tile_coords`).
class LetStmt : public Stmt {
public:
  struct Name {
    llvm::StringRef name;
    llvm::SMRange range;
  };
  LetStmt(llvm::SMRange range, llvm::StringRef name, llvm::SMRange nameRange,
          ExprPtr value, std::vector<Name> unpacked = {})
      : Stmt(Kind::Let, range), name(name), nameRange(nameRange),
        value(std::move(value)), unpacked(std::move(unpacked)) {}
  static bool classof(const Stmt *s) { return s->getKind() == Kind::Let; }
  /// The (first) name.
  llvm::StringRef name;
  llvm::SMRange nameRange;
  ExprPtr value;
  /// `let (a, b) = ...`: every name, in order; empty for `let a = ...`.
  std::vector<Name> unpacked;
};

/// `NAME = expr`, `NAME += expr`, ...
class AssignStmt : public Stmt {
public:
  AssignStmt(llvm::SMRange range, llvm::StringRef name, llvm::SMRange nameRange,
             Tok op, llvm::SMRange opRange, ExprPtr value)
      : Stmt(Kind::Assign, range), name(name), nameRange(nameRange), op(op),
        opRange(opRange), value(std::move(value)) {}
  static bool classof(const Stmt *s) { return s->getKind() == Kind::Assign; }
  llvm::StringRef name;
  llvm::SMRange nameRange;
  Tok op; // Assign, PlusAssign, MinusAssign or StarAssign
  llvm::SMRange opRange;
  ExprPtr value;
};

/// A call used as a statement: `copy_async(...)`, `ps.advance()`.
class ExprStmt : public Stmt {
public:
  ExprStmt(llvm::SMRange range, ExprPtr expr)
      : Stmt(Kind::Expr, range), expr(std::move(expr)) {}
  static bool classof(const Stmt *s) { return s->getKind() == Kind::Expr; }
  ExprPtr expr;
};

/// `for VARS in ITER { body }`; ITER is range(...), unroll(...), tiles(...) or
/// persistent(...).
class ForStmt : public Stmt {
public:
  struct Var {
    llvm::StringRef name;
    llvm::SMRange range;
  };
  ForStmt(llvm::SMRange range, std::vector<Var> vars, ExprPtr iter, Body body)
      : Stmt(Kind::For, range), vars(std::move(vars)), iter(std::move(iter)),
        body(std::move(body)) {}
  static bool classof(const Stmt *s) { return s->getKind() == Kind::For; }
  std::vector<Var> vars;
  ExprPtr iter;
  Body body;
};

class WhileStmt : public Stmt {
public:
  WhileStmt(llvm::SMRange range, ExprPtr cond, Body body)
      : Stmt(Kind::While, range), cond(std::move(cond)), body(std::move(body)) {
  }
  static bool classof(const Stmt *s) { return s->getKind() == Kind::While; }
  ExprPtr cond;
  Body body;
};

/// `if cond { } else { }`; `else if` nests another IfStmt in the else block.
class IfStmt : public Stmt {
public:
  IfStmt(llvm::SMRange range, ExprPtr cond, Body thenBlock,
         std::unique_ptr<Body> elseBlock)
      : Stmt(Kind::If, range), cond(std::move(cond)),
        thenBlock(std::move(thenBlock)), elseBlock(std::move(elseBlock)) {}
  static bool classof(const Stmt *s) { return s->getKind() == Kind::If; }
  ExprPtr cond;
  Body thenBlock;
  std::unique_ptr<Body> elseBlock;
};

/// `role NAME: warpgroup 1, warp 3, one thread, regs 40 { body }`.
class RoleStmt : public Stmt {
public:
  RoleStmt(llvm::SMRange range, llvm::StringRef name, llvm::SMRange nameRange,
           std::vector<Clause> clauses, Body body)
      : Stmt(Kind::Role, range), name(name), nameRange(nameRange),
        clauses(std::move(clauses)), body(std::move(body)) {}
  static bool classof(const Stmt *s) { return s->getKind() == Kind::Role; }
  llvm::StringRef name;
  llvm::SMRange nameRange;
  std::vector<Clause> clauses;
  Body body;
  /// The header had a syntax error: clauses may be missing.
  bool headerError = false;
};

/// `single_thread warp|warpgroup|cta { body }`.
class SingleThreadStmt : public Stmt {
public:
  SingleThreadStmt(llvm::SMRange range, llvm::StringRef scope,
                   llvm::SMRange scopeRange, Body body)
      : Stmt(Kind::SingleThread, range), scope(scope), scopeRange(scopeRange),
        body(std::move(body)) {}
  static bool classof(const Stmt *s) {
    return s->getKind() == Kind::SingleThread;
  }
  llvm::StringRef scope;
  llvm::SMRange scopeRange;
  Body body;
};

//===----------------------------------------------------------------------===//
// Kernels and files
//===----------------------------------------------------------------------===//

/// `NAME: global f16[M, K]` or `NAME: f32`.
struct KernelArg {
  llvm::StringRef name;
  llvm::SMRange nameRange;
  bool isGlobal = false;
  /// `f16[M, K]` for a global tensor, `f32` for a scalar.
  ExprPtr type;
};

struct KernelDecl {
  llvm::SMRange range;
  llvm::StringRef name;
  llvm::SMRange nameRange;
  std::vector<KernelArg> args;
  std::vector<Clause> clauses;
  Body body;
  /// The header had a syntax error: clauses may be missing.
  bool headerError = false;
};

/// A file: params, consts and asserts at the top level, then kernels. The
/// items keep their order; a kernel sees the params declared before it.
struct TopLevelItem {
  StmtPtr stmt;                       // a ParamStmt or AssertStmt
  std::unique_ptr<KernelDecl> kernel; // or a kernel
};

struct Module {
  std::vector<TopLevelItem> items;
};

} // namespace tilec::frontend

#endif // TILEC_LIB_FRONTEND_AST_H

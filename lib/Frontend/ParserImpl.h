//===- ParserImpl.h - the tile DSL parser, shared by its files --*- C++ -*-===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//
//
// The recursive-descent parser behind parseModule (Parser.h). Its methods
// are defined in Parser.cpp (files, kernels, statements) and ParseExpr.cpp
// (expressions); this header is private to those two files.
//
// Error recovery: the first syntax error in a statement is reported and the
// rest of that statement is skipped (up to the end of its line, or past the
// block it opens). Further errors in the same statement would only be
// consequences of the first, so they are not reported.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_FRONTEND_PARSERIMPL_H
#define TILEC_LIB_FRONTEND_PARSERIMPL_H

#include "lib/Frontend/Parser.h"

namespace tilec::frontend::detail {

class Parser {
public:
  Parser(llvm::StringRef buffer, DiagnosticEngine &diag)
      : buffer(buffer), diag(diag) {
    tokens = lex(buffer, diag, &badLines);
  }

  Module parseModule();

private:
  //===--------------------------------------------------------------------===//
  // Tokens
  //===--------------------------------------------------------------------===//

  const Token &tok() const { return tokens[pos]; }
  const Token &peek(size_t n = 1) const {
    return tokens[std::min(pos + n, tokens.size() - 1)];
  }
  bool is(Tok kind) const { return tok().is(kind); }
  bool isIdent(llvm::StringRef text) const {
    return is(Tok::Ident) && tok().spelling == text;
  }
  const Token &consume() {
    const Token &t = tokens[pos];
    prevEnd = t.getEndLoc();
    if (pos + 1 < tokens.size())
      ++pos;
    return t;
  }
  bool accept(Tok kind) {
    if (!is(kind))
      return false;
    consume();
    return true;
  }
  llvm::SMRange rangeFrom(llvm::SMLoc start) const { return {start, prevEnd}; }
  void skipNewlines() {
    while (is(Tok::Newline) || is(Tok::Semi))
      consume();
  }

  /// How a token reads in "expected X, got Y".
  static std::string describeToken(const Token &t) {
    switch (t.kind) {
    case Tok::Ident:
    case Tok::Int:
    case Tok::Float:
    case Tok::String:
      return ("'" + t.spelling + "'").str();
    default:
      return describe(t.kind);
    }
  }

  //===--------------------------------------------------------------------===//
  // Errors and recovery
  //===--------------------------------------------------------------------===//

  /// Reports the first syntax error of a statement.
  void syntaxError(llvm::SMRange range, const llvm::Twine &message) {
    if (!needRecovery && !onBadLine(range.Start))
      diag.error(range, message);
    needRecovery = true;
  }
  bool onBadLine(llvm::SMLoc loc) const {
    if (badLines.empty() || !loc.isValid())
      return false;
    return llvm::is_contained(badLines, lineStart(buffer, loc.getPointer()));
  }
  void expected(const llvm::Twine &what) {
    syntaxError(tok().getRange(),
                "expected " + what + ", got " + describeToken(tok()));
  }
  bool expect(Tok kind, const llvm::Twine &what) {
    if (accept(kind))
      return true;
    expected(what);
    return false;
  }
  /// Expects `closing` that matches `open`, with a note at `open`.
  bool expectClosing(Tok closing, const Token &open) {
    if (accept(closing))
      return true;
    bool report = !needRecovery;
    expected(describe(closing));
    if (report)
      diag.note(open.getRange(), "to match this " + describe(open.kind));
    return false;
  }
  /// Skips the rest of a statement: to the end of its line, past any block
  /// it opened, but not past the '}' that closes the enclosing block.
  void skipStatement() {
    int braces = 0;
    while (!is(Tok::Eof)) {
      if ((is(Tok::Newline) || is(Tok::Semi)) && braces == 0) {
        consume();
        break;
      }
      if (is(Tok::LBrace))
        ++braces;
      if (is(Tok::RBrace)) {
        if (braces == 0)
          break;
        --braces;
      }
      consume();
    }
    needRecovery = false;
    depthReported = false;
  }
  /// After a statement: a newline, ';', or the '}' of the block.
  void expectStatementEnd() {
    if (needRecovery) {
      skipStatement();
      return;
    }
    if (is(Tok::Newline) || is(Tok::Semi)) {
      consume();
      return;
    }
    if (is(Tok::RBrace) || is(Tok::Eof))
      return;
    expected("the end of the statement");
    skipStatement();
  }

  /// Counts nesting; false (after one report) when it is too deep.
  bool enterNesting() {
    if (++depth <= kMaxNestingDepth)
      return true;
    if (!depthReported)
      syntaxError(tok().getRange(), "nesting is too deep (more than " +
                                        llvm::Twine(kMaxNestingDepth) +
                                        " levels)");
    depthReported = true;
    needRecovery = true;
    return false;
  }
  struct NestingScope {
    explicit NestingScope(Parser &p) : p(p), ok(p.enterNesting()) {}
    ~NestingScope() { --p.depth; }
    Parser &p;
    bool ok;
  };

  /// The column of the first character of the line that holds `p`.
  size_t indentation(const char *p) const {
    const char *start = lineStart(buffer, p);
    const char *first = start;
    while (first != buffer.end() && (*first == ' ' || *first == '\t'))
      ++first;
    return first - start;
  }

  static bool canStartExpression(const Token &t) {
    switch (t.kind) {
    case Tok::Int:
    case Tok::Float:
    case Tok::String:
    case Tok::Ident:
    case Tok::KwTrue:
    case Tok::KwFalse:
    case Tok::KwNot:
    case Tok::LParen:
    case Tok::LBracket:
    case Tok::Minus:
    case Tok::Plus:
    case Tok::Tilde:
      return true;
    default:
      return false;
    }
  }

  /// False (after one report) when `expr` is too tall.
  bool checkHeight(const Expr &expr) {
    if (expr.getHeight() <= kMaxExpressionHeight)
      return true;
    syntaxError(expr.getRange(),
                "this expression is too long (more than " +
                    llvm::Twine(kMaxExpressionHeight) +
                    " operators deep); split it into several lets or consts");
    return false;
  }

  ExprPtr errorExpr() { return std::make_unique<ErrorExpr>(tok().getRange()); }

  //===--------------------------------------------------------------------===//
  // Grammar
  //===--------------------------------------------------------------------===//

  std::unique_ptr<KernelDecl> parseKernel();
  bool parseKernelArg(KernelArg &arg);
  Body parseBlock();
  StmtPtr parseStatement();
  StmtPtr parseParam();
  /// `NAME = value` of a param, const or let.
  bool parseNameAndValue(llvm::StringRef &name, llvm::SMRange &nameRange,
                         ExprPtr &value);
  StmtPtr parseAssert();
  StmtPtr parseDecl();
  StmtPtr parseLet();
  /// `let (a, b) = value`, at its '('.
  StmtPtr parseUnpackingLet(llvm::SMLoc start);
  StmtPtr parseFor();
  StmtPtr parseWhile();
  StmtPtr parseIf();
  StmtPtr parseRole();
  StmtPtr parseSingleThread();
  StmtPtr parseExprOrAssign();
  std::vector<Clause> parseDeclClauses();

  ExprPtr parseExpr() { return parseBinary(1); }
  ExprPtr parseBinary(int level);
  ExprPtr parseUnary();
  ExprPtr parsePostfix();
  ExprPtr parsePrimary();
  ExprPtr parseCall(ExprPtr callee);
  ExprPtr parseIndex(ExprPtr base);
  ExprPtr parseIndexItem();
  std::vector<ExprPtr> parseExprList(Tok closing, const Token &open);

  llvm::StringRef buffer;
  std::vector<Token> tokens;
  std::vector<const char *> badLines;
  size_t pos = 0;
  DiagnosticEngine &diag;
  llvm::SMLoc prevEnd;
  unsigned depth = 0;
  bool depthReported = false;
  bool eofReported = false;
  /// The indentation of the statement being parsed.
  size_t statementIndent = 0;
  bool needRecovery = false;
};

} // namespace tilec::frontend::detail

#endif // TILEC_LIB_FRONTEND_PARSERIMPL_H

//===- Parser.cpp - recursive-descent parser of the tile DSL -------------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//
//
// Error recovery: the first syntax error in a statement is reported and the
// rest of that statement is skipped (up to the end of its line, or past the
// block it opens). Further errors in the same statement would only be
// consequences of the first, so they are not reported.
//
//===----------------------------------------------------------------------===//

#include "lib/Frontend/Parser.h"

#include "llvm/ADT/StringSwitch.h"

using namespace tilec::frontend;

namespace {

/// Binding strength of binary operators; 0 for other tokens.
int precedence(Tok kind) {
  switch (kind) {
  case Tok::KwOr:
    return 1;
  case Tok::KwAnd:
    return 2;
  // 3 is `not`, a prefix operator.
  case Tok::EqEq:
  case Tok::NotEq:
  case Tok::Less:
  case Tok::LessEq:
  case Tok::Greater:
  case Tok::GreaterEq:
    return 4;
  case Tok::Pipe:
    return 5;
  case Tok::Caret:
    return 6;
  case Tok::Amp:
    return 7;
  case Tok::Shl:
  case Tok::Shr:
    return 8;
  case Tok::Plus:
  case Tok::Minus:
    return 9;
  case Tok::Star:
  case Tok::Slash:
  case Tok::SlashSlash:
  case Tok::Percent:
    return 10;
  default:
    return 0;
  }
}
constexpr int kComparisonPrecedence = 4;
constexpr int kNotPrecedence = 3;
constexpr int kMaxPrecedence = 10;

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

} // namespace

//===----------------------------------------------------------------------===//
// Files and kernels
//===----------------------------------------------------------------------===//

Module Parser::parseModule() {
  Module module;
  while (true) {
    skipNewlines();
    if (is(Tok::Eof) || diag.tooManyErrors())
      break;
    TopLevelItem item;
    statementIndent = indentation(tok().getLoc().getPointer());
    switch (tok().kind) {
    case Tok::KwParam:
    case Tok::KwConst:
      item.stmt = parseParam();
      expectStatementEnd();
      break;
    case Tok::KwAssert:
      item.stmt = parseAssert();
      expectStatementEnd();
      break;
    case Tok::KwKernel:
      item.kernel = parseKernel();
      expectStatementEnd();
      break;
    default: {
      std::string hint;
      if (is(Tok::Ident))
        hint = didYouMean(tok().spelling, {"kernel", "param", "const"});
      syntaxError(tok().getRange(),
                  "expected 'param', 'const', 'assert' or 'kernel' at the top "
                  "level, got " +
                      describeToken(tok()) + hint);
      if (is(Tok::RBrace))
        consume();
      skipStatement();
      continue;
    }
    }
    if (item.stmt || item.kernel)
      module.items.push_back(std::move(item));
  }
  return module;
}

std::unique_ptr<KernelDecl> Parser::parseKernel() {
  auto kernel = std::make_unique<KernelDecl>();
  llvm::SMLoc start = consume().getLoc(); // 'kernel'
  if (is(Tok::Ident)) {
    kernel->name = tok().spelling;
    kernel->nameRange = consume().getRange();
  } else {
    expected("the kernel's name");
  }
  bool headerOk = !needRecovery;
  if (headerOk && is(Tok::LParen)) {
    const Token &open = consume();
    skipNewlines();
    while (!is(Tok::RParen) && !needRecovery) {
      KernelArg arg;
      if (!parseKernelArg(arg))
        break;
      kernel->args.push_back(std::move(arg));
      if (!accept(Tok::Comma))
        break;
    }
    if (!needRecovery)
      expectClosing(Tok::RParen, open);
  } else if (headerOk) {
    expected("'(' and the kernel's arguments");
  }
  // Header clauses, up to the body's '{'.
  while (!needRecovery) {
    while (is(Tok::Newline))
      consume();
    if (is(Tok::LBrace))
      break;
    if (!is(Tok::Ident)) {
      expected("a kernel clause (target, warpgroups, cluster, grid) or '{'");
      break;
    }
    Clause clause;
    clause.keyword = tok().spelling;
    clause.keywordRange = consume().getRange();
    clause.value = parseExpr();
    kernel->clauses.push_back(std::move(clause));
    accept(Tok::Comma);
  }
  if (needRecovery) {
    kernel->headerError = true;
    // Resume at the body so that its errors are still reported.
    while (!is(Tok::Eof) && !is(Tok::LBrace))
      consume();
    needRecovery = false;
  }
  kernel->body = parseBlock();
  kernel->range = rangeFrom(start);
  return kernel;
}

bool Parser::parseKernelArg(KernelArg &arg) {
  if (!is(Tok::Ident)) {
    expected("an argument name");
    return false;
  }
  arg.name = tok().spelling;
  arg.nameRange = consume().getRange();
  if (!expect(Tok::Colon, "':' and the argument's type"))
    return false;
  if (isIdent("global")) {
    arg.isGlobal = true;
    llvm::SMLoc globalLoc = consume().getLoc();
    if (is(Tok::LBracket)) {
      // `global[M, K] f16`: the shape before the element type.
      const Token &open = consume();
      std::vector<ExprPtr> dims = parseExprList(Tok::RBracket, open);
      llvm::SMRange dimsRange = rangeFrom(open.getLoc());
      std::string dtype = is(Tok::Ident) ? tok().spelling.str() : "f16";
      if (is(Tok::Ident)) {
        llvm::SMLoc dtypeStart = tok().getLoc();
        consume();
        std::string dimsText(dimsRange.Start.getPointer(),
                             dimsRange.End.getPointer());
        diag.errorWithFixIt(
            {globalLoc, prevEnd},
            "write the element type before the shape: 'global " + dtype +
                dimsText + "'",
            "global " + dtype + dimsText);
        auto base = std::make_unique<NameExpr>(
            llvm::SMRange{dtypeStart, prevEnd}, tokens[pos - 1].spelling);
        arg.type = std::make_unique<IndexExpr>(
            rangeFrom(globalLoc), std::move(base), std::move(dims));
        return true;
      }
      expected("the element type");
      return false;
    }
  }
  arg.type = parsePostfix();
  return !needRecovery;
}

Body Parser::parseBlock() {
  Body block;
  llvm::SMLoc start = tok().getLoc();
  NestingScope nesting(*this);
  if (!nesting.ok)
    return block;
  if (!is(Tok::LBrace)) {
    expected("'{'");
    block.range = {start, start};
    return block;
  }
  const Token &open = consume();
  while (true) {
    skipNewlines();
    if (accept(Tok::RBrace))
      break;
    if (is(Tok::Eof)) {
      // Only the innermost open block is reported.
      if (!eofReported) {
        bool report = !needRecovery;
        syntaxError(tok().getRange(), "expected '}' at the end of the file");
        if (report)
          diag.note(open.getRange(), "to match this '{'");
      }
      eofReported = true;
      break;
    }
    if (diag.tooManyErrors()) {
      while (!is(Tok::Eof))
        consume();
      break;
    }
    if (StmtPtr stmt = parseStatement())
      block.stmts.push_back(std::move(stmt));
    expectStatementEnd();
  }
  block.range = rangeFrom(start);
  return block;
}

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

StmtPtr Parser::parseStatement() {
  statementIndent = indentation(tok().getLoc().getPointer());
  switch (tok().kind) {
  case Tok::KwParam:
  case Tok::KwConst:
    return parseParam();
  case Tok::KwAssert:
    return parseAssert();
  case Tok::KwLet:
    return parseLet();
  case Tok::KwFor:
    return parseFor();
  case Tok::KwWhile:
    return parseWhile();
  case Tok::KwIf:
    return parseIf();
  case Tok::KwRole:
    return parseRole();
  case Tok::KwSingleThread:
    return parseSingleThread();
  case Tok::KwKernel:
    syntaxError(tok().getRange(), "a kernel cannot be declared inside "
                                  "another; close this one with '}' first");
    return nullptr;
  case Tok::KwElse:
    syntaxError(tok().getRange(), "'else' without an 'if' before it");
    return nullptr;
  case Tok::Ident:
    if ((isIdent("smem") || isIdent("tmem") || isIdent("barrier")) &&
        peek().is(Tok::Ident))
      return parseDecl();
    // Two names in a row start no valid statement: most likely a misspelled
    // keyword (`barier full: tma[2]`).
    if (peek().is(Tok::Ident)) {
      std::string hint = didYouMean(tok().spelling, getStatementKeywords());
      syntaxError(tok().getRange(),
                  "unknown statement '" + tok().spelling + "'" + hint);
      return nullptr;
    }
    return parseExprOrAssign();
  default:
    return parseExprOrAssign();
  }
}

StmtPtr Parser::parseParam() {
  const Token &keyword = consume();
  bool isParam = keyword.is(Tok::KwParam);
  llvm::SMLoc start = keyword.getLoc();
  llvm::StringRef name;
  llvm::SMRange nameRange;
  ExprPtr value;
  if (!parseNameAndValue(name, nameRange, value))
    return nullptr;
  return std::make_unique<ParamStmt>(rangeFrom(start), isParam, name, nameRange,
                                     std::move(value));
}

bool Parser::parseNameAndValue(llvm::StringRef &name, llvm::SMRange &nameRange,
                               ExprPtr &value) {
  if (!is(Tok::Ident)) {
    expected("a name");
    return false;
  }
  name = tok().spelling;
  nameRange = consume().getRange();
  if (expect(Tok::Assign, "'=' and a value"))
    value = parseExpr();
  else
    value = errorExpr();
  return true;
}

StmtPtr Parser::parseAssert() {
  llvm::SMLoc start = consume().getLoc();
  ExprPtr cond = parseExpr();
  std::string message;
  if (accept(Tok::Comma)) {
    if (is(Tok::String))
      message = consume().stringValue;
    else
      expected("a message string");
  }
  return std::make_unique<AssertStmt>(rangeFrom(start), std::move(cond),
                                      std::move(message));
}

std::vector<Clause> Parser::parseDeclClauses() {
  std::vector<Clause> clauses;
  while (!needRecovery) {
    accept(Tok::Comma);
    if (!is(Tok::Ident))
      break;
    Clause clause;
    clause.keyword = tok().spelling;
    clause.keywordRange = consume().getRange();
    clause.value = parseExpr();
    clauses.push_back(std::move(clause));
  }
  return clauses;
}

StmtPtr Parser::parseDecl() {
  const Token &keyword = consume();
  Stmt::Kind kind = keyword.spelling == "smem"   ? Stmt::Kind::Smem
                    : keyword.spelling == "tmem" ? Stmt::Kind::Tmem
                                                 : Stmt::Kind::Barrier;
  llvm::SMLoc start = keyword.getLoc();
  if (!is(Tok::Ident)) {
    expected("a name");
    return nullptr;
  }
  llvm::StringRef name = tok().spelling;
  llvm::SMRange nameRange = consume().getRange();
  ExprPtr type;
  if (expect(Tok::Colon, kind == Stmt::Kind::Barrier
                             ? "':' and the barrier kind, as in 'tma[4]'"
                             : "':' and the buffer's type, as in "
                               "'f16[128, 64]'"))
    type = parsePostfix();
  else
    type = errorExpr();
  std::vector<Clause> clauses = parseDeclClauses();
  return std::make_unique<DeclStmt>(kind, rangeFrom(start), name, nameRange,
                                    std::move(type), std::move(clauses));
}

StmtPtr Parser::parseLet() {
  llvm::SMLoc start = consume().getLoc();
  llvm::StringRef name;
  llvm::SMRange nameRange;
  ExprPtr value;
  if (!parseNameAndValue(name, nameRange, value))
    return nullptr;
  return std::make_unique<LetStmt>(rangeFrom(start), name, nameRange,
                                   std::move(value));
}

StmtPtr Parser::parseFor() {
  llvm::SMLoc start = consume().getLoc();
  std::vector<ForStmt::Var> vars;
  bool parens = accept(Tok::LParen);
  while (true) {
    if (!is(Tok::Ident)) {
      expected("a loop variable");
      return nullptr;
    }
    vars.push_back({tok().spelling, tok().getRange()});
    consume();
    if (!accept(Tok::Comma))
      break;
  }
  if (parens && !expect(Tok::RParen, "')'"))
    return nullptr;
  if (!expect(Tok::KwIn, "'in'"))
    return nullptr;
  ExprPtr iter = parseExpr();
  if (needRecovery)
    return nullptr;
  Body body = parseBlock();
  return std::make_unique<ForStmt>(rangeFrom(start), std::move(vars),
                                   std::move(iter), std::move(body));
}

StmtPtr Parser::parseWhile() {
  llvm::SMLoc start = consume().getLoc();
  ExprPtr cond = parseExpr();
  if (needRecovery)
    return nullptr;
  Body body = parseBlock();
  return std::make_unique<WhileStmt>(rangeFrom(start), std::move(cond),
                                     std::move(body));
}

StmtPtr Parser::parseIf() {
  llvm::SMLoc start = consume().getLoc();
  ExprPtr cond = parseExpr();
  if (needRecovery)
    return nullptr;
  Body thenBlock = parseBlock();
  std::unique_ptr<Body> elseBlock;
  // `else` may sit on the line after the '}'.
  size_t save = pos;
  while (is(Tok::Newline))
    consume();
  if (is(Tok::KwElse)) {
    consume();
    elseBlock = std::make_unique<Body>();
    if (is(Tok::KwIf)) {
      NestingScope nesting(*this);
      if (!nesting.ok)
        return nullptr;
      llvm::SMLoc elseStart = tok().getLoc();
      if (StmtPtr nested = parseIf())
        elseBlock->stmts.push_back(std::move(nested));
      elseBlock->range = rangeFrom(elseStart);
    } else {
      *elseBlock = parseBlock();
    }
  } else {
    pos = save;
  }
  return std::make_unique<IfStmt>(rangeFrom(start), std::move(cond),
                                  std::move(thenBlock), std::move(elseBlock));
}

StmtPtr Parser::parseRole() {
  llvm::SMLoc start = consume().getLoc();
  if (!is(Tok::Ident)) {
    expected("the role's name");
    return nullptr;
  }
  llvm::StringRef name = tok().spelling;
  llvm::SMRange nameRange = consume().getRange();
  std::vector<Clause> clauses;
  if (!expect(Tok::Colon, "':' and the warps that run the role, as in "
                          "'role producer: warpgroup 1, warp 3, one thread'"))
    return nullptr;
  while (true) {
    if (!is(Tok::Ident)) {
      expected("a role clause (warpgroup, warp, one thread, all threads or "
               "regs)");
      return nullptr;
    }
    Clause clause;
    clause.keyword = tok().spelling;
    clause.keywordRange = consume().getRange();
    if (clause.keyword == "one" || clause.keyword == "all") {
      if (is(Tok::Ident) &&
          (tok().spelling == "thread" || tok().spelling == "threads")) {
        clause.keywordRange.End = consume().getEndLoc();
      } else {
        expected(clause.keyword == "one" ? "'thread'" : "'threads'");
        return nullptr;
      }
    } else {
      clause.value = parseExpr();
    }
    clauses.push_back(std::move(clause));
    if (needRecovery)
      return nullptr;
    if (!accept(Tok::Comma))
      break;
  }
  Body body = parseBlock();
  return std::make_unique<RoleStmt>(rangeFrom(start), name, nameRange,
                                    std::move(clauses), std::move(body));
}

StmtPtr Parser::parseSingleThread() {
  llvm::SMLoc start = consume().getLoc();
  if (!is(Tok::Ident)) {
    expected("the scope that elects the thread (warp, warpgroup or cta)");
    return nullptr;
  }
  llvm::StringRef scope = tok().spelling;
  llvm::SMRange scopeRange = consume().getRange();
  Body body = parseBlock();
  return std::make_unique<SingleThreadStmt>(rangeFrom(start), scope, scopeRange,
                                            std::move(body));
}

StmtPtr Parser::parseExprOrAssign() {
  llvm::SMLoc start = tok().getLoc();
  ExprPtr expr = parseExpr();
  if (needRecovery)
    return nullptr;
  Tok op = tok().kind;
  if (op == Tok::Assign || op == Tok::PlusAssign || op == Tok::MinusAssign ||
      op == Tok::StarAssign) {
    llvm::SMRange opRange = consume().getRange();
    auto *name = llvm::dyn_cast<NameExpr>(expr.get());
    if (!name) {
      syntaxError(expr->getRange(), "only a variable can be assigned to");
      return nullptr;
    }
    ExprPtr value = parseExpr();
    return std::make_unique<AssignStmt>(rangeFrom(start), name->name,
                                        name->getRange(), op, opRange,
                                        std::move(value));
  }
  // `x == 1` alone is a comparison whose value is dropped: almost surely a
  // typo for `x = 1`.
  if (auto *binary = llvm::dyn_cast<BinaryExpr>(expr.get());
      binary && binary->op == Tok::EqEq &&
      llvm::isa<NameExpr>(binary->lhs.get())) {
    syntaxError(binary->opRange, "'==' compares; write '=' to assign");
    return nullptr;
  }
  return std::make_unique<ExprStmt>(rangeFrom(start), std::move(expr));
}

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

ExprPtr Parser::parseBinary(int level) {
  if (level == kNotPrecedence) {
    if (is(Tok::KwNot)) {
      NestingScope nesting(*this);
      if (!nesting.ok)
        return errorExpr();
      llvm::SMLoc start = consume().getLoc();
      ExprPtr operand = parseBinary(kNotPrecedence);
      return std::make_unique<UnaryExpr>(rangeFrom(start), Tok::KwNot,
                                         std::move(operand));
    }
    return parseBinary(level + 1);
  }
  if (level > kMaxPrecedence)
    return parseUnary();
  ExprPtr lhs = parseBinary(level + 1);
  while (precedence(tok().kind) == level && !needRecovery) {
    Tok op = tok().kind;
    llvm::SMRange opRange = consume().getRange();
    // A line that ends with a binary operator continues on the next one,
    // if that one is indented more than the statement's first line.
    if (is(Tok::Newline)) {
      size_t save = pos;
      while (is(Tok::Newline))
        consume();
      if (!canStartExpression(tok()) ||
          indentation(tok().getLoc().getPointer()) <= statementIndent) {
        pos = save;
        syntaxError(opRange, "expected an expression after " + describe(op));
        return errorExpr();
      }
    }
    ExprPtr rhs = parseBinary(level + 1);
    llvm::SMRange range{lhs->getRange().Start, rhs->getRange().End};
    lhs = std::make_unique<BinaryExpr>(range, op, opRange, std::move(lhs),
                                       std::move(rhs));
    if (!checkHeight(*lhs))
      return errorExpr();
    if (level == kComparisonPrecedence &&
        precedence(tok().kind) == kComparisonPrecedence) {
      syntaxError(tok().getRange(),
                  "comparisons cannot be chained; combine them with 'and'");
      return errorExpr();
    }
  }
  return lhs;
}

ExprPtr Parser::parseUnary() {
  if (is(Tok::Minus) || is(Tok::Tilde) || is(Tok::Plus)) {
    NestingScope nesting(*this);
    if (!nesting.ok)
      return errorExpr();
    const Token &op = consume();
    Tok kind = op.kind;
    llvm::SMLoc start = op.getLoc();
    ExprPtr operand = parseUnary();
    if (kind == Tok::Plus)
      return operand;
    return std::make_unique<UnaryExpr>(rangeFrom(start), kind,
                                       std::move(operand));
  }
  return parsePostfix();
}

ExprPtr Parser::parsePostfix() {
  ExprPtr expr = parsePrimary();
  while (!needRecovery && checkHeight(*expr)) {
    if (is(Tok::LParen)) {
      expr = parseCall(std::move(expr));
    } else if (is(Tok::LBracket)) {
      expr = parseIndex(std::move(expr));
    } else if (is(Tok::Dot)) {
      consume();
      if (!is(Tok::Ident)) {
        expected("a member name after '.'");
        return errorExpr();
      }
      llvm::SMRange memberRange = tok().getRange();
      llvm::StringRef member = consume().spelling;
      llvm::SMRange range{expr->getRange().Start, memberRange.End};
      expr = std::make_unique<MemberExpr>(range, std::move(expr), member,
                                          memberRange);
    } else {
      break;
    }
  }
  return expr;
}

std::vector<ExprPtr> Parser::parseExprList(Tok closing, const Token &open) {
  std::vector<ExprPtr> elements;
  while (!is(closing) && !needRecovery) {
    elements.push_back(parseExpr());
    if (!accept(Tok::Comma))
      break;
  }
  if (!needRecovery)
    expectClosing(closing, open);
  return elements;
}

ExprPtr Parser::parsePrimary() {
  const Token &t = tok();
  switch (t.kind) {
  case Tok::Int: {
    consume();
    return std::make_unique<IntExpr>(t.getRange(), t.intValue, t.suffix);
  }
  case Tok::Float:
    consume();
    return std::make_unique<FloatExpr>(t.getRange(), t.floatValue);
  case Tok::String:
    consume();
    return std::make_unique<StringExpr>(t.getRange(), t.stringValue);
  case Tok::KwTrue:
  case Tok::KwFalse:
    consume();
    return std::make_unique<BoolExpr>(t.getRange(), t.is(Tok::KwTrue));
  case Tok::Ident:
    consume();
    return std::make_unique<NameExpr>(t.getRange(), t.spelling);
  case Tok::LParen: {
    NestingScope nesting(*this);
    if (!nesting.ok)
      return errorExpr();
    const Token &open = consume();
    if (is(Tok::RParen)) {
      syntaxError(tok().getRange(), "expected an expression in '()'");
      return errorExpr();
    }
    ExprPtr first = parseExpr();
    if (accept(Tok::Comma)) {
      std::vector<ExprPtr> elements;
      elements.push_back(std::move(first));
      std::vector<ExprPtr> rest = parseExprList(Tok::RParen, open);
      for (ExprPtr &e : rest)
        elements.push_back(std::move(e));
      return std::make_unique<TupleExpr>(rangeFrom(open.getLoc()),
                                         std::move(elements));
    }
    if (!needRecovery)
      expectClosing(Tok::RParen, open);
    return first;
  }
  case Tok::LBracket: {
    NestingScope nesting(*this);
    if (!nesting.ok)
      return errorExpr();
    const Token &open = consume();
    std::vector<ExprPtr> elements = parseExprList(Tok::RBracket, open);
    return std::make_unique<ListExpr>(rangeFrom(open.getLoc()),
                                      std::move(elements));
  }
  default:
    expected("an expression");
    return errorExpr();
  }
}

ExprPtr Parser::parseCall(ExprPtr callee) {
  NestingScope nesting(*this);
  if (!nesting.ok)
    return errorExpr();
  const Token &open = consume();
  std::vector<ExprPtr> args;
  std::vector<KeywordArg> keywords;
  while (!is(Tok::RParen) && !needRecovery) {
    // A keyword is a valid argument name (`barrier = full[s]`).
    if ((is(Tok::Ident) || tok().isKeyword()) && peek().is(Tok::Assign)) {
      KeywordArg keyword;
      keyword.name = tok().spelling;
      keyword.nameRange = consume().getRange();
      consume(); // '='
      keyword.value = parseExpr();
      keywords.push_back(std::move(keyword));
    } else {
      ExprPtr arg = parseExpr();
      if (!keywords.empty() && !needRecovery)
        syntaxError(arg->getRange(),
                    "a positional argument cannot follow a keyword argument");
      args.push_back(std::move(arg));
    }
    if (!accept(Tok::Comma))
      break;
  }
  if (!needRecovery)
    expectClosing(Tok::RParen, open);
  llvm::SMRange range{callee->getRange().Start, prevEnd};
  return std::make_unique<CallExpr>(range, std::move(callee), std::move(args),
                                    std::move(keywords));
}

ExprPtr Parser::parseIndexItem() {
  llvm::SMLoc start = tok().getLoc();
  ExprPtr first;
  if (!is(Tok::Colon))
    first = parseExpr();
  if (!accept(Tok::Colon))
    return first;
  ExprPtr second;
  if (!is(Tok::Comma) && !is(Tok::RBracket))
    second = parseExpr();
  return std::make_unique<SliceExpr>(rangeFrom(start), std::move(first),
                                     std::move(second));
}

ExprPtr Parser::parseIndex(ExprPtr base) {
  NestingScope nesting(*this);
  if (!nesting.ok)
    return errorExpr();
  const Token &open = consume();
  std::vector<ExprPtr> items;
  while (!is(Tok::RBracket) && !needRecovery) {
    items.push_back(parseIndexItem());
    if (!accept(Tok::Comma))
      break;
  }
  if (!needRecovery)
    expectClosing(Tok::RBracket, open);
  llvm::SMRange range{base->getRange().Start, prevEnd};
  return std::make_unique<IndexExpr>(range, std::move(base), std::move(items));
}

Module tilec::frontend::parseModule(llvm::StringRef buffer,
                                    DiagnosticEngine &diag) {
  return Parser(buffer, diag).parseModule();
}

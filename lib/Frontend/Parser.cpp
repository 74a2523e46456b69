//===- Parser.cpp - parsing files, kernels and statements ----------------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//
//
// The statement half of the tile DSL's parser (ParseExpr.cpp has the
// expressions); error recovery is described in ParserImpl.h.
//
//===----------------------------------------------------------------------===//

#include "lib/Frontend/ParserImpl.h"

using namespace tilec::frontend;
using tilec::frontend::detail::Parser;

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
  if (is(Tok::LParen))
    return parseUnpackingLet(start);
  llvm::StringRef name;
  llvm::SMRange nameRange;
  ExprPtr value;
  if (!parseNameAndValue(name, nameRange, value))
    return nullptr;
  return std::make_unique<LetStmt>(rangeFrom(start), name, nameRange,
                                   std::move(value));
}

/// `let (a, b) = expr`, from its '('.
StmtPtr Parser::parseUnpackingLet(llvm::SMLoc start) {
  Token open = consume();
  std::vector<LetStmt::Name> names;
  do {
    if (!is(Tok::Ident)) {
      expected("a name");
      return nullptr;
    }
    names.push_back({tok().spelling, tok().getRange()});
    consume();
  } while (accept(Tok::Comma));
  if (!expectClosing(Tok::RParen, open))
    return nullptr;
  ExprPtr value =
      expect(Tok::Assign, "'=' and a value") ? parseExpr() : errorExpr();
  LetStmt::Name first = names.front();
  return std::make_unique<LetStmt>(rangeFrom(start), first.name, first.range,
                                   std::move(value), std::move(names));
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

Module tilec::frontend::parseModule(llvm::StringRef buffer,
                                    DiagnosticEngine &diag) {
  return Parser(buffer, diag).parseModule();
}

//===- ParseExpr.cpp - parsing expressions of the tile DSL ---------------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//
//
// The expression half of the tile DSL's parser: binary operators by
// precedence climbing, unary operators, calls, indexing and literals.
//
//===----------------------------------------------------------------------===//

#include "lib/Frontend/ParserImpl.h"

using namespace tilec::frontend;
using tilec::frontend::detail::Parser;

/// Binding strength of binary operators; 0 for other tokens.
static int precedence(Tok kind) {
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
static constexpr int kComparisonPrecedence = 4;
static constexpr int kNotPrecedence = 3;
static constexpr int kMaxPrecedence = 10;

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

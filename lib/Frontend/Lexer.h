//===- Lexer.h - tokens of the tile DSL -------------------------*- C++ -*-===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//
//
// The lexer turns a whole buffer into tokens up front. Newlines end
// statements, except inside parentheses and brackets (as in Python), so a
// long call can span lines. `#` starts a comment that runs to the end of the
// line.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_FRONTEND_LEXER_H
#define TILEC_LIB_FRONTEND_LEXER_H

#include "lib/Frontend/Diagnostics.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SMLoc.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tilec::frontend {

enum class Tok {
  Eof,
  Newline,
  Ident,
  Int,    // 128, 0x80, and 128B (a number with a unit suffix)
  Float,  // 1.0, 2.5e-3
  String, // "text"
  // Punctuation.
  LParen,
  RParen,
  LBracket,
  RBracket,
  LBrace,
  RBrace,
  Comma,
  Colon,
  Semi,
  Dot,
  Assign,
  PlusAssign,
  MinusAssign,
  StarAssign,
  EqEq,
  NotEq,
  Less,
  LessEq,
  Greater,
  GreaterEq,
  Plus,
  Minus,
  Star,
  Slash,
  SlashSlash,
  Percent,
  Shl,
  Shr,
  Amp,
  Pipe,
  Caret,
  Tilde,
  // Keywords.
  KwKernel,
  KwParam,
  KwConst,
  KwLet,
  KwSmem,
  KwTmem,
  KwBarrier,
  KwRole,
  KwSingleThread,
  KwFor,
  KwIn,
  KwWhile,
  KwIf,
  KwElse,
  KwAssert,
  KwAnd,
  KwOr,
  KwNot,
  KwTrue,
  KwFalse,
};

/// How a token is spelled for messages ("'('", "a newline", "'kernel'").
std::string describe(Tok kind);

struct Token {
  Tok kind = Tok::Eof;
  /// The token's text in the source buffer.
  llvm::StringRef spelling;
  /// Int: the value; Float: floatValue.
  int64_t intValue = 0;
  double floatValue = 0;
  /// Int: letters written right after the digits (`B` in `128B`).
  llvm::StringRef suffix;
  /// String: the text between the quotes, escapes resolved.
  std::string stringValue;

  llvm::SMLoc getLoc() const {
    return llvm::SMLoc::getFromPointer(spelling.data());
  }
  llvm::SMLoc getEndLoc() const {
    return llvm::SMLoc::getFromPointer(spelling.data() + spelling.size());
  }
  llvm::SMRange getRange() const { return {getLoc(), getEndLoc()}; }
  bool is(Tok k) const { return kind == k; }
  bool isKeyword() const { return kind >= Tok::KwKernel; }
};

/// Splits `buffer` into tokens, reporting bad characters, unterminated
/// strings and literals that do not fit in 64 bits. The result always ends
/// with a Newline and an Eof token.
/// `badLines` receives the start of every line with a lexical error: the
/// parser does not add syntax errors there (they would only repeat it).
std::vector<Token> lex(llvm::StringRef buffer, DiagnosticEngine &diag,
                       std::vector<const char *> *badLines = nullptr);

/// The first character of the line that holds `p`.
const char *lineStart(llvm::StringRef buffer, const char *p);

/// The keywords, for "did you mean" on statements.
llvm::ArrayRef<llvm::StringRef> getStatementKeywords();

} // namespace tilec::frontend

#endif // TILEC_LIB_FRONTEND_LEXER_H

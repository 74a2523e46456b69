//===- Lexer.cpp - tokens of the tile DSL --------------------------------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//

#include "lib/Frontend/Lexer.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/MathExtras.h"

#include <cerrno>
#include <cstdlib>

using namespace tilec::frontend;

static const llvm::StringRef kStatementKeywords[] = {
    "kernel", "param",         "const", "let", "smem",  "tmem", "barrier",
    "role",   "single_thread", "for",   "in",  "while", "if",   "else",
    "assert", "and",           "or",    "not", "true",  "false"};

llvm::ArrayRef<llvm::StringRef> tilec::frontend::getStatementKeywords() {
  return kStatementKeywords;
}

std::string tilec::frontend::describe(Tok kind) {
  switch (kind) {
  case Tok::Eof:
    return "the end of the file";
  case Tok::Newline:
    return "the end of the line";
  case Tok::Ident:
    return "a name";
  case Tok::Int:
    return "an integer";
  case Tok::Float:
    return "a number";
  case Tok::String:
    return "a string";
  case Tok::LParen:
    return "'('";
  case Tok::RParen:
    return "')'";
  case Tok::LBracket:
    return "'['";
  case Tok::RBracket:
    return "']'";
  case Tok::LBrace:
    return "'{'";
  case Tok::RBrace:
    return "'}'";
  case Tok::Comma:
    return "','";
  case Tok::Colon:
    return "':'";
  case Tok::Semi:
    return "';'";
  case Tok::Dot:
    return "'.'";
  case Tok::Assign:
    return "'='";
  case Tok::PlusAssign:
    return "'+='";
  case Tok::MinusAssign:
    return "'-='";
  case Tok::StarAssign:
    return "'*='";
  case Tok::EqEq:
    return "'=='";
  case Tok::NotEq:
    return "'!='";
  case Tok::Less:
    return "'<'";
  case Tok::LessEq:
    return "'<='";
  case Tok::Greater:
    return "'>'";
  case Tok::GreaterEq:
    return "'>='";
  case Tok::Plus:
    return "'+'";
  case Tok::Minus:
    return "'-'";
  case Tok::Star:
    return "'*'";
  case Tok::Slash:
    return "'/'";
  case Tok::SlashSlash:
    return "'//'";
  case Tok::Percent:
    return "'%'";
  case Tok::Shl:
    return "'<<'";
  case Tok::Shr:
    return "'>>'";
  case Tok::Amp:
    return "'&'";
  case Tok::Pipe:
    return "'|'";
  case Tok::Caret:
    return "'^'";
  case Tok::Tilde:
    return "'~'";
  default:
    break;
  }
  unsigned index =
      static_cast<unsigned>(kind) - static_cast<unsigned>(Tok::KwKernel);
  return ("'" + kStatementKeywords[index] + "'").str();
}

/// `smem`, `tmem` and `barrier` are not reserved: they start a declaration
/// only when a name and ':' follow, so a buffer may be called `tmem`.
static Tok keywordKind(llvm::StringRef text) {
  return llvm::StringSwitch<Tok>(text)
      .Case("kernel", Tok::KwKernel)
      .Case("param", Tok::KwParam)
      .Case("const", Tok::KwConst)
      .Case("let", Tok::KwLet)
      .Case("role", Tok::KwRole)
      .Case("single_thread", Tok::KwSingleThread)
      .Case("for", Tok::KwFor)
      .Case("in", Tok::KwIn)
      .Case("while", Tok::KwWhile)
      .Case("if", Tok::KwIf)
      .Case("else", Tok::KwElse)
      .Case("assert", Tok::KwAssert)
      .Case("and", Tok::KwAnd)
      .Case("or", Tok::KwOr)
      .Case("not", Tok::KwNot)
      .Case("true", Tok::KwTrue)
      .Case("false", Tok::KwFalse)
      .Default(Tok::Ident);
}

static bool isIdentStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
static bool isDigit(char c) { return c >= '0' && c <= '9'; }
static bool isIdentChar(char c) { return isIdentStart(c) || isDigit(c); }
static bool isHexDigit(char c) {
  return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

namespace {
class Lexer {
public:
  Lexer(llvm::StringRef buffer, DiagnosticEngine &diag)
      : buffer(buffer), diag(diag), pos(buffer.begin()) {}

  std::vector<Token> run();
  const std::vector<const char *> &getBadLines() const { return badLines; }

private:
  void push(Tok kind, const char *start) {
    Token token;
    token.kind = kind;
    token.spelling = llvm::StringRef(start, pos - start);
    tokens.push_back(std::move(token));
  }
  void pushNewline(const char *at) {
    if (!tokens.empty() && !tokens.back().is(Tok::Newline) &&
        newlinesSignificant()) {
      Token token;
      token.kind = Tok::Newline;
      token.spelling = llvm::StringRef(at, 0);
      tokens.push_back(std::move(token));
    }
  }
  bool newlinesSignificant() const {
    return brackets.empty() || brackets.back() == '{';
  }
  void openBracket(char c) { brackets.push_back(c); }
  void closeBracket(char open) {
    if (open == '{') {
      // A brace ends any parenthesis left open before it, so that one
      // missing ')' does not join the rest of the file into one line.
      while (!brackets.empty() && brackets.back() != '{')
        brackets.pop_back();
      if (!brackets.empty())
        brackets.pop_back();
      return;
    }
    if (!brackets.empty() && brackets.back() == open)
      brackets.pop_back();
  }
  /// Whether the line at `p` starts with a keyword that only begins a
  /// statement (`let`, `for`, ...), never an expression.
  bool startsStatement(const char *p) const {
    const char *end = buffer.end();
    // Skip blank lines and comment lines.
    while (true) {
      while (p != end && (*p == ' ' || *p == '\t' || *p == '\r'))
        ++p;
      if (p != end && *p == '#')
        while (p != end && *p != '\n')
          ++p;
      if (p == end || *p != '\n')
        break;
      ++p;
    }
    const char *word = p;
    while (p != end && isIdentChar(*p))
      ++p;
    Tok kind = keywordKind(llvm::StringRef(word, p - word));
    return kind == Tok::KwLet || kind == Tok::KwParam || kind == Tok::KwConst ||
           kind == Tok::KwFor || kind == Tok::KwWhile || kind == Tok::KwIf ||
           kind == Tok::KwElse || kind == Tok::KwRole ||
           kind == Tok::KwSingleThread || kind == Tok::KwAssert ||
           kind == Tok::KwKernel;
  }
  void lexNumber(const char *start);
  void lexString(const char *start);
  void badCharacter(const char *start);
  void lexError(const char *start, const char *end,
                const llvm::Twine &message) {
    badLines.push_back(lineStart(buffer, start));
    diag.error(rangeOf(start, end), message);
  }
  llvm::SMRange rangeOf(const char *start, const char *end) {
    return {llvm::SMLoc::getFromPointer(start),
            llvm::SMLoc::getFromPointer(end)};
  }

  llvm::StringRef buffer;
  DiagnosticEngine &diag;
  const char *pos;
  std::vector<Token> tokens;
  std::vector<char> brackets;
  std::vector<const char *> badLines;
};
} // namespace

void Lexer::badCharacter(const char *start) {
  // Report a run of bad bytes (a UTF-8 sequence, say) once.
  const char *end = start + 1;
  while (end != buffer.end() && (static_cast<unsigned char>(*end) >= 0x80))
    ++end;
  pos = end;
  char c = *start;
  if (c == '!')
    lexError(start, end,
             "unexpected '!'; write 'not' for "
             "negation and '!=' for inequality");
  else if (c == '&' || c == '|')
    lexError(start, end, "unexpected character");
  else if (static_cast<unsigned char>(c) >= 0x20 &&
           static_cast<unsigned char>(c) < 0x7f)
    lexError(start, end,
             llvm::Twine("unexpected character '") + llvm::Twine(c) + "'");
  else if (static_cast<unsigned char>(c) >= 0x80)
    lexError(start, end,
             "unexpected character '" + llvm::StringRef(start, end - start) +
                 "' (outside comments and strings a spec is ASCII)");
  else
    lexError(start, end,
             "unexpected character (byte 0x" +
                 llvm::utohexstr(static_cast<unsigned char>(c)) + ")");
}

void Lexer::lexNumber(const char *start) {
  const char *end = buffer.end();
  bool isFloat = false;
  unsigned radix = 10;
  if (*pos == '0' && pos + 1 != end && (pos[1] == 'x' || pos[1] == 'X') &&
      pos + 2 != end && isHexDigit(pos[2])) {
    radix = 16;
    pos += 2;
    while (pos != end && isHexDigit(*pos))
      ++pos;
  } else if (*pos == '0' && pos + 1 != end &&
             (pos[1] == 'b' || pos[1] == 'B') && pos + 2 != end &&
             (pos[2] == '0' || pos[2] == '1')) {
    radix = 2;
    pos += 2;
    while (pos != end && (*pos == '0' || *pos == '1'))
      ++pos;
  } else {
    while (pos != end && isDigit(*pos))
      ++pos;
    if (pos != end && *pos == '.' && pos + 1 != end && isDigit(pos[1])) {
      isFloat = true;
      ++pos;
      while (pos != end && isDigit(*pos))
        ++pos;
    }
    if (pos != end && (*pos == 'e' || *pos == 'E')) {
      const char *exp = pos + 1;
      if (exp != end && (*exp == '+' || *exp == '-'))
        ++exp;
      if (exp != end && isDigit(*exp)) {
        isFloat = true;
        pos = exp;
        while (pos != end && isDigit(*pos))
          ++pos;
      }
    }
  }
  const char *digitsEnd = pos;
  while (pos != end && isIdentChar(*pos))
    ++pos;
  Token token;
  token.spelling = llvm::StringRef(start, pos - start);
  token.suffix = llvm::StringRef(digitsEnd, pos - digitsEnd);
  llvm::StringRef digits(start, digitsEnd - start);
  if (isFloat) {
    token.kind = Tok::Float;
    if (!token.suffix.empty())
      lexError(digitsEnd, pos,
               "unexpected '" + token.suffix + "' after a number");
    std::string text = digits.str();
    token.floatValue = std::strtod(text.c_str(), nullptr);
  } else {
    token.kind = Tok::Int;
    uint64_t value = 0;
    llvm::StringRef body = radix == 10 ? digits : digits.drop_front(2);
    if (body.getAsInteger(radix, value) ||
        value > static_cast<uint64_t>(INT64_MAX)) {
      lexError(start, digitsEnd,
               "integer literal '" + digits + "' does not fit in 64 bits");
      value = 0;
    }
    token.intValue = static_cast<int64_t>(value);
  }
  tokens.push_back(std::move(token));
}

void Lexer::lexString(const char *start) {
  const char *end = buffer.end();
  std::string value;
  ++pos;
  while (true) {
    if (pos == end || *pos == '\n' || *pos == '\r') {
      lexError(start, start + 1, "unterminated string");
      break;
    }
    char c = *pos++;
    if (c == '"')
      break;
    if (c != '\\') {
      value.push_back(c);
      continue;
    }
    if (pos == end)
      continue;
    char escaped = *pos++;
    switch (escaped) {
    case 'n':
      value.push_back('\n');
      break;
    case 't':
      value.push_back('\t');
      break;
    case '\\':
    case '"':
      value.push_back(escaped);
      break;
    default:
      lexError(pos - 2, pos,
               "unknown escape in a string (use \\n, \\t, \\\\ or \\\")");
      break;
    }
  }
  Token token;
  token.kind = Tok::String;
  token.spelling = llvm::StringRef(start, pos - start);
  token.stringValue = std::move(value);
  tokens.push_back(std::move(token));
}

std::vector<Token> Lexer::run() {
  const char *end = buffer.end();
  while (pos != end && !diag.tooManyErrors()) {
    const char *start = pos;
    char c = *pos;
    if (c == '\n') {
      // A parenthesis left open does not swallow the next statement: a line
      // that starts with a statement keyword ends it.
      if (!newlinesSignificant() && startsStatement(pos + 1))
        while (!brackets.empty() && brackets.back() != '{')
          brackets.pop_back();
      pushNewline(pos);
      ++pos;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
      ++pos;
      continue;
    }
    if (c == '#') {
      while (pos != end && *pos != '\n')
        ++pos;
      continue;
    }
    if (isIdentStart(c)) {
      while (pos != end && isIdentChar(*pos))
        ++pos;
      push(keywordKind(llvm::StringRef(start, pos - start)), start);
      continue;
    }
    if (isDigit(c)) {
      lexNumber(start);
      continue;
    }
    if (c == '"') {
      lexString(start);
      continue;
    }
    char next = pos + 1 != end ? pos[1] : '\0';
    auto two = [&](Tok kind) {
      pos += 2;
      push(kind, start);
    };
    auto one = [&](Tok kind) {
      pos += 1;
      push(kind, start);
    };
    switch (c) {
    case '(':
      openBracket('(');
      one(Tok::LParen);
      break;
    case ')':
      closeBracket('(');
      one(Tok::RParen);
      break;
    case '[':
      openBracket('[');
      one(Tok::LBracket);
      break;
    case ']':
      closeBracket('[');
      one(Tok::RBracket);
      break;
    case '{':
      // A brace inside parentheses is never valid; forget the parentheses so
      // that the block's newlines still end statements.
      while (!brackets.empty() && brackets.back() != '{')
        brackets.pop_back();
      openBracket('{');
      one(Tok::LBrace);
      break;
    case '}':
      closeBracket('{');
      // A closing brace ends the statement before it.
      pushNewline(pos);
      one(Tok::RBrace);
      break;
    case ',':
      one(Tok::Comma);
      break;
    case ':':
      one(Tok::Colon);
      break;
    case ';':
      one(Tok::Semi);
      break;
    case '.':
      one(Tok::Dot);
      break;
    case '=':
      if (next == '=')
        two(Tok::EqEq);
      else
        one(Tok::Assign);
      break;
    case '!':
      if (next == '=')
        two(Tok::NotEq);
      else
        badCharacter(start);
      break;
    case '<':
      if (next == '=')
        two(Tok::LessEq);
      else if (next == '<')
        two(Tok::Shl);
      else
        one(Tok::Less);
      break;
    case '>':
      if (next == '=')
        two(Tok::GreaterEq);
      else if (next == '>')
        two(Tok::Shr);
      else
        one(Tok::Greater);
      break;
    case '+':
      if (next == '=')
        two(Tok::PlusAssign);
      else
        one(Tok::Plus);
      break;
    case '-':
      if (next == '=')
        two(Tok::MinusAssign);
      else
        one(Tok::Minus);
      break;
    case '*':
      if (next == '=')
        two(Tok::StarAssign);
      else
        one(Tok::Star);
      break;
    case '/':
      if (next == '/')
        two(Tok::SlashSlash);
      else
        one(Tok::Slash);
      break;
    case '%':
      one(Tok::Percent);
      break;
    case '&':
      one(Tok::Amp);
      break;
    case '|':
      one(Tok::Pipe);
      break;
    case '^':
      one(Tok::Caret);
      break;
    case '~':
      one(Tok::Tilde);
      break;
    default:
      badCharacter(start);
      break;
    }
  }
  brackets.clear();
  pushNewline(end);
  Token eof;
  eof.kind = Tok::Eof;
  eof.spelling = llvm::StringRef(end, 0);
  tokens.push_back(std::move(eof));
  return std::move(tokens);
}

const char *tilec::frontend::lineStart(llvm::StringRef buffer, const char *p) {
  while (p != buffer.begin() && p[-1] != '\n')
    --p;
  return p;
}

std::vector<Token> tilec::frontend::lex(llvm::StringRef buffer,
                                        DiagnosticEngine &diag,
                                        std::vector<const char *> *badLines) {
  Lexer lexer(buffer, diag);
  std::vector<Token> tokens = lexer.run();
  if (badLines)
    *badLines = lexer.getBadLines();
  return tokens;
}

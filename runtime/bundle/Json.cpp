//===- Json.cpp - Minimal JSON value, reader and writer -------------------===//
//
// Implementation of the JSON model declared in Json.h.
//
//===----------------------------------------------------------------------===//

#include "Json.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

namespace tilec::json {

Value Value::boolean(bool value) {
  Value result;
  result.valueKind = Kind::Bool;
  result.boolValue = value;
  return result;
}

Value Value::integer(int64_t value) {
  Value result;
  result.valueKind = Kind::Integer;
  result.intValue = value;
  return result;
}

Value Value::number(double value) {
  Value result;
  result.valueKind = Kind::Number;
  result.numberValue = value;
  return result;
}

Value Value::string(std::string value) {
  Value result;
  result.valueKind = Kind::String;
  result.text = std::move(value);
  return result;
}

Value Value::array() {
  Value result;
  result.valueKind = Kind::Array;
  return result;
}

Value Value::object() {
  Value result;
  result.valueKind = Kind::Object;
  return result;
}

double Value::asNumber() const {
  return valueKind == Kind::Integer ? static_cast<double>(intValue)
                                    : numberValue;
}

const Value *Value::find(std::string_view key) const {
  if (valueKind != Kind::Object)
    return nullptr;
  for (size_t i = 0; i < memberKeys.size(); ++i)
    if (memberKeys[i] == key)
      return &items[i];
  return nullptr;
}

Value &Value::push(Value element) {
  items.push_back(std::move(element));
  return items.back();
}

Value &Value::set(std::string key, Value member) {
  memberKeys.push_back(std::move(key));
  items.push_back(std::move(member));
  return items.back();
}

//===----------------------------------------------------------------------===//
// Reader
//===----------------------------------------------------------------------===//

namespace {

/// Deep enough for any metadata, shallow enough that recursion cannot
/// overflow the stack on hostile input.
constexpr int kMaxDepth = 64;

class Parser {
public:
  explicit Parser(std::string_view input) : input(input) {}

  bool parseDocument(Value &out, std::string &error) {
    skipWhitespace();
    bool ok = parseValue(out, 0);
    if (ok) {
      skipWhitespace();
      ok = atEnd() || fail("trailing characters after the JSON value");
    }
    if (!ok)
      error = message;
    return ok;
  }

private:
  bool atEnd() const { return pos >= input.size(); }
  char peek() const { return atEnd() ? '\0' : input[pos]; }

  /// Records the first error with its position; always returns false.
  bool fail(const std::string &what) {
    if (!message.empty())
      return false;
    size_t line = 1, column = 1;
    for (size_t i = 0; i < pos && i < input.size(); ++i) {
      if (input[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    message = "line " + std::to_string(line) + ", column " +
              std::to_string(column) + ": " + what;
    return false;
  }

  void skipWhitespace() {
    while (!atEnd() && (input[pos] == ' ' || input[pos] == '\t' ||
                        input[pos] == '\n' || input[pos] == '\r'))
      ++pos;
  }

  bool consumeWord(std::string_view word) {
    // substr throws past the end; the parser never goes there, but a reader
    // that must not throw does not rely on that.
    if (pos > input.size() || input.substr(pos, word.size()) != word)
      return false;
    pos += word.size();
    return true;
  }

  bool parseValue(Value &out, int depth) {
    if (depth > kMaxDepth)
      return fail("nesting deeper than " + std::to_string(kMaxDepth) +
                  " levels");
    if (atEnd())
      return fail("unexpected end of input, expected a value");
    char c = peek();
    if (c == '{')
      return parseObject(out, depth);
    if (c == '[')
      return parseArray(out, depth);
    if (c == '"') {
      std::string text;
      if (!parseString(text))
        return false;
      out = Value::string(std::move(text));
      return true;
    }
    if (c == '-' || (c >= '0' && c <= '9'))
      return parseNumber(out);
    if (consumeWord("true")) {
      out = Value::boolean(true);
      return true;
    }
    if (consumeWord("false")) {
      out = Value::boolean(false);
      return true;
    }
    if (consumeWord("null")) {
      out = Value();
      return true;
    }
    return fail(std::string("unexpected character '") + c + "'");
  }

  bool parseObject(Value &out, int depth) {
    ++pos; // '{'
    out = Value::object();
    skipWhitespace();
    if (peek() == '}') {
      ++pos;
      return true;
    }
    while (true) {
      skipWhitespace();
      if (peek() != '"')
        return fail("expected a string key in object");
      size_t keyStart = pos;
      std::string key;
      if (!parseString(key))
        return false;
      if (out.find(key)) {
        pos = keyStart;
        return fail("duplicate key \"" + key + "\"");
      }
      skipWhitespace();
      if (peek() != ':')
        return fail("expected ':' after object key");
      ++pos;
      skipWhitespace();
      Value member;
      if (!parseValue(member, depth + 1))
        return false;
      out.set(std::move(key), std::move(member));
      skipWhitespace();
      if (peek() == ',') {
        ++pos;
        continue;
      }
      if (peek() == '}') {
        ++pos;
        return true;
      }
      return fail("expected ',' or '}' in object");
    }
  }

  bool parseArray(Value &out, int depth) {
    ++pos; // '['
    out = Value::array();
    skipWhitespace();
    if (peek() == ']') {
      ++pos;
      return true;
    }
    while (true) {
      skipWhitespace();
      Value element;
      if (!parseValue(element, depth + 1))
        return false;
      out.push(std::move(element));
      skipWhitespace();
      if (peek() == ',') {
        ++pos;
        continue;
      }
      if (peek() == ']') {
        ++pos;
        return true;
      }
      return fail("expected ',' or ']' in array");
    }
  }

  bool parseHex4(uint32_t &code) {
    if (input.size() - pos < 4)
      return fail("truncated \\u escape");
    code = 0;
    for (int i = 0; i < 4; ++i) {
      char c = input[pos++];
      code <<= 4;
      if (c >= '0' && c <= '9')
        code |= c - '0';
      else if (c >= 'a' && c <= 'f')
        code |= c - 'a' + 10;
      else if (c >= 'A' && c <= 'F')
        code |= c - 'A' + 10;
      else
        return fail("invalid hex digit in \\u escape");
    }
    return true;
  }

  static void appendUtf8(std::string &out, uint32_t code) {
    if (code < 0x80) {
      out += static_cast<char>(code);
    } else if (code < 0x800) {
      out += static_cast<char>(0xC0 | (code >> 6));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
      out += static_cast<char>(0xE0 | (code >> 12));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (code >> 18));
      out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    }
  }

  bool parseString(std::string &out) {
    ++pos; // opening quote
    while (true) {
      if (atEnd())
        return fail("unterminated string");
      char c = input[pos++];
      if (c == '"')
        return true;
      if (static_cast<unsigned char>(c) < 0x20) {
        --pos;
        return fail("control character in string");
      }
      if (c != '\\') {
        out += c;
        continue;
      }
      if (atEnd())
        return fail("unterminated escape in string");
      char escape = input[pos++];
      switch (escape) {
      case '"':
      case '\\':
      case '/':
        out += escape;
        break;
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'u': {
        uint32_t code = 0;
        if (!parseHex4(code))
          return false;
        if (code >= 0xD800 && code <= 0xDBFF) {
          uint32_t low = 0;
          if (!consumeWord("\\u") || !parseHex4(low) || low < 0xDC00 ||
              low > 0xDFFF)
            return fail("unpaired UTF-16 surrogate in \\u escape");
          code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
        } else if (code >= 0xDC00 && code <= 0xDFFF) {
          return fail("unpaired UTF-16 surrogate in \\u escape");
        }
        appendUtf8(out, code);
        break;
      }
      default:
        --pos;
        return fail(std::string("invalid escape '\\") + escape + "'");
      }
    }
  }

  bool parseNumber(Value &out) {
    size_t start = pos;
    bool isFloat = false;
    if (peek() == '-')
      ++pos;
    if (peek() == '0') {
      ++pos;
    } else if (peek() >= '1' && peek() <= '9') {
      while (peek() >= '0' && peek() <= '9')
        ++pos;
    } else {
      return fail("invalid number");
    }
    if (peek() == '.') {
      isFloat = true;
      ++pos;
      if (!(peek() >= '0' && peek() <= '9'))
        return fail("expected a digit after '.'");
      while (peek() >= '0' && peek() <= '9')
        ++pos;
    }
    if (peek() == 'e' || peek() == 'E') {
      isFloat = true;
      ++pos;
      if (peek() == '+' || peek() == '-')
        ++pos;
      if (!(peek() >= '0' && peek() <= '9'))
        return fail("expected a digit in exponent");
      while (peek() >= '0' && peek() <= '9')
        ++pos;
    }
    std::string literal(input.substr(start, pos - start));
    if (isFloat) {
      double value = std::strtod(literal.c_str(), nullptr);
      if (!std::isfinite(value)) {
        pos = start;
        return fail("number out of range");
      }
      out = Value::number(value);
      return true;
    }
    // Accumulate by hand: strtoll's overflow reporting goes through errno.
    bool negative = literal[0] == '-';
    uint64_t magnitude = 0;
    const uint64_t limit =
        negative ? uint64_t(std::numeric_limits<int64_t>::max()) + 1
                 : uint64_t(std::numeric_limits<int64_t>::max());
    for (size_t i = negative ? 1 : 0; i < literal.size(); ++i) {
      uint64_t digit = literal[i] - '0';
      if (magnitude > (limit - digit) / 10) {
        pos = start;
        return fail("integer " + literal + " does not fit in 64 bits");
      }
      magnitude = magnitude * 10 + digit;
    }
    out = Value::integer(negative ? static_cast<int64_t>(0 - magnitude)
                                  : static_cast<int64_t>(magnitude));
    return true;
  }

  std::string_view input;
  size_t pos = 0;
  std::string message;
};

} // namespace

bool parse(std::string_view input, Value &out, std::string &error) {
  Parser parser(input);
  return parser.parseDocument(out, error);
}

//===----------------------------------------------------------------------===//
// Writer
//===----------------------------------------------------------------------===//

namespace {

void writeString(std::string &out, const std::string &text) {
  out += '"';
  for (char c : text) {
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\r':
      out += "\\r";
      break;
    case '\t':
      out += "\\t";
      break;
    default:
      if (static_cast<unsigned char>(c) < 0x20) {
        char buffer[8];
        std::snprintf(buffer, sizeof(buffer), "\\u%04x", c);
        out += buffer;
      } else {
        out += c;
      }
    }
  }
  out += '"';
}

bool isScalar(const Value &value) {
  return !value.isArray() && !value.isObject();
}

/// Objects this short, holding scalars and scalar arrays only, are written on
/// one line: an argument or a parameter then reads as one line of metadata.
constexpr size_t kInlineObjectWidth = 100;

bool isFlat(const Value &value) {
  for (const Value &member : value.values()) {
    if (member.isObject())
      return false;
    if (member.isArray())
      for (const Value &element : member.elements())
        if (!isScalar(element))
          return false;
  }
  return true;
}

void writeValue(std::string &out, const Value &value, int indent);

/// The one-line form of a flat object, or "" when it is too long.
std::string inlineObject(const Value &value) {
  if (!isFlat(value))
    return "";
  std::string line = "{";
  for (size_t i = 0; i < value.keys().size(); ++i) {
    if (i)
      line += ", ";
    writeString(line, value.keys()[i]);
    line += ": ";
    writeValue(line, value.values()[i], 0);
    if (line.size() > kInlineObjectWidth)
      return "";
  }
  return line + "}";
}

void writeValue(std::string &out, const Value &value, int indent) {
  auto newline = [&](int level) {
    out += '\n';
    out.append(static_cast<size_t>(level) * 2, ' ');
  };
  switch (value.kind()) {
  case Value::Kind::Null:
    out += "null";
    return;
  case Value::Kind::Bool:
    out += value.asBool() ? "true" : "false";
    return;
  case Value::Kind::Integer:
    out += std::to_string(value.asInteger());
    return;
  case Value::Kind::Number: {
    char buffer[32];
    // 17 significant digits round-trip every double.
    std::snprintf(buffer, sizeof(buffer), "%.17g", value.asNumber());
    std::string text = buffer;
    if (text.find_first_of(".eEn") == std::string::npos)
      text += ".0"; // keep it a number, not an integer, when read back
    out += text;
    return;
  }
  case Value::Kind::String:
    writeString(out, value.asString());
    return;
  case Value::Kind::Array: {
    const auto &elements = value.elements();
    bool inlineElements = true;
    for (const Value &element : elements)
      inlineElements &= isScalar(element);
    out += '[';
    for (size_t i = 0; i < elements.size(); ++i) {
      if (i)
        out += inlineElements ? ", " : ",";
      if (!inlineElements)
        newline(indent + 1);
      writeValue(out, elements[i], indent + 1);
    }
    if (!inlineElements && !elements.empty())
      newline(indent);
    out += ']';
    return;
  }
  case Value::Kind::Object: {
    std::string line = inlineObject(value);
    if (!line.empty()) {
      out += line;
      return;
    }
    const auto &keys = value.keys();
    out += '{';
    for (size_t i = 0; i < keys.size(); ++i) {
      if (i)
        out += ',';
      newline(indent + 1);
      writeString(out, keys[i]);
      out += ": ";
      writeValue(out, value.values()[i], indent + 1);
    }
    if (!keys.empty())
      newline(indent);
    out += '}';
    return;
  }
  }
}

} // namespace

std::string write(const Value &value) {
  std::string out;
  writeValue(out, value, 0);
  out += '\n';
  return out;
}

} // namespace tilec::json

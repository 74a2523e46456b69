//===- Json.h - Minimal JSON value, reader and writer -----------*- C++ -*-===//
//
// A small self-contained JSON model for the bundle metadata. It exists so
// that tilec_bundle depends on nothing but the C++17 standard library. The
// reader never asserts or throws on bad input: it reports the line and column
// of the first error, and bounds nesting depth so hostile input cannot
// exhaust the stack.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_BUNDLE_JSON_H
#define TILEC_BUNDLE_JSON_H

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tilec::json {

/// A JSON value. Integers are kept apart from other numbers so that 64-bit
/// sizes round-trip exactly; objects keep their members in insertion order so
/// that written metadata reads in the order it was built.
class Value {
public:
  enum class Kind { Null, Bool, Integer, Number, String, Array, Object };

  Value() = default;
  static Value boolean(bool value);
  static Value integer(int64_t value);
  static Value number(double value);
  static Value string(std::string value);
  static Value array();
  static Value object();

  Kind kind() const { return valueKind; }
  bool isNull() const { return valueKind == Kind::Null; }
  bool isBool() const { return valueKind == Kind::Bool; }
  bool isInteger() const { return valueKind == Kind::Integer; }
  bool isNumber() const {
    return valueKind == Kind::Number || valueKind == Kind::Integer;
  }
  bool isString() const { return valueKind == Kind::String; }
  bool isArray() const { return valueKind == Kind::Array; }
  bool isObject() const { return valueKind == Kind::Object; }

  /// Accessors return a neutral value (false, 0, "", empty) on a kind
  /// mismatch instead of asserting: callers check the kind first.
  bool asBool() const { return boolValue; }
  int64_t asInteger() const { return intValue; }
  double asNumber() const;
  const std::string &asString() const { return text; }

  /// Array elements; empty unless this is an array.
  const std::vector<Value> &elements() const { return items; }
  /// Object members, in insertion order; empty unless this is an object.
  const std::vector<std::string> &keys() const { return memberKeys; }
  const std::vector<Value> &values() const { return items; }

  /// The member named \p key, or null when absent or not an object.
  const Value *find(std::string_view key) const;

  /// Appends to an array.
  Value &push(Value element);
  /// Appends a member to an object (the caller keeps keys unique).
  Value &set(std::string key, Value member);

private:
  Kind valueKind = Kind::Null;
  bool boolValue = false;
  int64_t intValue = 0;
  double numberValue = 0;
  std::string text;
  std::vector<std::string> memberKeys;
  std::vector<Value> items;
};

/// Parses \p input into \p out. On failure returns false and sets \p error to
/// "line L, column C: <what is wrong>".
bool parse(std::string_view input, Value &out, std::string &error);

/// Writes \p value as indented JSON. Arrays whose elements are all scalars
/// stay on one line so that shapes and boxes read naturally.
std::string write(const Value &value);

} // namespace tilec::json

#endif // TILEC_BUNDLE_JSON_H

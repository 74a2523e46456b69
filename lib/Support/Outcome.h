//===- Outcome.h - Value-or-message result for hardware checks --*- C++ -*-===//
//
// Part of tilec. TileSupport is plain C++17: no LLVM, MLIR or CUDA headers.
//
//===----------------------------------------------------------------------===//
//
// Outcome<T> carries either a value or a lowercase error message that names
// the offending numbers. The lowering turns the message into a diagnostic at
// the op's location; nothing in TileSupport asserts on user-controlled input.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_SUPPORT_OUTCOME_H
#define TILEC_SUPPORT_OUTCOME_H

#include <cassert>
#include <optional>
#include <sstream>
#include <string>
#include <utility>

namespace tilec {

/// A value, or the reason it could not be computed.
/// Why: encoders must reject illegal shapes with a message the compiler can
/// show, instead of producing a descriptor the hardware silently misreads.
template <typename T> class Outcome {
public:
  /// Wraps a successfully computed value.
  Outcome(T Value) : Value(std::move(Value)) {}

  /// Builds a failed outcome carrying \p Message (lowercase, no period).
  static Outcome failure(std::string Message) {
    Outcome Result;
    Result.Message = std::move(Message);
    return Result;
  }

  /// True when a value is present.
  bool ok() const { return Value.has_value(); }
  explicit operator bool() const { return ok(); }

  /// The value; only valid when ok().
  const T &value() const {
    assert(ok() && "Outcome holds an error, not a value");
    return *Value;
  }
  const T &operator*() const { return value(); }
  const T *operator->() const { return &value(); }

  /// The error message; empty when ok().
  const std::string &error() const { return Message; }

private:
  Outcome() = default;

  std::optional<T> Value;
  std::string Message;
};

/// Concatenates the stream representations of \p Parts into one string.
/// Why: error messages must contain the offending values, and TileSupport
/// cannot use llvm::formatv or fmt.
template <typename... Ts> std::string formatMessage(const Ts &...Parts) {
  std::ostringstream OS;
  (OS << ... << Parts);
  return OS.str();
}

} // namespace tilec

#endif // TILEC_SUPPORT_OUTCOME_H

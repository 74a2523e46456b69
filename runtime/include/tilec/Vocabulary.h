//===- Vocabulary.h - element types, swizzles and targets -------*- C++ -*-===//
//
// The words the compiler, the bundle and the runtime share: element types
// with their sizes and spellings, shared-memory swizzles, GPU targets with
// the facts every layer needs about them, and the bound of a tensor list. One
// table per word, so that a new element type or target is added in one place.
//
// Header-only and dependency-free (the C++17 standard library), so that the
// bundle and the runtime build with a bare C++ compiler and the compiler
// includes it as it is. Everything is constexpr; nothing throws.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_VOCABULARY_H
#define TILEC_VOCABULARY_H

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tilec::vocab {

//===----------------------------------------------------------------------===//
// Element types
//===----------------------------------------------------------------------===//

/// Element types. The numeric values are part of the C API (tilec_dtype) and
/// of bundle::DType; they must not change: add new types at the end.
enum class ElementType : uint8_t {
  F16 = 0,
  BF16 = 1,
  F32 = 2,
  F64 = 3,
  TF32 = 4,
  I8 = 5,
  U8 = 6,
  I16 = 7,
  U16 = 8,
  I32 = 9,
  U32 = 10,
  I64 = 11,
  U64 = 12,
  E4M3 = 13,
  E5M2 = 14,
  E8M0 = 15,
};
constexpr unsigned kNumElementTypes = 16;

struct ElementTypeInfo {
  ElementType type;
  /// The one spelling: bundle metadata JSON, the DSL and messages alike.
  std::string_view name;
  unsigned bytes;
  bool isFloat;
  /// Integers only: signed (i8..i64) or unsigned (u8..u64).
  bool isSigned;
};

/// Indexed by the ElementType value.
constexpr ElementTypeInfo kElementTypes[kNumElementTypes] = {
    {ElementType::F16, "f16", 2, true, true},
    {ElementType::BF16, "bf16", 2, true, true},
    {ElementType::F32, "f32", 4, true, true},
    {ElementType::F64, "f64", 8, true, true},
    {ElementType::TF32, "tf32", 4, true, true},
    {ElementType::I8, "i8", 1, false, true},
    {ElementType::U8, "u8", 1, false, false},
    {ElementType::I16, "i16", 2, false, true},
    {ElementType::U16, "u16", 2, false, false},
    {ElementType::I32, "i32", 4, false, true},
    {ElementType::U32, "u32", 4, false, false},
    {ElementType::I64, "i64", 8, false, true},
    {ElementType::U64, "u64", 8, false, false},
    {ElementType::E4M3, "e4m3", 1, true, true},
    {ElementType::E5M2, "e5m2", 1, true, true},
    {ElementType::E8M0, "e8m0", 1, true, false},
};

namespace detail {
constexpr bool elementTypesAreIndexed() {
  for (unsigned i = 0; i < kNumElementTypes; ++i)
    if (static_cast<unsigned>(kElementTypes[i].type) != i)
      return false;
  return true;
}
} // namespace detail
static_assert(detail::elementTypesAreIndexed(),
              "kElementTypes is indexed by the ElementType value");

/// The facts of \p type; an out-of-range value (a cast from bad input) reads
/// as f16 rather than past the table.
constexpr const ElementTypeInfo &info(ElementType type) {
  auto index = static_cast<unsigned>(type);
  return kElementTypes[index < kNumElementTypes ? index : 0];
}

/// True if \p type is one of the enumerators (not a cast of another value).
constexpr bool isKnown(ElementType type) {
  return static_cast<unsigned>(type) < kNumElementTypes;
}

/// "f16", "bf16", ..., "e8m0".
constexpr std::string_view toString(ElementType type) {
  return info(type).name;
}
/// Size of one element in bytes.
constexpr unsigned byteSize(ElementType type) { return info(type).bytes; }
constexpr bool isFloat(ElementType type) { return info(type).isFloat; }
constexpr bool isSignedInteger(ElementType type) {
  return !info(type).isFloat && info(type).isSigned;
}
constexpr bool isUnsignedInteger(ElementType type) {
  return !info(type).isFloat && !info(type).isSigned;
}

/// The element type spelled \p text ("bf16"), or nullopt.
constexpr std::optional<ElementType> parseElementType(std::string_view text) {
  for (const ElementTypeInfo &entry : kElementTypes)
    if (entry.name == text)
      return entry.type;
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Swizzles
//===----------------------------------------------------------------------===//

/// Shared-memory swizzle of a TMA box or an MMA operand; the value is the
/// swizzle span in bytes (0 for none), as the bundle metadata writes it.
enum class Swizzle : uint8_t { None = 0, B32 = 32, B64 = 64, B128 = 128 };
constexpr std::array<Swizzle, 4> kAllSwizzles = {Swizzle::None, Swizzle::B32,
                                                 Swizzle::B64, Swizzle::B128};

/// The swizzle span: 0, 32, 64 or 128 bytes.
constexpr unsigned swizzleBytes(Swizzle swizzle) {
  return static_cast<unsigned>(swizzle);
}

/// The swizzle of span \p bytes (0 is none), or nullopt for any other count.
constexpr std::optional<Swizzle> swizzleFromBytes(uint64_t bytes) {
  for (Swizzle swizzle : kAllSwizzles)
    if (swizzleBytes(swizzle) == bytes)
      return swizzle;
  return std::nullopt;
}

/// The DSL spelling: "none", "32B", "64B", "128B" (in kAllSwizzles' order).
constexpr std::array<std::string_view, 4> kSwizzleNames = {"none", "32B", "64B",
                                                           "128B"};
constexpr std::string_view toString(Swizzle swizzle) {
  for (size_t i = 0; i < kAllSwizzles.size(); ++i)
    if (kAllSwizzles[i] == swizzle)
      return kSwizzleNames[i];
  return "none";
}

constexpr std::optional<Swizzle> parseSwizzle(std::string_view text) {
  for (Swizzle swizzle : kAllSwizzles)
    if (toString(swizzle) == text)
      return swizzle;
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Targets
//===----------------------------------------------------------------------===//

/// The GPUs tilec compiles for.
enum class Target : uint8_t {
  /// Hopper (H100, H200): wgmma, TMA, clusters.
  SM90a,
  /// Blackwell datacenter (B200): tcgen05, tensor memory, 2-CTA MMA.
  SM100a,
};
constexpr std::array<Target, 2> kAllTargets = {Target::SM90a, Target::SM100a};
/// What a kernel targets when neither it nor the command line says.
constexpr Target kDefaultTarget = Target::SM90a;

/// "sm_90a" or "sm_100a", as ptxas, the DSL and the bundle spell it.
constexpr std::string_view toString(Target target) {
  return target == Target::SM100a ? "sm_100a" : "sm_90a";
}

/// The target spelled \p text, or nullopt.
constexpr std::optional<Target> parseTarget(std::string_view text) {
  for (Target target : kAllTargets)
    if (toString(target) == text)
      return target;
  return std::nullopt;
}

constexpr bool isBlackwell(Target target) { return target == Target::SM100a; }

/// Dynamic shared memory one CTA may use: 227 KiB on both sm_90 and sm_100
/// (228 KiB per SM, 1 KiB reserved by the driver).
constexpr uint32_t maxDynamicSharedMemoryBytes(Target target) {
  switch (target) {
  case Target::SM90a:
  case Target::SM100a:
    return 232448;
  }
  return 232448;
}

//===----------------------------------------------------------------------===//
// Kernel parameters
//===----------------------------------------------------------------------===//

/// Most tensors a tensor-list argument may hold: its tensor maps travel by
/// value in the kernel's parameter space, 128 bytes each, in 32764 bytes.
constexpr uint32_t kMaxTensorListCapacity = 128;

//===----------------------------------------------------------------------===//
// Messages
//===----------------------------------------------------------------------===//

/// The spellings of \p values for a message: "sm_90a or sm_100a",
/// "none, 32B, 64B or 128B".
template <typename Word, size_t N>
std::string listSpellings(const std::array<Word, N> &values) {
  std::string out;
  for (size_t i = 0; i < N; ++i) {
    if (i)
      out += i + 1 == N ? " or " : ", ";
    out += toString(values[i]);
  }
  return out;
}

} // namespace tilec::vocab

#endif // TILEC_VOCABULARY_H

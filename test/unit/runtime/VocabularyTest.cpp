//===- VocabularyTest.cpp - Tests of the shared vocabulary ----------------===//

#include "tilec/Vocabulary.h"

#include "tilec/bundle/Bundle.h"
#include "tilec/tilec_runtime.h"

#include <gtest/gtest.h>

#include <iterator>
#include <set>
#include <type_traits>

using namespace tilec::vocab;

namespace {

// The tables are constexpr: the compiler can fold a lookup.
static_assert(byteSize(ElementType::BF16) == 2);
static_assert(parseElementType("e4m3") == ElementType::E4M3);
static_assert(swizzleFromBytes(64) == Swizzle::B64);
static_assert(parseTarget("sm_100a") == Target::SM100a);

TEST(Vocabulary, EveryElementTypeRoundTrips) {
  std::set<std::string_view> names;
  for (const ElementTypeInfo &entry : kElementTypes) {
    EXPECT_TRUE(isKnown(entry.type));
    EXPECT_EQ(parseElementType(toString(entry.type)), entry.type)
        << toString(entry.type);
    EXPECT_TRUE(names.insert(toString(entry.type)).second)
        << "two element types are spelled " << toString(entry.type);
  }
  EXPECT_EQ(names.size(), kNumElementTypes);
  EXPECT_FALSE(parseElementType("float32").has_value());
  EXPECT_FALSE(parseElementType("F16").has_value());
  EXPECT_FALSE(parseElementType("").has_value());
  EXPECT_FALSE(isKnown(static_cast<ElementType>(kNumElementTypes)));
}

TEST(Vocabulary, ElementTypeSizesAndClasses) {
  struct Expected {
    const char *name;
    unsigned bytes;
    bool isFloat, isSigned, isUnsigned;
  };
  const Expected expected[] = {
      {"f16", 2, true, false, false},  {"bf16", 2, true, false, false},
      {"f32", 4, true, false, false},  {"f64", 8, true, false, false},
      {"tf32", 4, true, false, false}, {"i8", 1, false, true, false},
      {"u8", 1, false, false, true},   {"i16", 2, false, true, false},
      {"u16", 2, false, false, true},  {"i32", 4, false, true, false},
      {"u32", 4, false, false, true},  {"i64", 8, false, true, false},
      {"u64", 8, false, false, true},  {"e4m3", 1, true, false, false},
      {"e5m2", 1, true, false, false}, {"e8m0", 1, true, false, false},
  };
  ASSERT_EQ(std::size(expected), kNumElementTypes);
  for (unsigned i = 0; i < kNumElementTypes; ++i) {
    const Expected &want = expected[i];
    // The enum values are the C API's tilec_dtype, in this order.
    auto type = static_cast<ElementType>(i);
    EXPECT_EQ(toString(type), want.name);
    EXPECT_EQ(byteSize(type), want.bytes) << want.name;
    EXPECT_EQ(isFloat(type), want.isFloat) << want.name;
    EXPECT_EQ(isSignedInteger(type), want.isSigned) << want.name;
    EXPECT_EQ(isUnsignedInteger(type), want.isUnsigned) << want.name;
  }
  EXPECT_EQ(static_cast<int>(ElementType::E8M0), TILEC_DTYPE_E8M0);
  EXPECT_EQ(static_cast<int>(ElementType::BF16), TILEC_DTYPE_BF16);
}

TEST(Vocabulary, BundleUsesTheVocabulary) {
  static_assert(std::is_same_v<tilec::bundle::DType, ElementType>);
  static_assert(std::is_same_v<tilec::bundle::Swizzle, Swizzle>);
  EXPECT_EQ(tilec::bundle::parseDType("u32"), ElementType::U32);
  EXPECT_EQ(tilec::bundle::toString(ElementType::I16), "i16");
}

TEST(Vocabulary, SwizzlesRoundTrip) {
  const unsigned bytes[] = {0, 32, 64, 128};
  const char *names[] = {"none", "32B", "64B", "128B"};
  for (unsigned i = 0; i < kAllSwizzles.size(); ++i) {
    Swizzle swizzle = kAllSwizzles[i];
    EXPECT_EQ(swizzleBytes(swizzle), bytes[i]);
    EXPECT_EQ(swizzleFromBytes(bytes[i]), swizzle);
    EXPECT_EQ(toString(swizzle), names[i]);
    EXPECT_EQ(parseSwizzle(names[i]), swizzle);
  }
  for (uint64_t wrong : {1ull, 16ull, 96ull, 256ull, 1ull << 40})
    EXPECT_FALSE(swizzleFromBytes(wrong).has_value()) << wrong;
  EXPECT_FALSE(parseSwizzle("128").has_value());
  EXPECT_FALSE(parseSwizzle("swizzle_128b").has_value());
}

TEST(Vocabulary, TargetsRoundTrip) {
  for (Target target : kAllTargets)
    EXPECT_EQ(parseTarget(toString(target)), target);
  EXPECT_EQ(toString(Target::SM90a), "sm_90a");
  EXPECT_EQ(toString(Target::SM100a), "sm_100a");
  EXPECT_EQ(kDefaultTarget, Target::SM90a);
  EXPECT_FALSE(parseTarget("sm_90").has_value());
  EXPECT_FALSE(parseTarget("sm_80").has_value());
  EXPECT_FALSE(isBlackwell(Target::SM90a));
  EXPECT_TRUE(isBlackwell(Target::SM100a));
  for (Target target : kAllTargets)
    EXPECT_EQ(maxDynamicSharedMemoryBytes(target), 232448u);
}

TEST(Vocabulary, ListsSpellingsForMessages) {
  EXPECT_EQ(listSpellings(kAllTargets), "sm_90a or sm_100a");
  EXPECT_EQ(listSpellings(kAllSwizzles), "none, 32B, 64B or 128B");
}

} // namespace

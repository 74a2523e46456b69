//===- SwizzleTest.cpp - Swizzle modes and tilec's tile layout ------------===//
//
// Golden values are computed by hand from CUTLASS Swizzle<B,4,3>
// (include/cute/swizzle.hpp: offset ^ ((offset & yyy_mask) >> S), with
// yyy_mask = ((1<<B)-1) << (M+S), M=4, S=3), the definition CUTLASS maps to
// TMA's SWIZZLE_32B/64B/128B (copy_traits_sm90_tma_swizzle.hpp).
//
//===----------------------------------------------------------------------===//

#include "lib/Support/Swizzle.h"
#include "test/unit/support/ExpectedHelpers.h"

#include "gtest/gtest.h"

#include <set>

using namespace tilec;
using namespace tilec::test;

namespace {

const Swizzle AllModes[] = {Swizzle::None, Swizzle::B32, Swizzle::B64,
                            Swizzle::B128};

// Span, repeat and alignment per mode. Repeat = 8 rows x span and is the PTX
// "starting address of the repeating pattern" (1024/512/256); none aligns to
// the 128 bytes a TMA destination needs.
TEST(SwizzleTest, ModeConstants) {
  EXPECT_EQ(swizzleSpanBytes(Swizzle::None), 0u);
  EXPECT_EQ(swizzleSpanBytes(Swizzle::B32), 32u);
  EXPECT_EQ(swizzleSpanBytes(Swizzle::B64), 64u);
  EXPECT_EQ(swizzleSpanBytes(Swizzle::B128), 128u);
  EXPECT_EQ(swizzleRepeatBytes(Swizzle::None), 0u);
  EXPECT_EQ(swizzleRepeatBytes(Swizzle::B32), 256u);
  EXPECT_EQ(swizzleRepeatBytes(Swizzle::B64), 512u);
  EXPECT_EQ(swizzleRepeatBytes(Swizzle::B128), 1024u);
  EXPECT_EQ(swizzleAlignmentBytes(Swizzle::None), 128u);
  EXPECT_EQ(swizzleAlignmentBytes(Swizzle::B32), 256u);
  EXPECT_EQ(swizzleAlignmentBytes(Swizzle::B64), 512u);
  EXPECT_EQ(swizzleAlignmentBytes(Swizzle::B128), 1024u);
  EXPECT_EQ(swizzleAtomBytes(Swizzle::None), 16u);
  EXPECT_EQ(swizzleAtomBytes(Swizzle::B128), 128u);
  EXPECT_EQ(vocab::toString(Swizzle::B64), "64B");
}

// 128B = Swizzle<3,4,3>: chunk bits [4,7) ^= row bits [7,10).
TEST(SwizzleTest, Golden128B) {
  // Row 0 is unchanged.
  EXPECT_EQ(swizzledRowMajorOffset(Swizzle::B128, 128, 0, 48), 48u);
  // Row 1, chunk 0 -> chunk 1: 128 + 16.
  EXPECT_EQ(swizzledRowMajorOffset(Swizzle::B128, 128, 1, 0), 144u);
  // Row 3, byte 32 (chunk 2) -> chunk 2^3 = 1: 384 + 16.
  EXPECT_EQ(swizzledRowMajorOffset(Swizzle::B128, 128, 3, 32), 400u);
  // Row 7, byte 112 (chunk 7) -> chunk 0: 896.
  EXPECT_EQ(swizzledRowMajorOffset(Swizzle::B128, 128, 7, 112), 896u);
  // Row 5, byte 12 (chunk 0, byte 12 inside it) -> chunk 5: 640 + 80 + 12.
  EXPECT_EQ(swizzledRowMajorOffset(Swizzle::B128, 128, 5, 12), 732u);
  // Row 8 starts the next repeat: unchanged.
  EXPECT_EQ(swizzledRowMajorOffset(Swizzle::B128, 128, 8, 0), 1024u);
}

// 64B = Swizzle<2,4,3>: chunk bits [4,6) ^= bits [7,9) (= row / 2 % 4).
TEST(SwizzleTest, Golden64B) {
  EXPECT_EQ(swizzledRowMajorOffset(Swizzle::B64, 64, 1, 0), 64u);
  // Row 2, byte 16: offset 144 = 0x90, bits [7,9) = 1 -> 0x90 ^ 0x10 = 128.
  EXPECT_EQ(swizzledRowMajorOffset(Swizzle::B64, 64, 2, 16), 128u);
  // Row 7, byte 48: 0x1F0, bits [7,9) = 3 -> 0x1F0 ^ 0x30 = 0x1C0.
  EXPECT_EQ(swizzledRowMajorOffset(Swizzle::B64, 64, 7, 48), 448u);
}

// 32B = Swizzle<1,4,3>: chunk bit 4 ^= bit 7 (= row / 4 % 2).
TEST(SwizzleTest, Golden32B) {
  EXPECT_EQ(swizzledRowMajorOffset(Swizzle::B32, 32, 3, 16), 112u);
  EXPECT_EQ(swizzledRowMajorOffset(Swizzle::B32, 32, 4, 0), 144u);
  EXPECT_EQ(swizzledRowMajorOffset(Swizzle::B32, 32, 4, 16), 128u);
}

TEST(SwizzleTest, NoneIsIdentity) {
  for (uint32_t Offset = 0; Offset < 4096; ++Offset)
    EXPECT_EQ(swizzleByteOffset(Swizzle::None, Offset), Offset);
}

// On one repeat block every mode permutes bytes: it is a bijection, it keeps
// each byte in its row of the span, and it moves whole 16-byte chunks.
TEST(SwizzleTest, BijectionOnRepeatBlock) {
  for (Swizzle S : AllModes) {
    if (S == Swizzle::None)
      continue;
    uint32_t Repeat = swizzleRepeatBytes(S);
    uint32_t Span = swizzleSpanBytes(S);
    std::set<uint32_t> Seen;
    for (uint32_t Offset = 0; Offset < Repeat; ++Offset) {
      uint32_t Swizzled = swizzleByteOffset(S, Offset);
      EXPECT_LT(Swizzled, Repeat) << vocab::toString(S);
      EXPECT_EQ(Swizzled / Span, Offset / Span) << vocab::toString(S);
      EXPECT_EQ(Swizzled % 16, Offset % 16) << vocab::toString(S);
      Seen.insert(Swizzled);
      // The next repeat block sees the same pattern.
      EXPECT_EQ(swizzleByteOffset(S, Offset + Repeat), Swizzled + Repeat);
    }
    EXPECT_EQ(Seen.size(), Repeat) << vocab::toString(S);
  }
}

// 128x128 bf16 with 128B swizzle: two column blocks of 128 rows x 128 bytes.
TEST(SwizzleTest, WideTileIsColumnBlocks) {
  llvm::Expected<SmemTileLayout> L =
      makeSmemTileLayout(128, 128, 2, Swizzle::B128);
  ASSERT_TRUE(hasValue(L));
  EXPECT_EQ(L->BlockBytes, 128u);
  EXPECT_EQ(L->blockCols(), 64u);
  EXPECT_EQ(L->numBlocks(), 2u);
  EXPECT_EQ(L->blockSizeBytes(), 16384u);
  EXPECT_EQ(L->totalBytes(), 32768u);
  // Element (5, 70): block 1, byte 12 of row 5 in it.
  // Logical: 16384 + 5 * 128 + 12 = 17036.
  EXPECT_EQ(logicalByteOffset(*L, 5, 70 * 2), 17036u);
  // Physical: chunk 0 of row 5 moves to chunk 5: 16384 + 640 + 80 + 12.
  EXPECT_EQ(physicalByteOffset(*L, 5, 70 * 2), 17116u);
  // First element of the second block.
  EXPECT_EQ(physicalByteOffset(*L, 0, 64 * 2), 16384u);
}

// The no-swizzle MMA layout: 16-byte column blocks of 8x16-byte core
// matrices (PTX "K major interleaved").
TEST(SwizzleTest, InterleavedNoSwizzleLayout) {
  llvm::Expected<SmemTileLayout> L =
      makeSmemTileLayout(128, 64, 2, Swizzle::None);
  ASSERT_TRUE(hasValue(L));
  EXPECT_EQ(L->BlockBytes, 16u);
  EXPECT_EQ(L->numBlocks(), 8u);
  EXPECT_EQ(L->blockCols(), 8u);
  // Element (9, 10): block 1, byte 4 inside: 1 * 2048 + 9 * 16 + 4.
  EXPECT_EQ(logicalByteOffset(*L, 9, 20), 2196u);
  EXPECT_EQ(physicalByteOffset(*L, 9, 20), 2196u);
}

TEST(SwizzleTest, RowMajorNoSwizzleLayout) {
  llvm::Expected<SmemTileLayout> L =
      makeSmemTileLayout(300, 64, 2, Swizzle::None, NoSwizzleLayout::RowMajor);
  ASSERT_TRUE(hasValue(L));
  EXPECT_EQ(L->BlockBytes, 128u);
  EXPECT_EQ(L->numBlocks(), 1u);
  EXPECT_EQ(logicalByteOffset(*L, 299, 126), 299u * 128 + 126);
}

TEST(SwizzleTest, LayoutErrors) {
  llvm::Expected<SmemTileLayout> Narrow =
      makeSmemTileLayout(128, 32, 2, Swizzle::B128);
  ASSERT_FALSE(Narrow);
  EXPECT_EQ(errorMessage(std::move(Narrow)),
            "tile rows of 64 bytes are not a multiple of the "
            "128B swizzle span (128 bytes)");

  llvm::Expected<SmemTileLayout> Short =
      makeSmemTileLayout(60, 64, 2, Swizzle::B128);
  ASSERT_FALSE(Short);
  EXPECT_EQ(errorMessage(std::move(Short)),
            "swizzled tile needs a multiple of 8 rows, got 60");

  llvm::Expected<SmemTileLayout> Odd =
      makeSmemTileLayout(8, 4, 2, Swizzle::None);
  ASSERT_FALSE(Odd);
  EXPECT_EQ(errorMessage(std::move(Odd)),
            "tile rows of 8 bytes (4 elements of 2 bytes) are "
            "not a multiple of 16 bytes");

  llvm::Expected<SmemTileLayout> Interleaved =
      makeSmemTileLayout(12, 64, 2, Swizzle::None);
  ASSERT_FALSE(Interleaved);
  EXPECT_EQ(errorMessage(std::move(Interleaved)),
            "interleaved no-swizzle tile needs a multiple of 8 rows, got 12");

  EXPECT_NE(errorMessage(makeSmemTileLayout(0, 64, 2, Swizzle::B128)), "");
  EXPECT_EQ(errorMessage(makeSmemTileLayout(8, 64, 3, Swizzle::B128)),
            "element size of 3 bytes is not 1, 2, 4 or 8");
}

} // namespace

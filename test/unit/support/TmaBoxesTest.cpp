//===- TmaBoxesTest.cpp - TMA box planning --------------------------------===//
//
// Rules (cuTensorMapEncodeTiled, CUDA driver API): every box dimension in
// 1..256; boxDim[0] x element size a multiple of 16 bytes and, with a swizzle,
// at most the swizzle span. Destinations 128-byte aligned (CUDA programming
// guide TMA alignment table). One box shape per tensor map.
//
//===----------------------------------------------------------------------===//

#include "lib/Support/TmaBoxes.h"
#include "test/unit/support/ExpectedHelpers.h"

#include "gtest/gtest.h"

using namespace tilec;
using namespace tilec::test;

namespace {

TmaBoxPlan plan(uint32_t Rows, uint32_t Cols, uint32_t ElemBytes, Swizzle S,
                NoSwizzleLayout NS = NoSwizzleLayout::Interleaved) {
  llvm::Expected<SmemTileLayout> L =
      makeSmemTileLayout(Rows, Cols, ElemBytes, S, NS);
  EXPECT_TRUE(hasValue(L));
  if (!L)
    return {};
  return valueOf(planTmaBoxes(*L));
}

void expectBox(const TmaBox &B, uint32_t Col, uint32_t Row, uint32_t Smem) {
  EXPECT_EQ(B.ColOffset, Col);
  EXPECT_EQ(B.RowOffset, Row);
  EXPECT_EQ(B.SmemOffset, Smem);
}

// 128x128 bf16, 128B swizzle: two 64-column boxes (128 bytes wide), each
// filling one 16 KiB column block.
TEST(TmaBoxesTest, Bf16WideTile) {
  TmaBoxPlan P = plan(128, 128, 2, Swizzle::B128);
  EXPECT_EQ(P.BoxCols, 64u);
  EXPECT_EQ(P.BoxRows, 128u);
  EXPECT_EQ(P.BoxBytes, 16384u);
  EXPECT_EQ(P.TotalBytes, 32768u);
  ASSERT_EQ(P.Boxes.size(), 2u);
  expectBox(P.Boxes[0], 0, 0, 0);
  expectBox(P.Boxes[1], 64, 0, 16384);
}

// 256 rows is still one box.
TEST(TmaBoxesTest, TwoHundredFiftySixRows) {
  TmaBoxPlan P = plan(256, 64, 2, Swizzle::B128);
  EXPECT_EQ(P.BoxRows, 256u);
  ASSERT_EQ(P.Boxes.size(), 1u);
  EXPECT_EQ(P.TotalBytes, 32768u);
}

// Taller tiles are cut into equal chunks of at most 256 rows.
TEST(TmaBoxesTest, TallTilesSplitRows) {
  TmaBoxPlan P = plan(512, 64, 2, Swizzle::B128);
  EXPECT_EQ(P.BoxRows, 256u);
  ASSERT_EQ(P.Boxes.size(), 2u);
  expectBox(P.Boxes[0], 0, 0, 0);
  expectBox(P.Boxes[1], 0, 256, 32768);

  // 264 = 3 x 88: three boxes of 88 rows (a multiple of 8).
  TmaBoxPlan Q = plan(264, 64, 2, Swizzle::B128);
  EXPECT_EQ(Q.BoxRows, 88u);
  ASSERT_EQ(Q.Boxes.size(), 3u);
  expectBox(Q.Boxes[2], 0, 176, 176 * 128);

  // Both splits at once: 512x128 bf16 = 2 column blocks x 2 row chunks.
  TmaBoxPlan R = plan(512, 128, 2, Swizzle::B128);
  ASSERT_EQ(R.Boxes.size(), 4u);
  expectBox(R.Boxes[0], 0, 0, 0);
  expectBox(R.Boxes[1], 0, 256, 32768);
  expectBox(R.Boxes[2], 64, 0, 65536);
  expectBox(R.Boxes[3], 64, 256, 65536 + 32768);
}

// 300x64 bf16: with a swizzle 300 rows is not a multiple of 8; a row-major
// unswizzled tile splits into two 150-row boxes (150 x 128 B stays 128-byte
// aligned).
TEST(TmaBoxesTest, ThreeHundredRows) {
  EXPECT_NE(errorMessage(makeSmemTileLayout(300, 64, 2, Swizzle::B128)), "");
  TmaBoxPlan P = plan(300, 64, 2, Swizzle::None, NoSwizzleLayout::RowMajor);
  EXPECT_EQ(P.BoxCols, 64u);
  EXPECT_EQ(P.BoxRows, 150u);
  ASSERT_EQ(P.Boxes.size(), 2u);
  expectBox(P.Boxes[0], 0, 0, 0);
  expectBox(P.Boxes[1], 0, 150, 19200);
}

// fp8 128x128 with 128B swizzle: 128 one-byte columns fill the span, one box.
TEST(TmaBoxesTest, Fp8OneBox) {
  TmaBoxPlan P = plan(128, 128, 1, Swizzle::B128);
  EXPECT_EQ(P.BoxCols, 128u);
  EXPECT_EQ(P.BoxRows, 128u);
  ASSERT_EQ(P.Boxes.size(), 1u);
  EXPECT_EQ(P.TotalBytes, 16384u);
}

// 32B swizzle: 16 bf16 columns per box.
TEST(TmaBoxesTest, ThirtyTwoByteSwizzle) {
  TmaBoxPlan P = plan(64, 64, 2, Swizzle::B32);
  EXPECT_EQ(P.BoxCols, 16u);
  ASSERT_EQ(P.Boxes.size(), 4u);
  for (uint32_t I = 0; I < 4; ++I)
    expectBox(P.Boxes[I], 16 * I, 0, 2048 * I);
}

// No swizzle, MMA (interleaved) layout: one 16-byte-wide box per core-matrix
// column.
TEST(TmaBoxesTest, NoSwizzleInterleaved) {
  TmaBoxPlan P = plan(128, 64, 2, Swizzle::None);
  EXPECT_EQ(P.BoxCols, 8u);
  EXPECT_EQ(P.BoxRows, 128u);
  ASSERT_EQ(P.Boxes.size(), 8u);
  for (uint32_t I = 0; I < 8; ++I)
    expectBox(P.Boxes[I], 8 * I, 0, 2048 * I);
}

// No swizzle, row-major: one box as wide as the row.
TEST(TmaBoxesTest, NoSwizzleRowMajor) {
  TmaBoxPlan P = plan(64, 32, 4, Swizzle::None, NoSwizzleLayout::RowMajor);
  EXPECT_EQ(P.BoxCols, 32u);
  EXPECT_EQ(P.BoxRows, 64u);
  ASSERT_EQ(P.Boxes.size(), 1u);
}

TEST(TmaBoxesTest, Impossible) {
  // Rows wider than 256 elements cannot be one box.
  llvm::Expected<SmemTileLayout> Wide =
      makeSmemTileLayout(8, 512, 2, Swizzle::None, NoSwizzleLayout::RowMajor);
  ASSERT_TRUE(hasValue(Wide));
  EXPECT_EQ(errorMessage(planTmaBoxes(*Wide)),
            "row-major tile rows of 512 elements exceed the 256-element tma "
            "box limit; use a swizzled or interleaved layout");
  // 257 rows (prime) of 32 bytes: only 1-row boxes divide it, and their
  // destinations are not 128-byte aligned.
  llvm::Expected<SmemTileLayout> Prime =
      makeSmemTileLayout(257, 8, 4, Swizzle::None, NoSwizzleLayout::RowMajor);
  ASSERT_TRUE(hasValue(Prime));
  EXPECT_EQ(errorMessage(planTmaBoxes(*Prime)),
            "no box height of at most 256 rows divides the 257 rows of the "
            "tile with 128-byte-aligned destinations (rows of 32 bytes)");
}

// A copy of the first rows keeps each box's destination and cuts its
// height; a one-row tile may be cut to its first columns.
TEST(TmaBoxesTest, PrefixCopies) {
  llvm::Expected<SmemTileLayout> A =
      makeSmemTileLayout(64, 128, 1, Swizzle::B128);
  ASSERT_TRUE(hasValue(A));
  llvm::Expected<TmaBoxPlan> P = planTmaBoxPrefix(*A, 16, 128);
  ASSERT_TRUE(hasValue(P));
  EXPECT_EQ(P->BoxRows, 16u);
  EXPECT_EQ(P->BoxCols, 128u);
  EXPECT_EQ(P->TotalBytes, 2048u);
  ASSERT_EQ(P->Boxes.size(), 1u);
  EXPECT_EQ(P->Boxes[0].SmemOffset, 0u);

  // Two column blocks of 64 bf16: each box keeps its block's offset.
  llvm::Expected<SmemTileLayout> D =
      makeSmemTileLayout(64, 128, 2, Swizzle::B128);
  ASSERT_TRUE(hasValue(D));
  P = planTmaBoxPrefix(*D, 16, 128);
  ASSERT_TRUE(hasValue(P));
  EXPECT_EQ(P->BoxBytes, 2048u);
  EXPECT_EQ(P->TotalBytes, 4096u);
  ASSERT_EQ(P->Boxes.size(), 2u);
  EXPECT_EQ(P->Boxes[1].SmemOffset, 64u * 128u);
  EXPECT_EQ(P->Boxes[1].ColOffset, 64u);

  llvm::Expected<SmemTileLayout> Row =
      makeSmemTileLayout(1, 64, 4, Swizzle::None, NoSwizzleLayout::RowMajor);
  ASSERT_TRUE(hasValue(Row));
  P = planTmaBoxPrefix(*Row, 1, 16);
  ASSERT_TRUE(hasValue(P));
  EXPECT_EQ(P->BoxCols, 16u);
  EXPECT_EQ(P->TotalBytes, 64u);
  EXPECT_EQ(errorMessage(planTmaBoxPrefix(*Row, 1, 6)),
            "tma boxes span a multiple of 16 bytes, but 6 columns are 24 "
            "bytes");
  EXPECT_EQ(errorMessage(planTmaBoxPrefix(*A, 16, 64)),
            "a copy of the first 64 of 128 columns needs a one-row tile in "
            "one column block");
  EXPECT_EQ(errorMessage(planTmaBoxPrefix(*A, 65, 128)),
            "a copy of 65x128 elements does not fit the 64x128 tile");
}

// Every plan keeps the cuTensorMapEncodeTiled rules.
TEST(TmaBoxesTest, PlansObeyTmaRules) {
  for (Swizzle S : {Swizzle::None, Swizzle::B32, Swizzle::B64, Swizzle::B128})
    for (uint32_t ElemBytes : {1u, 2u, 4u})
      for (uint32_t Rows : {8u, 64u, 128u, 192u, 256u, 384u, 512u})
        for (uint32_t Cols : {32u, 64u, 128u, 256u}) {
          llvm::Expected<SmemTileLayout> L =
              makeSmemTileLayout(Rows, Cols, ElemBytes, S);
          if (!L) {
            llvm::consumeError(L.takeError());
            continue;
          }
          llvm::Expected<TmaBoxPlan> P = planTmaBoxes(*L);
          ASSERT_TRUE(hasValue(P));
          uint32_t InnerBytes = P->BoxCols * ElemBytes;
          EXPECT_EQ(InnerBytes % 16, 0u);
          if (S != Swizzle::None) {
            EXPECT_LE(InnerBytes, swizzleSpanBytes(S));
          }
          EXPECT_LE(P->BoxCols, MaxTmaBoxDim);
          EXPECT_LE(P->BoxRows, MaxTmaBoxDim);
          EXPECT_EQ(P->Boxes.size() * P->BoxBytes, P->TotalBytes);
          for (const TmaBox &B : P->Boxes)
            EXPECT_EQ(B.SmemOffset % 128, 0u);
        }
}

} // namespace

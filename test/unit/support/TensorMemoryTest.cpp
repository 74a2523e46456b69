//===- TensorMemoryTest.cpp - tcgen05 tensor-memory helpers ---------------===//
//
// Sources: CUTLASS tmem_allocator_sm100.hpp ("32 <= num_columns <= 512 and
// power of 2"); PTX "Matrix fragments for shape .32x32b" (a warp reads 32
// lanes, 32 x .num bits per lane) and the per-warp lane quarters of the
// tensor-memory access restrictions.
//
//===----------------------------------------------------------------------===//

#include "lib/Support/TensorMemory.h"
#include "test/unit/support/ExpectedHelpers.h"

#include "gtest/gtest.h"

using namespace tilec;
using namespace tilec::test;

namespace {

TEST(TensorMemoryTest, AllocColumns) {
  EXPECT_EQ(valueOf(tmemAllocColumns(1)), 32u);
  EXPECT_EQ(valueOf(tmemAllocColumns(32)), 32u);
  EXPECT_EQ(valueOf(tmemAllocColumns(33)), 64u);
  EXPECT_EQ(valueOf(tmemAllocColumns(100)), 128u);
  EXPECT_EQ(valueOf(tmemAllocColumns(128)), 128u);
  EXPECT_EQ(valueOf(tmemAllocColumns(200)), 256u);
  EXPECT_EQ(valueOf(tmemAllocColumns(300)), 512u);
  EXPECT_EQ(valueOf(tmemAllocColumns(512)), 512u);
  EXPECT_EQ(errorMessage(tmemAllocColumns(513)),
            "tensor memory allocation of 513 columns exceeds the 512 columns "
            "of an sm");
  EXPECT_EQ(errorMessage(tmemAllocColumns(0)),
            "tensor memory allocation of 0 columns");
}

TEST(TensorMemoryTest, Address) {
  EXPECT_EQ(tmemAddress(0, 0), 0u);
  EXPECT_EQ(tmemAddress(32, 64), 0x00200040u);
  EXPECT_EQ(tmemAddress(96, 511), 0x006001FFu);
}

TEST(TensorMemoryTest, WarpLaneBase) {
  const uint32_t Expected[] = {0, 32, 64, 96, 0, 32, 64, 96};
  for (uint32_t Warp = 0; Warp < 8; ++Warp)
    EXPECT_EQ(tmemWarpLaneBase(Warp), Expected[Warp]);
}

// A warpgroup reading a 128 x 256 f32 accumulator with 32 registers per load
// issues .32x32b.x32 eight times per warp.
TEST(TensorMemoryTest, LoadPlan) {
  llvm::Expected<TmemLoadPlan> P = planTcgen05Ld32x32b(256, 32);
  ASSERT_TRUE(hasValue(P));
  EXPECT_EQ(P->Num, 32u);
  EXPECT_EQ(P->LoadsPerWarp, 8u);
  EXPECT_EQ(valueOf(planTcgen05Ld32x32b(256, 128)).LoadsPerWarp, 2u);
  EXPECT_EQ(valueOf(planTcgen05Ld32x32b(8, 1)).LoadsPerWarp, 8u);
  EXPECT_EQ(errorMessage(planTcgen05Ld32x32b(256, 3)),
            "tcgen05.ld.32x32b needs .num a power of two in [1, 128], got 3");
  EXPECT_NE(errorMessage(planTcgen05Ld32x32b(256, 256)), "");
  EXPECT_EQ(errorMessage(planTcgen05Ld32x32b(100, 32)),
            "cannot read 100 columns with loads of 32 columns");
}

TEST(TensorMemoryTest, LoadCoords) {
  TmemCoord A = tcgen05Ld32x32bCoord(0, 0, 0);
  EXPECT_EQ(A.Lane, 0u);
  EXPECT_EQ(A.Column, 0u);
  // Thread 33 is lane 1 of warp 1: lane 32 + 1.
  TmemCoord B = tcgen05Ld32x32bCoord(33, 5, 64);
  EXPECT_EQ(B.Lane, 33u);
  EXPECT_EQ(B.Column, 69u);
  TmemCoord C = tcgen05Ld32x32bCoord(127, 31, 224);
  EXPECT_EQ(C.Lane, 127u);
  EXPECT_EQ(C.Column, 255u);
}

} // namespace

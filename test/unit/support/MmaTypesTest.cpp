//===- MmaTypesTest.cpp - wgmma / tcgen05 shape and fragment rules --------===//
//
// Sources: PTX ISA wgmma "Matrix Shape" (N multiples of 8 up to 256; K 16 for
// f16/bf16, 8 for tf32, 32 for e4m3/e5m2/s8/u8; s8 N in {8,16,24,32} or
// 16*i for i in 3..16), "Register Fragments" (N/2 f32 accumulators), CUTLASS
// GMMA::CLayout_64xN; PTX tcgen05 "Matrix Shape" table.
//
//===----------------------------------------------------------------------===//

#include "lib/Support/MmaTypes.h"

#include "gtest/gtest.h"

#include <set>
#include <utility>

using namespace tilec;

namespace {

TEST(MmaTypesTest, WgmmaK) {
  EXPECT_EQ(*wgmmaK(ElemType::F16), 16u);
  EXPECT_EQ(*wgmmaK(ElemType::BF16), 16u);
  EXPECT_EQ(*wgmmaK(ElemType::TF32), 8u);
  EXPECT_EQ(*wgmmaK(ElemType::E4M3), 32u);
  EXPECT_EQ(*wgmmaK(ElemType::E5M2), 32u);
  EXPECT_EQ(*wgmmaK(ElemType::S8), 32u);
  EXPECT_EQ(wgmmaK(ElemType::F32).error(),
            "wgmma has no dense shape with f32 inputs");
}

TEST(MmaTypesTest, WgmmaN) {
  for (uint32_t N = 0; N <= 272; ++N) {
    bool Legal = N >= 8 && N <= 256 && N % 8 == 0;
    EXPECT_EQ(!checkWgmmaN(N, ElemType::BF16), Legal) << "n=" << N;
    EXPECT_EQ(!checkWgmmaN(N, ElemType::E4M3), Legal) << "n=" << N;
  }
  EXPECT_EQ(*checkWgmmaN(12, ElemType::BF16),
            "wgmma with bf16 inputs needs n a multiple of 8 in [8, 256], got "
            "n=12");
  EXPECT_EQ(*checkWgmmaN(264, ElemType::F16),
            "wgmma with f16 inputs needs n a multiple of 8 in [8, 256], got "
            "n=264");
  // s8: 8, 16, 24, 32, then multiples of 16 from 48.
  EXPECT_FALSE(checkWgmmaN(24, ElemType::S8));
  EXPECT_FALSE(checkWgmmaN(48, ElemType::S8));
  EXPECT_FALSE(checkWgmmaN(256, ElemType::U8));
  EXPECT_TRUE(checkWgmmaN(40, ElemType::S8));
  EXPECT_TRUE(checkWgmmaN(56, ElemType::S8));
}

// Only f16 / bf16 operands may be transposed (MN-major).
TEST(MmaTypesTest, WgmmaMajor) {
  EXPECT_FALSE(checkWgmmaMajor(ElemType::BF16, MmaMajor::MN, MmaMajor::MN));
  EXPECT_FALSE(checkWgmmaMajor(ElemType::E4M3, MmaMajor::K, MmaMajor::K));
  EXPECT_EQ(*checkWgmmaMajor(ElemType::E4M3, MmaMajor::K, MmaMajor::MN),
            "wgmma with e4m3 inputs needs k-major a and b; only f16 and bf16 "
            "operands may be mn-major");
  EXPECT_TRUE(checkWgmmaMajor(ElemType::TF32, MmaMajor::MN, MmaMajor::K));
}

TEST(MmaTypesTest, AccumulatorRegs) {
  EXPECT_EQ(*wgmmaAccumulatorRegs(256, ElemType::F32), 128u);
  EXPECT_EQ(*wgmmaAccumulatorRegs(64, ElemType::F32), 32u);
  EXPECT_EQ(*wgmmaAccumulatorRegs(8, ElemType::F32), 4u);
  EXPECT_EQ(*wgmmaAccumulatorRegs(256, ElemType::F16), 64u);
  EXPECT_FALSE(wgmmaAccumulatorRegs(12, ElemType::F32));
  EXPECT_FALSE(wgmmaAccumulatorRegs(64, ElemType::BF16));
}

// Hand-checked positions (PTX figure "WGMMA .m64nNk16 register fragment
// layout for accumulator matrix D").
TEST(MmaTypesTest, AccumulatorGolden) {
  auto At = [](uint32_t T, uint32_t I) {
    TileCoord C = wgmmaAccumulatorCoord(T, I);
    return std::make_pair(C.Row, C.Col);
  };
  EXPECT_EQ(At(0, 0), std::make_pair(0u, 0u));
  EXPECT_EQ(At(0, 1), std::make_pair(0u, 1u));
  EXPECT_EQ(At(0, 2), std::make_pair(8u, 0u));
  EXPECT_EQ(At(0, 3), std::make_pair(8u, 1u));
  EXPECT_EQ(At(0, 4), std::make_pair(0u, 8u));
  EXPECT_EQ(At(5, 0), std::make_pair(1u, 2u));
  EXPECT_EQ(At(32, 0), std::make_pair(16u, 0u));
  EXPECT_EQ(At(127, 127), std::make_pair(63u, 255u));
}

// The same map computed the way CUTLASS defines it: CLayout_64xN =
// ((4,8,4),(2,2,N/8)) : ((128,1,16),(64,8,512)), a (thread, value) -> index
// layout into the column-major 64xN tile (index = m + 64 n).
TEST(MmaTypesTest, AccumulatorMatchesCuteLayout) {
  const uint32_t N = 256;
  std::set<std::pair<uint32_t, uint32_t>> Seen;
  for (uint32_t T = 0; T < 128; ++T) {
    for (uint32_t I = 0; I < N / 2; ++I) {
      uint32_t Index = (T % 4) * 128 + ((T / 4) % 8) * 1 + (T / 32) * 16 +
                       (I % 2) * 64 + ((I / 2) % 2) * 8 + (I / 4) * 512;
      TileCoord C = wgmmaAccumulatorCoord(T, I);
      EXPECT_EQ(C.Row, Index % 64) << "t=" << T << " i=" << I;
      EXPECT_EQ(C.Col, Index / 64) << "t=" << T << " i=" << I;
      Seen.insert({C.Row, C.Col});
    }
  }
  // Every element of the 64x256 tile is held exactly once.
  EXPECT_EQ(Seen.size(), 64u * N);
}

TEST(MmaTypesTest, Tcgen05Shapes) {
  for (uint32_t N = 0; N <= 272; ++N) {
    bool Group1 = N >= 8 && N <= 256 && N % 8 == 0;
    bool Group2 = N >= 16 && N <= 256 && N % 16 == 0;
    EXPECT_EQ(!checkTcgen05Shape(64, N, 1), Group1) << "n=" << N;
    // M = 128 with cta_group::1 also takes any multiple of 8 (PTX table; the
    // multiple-of-16 rule is CUTLASS's for A in tensor memory).
    EXPECT_EQ(!checkTcgen05Shape(128, N, 1), Group1) << "n=" << N;
    EXPECT_EQ(!checkTcgen05Shape(128, N, 2), Group2) << "n=" << N;
    EXPECT_EQ(!checkTcgen05Shape(256, N, 2), Group2) << "n=" << N;
  }
  EXPECT_TRUE(checkTcgen05Shape(32, 64, 1));
  EXPECT_TRUE(checkTcgen05Shape(256, 64, 1));
  EXPECT_TRUE(checkTcgen05Shape(64, 64, 2));
}

} // namespace

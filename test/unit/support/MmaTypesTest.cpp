//===- MmaTypesTest.cpp - wgmma / tcgen05 shape and fragment rules --------===//
//
// Sources: PTX ISA wgmma "Matrix Shape" (N multiples of 8 up to 256; K 16 for
// f16/bf16, 8 for tf32, 32 for e4m3/e5m2/i8/u8; i8 N in {8,16,24,32} or
// 16*i for i in 3..16), "Register Fragments" (N/2 f32 accumulators), CUTLASS
// GMMA::CLayout_64xN; PTX tcgen05 "Matrix Shape" table.
//
//===----------------------------------------------------------------------===//

#include "lib/Support/MmaTypes.h"
#include "test/unit/support/ExpectedHelpers.h"

#include "gtest/gtest.h"

#include <set>
#include <utility>

using namespace tilec;
using namespace tilec::test;
using vocab::ElementType;

namespace {

TEST(MmaTypesTest, WgmmaK) {
  EXPECT_EQ(valueOf(wgmmaK(ElementType::F16)), 16u);
  EXPECT_EQ(valueOf(wgmmaK(ElementType::BF16)), 16u);
  EXPECT_EQ(valueOf(wgmmaK(ElementType::TF32)), 8u);
  EXPECT_EQ(valueOf(wgmmaK(ElementType::E4M3)), 32u);
  EXPECT_EQ(valueOf(wgmmaK(ElementType::E5M2)), 32u);
  EXPECT_EQ(valueOf(wgmmaK(ElementType::I8)), 32u);
  EXPECT_EQ(errorMessage(wgmmaK(ElementType::F32)),
            "wgmma has no dense shape with f32 inputs");
}

TEST(MmaTypesTest, WgmmaN) {
  for (uint32_t N = 0; N <= 272; ++N) {
    bool Legal = N >= 8 && N <= 256 && N % 8 == 0;
    EXPECT_EQ(errorMessage(checkWgmmaN(N, ElementType::BF16)).empty(), Legal)
        << "n=" << N;
    EXPECT_EQ(errorMessage(checkWgmmaN(N, ElementType::E4M3)).empty(), Legal)
        << "n=" << N;
  }
  EXPECT_EQ(errorMessage(checkWgmmaN(12, ElementType::BF16)),
            "wgmma with bf16 inputs needs n a multiple of 8 in [8, 256], got "
            "n=12");
  EXPECT_EQ(errorMessage(checkWgmmaN(264, ElementType::F16)),
            "wgmma with f16 inputs needs n a multiple of 8 in [8, 256], got "
            "n=264");
  // i8: 8, 16, 24, 32, then multiples of 16 from 48.
  EXPECT_EQ(errorMessage(checkWgmmaN(24, ElementType::I8)), "");
  EXPECT_EQ(errorMessage(checkWgmmaN(48, ElementType::I8)), "");
  EXPECT_EQ(errorMessage(checkWgmmaN(256, ElementType::U8)), "");
  EXPECT_NE(errorMessage(checkWgmmaN(40, ElementType::I8)), "");
  EXPECT_NE(errorMessage(checkWgmmaN(56, ElementType::I8)), "");
}

// Only f16 / bf16 operands may be transposed (MN-major).
TEST(MmaTypesTest, WgmmaMajor) {
  EXPECT_EQ(errorMessage(
                checkWgmmaMajor(ElementType::BF16, MmaMajor::MN, MmaMajor::MN)),
            "");
  EXPECT_EQ(errorMessage(
                checkWgmmaMajor(ElementType::E4M3, MmaMajor::K, MmaMajor::K)),
            "");
  EXPECT_EQ(errorMessage(
                checkWgmmaMajor(ElementType::E4M3, MmaMajor::K, MmaMajor::MN)),
            "wgmma with e4m3 inputs needs k-major a and b; only f16 and bf16 "
            "operands may be mn-major");
  EXPECT_NE(errorMessage(
                checkWgmmaMajor(ElementType::TF32, MmaMajor::MN, MmaMajor::K)),
            "");
}

TEST(MmaTypesTest, AccumulatorRegs) {
  EXPECT_EQ(valueOf(wgmmaAccumulatorRegs(256, ElementType::F32)), 128u);
  EXPECT_EQ(valueOf(wgmmaAccumulatorRegs(64, ElementType::F32)), 32u);
  EXPECT_EQ(valueOf(wgmmaAccumulatorRegs(8, ElementType::F32)), 4u);
  EXPECT_EQ(valueOf(wgmmaAccumulatorRegs(256, ElementType::F16)), 64u);
  EXPECT_NE(errorMessage(wgmmaAccumulatorRegs(12, ElementType::F32)), "");
  EXPECT_NE(errorMessage(wgmmaAccumulatorRegs(64, ElementType::BF16)), "");
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
    EXPECT_EQ(errorMessage(checkTcgen05Shape(64, N, 1)).empty(), Group1)
        << "n=" << N;
    // M = 128 with cta_group::1 also takes any multiple of 8 (PTX table; the
    // multiple-of-16 rule is CUTLASS's for A in tensor memory).
    EXPECT_EQ(errorMessage(checkTcgen05Shape(128, N, 1)).empty(), Group1)
        << "n=" << N;
    EXPECT_EQ(errorMessage(checkTcgen05Shape(128, N, 2)).empty(), Group2)
        << "n=" << N;
    EXPECT_EQ(errorMessage(checkTcgen05Shape(256, N, 2)).empty(), Group2)
        << "n=" << N;
  }
  EXPECT_NE(errorMessage(checkTcgen05Shape(32, 64, 1)), "");
  EXPECT_NE(errorMessage(checkTcgen05Shape(256, 64, 1)), "");
  EXPECT_NE(errorMessage(checkTcgen05Shape(64, 64, 2)), "");
}

} // namespace

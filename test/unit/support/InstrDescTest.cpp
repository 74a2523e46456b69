//===- InstrDescTest.cpp - tcgen05 instruction descriptor -----------------===//
//
// Golden values are derived by hand from the PTX ISA table "Instruction
// descriptor format for .kind::tf32, .kind::f16, .kind::f8f6f4 and .kind::i8"
// (sparsity 0-2, saturate 3, dtype 4-5, atype 7-9, btype 10-12, negate 13-14,
// transpose 15-16, N>>3 17-22, bit 23 reserved, M>>4 24-28, max shift 30-31)
// and agree with CUTLASS UMMA::InstrDescriptor / make_instr_desc
// (mma_sm100_desc.hpp), which has the same bit fields.
//
//===----------------------------------------------------------------------===//

#include "lib/Support/Descriptors.h"
#include "test/unit/support/ExpectedHelpers.h"

#include "gtest/gtest.h"

using namespace tilec;
using namespace tilec::test;
using vocab::ElementType;

namespace {

Tcgen05MmaConfig config(ElementType A, ElementType B, ElementType D, uint32_t M,
                        uint32_t N, uint32_t CtaGroup = 1,
                        MmaMajor MajorA = MmaMajor::K,
                        MmaMajor MajorB = MmaMajor::K) {
  Tcgen05MmaConfig C;
  C.A = A;
  C.B = B;
  C.D = D;
  C.M = M;
  C.N = N;
  C.CtaGroup = CtaGroup;
  C.MajorA = MajorA;
  C.MajorB = MajorB;
  return C;
}

/// The descriptor for a legal configuration.
template <typename... Ts> uint32_t idesc(Ts... Args) {
  return valueOf(makeTcgen05InstrDesc(config(Args...)));
}

/// The error for an illegal configuration.
template <typename... Ts> std::string idescError(Ts... Args) {
  llvm::Expected<uint32_t> R = makeTcgen05InstrDesc(config(Args...));
  EXPECT_FALSE(R);
  return errorMessage(std::move(R));
}

// The check value: bf16 x bf16 -> f32, M=128, N=256, both K-major.
// d F32 (1 << 4 = 0x10) | a BF16 (1 << 7 = 0x80) | b BF16 (1 << 10 = 0x400)
// | N>>3 = 32 << 17 = 0x400000 | M>>4 = 8 << 24 = 0x08000000 = 0x08400490.
TEST(InstrDescTest, CheckValue) {
  EXPECT_EQ(
      idesc(ElementType::BF16, ElementType::BF16, ElementType::F32, 128, 256),
      0x08400490u);
  // M sits at bit 24, not 23: decoding gives M = 128 back.
  Tcgen05InstrDescFields F = decodeTcgen05InstrDesc(0x08400490u);
  EXPECT_EQ(F.M, 128u);
  EXPECT_EQ(F.N, 256u);
  EXPECT_EQ(F.DFormat, 1u);
  EXPECT_EQ(F.AFormat, 1u);
  EXPECT_EQ(F.BFormat, 1u);
}

TEST(InstrDescTest, F16Golden) {
  // f16 x f16 -> f16, M=64, N=8: N>>3 = 1 << 17, M>>4 = 4 << 24.
  EXPECT_EQ(idesc(ElementType::F16, ElementType::F16, ElementType::F16, 64, 8),
            0x04020000u);
  // f16 x f16 -> f32, M=128, N=128: 0x10 | 16 << 17 | 8 << 24.
  EXPECT_EQ(
      idesc(ElementType::F16, ElementType::F16, ElementType::F32, 128, 128),
      0x08200010u);
}

// tf32 (kind::tf32): a = b = 2 -> 0x100 | 0x800, d F32, M=128, N=128.
TEST(InstrDescTest, Tf32Golden) {
  EXPECT_EQ(
      idesc(ElementType::TF32, ElementType::TF32, ElementType::F32, 128, 128),
      0x08200910u);
  EXPECT_EQ(valueOf(tcgen05KindFor(ElementType::TF32, ElementType::TF32)),
            Tcgen05Kind::TF32);
}

// Transpose bits: A MN-major bit 15 (0x8000), B MN-major bit 16 (0x10000).
TEST(InstrDescTest, MnMajorGolden) {
  EXPECT_EQ(idesc(ElementType::BF16, ElementType::BF16, ElementType::F32, 128,
                  256, 1, MmaMajor::MN, MmaMajor::MN),
            0x08418490u);
  EXPECT_EQ(idesc(ElementType::BF16, ElementType::BF16, ElementType::F32, 128,
                  256, 1, MmaMajor::K, MmaMajor::MN),
            0x08410490u);
}

// Negate A is bit 13.
TEST(InstrDescTest, NegateGolden) {
  Tcgen05MmaConfig C;
  C.NegateA = true;
  EXPECT_EQ(valueOf(makeTcgen05InstrDesc(C)), 0x08402490u);
}

// cta_group::2, M=256, N=256: M>>4 = 16 << 24 = 0x10000000.
TEST(InstrDescTest, CtaGroup2Golden) {
  EXPECT_EQ(idesc(ElementType::BF16, ElementType::BF16, ElementType::F32, 256,
                  256, 2),
            0x10400490u);
}

// kind::f8f6f4 format codes (PTX, CUTLASS MXF8F6F4Format): E4M3 0, E5M2 1.
TEST(InstrDescTest, F8F6F4Golden) {
  EXPECT_EQ(
      idesc(ElementType::E4M3, ElementType::E4M3, ElementType::F32, 128, 256),
      0x08400010u);
  EXPECT_EQ(
      idesc(ElementType::E5M2, ElementType::E4M3, ElementType::F32, 128, 256),
      0x08400090u);
  // e4m3 and e5m2 may be MN-major: transpose A is bit 15 (0x8000).
  EXPECT_EQ(idesc(ElementType::E4M3, ElementType::E4M3, ElementType::F32, 128,
                  256, 1, MmaMajor::MN),
            0x08408010u);
  EXPECT_EQ(valueOf(tcgen05KindFor(ElementType::E5M2, ElementType::E4M3)),
            Tcgen05Kind::F8F6F4);
}

// Shapes of the PTX table: cta_group::1 M 64/128, N multiple of 8 in
// [8, 256]; cta_group::2 M 128/256, N multiple of 16 in [16, 256].
TEST(InstrDescTest, IllegalShapes) {
  EXPECT_EQ(idescError(ElementType::BF16, ElementType::BF16, ElementType::F32,
                       96, 128),
            "tcgen05 M of 96 is not supported with cta_group 1; use 64 or 128");
  EXPECT_EQ(
      idescError(ElementType::BF16, ElementType::BF16, ElementType::F32, 256,
                 128),
      "tcgen05 M of 256 is not supported with cta_group 1; use 64 or 128");
  EXPECT_EQ(idescError(ElementType::BF16, ElementType::BF16, ElementType::F32,
                       128, 12),
            "tcgen05 N of 12 must be a multiple of 8 in 8..256");
  EXPECT_EQ(idescError(ElementType::BF16, ElementType::BF16, ElementType::F32,
                       128, 264),
            "tcgen05 N of 264 must be a multiple of 8 in 8..256");
  EXPECT_EQ(
      idescError(ElementType::BF16, ElementType::BF16, ElementType::F32, 64,
                 128, 2),
      "tcgen05 M of 64 is not supported with cta_group 2; use 128 or 256");
  EXPECT_EQ(idescError(ElementType::BF16, ElementType::BF16, ElementType::F32,
                       256, 24, 2),
            "tcgen05 N of 24 must be a multiple of 16 in 16..256");
  EXPECT_EQ(idescError(ElementType::BF16, ElementType::BF16, ElementType::F32,
                       128, 128, 3),
            "cta_group must be 1 or 2, got 3");
  // The smallest legal N per group: 1 << 17 and 2 << 17.
  EXPECT_EQ(
      idesc(ElementType::BF16, ElementType::BF16, ElementType::F32, 128, 8),
      0x08020490u);
  EXPECT_EQ(
      idesc(ElementType::BF16, ElementType::BF16, ElementType::F32, 128, 16, 2),
      0x08040490u);
}

TEST(InstrDescTest, IllegalTypes) {
  EXPECT_EQ(idescError(ElementType::BF16, ElementType::BF16, ElementType::F16,
                       128, 256),
            "tcgen05.mma kind::f16 with a=bf16 inputs accumulates in f32, got "
            "d=f16");
  EXPECT_EQ(idescError(ElementType::F16, ElementType::BF16, ElementType::F32,
                       128, 256),
            "tcgen05.mma has no kind for a=f16 and b=bf16 inputs");
  EXPECT_EQ(idescError(ElementType::TF32, ElementType::TF32, ElementType::F16,
                       128, 256),
            "tcgen05.mma kind::tf32 with a=tf32 inputs accumulates in f32, "
            "got d=f16");
  EXPECT_NE(errorMessage(tcgen05KindFor(ElementType::F32, ElementType::F32)),
            "");
}

TEST(InstrDescTest, RawEncoderRoundTrip) {
  Tcgen05InstrDescFields F;
  F.SparsitySelector = 2;
  F.Sparse = true;
  F.Saturate = true;
  F.DFormat = 2;
  F.AFormat = 1;
  F.BFormat = 0;
  F.NegateA = true;
  F.TransposeB = true;
  F.N = 248;
  F.M = 64;
  F.MaxShift = 3;
  llvm::Expected<uint32_t> D = encodeTcgen05InstrDesc(F);
  ASSERT_TRUE(hasValue(D));
  Tcgen05InstrDescFields G = decodeTcgen05InstrDesc(*D);
  EXPECT_EQ(G.SparsitySelector, 2u);
  EXPECT_TRUE(G.Sparse);
  EXPECT_TRUE(G.Saturate);
  EXPECT_EQ(G.DFormat, 2u);
  EXPECT_EQ(G.AFormat, 1u);
  EXPECT_EQ(G.BFormat, 0u);
  EXPECT_TRUE(G.NegateA);
  EXPECT_FALSE(G.NegateB);
  EXPECT_FALSE(G.TransposeA);
  EXPECT_TRUE(G.TransposeB);
  EXPECT_EQ(G.N, 248u);
  EXPECT_EQ(G.M, 64u);
  EXPECT_EQ(G.MaxShift, 3u);
  // Reserved bits 6, 23 and 29 stay clear.
  EXPECT_EQ(*D & ((1u << 6) | (1u << 23) | (1u << 29)), 0u);
}

TEST(InstrDescTest, RawEncoderErrors) {
  Tcgen05InstrDescFields F;
  F.M = 128;
  F.N = 12;
  EXPECT_EQ(errorMessage(encodeTcgen05InstrDesc(F)),
            "n=12 is not a multiple of 8 in [8, 504] (6-bit n>>3 field)");
  F.N = 256;
  F.M = 8;
  EXPECT_EQ(errorMessage(encodeTcgen05InstrDesc(F)),
            "m=8 is not a multiple of 16 in [16, 496] (5-bit m>>4 field)");
  F.M = 128;
  F.AFormat = 8;
  EXPECT_EQ(errorMessage(encodeTcgen05InstrDesc(F)),
            "a format 8 does not fit in 3 bits");
}

} // namespace

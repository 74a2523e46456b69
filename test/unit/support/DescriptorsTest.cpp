//===- DescriptorsTest.cpp - wgmma / tcgen05 shared-memory descriptors ----===//
//
// Golden values are derived by hand from:
//  - PTX ISA "Matrix Descriptor Format" (wgmma): start 0-13, LBO 16-29,
//    SBO 32-45, base offset 49-51, layout 62-63 (none 0, 128B 1, 64B 2,
//    32B 3); fields are (x & 0x3FFFF) >> 4.
//  - PTX ISA "Shared Memory Descriptor" (tcgen05): same low fields, 0b001 at
//    46-48, LBO mode 52, layout 61-63 (none 0, 128B 2, 64B 4, 32B 6).
//  - CUTLASS make_gmma_desc / make_umma_desc for K-major tiles built with
//    tile_to_shape(Layout_K_SW*_Atom<T>, (rows, K)): LBO field = 1 for
//    swizzled layouts, SBO = stride between 8-row groups, base offset 0.
//
//===----------------------------------------------------------------------===//

#include "lib/Support/Descriptors.h"
#include "test/unit/support/ExpectedHelpers.h"

#include "gtest/gtest.h"

using namespace tilec;
using namespace tilec::test;

namespace {

SmemTileLayout layout(uint32_t Rows, uint32_t Cols, uint32_t ElemBytes,
                      Swizzle S) {
  return valueOf(makeSmemTileLayout(Rows, Cols, ElemBytes, S));
}

uint64_t wgmma(const SmemTileLayout &L, MmaMajor Major = MmaMajor::K) {
  return valueOf(wgmmaOperandDesc(L, Major));
}

uint64_t tcgen05(const SmemTileLayout &L, MmaMajor Major = MmaMajor::K) {
  return valueOf(tcgen05OperandDesc(L, Major));
}

TEST(DescriptorsTest, AddressField) {
  EXPECT_EQ(smemDescAddressField(0x400), 0x40u);
  // Only the 18-bit shared window counts: 0x40010 & 0x3FFFF = 0x10.
  EXPECT_EQ(smemDescAddressField(0x40010), 0x1u);
}

// bf16 128x64, K-major, 128B swizzle, at shared address 0x400.
// Constant part: LBO field 1 (unused, "assumed 1"), SBO 8 rows x 128 B = 1024
// -> field 64, layout 1 -> 0x4000'0040'0001'0000. Start field 0x400 >> 4 =
// 0x40. This is what CUTLASS make_gmma_desc<Major::K> yields for
// tile_to_shape(Layout_K_SW128_Atom<bf16>, (128, 64)) at 0x400 (the u128
// layout has 8-row stride 8 u128 and 8-row-group stride 64 u128).
TEST(DescriptorsTest, Wgmma128BGolden) {
  SmemTileLayout L = layout(128, 64, 2, Swizzle::B128);
  EXPECT_EQ(wgmma(L), 0x4000004000010000ull);
  EXPECT_EQ(wgmma(L) + smemDescAddressField(0x400), 0x4000004000010040ull);
  SmemDescFields F;
  F.StartAddress = 0x400;
  F.LeadingByteOffset = 16;
  F.StrideByteOffset = 1024;
  F.Swz = Swizzle::B128;
  EXPECT_EQ(valueOf(encodeWgmmaSmemDesc(F)), 0x4000004000010040ull);
}

// Same tile for tcgen05: add 1 << 46 (0x0000'4000'0000'0000) and layout code
// 2 at bit 61 (= 0x4000'0000'0000'0000, the same bits as wgmma's 1 << 62).
// Matches CUTLASS make_umma_desc<Major::K> (version_ = 1, lbo_mode_ = 0).
TEST(DescriptorsTest, Tcgen05128BGolden) {
  SmemTileLayout L = layout(128, 64, 2, Swizzle::B128);
  EXPECT_EQ(tcgen05(L), 0x4000404000010000ull);
  EXPECT_EQ(tcgen05(L) + smemDescAddressField(0x400), 0x4000404000010040ull);
}

// bf16 128x32, 64B swizzle at 0x400: SBO 8 x 64 = 512 -> field 32.
// wgmma layout 2 << 62 and tcgen05 layout 4 << 61 are both bit 63.
TEST(DescriptorsTest, SixtyFourByteGolden) {
  SmemTileLayout L = layout(128, 32, 2, Swizzle::B64);
  EXPECT_EQ(wgmma(L) + smemDescAddressField(0x400), 0x8000002000010040ull);
  EXPECT_EQ(tcgen05(L) + smemDescAddressField(0x400), 0x8000402000010040ull);
}

// bf16 128x16, 32B swizzle at 0x400: SBO 8 x 32 = 256 -> field 16.
// wgmma layout 3 << 62 and tcgen05 layout 6 << 61 are both bits 62-63.
TEST(DescriptorsTest, ThirtyTwoByteGolden) {
  SmemTileLayout L = layout(128, 16, 2, Swizzle::B32);
  EXPECT_EQ(wgmma(L) + smemDescAddressField(0x400), 0xC000001000010040ull);
  EXPECT_EQ(tcgen05(L) + smemDescAddressField(0x400), 0xC000401000010040ull);
}

// fp8 128x128 with 128B swizzle is one 128-byte-wide block, the same
// descriptor as bf16 128x64.
TEST(DescriptorsTest, Fp8UsesSameAtom) {
  EXPECT_EQ(wgmma(layout(128, 128, 1, Swizzle::B128)),
            wgmma(layout(128, 64, 2, Swizzle::B128)));
}

// No swizzle, K-major, interleaved: LBO = distance between 16-byte K columns
// of core matrices = rows x 16 = 2048 (field 128); SBO = distance between
// 8-row groups = 128 (field 8).
TEST(DescriptorsTest, KMajorNoSwizzleGolden) {
  SmemTileLayout L = layout(128, 64, 2, Swizzle::None);
  EXPECT_EQ(wgmma(L), 0x0000000800800000ull);
  EXPECT_EQ(tcgen05(L), 0x0000400800800000ull);
}

// PTX ISA example "K-Major, no-swizzling and tf32 type": exact layout
// ((8,2),(4,4)):((4,32),(1,64)) in tf32 elements, i.e. a 16x16 tf32 tile in
// the interleaved layout; the ISA gives LBO field 16 and SBO field 8.
TEST(DescriptorsTest, PtxNoSwizzleTf32Example) {
  SmemTileLayout L = layout(16, 16, 4, Swizzle::None);
  llvm::Expected<OperandStrides> S = mmaOperandStrides(L, MmaMajor::K);
  ASSERT_TRUE(hasValue(S));
  EXPECT_EQ(S->LeadingByteOffset >> 4, 16u);
  EXPECT_EQ(S->StrideByteOffset >> 4, 8u);
  EXPECT_EQ(wgmma(L), 0x0000000800100000ull);
}

// PTX ISA example "K-Major, 32B swizzling and tf32 type": SBO field 16
// (64 tf32 = 256 bytes), LBO 1 (assumed).
TEST(DescriptorsTest, PtxSwizzle32Tf32Example) {
  SmemTileLayout L = layout(16, 8, 4, Swizzle::B32);
  SmemDescFields F = decodeWgmmaSmemDesc(wgmma(L));
  EXPECT_EQ(F.StrideByteOffset >> 4, 16u);
  EXPECT_EQ(F.LeadingByteOffset >> 4, 1u);
  EXPECT_EQ(F.Swz, Swizzle::B32);
}

// MN-major (transposed) bf16 B operand: K = 64 rows, N = 128 contiguous, 128B.
// Two 64-element MN atoms of 64 rows x 128 B each. LBO = next MN atom =
// 64 x 128 = 8192 (field 512), SBO = next 8 K rows = 1024 (field 64). These
// are DeepGEMM's make_gmma_desc<MN> values (SBO = 8 x atom x 2 bytes,
// LBO = BLOCK_K x atom x 2 bytes).
TEST(DescriptorsTest, MnMajor128BGolden) {
  SmemTileLayout L = layout(64, 128, 2, Swizzle::B128);
  EXPECT_EQ(wgmma(L, MmaMajor::MN), 0x4000004002000000ull);
  EXPECT_EQ(tcgen05(L, MmaMajor::MN), 0x4000404002000000ull);
}

// MN-major without swizzle, bf16 K = 16 x N = 16: core matrices of 8 K rows x
// 16 bytes; LBO = next 8 K rows = 128 (field 8), SBO = next 16-byte MN column
// = 16 rows x 16 = 256 (field 16).
TEST(DescriptorsTest, MnMajorNoSwizzleGolden) {
  SmemTileLayout L = layout(16, 16, 2, Swizzle::None);
  EXPECT_EQ(wgmma(L, MmaMajor::MN), 0x0000001000080000ull);
}

TEST(DescriptorsTest, OperandErrors) {
  // wgmma transposes only 16-bit types.
  llvm::Expected<uint64_t> Fp8 =
      wgmmaOperandDesc(layout(64, 128, 1, Swizzle::B128), MmaMajor::MN);
  ASSERT_FALSE(Fp8);
  EXPECT_EQ(
      errorMessage(std::move(Fp8)),
      "wgmma mn-major operands need 16-bit elements, got 1-byte elements");
  // tcgen05 allows MN-major e4m3 / e5m2 / i8.
  EXPECT_EQ(errorMessage(tcgen05OperandDesc(layout(64, 128, 1, Swizzle::B128),
                                            MmaMajor::MN)),
            "");
  // A plain row-major unswizzled tile is not an MMA layout.
  llvm::Expected<SmemTileLayout> RowMajor =
      makeSmemTileLayout(64, 64, 2, Swizzle::None, NoSwizzleLayout::RowMajor);
  ASSERT_TRUE(hasValue(RowMajor));
  llvm::Expected<uint64_t> D = wgmmaOperandDesc(*RowMajor, MmaMajor::K);
  ASSERT_FALSE(D);
  EXPECT_EQ(errorMessage(std::move(D)),
            "no-swizzle mma operand needs the interleaved layout "
            "(16-byte column blocks), got 128-byte blocks");
}

// Start-address increments, in 16-byte units, for bf16 128x64 128B K-major:
// one wgmma K step (16 bf16 = 32 B) adds 2; the next 8-row group adds
// 1024 >> 4 = 64; the next M = 64 tile adds 64 x 128 >> 4 = 512 (MLIR's
// NVGPUToNVVM iterateDescriptorA draws the same "descA+512").
TEST(DescriptorsTest, AdvanceKMajor128B) {
  SmemTileLayout L = layout(128, 64, 2, Swizzle::B128);
  EXPECT_EQ(valueOf(smemDescAdvance(L, MmaMajor::K, 0, 16)), 2u);
  EXPECT_EQ(valueOf(smemDescAdvance(L, MmaMajor::K, 0, 32)), 4u);
  EXPECT_EQ(valueOf(smemDescAdvance(L, MmaMajor::K, 0, 48)), 6u);
  EXPECT_EQ(valueOf(smemDescAdvance(L, MmaMajor::K, 8, 0)), 64u);
  EXPECT_EQ(valueOf(smemDescAdvance(L, MmaMajor::K, 64, 0)), 512u);
  EXPECT_EQ(valueOf(smemDescAdvance(L, MmaMajor::K, 64, 16)), 514u);
  // fp8: one K step of 32 elements is also 32 bytes.
  SmemTileLayout Fp8 = layout(128, 128, 1, Swizzle::B128);
  EXPECT_EQ(valueOf(smemDescAdvance(Fp8, MmaMajor::K, 0, 32)), 2u);
}

// K beyond the first swizzle atom moves to the next column block:
// 128 rows x 128 B = 16384 B -> 1024.
TEST(DescriptorsTest, AdvanceAcrossColumnBlocks) {
  SmemTileLayout L = layout(128, 128, 2, Swizzle::B128);
  EXPECT_EQ(valueOf(smemDescAdvance(L, MmaMajor::K, 0, 64)), 1024u);
  EXPECT_EQ(valueOf(smemDescAdvance(L, MmaMajor::K, 0, 80)), 1026u);
}

// Interleaved: a K step of 8 bf16 is one 16-byte column = rows x 16 bytes.
TEST(DescriptorsTest, AdvanceNoSwizzle) {
  SmemTileLayout L = layout(128, 64, 2, Swizzle::None);
  EXPECT_EQ(valueOf(smemDescAdvance(L, MmaMajor::K, 0, 8)), 128u);
  EXPECT_EQ(valueOf(smemDescAdvance(L, MmaMajor::K, 0, 16)), 256u);
  EXPECT_EQ(valueOf(smemDescAdvance(L, MmaMajor::K, 8, 0)), 8u);
  EXPECT_EQ(valueOf(smemDescAdvance(L, MmaMajor::K, 64, 0)), 64u);
}

// MN-major: a K step of 16 rows is 16 x 128 B (field 128); the next 64-wide
// MN atom is the next block (64 x 128 B, field 512); MN offsets inside an
// atom cannot be expressed.
TEST(DescriptorsTest, AdvanceMnMajor) {
  SmemTileLayout L = layout(64, 128, 2, Swizzle::B128);
  EXPECT_EQ(valueOf(smemDescAdvance(L, MmaMajor::MN, 16, 0)), 128u);
  EXPECT_EQ(valueOf(smemDescAdvance(L, MmaMajor::MN, 0, 64)), 512u);
  llvm::Expected<uint32_t> Inside = smemDescAdvance(L, MmaMajor::MN, 0, 32);
  ASSERT_FALSE(Inside);
  EXPECT_EQ(errorMessage(std::move(Inside)),
            "mn-major column offset 32 does not start a 128-byte column block");
}

// MN-major with 64B swizzle (the B of test/Target/Inputs/wgmma_mn_major.tile):
// K = 64 rows x N = 128, four 32-column atoms of 64 rows x 64 B. LBO = next
// atom = 4096 (field 256), SBO = 8 K rows = 512 (field 32), layout 2. A K
// step of 16 rows is 1024 B (64); the second atom starts at 4096 B (256).
TEST(DescriptorsTest, MnMajor64B) {
  SmemTileLayout L = layout(64, 128, 2, Swizzle::B64);
  EXPECT_EQ(wgmma(L, MmaMajor::MN), 0x8000002001000000ull);
  EXPECT_EQ(valueOf(smemDescAdvance(L, MmaMajor::MN, 16, 0)), 64u);
  EXPECT_EQ(valueOf(smemDescAdvance(L, MmaMajor::MN, 0, 32)), 256u);
  EXPECT_EQ(valueOf(smemDescAdvance(L, MmaMajor::MN, 16, 64)), 576u);
}

TEST(DescriptorsTest, AdvanceErrors) {
  SmemTileLayout L = layout(128, 64, 2, Swizzle::B128);
  EXPECT_EQ(errorMessage(smemDescAdvance(L, MmaMajor::K, 4, 0)),
            "row offset 4 is not a multiple of 8 (one core-matrix group)");
  EXPECT_EQ(errorMessage(smemDescAdvance(L, MmaMajor::K, 0, 4)),
            "column offset 4 (8 bytes) is not a multiple of 16 bytes");
  EXPECT_EQ(errorMessage(smemDescAdvance(L, MmaMajor::K, 128, 0)),
            "element (128, 0) is outside the 128x64 tile");
}

// The lowering computes constant + ((addr & 0x3FFFF) >> 4) at run time; that
// must equal encoding the address directly, for every aligned address.
TEST(DescriptorsTest, RuntimeAddressAddsToConstant) {
  SmemTileLayout L = layout(128, 64, 2, Swizzle::B128);
  for (uint32_t Addr = 0; Addr < (1u << 18); Addr += 1024) {
    SmemDescFields F;
    F.StartAddress = Addr;
    F.LeadingByteOffset = 16;
    F.StrideByteOffset = 1024;
    F.Swz = Swizzle::B128;
    EXPECT_EQ(valueOf(encodeWgmmaSmemDesc(F)),
              wgmma(L) + smemDescAddressField(Addr));
    EXPECT_EQ(valueOf(encodeTcgen05SmemDesc(F)),
              tcgen05(L) + smemDescAddressField(Addr));
  }
}

TEST(DescriptorsTest, RoundTrip) {
  for (Swizzle S : {Swizzle::None, Swizzle::B32, Swizzle::B64, Swizzle::B128})
    for (uint32_t Addr : {0u, 0x400u, 0x12340u, 0x3FFF0u})
      for (uint32_t Lbo : {16u, 2048u, 0x3FFF0u})
        for (uint32_t Sbo : {128u, 1024u, 0x20000u}) {
          SmemDescFields F;
          F.StartAddress = Addr;
          F.LeadingByteOffset = Lbo;
          F.StrideByteOffset = Sbo;
          F.BaseOffset = S == Swizzle::None ? 0 : 5;
          F.Swz = S;
          SmemDescFields W =
              decodeWgmmaSmemDesc(valueOf(encodeWgmmaSmemDesc(F)));
          EXPECT_EQ(W.StartAddress, Addr);
          EXPECT_EQ(W.LeadingByteOffset, Lbo);
          EXPECT_EQ(W.StrideByteOffset, Sbo);
          EXPECT_EQ(W.BaseOffset, F.BaseOffset);
          EXPECT_EQ(W.Swz, S);
          F.LeadingAbsolute = true;
          llvm::Expected<SmemDescFields> T =
              decodeTcgen05SmemDesc(valueOf(encodeTcgen05SmemDesc(F)));
          ASSERT_TRUE(hasValue(T));
          EXPECT_EQ(T->StartAddress, Addr);
          EXPECT_EQ(T->LeadingByteOffset, Lbo);
          EXPECT_EQ(T->StrideByteOffset, Sbo);
          EXPECT_EQ(T->BaseOffset, F.BaseOffset);
          EXPECT_TRUE(T->LeadingAbsolute);
          EXPECT_EQ(T->Swz, S);
        }
}

// Checks shared by both formats report the same message from either encoder.
TEST(DescriptorsTest, EncoderErrors) {
  struct Case {
    void (*Change)(SmemDescFields &);
    const char *Error;
  };
  const Case Cases[] = {
      {[](SmemDescFields &F) { F.StartAddress = 0x408; },
       "matrix start address 0x408 is not 16-byte aligned"},
      {[](SmemDescFields &F) { F.StartAddress = 0x40000; },
       "matrix start address 0x40000 does not fit the 18-bit shared-memory "
       "address of the descriptor"},
      {[](SmemDescFields &F) { F.LeadingByteOffset = 24; },
       "leading byte offset of 24 bytes is not a multiple of 16"},
      {[](SmemDescFields &F) { F.StrideByteOffset = 0x40000; },
       "stride byte offset of 262144 bytes does not fit the 14-bit field (at "
       "most 262128)"},
      {[](SmemDescFields &F) { F.BaseOffset = 8; },
       "base offset 8 does not fit the 3-bit field"},
  };
  for (const Case &C : Cases) {
    SmemDescFields F;
    F.LeadingByteOffset = 16;
    F.StrideByteOffset = 1024;
    F.Swz = Swizzle::B128;
    C.Change(F);
    EXPECT_EQ(errorMessage(encodeWgmmaSmemDesc(F)), C.Error);
    EXPECT_EQ(errorMessage(encodeTcgen05SmemDesc(F)), C.Error);
  }

  // wgmma has no absolute LBO mode and no base offset without swizzle.
  SmemDescFields F;
  F.LeadingAbsolute = true;
  EXPECT_EQ(errorMessage(encodeWgmmaSmemDesc(F)),
            "wgmma descriptors have no absolute leading-dimension mode");
  F.LeadingAbsolute = false;
  F.BaseOffset = 1;
  EXPECT_EQ(errorMessage(encodeWgmmaSmemDesc(F)),
            "wgmma base offset 1 is only valid with a swizzled layout, not "
            "with no swizzle");
}

TEST(DescriptorsTest, Tcgen05DecodeErrors) {
  // A wgmma descriptor lacks the fixed bit 46.
  llvm::Expected<SmemDescFields> Wgmma =
      decodeTcgen05SmemDesc(0x4000004000010040ull);
  ASSERT_FALSE(Wgmma);
  EXPECT_EQ(errorMessage(std::move(Wgmma)),
            "tcgen05 descriptor 0x4000004000010040 has bits "
            "46-48 = 0, expected 1");
  // Layout 1 (128B with 32-byte atoms) is valid PTX that tilec never emits.
  EXPECT_NE(errorMessage(decodeTcgen05SmemDesc((1ull << 61) | (1ull << 46))),
            "");
  // Layout 3 is invalid.
  EXPECT_NE(errorMessage(decodeTcgen05SmemDesc((3ull << 61) | (1ull << 46))),
            "");
}

// PTX: base offset = (pattern start addr >> 7) & 7; 0 on a 1024-byte
// boundary.
TEST(DescriptorsTest, BaseOffset) {
  EXPECT_EQ(smemDescBaseOffset(0x400), 0u);
  EXPECT_EQ(smemDescBaseOffset(0x480), 1u);
  EXPECT_EQ(smemDescBaseOffset(0x380), 7u);
}

} // namespace

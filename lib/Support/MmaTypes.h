//===- MmaTypes.h - wgmma / tcgen05 shape and fragment rules ---*- C++ -*-===//
//
// Part of tilec. TileSupport is compiler-only: LLVM Support, no MLIR or CUDA.
//
//===----------------------------------------------------------------------===//
//
// Legality of MMA instruction shapes and the register fragment layout of the
// wgmma accumulator. Sources (see docs/descriptors.md): PTX ISA sections
// "Asynchronous Warpgroup Level Matrix Shape" and "Register Fragments" for
// wgmma, "tcgen05 Matrix Shape" (Table "Various combinations of .kind and
// shapes") for tcgen05; CUTLASS mma_traits_sm90_gmma.hpp (CLayout_64xN) and
// mma_sm100_umma.hpp (static_asserts of SM100_MMA_*).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_SUPPORT_MMATYPES_H
#define TILEC_SUPPORT_MMATYPES_H

#include "tilec/Vocabulary.h"

#include "llvm/Support/Error.h"

#include <cstdint>

namespace tilec {

// Element types are the vocabulary's (runtime/include/tilec/Vocabulary.h),
// one table for the compiler, the bundle and the runtime; messages name them
// with vocab::toString.

/// Which dimension of an operand tile is contiguous in shared memory.
/// K: rows are M (or N) and K is contiguous (PTX "K-major", no transpose).
/// MN: rows are K and M (or N) is contiguous (PTX "MN-major", transpose).
enum class MmaMajor : uint8_t { K, MN };

//===----------------------------------------------------------------------===//
// wgmma (sm_90a)
//===----------------------------------------------------------------------===//

/// K of one wgmma.mma_async for input type \p T: 16 (f16, bf16), 8 (tf32),
/// 32 (e4m3, e5m2, i8, u8). Why: the K loop of the lowering steps by it, and
/// it is always 32 bytes of K, one descriptor advance of 2.
llvm::Expected<uint32_t> wgmmaK(vocab::ElementType T);

/// Checks N of wgmma m64nNk for input type \p T: a multiple of 8 in [8, 256];
/// for i8/u8 only 8, 16, 24, 32 and multiples of 16 in [48, 256]. Returns the
/// error, or success when legal. Why: an illegal N fails in ptxas only.
llvm::Error checkWgmmaN(uint32_t N, vocab::ElementType T);

/// Checks operand majorness: only 16-bit inputs (f16, bf16) may be MN-major.
/// Returns the error, or success when legal. Why: PTX only allows the
/// transpose immediates for .f16/.bf16.
llvm::Error checkWgmmaMajor(vocab::ElementType T, MmaMajor A, MmaMajor B);

/// 32-bit accumulator registers per thread for m64nN: N/2 for f32 or i32,
/// N/4 (f16x2) for f16. Why: sizes the accumulator fragment and the register
/// budget of a consumer warpgroup.
llvm::Expected<uint32_t> wgmmaAccumulatorRegs(uint32_t N, vocab::ElementType D);

/// A (row, column) position inside an MMA result tile.
struct TileCoord {
  uint32_t Row = 0;
  uint32_t Col = 0;
};

/// Position in the 64xN f32/i32 accumulator held by register \p Reg of thread
/// \p ThreadInWarpgroup (0..127): row = 16*(t/32) + (t%32)/4 + 8*((i/2)%2),
/// col = 8*(i/4) + 2*(t%4) + i%2. Why: epilogues scatter the accumulator and
/// must know which element each register holds (PTX "WGMMA .m64nNk16 register
/// fragment layout for accumulator matrix D", CUTLASS CLayout_64xN).
TileCoord wgmmaAccumulatorCoord(uint32_t ThreadInWarpgroup, uint32_t Reg);

//===----------------------------------------------------------------------===//
// tcgen05.mma (sm_100a)
//===----------------------------------------------------------------------===//

/// Checks M and N of a dense tcgen05.mma without .ws (kinds f16, tf32,
/// f8f6f4):
/// cta_group 1: M 64 or 128, N a multiple of 8 in [8, 256];
/// cta_group 2: M 128 or 256, N a multiple of 16 in [16, 256].
/// Returns the error, or success when legal. Why: the instruction
/// descriptor encodes any N>>3 and M>>4, legal or not.
llvm::Error checkTcgen05Shape(uint32_t M, uint32_t N, uint32_t CtaGroup);

} // namespace tilec

#endif // TILEC_SUPPORT_MMATYPES_H

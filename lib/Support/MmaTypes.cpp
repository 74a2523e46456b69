//===- MmaTypes.cpp - wgmma / tcgen05.mma shape and fragment rules --------===//
//
// Part of tilec. TileSupport is compiler-only: LLVM Support, no MLIR or CUDA.
//
//===----------------------------------------------------------------------===//

#include "lib/Support/MmaTypes.h"
#include "lib/Support/EncodingError.h"

namespace tilec {

using vocab::ElementType;

llvm::Expected<uint32_t> wgmmaK(ElementType T) {
  switch (T) {
  case ElementType::F16:
  case ElementType::BF16:
    return 16u;
  case ElementType::TF32:
    return 8u;
  case ElementType::E4M3:
  case ElementType::E5M2:
  case ElementType::I8:
  case ElementType::U8:
    return 32u;
  default:
    return encodingError("wgmma has no dense shape with {0} inputs",
                         vocab::toString(T));
  }
}

llvm::Error checkWgmmaN(uint32_t N, ElementType T) {
  llvm::Expected<uint32_t> K = wgmmaK(T);
  if (!K)
    return K.takeError();
  if (T == ElementType::I8 || T == ElementType::U8) {
    bool Small = N == 8 || N == 16 || N == 24 || N == 32;
    bool Large = N >= 48 && N <= 256 && N % 16 == 0;
    if (!Small && !Large)
      return encodingError("wgmma with {0} inputs needs n in {{8, 16, 24, 32} "
                           "or a multiple of 16 in [48, 256], got n={1}",
                           vocab::toString(T), N);
    return llvm::Error::success();
  }
  if (N < 8 || N > 256 || N % 8 != 0)
    return encodingError(
        "wgmma with {0} inputs needs n a multiple of 8 in [8, 256], got n={1}",
        vocab::toString(T), N);
  return llvm::Error::success();
}

llvm::Error checkWgmmaMajor(ElementType T, MmaMajor A, MmaMajor B) {
  bool SixteenBit = T == ElementType::F16 || T == ElementType::BF16;
  if (!SixteenBit && (A == MmaMajor::MN || B == MmaMajor::MN))
    return encodingError("wgmma with {0} inputs needs k-major a and b; only "
                         "f16 and bf16 operands may be mn-major",
                         vocab::toString(T));
  return llvm::Error::success();
}

llvm::Expected<uint32_t> wgmmaAccumulatorRegs(uint32_t N, ElementType D) {
  if (N < 8 || N > 256 || N % 8 != 0)
    return encodingError(
        "wgmma accumulator needs n a multiple of 8 in [8, 256], got n={0}", N);
  switch (D) {
  case ElementType::F32:
  case ElementType::I32:
    return N / 2;
  case ElementType::F16:
    return N / 4;
  default:
    return encodingError("wgmma has no {0} accumulator", vocab::toString(D));
  }
}

TileCoord wgmmaAccumulatorCoord(uint32_t ThreadInWarpgroup, uint32_t Reg) {
  uint32_t T = ThreadInWarpgroup;
  // Each warp owns 16 rows; lanes form an 8 (rows) x 4 (column pairs) grid;
  // registers walk (col, col+1), then (row+8), then the next 8 columns.
  TileCoord C;
  C.Row = 16 * (T / 32) + (T % 32) / 4 + 8 * ((Reg / 2) % 2);
  C.Col = 8 * (Reg / 4) + 2 * (T % 4) + Reg % 2;
  return C;
}

llvm::Error checkTcgen05Shape(uint32_t M, uint32_t N, uint32_t CtaGroup) {
  if (CtaGroup != 1 && CtaGroup != 2)
    return encodingError("cta_group must be 1 or 2, got {0}", CtaGroup);
  // cta_group::2 doubles M (each CTA holds half) and steps N by 16.
  uint32_t SmallM = 64 * CtaGroup;
  uint32_t NStep = 8 * CtaGroup;
  if (M != SmallM && M != 2 * SmallM)
    return encodingError(
        "tcgen05 M of {0} is not supported with cta_group {1}; use {2} or {3}",
        M, CtaGroup, SmallM, 2 * SmallM);
  if (N < NStep || N > 256 || N % NStep != 0)
    return encodingError("tcgen05 N of {0} must be a multiple of {1} in "
                         "{1}..256",
                         N, NStep);
  return llvm::Error::success();
}

} // namespace tilec

//===- MmaTypes.cpp - wgmma / tcgen05.mma shape and fragment rules --------===//
//
// Part of tilec. TileSupport is plain C++17: no LLVM, MLIR or CUDA headers.
//
//===----------------------------------------------------------------------===//

#include "lib/Support/MmaTypes.h"

namespace tilec {

const char *elemTypeName(ElemType T) {
  switch (T) {
  case ElemType::F16:
    return "f16";
  case ElemType::BF16:
    return "bf16";
  case ElemType::TF32:
    return "tf32";
  case ElemType::F32:
    return "f32";
  case ElemType::E4M3:
    return "e4m3";
  case ElemType::E5M2:
    return "e5m2";
  case ElemType::E2M3:
    return "e2m3";
  case ElemType::E3M2:
    return "e3m2";
  case ElemType::E2M1:
    return "e2m1";
  case ElemType::S8:
    return "s8";
  case ElemType::U8:
    return "u8";
  case ElemType::S32:
    return "s32";
  }
  return "invalid";
}

Outcome<uint32_t> wgmmaK(ElemType T) {
  switch (T) {
  case ElemType::F16:
  case ElemType::BF16:
    return 16u;
  case ElemType::TF32:
    return 8u;
  case ElemType::E4M3:
  case ElemType::E5M2:
  case ElemType::S8:
  case ElemType::U8:
    return 32u;
  default:
    return Outcome<uint32_t>::failure(formatMessage(
        "wgmma has no dense shape with ", elemTypeName(T), " inputs"));
  }
}

std::optional<std::string> checkWgmmaN(uint32_t N, ElemType T) {
  Outcome<uint32_t> K = wgmmaK(T);
  if (!K)
    return K.error();
  if (T == ElemType::S8 || T == ElemType::U8) {
    bool Small = N == 8 || N == 16 || N == 24 || N == 32;
    bool Large = N >= 48 && N <= 256 && N % 16 == 0;
    if (!Small && !Large)
      return formatMessage("wgmma with ", elemTypeName(T),
                           " inputs needs n in {8, 16, 24, 32} or a multiple "
                           "of 16 in [48, 256], got n=",
                           N);
    return std::nullopt;
  }
  if (N < 8 || N > 256 || N % 8 != 0)
    return formatMessage(
        "wgmma with ", elemTypeName(T),
        " inputs needs n a multiple of 8 in [8, 256], got n=", N);
  return std::nullopt;
}

std::optional<std::string> checkWgmmaMajor(ElemType T, MmaMajor A, MmaMajor B) {
  bool SixteenBit = T == ElemType::F16 || T == ElemType::BF16;
  if (!SixteenBit && (A == MmaMajor::MN || B == MmaMajor::MN))
    return formatMessage("wgmma with ", elemTypeName(T),
                         " inputs needs k-major a and b; only f16 and bf16 "
                         "operands may be mn-major");
  return std::nullopt;
}

Outcome<uint32_t> wgmmaAccumulatorRegs(uint32_t N, ElemType D) {
  if (N < 8 || N > 256 || N % 8 != 0)
    return Outcome<uint32_t>::failure(formatMessage(
        "wgmma accumulator needs n a multiple of 8 in [8, 256], got n=", N));
  switch (D) {
  case ElemType::F32:
  case ElemType::S32:
    return N / 2;
  case ElemType::F16:
    return N / 4;
  default:
    return Outcome<uint32_t>::failure(
        formatMessage("wgmma has no ", elemTypeName(D), " accumulator"));
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

std::optional<std::string> checkTcgen05Shape(uint32_t M, uint32_t N,
                                             uint32_t CtaGroup) {
  if (CtaGroup != 1 && CtaGroup != 2)
    return formatMessage("cta_group must be 1 or 2, got ", CtaGroup);
  // cta_group::2 doubles M (each CTA holds half) and steps N by 16.
  uint32_t SmallM = 64 * CtaGroup;
  uint32_t NStep = 8 * CtaGroup;
  if (M != SmallM && M != 2 * SmallM)
    return formatMessage("tcgen05 M of ", M,
                         " is not supported with "
                         "cta_group ",
                         CtaGroup, "; use ", SmallM, " or ", 2 * SmallM);
  if (N < NStep || N > 256 || N % NStep != 0)
    return formatMessage("tcgen05 N of ", N, " must be a multiple of ", NStep,
                         " in ", NStep, "..256");
  return std::nullopt;
}

} // namespace tilec

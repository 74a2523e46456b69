//===- Descriptors.cpp - wgmma / tcgen05 descriptor encoders --------------===//
//
// Part of tilec. TileSupport is compiler-only: LLVM Support, no MLIR or CUDA.
//
//===----------------------------------------------------------------------===//

#include "lib/Support/Descriptors.h"
#include "lib/Support/EncodingError.h"

namespace tilec {

using vocab::ElementType;

namespace {

constexpr uint32_t SharedWindowBytes = 1u << 18; // (x & 0x3FFFF) keeps this
constexpr uint32_t MaxFieldBytes = 0x3FFFu << 4; // 14-bit field, 16-byte unit
constexpr int StartAddressBit = 0;
constexpr int LeadingBit = 16;
constexpr int StrideBit = 32;
constexpr int Tcgen05FixedBit = 46;
constexpr int BaseOffsetBit = 49;
constexpr int LeadingModeBit = 52;
constexpr int Tcgen05LayoutBit = 61;
constexpr int WgmmaLayoutBit = 62;

uint64_t bits(uint64_t Value, int Start, int Width) {
  return (Value >> Start) & ((uint64_t(1) << Width) - 1);
}

/// wgmma layout code: none 0, 128B 1, 64B 2, 32B 3.
uint32_t wgmmaLayoutCode(Swizzle S) {
  switch (S) {
  case Swizzle::None:
    return 0;
  case Swizzle::B128:
    return 1;
  case Swizzle::B64:
    return 2;
  case Swizzle::B32:
    return 3;
  }
  return 0;
}

/// Inverse of wgmmaLayoutCode for a 2-bit code.
Swizzle swizzleFromWgmmaLayoutCode(uint64_t Code) {
  const Swizzle ByCode[] = {Swizzle::None, Swizzle::B128, Swizzle::B64,
                            Swizzle::B32};
  return ByCode[Code & 3];
}

/// tcgen05 layout code: none 0, 128B 2, 64B 4, 32B 6. These are the wgmma
/// codes shifted left by one, so bits 62-63 agree between the two formats.
uint32_t tcgen05LayoutCode(Swizzle S) { return wgmmaLayoutCode(S) << 1; }

/// Checks the fields both descriptor formats share and packs start address,
/// LBO, SBO and base offset.
llvm::Expected<uint64_t> packCommonFields(const SmemDescFields &F) {
  if (F.StartAddress % 16 != 0)
    return encodingError("matrix start address {0:x} is not 16-byte aligned",
                         F.StartAddress);
  if (F.StartAddress >= SharedWindowBytes)
    return encodingError("matrix start address {0:x} does not fit the 18-bit "
                         "shared-memory address of the descriptor",
                         F.StartAddress);
  struct Offset {
    const char *Name;
    uint32_t Bytes;
  };
  for (Offset O : {Offset{"leading", F.LeadingByteOffset},
                   Offset{"stride", F.StrideByteOffset}}) {
    if (O.Bytes % 16 != 0)
      return encodingError(
          "{0} byte offset of {1} bytes is not a multiple of 16", O.Name,
          O.Bytes);
    if (O.Bytes > MaxFieldBytes)
      return encodingError("{0} byte offset of {1} bytes does not fit the "
                           "14-bit field (at most {2})",
                           O.Name, O.Bytes, MaxFieldBytes);
  }
  if (F.BaseOffset > 7)
    return encodingError("base offset {0} does not fit the 3-bit field",
                         F.BaseOffset);
  uint64_t Desc = smemDescAddressField(F.StartAddress) << StartAddressBit;
  Desc |= uint64_t(F.LeadingByteOffset >> 4) << LeadingBit;
  Desc |= uint64_t(F.StrideByteOffset >> 4) << StrideBit;
  Desc |= uint64_t(F.BaseOffset) << BaseOffsetBit;
  return Desc;
}

/// Decodes start address, LBO, SBO and base offset (bytes where applicable).
SmemDescFields unpackCommonFields(uint64_t Desc) {
  SmemDescFields F;
  F.StartAddress = uint32_t(bits(Desc, StartAddressBit, 14) << 4);
  F.LeadingByteOffset = uint32_t(bits(Desc, LeadingBit, 14) << 4);
  F.StrideByteOffset = uint32_t(bits(Desc, StrideBit, 14) << 4);
  F.BaseOffset = uint32_t(bits(Desc, BaseOffsetBit, 3));
  return F;
}

} // namespace

uint64_t smemDescAddressField(uint32_t Address) {
  return (Address & 0x3FFFFu) >> 4;
}

uint32_t smemDescBaseOffset(uint32_t PatternStart) {
  return (PatternStart >> 7) & 0x7;
}

llvm::Expected<uint64_t> encodeWgmmaSmemDesc(const SmemDescFields &F) {
  if (F.LeadingAbsolute)
    return encodingError(
        "wgmma descriptors have no absolute leading-dimension mode");
  if (F.Swz == Swizzle::None && F.BaseOffset != 0)
    return encodingError("wgmma base offset {0} is only valid with a swizzled "
                         "layout, not with no swizzle",
                         F.BaseOffset);
  llvm::Expected<uint64_t> Desc = packCommonFields(F);
  if (!Desc)
    return Desc.takeError();
  return *Desc | uint64_t(wgmmaLayoutCode(F.Swz)) << WgmmaLayoutBit;
}

SmemDescFields decodeWgmmaSmemDesc(uint64_t Desc) {
  SmemDescFields F = unpackCommonFields(Desc);
  F.Swz = swizzleFromWgmmaLayoutCode(bits(Desc, WgmmaLayoutBit, 2));
  return F;
}

llvm::Expected<uint64_t> encodeTcgen05SmemDesc(const SmemDescFields &F) {
  llvm::Expected<uint64_t> Desc = packCommonFields(F);
  if (!Desc)
    return Desc.takeError();
  uint64_t Value = *Desc;
  Value |= uint64_t(1) << Tcgen05FixedBit; // bits 46-48 are fixed at 0b001
  Value |= uint64_t(F.LeadingAbsolute) << LeadingModeBit;
  Value |= uint64_t(tcgen05LayoutCode(F.Swz)) << Tcgen05LayoutBit;
  return Value;
}

llvm::Expected<SmemDescFields> decodeTcgen05SmemDesc(uint64_t Desc) {
  uint64_t Fixed = bits(Desc, Tcgen05FixedBit, 3);
  if (Fixed != 1)
    return encodingError("tcgen05 descriptor {0:x} has bits 46-48 = {1}, "
                         "expected 1",
                         Desc, Fixed);
  SmemDescFields F = unpackCommonFields(Desc);
  F.LeadingAbsolute = bits(Desc, LeadingModeBit, 1) != 0;
  uint64_t Layout = bits(Desc, Tcgen05LayoutBit, 3);
  // Odd codes are 128B with 32-byte atoms (1), which tilec never emits, and
  // the invalid 3, 5 and 7.
  if (Layout % 2 != 0)
    return encodingError("tcgen05 descriptor {0:x} has layout code {1}, which "
                         "tilec does not produce (1 is 128B with 32B atoms; "
                         "3, 5 and 7 are invalid)",
                         Desc, Layout);
  F.Swz = swizzleFromWgmmaLayoutCode(Layout >> 1);
  return F;
}

llvm::Expected<OperandStrides> mmaOperandStrides(const SmemTileLayout &L,
                                                 MmaMajor Major) {
  if (L.Swz == Swizzle::None && L.BlockBytes != 16)
    return encodingError("no-swizzle mma operand needs the interleaved layout "
                         "(16-byte column blocks), got {0}-byte blocks",
                         L.BlockBytes);
  OperandStrides S;
  uint32_t Atom = L.BlockBytes; // span, or 16 for the interleaved layout
  bool Swizzled = L.Swz != Swizzle::None;
  if (Major == MmaMajor::K) {
    // Rows are M/N, K is contiguous. SBO steps 8 rows; LBO steps one 16-byte
    // core-matrix column along K (none) or is unused and assumed 1 (swizzled).
    S.LeadingByteOffset = Swizzled ? 16 : L.blockSizeBytes();
    S.StrideByteOffset = 8 * Atom;
  } else {
    // Rows are K, M/N is contiguous. Swizzled: LBO steps to the next MN
    // atom (next column block), SBO steps 8 K rows. None: LBO steps 8 K rows
    // (one core matrix), SBO steps to the next 16-byte MN column.
    S.LeadingByteOffset = Swizzled ? L.blockSizeBytes() : 8 * Atom;
    S.StrideByteOffset = Swizzled ? 8 * Atom : L.blockSizeBytes();
  }
  return S;
}

namespace {
/// Builds the descriptor fields of an operand with start address 0.
llvm::Expected<SmemDescFields> operandFields(const SmemTileLayout &L,
                                             MmaMajor Major) {
  llvm::Expected<OperandStrides> S = mmaOperandStrides(L, Major);
  if (!S)
    return S.takeError();
  SmemDescFields F;
  F.LeadingByteOffset = S->LeadingByteOffset;
  F.StrideByteOffset = S->StrideByteOffset;
  F.Swz = L.Swz;
  return F;
}
} // namespace

llvm::Expected<uint64_t> wgmmaOperandDesc(const SmemTileLayout &L,
                                          MmaMajor Major) {
  if (Major == MmaMajor::MN && L.ElemBytes != 2)
    return encodingError(
        "wgmma mn-major operands need 16-bit elements, got {0}-byte elements",
        L.ElemBytes);
  llvm::Expected<SmemDescFields> F = operandFields(L, Major);
  if (!F)
    return F.takeError();
  return encodeWgmmaSmemDesc(*F);
}

llvm::Expected<uint64_t> tcgen05OperandDesc(const SmemTileLayout &L,
                                            MmaMajor Major) {
  if (Major == MmaMajor::MN && L.ElemBytes > 4)
    return encodingError("tcgen05 mn-major operands need elements of at most "
                         "4 bytes, got {0}-byte elements",
                         L.ElemBytes);
  llvm::Expected<SmemDescFields> F = operandFields(L, Major);
  if (!F)
    return F.takeError();
  return encodeTcgen05SmemDesc(*F);
}

llvm::Expected<uint32_t> smemDescAdvance(const SmemTileLayout &L,
                                         MmaMajor Major, uint32_t Row,
                                         uint32_t Col) {
  llvm::Expected<OperandStrides> S = mmaOperandStrides(L, Major);
  if (!S)
    return S.takeError();
  if (Row >= L.Rows || Col >= L.Cols)
    return encodingError("element ({0}, {1}) is outside the {2}x{3} tile", Row,
                         Col, L.Rows, L.Cols);
  if (Row % 8 != 0)
    return encodingError(
        "row offset {0} is not a multiple of 8 (one core-matrix group)", Row);
  uint32_t ColByte = Col * L.ElemBytes;
  if (ColByte % 16 != 0)
    return encodingError(
        "column offset {0} ({1} bytes) is not a multiple of 16 bytes", Col,
        ColByte);
  if (Major == MmaMajor::MN && ColByte % L.BlockBytes != 0)
    return encodingError(
        "mn-major column offset {0} does not start a {1}-byte column block",
        Col, L.BlockBytes);
  return logicalByteOffset(L, Row, ColByte) >> 4;
}

//===----------------------------------------------------------------------===//
// tcgen05 instruction descriptor
//===----------------------------------------------------------------------===//

llvm::Expected<uint32_t>
encodeTcgen05InstrDesc(const Tcgen05InstrDescFields &F) {
  struct Field {
    const char *Name;
    uint32_t Value;
    uint32_t Width;
  };
  for (Field X :
       {Field{"sparsity selector", F.SparsitySelector, 2},
        Field{"d format", F.DFormat, 2}, Field{"a format", F.AFormat, 3},
        Field{"b format", F.BFormat, 3}, Field{"max shift", F.MaxShift, 2}})
    if (X.Value >> X.Width)
      return encodingError("{0} {1} does not fit in {2} bits", X.Name, X.Value,
                           X.Width);
  if (F.N == 0 || F.N % 8 != 0 || (F.N >> 3) > 0x3F)
    return encodingError(
        "n={0} is not a multiple of 8 in [8, 504] (6-bit n>>3 field)", F.N);
  if (F.M == 0 || F.M % 16 != 0 || (F.M >> 4) > 0x1F)
    return encodingError(
        "m={0} is not a multiple of 16 in [16, 496] (5-bit m>>4 field)", F.M);
  uint32_t Desc = F.SparsitySelector;
  Desc |= uint32_t(F.Sparse) << 2;
  Desc |= uint32_t(F.Saturate) << 3;
  Desc |= F.DFormat << 4;
  Desc |= F.AFormat << 7;
  Desc |= F.BFormat << 10;
  Desc |= uint32_t(F.NegateA) << 13;
  Desc |= uint32_t(F.NegateB) << 14;
  Desc |= uint32_t(F.TransposeA) << 15;
  Desc |= uint32_t(F.TransposeB) << 16;
  Desc |= (F.N >> 3) << 17;
  Desc |= (F.M >> 4) << 24;
  Desc |= F.MaxShift << 30;
  return Desc;
}

Tcgen05InstrDescFields decodeTcgen05InstrDesc(uint32_t Desc) {
  Tcgen05InstrDescFields F;
  F.SparsitySelector = uint32_t(bits(Desc, 0, 2));
  F.Sparse = bits(Desc, 2, 1) != 0;
  F.Saturate = bits(Desc, 3, 1) != 0;
  F.DFormat = uint32_t(bits(Desc, 4, 2));
  F.AFormat = uint32_t(bits(Desc, 7, 3));
  F.BFormat = uint32_t(bits(Desc, 10, 3));
  F.NegateA = bits(Desc, 13, 1) != 0;
  F.NegateB = bits(Desc, 14, 1) != 0;
  F.TransposeA = bits(Desc, 15, 1) != 0;
  F.TransposeB = bits(Desc, 16, 1) != 0;
  F.N = uint32_t(bits(Desc, 17, 6) << 3);
  F.M = uint32_t(bits(Desc, 24, 5) << 4);
  F.MaxShift = uint32_t(bits(Desc, 30, 2));
  return F;
}

namespace {
bool isF8F6F4(ElementType T) {
  return T == ElementType::E4M3 || T == ElementType::E5M2;
}

/// A/B format code of \p T for its kind (PTX instruction descriptor table).
uint32_t tcgen05FormatCode(ElementType T) {
  switch (T) {
  case ElementType::F16:
  case ElementType::E4M3:
    return 0;
  case ElementType::BF16:
  case ElementType::E5M2:
    return 1;
  case ElementType::TF32:
    return 2;
  default:
    return 7;
  }
}
} // namespace

llvm::Expected<Tcgen05Kind> tcgen05KindFor(ElementType A, ElementType B) {
  if ((A == ElementType::F16 || A == ElementType::BF16) && A == B)
    return Tcgen05Kind::F16;
  if (A == ElementType::TF32 && B == ElementType::TF32)
    return Tcgen05Kind::TF32;
  if (isF8F6F4(A) && isF8F6F4(B))
    return Tcgen05Kind::F8F6F4;
  return encodingError("tcgen05.mma has no kind for a={0} and b={1} inputs",
                       vocab::toString(A), vocab::toString(B));
}

llvm::Expected<uint32_t> makeTcgen05InstrDesc(const Tcgen05MmaConfig &C) {
  llvm::Expected<Tcgen05Kind> Kind = tcgen05KindFor(C.A, C.B);
  if (!Kind)
    return Kind.takeError();
  bool F16Accumulator = C.D == ElementType::F16 && C.A == ElementType::F16;
  if (C.D != ElementType::F32 && !F16Accumulator)
    return encodingError(
        "tcgen05.mma kind::{0} with a={1} inputs accumulates in f32{2}, got "
        "d={3}",
        tcgen05KindName(*Kind), vocab::toString(C.A),
        C.A == ElementType::F16 ? " or f16" : "", vocab::toString(C.D));
  if (llvm::Error Err = checkTcgen05Shape(C.M, C.N, C.CtaGroup))
    return std::move(Err);

  Tcgen05InstrDescFields F;
  F.DFormat = C.D == ElementType::F16 ? 0 : 1;
  F.AFormat = tcgen05FormatCode(C.A);
  F.BFormat = tcgen05FormatCode(C.B);
  F.NegateA = C.NegateA;
  F.NegateB = C.NegateB;
  F.TransposeA = C.MajorA == MmaMajor::MN;
  F.TransposeB = C.MajorB == MmaMajor::MN;
  F.N = C.N;
  F.M = C.M;
  return encodeTcgen05InstrDesc(F);
}

} // namespace tilec

//===- Descriptors.h - wgmma / tcgen05 descriptor encoders ------*- C++ -*-===//
//
// Part of tilec. TileSupport is compiler-only: LLVM Support, no MLIR or CUDA.
//
//===----------------------------------------------------------------------===//
//
// Encoders for the 64-bit shared-memory matrix descriptors of wgmma (sm_90a)
// and tcgen05.mma (sm_100a) and for the 32-bit tcgen05 instruction
// descriptor. Every function returns the complete hardware value: the
// lowering materializes it as one i64 / i32 constant and, for shared-memory
// descriptors, adds the run-time start-address field ((addr & 0x3FFFF) >> 4)
// to it. It does not use nvvm.tcgen05.mma_smem_desc, which packs operands
// that are already shifted by 4 (and masks the start address to 14 bits
// without shifting it) and sets bit 46 itself.
//
// Bit layouts, their sources and golden values: docs/descriptors.md.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_SUPPORT_DESCRIPTORS_H
#define TILEC_SUPPORT_DESCRIPTORS_H

#include "lib/Support/MmaTypes.h"
#include "lib/Support/Swizzle.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>

namespace tilec {

//===----------------------------------------------------------------------===//
// Shared-memory matrix descriptors
//===----------------------------------------------------------------------===//

/// The fields of a shared-memory matrix descriptor, in bytes (not yet shifted
/// by 4) so that tests and diagnostics read naturally.
struct SmemDescFields {
  /// Shared-memory byte address of the matrix; 16-byte aligned, < 2^18.
  uint32_t StartAddress = 0;
  /// Leading dimension byte offset (LBO); 16 for "unused, assumed 1".
  uint32_t LeadingByteOffset = 0;
  /// Stride dimension byte offset (SBO).
  uint32_t StrideByteOffset = 0;
  /// Raw 3-bit base offset, (pattern start >> 7) & 7; 0 for aligned buffers.
  uint32_t BaseOffset = 0;
  Swizzle Swz = Swizzle::None;
  /// tcgen05 bit 52: LBO is an absolute address (sm_103a only). wgmma: false.
  bool LeadingAbsolute = false;
};

/// PTX matrix-descriptor-encode: (x & 0x3FFFF) >> 4. Why: the lowering adds
/// exactly this to a descriptor constant built with start address 0.
uint64_t smemDescAddressField(uint32_t Address);

/// Base offset field for a swizzle pattern that starts at \p PatternStart
/// instead of a repeat boundary: (PatternStart >> 7) & 7 (PTX). Why: tilec
/// aligns buffers so this is 0, and checks it with this function.
uint32_t smemDescBaseOffset(uint32_t PatternStart);

/// wgmma descriptor: start 0-13, LBO 16-29, SBO 32-45, base offset 49-51,
/// layout 62-63 (none 0, 128B 1, 64B 2, 32B 3). Why: one checked encoder.
llvm::Expected<uint64_t> encodeWgmmaSmemDesc(const SmemDescFields &F);

/// Inverse of encodeWgmmaSmemDesc (offsets in bytes). Why: tests round-trip.
SmemDescFields decodeWgmmaSmemDesc(uint64_t Desc);

/// tcgen05 descriptor: start 0-13, LBO 16-29, SBO 32-45, fixed 0b001 at 46-48,
/// base offset 49-51, LBO mode 52, layout 61-63 (none 0, 128B 2, 64B 4,
/// 32B 6; 1 = 128B with 32B atoms is not produced). Why: one checked encoder.
llvm::Expected<uint64_t> encodeTcgen05SmemDesc(const SmemDescFields &F);

/// Inverse of encodeTcgen05SmemDesc; fails on wrong fixed bits or an
/// unsupported layout code. Why: tests round-trip and inspect constants.
llvm::Expected<SmemDescFields> decodeTcgen05SmemDesc(uint64_t Desc);

/// LBO and SBO of an MMA operand stored in tilec's layout, in bytes.
struct OperandStrides {
  uint32_t LeadingByteOffset = 0;
  uint32_t StrideByteOffset = 0;
};

/// Strides for an operand tile in layout \p L (rows x cols, cols contiguous):
///   K-major (rows = M or N, cols = K):
///     swizzled: LBO 16 (unused, encodes 1), SBO 8 x span;
///     none:     LBO Rows x 16 (next 16-byte K column), SBO 128 (next 8 rows).
///   MN-major (rows = K, cols = M or N):
///     swizzled: LBO Rows x span (next MN atom), SBO 8 x span (next 8 K);
///     none:     LBO 128 (next 8 K), SBO Rows x 16 (next 16-byte MN column).
/// Why: the same rule serves wgmma and tcgen05 (identical LBO/SBO meaning).
llvm::Expected<OperandStrides> mmaOperandStrides(const SmemTileLayout &L,
                                                 MmaMajor Major);

/// The compile-time-constant part of a wgmma descriptor for an operand in
/// layout \p L (start address 0, base offset 0). MN-major needs 16-bit
/// elements. Why: the lowering emits it as one constant.
llvm::Expected<uint64_t> wgmmaOperandDesc(const SmemTileLayout &L,
                                          MmaMajor Major);

/// The compile-time-constant part of a tcgen05 descriptor for an operand in
/// layout \p L (start address 0, base offset 0, bit 46 set). Why: the
/// lowering emits it as one constant.
llvm::Expected<uint64_t> tcgen05OperandDesc(const SmemTileLayout &L,
                                            MmaMajor Major);

/// What to add to a descriptor to make it start at element (Row, Col) of the
/// tile instead of (0, 0): logicalByteOffset >> 4, added to the start-address
/// field (the low 14 bits; CUTLASS adds it to the whole 64-bit value). Row must
/// be a multiple of 8; Col must be 16-byte aligned, and for MN-major tiles
/// also start a column block. Covers advancing K inside a swizzle atom
/// (K-major: Col = k), the next 8-row group (Row = 8) and the next MMA tile
/// (Row = 64). Why: the K and M/N loops of the lowering step descriptors by
/// constants instead of rebuilding them.
llvm::Expected<uint32_t> smemDescAdvance(const SmemTileLayout &L,
                                         MmaMajor Major, uint32_t Row,
                                         uint32_t Col);

//===----------------------------------------------------------------------===//
// tcgen05 instruction descriptor
//===----------------------------------------------------------------------===//

/// The fields of the 32-bit instruction descriptor of kinds f16, tf32,
/// f8f6f4 and i8 (PTX "Instruction descriptor format").
struct Tcgen05InstrDescFields {
  uint32_t SparsitySelector = 0; ///< bits 0-1
  bool Sparse = false;           ///< bit 2
  bool Saturate = false;         ///< bit 3 (i8 only)
  uint32_t DFormat = 0;          ///< bits 4-5: F16 0, F32 1, I32 2
  uint32_t AFormat = 0;          ///< bits 7-9
  uint32_t BFormat = 0;          ///< bits 10-12
  bool NegateA = false;          ///< bit 13
  bool NegateB = false;          ///< bit 14
  bool TransposeA = false;       ///< bit 15: A is MN-major
  bool TransposeB = false;       ///< bit 16: B is MN-major
  uint32_t N = 0;                ///< bits 17-22 hold N >> 3
  uint32_t M = 0;                ///< bits 24-28 hold M >> 4
  uint32_t MaxShift = 0;         ///< bits 30-31 (.ws only)
};

/// Packs \p F; checks field widths and that N is a multiple of 8 and M of 16.
/// Why: the raw encoder behind the typed builder, and for tests.
llvm::Expected<uint32_t>
encodeTcgen05InstrDesc(const Tcgen05InstrDescFields &F);

/// Inverse of encodeTcgen05InstrDesc (N and M in elements).
Tcgen05InstrDescFields decodeTcgen05InstrDesc(uint32_t Desc);

/// The .kind of a tcgen05.mma.
enum class Tcgen05Kind : uint8_t { F16, TF32, F8F6F4 };

/// Returns "f16", "tf32" or "f8f6f4". Why: the PTX / NVVM op spelling.
inline llvm::StringRef tcgen05KindName(Tcgen05Kind K) {
  return K == Tcgen05Kind::F16    ? "f16"
         : K == Tcgen05Kind::TF32 ? "tf32"
                                  : "f8f6f4";
}

/// Chooses the kind for input types \p A and \p B: f16 x f16 or bf16 x bf16
/// is kind::f16, tf32 x tf32 kind::tf32, any pair of e4m3, e5m2
/// kind::f8f6f4. Why: the lowering needs the kind for the op and the format
/// codes for the descriptor.
llvm::Expected<Tcgen05Kind> tcgen05KindFor(vocab::ElementType A,
                                           vocab::ElementType B);

/// A dense tcgen05.mma (no .ws, no sparsity, no saturation).
struct Tcgen05MmaConfig {
  vocab::ElementType A = vocab::ElementType::BF16;
  vocab::ElementType B = vocab::ElementType::BF16;
  vocab::ElementType D = vocab::ElementType::F32;
  uint32_t M = 128;
  uint32_t N = 256;
  uint32_t CtaGroup = 1;
  MmaMajor MajorA = MmaMajor::K;
  MmaMajor MajorB = MmaMajor::K;
  bool NegateA = false;
  bool NegateB = false;
};

/// The instruction descriptor for \p C, after checking types (f16 accumulates
/// only f16 inputs; bf16, tf32 and f8f6f4 accumulate in f32) and shape
/// (checkTcgen05Shape). Why: the value the lowering passes as idesc.
llvm::Expected<uint32_t> makeTcgen05InstrDesc(const Tcgen05MmaConfig &C);

} // namespace tilec

#endif // TILEC_SUPPORT_DESCRIPTORS_H

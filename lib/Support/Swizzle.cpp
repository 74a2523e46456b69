//===- Swizzle.cpp - Shared-memory swizzle modes and tile layout ----------===//
//
// Part of tilec. TileSupport is compiler-only: LLVM Support, no MLIR or CUDA.
//
//===----------------------------------------------------------------------===//

#include "lib/Support/Swizzle.h"
#include "lib/Support/EncodingError.h"

namespace tilec {

namespace {
/// The B of CUTLASS Swizzle<B,4,3>: number of row bits XORed into the chunk
/// (1, 2, 3 for spans of 32, 64, 128 bytes).
uint32_t swizzleBits(Swizzle S) {
  uint32_t Bits = 0;
  for (uint32_t Span = vocab::swizzleBytes(S); Span > 16; Span /= 2)
    ++Bits;
  return Bits;
}
} // namespace

uint32_t swizzleSpanBytes(Swizzle S) { return vocab::swizzleBytes(S); }

uint32_t swizzleRepeatBytes(Swizzle S) { return 8 * swizzleSpanBytes(S); }

uint32_t swizzleAlignmentBytes(Swizzle S) {
  return S == Swizzle::None ? 128 : swizzleRepeatBytes(S);
}

uint32_t swizzleAtomBytes(Swizzle S) {
  return S == Swizzle::None ? 16 : swizzleSpanBytes(S);
}

uint32_t swizzleByteOffset(Swizzle S, uint32_t Offset) {
  // Swizzle<B,4,3>: the B bits starting at bit 4+3=7 select the row within the
  // repeat; they are XORed into the B bits starting at bit 4 (16-byte chunk).
  uint32_t Bits = swizzleBits(S);
  uint32_t ChunkMask = ((1u << Bits) - 1) << 4;
  return Offset ^ ((Offset >> 3) & ChunkMask);
}

uint32_t swizzledRowMajorOffset(Swizzle S, uint32_t RowBytes, uint32_t Row,
                                uint32_t ColByte) {
  return swizzleByteOffset(S, Row * RowBytes + ColByte);
}

llvm::Expected<SmemTileLayout> makeSmemTileLayout(uint32_t Rows, uint32_t Cols,
                                                  uint32_t ElemBytes, Swizzle S,
                                                  NoSwizzleLayout NoSwizzle) {
  if (Rows == 0 || Cols == 0)
    return encodingError("tile shape {0}x{1} has an empty dimension", Rows,
                         Cols);
  if (ElemBytes != 1 && ElemBytes != 2 && ElemBytes != 4 && ElemBytes != 8)
    return encodingError("element size of {0} bytes is not 1, 2, 4 or 8",
                         ElemBytes);
  uint64_t RowBytes = uint64_t(Cols) * ElemBytes;
  if (RowBytes * Rows > UINT32_MAX)
    return encodingError("tile {0}x{1} of {2}-byte elements is too large", Rows,
                         Cols, ElemBytes);
  if (RowBytes % 16 != 0)
    return encodingError("tile rows of {0} bytes ({1} elements of {2} bytes) "
                         "are not a multiple of 16 bytes",
                         RowBytes, Cols, ElemBytes);

  SmemTileLayout L;
  L.Rows = Rows;
  L.Cols = Cols;
  L.ElemBytes = ElemBytes;
  L.Swz = S;
  if (S != Swizzle::None) {
    uint32_t Span = swizzleSpanBytes(S);
    if (RowBytes % Span != 0)
      return encodingError("tile rows of {0} bytes are not a multiple of the "
                           "{1} swizzle span ({2} bytes)",
                           RowBytes, vocab::toString(S), Span);
    if (Rows % 8 != 0)
      return encodingError("swizzled tile needs a multiple of 8 rows, got {0}",
                           Rows);
    L.BlockBytes = Span;
    return L;
  }
  if (NoSwizzle == NoSwizzleLayout::RowMajor) {
    L.BlockBytes = uint32_t(RowBytes);
    return L;
  }
  if (Rows % 8 != 0)
    return encodingError(
        "interleaved no-swizzle tile needs a multiple of 8 rows, got {0}",
        Rows);
  L.BlockBytes = 16;
  return L;
}

uint32_t logicalByteOffset(const SmemTileLayout &L, uint32_t Row,
                           uint32_t ColByte) {
  uint32_t Block = ColByte / L.BlockBytes;
  uint32_t InBlock = ColByte % L.BlockBytes;
  return Block * L.blockSizeBytes() + Row * L.BlockBytes + InBlock;
}

uint32_t physicalByteOffset(const SmemTileLayout &L, uint32_t Row,
                            uint32_t ColByte) {
  // Blocks start on repeat boundaries (Rows is a multiple of 8 for swizzled
  // layouts), so swizzling the whole-tile offset equals swizzling inside the
  // block.
  return swizzleByteOffset(L.Swz, logicalByteOffset(L, Row, ColByte));
}

} // namespace tilec

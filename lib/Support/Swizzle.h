//===- Swizzle.h - Shared-memory swizzle modes and tile layout --*- C++ -*-===//
//
// Part of tilec. TileSupport is compiler-only: LLVM Support, no MLIR or CUDA.
//
//===----------------------------------------------------------------------===//
//
// The three agents that touch a shared-memory tile must agree on where each
// byte lives: TMA writes it (CU_TENSOR_MAP_SWIZZLE_*), wgmma / tcgen05.mma
// read it through a matrix descriptor (layout field), and threads read or
// write it with ld/st.shared or stmatrix (this file's address function).
//
// All three use the same pattern, which CUTLASS names Swizzle<B,4,3>: inside
// a buffer aligned to the pattern's repeat, byte-offset bits [4,4+B) (the
// 16-byte chunk within a row of the span) are XORed with bits [7,7+B) (the
// row within the 8-row repeat, for the 128B mode). B is 3 for 128B, 2 for
// 64B and 1 for 32B; CUTLASS maps exactly these to TMA's SWIZZLE_128B/64B/32B
// (cute get_tma_swizzle_bits) and to the descriptors' layout codes
// (cute make_gmma_desc / make_umma_desc). The hardware applies the XOR to
// absolute shared-memory address bits, so a buffer must be aligned to the
// repeat (1024/512/256 bytes) for offsets relative to the buffer to see the
// same pattern; that is also what makes the descriptors' base offset 0.
//
// tilec's tile layout: a rows x cols tile (cols contiguous, "K-major" for an
// MMA operand whose K is the column) is stored as column blocks. Each block
// is BlockBytes wide (the swizzle span, or 16 bytes for the no-swizzle MMA
// layout) and holds all rows of that column range contiguously, one row every
// BlockBytes bytes; blocks follow each other. A 128x128 bf16 tile with 128B
// swizzle is therefore two 128x64 blocks of 16 KiB each, and each block is
// exactly the destination of one TMA box.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_SUPPORT_SWIZZLE_H
#define TILEC_SUPPORT_SWIZZLE_H

#include "tilec/Vocabulary.h"

#include "llvm/Support/Error.h"

#include <cstdint>

namespace tilec {

/// Shared-memory swizzle modes shared by TMA and the MMA descriptors: the
/// vocabulary's (runtime/include/tilec/Vocabulary.h), one enum for the
/// compiler, the bundle and the runtime; vocab::toString names them.
using Swizzle = vocab::Swizzle;

/// Bytes of the row segment inside which 16-byte chunks are permuted:
/// 0, 32, 64 or 128. Why: a TMA box's inner dimension may not exceed it.
uint32_t swizzleSpanBytes(Swizzle S);

/// Bytes after which the pattern repeats, 8 rows of the span: 0 (none), 256,
/// 512 or 1024. Why: it is the PTX "starting address of the repeating
/// pattern" that keeps the descriptor base offset at 0.
uint32_t swizzleRepeatBytes(Swizzle S);

/// Alignment a tile buffer needs: the repeat for swizzled modes, 128 bytes for
/// none. Why: swizzled buffers must start on a repeat boundary so TMA and MMA
/// see one pattern; an unswizzled buffer is still a TMA destination, and
/// cp.async.bulk.tensor needs a 128-byte-aligned shared address (MMA alone
/// would need only 16).
uint32_t swizzleAlignmentBytes(Swizzle S);

/// Width in bytes of one column block of tilec's tile layout: the span, or 16
/// for none (one column of 8x16-byte core matrices). Why: the MMA descriptor
/// strides and the TMA box width both derive from it.
uint32_t swizzleAtomBytes(Swizzle S);

/// CUTLASS Swizzle<B,4,3> applied to a byte offset: bits [4,4+B) ^= bits
/// [7,7+B). Identity for none. Why: this is the one address function behind
/// TMA's swizzle modes and the MMA layout codes.
uint32_t swizzleByteOffset(Swizzle S, uint32_t Offset);

/// Byte offset of byte \p ColByte of row \p Row in a row-major region whose
/// rows are \p RowBytes apart, with swizzle \p S applied. Why: threads that
/// read or write a swizzled block (epilogue, stmatrix) need the real address.
uint32_t swizzledRowMajorOffset(Swizzle S, uint32_t RowBytes, uint32_t Row,
                                uint32_t ColByte);

/// What an unswizzled tile looks like in shared memory.
enum class NoSwizzleLayout : uint8_t {
  /// 16-byte column blocks: 8x16-byte core matrices, the layout the MMA
  /// units need without swizzle (PTX "K major interleaved").
  Interleaved,
  /// One block: a plain row-major tile, for data no MMA reads.
  RowMajor,
};

/// How tilec stores a Rows x Cols tile of ElemBytes-byte elements.
struct SmemTileLayout {
  uint32_t Rows = 0;
  uint32_t Cols = 0;
  uint32_t ElemBytes = 0;
  Swizzle Swz = Swizzle::None;
  /// Width of one column block in bytes; each block is Rows x BlockBytes.
  uint32_t BlockBytes = 0;

  uint32_t rowBytes() const { return Cols * ElemBytes; }
  uint32_t blockCols() const { return BlockBytes / ElemBytes; }
  uint32_t numBlocks() const { return rowBytes() / BlockBytes; }
  uint32_t blockSizeBytes() const { return Rows * BlockBytes; }
  uint32_t totalBytes() const { return Rows * rowBytes(); }
};

/// Builds and checks the layout of a Rows x Cols tile. Swizzled tiles need
/// rows of a multiple of the span and a multiple of 8 rows; the interleaved
/// no-swizzle layout needs a multiple of 8 rows; every layout needs rows of a
/// multiple of 16 bytes. Why: one place decides the layout that TMA boxes, MMA
/// descriptors and thread addressing all assume.
llvm::Expected<SmemTileLayout>
makeSmemTileLayout(uint32_t Rows, uint32_t Cols, uint32_t ElemBytes, Swizzle S,
                   NoSwizzleLayout NoSwizzle = NoSwizzleLayout::Interleaved);

/// Offset of byte \p ColByte of row \p Row before the swizzle: the address an
/// MMA descriptor or a TMA box names. Why: descriptor start addresses and box
/// destinations are logical offsets; the hardware applies the swizzle.
uint32_t logicalByteOffset(const SmemTileLayout &L, uint32_t Row,
                           uint32_t ColByte);

/// Offset where byte \p ColByte of row \p Row really lives (swizzle applied),
/// relative to a buffer aligned to swizzleAlignmentBytes. Why: ld/st.shared
/// on a TMA-written or MMA-read tile must use this address.
uint32_t physicalByteOffset(const SmemTileLayout &L, uint32_t Row,
                            uint32_t ColByte);

} // namespace tilec

#endif // TILEC_SUPPORT_SWIZZLE_H

//===- TmaBoxes.h - TMA box planning for shared-memory tiles ----*- C++ -*-===//
//
// Part of tilec. TileSupport is compiler-only: LLVM Support, no MLIR or CUDA.
//
//===----------------------------------------------------------------------===//
//
// Which cp.async.bulk.tensor copies fill a tile laid out by makeSmemTileLayout.
// cuTensorMapEncodeTiled limits every box dimension to 1..256 elements, needs
// boxDim[0] x element size to be a multiple of 16 bytes and, with a swizzle,
// at most the swizzle span; the shared-memory destination of a copy must be
// 128-byte aligned (CUDA programming guide, TMA alignment table). A tensor
// map has one box size, so all boxes of a plan share one shape: each column
// block of the tile is one box wide, and tall tiles are cut into equal row
// chunks of at most 256 rows.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_SUPPORT_TMABOXES_H
#define TILEC_SUPPORT_TMABOXES_H

#include "lib/Support/Swizzle.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <vector>

namespace tilec {

/// Largest box dimension cuTensorMapEncodeTiled accepts.
constexpr uint32_t MaxTmaBoxDim = 256;

/// One TMA copy into the tile.
struct TmaBox {
  /// Offset of the box along the tile's columns (the tensor map's inner
  /// dimension), in elements; add it to the tile's global column coordinate.
  uint32_t ColOffset = 0;
  /// Offset of the box along the tile's rows, in elements.
  uint32_t RowOffset = 0;
  /// Destination of the box in bytes from the tile's base (which must be
  /// aligned to swizzleAlignmentBytes).
  uint32_t SmemOffset = 0;
};

/// The tensor-map box shape and the copies that fill one tile.
struct TmaBoxPlan {
  /// boxDim[0] of the tensor map: columns per box (elements).
  uint32_t BoxCols = 0;
  /// boxDim[1] of the tensor map: rows per box.
  uint32_t BoxRows = 0;
  /// Bytes one box writes.
  uint32_t BoxBytes = 0;
  /// Bytes of the whole tile: the mbarrier expect_tx count.
  uint32_t TotalBytes = 0;
  /// The copies, column block by column block, top to bottom.
  std::vector<TmaBox> Boxes;
};

/// Plans the TMA boxes for tile layout \p L: one box column per column block,
/// rows cut into the fewest equal chunks of at most 256 rows whose
/// destinations stay 128-byte aligned (and, for swizzled or interleaved
/// layouts, start on an 8-row boundary). Fails when a row-major block is wider
/// than 256 elements or no such chunk height divides the rows. Why: the
/// dispatch pass records the box in the kernel's tensor-map metadata and
/// issues one copy per box.
llvm::Expected<TmaBoxPlan> planTmaBoxes(const SmemTileLayout &L);

/// The boxes that move only the top-left \p Rows x \p Cols of tile \p L:
/// planTmaBoxes's boxes cut to \p Rows rows (the tile must take one box
/// height) or, for a one-row tile, to \p Cols columns (a multiple of 16
/// bytes). Each box keeps its destination, so the elements moved land where
/// a whole-tile copy puts them. Why: a 64-row MMA operand of which a kernel
/// loads only its valid rows.
llvm::Expected<TmaBoxPlan> planTmaBoxPrefix(const SmemTileLayout &L,
                                            uint32_t Rows, uint32_t Cols);

} // namespace tilec

#endif // TILEC_SUPPORT_TMABOXES_H

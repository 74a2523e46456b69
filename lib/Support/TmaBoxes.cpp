//===- TmaBoxes.cpp - TMA box planning for shared-memory tiles ------------===//
//
// Part of tilec. TileSupport is compiler-only: LLVM Support, no MLIR or CUDA.
//
//===----------------------------------------------------------------------===//

#include "lib/Support/TmaBoxes.h"
#include "lib/Support/EncodingError.h"

namespace tilec {

namespace {
/// Alignment cp.async.bulk.tensor needs for its shared-memory destination.
constexpr uint32_t TmaSmemAlignment = 128;
} // namespace

llvm::Expected<TmaBoxPlan> planTmaBoxes(const SmemTileLayout &L) {
  uint32_t BoxCols = L.blockCols();
  if (BoxCols > MaxTmaBoxDim)
    return encodingError("row-major tile rows of {0} elements exceed the "
                         "256-element tma box limit; use a swizzled or "
                         "interleaved layout",
                         L.Cols);

  // A chunk of a swizzled block must start on a swizzle repeat (8 rows). For
  // the interleaved layout (16-byte rows) the 128-byte alignment below
  // already means 8 rows, one core matrix.
  uint32_t RowGranule = L.Swz == Swizzle::None ? 1 : 8;
  uint32_t BoxRows = 0;
  for (uint32_t Rows = L.Rows < MaxTmaBoxDim ? L.Rows : MaxTmaBoxDim; Rows > 0;
       --Rows) {
    if (L.Rows % Rows == 0 && Rows % RowGranule == 0 &&
        (Rows * L.BlockBytes) % TmaSmemAlignment == 0) {
      BoxRows = Rows;
      break;
    }
  }
  if (BoxRows == 0)
    return encodingError("no box height of at most 256 rows divides the {0} "
                         "rows of the tile with {1}-byte-aligned destinations "
                         "(rows of {2} bytes)",
                         L.Rows, TmaSmemAlignment, L.BlockBytes);

  TmaBoxPlan Plan;
  Plan.BoxCols = BoxCols;
  Plan.BoxRows = BoxRows;
  Plan.BoxBytes = BoxRows * L.BlockBytes;
  Plan.TotalBytes = L.totalBytes();
  for (uint32_t Block = 0; Block < L.numBlocks(); ++Block) {
    for (uint32_t Row = 0; Row < L.Rows; Row += BoxRows) {
      TmaBox Box;
      Box.ColOffset = Block * BoxCols;
      Box.RowOffset = Row;
      Box.SmemOffset = logicalByteOffset(L, Row, Block * L.BlockBytes);
      Plan.Boxes.push_back(Box);
    }
  }
  return Plan;
}

llvm::Expected<TmaBoxPlan> planTmaBoxPrefix(const SmemTileLayout &L,
                                            uint32_t Rows, uint32_t Cols) {
  llvm::Expected<TmaBoxPlan> Plan = planTmaBoxes(L);
  if (!Plan || (Rows == L.Rows && Cols == L.Cols))
    return Plan;
  if (Rows < 1 || Rows > L.Rows || Cols < 1 || Cols > L.Cols)
    return encodingError("a copy of {0}x{1} elements does not fit the {2}x{3} "
                         "tile",
                         Rows, Cols, L.Rows, L.Cols);
  if (Rows < L.Rows && Plan->BoxRows != L.Rows)
    return encodingError("a copy of the first {0} rows needs a tile TMA fills "
                         "in one box height, but the {1} rows take boxes of "
                         "{2}",
                         Rows, L.Rows, Plan->BoxRows);
  if (Cols < L.Cols) {
    // Part of each row: only a one-row, one-block tile keeps its columns
    // where a narrower box puts them.
    if (L.Rows != 1 || L.numBlocks() != 1)
      return encodingError("a copy of the first {0} of {1} columns needs a "
                           "one-row tile in one column block",
                           Cols, L.Cols);
    if ((Cols * L.ElemBytes) % 16 != 0)
      return encodingError("tma boxes span a multiple of 16 bytes, but {0} "
                           "columns are {1} bytes",
                           Cols, Cols * L.ElemBytes);
    Plan->BoxCols = Cols;
  }
  Plan->BoxRows = Rows;
  Plan->BoxBytes = Rows * Plan->BoxCols * L.ElemBytes;
  Plan->TotalBytes = Plan->BoxBytes * Plan->Boxes.size();
  return Plan;
}

} // namespace tilec

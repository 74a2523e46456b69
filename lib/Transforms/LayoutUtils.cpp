//===- LayoutUtils.cpp - tile dialect types to TileSupport layouts -------===//

#include "lib/Transforms/LayoutUtils.h"

using namespace mlir;
using namespace mlir::tile;

llvm::Expected<tilec::SmemTileLayout> mlir::tile::getTileLayout(SmemType type) {
  ArrayRef<int64_t> shape = type.getShape();
  int64_t rows = shape.size() >= 2 ? shape[shape.size() - 2] : 1;
  return tilec::makeSmemTileLayout(rows, shape.back(), type.getElementBytes(),
                                   toVocabSwizzle(type.getSwizzle()),
                                   tilec::NoSwizzleLayout::RowMajor);
}

llvm::Expected<tilec::TmaBoxPlan> mlir::tile::planCopyBoxes(CopyAsyncOp copy) {
  auto layout = getTileLayout(copy.getSmemType());
  if (!layout)
    return layout.takeError();
  auto [rows, cols] = copy.getMovedExtent();
  return tilec::planTmaBoxPrefix(*layout, rows, cols);
}

tilec::TmaBoxPlan mlir::tile::getCopyBoxPlan(CopyAsyncOp copy) {
  return llvm::cantFail(planCopyBoxes(copy),
                        "tile-dispatch checks that TMA can copy the tile");
}

int64_t mlir::tile::getTileStride(SmemType type, unsigned leadingDim) {
  ArrayRef<int64_t> shape = type.getShape();
  int64_t stride = type.getTileBytes();
  for (unsigned d = leadingDim + 1; d + 2 < shape.size(); ++d)
    stride *= shape[d];
  return stride;
}

//===- LayoutUtils.cpp - tile dialect types to TileSupport layouts -------===//

#include "lib/Transforms/LayoutUtils.h"

using namespace mlir;
using namespace mlir::tile;

std::optional<tilec::ElemType> mlir::tile::toElemType(Type type) {
  if (type.isF16())
    return tilec::ElemType::F16;
  if (type.isBF16())
    return tilec::ElemType::BF16;
  if (type.isF32())
    return tilec::ElemType::F32;
  if (isa<Float8E4M3FNType>(type))
    return tilec::ElemType::E4M3;
  if (isa<Float8E5M2Type>(type))
    return tilec::ElemType::E5M2;
  return std::nullopt;
}

tilec::Outcome<tilec::SmemTileLayout> mlir::tile::getTileLayout(SmemType type) {
  ArrayRef<int64_t> shape = type.getShape();
  int64_t rows = shape.size() >= 2 ? shape[shape.size() - 2] : 1;
  return tilec::makeSmemTileLayout(rows, shape.back(), type.getElementBytes(),
                                   toVocabSwizzle(type.getSwizzle()),
                                   tilec::NoSwizzleLayout::RowMajor);
}

int64_t mlir::tile::getTileStride(SmemType type, unsigned leadingDim) {
  ArrayRef<int64_t> shape = type.getShape();
  int64_t stride = type.getTileBytes();
  for (unsigned d = leadingDim + 1; d + 2 < shape.size(); ++d)
    stride *= shape[d];
  return stride;
}

//===- VerifyHelpers.h - checks shared by the tile op verifiers -*- C++ -*-===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//
//
// Helpers of the op verifiers (TileOps.cpp, MmaOps.cpp); not part of the
// dialect's interface.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECTS_TILE_VERIFYHELPERS_H
#define TILEC_DIALECTS_TILE_VERIFYHELPERS_H

#include "dialects/Tile/TileDialect.h"

#include <optional>

namespace mlir::tile {

/// The kernel the op is in (null outside one).
KernelOp getKernel(Operation *op);

/// The value of `v` when it is a constant integer.
std::optional<int64_t> getConstantIndex(Value v);

/// cta_group is 1 or 2, and 2 needs clusters of an even number of CTAs (the
/// pair of CTAs that shares the MMA or the copy).
LogicalResult verifyCtaGroup(Operation *op, int64_t ctaGroup);

/// Constant indices of a view into a shared buffer stay inside it: the
/// leading indices select a tile; with `rowsUsed`, the last index is the
/// first of `rowsUsed` rows of that tile.
LogicalResult verifyTileIndices(Operation *op, StringRef name, SmemType type,
                                ValueRange indices,
                                std::optional<int64_t> rowsUsed);

} // namespace mlir::tile

#endif // TILEC_DIALECTS_TILE_VERIFYHELPERS_H

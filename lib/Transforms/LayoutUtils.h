//===- LayoutUtils.h - tile dialect types to TileSupport layouts ---------===//

#ifndef TILEC_LIB_TRANSFORMS_LAYOUTUTILS_H
#define TILEC_LIB_TRANSFORMS_LAYOUTUTILS_H

#include "dialects/Tile/TileDialect.h"
#include "lib/Support/Swizzle.h"
#include "lib/Support/TmaBoxes.h"

namespace mlir::tile {

/// The layout of one tile (the two innermost dimensions) of `type`. An
/// unswizzled buffer is row-major: only TMA reads it (the MMA needs a swizzle,
/// which the gemm_async verifier enforces).
llvm::Expected<tilec::SmemTileLayout> getTileLayout(SmemType type);

/// The TMA boxes of `copy`: its tile, or the part its `extent` names.
llvm::Expected<tilec::TmaBoxPlan> planCopyBoxes(CopyAsyncOp copy);

/// planCopyBoxes for a copy that tile-dispatch accepted (it reports the
/// layout and plan errors).
tilec::TmaBoxPlan getCopyBoxPlan(CopyAsyncOp copy);

/// Bytes from a buffer's base to the tile selected by `leading` indices
/// (all but the two innermost dimensions), as a multiple of the tile size.
int64_t getTileStride(SmemType type, unsigned leadingDim);

} // namespace mlir::tile

#endif // TILEC_LIB_TRANSFORMS_LAYOUTUTILS_H

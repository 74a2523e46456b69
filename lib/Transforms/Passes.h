//===- Passes.h - the passes on the tile dialect -------------------------===//

#ifndef TILEC_LIB_TRANSFORMS_PASSES_H
#define TILEC_LIB_TRANSFORMS_PASSES_H

#include "dialects/Tile/TileDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Pass/Pass.h"

namespace mlir::tile {

#define GEN_PASS_DECL
#include "lib/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "lib/Transforms/Passes.h.inc"

/// The registers each thread starts with when the kernel declares its thread
/// count and one CTA per SM: 64K registers shared, rounded down to 8 (the
/// base from which tile-warp-specialize's setmaxnreg decreases or increases).
int64_t startingRegisters(int64_t threads);

/// The role enclosing `op`, or null at the kernel's top level.
RoleOp getEnclosingRole(Operation *op);

} // namespace mlir::tile

#endif // TILEC_LIB_TRANSFORMS_PASSES_H

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

/// The role enclosing `op`, or null at the kernel's top level.
RoleOp getEnclosingRole(Operation *op);

} // namespace mlir::tile

#endif // TILEC_LIB_TRANSFORMS_PASSES_H

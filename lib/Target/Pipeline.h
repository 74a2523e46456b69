//===- Pipeline.h - the pass pipeline from the tile dialect to LLVM ------===//

#ifndef TILEC_LIB_TARGET_PIPELINE_H
#define TILEC_LIB_TARGET_PIPELINE_H

#include "mlir/Pass/PassManager.h"

namespace tilec {

/// The tile passes in order, then the conversion to the LLVM and NVVM
/// dialects and the upstream lowerings of what remains (scf, arith, cf,
/// NVVM's inline-PTX ops).
void buildTileToLLVMPipeline(mlir::OpPassManager &pm);

/// Registers `tile-to-llvm` for tile-opt.
void registerTilePipelines();

} // namespace tilec

#endif // TILEC_LIB_TARGET_PIPELINE_H

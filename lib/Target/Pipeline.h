//===- Pipeline.h - the pass pipeline from the tile dialect to LLVM ------===//

#ifndef TILEC_LIB_TARGET_PIPELINE_H
#define TILEC_LIB_TARGET_PIPELINE_H

#include "mlir/Pass/PassManager.h"

namespace tilec {

/// The tile passes in order, then the conversion to the LLVM and NVVM
/// dialects and the upstream lowerings of what remains (scf, arith, cf,
/// NVVM's inline-PTX ops). With `verifyConversion` false the conversion does
/// not verify its result: the caller verifies once after the pipeline (as
/// tilec does, with verifyAsInternalError). With `checkProtocol` false the
/// barrier-protocol check (tile-check-protocol) is left out. With
/// `debugHangs` every barrier wait becomes a bounded spin that reports a
/// hang and traps (tile-debug-hangs, tilec --debug-hangs).
void buildTileToLLVMPipeline(mlir::OpPassManager &pm,
                             bool verifyConversion = true,
                             bool checkProtocol = true,
                             bool debugHangs = false);

/// The passes whose facts tilec --emit=svg draws: the scope check, the
/// protocol check (unless `checkProtocol` is false) and tile-allocate-smem,
/// which places every declaration without regard to warp specialisation, so
/// its offsets are the build's; the roles stay roles.
void buildTilePicturePipeline(mlir::OpPassManager &pm,
                              bool checkProtocol = true);

/// Verifies `module` after the tile pipeline. The kernel was verified when
/// it was parsed, so an error here is the compiler's: it is reported as an
/// internal compiler error, with the verifier's message as a note.
mlir::LogicalResult verifyAsInternalError(mlir::Operation *module);

/// Registers `tile-to-llvm` for tile-opt.
void registerTilePipelines();

} // namespace tilec

#endif // TILEC_LIB_TARGET_PIPELINE_H

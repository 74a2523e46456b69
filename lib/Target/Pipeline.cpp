//===- Pipeline.cpp - the pass pipeline from the tile dialect to LLVM ----===//

#include "lib/Target/Pipeline.h"

#include "lib/Conversion/Passes.h"
#include "lib/Transforms/Passes.h"

#include "dialects/Tile/TileDialect.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

void tilec::buildTileToLLVMPipeline(mlir::OpPassManager &pm) {
  using namespace mlir;
  // The tile passes work on one kernel at a time.
  OpPassManager &kernelPM = pm.nest<tile::KernelOp>();
  kernelPM.addPass(tile::createTileVerifyScopes());
  kernelPM.addPass(tile::createTileWarpSpecialize());
  kernelPM.addPass(tile::createTileAllocateSharedMemory());
  kernelPM.addPass(tile::createTileAssignNamedBarriers());
  kernelPM.addPass(tile::createTileLowerPipelines());
  kernelPM.addPass(tile::createTileDispatch());
  pm.addPass(tile::createTileConvertToNVVM());
  pm.addPass(tile::createTileHoistInnermostInvariants());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertNVVMToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void tilec::registerTilePipelines() {
  static mlir::PassPipelineRegistration<> pipeline(
      "tile-to-llvm",
      "Run every tile pass and lower the result to the LLVM and NVVM dialects",
      [](mlir::OpPassManager &pm) { buildTileToLLVMPipeline(pm); });
}

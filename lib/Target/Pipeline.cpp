//===- Pipeline.cpp - the pass pipeline from the tile dialect to LLVM ----===//

#include "lib/Target/Pipeline.h"

#include "lib/Conversion/Passes.h"
#include "lib/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

void tilec::buildTileToLLVMPipeline(mlir::OpPassManager &pm) {
  using namespace mlir;
  pm.addPass(tile::createTileVerifyScopes());
  pm.addPass(tile::createTileWarpSpecialize());
  pm.addPass(tile::createTileAllocateSharedMemory());
  pm.addPass(tile::createTileAssignNamedBarriers());
  pm.addPass(tile::createTileLowerPipelines());
  pm.addPass(tile::createTileDispatch());
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

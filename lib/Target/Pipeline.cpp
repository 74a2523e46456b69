//===- Pipeline.cpp - the pass pipeline from the tile dialect to LLVM ----===//

#include "lib/Target/Pipeline.h"

#include "lib/Conversion/Passes.h"
#include "lib/Transforms/Passes.h"

#include "dialects/Tile/TileDialect.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

void tilec::buildTileToLLVMPipeline(mlir::OpPassManager &pm,
                                    bool verifyConversion, bool checkProtocol,
                                    bool debugHangs) {
  using namespace mlir;
  // The tile passes work on one kernel at a time.
  OpPassManager &kernelPM = pm.nest<tile::KernelOp>();
  kernelPM.addPass(tile::createTileVerifyScopes());
  if (checkProtocol)
    kernelPM.addPass(tile::createTileCheckProtocol());
  // Before the roles become branches: it names each wait's role.
  if (debugHangs)
    kernelPM.addPass(tile::createTileDebugHangs());
  kernelPM.addPass(tile::createTileWarpSpecialize());
  kernelPM.addPass(tile::createTileAllocateSharedMemory());
  kernelPM.addPass(tile::createTileAssignNamedBarriers());
  // Before the pipeline states become integers: a stage is then known to
  // index its barrier array in range.
  kernelPM.addPass(tile::createTileTestAhead());
  kernelPM.addPass(tile::createTileLowerPipelines());
  kernelPM.addPass(tile::createTileDispatch());
  tile::TileConvertToNVVMOptions conversion;
  conversion.verifyResult = verifyConversion;
  pm.addPass(tile::createTileConvertToNVVM(conversion));
  pm.addPass(tile::createTileHoistInnermostInvariants());
  pm.addPass(tile::createTileUnrollLoops());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertNVVMToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void tilec::buildTilePicturePipeline(mlir::OpPassManager &pm,
                                     bool checkProtocol) {
  using namespace mlir;
  OpPassManager &kernelPM = pm.nest<tile::KernelOp>();
  kernelPM.addPass(tile::createTileVerifyScopes());
  if (checkProtocol)
    kernelPM.addPass(tile::createTileCheckProtocol());
  kernelPM.addPass(tile::createTileAllocateSharedMemory());
}

mlir::LogicalResult tilec::verifyAsInternalError(mlir::Operation *module) {
  using namespace mlir;
  SmallVector<std::pair<Location, std::string>> caught;
  LogicalResult result = success();
  {
    ScopedDiagnosticHandler handler(module->getContext(), [&](Diagnostic &d) {
      if (d.getSeverity() != DiagnosticSeverity::Error)
        return failure();
      caught.push_back({d.getLocation(), d.str()});
      return success();
    });
    result = verify(module);
  }
  if (succeeded(result))
    return success();
  Location loc = caught.empty() ? module->getLoc() : caught.front().first;
  InFlightDiagnostic diag =
      emitError(loc) << "internal compiler error: the tile passes produced "
                        "invalid IR; this is a bug in tilec, not in the kernel";
  for (const auto &[noteLoc, note] : caught)
    diag.attachNote(noteLoc) << note;
  return failure();
}

void tilec::registerTilePipelines() {
  static mlir::PassPipelineRegistration<> pipeline(
      "tile-to-llvm",
      "Run every tile pass and lower the result to the LLVM and NVVM dialects",
      [](mlir::OpPassManager &pm) { buildTileToLLVMPipeline(pm); });
}

//===- tile-opt.cpp - mlir-opt with the tile dialect and its passes ------===//

#include "lib/Registration.h"
#include "lib/Target/Pipeline.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  tilec::registerAll(registry);
  tilec::registerTilePipelines();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "tile optimizer driver\n", registry));
}

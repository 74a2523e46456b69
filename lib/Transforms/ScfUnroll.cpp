//===- ScfUnroll.cpp - MLIR's scf.for unrolling, behind a narrow header ---===//

#include "lib/Transforms/ScfUnroll.h"

#include "mlir/Dialect/SCF/Utils/Utils.h"

mlir::LogicalResult tilec::unrollScfFor(mlir::scf::ForOp loop,
                                        uint64_t factor) {
  return mlir::loopUnrollByFactor(loop, factor);
}

//===- ScfUnroll.h - MLIR's scf.for unrolling, behind a narrow header -----===//
//
// mlir/Dialect/SCF/Utils/Utils.h declares a function mlir::tile, which
// clashes with the namespace mlir::tile of the dialect: the call to
// loopUnrollByFactor lives in a file that includes no tile header.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_TRANSFORMS_SCFUNROLL_H
#define TILEC_LIB_TRANSFORMS_SCFUNROLL_H

#include "mlir/Dialect/SCF/IR/SCF.h"

namespace tilec {

/// mlir::loopUnrollByFactor: `factor` copies of the body per iteration and
/// a remainder loop.
mlir::LogicalResult unrollScfFor(mlir::scf::ForOp loop, uint64_t factor);

} // namespace tilec

#endif // TILEC_LIB_TRANSFORMS_SCFUNROLL_H

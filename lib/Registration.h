//===- Registration.h - dialects and passes shared by tilec and tile-opt -===//

#ifndef TILEC_LIB_REGISTRATION_H
#define TILEC_LIB_REGISTRATION_H

#include "mlir/IR/DialectRegistry.h"

namespace tilec {

/// Registers the tile dialect, the upstream dialects it lowers through, their
/// translations to LLVM IR, and every tile pass (once per process).
void registerAll(mlir::DialectRegistry &registry);

} // namespace tilec

#endif // TILEC_LIB_REGISTRATION_H

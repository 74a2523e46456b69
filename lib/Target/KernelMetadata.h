//===- KernelMetadata.h - kernel metadata from lowered modules -----------===//

#ifndef TILEC_LIB_TARGET_KERNELMETADATA_H
#define TILEC_LIB_TARGET_KERNELMETADATA_H

#include "tilec/bundle/Bundle.h"

#include "mlir/IR/BuiltinOps.h"

namespace tilec {

/// Reads the `tile.*` attributes the conversion left on each kernel function
/// into bundle metadata and removes them (LLVM IR has no place for them).
/// Fails, with a diagnostic on the function, on metadata it cannot express.
mlir::LogicalResult extractKernelMetadata(mlir::ModuleOp module,
                                          std::vector<bundle::Kernel> &kernels);

} // namespace tilec

#endif // TILEC_LIB_TARGET_KERNELMETADATA_H

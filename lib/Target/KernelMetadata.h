//===- KernelMetadata.h - kernel metadata from lowered modules -----------===//

#ifndef TILEC_LIB_TARGET_KERNELMETADATA_H
#define TILEC_LIB_TARGET_KERNELMETADATA_H

#include "tilec/bundle/Bundle.h"

#include "mlir/IR/BuiltinOps.h"

namespace tilec {

/// Reads the `tile.*` attributes the conversion left on each kernel function
/// into bundle metadata and removes them (LLVM IR has no place for them).
/// Every tensor map asks the runtime for `l2Promotion`. Fails, with a
/// diagnostic on the function, on metadata it cannot express.
mlir::LogicalResult extractKernelMetadata(
    mlir::ModuleOp module, std::vector<bundle::Kernel> &kernels,
    bundle::L2Promotion l2Promotion = bundle::L2Promotion::B256);

} // namespace tilec

#endif // TILEC_LIB_TARGET_KERNELMETADATA_H

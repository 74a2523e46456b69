//===- KernelPicture.h - SVG pictures of kernels --------------*- C++ -*-===//
//
// Draws each kernel of a module after the picture pipeline
// (buildTilePicturePipeline): its warps and warpgroups with their roles and
// register budgets, each ring of barriers with who arrives, completes and
// waits, the shared-memory map with offsets, sizes, swizzles, alignment
// padding and barriers, and the tensor-memory columns (docs/pictures.md).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_TARGET_KERNELPICTURE_H
#define TILEC_LIB_TARGET_KERNELPICTURE_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

namespace tilec {

/// Writes one SVG document picturing every kernel of `module`, whose
/// allocations tile-allocate-smem has placed and whose roles are still
/// roles (before tile-warp-specialize).
void writeKernelPictures(mlir::ModuleOp module, llvm::raw_ostream &os);

} // namespace tilec

#endif // TILEC_LIB_TARGET_KERNELPICTURE_H

//===- Passes.h - conversion of the tile dialect to NVVM -----------------===//

#ifndef TILEC_LIB_CONVERSION_PASSES_H
#define TILEC_LIB_CONVERSION_PASSES_H

#include "dialects/Tile/TileDialect.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Pass/Pass.h"

namespace mlir::tile {

#define GEN_PASS_DECL
#include "lib/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "lib/Conversion/Passes.h.inc"

/// Adds the tile types' conversions (fragments to LLVM structs, shared
/// buffers and barriers to shared pointers, tensor memory to i32) to
/// `converter`.
void populateTileToNVVMTypeConversions(LLVMTypeConverter &converter);

/// Adds the patterns lowering tile kernels (to llvm.func) and the tile ops
/// inside them to the LLVM and NVVM dialects, one op family at a time
/// (lib/Conversion/TileToNVVM/).
void populateTileToNVVMConversionPatterns(LLVMTypeConverter &converter,
                                          RewritePatternSet &patterns);

} // namespace mlir::tile

#endif // TILEC_LIB_CONVERSION_PASSES_H

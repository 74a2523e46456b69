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

/// Adds the patterns lowering tile ops (inside kernels already turned into
/// llvm.func by the pass) to the LLVM and NVVM dialects.
void populateTileToNVVMConversionPatterns(LLVMTypeConverter &converter,
                                          RewritePatternSet &patterns);

} // namespace mlir::tile

#endif // TILEC_LIB_CONVERSION_PASSES_H

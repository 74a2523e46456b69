//===- TileDialect.h - the tile dialect: dialect, enums, types, ops ------===//

#ifndef TILEC_DIALECTS_TILE_TILEDIALECT_H
#define TILEC_DIALECTS_TILE_TILEDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "lib/Support/FragmentLayout.h"
#include "tilec/Vocabulary.h"

namespace tilec {
enum class MmaMajor : uint8_t; // lib/Support/MmaTypes.h
} // namespace tilec

#include "dialects/Tile/TileEnums.h.inc"

#define GET_TYPEDEF_CLASSES
#include "dialects/Tile/TileTypes.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/Tile/TileAttrs.h.inc"

// After the attributes: the dialect's helpers for its discardable attributes
// name their classes.
#include "dialects/Tile/TileDialect.h.inc"

#define GET_OP_CLASSES
#include "dialects/Tile/TileOps.h.inc"

namespace mlir::tile {

/// Bytes of one element of a supported element type (fp8 is 1).
int64_t getElementBytes(Type type);

/// `128x64` (`?` for a dynamic dimension), as the types print shapes.
std::string formatShape(ArrayRef<int64_t> shape);

/// The swizzle span in bytes (0 for none).
int64_t getSwizzleBytes(Swizzle swizzle);

/// The same mode in the vocabulary shared with lib/Support and the runtime.
tilec::vocab::Swizzle toVocabSwizzle(Swizzle swizzle);

/// The same operand major in lib/Support's terms (tilec::MmaMajor).
tilec::MmaMajor toSupportMajor(MmaMajor major);

/// Short name of an element type as users write it (bf16, f16, f32, e4m3...).
std::string getElementTypeName(Type type);

/// The MLIR type of a vocabulary element type (u32 is an unsigned integer,
/// i32 a signless one) and back: the one table between MLIR types and the
/// element types the DSL, the bundle and the runtime name.
Type getMlirElementType(MLIRContext *context, tilec::vocab::ElementType type);
std::optional<tilec::vocab::ElementType> getVocabElementType(Type type);

/// Reading a fragment needs its asynchronous producer to be done: an error
/// on `op` when `fragment` may still be written by a tile.gemm_async or
/// filled by a tile.tmem_load (success for values that are no fragment).
LogicalResult verifySettled(Operation *op, Value fragment);

/// The fragment type that elementwise math on `operands` (fragments and
/// scalars) gives, with element type `elementType`: the shape and layout of
/// the first fragment, broadcast when every fragment operand is one of the
/// same kind, full otherwise. Null when no operand is a fragment. The
/// verifiers of the fragment math ops and the front end both use it.
FragType getElementwiseResultType(TypeRange operands, Type elementType);

/// The most consecutive elements (a power of two up to `maxWidth`) that one
/// memory access of `frag` moves (lib/Support's fragmentAccessWidth): the
/// verifiers of fragment loads and stores and tile-dispatch use it.
int64_t getFragmentAccessWidth(FragType frag, int64_t maxWidth);

/// The kernel argument a global tensor value is, or views (through
/// tile.peer_view): its number, or -1 for anything else. The ABI's pointer
/// params and tile-dispatch's read-only analysis follow views with it.
int64_t getRootKernelArg(Value global);

} // namespace mlir::tile

#endif // TILEC_DIALECTS_TILE_TILEDIALECT_H

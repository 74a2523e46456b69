//===- LoadOps.cpp - verifiers of the loads into registers and stores ----===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//
//
// Scalar loads (tile.load), fragment loads (tile.frag.load) and guarded
// fragment stores to global memory (tile.frag.store_global). Each takes one
// index per dimension of its memory operand; constant indices must name an
// element of a static dimension (global accesses past a runtime edge are
// guarded by the lowering, shared ones must stay inside the buffer).
//
//===----------------------------------------------------------------------===//

#include "dialects/Tile/TileDialect.h"
#include "dialects/Tile/VerifyHelpers.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

/// The shape and element type of a global tensor or a shared buffer.
struct MemoryShape {
  ArrayRef<int64_t> shape;
  Type elementType;
  bool shared = false;
};

MemoryShape getMemoryShape(Type type) {
  if (auto smem = dyn_cast<SmemType>(type))
    return {smem.getShape(), smem.getElementType(), /*shared=*/true};
  auto global = cast<GlobalType>(type);
  return {global.getShape(), global.getElementType(), /*shared=*/false};
}

/// One index per dimension, each constant one inside its static dimension;
/// in shared memory the `extents` that start there stay inside it too
/// (global accesses past the edge are guarded instead).
LogicalResult verifyAccessIndices(Operation *op, StringRef what, Type type,
                                  ValueRange indices,
                                  ArrayRef<int64_t> extents) {
  MemoryShape memory = getMemoryShape(type);
  size_t rank = memory.shape.size();
  if (indices.size() != rank)
    return op->emitOpError(what) << " of rank " << rank << " takes " << rank
                                 << " indices, got " << indices.size();
  if (auto smem = dyn_cast<SmemType>(type);
      smem && smem.getSwizzle() != Swizzle::none)
    return op->emitOpError("reads and writes shared memory unswizzled, got ")
           << type;
  for (auto [d, index] : llvm::enumerate(indices)) {
    int64_t size = memory.shape[d];
    std::optional<int64_t> start = getConstantIndex(index);
    if (!start || ShapedType::isDynamic(size))
      continue;
    int64_t extent = extents[d];
    if (*start < 0 || *start >= size)
      return op->emitOpError(what)
             << " index " << *start << " is out of range for dimension " << d
             << " of size " << size << " of " << type;
    if (memory.shared && *start + extent > size)
      return op->emitOpError(what)
             << " elements " << *start << " to " << *start + extent - 1
             << " are outside dimension " << d << " of size " << size << " of "
             << type;
  }
  return success();
}

/// How many elements of each dimension of `type` a fragment access covers
/// from its start: the tile's rows and columns in the last two dimensions
/// (a full fragment), or its rows or columns in the last one (broadcast).
SmallVector<int64_t> fragmentExtents(Type type, FragType frag) {
  SmallVector<int64_t> extents(getMemoryShape(type).shape.size(), 1);
  ArrayRef<int64_t> shape = frag.getShape();
  switch (frag.getBroadcast()) {
  case FragBroadcast::none:
    if (extents.size() >= 2) {
      extents[extents.size() - 2] = shape[0];
      extents.back() = shape[1];
    }
    break;
  case FragBroadcast::rows:
    extents.back() = shape[0];
    break;
  case FragBroadcast::cols:
    extents.back() = shape[1];
    break;
  }
  return extents;
}

/// `vector` consecutive columns per access fit the fragment's layout.
LogicalResult verifyVectorWidth(Operation *op, std::optional<uint64_t> vector,
                                FragType frag) {
  if (!vector)
    return success();
  int64_t width = static_cast<int64_t>(*vector);
  int64_t bytes = width * getElementBytes(frag.getElementType());
  if (width < 1 || !llvm::isPowerOf2_64(width) || bytes > 16)
    return op->emitOpError("vector must be a power of two of at most 16 "
                           "bytes, got ")
           << width << " elements";
  int64_t widest = getFragmentAccessWidth(frag, width);
  if (widest < width)
    return op->emitOpError("vector of ")
           << width << " elements does not fit " << frag
           << ", whose threads hold runs of " << widest
           << " consecutive elements";
  return success();
}

/// `other` and `nc` apply to guarded global reads only; `other` has the
/// element type.
LogicalResult verifyGlobalOnly(Operation *op, Type source, Value other, bool nc,
                               Type elementType) {
  bool global = isa<GlobalType>(source);
  if (other && !global)
    return op->emitOpError("other applies to global loads (shared-memory "
                           "loads are not guarded)");
  if (nc && !global)
    return op->emitOpError("nc applies to global loads");
  if (other && other.getType() != elementType)
    return op->emitOpError("other has type ")
           << other.getType() << ", the elements are " << elementType;
  return success();
}

/// `rows` (a gather or scatter) names the tensor row of each row of a full
/// fragment `frag` of a global tensor: an i32 rows fragment of its shape
/// and layout.
LogicalResult verifyRowNumbers(Operation *op, Value rows, FragType frag,
                               Type memory) {
  if (!rows)
    return success();
  if (!isa<GlobalType>(memory))
    return op->emitOpError("rows gathers or scatters the rows of a global "
                           "tensor, got ")
           << memory;
  if (frag.isBroadcast())
    return op->emitOpError("rows picks the tensor row of each row of a full "
                           "fragment, got ")
           << frag;
  auto expected = FragType::get(op->getContext(), frag.getShape(),
                                IntegerType::get(op->getContext(), 32),
                                frag.getLayout(), FragBroadcast::rows);
  if (rows.getType() != expected)
    return op->emitOpError("rows must be ")
           << expected << " (one i32 row number per row), got "
           << rows.getType();
  return success();
}

} // namespace

int64_t mlir::tile::getFragmentAccessWidth(FragType frag, int64_t maxWidth) {
  return tilec::fragmentAccessWidth(frag.getSupportShape(),
                                    frag.getSupportBroadcast(),
                                    static_cast<uint32_t>(maxWidth));
}

LogicalResult LoadOp::verify() {
  Type source = getSource().getType();
  Type elementType = getMemoryShape(source).elementType;
  if (getType() != elementType)
    return emitOpError("result type ")
           << getType() << " differs from the source's element type "
           << elementType;
  if (failed(verifyGlobalOnly(*this, source, getOther(), getNc(), elementType)))
    return failure();
  if (auto order = getOrder()) {
    if (!isa<GlobalType>(source))
      return emitOpError("an ordered load reads global memory (shared-memory "
                         "loads are ordered by barriers)");
    if (*order != MemoryOrder::relaxed && *order != MemoryOrder::acquire)
      return emitOpError("a load is relaxed or acquire, got ")
             << stringifyMemoryOrder(*order);
    if (getNc())
      return emitOpError("an ordered load cannot read through the read-only "
                         "cache (nc)");
  } else if (getScope()) {
    return emitOpError("a scope needs an order (order relaxed or acquire)");
  }
  SmallVector<int64_t> ones(getIndices().size(), 1);
  return verifyAccessIndices(*this, "source", source, getIndices(), ones);
}

LogicalResult GridSyncOp::verify() {
  auto global = cast<GlobalType>(getCounter().getType());
  if (!global.getElementType().isSignlessInteger(32))
    return emitOpError("the counter is an i32 element, got ")
           << global.getElementType();
  if (auto kernel = (*this)->getParentOfType<KernelOp>();
      kernel && kernel.getGrid() != GridPolicy::persistent)
    return emitOpError("a grid sync needs a persistent grid (every CTA "
                       "resident at once), got ")
           << stringifyGridPolicy(kernel.getGrid());
  SmallVector<int64_t> ones(getIndices().size(), 1);
  return verifyAccessIndices(*this, "counter", global, getIndices(), ones);
}

LogicalResult AtomicOp::verify() {
  auto global = cast<GlobalType>(getDest().getType());
  Type elementType = global.getElementType();
  // The value is i32 or f32 (ODS), so the elements must be too.
  if (getValue().getType() != elementType)
    return emitOpError("value type ")
           << getValue().getType() << " differs from the tensor's element type "
           << elementType;
  if (elementType.isF32() && getKind() != AtomicKind::add &&
      getKind() != AtomicKind::exch)
    return emitOpError("an f32 atomic is add or exch, got ")
           << stringifyAtomicKind(getKind());
  SmallVector<int64_t> ones(getIndices().size(), 1);
  return verifyAccessIndices(*this, "destination", global, getIndices(), ones);
}

LogicalResult StoreOp::verify() {
  Type dest = getDest().getType();
  Type elementType = getMemoryShape(dest).elementType;
  if (getValue().getType() != elementType)
    return emitOpError("value type ")
           << getValue().getType() << " differs from the destination's "
           << "element type " << elementType;
  SmallVector<int64_t> ones(getIndices().size(), 1);
  return verifyAccessIndices(*this, "destination", dest, getIndices(), ones);
}

LogicalResult FragLoadOp::verify() {
  Type source = getSource().getType();
  auto frag = cast<FragType>(getType());
  MemoryShape memory = getMemoryShape(source);
  if (frag.getElementType() != memory.elementType)
    return emitOpError("fragment element type ")
           << frag.getElementType() << " differs from the source's "
           << memory.elementType;
  if (!frag.isBroadcast() && memory.shape.size() < 2)
    return emitOpError("a full fragment reads a 2-D tile: the source needs "
                       "rank 2 or more, got ")
           << memory.shape.size();
  if (failed(verifyGlobalOnly(*this, source, getOther(), getNc(),
                              memory.elementType)) ||
      failed(verifyRowNumbers(*this, getRows(), frag, source)) ||
      failed(verifyVectorWidth(*this, getVector(), frag)))
    return failure();
  return verifyAccessIndices(*this, "source", source, getIndices(),
                             fragmentExtents(source, frag));
}

LogicalResult FragStoreGlobalOp::verify() {
  auto frag = cast<FragType>(getValue().getType());
  auto global = cast<GlobalType>(getDst().getType());
  if (frag.getElementType() != global.getElementType())
    return emitOpError("fragment element type ")
           << frag.getElementType() << " differs from the tensor's "
           << global.getElementType();
  if (getLines()) {
    if (getRows())
      return emitOpError("lines writes along the last dimension; rows "
                         "scatters the rows of a full fragment: not both");
    if (!frag.isBroadcast())
      return emitOpError("lines writes a rows or cols fragment's values "
                         "along the last dimension, got ")
             << frag;
    if (failed(verifyVectorWidth(*this, getVector(), frag)) ||
        failed(verifyAccessIndices(*this, "destination", global, getIndices(),
                                   fragmentExtents(global, frag))))
      return failure();
    return verifySettled(*this, getValue());
  }
  if (global.getRank() < 2)
    return emitOpError("destination must have rank 2 or more (the tile's "
                       "rows and columns), got ")
           << global.getRank();
  FragType full = frag.withBroadcast(FragBroadcast::none);
  if (failed(verifyRowNumbers(*this, getRows(), frag, global)) ||
      failed(verifyVectorWidth(*this, getVector(), full)) ||
      failed(verifyAccessIndices(*this, "destination", global, getIndices(),
                                 fragmentExtents(global, full))))
    return failure();
  return verifySettled(*this, getValue());
}

//===- AllocateSharedMemory.cpp - one dynamic shared-memory pool ---------===//

#include "lib/Transforms/Passes.h"

#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "tile-allocate-smem"

#include "llvm/Support/MathExtras.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEALLOCATESHAREDMEMORY
#include "lib/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

struct AllocateSharedMemoryPass
    : public tile::impl::TileAllocateSharedMemoryBase<
          AllocateSharedMemoryPass> {
  void runOnOperation() override {
    if (failed(allocate(getOperation())))
      signalPassFailure();
  }

  LogicalResult allocate(KernelOp kernel) {
    Builder b(kernel.getContext());
    SmallVector<SmemAllocOp> buffers;
    SmallVector<Operation *> small; // barriers and the tmem address slot
    kernel.walk([&](Operation *op) {
      if (auto alloc = dyn_cast<SmemAllocOp>(op))
        buffers.push_back(alloc);
      else if (isa<BarrierAllocOp, TmemAllocOp>(op))
        small.push_back(op);
    });
    // Largest alignment first: the swizzled buffers pack without padding.
    llvm::stable_sort(buffers, [](SmemAllocOp a, SmemAllocOp b) {
      return cast<SmemType>(a.getType()).getAlignment() >
             cast<SmemType>(b.getType()).getAlignment();
    });
    int64_t offset = 0;
    for (SmemAllocOp alloc : buffers) {
      auto type = cast<SmemType>(alloc.getType());
      offset = llvm::alignTo(offset, type.getAlignment());
      alloc.setOffsetAttr(b.getI64IntegerAttr(offset));
      LLVM_DEBUG(llvm::dbgs() << "smem " << type << " at " << offset << ", "
                              << type.getSizeInBytes() << " bytes\n");
      offset += type.getSizeInBytes();
    }
    offset = llvm::alignTo(offset, 8);
    for (Operation *op : small) {
      op->setAttr("offset", b.getI64IntegerAttr(offset));
      if (auto bar = dyn_cast<BarrierAllocOp>(op))
        offset += 8 * cast<BarrierType>(bar.getType()).getDepth();
      else
        offset += 8;
    }
    int64_t limit =
        tilec::vocab::maxDynamicSharedMemoryBytes(kernel.getVocabTarget());
    if (offset > limit) {
      InFlightDiagnostic diag =
          kernel.emitOpError("needs ")
          << offset << " bytes of shared memory, over the " << limit
          << " a CTA may use on " << kernel.getTargetName()
          << "; use fewer pipeline stages or smaller tiles";
      for (SmemAllocOp alloc : buffers)
        diag.attachNote(alloc.getLoc())
            << cast<SmemType>(alloc.getType()).getSizeInBytes()
            << " bytes here";
      return failure();
    }
    LLVM_DEBUG(llvm::dbgs() << "kernel " << kernel.getSymName() << ": "
                            << offset << " bytes of shared memory\n");
    kernel.setSmemBytesAttr(b.getI64IntegerAttr(offset));
    return success();
  }
};

} // namespace

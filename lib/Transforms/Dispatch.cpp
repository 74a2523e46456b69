//===- Dispatch.cpp - choose and check TMA / wgmma / tcgen05 -------------===//

#include "lib/Transforms/LayoutUtils.h"
#include "lib/Transforms/Passes.h"

#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "tile-dispatch"

#include "lib/Support/MmaTypes.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEDISPATCH
#include "lib/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// The kernel argument a global tensor value is, or -1.
int64_t getArgNumber(Value v) {
  if (auto arg = dyn_cast<BlockArgument>(v))
    if (isa<KernelOp>(arg.getOwner()->getParentOp()))
      return arg.getArgNumber();
  return -1;
}

struct DispatchPass : public tile::impl::TileDispatchBase<DispatchPass> {
  void runOnOperation() override {
    if (failed(dispatch(getOperation())))
      signalPassFailure();
  }

  /// Picks the instruction of every copy and gemm and records on each copy
  /// the tensor map it reads or writes; KernelOp::getAbi() collects them
  /// into the kernel's parameter list.
  LogicalResult dispatch(KernelOp kernel) {
    MLIRContext *ctx = kernel.getContext();
    bool failed = false;
    kernel.walk([&](CopyAsyncOp copy) {
      if (::mlir::failed(checkCopy(kernel, copy))) {
        failed = true;
        return;
      }
      copy.setDispatchAttr(CopyDispatchAttr::get(ctx, CopyDispatch::tma));
      SmemType smem = copy.getSmemType();
      tilec::TmaBoxPlan plan = getTmaBoxPlan(smem);
      GlobalType global = copy.getGlobalType();
      // Box dims outermost first; dimensions above the tile get extent 1.
      SmallVector<int64_t> box(global.getRank(), 1);
      box[global.getRank() - 2] = plan.BoxRows;
      box[global.getRank() - 1] = plan.BoxCols;
      copy.setTensormapAttr(TensorMapParamAttr::get(
          ctx, getArgNumber(copy.getGlobal()), box, smem.getSwizzle()));
      LLVM_DEBUG(llvm::dbgs() << "copy at " << copy.getLoc() << ": TMA with "
                              << copy.getTensormapAttr() << "\n");
    });
    kernel.walk([&](GemmAsyncOp gemm) {
      if (::mlir::failed(checkGemm(kernel, gemm)))
        failed = true;
      LLVM_DEBUG(llvm::dbgs()
                 << "gemm at " << gemm.getLoc() << ": "
                 << stringifyGemmDispatch(gemm.getDispatch()) << "\n");
    });
    return failure(failed);
  }

  LogicalResult checkCopy(KernelOp kernel, CopyAsyncOp copy) {
    if (getArgNumber(copy.getGlobal()) < 0)
      return copy.emitOpError("global operand must be a kernel argument");
    SmemType smem = copy.getSmemType();
    auto layout = getTileLayout(smem);
    if (!layout)
      return copy.emitOpError("shared tile cannot be copied by TMA: ")
             << llvm::toString(layout.takeError());
    auto plan = tilec::planTmaBoxes(*layout);
    if (!plan)
      return copy.emitOpError("shared tile cannot be copied by TMA: ")
             << llvm::toString(plan.takeError());
    GlobalType global = copy.getGlobalType();
    // Global strides are row lengths; TMA needs each a multiple of 16 bytes.
    ArrayRef<int64_t> shape = global.getShape();
    int64_t elementBytes = getElementBytes(global.getElementType());
    if (!global.isDynamicDim(global.getRank() - 1) &&
        (shape.back() * elementBytes) % 16 != 0)
      return copy.emitOpError("TMA needs rows of a multiple of 16 bytes, but "
                              "the global tensor's rows are ")
             << shape.back() << " elements (" << shape.back() * elementBytes
             << " bytes)";
    if (copy.getCtaGroup() == 2 && !kernel.isBlackwell())
      return copy.emitOpError("the 2-CTA TMA form (cta_group 2) needs sm_100a, "
                              "the kernel targets ")
             << kernel.getTargetName();
    if (copy.getMulticast() && kernel.getClusterSize() == 1)
      return copy.emitOpError("multicast needs a cluster of more than one CTA");
    return success();
  }

  LogicalResult checkGemm(KernelOp kernel, GemmAsyncOp gemm) {
    auto a = cast<SmemType>(gemm.getA().getType());
    auto elem = getVocabElementType(a.getElementType());
    if (isa<FragType>(gemm.getAcc().getType())) {
      if (kernel.isBlackwell())
        return gemm.emitOpError("wgmma needs sm_90a, the kernel targets ")
               << kernel.getTargetName();
      gemm.setDispatchAttr(
          GemmDispatchAttr::get(gemm.getContext(), GemmDispatch::wgmma));
      auto frag = cast<FragType>(gemm.getAcc().getType());
      if (llvm::Error err = tilec::checkWgmmaN(frag.getShape()[1], *elem))
        return gemm.emitOpError("wgmma cannot use this N: ")
               << llvm::toString(std::move(err));
      return success();
    }
    // Shapes and cta_group were checked by the op's verifier.
    gemm.setDispatchAttr(
        GemmDispatchAttr::get(gemm.getContext(), GemmDispatch::tcgen05));
    return success();
  }
};

} // namespace

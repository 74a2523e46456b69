//===- Dispatch.cpp - choose and check TMA / wgmma / tcgen05 -------------===//

#include "lib/Transforms/LayoutUtils.h"
#include "lib/Transforms/Passes.h"

#include "lib/Support/MmaTypes.h"
#include "lib/Support/TmaBoxes.h"

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
    getOperation().walk([&](KernelOp kernel) {
      if (failed(dispatch(kernel)))
        signalPassFailure();
    });
  }

  LogicalResult dispatch(KernelOp kernel) {
    Builder b(kernel.getContext());
    SmallVector<Attribute> params;
    // (arg, box rows, box cols, swizzle) -> index of the tensor map.
    std::map<std::tuple<int64_t, int64_t, int64_t, int64_t>, int64_t> maps;
    bool failed = false;

    kernel.walk([&](CopyAsyncOp copy) {
      if (::mlir::failed(checkCopy(kernel, copy))) {
        failed = true;
        return;
      }
      copy.setDispatchAttr(
          CopyDispatchAttr::get(b.getContext(), CopyDispatch::tma));
      SmemType smem = copy.getSmemType();
      auto plan = tilec::planTmaBoxes(*getTileLayout(smem));
      int64_t arg = getArgNumber(copy.getGlobal());
      auto key =
          std::make_tuple(arg, (int64_t)plan->BoxRows, (int64_t)plan->BoxCols,
                          getSwizzleBytes(smem.getSwizzle()));
      auto [it, inserted] = maps.try_emplace(key, (int64_t)params.size());
      if (inserted) {
        GlobalType global = copy.getGlobalType();
        // Box dims outermost first; dimensions above the tile get extent 1.
        SmallVector<int64_t> box(global.getRank(), 1);
        box[global.getRank() - 2] = plan->BoxRows;
        box[global.getRank() - 1] = plan->BoxCols;
        params.push_back(b.getDictionaryAttr({
            b.getNamedAttr("kind", b.getStringAttr("tensormap")),
            b.getNamedAttr("arg", b.getI64IntegerAttr(arg)),
            b.getNamedAttr("box", b.getDenseI64ArrayAttr(box)),
            b.getNamedAttr("swizzle", b.getI64IntegerAttr(
                                          getSwizzleBytes(smem.getSwizzle()))),
        }));
      }
      copy->setAttr("tensormap", b.getI64IntegerAttr(it->second));
    });

    kernel.walk([&](GemmAsyncOp gemm) {
      if (::mlir::failed(checkGemm(kernel, gemm)))
        failed = true;
    });
    if (failed)
      return failure();

    // Then one i32 per dynamic dimension, then the scalars, in argument order.
    for (auto [i, type] : llvm::enumerate(kernel.getArgumentTypes())) {
      auto global = dyn_cast<GlobalType>(type);
      if (!global)
        continue;
      for (unsigned d = 0; d < global.getRank(); ++d)
        if (global.isDynamicDim(d))
          params.push_back(b.getDictionaryAttr({
              b.getNamedAttr("kind", b.getStringAttr("dim")),
              b.getNamedAttr("arg", b.getI64IntegerAttr(i)),
              b.getNamedAttr("dim", b.getI64IntegerAttr(d)),
          }));
    }
    for (auto [i, type] : llvm::enumerate(kernel.getArgumentTypes()))
      if (!isa<GlobalType>(type))
        params.push_back(b.getDictionaryAttr({
            b.getNamedAttr("kind", b.getStringAttr("scalar")),
            b.getNamedAttr("arg", b.getI64IntegerAttr(i)),
        }));
    kernel->setAttr("tile.params", b.getArrayAttr(params));
    return success();
  }

  LogicalResult checkCopy(KernelOp kernel, CopyAsyncOp copy) {
    if (getArgNumber(copy.getGlobal()) < 0)
      return copy.emitOpError("global operand must be a kernel argument");
    SmemType smem = copy.getSmemType();
    auto layout = getTileLayout(smem);
    if (!layout)
      return copy.emitOpError("shared tile cannot be copied by TMA: ")
             << layout.error();
    auto plan = tilec::planTmaBoxes(*layout);
    if (!plan)
      return copy.emitOpError("shared tile cannot be copied by TMA: ")
             << plan.error();
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
             << kernel.getTarget();
    if (copy.getMulticast() && kernel.getClusterSize() == 1)
      return copy.emitOpError("multicast needs a cluster of more than one CTA");
    return success();
  }

  LogicalResult checkGemm(KernelOp kernel, GemmAsyncOp gemm) {
    auto a = cast<SmemType>(gemm.getA().getType());
    auto elem = toElemType(a.getElementType());
    if (isa<FragType>(gemm.getAcc().getType())) {
      if (kernel.isBlackwell())
        return gemm.emitOpError("wgmma needs sm_90a, the kernel targets ")
               << kernel.getTarget();
      gemm.setDispatchAttr(
          GemmDispatchAttr::get(gemm.getContext(), GemmDispatch::wgmma));
      auto frag = cast<FragType>(gemm.getAcc().getType());
      if (auto err = tilec::checkWgmmaN(frag.getShape()[1], *elem))
        return gemm.emitOpError("wgmma cannot use this N: ") << *err;
      return success();
    }
    // Shapes and cta_group were checked by the op's verifier.
    gemm.setDispatchAttr(
        GemmDispatchAttr::get(gemm.getContext(), GemmDispatch::tcgen05));
    return success();
  }
};

} // namespace

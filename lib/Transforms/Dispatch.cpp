//===- Dispatch.cpp - choose and check TMA / wgmma / tcgen05 -------------===//

#include "lib/Transforms/LayoutUtils.h"
#include "lib/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/Debug.h"

#include <numeric>

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
      if (copy.getGlobalType().getRank() == 1) {
        if (::mlir::failed(dispatchVectorCopy(kernel, copy)))
          failed = true;
        return;
      }
      if (copy.getDispatch() == CopyDispatch::bulk) {
        copy.emitOpError("a bulk copy moves a 1-D tile of a rank-1 tensor; "
                         "this tensor has rank ")
            << copy.getGlobalType().getRank() << ": use dispatch = tma";
        failed = true;
        return;
      }
      if (::mlir::failed(checkCopy(kernel, copy))) {
        failed = true;
        return;
      }
      copy.setDispatchAttr(CopyDispatchAttr::get(ctx, CopyDispatch::tma));
      SmemType smem = copy.getSmemType();
      tilec::TmaBoxPlan plan = getCopyBoxPlan(copy);
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
    dispatchRegisterAccesses(kernel);
    kernel.walk([&](GemmAsyncOp gemm) {
      if (::mlir::failed(checkGemm(kernel, gemm)))
        failed = true;
      LLVM_DEBUG(llvm::dbgs()
                 << "gemm at " << gemm.getLoc() << ": "
                 << stringifyGemmDispatch(gemm.getDispatch()) << "\n");
    });
    return failure(failed);
  }

  /// A rank-1 tile: one 1-D TMA box where a tensor map can serve (at most
  /// 256 elements), else a bulk copy (cp.async.bulk: a multiple of 16 bytes
  /// between 16-byte-aligned addresses, guarded at the tensor's end).
  LogicalResult dispatchVectorCopy(KernelOp kernel, CopyAsyncOp copy) {
    if (getArgNumber(copy.getGlobal()) < 0)
      return copy.emitOpError("global operand must be a kernel argument");
    SmemType smem = copy.getSmemType();
    int64_t elements = smem.getShape().back();
    int64_t bytes = elements * smem.getElementBytes();
    if (bytes % 16 != 0)
      return copy.emitOpError("a 1-D copy moves a multiple of 16 bytes, but "
                              "the tile is ")
             << elements << " elements (" << bytes << " bytes)";
    if (copy.getCtaGroup() != 1)
      return copy.emitOpError("a 1-D copy has no 2-CTA form (cta_group 2)");
    CopyDispatch asked = copy.getDispatch();
    bool boxFits = elements <= tilec::MaxTmaBoxDim;
    // A TMA copy writes 128-byte-aligned shared memory: each tile of a
    // stack of them must be too.
    bool tilesAligned = smem.getRank() == 1 || bytes % 128 == 0;
    if (asked == CopyDispatch::tma && !boxFits)
      return copy.emitOpError("a 1-D TMA box holds at most 256 elements, the "
                              "tile has ")
             << elements << "; use dispatch = bulk (or auto)";
    if (asked == CopyDispatch::tma && !tilesAligned)
      return copy.emitOpError("a 1-D TMA copy writes 128-byte-aligned shared "
                              "memory, but the tiles of the buffer are ")
             << bytes << " bytes apart; use dispatch = bulk (or auto)";
    if (asked == CopyDispatch::tma ||
        (asked == CopyDispatch::auto_ && boxFits && tilesAligned)) {
      if (copy.getMulticast() && kernel.getClusterSize() == 1)
        return copy.emitOpError(
            "multicast needs a cluster of more than one CTA");
      MLIRContext *ctx = copy.getContext();
      copy.setDispatchAttr(CopyDispatchAttr::get(ctx, CopyDispatch::tma));
      copy.setTensormapAttr(TensorMapParamAttr::get(
          ctx, getArgNumber(copy.getGlobal()), {elements}, Swizzle::none));
      return success();
    }
    if (!copy.isLoad())
      return copy.emitOpError("a bulk copy to global memory could write past "
                              "the tensor's end; use a tile of at most 256 "
                              "elements (a 1-D tensor map), in tiles a "
                              "multiple of 128 bytes apart");
    if (copy.getMulticast())
      return copy.emitOpError("a bulk copy of a 1-D tile does not multicast; "
                              "use a tile of at most 256 elements");
    int64_t startBytes =
        knownDivisor(copy.getGlobalIndices()[0]) * smem.getElementBytes();
    if (startBytes % 16 != 0)
      return copy.emitOpError("a bulk copy reads from a 16-byte-aligned "
                              "address, but the start index is not known to "
                              "be a multiple of ")
             << 16 / smem.getElementBytes()
             << " elements; write it as a multiple (n * 256)";
    copy.setDispatchAttr(
        CopyDispatchAttr::get(copy.getContext(), CopyDispatch::bulk));
    return success();
  }

  /// Loads into registers and guarded stores: `nc` on global loads of
  /// tensors the kernel never writes (by the ops' declared memory effects),
  /// and the widest vector each access can use: consecutive elements of the
  /// fragment's layout, at a start known to be a multiple of it, inside
  /// rows whose static length it divides. The runtime checks the rest of the
  /// alignment (KernelOp::getAbi's pointer params).
  void dispatchRegisterAccesses(KernelOp kernel) {
    llvm::SmallDenseSet<int64_t> written;
    kernel.walk([&](MemoryEffectOpInterface op) {
      SmallVector<MemoryEffects::EffectInstance> effects;
      op.getEffects(effects);
      for (const MemoryEffects::EffectInstance &effect : effects)
        if (isa<MemoryEffects::Write>(effect.getEffect()))
          if (Value value = effect.getValue())
            if (int64_t arg = getRootKernelArg(value); arg >= 0)
              written.insert(arg);
    });
    // A tensor the kernel views on a peer is written by the peers' copies
    // of the kernel, whatever this one does with it.
    kernel.walk([&](PeerViewOp view) {
      if (int64_t arg = getRootKernelArg(view.getTensor()); arg >= 0)
        written.insert(arg);
    });
    auto readOnly = [&](Value source) {
      return isa<GlobalType>(source.getType()) &&
             !written.contains(getRootKernelArg(source));
    };
    kernel.walk([&](Operation *op) {
      Builder b(op->getContext());
      if (auto load = dyn_cast<LoadOp>(op)) {
        // An ordered load reads what another thread or GPU writes.
        if (readOnly(load.getSource()) && !load.getOrder())
          load.setNc(true);
      } else if (auto load = dyn_cast<FragLoadOp>(op)) {
        if (readOnly(load.getSource()))
          load.setNc(true);
        load.setVectorAttr(b.getI64IntegerAttr(
            vectorWidth(cast<FragType>(load.getType()),
                        load.getSource().getType(), load.getIndices().back())));
      } else if (auto store = dyn_cast<FragStoreGlobalOp>(op)) {
        // A lines store moves the broadcast values, any other the full tile.
        auto frag = cast<FragType>(store.getValue().getType());
        if (!store.getLines())
          frag = frag.withBroadcast(FragBroadcast::none);
        store.setVectorAttr(b.getI64IntegerAttr(vectorWidth(
            frag, store.getDst().getType(), store.getIndices().back())));
      }
    });
  }

  /// The elements one access of `frag` in memory of `type` moves, starting
  /// at innermost index `start`: at most 16 bytes.
  static int64_t vectorWidth(FragType frag, Type type, Value start) {
    ArrayRef<int64_t> shape = isa<SmemType>(type)
                                  ? cast<SmemType>(type).getShape()
                                  : cast<GlobalType>(type).getShape();
    int64_t elementBytes = getElementBytes(frag.getElementType());
    int64_t width = getFragmentAccessWidth(frag, 16 / elementBytes);
    int64_t startDivisor = knownDivisor(start);
    while (width > 1 &&
           (startDivisor % width != 0 ||
            (!ShapedType::isDynamic(shape.back()) && shape.back() % width)))
      width /= 2;
    return width;
  }

  /// A number `v` is known to be a multiple of (from constants, products,
  /// sums and shifts); 1 when nothing is known.
  static int64_t knownDivisor(Value v, unsigned depth = 0) {
    constexpr int64_t kAny = int64_t(1) << 30;
    if (depth > 16)
      return 1;
    APInt constant;
    if (matchPattern(v, m_ConstantInt(&constant))) {
      int64_t c = std::abs(constant.getSExtValue());
      return c == 0 ? kAny : std::min(c, kAny);
    }
    Operation *def = v.getDefiningOp();
    if (!def)
      return 1;
    if (isa<arith::MulIOp>(def))
      return std::min(kAny, knownDivisor(def->getOperand(0), depth + 1) *
                                knownDivisor(def->getOperand(1), depth + 1));
    if (isa<arith::AddIOp, arith::SubIOp>(def))
      return std::gcd(knownDivisor(def->getOperand(0), depth + 1),
                      knownDivisor(def->getOperand(1), depth + 1));
    if (isa<arith::ShLIOp>(def) &&
        matchPattern(def->getOperand(1), m_ConstantInt(&constant)) &&
        constant.getZExtValue() < 30)
      return std::min(kAny, knownDivisor(def->getOperand(0), depth + 1)
                                << constant.getZExtValue());
    return 1;
  }

  LogicalResult checkCopy(KernelOp kernel, CopyAsyncOp copy) {
    if (getArgNumber(copy.getGlobal()) < 0)
      return copy.emitOpError("global operand must be a kernel argument");
    auto plan = planCopyBoxes(copy);
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

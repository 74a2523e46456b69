//===- ConvertToNVVMPass.cpp - the tile -> NVVM conversion pass -----------===//

#include "lib/Conversion/TileToNVVM/Common.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILECONVERTTONVVM
#include "lib/Conversion/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::lowering;

namespace {

/// Copies the tensor-memory slot of the allocation onto the ops that read it,
/// so that their patterns need not chase the replaced allocation.
void annotateTmemUsers(ModuleOp module) {
  module.walk([](Operation *op) {
    if (!isa<TmemAddressOp, TmemDeallocOp>(op))
      return;
    Value tmem = op->getOperand(0);
    if (auto read = tmem.getDefiningOp<TmemAddressOp>())
      tmem = read.getTmem();
    if (auto alloc = tmem.getDefiningOp<TmemAllocOp>()) {
      op->setAttr("offset", alloc.getOffsetAttr());
      op->setAttr("cta_group", alloc.getCtaGroupAttr());
    }
  });
}

struct ConvertToNVVMPass
    : public tile::impl::TileConvertToNVVMBase<ConvertToNVVMPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    // The kernel's parameters are the tensor maps tile-dispatch puts on
    // the copies (KernelOp::getAbi).
    WalkResult undispatched = module.walk([](CopyAsyncOp copy) {
      if (copy.getTensormapAttr())
        return WalkResult::advance();
      copy.emitOpError("has no tensor map; run tile-dispatch first");
      return WalkResult::interrupt();
    });
    if (undispatched.wasInterrupted())
      return signalPassFailure();
    annotateTmemUsers(module);

    LowerToLLVMOptions options(ctx);
    LLVMTypeConverter converter(ctx, options);
    populateTileToNVVMTypeConversions(converter);
    RewritePatternSet patterns(ctx);
    populateTileToNVVMConversionPatterns(converter, patterns);

    ConversionTarget target(*ctx);
    target.addIllegalDialect<TileDialect>();
    target.addLegalDialect<LLVM::LLVMDialect, NVVM::NVVMDialect,
                           arith::ArithDialect>();
    target.addLegalOp<UnrealizedConversionCastOp>();
    scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                         target);
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      return signalPassFailure();

    // The placeholders for global tensors have no users left.
    module.walk([](UnrealizedConversionCastOp cast) {
      if (cast->hasAttr(kGlobalArgAttr) && cast->use_empty())
        cast.erase();
    });
  }
};

} // namespace

void mlir::tile::populateTileToNVVMTypeConversions(
    LLVMTypeConverter &converter) {
  MLIRContext *ctx = &converter.getContext();
  // A fragment is one SSA value per element each thread holds: scalars cross
  // loops and branches as separate registers.
  converter.addConversion(
      [](FragType type, SmallVectorImpl<Type> &results) -> LogicalResult {
        results.append(type.getElementsPerThread(), type.getElementType());
        return success();
      });
  converter.addConversion([ctx](SmemType) -> Type {
    return LLVM::LLVMPointerType::get(ctx, kSharedSpace);
  });
  converter.addConversion([ctx](BarrierType type) -> Type {
    return LLVM::LLVMPointerType::get(
        ctx, type.getRemote() ? kSharedClusterSpace : kSharedSpace);
  });
  converter.addConversion(
      [ctx](TmemType) -> Type { return IntegerType::get(ctx, 32); });
  converter.addConversion([](GlobalType type) -> Type { return type; });
}

void mlir::tile::populateTileToNVVMConversionPatterns(
    LLVMTypeConverter &converter, RewritePatternSet &patterns) {
  populateTileKernelSignatureToNVVMPatterns(converter, patterns);
  populateTileIdsToNVVMPatterns(converter, patterns);
  populateTileBarriersToNVVMPatterns(converter, patterns);
  populateTileCopiesToNVVMPatterns(converter, patterns);
  populateTileWgmmaToNVVMPatterns(converter, patterns);
  populateTileTcgen05ToNVVMPatterns(converter, patterns);
  populateTileFragmentsToNVVMPatterns(converter, patterns);
  populateTileSyncsToNVVMPatterns(converter, patterns);
}

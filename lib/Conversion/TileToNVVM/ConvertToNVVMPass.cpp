//===- ConvertToNVVMPass.cpp - the tile -> NVVM conversion pass -----------===//

#include "lib/Conversion/TileToNVVM/Common.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"

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

/// The verifiers and tile-dispatch have accepted the kernel when it gets
/// here, so an error inside the conversion -- a pattern that fails, an op
/// left unconverted, invalid IR a pattern built -- is a bug in tilec, not in
/// the kernel. This catches those errors and reports each as an internal
/// compiler error that names the tile op at its location, with the original
/// message as a note.
class InternalErrorReporter {
public:
  explicit InternalErrorReporter(ModuleOp module) {
    // The ops the patterns build carry the location of the tile op they
    // lower; remember which op that was.
    module.walk([&](Operation *op) {
      if (isa<TileDialect>(op->getDialect()))
        tileOps.try_emplace(op->getLoc(), op->getName().getStringRef());
    });
    handler.emplace(module.getContext(), [this](Diagnostic &diag) {
      if (diag.getSeverity() != DiagnosticSeverity::Error)
        return failure(); // warnings and remarks pass through
      // One report per op: a pattern's error and the failed legalization
      // that follows it are two notes of it.
      auto *caught = llvm::find_if(
          errors, [&](const Caught &c) { return c.loc == diag.getLocation(); });
      if (caught == errors.end())
        caught = &errors.emplace_back(Caught{diag.getLocation(), {}});
      caught->notes.push_back({diag.getLocation(), diag.str()});
      for (Diagnostic &note : diag.getNotes())
        caught->notes.push_back({note.getLocation(), note.str()});
      return success();
    });
  }

  /// Stops catching and reports what was caught.
  void report(MLIRContext *ctx) {
    handler.reset();
    for (const Caught &caught : errors) {
      auto known = tileOps.find(caught.loc);
      std::string what = known == tileOps.end()
                             ? std::string("the operation here")
                             : "'" + known->second.str() + "'";
      InFlightDiagnostic diag =
          emitError(caught.loc)
          << "internal compiler error: tile-convert-to-nvvm could not lower "
          << what << "; this is a bug in tilec, not in the kernel";
      for (const auto &[loc, note] : caught.notes)
        diag.attachNote(loc) << note;
    }
    if (errors.empty())
      emitError(UnknownLoc::get(ctx))
          << "internal compiler error: tile-convert-to-nvvm failed without "
             "a message";
  }

private:
  struct Caught {
    Location loc;
    SmallVector<std::pair<Location, std::string>> notes;
  };
  SmallVector<Caught> errors;
  llvm::DenseMap<Location, StringRef> tileOps;
  std::optional<ScopedDiagnosticHandler> handler;
};

struct ConvertToNVVMPass
    : public tile::impl::TileConvertToNVVMBase<ConvertToNVVMPass> {
  using TileConvertToNVVMBase::TileConvertToNVVMBase;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    // The kernel's parameters are the tensor maps tile-dispatch puts on
    // the copies (KernelOp::getAbi).
    WalkResult undispatched = module.walk([](CopyAsyncOp copy) {
      if (copy.getTensormapAttr() || copy.getDispatch() == CopyDispatch::bulk)
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
    // Verified here, inside the reporter, so that invalid IR from a pattern
    // is reported as the compiler's error, not at the kernel's line as if
    // it were the author's.
    InternalErrorReporter reporter(module);
    if (failed(applyPartialConversion(module, target, std::move(patterns))) ||
        (verifyResult && failed(verify(module)))) {
      reporter.report(ctx);
      return signalPassFailure();
    }

    // The --debug-hangs report buffers become static stack slots: allocas
    // in the entry block (with their size constant), not dynamic ones.
    module.walk([](LLVM::AllocaOp alloca) {
      if (!alloca->hasAttr(kHangBufferAttr))
        return;
      alloca->removeAttr(kHangBufferAttr);
      auto fn = alloca->getParentOfType<LLVM::LLVMFuncOp>();
      if (!fn || fn.getBody().empty())
        return;
      Block &entry = fn.getBody().front();
      Operation *size = alloca.getArraySize().getDefiningOp();
      if (size && size->hasOneUse())
        size->moveBefore(&entry, entry.begin());
      if (!size || size->getBlock() == &entry)
        alloca->moveAfter(size ? size : &entry.front());
    });

    // The placeholders for global tensors and their peer views have no
    // users left (the views first: they use the placeholders).
    SmallVector<UnrealizedConversionCastOp> views, placeholders;
    module.walk([&](UnrealizedConversionCastOp cast) {
      if (cast->hasAttr(kPeerViewAttr))
        views.push_back(cast);
      else if (cast->hasAttr(kGlobalArgAttr))
        placeholders.push_back(cast);
    });
    // Views of views: the later ones (the users) go first.
    for (UnrealizedConversionCastOp cast : llvm::reverse(views))
      if (cast->use_empty())
        cast.erase();
    for (UnrealizedConversionCastOp cast : placeholders)
      if (cast->use_empty())
        cast.erase();
  }
};

} // namespace

void mlir::tile::populateTileToNVVMTypeConversions(
    LLVMTypeConverter &converter) {
  MLIRContext *ctx = &converter.getContext();
  // A fragment is one SSA value per element each thread holds: scalars cross
  // loops and branches as separate registers.
  // The element type converts as a scalar would (fp8 becomes i8).
  converter.addConversion(
      [&converter](FragType type,
                   SmallVectorImpl<Type> &results) -> LogicalResult {
        Type element = converter.convertType(type.getElementType());
        if (!element)
          return failure();
        results.append(type.getElementsPerThread(), element);
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
  populateTileFragmentMathToNVVMPatterns(converter, patterns);
  populateTileSyncsToNVVMPatterns(converter, patterns);
  populateTileLoadsToNVVMPatterns(converter, patterns);
}

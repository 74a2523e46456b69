//===- KernelSignature.cpp - tile.kernel -> llvm.func kernel --------------===//
//
// The kernel's parameters follow its ABI (KernelOp::getAbi): tensor maps
// passed by value, then global pointers, then the dynamic dims, then the
// pointers' strides, then the scalars. The body
// moves into the llvm.func through a signature conversion: scalar arguments
// map to their parameter; a global tensor argument maps to a placeholder
// (an unrealized cast carrying `tile.arg`) that the dim and copy patterns
// resolve to their tensor-map / dim parameters.
//
//===----------------------------------------------------------------------===//

#include "lib/Conversion/TileToNVVM/Common.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::lowering;

namespace {

/// The attributes of a tensor-map parameter: by value (never a pointer into
/// global memory), 64-byte aligned, grid constant; \p maps of them in a row
/// for a tensor list.
DictionaryAttr tensorMapArgAttrs(Builder &b, int64_t maps) {
  return b.getDictionaryAttr({
      b.getNamedAttr(
          LLVM::LLVMDialect::getByValAttrName(),
          TypeAttr::get(LLVM::LLVMArrayType::get(b.getI8Type(), 128 * maps))),
      b.getNamedAttr(LLVM::LLVMDialect::getAlignAttrName(),
                     b.getI64IntegerAttr(64)),
      b.getNamedAttr(NVVM::NVVMDialect::getGridConstantAttrName(),
                     b.getUnitAttr()),
  });
}

/// Launch bounds for ptxas and the kernel's ABI for the bundle writer.
void setKernelAttrs(LLVM::LLVMFuncOp func, KernelOp kernel, KernelAbiAttr abi,
                    Builder &b) {
  int32_t threads = static_cast<int32_t>(kernel.getNumThreads());
  func->setAttr(NVVM::NVVMDialect::getKernelFuncAttrName(), b.getUnitAttr());
  func->setAttr(NVVM::NVVMDialect::getReqntidAttrName(),
                b.getDenseI32ArrayAttr({threads, 1, 1}));
  func->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(),
                b.getI32IntegerAttr(1));
  ArrayRef<int64_t> cluster = kernel.getCluster();
  if (kernel.getClusterSize() > 1)
    func->setAttr(
        NVVM::NVVMDialect::getClusterDimAttrName(),
        b.getDenseI32ArrayAttr(
            {(int32_t)cluster[0], (int32_t)cluster[1], (int32_t)cluster[2]}));
  kernel.getContext()
      ->getLoadedDialect<TileDialect>()
      ->getKernelAbiAttrHelper()
      .setAttr(func, abi);
}

/// Thread 0 brings each tensor map into the SM's descriptor cache at entry
/// (prefetch.param.tensormap), as DeepGEMM's kernels do: the first copy
/// through a map then does not wait for its 128 bytes to be fetched, which
/// it would otherwise do behind the schedule's first loads. (A generic
/// pointer to the by-value parameter made LLVM's NVPTX back end emit each
/// prefetch twice, through the parameter and through its generic address.)
/// A tensor list's maps are not: most of its slots may be empty.
void prefetchTensorMaps(ConversionPatternRewriter &rewriter, Location loc,
                        KernelAbiAttr abi, ArrayRef<Type> argTypes,
                        Block *entry) {
  SmallVector<Value> maps;
  for (auto [i, param] : llvm::enumerate(abi.getParams()))
    if (auto map = dyn_cast<TensorMapParamAttr>(param);
        map && !cast<GlobalType>(argTypes[map.getArg()]).isList())
      maps.push_back(entry->getArgument(i));
  if (maps.empty())
    return;
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToStart(entry);
  Value isFirst = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                        threadIdx(rewriter, loc),
                                        i32Const(rewriter, loc, 0));
  auto ifOp = scf::IfOp::create(rewriter, loc, isFirst, false);
  rewriter.setInsertionPointToStart(ifOp.thenBlock());
  for (Value map : maps)
    NVVM::PrefetchOp::create(rewriter, loc, /*cacheLevel=*/nullptr,
                             /*evictPriority=*/nullptr, map,
                             /*predicate=*/Value(), /*tensormap=*/true,
                             /*uniform=*/false, /*in_param_space=*/true);
}

/// tile.kernel -> llvm.func with the ABI's parameters, through a signature
/// conversion of the body.
LogicalResult lowerKernelSignature(KernelOp kernel, KernelOp::Adaptor,
                                   ConversionPatternRewriter &rewriter,
                                   const LLVMTypeConverter &converter) {
  KernelAbiAttr abi = kernel.getAbi();
  MLIRContext *ctx = kernel.getContext();
  Location loc = kernel.getLoc();
  ArrayRef<Type> kernelArgTypes = kernel.getArgumentTypes();

  // The new signature, in the ABI's parameter order.
  TypeConverter::SignatureConversion signature(kernelArgTypes.size());
  SmallVector<Attribute> argAttrs;
  for (Attribute param : abi.getParams()) {
    if (auto map = dyn_cast<TensorMapParamAttr>(param)) {
      auto global = cast<GlobalType>(kernelArgTypes[map.getArg()]);
      signature.addInputs(LLVM::LLVMPointerType::get(ctx));
      argAttrs.push_back(tensorMapArgAttrs(
          rewriter, global.isList() ? global.getListCapacity() : 1));
    } else if (isa<DimParamAttr>(param)) {
      signature.addInputs(rewriter.getI32Type());
      argAttrs.push_back(rewriter.getDictionaryAttr({}));
    } else if (isa<PointerParamAttr>(param)) {
      signature.addInputs(LLVM::LLVMPointerType::get(ctx, kGlobalSpace));
      argAttrs.push_back(rewriter.getDictionaryAttr({}));
    } else if (isa<StrideParamAttr>(param)) {
      signature.addInputs(rewriter.getI64Type());
      argAttrs.push_back(rewriter.getDictionaryAttr({}));
    } else {
      int64_t arg = cast<ScalarParamAttr>(param).getArg();
      signature.addInputs(arg, kernelArgTypes[arg]);
      argAttrs.push_back(rewriter.getDictionaryAttr({}));
    }
  }
  auto funcType = LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx),
                                              signature.getConvertedTypes());
  auto func =
      LLVM::LLVMFuncOp::create(rewriter, loc, kernel.getSymName(), funcType);
  func.setArgAttrsAttr(rewriter.getArrayAttr(argAttrs));
  setKernelAttrs(func, kernel, abi, rewriter);

  rewriter.inlineRegionBefore(kernel.getBody(), func.getBody(), func.end());
  Block *body = &func.getBody().front();
  // Global tensors have no parameter of their own: a placeholder stands
  // for each until the ops using it are converted.
  rewriter.setInsertionPointToStart(body);
  for (auto [i, type] : llvm::enumerate(kernelArgTypes)) {
    if (!isa<GlobalType>(type))
      continue;
    auto placeholder =
        UnrealizedConversionCastOp::create(rewriter, loc, type, ValueRange{});
    placeholder->setAttr(kGlobalArgAttr, rewriter.getI64IntegerAttr(i));
    signature.remapInput(i, placeholder.getResult(0));
  }
  Block *entry = rewriter.applySignatureConversion(body, signature, &converter);
  prefetchTensorMaps(rewriter, loc, abi, kernelArgTypes, entry);
  rewriter.setInsertionPointToEnd(entry);
  LLVM::ReturnOp::create(rewriter, loc, ValueRange{});
  rewriter.eraseOp(kernel);
  return success();
}

} // namespace

void mlir::tile::populateTileKernelSignatureToNVVMPatterns(
    LLVMTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<OpLowering<KernelOp, lowerKernelSignature>>(converter);
}

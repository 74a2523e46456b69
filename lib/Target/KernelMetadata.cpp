//===- KernelMetadata.cpp - kernel metadata from lowered modules ---------===//

#include "lib/Target/KernelMetadata.h"

#include "dialects/Tile/TileDialect.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;
using namespace tilec;

/// The bundle's description of a kernel from its typed ABI.
static LogicalResult readKernel(LLVM::LLVMFuncOp func, tile::KernelAbiAttr abi,
                                bundle::Kernel &k,
                                bundle::L2Promotion l2Promotion) {
  k.name = func.getSymName().str();
  for (auto [i, attr] : llvm::enumerate(abi.getArgTypes())) {
    bundle::Argument arg;
    arg.name = cast<StringAttr>(abi.getArgNames()[i]).str();
    Type type = cast<TypeAttr>(attr).getValue();
    if (auto global = dyn_cast<tile::GlobalType>(type)) {
      arg.kind = global.isList() ? bundle::Argument::Kind::TensorList
                                 : bundle::Argument::Kind::Tensor;
      arg.capacity = static_cast<uint32_t>(global.getListCapacity());
      type = global.getElementType();
      for (int64_t d : global.getShape())
        arg.shape.push_back(ShapedType::isDynamic(d) ? bundle::kDynamic : d);
    } else {
      arg.kind = bundle::Argument::Kind::Scalar;
    }
    std::optional<bundle::DType> dtype = tile::getVocabElementType(type);
    if (!dtype)
      return func.emitError("argument ")
             << i << " has type " << type << ", which a bundle cannot describe";
    arg.dtype = *dtype;
    k.args.push_back(std::move(arg));
  }
  for (Attribute attr : abi.getParams()) {
    bundle::Param p;
    if (auto map = dyn_cast<tile::TensorMapParamAttr>(attr)) {
      p.kind = bundle::Param::Kind::TensorMap;
      p.arg = map.getArg();
      // A tensor list's maps have its tensors' rank: the list's dim, of box
      // 1, only picks the map.
      bool list = k.args[p.arg].isTensorList();
      for (int64_t d : map.getBox().drop_front(list ? 1 : 0))
        p.tensorMap.box.push_back(d);
      p.tensorMap.elementStrides.assign(p.tensorMap.box.size(), 1);
      p.tensorMap.swizzle = tile::toVocabSwizzle(map.getSwizzle());
      // One promotion for every map of the build (CompileOptions says why
      // 256 bytes by default).
      p.tensorMap.l2Promotion = l2Promotion;
    } else if (auto dim = dyn_cast<tile::DimParamAttr>(attr)) {
      p.kind = bundle::Param::Kind::Dim;
      p.arg = dim.getArg();
      p.dim = dim.getDim();
    } else if (auto pointer = dyn_cast<tile::PointerParamAttr>(attr)) {
      p.kind = bundle::Param::Kind::Pointer;
      p.arg = pointer.getArg();
      p.align = static_cast<uint32_t>(pointer.getAlign());
    } else if (auto stride = dyn_cast<tile::StrideParamAttr>(attr)) {
      p.kind = bundle::Param::Kind::Stride;
      p.arg = stride.getArg();
      p.dim = stride.getDim();
    } else {
      p.kind = bundle::Param::Kind::Scalar;
      p.arg = cast<tile::ScalarParamAttr>(attr).getArg();
    }
    k.params.push_back(std::move(p));
  }
  k.block = {static_cast<uint32_t>(abi.getThreads()), 1, 1};
  ArrayRef<int64_t> cluster = abi.getCluster().asArrayRef();
  for (unsigned i = 0; i < 3; ++i)
    k.cluster[i] = static_cast<uint32_t>(cluster[i]);
  k.dynamicSharedBytes = static_cast<uint32_t>(abi.getSmemBytes());
  if (abi.getGrid() == tile::GridPolicy::persistent) {
    k.grid.kind = bundle::GridPolicy::Kind::Persistent;
  } else {
    k.grid.kind = bundle::GridPolicy::Kind::Fixed;
    for (auto [i, axis] :
         llvm::enumerate(abi.getGridAxes().getAsRange<tile::GridAxisAttr>()))
      k.grid.axes[i] = axis.isConstant()
                           ? bundle::GridAxis::constant(axis.getTile())
                           : bundle::GridAxis::ceilDiv(
                                 axis.getArg(), axis.getDim(), axis.getTile());
  }
  return success();
}

LogicalResult tilec::extractKernelMetadata(ModuleOp module,
                                           std::vector<bundle::Kernel> &kernels,
                                           bundle::L2Promotion l2Promotion) {
  bool failed = false;
  auto abiHelper = module.getContext()
                       ->getLoadedDialect<tile::TileDialect>()
                       ->getKernelAbiAttrHelper();
  module.walk([&](LLVM::LLVMFuncOp func) {
    tile::KernelAbiAttr abi = abiHelper.getAttr(func);
    if (!abi)
      return;
    bundle::Kernel k;
    if (::mlir::failed(readKernel(func, abi, k, l2Promotion)))
      failed = true;
    kernels.push_back(std::move(k));
    // The ABI has no meaning to LLVM: drop it before translation.
    abiHelper.removeAttr(func);
  });
  return failure(failed);
}

//===- KernelMetadata.cpp - kernel metadata from lowered modules ---------===//

#include "lib/Target/KernelMetadata.h"

#include "dialects/Tile/TileDialect.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;
using namespace tilec;

static std::optional<bundle::DType> toDType(Type type) {
  if (type.isF16())
    return bundle::DType::F16;
  if (type.isBF16())
    return bundle::DType::BF16;
  if (type.isF32())
    return bundle::DType::F32;
  if (type.isF64())
    return bundle::DType::F64;
  if (isa<Float8E4M3FNType>(type))
    return bundle::DType::E4M3;
  if (isa<Float8E5M2Type>(type))
    return bundle::DType::E5M2;
  if (type.isUnsignedInteger(8))
    return bundle::DType::U8;
  if (type.isUnsignedInteger(32))
    return bundle::DType::U32;
  if (type.isInteger(8))
    return bundle::DType::I8;
  if (type.isInteger(16))
    return bundle::DType::I16;
  if (type.isInteger(32))
    return bundle::DType::I32;
  if (type.isInteger(64))
    return bundle::DType::I64;
  return std::nullopt;
}

static LogicalResult readKernel(LLVM::LLVMFuncOp func, bundle::Kernel &k) {
  k.name = func.getSymName().str();
  auto argTypes = func->getAttrOfType<ArrayAttr>("tile.arg_types");
  auto argAttrs = func->getAttrOfType<ArrayAttr>("tile.arg_attrs");
  for (auto [i, attr] : llvm::enumerate(argTypes.getAsRange<TypeAttr>())) {
    bundle::Argument arg;
    arg.name = "arg" + std::to_string(i);
    if (argAttrs && i < argAttrs.size())
      if (auto dict = dyn_cast<DictionaryAttr>(argAttrs[i]))
        if (auto name = dict.getAs<StringAttr>("tile.name"))
          arg.name = name.str();
    Type type = attr.getValue();
    if (auto global = dyn_cast<tile::GlobalType>(type)) {
      arg.kind = bundle::Argument::Kind::Tensor;
      type = global.getElementType();
      for (int64_t d : global.getShape())
        arg.shape.push_back(ShapedType::isDynamic(d) ? bundle::kDynamic : d);
    } else {
      arg.kind = bundle::Argument::Kind::Scalar;
    }
    auto dtype = toDType(type);
    if (!dtype)
      return func.emitError("argument ")
             << i << " has type " << type << ", which a bundle cannot describe";
    arg.dtype = *dtype;
    k.args.push_back(std::move(arg));
  }
  auto params = func->getAttrOfType<ArrayAttr>("tile.params");
  for (auto dict : params.getAsRange<DictionaryAttr>()) {
    bundle::Param p;
    StringRef kind = dict.getAs<StringAttr>("kind").getValue();
    p.arg = dict.getAs<IntegerAttr>("arg").getInt();
    if (kind == "tensormap") {
      p.kind = bundle::Param::Kind::TensorMap;
      for (int64_t d : dict.getAs<DenseI64ArrayAttr>("box").asArrayRef())
        p.tensorMap.box.push_back(d);
      p.tensorMap.elementStrides.assign(p.tensorMap.box.size(), 1);
      int64_t swizzleBytes = dict.getAs<IntegerAttr>("swizzle").getInt();
      std::optional<vocab::Swizzle> swizzle =
          vocab::swizzleFromBytes(swizzleBytes);
      if (!swizzle)
        return func.emitError("tensor map parameter has a swizzle of ")
               << swizzleBytes << " bytes (expected 0, 32, 64 or 128)";
      p.tensorMap.swizzle = *swizzle;
      // Promoting 128-byte lines into L2 suits tile loads (CUTLASS's choice).
      p.tensorMap.l2Promotion = bundle::L2Promotion::B128;
    } else if (kind == "dim") {
      p.kind = bundle::Param::Kind::Dim;
      p.dim = dict.getAs<IntegerAttr>("dim").getInt();
    } else {
      p.kind = bundle::Param::Kind::Scalar;
    }
    k.params.push_back(std::move(p));
  }
  auto threads = func->getAttrOfType<IntegerAttr>("tile.threads");
  k.block = {static_cast<uint32_t>(threads.getInt()), 1, 1};
  auto cluster = func->getAttrOfType<DenseI64ArrayAttr>("tile.cluster");
  for (unsigned i = 0; i < 3; ++i)
    k.cluster[i] = static_cast<uint32_t>(cluster[i]);
  k.dynamicSharedBytes = static_cast<uint32_t>(
      func->getAttrOfType<IntegerAttr>("tile.smem_bytes").getInt());
  auto grid = func->getAttrOfType<tile::GridPolicyAttr>("tile.grid");
  if (grid.getValue() == tile::GridPolicy::persistent) {
    k.grid.kind = bundle::GridPolicy::Kind::Persistent;
  } else {
    k.grid.kind = bundle::GridPolicy::Kind::Fixed;
    auto axes = func->getAttrOfType<ArrayAttr>("tile.grid_axes");
    for (auto [i, axis] :
         llvm::enumerate(axes.getAsRange<tile::GridAxisAttr>()))
      k.grid.axes[i] = axis.isConstant()
                           ? bundle::GridAxis::constant(axis.getTile())
                           : bundle::GridAxis::ceilDiv(
                                 axis.getArg(), axis.getDim(), axis.getTile());
  }
  return success();
}

LogicalResult
tilec::extractKernelMetadata(ModuleOp module,
                             std::vector<bundle::Kernel> &kernels) {
  bool failed = false;
  module.walk([&](LLVM::LLVMFuncOp func) {
    if (!func->hasAttr("tile.params"))
      return;
    bundle::Kernel k;
    if (::mlir::failed(readKernel(func, k)))
      failed = true;
    kernels.push_back(std::move(k));
    SmallVector<StringAttr> names;
    for (NamedAttribute attr : func->getAttrs())
      if (attr.getName().getValue().starts_with("tile."))
        names.push_back(attr.getName());
    for (StringAttr name : names)
      func->removeAttr(name);
  });
  return failure(failed);
}

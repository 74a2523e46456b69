//===- LaunchPlan.cpp - Argument checks and launch parameters -------------===//
//
// Implements buildLaunchPlan: the argument checks (dtype, rank, fixed shapes,
// the alignment and stride rules of TMA), tensor-map requests, scalar
// conversion and grid selection, and the Arg factories.
//
//===----------------------------------------------------------------------===//

#include "LaunchPlan.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

namespace tilec::rt {

using bundle::Argument;
using bundle::GridAxis;
using bundle::GridPolicy;
using bundle::Param;

namespace {

/// cuTensorMapEncodeTiled limits.
constexpr uint64_t kMaxGlobalDim = uint64_t(1) << 32;
constexpr uint64_t kMaxGlobalStrideBytes = uint64_t(1) << 40;
constexpr unsigned kTmaAlignment = 16;
/// CUDA grid limits.
constexpr uint64_t kMaxGridX = (uint64_t(1) << 31) - 1;
constexpr uint64_t kMaxGridYZ = 65535;

std::string hexAddress(uint64_t address) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "0x%llx",
                static_cast<unsigned long long>(address));
  return buffer;
}

/// The tensors of a tensor-list argument (Arg::data holds their address).
const Arg *listTensors(const Arg &list) {
  return reinterpret_cast<const Arg *>(static_cast<uintptr_t>(list.data));
}

/// Size of dim \p dim of a tensor argument; of a tensor list, dim 0 (the
/// only one the kernel sees) is its length.
int64_t argDim(const Arg &arg, uint32_t dim) {
  return arg.kind == Arg::Kind::TensorList ? int64_t(arg.rank) : arg.shape[dim];
}

/// Whether a tensor argument has a dimension of size 0 (no elements).
bool isEmpty(const Arg &tensor) {
  for (uint32_t d = 0; d < tensor.rank && d < bundle::kMaxRank; ++d)
    if (tensor.shape[d] == 0)
      return true;
  return false;
}

/// \p element >= 0: tensor \p element of tensor list \p index.
Error argError(const bundle::Kernel &kernel, size_t index, int element,
               const std::string &what) {
  return Error::make(Status::InvalidArgument,
                     describeArg(kernel, index) +
                         (element < 0 ? std::string()
                                      : ", tensor " + std::to_string(element)) +
                         ": " + what);
}

Error argError(const bundle::Kernel &kernel, size_t index,
               const std::string &what) {
  return argError(kernel, index, -1, what);
}

/// How the kernel's parameters use a tensor argument.
struct TensorUse {
  bool byTensorMap = false;
  bool byPointer = false;
  /// The widest access through the pointer, in bytes (0: one element).
  uint32_t pointerAlign = 0;
  /// A stride parameter of the innermost dim: it need not be contiguous.
  bool innerStride = false;
};

/// The rules of a tensor the kernel addresses from its pointer with
/// accesses of `align` bytes: an aligned address, a contiguous innermost
/// dim whose bytes and the other dims' strides are multiples of `align`
/// (so that no access straddles a row's end or a misaligned address).
Error checkPointerAccess(const bundle::Kernel &kernel, size_t index,
                         const Arg &arg, uint64_t align, bool innerStride) {
  uint64_t elementBytes = bundle::byteSize(arg.dtype);
  if (arg.data % align != 0)
    return argError(kernel, index,
                    "data pointer " + hexAddress(arg.data) +
                        " is not aligned to " + std::to_string(align) +
                        " bytes; the kernel accesses it " +
                        std::to_string(align) + " bytes at a time");
  uint32_t inner = arg.rank - 1;
  // Messages are built only on failure: a launch pays nothing for them.
  auto accesses = [align] {
    return "the kernel's " + std::to_string(align) + "-byte accesses";
  };
  if (!innerStride && arg.shape[inner] > 1 && arg.strides[inner] != 1)
    return argError(kernel, index,
                    "stride of dim " + std::to_string(inner) + " is " +
                        std::to_string(arg.strides[inner]) +
                        " elements; the kernel addresses it with a "
                        "contiguous innermost dim (stride 1)");
  if (uint64_t(arg.shape[inner]) * elementBytes % align != 0)
    return argError(kernel, index,
                    "dim " + std::to_string(inner) + " is " +
                        std::to_string(arg.shape[inner]) + " (" +
                        std::to_string(arg.shape[inner] * elementBytes) +
                        " bytes), not a multiple of " + accesses());
  for (uint32_t d = 0; d < inner; ++d) {
    uint64_t bytes = uint64_t(arg.strides[d]) * elementBytes;
    if (arg.shape[d] > 1 && bytes % align != 0)
      return argError(kernel, index,
                      "stride of dim " + std::to_string(d) + " is " +
                          std::to_string(arg.strides[d]) + " elements (" +
                          std::to_string(bytes) +
                          " bytes), not a multiple "
                          "of " +
                          accesses());
  }
  return Error();
}

/// Checks a tensor argument against its declaration and the rules of every
/// parameter built from it; \p element >= 0: tensor \p element of tensor
/// list \p index, declared by the list's shape without its first dim. An
/// empty tensor of a list gets no tensor map, so TMA's rules skip it.
Error checkTensor(const bundle::Kernel &kernel, size_t index, const Arg &arg,
                  TensorUse use, int element = -1) {
  const Argument &decl = kernel.args[index];
  const int64_t *declShape = decl.shape.data() + (element < 0 ? 0 : 1);
  size_t declRank = decl.shape.size() - (element < 0 ? 0 : 1);
  if (arg.kind != Arg::Kind::Tensor)
    return argError(kernel, index, element,
                    arg.kind == Arg::Kind::Scalar
                        ? "expected a tensor, got a scalar"
                        : "expected a tensor, got a tensor list");
  if (arg.dtype != decl.dtype)
    return argError(kernel, index, element,
                    "expected dtype " + std::string(toString(decl.dtype)) +
                        ", got " + std::string(toString(arg.dtype)));
  if (arg.rank != declRank)
    return argError(kernel, index, element,
                    "expected rank " + std::to_string(declRank) + ", got " +
                        std::to_string(arg.rank));
  uint64_t elementBytes = bundle::byteSize(arg.dtype);
  for (uint32_t d = 0; d < arg.rank; ++d) {
    auto dim = [d] { return "dim " + std::to_string(d); };
    if (arg.shape[d] < 0)
      return argError(kernel, index, element,
                      dim() + " is " + std::to_string(arg.shape[d]) +
                          "; sizes cannot be negative");
    if (declShape[d] != bundle::kDynamic && arg.shape[d] != declShape[d])
      return argError(kernel, index, element,
                      dim() + " is " + std::to_string(arg.shape[d]) +
                          " but the kernel was compiled for " +
                          std::to_string(declShape[d]));
    if (arg.strides[d] < 0)
      return argError(kernel, index, element,
                      "stride of " + dim() + " is " +
                          std::to_string(arg.strides[d]) +
                          " elements; strides cannot be negative");
  }
  bool empty = isEmpty(arg);
  if (!empty && arg.data == 0)
    return argError(kernel, index, element, "data pointer is null");
  if (use.byPointer && !empty && arg.data % elementBytes != 0)
    return argError(kernel, index, element,
                    "data pointer " + hexAddress(arg.data) +
                        " is not aligned to its " +
                        std::to_string(elementBytes) + "-byte elements");
  if (use.byPointer && !empty)
    if (Error error = checkPointerAccess(
            kernel, index, arg,
            std::max<uint64_t>(use.pointerAlign, elementBytes),
            use.innerStride))
      return error;
  if (!use.byTensorMap || (element >= 0 && empty))
    return Error();

  // The rules of cuTensorMapEncodeTiled, checked here so that the message
  // can name the argument and the dimension.
  if (arg.data % kTmaAlignment != 0)
    return argError(kernel, index, element,
                    "data pointer " + hexAddress(arg.data) +
                        " is not 16-byte aligned, TMA needs 16-byte alignment");
  uint32_t inner = arg.rank - 1;
  // A transposed view fails here first: its real problem is the layout, not
  // the outer strides that the transpose also makes wrong.
  if (arg.shape[inner] > 1 && arg.strides[inner] != 1)
    return argError(kernel, index, element,
                    "stride of dim " + std::to_string(inner) + " is " +
                        std::to_string(arg.strides[inner]) +
                        " elements, TMA needs the innermost dim to be "
                        "contiguous (stride 1)");
  for (uint32_t d = 0; d < arg.rank; ++d) {
    auto dim = [d] { return "dim " + std::to_string(d); };
    if (arg.shape[d] == 0)
      return argError(kernel, index, element,
                      dim() + " is 0; TMA cannot describe an empty tensor");
    if (uint64_t(arg.shape[d]) > kMaxGlobalDim)
      return argError(kernel, index, element,
                      dim() + " is " + std::to_string(arg.shape[d]) +
                          ", TMA supports at most 2^32");
    // A size-1 dimension is never stepped over, so its stride is free (as in
    // torch, where such strides are arbitrary); the request replaces it.
    if (arg.shape[d] == 1)
      continue;
    auto stride = [&arg, &dim, d] {
      return "stride of " + dim() + " is " + std::to_string(arg.strides[d]) +
             " elements";
    };
    if (d == inner) {
      if (arg.strides[d] != 1)
        return argError(kernel, index, element,
                        stride() + ", TMA needs the innermost dim to be "
                                   "contiguous (stride 1)");
      continue;
    }
    if (uint64_t(arg.strides[d]) >= kMaxGlobalStrideBytes / elementBytes)
      return argError(kernel, index, element,
                      stride() + ", TMA needs less than 2^40 bytes");
    uint64_t bytes = uint64_t(arg.strides[d]) * elementBytes;
    auto inBytes = [&stride, bytes] {
      return stride() + " (" + std::to_string(bytes) + " bytes), TMA needs ";
    };
    if (bytes == 0)
      return argError(kernel, index, element, inBytes() + "a nonzero stride");
    if (bytes % kTmaAlignment != 0)
      return argError(kernel, index, element,
                      inBytes() + "a multiple of 16 bytes");
  }
  return Error();
}

/// Checks a tensor-list argument: its length against the capacity (and a
/// static length), then each tensor as checkTensor does.
Error checkTensorList(const bundle::Kernel &kernel, size_t index,
                      const Arg &arg, TensorUse use) {
  const Argument &decl = kernel.args[index];
  if (arg.kind != Arg::Kind::TensorList)
    return argError(kernel, index,
                    std::string("expected a list of up to ") +
                        std::to_string(decl.capacity) + " tensors, got a " +
                        (arg.kind == Arg::Kind::Scalar ? "scalar" : "tensor"));
  if (arg.rank > decl.capacity)
    return argError(kernel, index,
                    "holds " + std::to_string(arg.rank) +
                        " tensors, the kernel takes at most " +
                        std::to_string(decl.capacity));
  if (decl.shape[0] != bundle::kDynamic && arg.rank != decl.shape[0])
    return argError(kernel, index,
                    "holds " + std::to_string(arg.rank) +
                        " tensors but the kernel was compiled for " +
                        std::to_string(decl.shape[0]));
  if (arg.rank != 0 && arg.data == 0)
    return argError(kernel, index, "the array of its tensors is null");
  const Arg *tensors = listTensors(arg);
  for (uint32_t e = 0; e < arg.rank; ++e)
    if (Error error = checkTensor(kernel, index, tensors[e], use, int(e)))
      return error;
  return Error();
}

/// Converts a scalar argument to the bytes of its parameter.
Error encodeScalar(const bundle::Kernel &kernel, size_t index, const Arg &arg,
                   ParamValue &value) {
  const Argument &decl = kernel.args[index];
  if (arg.kind != Arg::Kind::Scalar)
    return argError(kernel, index,
                    arg.kind == Arg::Kind::Tensor
                        ? "expected a scalar, got a tensor"
                        : "expected a scalar, got a tensor list");
  if (arg.dtype != decl.dtype)
    return argError(kernel, index,
                    "expected dtype " + std::string(toString(decl.dtype)) +
                        ", got " + std::string(toString(arg.dtype)));
  DType dtype = decl.dtype;
  value.size = bundle::byteSize(dtype);
  auto store = [&](auto typed) {
    std::memcpy(value.bytes, &typed, sizeof(typed));
    return Error();
  };
  if (bundle::isFloat(dtype)) {
    double x = arg.floatValue;
    switch (dtype) {
    case DType::F64:
      return store(x);
    case DType::F32:
    case DType::TF32:
      return store(static_cast<float>(x));
    case DType::F16:
      return store(toHalfBits(x));
    case DType::BF16:
      return store(toBFloat16Bits(x));
    default:
      return argError(kernel, index,
                      "scalars of dtype " + std::string(toString(dtype)) +
                          " are not supported");
    }
  }
  int64_t x = arg.intValue;
  // u64 takes the 64 bits as they are, so that values >= 2^63 can be passed.
  if (dtype == DType::U64 || dtype == DType::I64)
    return store(x);
  int64_t low = 0, high = 0;
  unsigned bits = 8 * value.size;
  if (bundle::isSignedInteger(dtype)) {
    low = -(int64_t(1) << (bits - 1));
    high = (int64_t(1) << (bits - 1)) - 1;
  } else {
    high = (int64_t(1) << bits) - 1;
  }
  if (x < low || x > high)
    return argError(kernel, index,
                    "value " + std::to_string(x) + " does not fit in " +
                        std::string(toString(dtype)));
  // Little-endian: the low bytes of the int64 are the narrow value.
  std::memcpy(value.bytes, &x, value.size);
  return Error();
}

TensorMapRequest makeTensorMapRequest(uint32_t paramIndex, uint32_t slot,
                                      const Param &param, const Arg &arg) {
  TensorMapRequest request;
  request.param = paramIndex;
  request.slot = slot;
  request.arg = param.arg;
  request.dtype = arg.dtype;
  request.rank = arg.rank;
  request.address = arg.data;
  request.swizzle = param.tensorMap.swizzle;
  request.oobFill = param.tensorMap.oobFill;
  request.l2Promotion = param.tensorMap.l2Promotion;
  uint64_t elementBytes = bundle::byteSize(arg.dtype);
  uint32_t rank = arg.rank;
  // Metadata and the driver order dimensions oppositely: reverse.
  uint64_t extentBytes = elementBytes; // bytes spanned by the inner dims
  for (uint32_t i = 0; i < rank; ++i) {
    uint32_t d = rank - 1 - i;
    request.globalDim[i] = static_cast<uint64_t>(arg.shape[d]);
    request.box[i] = param.tensorMap.box[d];
    request.elementStrides[i] = param.tensorMap.elementStrides.empty()
                                    ? 1
                                    : param.tensorMap.elementStrides[d];
    if (i == 0) {
      extentBytes = elementBytes * request.globalDim[0];
      continue;
    }
    uint64_t strideBytes = uint64_t(arg.strides[d]) * elementBytes;
    if (arg.shape[d] == 1) // free stride: any valid value will do
      strideBytes =
          (extentBytes + kTmaAlignment - 1) / kTmaAlignment * kTmaAlignment;
    request.globalStrides[i - 1] = strideBytes;
    extentBytes = strideBytes * request.globalDim[i];
  }
  return request;
}

uint64_t ceilDiv(uint64_t value, uint64_t divisor) {
  return (value + divisor - 1) / divisor;
}

Error computeGrid(const bundle::Kernel &kernel, const Arg *args,
                  uint32_t smCount, std::array<uint32_t, 3> &grid) {
  static const char *const kAxisNames[3] = {"x", "y", "z"};
  if (kernel.grid.kind == GridPolicy::Kind::Persistent) {
    if (smCount == 0) {
      grid = {0, 0, 0};
      return Error();
    }
    uint32_t clusterSize = kernel.clusterSize();
    uint32_t clusters = smCount / clusterSize;
    if (clusters == 0)
      return Error::make(Status::InvalidArgument,
                         "kernel '" + kernel.name + "': the device has " +
                             std::to_string(smCount) +
                             " SMs, fewer than one cluster of " +
                             std::to_string(clusterSize) + " CTAs");
    grid = {clusters * kernel.cluster[0], kernel.cluster[1], kernel.cluster[2]};
    return Error();
  }
  for (unsigned i = 0; i < 3; ++i) {
    const GridAxis &axis = kernel.grid.axes[i];
    uint64_t ctas = axis.value;
    if (axis.kind == GridAxis::Kind::CeilDiv)
      ctas = ceilDiv(static_cast<uint64_t>(argDim(args[axis.arg], axis.dim)),
                     axis.tile);
    // Whole clusters only: the extra CTAs see out-of-bounds tiles, which TMA
    // loads fill and TMA stores drop.
    ctas = ceilDiv(ctas, kernel.cluster[i]) * kernel.cluster[i];
    uint64_t limit = i == 0 ? kMaxGridX : kMaxGridYZ;
    if (ctas > limit)
      return Error::make(Status::InvalidArgument,
                         "kernel '" + kernel.name + "': grid " + kAxisNames[i] +
                             " is " + std::to_string(ctas) +
                             " CTAs, CUDA allows at most " +
                             std::to_string(limit));
    grid[i] = static_cast<uint32_t>(ctas);
  }
  return Error();
}

} // namespace

//===----------------------------------------------------------------------===//
// Arg
//===----------------------------------------------------------------------===//

Arg Arg::tensor(uint64_t data, DType dtype, uint32_t rank, const int64_t *shape,
                const int64_t *strides) {
  Arg arg;
  arg.kind = Kind::Tensor;
  arg.dtype = dtype;
  arg.data = data;
  arg.rank = rank;
  // A rank above the limit is kept as given so that the check reports it.
  for (uint32_t d = 0; d < rank && d < bundle::kMaxRank; ++d) {
    arg.shape[d] = shape[d];
    arg.strides[d] = strides[d];
  }
  return arg;
}

Arg Arg::tensor(uint64_t data, DType dtype,
                std::initializer_list<int64_t> shape,
                std::initializer_list<int64_t> strides) {
  Arg arg;
  arg.kind = Kind::Tensor;
  arg.dtype = dtype;
  arg.data = data;
  arg.rank = static_cast<uint32_t>(shape.size());
  uint32_t d = 0;
  for (int64_t size : shape)
    if (d < bundle::kMaxRank)
      arg.shape[d++] = size;
  if (strides.size() == 0) {
    int64_t contiguous = 1;
    for (uint32_t i = d; i-- > 0;) {
      arg.strides[i] = contiguous;
      contiguous *= arg.shape[i];
    }
  } else {
    // A strides list of the wrong length is a caller bug; keep what fits and
    // let the rank check speak.
    d = 0;
    for (int64_t stride : strides)
      if (d < bundle::kMaxRank)
        arg.strides[d++] = stride;
  }
  return arg;
}

Arg Arg::tensorList(const Arg *tensors, uint32_t count) {
  Arg arg;
  arg.kind = Kind::TensorList;
  arg.rank = count; // the tensors are read (and their dtypes checked) later
  arg.data = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(tensors));
  return arg;
}

Arg Arg::integer(DType dtype, int64_t value) {
  Arg arg;
  arg.kind = Kind::Scalar;
  arg.dtype = dtype;
  arg.intValue = value;
  return arg;
}

Arg Arg::floating(DType dtype, double value) {
  Arg arg = integer(dtype, 0);
  arg.floatValue = value;
  return arg;
}

std::string describeArg(const bundle::Kernel &kernel, size_t index) {
  return "argument '" + kernel.args[index].name + "' (index " +
         std::to_string(index) + ")";
}

TensorMapRequest::Key TensorMapRequest::key() const {
  Key key = {};
  key[0] = param;
  key[1] = address;
  for (unsigned i = 0; i < bundle::kMaxTensorMapRank; ++i)
    key[2 + i] = globalDim[i];
  for (unsigned i = 0; i + 1 < bundle::kMaxTensorMapRank; ++i)
    key[2 + bundle::kMaxTensorMapRank + i] = globalStrides[i];
  return key;
}

size_t TensorMapKeyHash::operator()(const TensorMapRequest::Key &key) const {
  uint64_t hash = 1469598103934665603ull; // FNV-1a
  for (uint64_t word : key) {
    hash ^= word;
    hash *= 1099511628211ull;
  }
  return static_cast<size_t>(hash);
}

Error checkArgCount(const bundle::Kernel &kernel, size_t count) {
  if (count == kernel.args.size())
    return Error();
  std::string names;
  for (const Argument &arg : kernel.args)
    names += (names.empty() ? "" : ", ") + arg.name;
  return Error::make(Status::InvalidArgument,
                     "kernel '" + kernel.name + "' takes " +
                         std::to_string(kernel.args.size()) + " arguments (" +
                         names + "), got " + std::to_string(count));
}

Error buildLaunchPlan(const bundle::Kernel &kernel, const Arg *args,
                      size_t count, uint32_t smCount, LaunchPlan &plan) {
  if (Error error = checkArgCount(kernel, count))
    return error;
  if (count && !args)
    return Error::make(Status::InvalidValue, "the argument array is null");
  // Values that come from C may be anything: reject before using them.
  for (size_t i = 0; i < count; ++i) {
    if (args[i].kind != Arg::Kind::Tensor &&
        args[i].kind != Arg::Kind::Scalar &&
        args[i].kind != Arg::Kind::TensorList)
      return argError(kernel, i,
                      "unknown argument kind " +
                          std::to_string(static_cast<int>(args[i].kind)));
    if (static_cast<unsigned>(args[i].dtype) >= bundle::kNumDTypes)
      return argError(kernel, i,
                      "unknown dtype " +
                          std::to_string(static_cast<int>(args[i].dtype)));
    if (args[i].kind == Arg::Kind::Tensor && args[i].rank > bundle::kMaxRank)
      return argError(kernel, i,
                      "rank " + std::to_string(args[i].rank) +
                          " exceeds the maximum of " +
                          std::to_string(bundle::kMaxRank));
  }

  // On the stack for the usual few arguments: this runs on every launch.
  constexpr size_t kInlineArgs = 16;
  TensorUse inlineUses[kInlineArgs];
  std::vector<TensorUse> heapUses(count > kInlineArgs ? count : 0);
  TensorUse *uses = count > kInlineArgs ? heapUses.data() : inlineUses;
  for (const Param &param : kernel.params) {
    if (param.kind == Param::Kind::TensorMap)
      uses[param.arg].byTensorMap = true;
    if (param.kind == Param::Kind::Pointer) {
      uses[param.arg].byPointer = true;
      uses[param.arg].pointerAlign =
          std::max(uses[param.arg].pointerAlign, param.align);
    }
    if (param.kind == Param::Kind::Stride &&
        param.dim + 1 == kernel.args[param.arg].shape.size())
      uses[param.arg].innerStride = true;
  }
  // Every argument is checked, even one no parameter uses, so that a
  // mistake never hides.
  std::vector<ParamValue> scalars(count);
  for (size_t i = 0; i < count; ++i) {
    const Argument &decl = kernel.args[i];
    Error error = decl.isTensor() ? checkTensor(kernel, i, args[i], uses[i])
                  : decl.isTensorList()
                      ? checkTensorList(kernel, i, args[i], uses[i])
                      : encodeScalar(kernel, i, args[i], scalars[i]);
    if (error)
      return error;
  }

  plan.params.assign(kernel.params.size(), ParamValue());
  plan.tensorMaps.clear();
  plan.mapSlots = 0;
  for (size_t p = 0; p < kernel.params.size(); ++p) {
    const Param &param = kernel.params[p];
    const Arg &arg = args[param.arg];
    ParamValue &value = plan.params[p];
    switch (param.kind) {
    case Param::Kind::TensorMap: {
      value.isTensorMap = true;
      value.tensorMap = plan.mapSlots;
      if (arg.kind != Arg::Kind::TensorList) {
        plan.tensorMaps.push_back(makeTensorMapRequest(
            static_cast<uint32_t>(p), plan.mapSlots++, param, arg));
        break;
      }
      // A slot per tensor the kernel can take; an empty tensor's slot and
      // those past the list's end stay zero.
      const Arg *tensors = listTensors(arg);
      for (uint32_t e = 0; e < arg.rank; ++e) {
        if (!isEmpty(tensors[e]))
          plan.tensorMaps.push_back(makeTensorMapRequest(
              static_cast<uint32_t>(p), plan.mapSlots + e, param, tensors[e]));
      }
      plan.mapSlots += kernel.args[param.arg].capacity;
      break;
    }
    case Param::Kind::Pointer:
      value.size = 8;
      std::memcpy(value.bytes, &arg.data, 8);
      break;
    case Param::Kind::Dim: {
      int64_t size = argDim(arg, param.dim);
      if (size > std::numeric_limits<int32_t>::max())
        return argError(kernel, param.arg,
                        "dim " + std::to_string(param.dim) + " is " +
                            std::to_string(size) +
                            ", too large for the kernel's 32-bit dim "
                            "parameter");
      auto narrow = static_cast<int32_t>(size);
      value.size = 4;
      std::memcpy(value.bytes, &narrow, 4);
      break;
    }
    case Param::Kind::Stride:
      value.size = 8;
      std::memcpy(value.bytes, &arg.strides[param.dim], 8);
      break;
    case Param::Kind::Scalar:
      value = scalars[param.arg];
      break;
    }
  }
  return computeGrid(kernel, args, smCount, plan.grid);
}

Error checkArgs(const bundle::Kernel &kernel, const Arg *args, size_t count) {
  LaunchPlan plan;
  return buildLaunchPlan(kernel, args, count, 0, plan);
}

uint16_t toHalfBits(double value) {
  float single = static_cast<float>(value);
  uint32_t bits;
  std::memcpy(&bits, &single, 4);
  auto sign = static_cast<uint16_t>((bits >> 16) & 0x8000);
  uint32_t magnitude = bits & 0x7fffffff;
  if (magnitude > 0x7f800000) // NaN: keep it quiet
    return sign | 0x7e00;
  if (magnitude >= 0x47800000) // >= 65536 (or inf): infinity
    return sign | 0x7c00;
  if (magnitude < 0x38800000) // below 2^-14: subnormal in half
    return sign | static_cast<uint16_t>(
                      std::nearbyint(std::fabs(single) * 16777216.0f));
  uint32_t exponent = (magnitude >> 23) - 127 + 15;
  uint32_t mantissa = magnitude & 0x7fffff;
  uint32_t half = (exponent << 10) | (mantissa >> 13);
  uint32_t rest = mantissa & 0x1fff;
  // Round to nearest even; a carry into the exponent is still correct.
  if (rest > 0x1000 || (rest == 0x1000 && (half & 1)))
    ++half;
  return sign | static_cast<uint16_t>(half);
}

uint16_t toBFloat16Bits(double value) {
  float single = static_cast<float>(value);
  uint32_t bits;
  std::memcpy(&bits, &single, 4);
  if ((bits & 0x7fffffff) > 0x7f800000)
    return static_cast<uint16_t>((bits >> 16) | 0x40);
  uint32_t roundingBias = 0x7fff + ((bits >> 16) & 1);
  return static_cast<uint16_t>((bits + roundingBias) >> 16);
}

} // namespace tilec::rt

//===- Bundle.cpp - tilec bundle: metadata model, reader and writer -------===//
//
// Implements dtype tables, metadata validation, the metadata JSON reader and
// writer, and the binary container (see docs/bundle.md).
//
//===----------------------------------------------------------------------===//

#include "tilec/bundle/Bundle.h"

#include "Json.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <set>

namespace tilec::bundle {

int Kernel::findArg(std::string_view argName) const {
  for (size_t i = 0; i < args.size(); ++i)
    if (args[i].name == argName)
      return static_cast<int>(i);
  return -1;
}

const Kernel *Bundle::findKernel(std::string_view kernelName) const {
  for (const Kernel &kernel : kernels)
    if (kernel.name == kernelName)
      return &kernel;
  return nullptr;
}

//===----------------------------------------------------------------------===//
// Validation
//===----------------------------------------------------------------------===//

namespace {

/// The metadata spelling of a parameter kind, also used in messages.
const char *paramKindKey(Param::Kind kind) {
  switch (kind) {
  case Param::Kind::TensorMap:
    return "tensor_map";
  case Param::Kind::Pointer:
    return "pointer";
  case Param::Kind::Dim:
    return "dim";
  case Param::Kind::Stride:
    return "stride";
  case Param::Kind::Scalar:
    return "scalar";
  }
  return "?";
}

std::string validateTensorMap(const TensorMapSpec &map, const Argument &arg) {
  size_t rank = arg.shape.size();
  if (rank > kMaxTensorMapRank)
    return "tensor maps support at most rank " +
           std::to_string(kMaxTensorMapRank) + ", the tensor has rank " +
           std::to_string(rank);
  if (map.box.size() != rank)
    return "box has " + std::to_string(map.box.size()) +
           " dims but the tensor has rank " + std::to_string(rank);
  for (size_t d = 0; d < rank; ++d)
    if (map.box[d] < 1 || map.box[d] > 256)
      return "box dim " + std::to_string(d) + " is " +
             std::to_string(map.box[d]) + ", TMA needs 1..256";
  uint64_t innerBytes = uint64_t(map.box.back()) * byteSize(arg.dtype);
  if (innerBytes % 16 != 0)
    return "box inner dimension is " + std::to_string(innerBytes) +
           " bytes, TMA needs a multiple of 16";
  unsigned span = vocab::swizzleBytes(map.swizzle);
  if (span != 0 && innerBytes > span)
    return "box inner dimension is " + std::to_string(innerBytes) +
           " bytes, more than the " + std::to_string(span) +
           "-byte swizzle span";
  if (!map.elementStrides.empty()) {
    if (map.elementStrides.size() != rank)
      return "element_strides has " +
             std::to_string(map.elementStrides.size()) +
             " entries but the tensor has rank " + std::to_string(rank);
    for (size_t d = 0; d < rank; ++d)
      if (map.elementStrides[d] < 1 || map.elementStrides[d] > 8)
        return "element stride " + std::to_string(d) + " is " +
               std::to_string(map.elementStrides[d]) + ", TMA needs 1..8";
  }
  if (map.oobFill == OobFill::NaN && !isFloat(arg.dtype))
    return "NaN out-of-bounds fill needs a floating-point dtype, not " +
           std::string(toString(arg.dtype));
  return "";
}

std::string validateParam(const Param &param, const Kernel &kernel) {
  if (param.arg >= kernel.args.size())
    return "refers to argument " + std::to_string(param.arg) +
           " but the kernel has " + std::to_string(kernel.args.size());
  const Argument &arg = kernel.args[param.arg];
  bool wantsTensor = param.kind != Param::Kind::Scalar;
  if (arg.isTensor() != wantsTensor)
    return std::string("a ") + paramKindKey(param.kind) +
           " parameter needs a " + (wantsTensor ? "tensor" : "scalar") +
           " argument";
  if ((param.kind == Param::Kind::Dim || param.kind == Param::Kind::Stride) &&
      param.dim >= arg.shape.size())
    return "dim " + std::to_string(param.dim) + " is out of range for rank " +
           std::to_string(arg.shape.size());
  if (param.kind == Param::Kind::TensorMap)
    return validateTensorMap(param.tensorMap, arg);
  return "";
}

std::string validateArgument(const Argument &arg) {
  if (arg.name.empty())
    return "has an empty name";
  if (!vocab::isKnown(arg.dtype))
    return "has an unknown dtype";
  if (!arg.isTensor())
    return arg.shape.empty() ? "" : "is a scalar but has a shape";
  if (arg.shape.empty() || arg.shape.size() > kMaxRank)
    return "has rank " + std::to_string(arg.shape.size()) +
           ", tensors need 1.." + std::to_string(kMaxRank);
  for (size_t d = 0; d < arg.shape.size(); ++d)
    if (arg.shape[d] < 1 && arg.shape[d] != kDynamic)
      return "dim " + std::to_string(d) + " is " +
             std::to_string(arg.shape[d]) + ", expected a size >= 1 or -1";
  return "";
}

std::string validateGrid(const Kernel &kernel) {
  if (kernel.grid.kind == GridPolicy::Kind::Persistent)
    return "";
  static const char *const kAxisNames[3] = {"x", "y", "z"};
  for (unsigned i = 0; i < 3; ++i) {
    const GridAxis &axis = kernel.grid.axes[i];
    std::string where = std::string("grid ") + kAxisNames[i] + ": ";
    if (axis.kind == GridAxis::Kind::Constant) {
      if (axis.value < 1)
        return where + "constant must be >= 1";
      continue;
    }
    if (axis.arg >= kernel.args.size() || !kernel.args[axis.arg].isTensor())
      return where + "argument " + std::to_string(axis.arg) +
             " is not a tensor argument";
    if (axis.dim >= kernel.args[axis.arg].shape.size())
      return where + "dim " + std::to_string(axis.dim) +
             " is out of range for '" + kernel.args[axis.arg].name + "'";
    if (axis.tile < 1)
      return where + "tile must be >= 1";
  }
  return "";
}

/// \p target is null for a target this build does not know; its limits are
/// then left to the driver.
std::string validateKernel(const Kernel &kernel,
                           std::optional<vocab::Target> target) {
  if (kernel.name.empty())
    return "has an empty name";
  std::set<std::string> names;
  for (size_t i = 0; i < kernel.args.size(); ++i) {
    const Argument &arg = kernel.args[i];
    std::string problem = validateArgument(arg);
    if (!problem.empty())
      return "argument " + std::to_string(i) +
             (arg.name.empty() ? "" : " ('" + arg.name + "')") + " " + problem;
    if (!names.insert(arg.name).second)
      return "argument name '" + arg.name + "' is used twice";
  }
  for (size_t i = 0; i < kernel.params.size(); ++i) {
    const Param &param = kernel.params[i];
    std::string problem = validateParam(param, kernel);
    if (!problem.empty()) {
      std::string what = paramKindKey(param.kind);
      if (param.arg < kernel.args.size())
        what += " of '" + kernel.args[param.arg].name + "'";
      return "param " + std::to_string(i) + " (" + what + "): " + problem;
    }
  }
  uint64_t threads = 1, clusterSize = 1;
  for (unsigned i = 0; i < 3; ++i) {
    if (kernel.block[i] < 1 || kernel.cluster[i] < 1)
      return "block and cluster dims must be >= 1";
    threads *= kernel.block[i];
    clusterSize *= kernel.cluster[i];
  }
  if (threads > 1024)
    return "block has " + std::to_string(threads) +
           " threads, CUDA allows at most 1024";
  // 16 is the non-portable cluster limit on sm_90 and sm_100.
  if (clusterSize > 16)
    return "cluster has " + std::to_string(clusterSize) +
           " CTAs, the hardware allows at most 16";
  if (target &&
      kernel.dynamicSharedBytes > vocab::maxDynamicSharedMemoryBytes(*target))
    return "uses " + std::to_string(kernel.dynamicSharedBytes) +
           " bytes of dynamic shared memory, " +
           std::string(toString(*target)) + " allows at most " +
           std::to_string(vocab::maxDynamicSharedMemoryBytes(*target)) +
           " per block";
  return validateGrid(kernel);
}

} // namespace

std::string validate(const Bundle &bundle) {
  if (bundle.version != kMetadataVersion)
    return "metadata version " + std::to_string(bundle.version) +
           " is not supported (this build reads version " +
           std::to_string(kMetadataVersion) + ")";
  if (bundle.target.rfind("sm_", 0) != 0)
    return "target '" + bundle.target + "' is not of the form sm_XX";
  if (bundle.kernels.empty())
    return "the bundle has no kernels";
  std::optional<vocab::Target> target = vocab::parseTarget(bundle.target);
  std::set<std::string> names;
  for (const Kernel &kernel : bundle.kernels) {
    std::string problem = validateKernel(kernel, target);
    if (!problem.empty())
      return "kernel '" + kernel.name + "': " + problem;
    if (!names.insert(kernel.name).second)
      return "kernel name '" + kernel.name + "' is used twice";
  }
  return "";
}

//===----------------------------------------------------------------------===//
// Metadata JSON writer
//===----------------------------------------------------------------------===//

namespace {

using json::Value;

const char *const kFormatName = "tilec-metadata";

template <typename Range> Value integerArray(const Range &range) {
  Value array = Value::array();
  for (auto element : range)
    array.push(Value::integer(static_cast<int64_t>(element)));
  return array;
}

const char *oobFillName(OobFill fill) {
  return fill == OobFill::NaN ? "nan" : "zero";
}

const char *l2PromotionName(L2Promotion promotion) {
  switch (promotion) {
  case L2Promotion::None:
    return "none";
  case L2Promotion::B64:
    return "64B";
  case L2Promotion::B128:
    return "128B";
  case L2Promotion::B256:
    return "256B";
  }
  return "none";
}

std::string argName(const Kernel &kernel, uint32_t index) {
  return index < kernel.args.size() ? kernel.args[index].name : "";
}

Value writeParam(const Param &param, const Kernel &kernel) {
  Value out = Value::object();
  out.set("kind", Value::string(paramKindKey(param.kind)));
  out.set("arg", Value::string(argName(kernel, param.arg)));
  if (param.kind == Param::Kind::Dim || param.kind == Param::Kind::Stride)
    out.set("dim", Value::integer(param.dim));
  if (param.kind == Param::Kind::TensorMap) {
    const TensorMapSpec &map = param.tensorMap;
    out.set("box", integerArray(map.box));
    std::vector<uint32_t> strides = map.elementStrides;
    if (strides.empty())
      strides.assign(map.box.size(), 1);
    out.set("element_strides", integerArray(strides));
    out.set("swizzle", Value::integer(vocab::swizzleBytes(map.swizzle)));
    out.set("oob_fill", Value::string(oobFillName(map.oobFill)));
    out.set("l2_promotion", Value::string(l2PromotionName(map.l2Promotion)));
  }
  return out;
}

Value writeGrid(const Kernel &kernel) {
  Value grid = Value::object();
  if (kernel.grid.kind == GridPolicy::Kind::Persistent) {
    grid.set("policy", Value::string("persistent"));
    return grid;
  }
  grid.set("policy", Value::string("fixed"));
  Value axes = Value::array();
  for (const GridAxis &axis : kernel.grid.axes) {
    if (axis.kind == GridAxis::Kind::Constant) {
      axes.push(Value::integer(axis.value));
      continue;
    }
    Value ceilDiv = Value::object();
    ceilDiv.set("arg", Value::string(argName(kernel, axis.arg)));
    ceilDiv.set("dim", Value::integer(axis.dim));
    ceilDiv.set("tile", Value::integer(axis.tile));
    axes.push(std::move(ceilDiv));
  }
  grid.set("axes", std::move(axes));
  return grid;
}

Value writeKernel(const Kernel &kernel) {
  Value out = Value::object();
  out.set("name", Value::string(kernel.name));
  Value args = Value::array();
  for (const Argument &arg : kernel.args) {
    Value entry = Value::object();
    entry.set("name", Value::string(arg.name));
    entry.set("kind", Value::string(arg.isTensor() ? "tensor" : "scalar"));
    entry.set("dtype", Value::string(std::string(toString(arg.dtype))));
    if (arg.isTensor())
      entry.set("shape", integerArray(arg.shape));
    args.push(std::move(entry));
  }
  out.set("args", std::move(args));
  Value params = Value::array();
  for (const Param &param : kernel.params)
    params.push(writeParam(param, kernel));
  out.set("params", std::move(params));
  out.set("block", integerArray(kernel.block));
  out.set("cluster", integerArray(kernel.cluster));
  out.set("dynamic_shared_bytes", Value::integer(kernel.dynamicSharedBytes));
  out.set("grid", writeGrid(kernel));
  return out;
}

} // namespace

std::string writeMetadataJson(const Bundle &bundle) {
  Value root = Value::object();
  root.set("format", Value::string(kFormatName));
  root.set("version", Value::integer(kMetadataVersion));
  root.set("target", Value::string(bundle.target));
  root.set("producer", Value::string(bundle.producer));
  Value kernels = Value::array();
  for (const Kernel &kernel : bundle.kernels)
    kernels.push(writeKernel(kernel));
  root.set("kernels", std::move(kernels));
  return json::write(root);
}

//===----------------------------------------------------------------------===//
// Metadata JSON reader
//===----------------------------------------------------------------------===//

namespace {

/// Reads the metadata JSON tree into the model. Every failure records
/// "<path>: <problem>", e.g. "kernels[0].params[1].box: expected an array".
class MetadataReader {
public:
  std::string error;

  bool readRoot(const Value &root, Bundle &out) {
    const std::string path = "metadata";
    if (!expectObject(root, path) ||
        !checkKeys(root, path,
                   {"format", "version", "target", "producer", "kernels"}))
      return false;
    std::string format;
    if (!readString(root, "format", path, format))
      return false;
    if (format != kFormatName)
      return fail(path + ".format", "expected \"" + std::string(kFormatName) +
                                        "\", got \"" + format + "\"");
    uint32_t version;
    if (!readUnsigned(root, "version", path, UINT32_MAX, version))
      return false;
    // Reject other versions before reading the rest: its keys may differ.
    if (version != kMetadataVersion)
      return fail(path + ".version",
                  "metadata version " + std::to_string(version) +
                      " is not supported (this build reads version " +
                      std::to_string(kMetadataVersion) + ")");
    out.version = version;
    if (!readString(root, "target", path, out.target) ||
        !readString(root, "producer", path, out.producer, /*optional=*/true))
      return false;
    const Value *kernels = member(root, "kernels", path);
    if (!kernels || !expectArray(*kernels, path + ".kernels"))
      return false;
    for (size_t i = 0; i < kernels->elements().size(); ++i) {
      Kernel kernel;
      if (!readKernel(kernels->elements()[i], indexed(path, "kernels", i),
                      kernel))
        return false;
      out.kernels.push_back(std::move(kernel));
    }
    return true;
  }

private:
  bool fail(const std::string &path, const std::string &what) {
    error = path + ": " + what;
    return false;
  }

  static std::string indexed(const std::string &path, const char *key,
                             size_t i) {
    return path + "." + key + "[" + std::to_string(i) + "]";
  }

  bool expectObject(const Value &value, const std::string &path) {
    return value.isObject() || fail(path, "expected an object");
  }
  bool expectArray(const Value &value, const std::string &path) {
    return value.isArray() || fail(path, "expected an array");
  }

  /// Rejects keys this version does not define: a typo in the compiler's
  /// output should fail loudly, not be ignored.
  bool checkKeys(const Value &object, const std::string &path,
                 std::initializer_list<const char *> allowed) {
    for (const std::string &key : object.keys()) {
      bool known = false;
      for (const char *name : allowed)
        known |= key == name;
      if (!known)
        return fail(path, "unknown key \"" + key + "\"");
    }
    return true;
  }

  const Value *member(const Value &object, const char *key,
                      const std::string &path) {
    const Value *value = object.find(key);
    if (!value)
      fail(path, std::string("missing key \"") + key + "\"");
    return value;
  }

  bool readString(const Value &object, const char *key, const std::string &path,
                  std::string &out, bool optional = false) {
    const Value *value = object.find(key);
    if (!value)
      return optional || fail(path, std::string("missing key \"") + key + "\"");
    if (!value->isString())
      return fail(path + "." + key, "expected a string");
    out = value->asString();
    return true;
  }

  bool toUnsigned(const Value &value, const std::string &path, uint64_t max,
                  uint64_t &out) {
    if (!value.isInteger() || value.asInteger() < 0 ||
        uint64_t(value.asInteger()) > max)
      return fail(path, "expected an integer in 0.." + std::to_string(max));
    out = static_cast<uint64_t>(value.asInteger());
    return true;
  }

  bool readUnsigned(const Value &object, const char *key,
                    const std::string &path, uint64_t max, uint32_t &out,
                    std::optional<uint32_t> fallback = std::nullopt) {
    const Value *value = object.find(key);
    if (!value) {
      if (!fallback)
        return fail(path, std::string("missing key \"") + key + "\"");
      out = *fallback;
      return true;
    }
    uint64_t wide = 0;
    if (!toUnsigned(*value, path + "." + key, max, wide))
      return false;
    out = static_cast<uint32_t>(wide);
    return true;
  }

  bool readUnsignedArray(const Value &object, const char *key,
                         const std::string &path, size_t maxSize,
                         std::vector<uint32_t> &out) {
    const Value *value = member(object, key, path);
    if (!value)
      return false;
    std::string where = path + "." + key;
    if (!value->isArray() || value->elements().size() > maxSize)
      return fail(where, "expected an array of at most " +
                             std::to_string(maxSize) + " integers");
    for (const Value &element : value->elements()) {
      uint64_t wide = 0;
      if (!toUnsigned(element, where, UINT32_MAX, wide))
        return false;
      out.push_back(static_cast<uint32_t>(wide));
    }
    return true;
  }

  bool readDims3(const Value &object, const char *key, const std::string &path,
                 std::array<uint32_t, 3> &out, bool optional) {
    if (optional && !object.find(key))
      return true;
    std::vector<uint32_t> dims;
    if (!readUnsignedArray(object, key, path, 3, dims))
      return false;
    if (dims.size() != 3)
      return fail(path + "." + key, "expected 3 integers (x, y, z)");
    std::copy(dims.begin(), dims.end(), out.begin());
    return true;
  }

  /// Reads an argument reference by name.
  bool readArgRef(const Value &object, const std::string &path,
                  const Kernel &kernel, uint32_t &out) {
    std::string name;
    if (!readString(object, "arg", path, name))
      return false;
    int index = kernel.findArg(name);
    if (index < 0)
      return fail(path + ".arg", "no argument named '" + name + "'");
    out = static_cast<uint32_t>(index);
    return true;
  }

  bool readArgument(const Value &value, const std::string &path,
                    Argument &arg) {
    if (!expectObject(value, path) ||
        !checkKeys(value, path, {"name", "kind", "dtype", "shape"}))
      return false;
    std::string kind, dtype;
    if (!readString(value, "name", path, arg.name) ||
        !readString(value, "kind", path, kind) ||
        !readString(value, "dtype", path, dtype))
      return false;
    if (kind != "tensor" && kind != "scalar")
      return fail(path + ".kind",
                  "expected \"tensor\" or \"scalar\", got \"" + kind + "\"");
    arg.kind =
        kind == "tensor" ? Argument::Kind::Tensor : Argument::Kind::Scalar;
    std::optional<DType> parsed = parseDType(dtype);
    if (!parsed)
      return fail(path + ".dtype", "unknown dtype \"" + dtype + "\"");
    arg.dtype = *parsed;
    const Value *shape = value.find("shape");
    if (!arg.isTensor())
      return !shape || fail(path, "a scalar has no \"shape\"");
    if (!shape)
      return fail(path, "missing key \"shape\"");
    if (!shape->isArray() || shape->elements().size() > kMaxRank)
      return fail(path + ".shape", "expected an array of at most " +
                                       std::to_string(kMaxRank) + " integers");
    for (const Value &dim : shape->elements()) {
      if (!dim.isInteger())
        return fail(path + ".shape", "expected integers");
      arg.shape.push_back(dim.asInteger());
    }
    return true;
  }

  bool readTensorMap(const Value &value, const std::string &path,
                     TensorMapSpec &map) {
    if (!readUnsignedArray(value, "box", path, kMaxTensorMapRank, map.box))
      return false;
    if (value.find("element_strides") &&
        !readUnsignedArray(value, "element_strides", path, kMaxTensorMapRank,
                           map.elementStrides))
      return false;
    uint32_t swizzle;
    if (!readUnsigned(value, "swizzle", path, 128, swizzle, 0))
      return false;
    std::optional<Swizzle> parsedSwizzle = vocab::swizzleFromBytes(swizzle);
    if (!parsedSwizzle)
      return fail(path + ".swizzle",
                  "expected 0, 32, 64 or 128, got " + std::to_string(swizzle));
    map.swizzle = *parsedSwizzle;
    std::string fill = "zero", promotion = "none";
    if (!readString(value, "oob_fill", path, fill, true) ||
        !readString(value, "l2_promotion", path, promotion, true))
      return false;
    if (fill != "zero" && fill != "nan")
      return fail(path + ".oob_fill",
                  "expected \"zero\" or \"nan\", got \"" + fill + "\"");
    map.oobFill = fill == "nan" ? OobFill::NaN : OobFill::Zero;
    bool known = false;
    for (L2Promotion candidate : {L2Promotion::None, L2Promotion::B64,
                                  L2Promotion::B128, L2Promotion::B256}) {
      if (promotion == l2PromotionName(candidate)) {
        map.l2Promotion = candidate;
        known = true;
      }
    }
    return known || fail(path + ".l2_promotion",
                         "expected \"none\", \"64B\", \"128B\" or \"256B\", "
                         "got \"" +
                             promotion + "\"");
  }

  bool readParam(const Value &value, const std::string &path,
                 const Kernel &kernel, Param &param) {
    if (!expectObject(value, path))
      return false;
    std::string kind;
    if (!readString(value, "kind", path, kind))
      return false;
    bool known = false;
    for (Param::Kind candidate :
         {Param::Kind::TensorMap, Param::Kind::Pointer, Param::Kind::Dim,
          Param::Kind::Stride, Param::Kind::Scalar}) {
      if (kind == paramKindKey(candidate)) {
        param.kind = candidate;
        known = true;
      }
    }
    if (!known)
      return fail(path + ".kind", "unknown parameter kind \"" + kind + "\"");
    switch (param.kind) {
    case Param::Kind::TensorMap:
      if (!checkKeys(value, path,
                     {"kind", "arg", "box", "element_strides", "swizzle",
                      "oob_fill", "l2_promotion"}) ||
          !readTensorMap(value, path, param.tensorMap))
        return false;
      break;
    case Param::Kind::Dim:
    case Param::Kind::Stride:
      if (!checkKeys(value, path, {"kind", "arg", "dim"}) ||
          !readUnsigned(value, "dim", path, kMaxRank - 1, param.dim))
        return false;
      break;
    case Param::Kind::Pointer:
    case Param::Kind::Scalar:
      if (!checkKeys(value, path, {"kind", "arg"}))
        return false;
      break;
    }
    return readArgRef(value, path, kernel, param.arg);
  }

  bool readGrid(const Value &value, const std::string &path, Kernel &kernel) {
    if (!expectObject(value, path) ||
        !checkKeys(value, path, {"policy", "axes"}))
      return false;
    std::string policy;
    if (!readString(value, "policy", path, policy))
      return false;
    if (policy == "persistent") {
      kernel.grid.kind = GridPolicy::Kind::Persistent;
      return !value.find("axes") ||
             fail(path, "a persistent grid has no \"axes\"");
    }
    if (policy != "fixed")
      return fail(path + ".policy", "expected \"fixed\" or \"persistent\", "
                                    "got \"" +
                                        policy + "\"");
    kernel.grid.kind = GridPolicy::Kind::Fixed;
    const Value *axes = member(value, "axes", path);
    if (!axes)
      return false;
    if (!axes->isArray() || axes->elements().size() != 3)
      return fail(path + ".axes", "expected an array of 3 axes (x, y, z)");
    for (size_t i = 0; i < 3; ++i) {
      const Value &axis = axes->elements()[i];
      std::string where = path + ".axes[" + std::to_string(i) + "]";
      GridAxis &out = kernel.grid.axes[i];
      if (axis.isInteger()) {
        uint64_t constant = 0;
        if (!toUnsigned(axis, where, UINT32_MAX, constant))
          return false;
        out = GridAxis::constant(static_cast<uint32_t>(constant));
        continue;
      }
      if (!axis.isObject())
        return fail(where, "expected an integer or {\"arg\", \"dim\", "
                           "\"tile\"}");
      out.kind = GridAxis::Kind::CeilDiv;
      if (!checkKeys(axis, where, {"arg", "dim", "tile"}) ||
          !readArgRef(axis, where, kernel, out.arg) ||
          !readUnsigned(axis, "dim", where, kMaxRank - 1, out.dim) ||
          !readUnsigned(axis, "tile", where, UINT32_MAX, out.tile))
        return false;
    }
    return true;
  }

  bool readKernel(const Value &value, const std::string &path, Kernel &kernel) {
    if (!expectObject(value, path) ||
        !checkKeys(value, path,
                   {"name", "args", "params", "block", "cluster",
                    "dynamic_shared_bytes", "grid"}) ||
        !readString(value, "name", path, kernel.name))
      return false;
    const Value *args = member(value, "args", path);
    if (!args || !expectArray(*args, path + ".args"))
      return false;
    for (size_t i = 0; i < args->elements().size(); ++i) {
      Argument arg;
      if (!readArgument(args->elements()[i], indexed(path, "args", i), arg))
        return false;
      kernel.args.push_back(std::move(arg));
    }
    const Value *params = member(value, "params", path);
    if (!params || !expectArray(*params, path + ".params"))
      return false;
    for (size_t i = 0; i < params->elements().size(); ++i) {
      Param param;
      if (!readParam(params->elements()[i], indexed(path, "params", i), kernel,
                     param))
        return false;
      kernel.params.push_back(std::move(param));
    }
    const Value *grid = member(value, "grid", path);
    return readDims3(value, "block", path, kernel.block, false) &&
           readDims3(value, "cluster", path, kernel.cluster, true) &&
           readUnsigned(value, "dynamic_shared_bytes", path, UINT32_MAX,
                        kernel.dynamicSharedBytes, 0) &&
           grid && readGrid(*grid, path + ".grid", kernel);
  }
};

} // namespace

bool parseMetadataJson(std::string_view text, Bundle &out, std::string &error) {
  json::Value root;
  std::string jsonError;
  if (!json::parse(text, root, jsonError)) {
    error = "metadata is not valid JSON: " + jsonError;
    return false;
  }
  Bundle bundle;
  MetadataReader reader;
  if (!reader.readRoot(root, bundle)) {
    error = reader.error;
    return false;
  }
  std::string problem = validate(bundle);
  if (!problem.empty()) {
    error = "invalid metadata: " + problem;
    return false;
  }
  out = std::move(bundle);
  return true;
}

//===----------------------------------------------------------------------===//
// Binary container
//===----------------------------------------------------------------------===//

namespace {

enum SectionKind : uint32_t {
  MetadataSection = 1,
  CubinSection = 2,
  PtxSection = 3,
};

constexpr size_t kHeaderBytes = 16;       // magic, version, section count
constexpr size_t kSectionEntryBytes = 24; // kind, flags, offset, size
constexpr uint32_t kMaxSections = 64;
constexpr size_t kSectionAlignment = 16;

void putU32(std::vector<uint8_t> &out, uint32_t value) {
  for (int i = 0; i < 4; ++i)
    out.push_back(static_cast<uint8_t>(value >> (8 * i)));
}

void putU64(std::vector<uint8_t> &out, uint64_t value) {
  for (int i = 0; i < 8; ++i)
    out.push_back(static_cast<uint8_t>(value >> (8 * i)));
}

uint64_t getLittleEndian(const uint8_t *bytes, int count) {
  uint64_t value = 0;
  for (int i = count - 1; i >= 0; --i)
    value = (value << 8) | bytes[i];
  return value;
}

} // namespace

bool looksLikeBundle(const void *data, size_t size) {
  return data && size >= sizeof(kMagic) &&
         std::memcmp(data, kMagic, sizeof(kMagic)) == 0;
}

bool serializeBundle(const Bundle &bundle, std::vector<uint8_t> &out,
                     std::string &error) {
  std::string problem = validate(bundle);
  if (!problem.empty()) {
    error = "invalid metadata: " + problem;
    return false;
  }
  if (bundle.cubin.empty() && bundle.ptx.empty()) {
    error = "the bundle has neither a cubin nor PTX";
    return false;
  }
  std::string metadata = writeMetadataJson(bundle);
  struct Section {
    uint32_t kind;
    const uint8_t *data;
    size_t size;
  };
  std::vector<Section> sections = {
      {MetadataSection, reinterpret_cast<const uint8_t *>(metadata.data()),
       metadata.size()}};
  if (!bundle.cubin.empty())
    sections.push_back(
        {CubinSection, bundle.cubin.data(), bundle.cubin.size()});
  if (!bundle.ptx.empty())
    sections.push_back({PtxSection,
                        reinterpret_cast<const uint8_t *>(bundle.ptx.data()),
                        bundle.ptx.size()});

  auto align = [](uint64_t offset) {
    return (offset + kSectionAlignment - 1) / kSectionAlignment *
           kSectionAlignment;
  };
  uint64_t offset = align(kHeaderBytes + sections.size() * kSectionEntryBytes);
  uint64_t total = offset;
  for (const Section &section : sections)
    total = align(total + section.size);
  out.clear();
  out.reserve(total);
  for (char c : kMagic)
    out.push_back(static_cast<uint8_t>(c));
  putU32(out, kContainerVersion);
  putU32(out, static_cast<uint32_t>(sections.size()));
  for (const Section &section : sections) {
    putU32(out, section.kind);
    putU32(out, 0); // flags, reserved
    putU64(out, offset);
    putU64(out, section.size);
    offset = align(offset + section.size);
  }
  for (const Section &section : sections) {
    out.resize(align(out.size()), 0);
    out.insert(out.end(), section.data, section.data + section.size);
  }
  return true;
}

bool parseBundle(const void *data, size_t size, Bundle &out,
                 std::string &error) {
  const auto *bytes = static_cast<const uint8_t *>(data);
  if (size == 0) {
    error = "empty (0 bytes), not a tilec bundle";
    return false;
  }
  if (!looksLikeBundle(data, size)) {
    error = "not a tilec bundle (bad magic)";
    return false;
  }
  if (size < kHeaderBytes) {
    error = "bundle truncated: " + std::to_string(size) +
            " bytes, the header alone needs " + std::to_string(kHeaderBytes);
    return false;
  }
  auto version = static_cast<uint32_t>(getLittleEndian(bytes + 8, 4));
  if (version != kContainerVersion) {
    error = "bundle container version " + std::to_string(version) +
            " is not supported (this build reads version " +
            std::to_string(kContainerVersion) + ")";
    return false;
  }
  auto count = static_cast<uint32_t>(getLittleEndian(bytes + 12, 4));
  if (count > kMaxSections) {
    error = "bundle claims " + std::to_string(count) + " sections (at most " +
            std::to_string(kMaxSections) + ")";
    return false;
  }
  if (size < kHeaderBytes + uint64_t(count) * kSectionEntryBytes) {
    error = "bundle truncated: the section table runs past the end";
    return false;
  }
  std::string_view metadata, ptx;
  const uint8_t *cubin = nullptr;
  size_t cubinSize = 0;
  bool seen[4] = {false, false, false, false};
  for (uint32_t i = 0; i < count; ++i) {
    const uint8_t *entry = bytes + kHeaderBytes + i * kSectionEntryBytes;
    auto kind = static_cast<uint32_t>(getLittleEndian(entry, 4));
    uint64_t offset = getLittleEndian(entry + 8, 8);
    uint64_t length = getLittleEndian(entry + 16, 8);
    // Compare without adding: offset + length may wrap on hostile input.
    if (offset > size || length > size - offset) {
      error = "bundle truncated: section " + std::to_string(i) + " (offset " +
              std::to_string(offset) + ", " + std::to_string(length) +
              " bytes) runs past the end (" + std::to_string(size) + " bytes)";
      return false;
    }
    // Unknown kinds are skipped so that newer writers may add optional
    // sections without bumping the container version.
    if (kind < MetadataSection || kind > PtxSection)
      continue;
    if (seen[kind]) {
      error = "bundle has two sections of kind " + std::to_string(kind);
      return false;
    }
    seen[kind] = true;
    const auto *start = reinterpret_cast<const char *>(bytes + offset);
    if (kind == MetadataSection)
      metadata = std::string_view(start, length);
    else if (kind == PtxSection)
      ptx = std::string_view(start, length);
    else {
      cubin = bytes + offset;
      cubinSize = length;
    }
  }
  if (!seen[MetadataSection]) {
    error = "bundle has no metadata section";
    return false;
  }
  if (cubinSize == 0 && ptx.empty()) {
    error = "bundle has neither a cubin nor PTX";
    return false;
  }
  Bundle bundle;
  if (!parseMetadataJson(metadata, bundle, error))
    return false;
  bundle.cubin.assign(cubin, cubin + cubinSize);
  bundle.ptx = std::string(ptx);
  out = std::move(bundle);
  return true;
}

namespace {

struct FileCloser {
  void operator()(std::FILE *file) const { std::fclose(file); }
};
using FileHandle = std::unique_ptr<std::FILE, FileCloser>;

/// Why the last stdio call failed, e.g. "Is a directory".
std::string systemReason() {
  return errno ? std::strerror(errno) : "unknown I/O error";
}

} // namespace

// C stdio, not iostreams: libstdc++'s filebuf throws std::ios_base::failure
// from underflow when read() fails (a directory, an I/O error) whatever the
// stream's exception mask, and these readers must never throw.
bool readFile(const std::string &path, std::vector<uint8_t> &out,
              std::string &error) {
  errno = 0;
  FileHandle file(std::fopen(path.c_str(), "rb"));
  if (!file) {
    error = "cannot open '" + path + "': " + systemReason();
    return false;
  }
  errno = 0;
  std::vector<uint8_t> bytes;
  uint8_t chunk[16384];
  size_t count;
  do {
    count = std::fread(chunk, 1, sizeof(chunk), file.get());
    bytes.insert(bytes.end(), chunk, chunk + count);
  } while (count == sizeof(chunk));
  if (std::ferror(file.get())) {
    error = "cannot read '" + path + "': " + systemReason();
    return false;
  }
  out = std::move(bytes);
  return true;
}

bool readBundleFile(const std::string &path, Bundle &out, std::string &error) {
  std::vector<uint8_t> bytes;
  if (!readFile(path, bytes, error))
    return false;
  if (!parseBundle(bytes.data(), bytes.size(), out, error)) {
    error = "'" + path + "': " + error;
    return false;
  }
  return true;
}

bool writeBundleFile(const Bundle &bundle, const std::string &path,
                     std::string &error) {
  std::vector<uint8_t> bytes;
  if (!serializeBundle(bundle, bytes, error))
    return false;
  errno = 0;
  FileHandle file(std::fopen(path.c_str(), "wb"));
  if (!file) {
    error = "cannot create '" + path + "': " + systemReason();
    return false;
  }
  bool written =
      std::fwrite(bytes.data(), 1, bytes.size(), file.get()) == bytes.size();
  // fclose flushes: a full disk may only show here.
  written &= std::fclose(file.release()) == 0;
  if (!written) {
    error = "cannot write '" + path + "': " + systemReason();
    return false;
  }
  return true;
}

} // namespace tilec::bundle

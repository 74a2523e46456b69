//===- MetadataJson.cpp - tilec bundle: metadata JSON reader and writer ---===//
//
// The metadata JSON of docs/bundle.md over the dependency-free JSON model of
// Json.h. Every reader failure names the key path it is at.
//
//===----------------------------------------------------------------------===//

#include "tilec/bundle/Bundle.h"

#include "Json.h"

#include <initializer_list>
#include <utility>

namespace tilec::bundle {

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

/// The metadata spellings of the L2 promotions, the writer's and the
/// reader's one table.
constexpr std::pair<L2Promotion, const char *> kL2Promotions[] = {
    {L2Promotion::None, "none"},
    {L2Promotion::B64, "64B"},
    {L2Promotion::B128, "128B"},
    {L2Promotion::B256, "256B"}};

const char *l2PromotionName(L2Promotion promotion) {
  for (const auto &[candidate, name] : kL2Promotions)
    if (candidate == promotion)
      return name;
  return "none";
}

std::string argName(const Kernel &kernel, uint32_t index) {
  return index < kernel.args.size() ? kernel.args[index].name : "";
}

Value writeParam(const Param &param, const Kernel &kernel) {
  Value out = Value::object();
  out.set("kind", Value::string(paramKindName(param.kind)));
  out.set("arg", Value::string(argName(kernel, param.arg)));
  if (param.kind == Param::Kind::Dim || param.kind == Param::Kind::Stride)
    out.set("dim", Value::integer(param.dim));
  if (param.kind == Param::Kind::Pointer && param.align != 0)
    out.set("align", Value::integer(param.align));
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
    entry.set("kind", Value::string(arg.isTensorList() ? "tensor_list"
                                    : arg.isTensor()   ? "tensor"
                                                       : "scalar"));
    entry.set("dtype", Value::string(std::string(toString(arg.dtype))));
    if (arg.isTensorLike())
      entry.set("shape", integerArray(arg.shape));
    if (arg.isTensorList())
      entry.set("capacity", Value::integer(arg.capacity));
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
    return readArrayOf(
        root, "kernels", path, out.kernels,
        [&](const Value &element, const std::string &at, Kernel &kernel) {
          return readKernel(element, at, kernel);
        });
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

  /// Reads the array \p key of \p object into \p out, one element at a time
  /// with \p readOne(element, its path, the new element).
  template <typename T, typename ReadOne>
  bool readArrayOf(const Value &object, const char *key,
                   const std::string &path, std::vector<T> &out,
                   ReadOne readOne) {
    const Value *array = member(object, key, path);
    if (!array || !expectArray(*array, path + "." + key))
      return false;
    for (size_t i = 0; i < array->elements().size(); ++i) {
      T element;
      if (!readOne(array->elements()[i], indexed(path, key, i), element))
        return false;
      out.push_back(std::move(element));
    }
    return true;
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
        !checkKeys(value, path, {"name", "kind", "dtype", "shape", "capacity"}))
      return false;
    std::string kind, dtype;
    if (!readString(value, "name", path, arg.name) ||
        !readString(value, "kind", path, kind) ||
        !readString(value, "dtype", path, dtype))
      return false;
    if (kind != "tensor" && kind != "scalar" && kind != "tensor_list")
      return fail(path + ".kind", "expected \"tensor\", \"scalar\" or "
                                  "\"tensor_list\", got \"" +
                                      kind + "\"");
    arg.kind = kind == "tensor"   ? Argument::Kind::Tensor
               : kind == "scalar" ? Argument::Kind::Scalar
                                  : Argument::Kind::TensorList;
    std::optional<DType> parsed = parseDType(dtype);
    if (!parsed)
      return fail(path + ".dtype", "unknown dtype \"" + dtype + "\"");
    arg.dtype = *parsed;
    if (arg.isTensorList()) {
      if (!readUnsigned(value, "capacity", path, kMaxListCapacity,
                        arg.capacity))
        return false;
    } else if (value.find("capacity")) {
      return fail(path, "only a tensor list has a \"capacity\"");
    }
    const Value *shape = value.find("shape");
    if (!arg.isTensorLike())
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
    for (const auto &[candidate, name] : kL2Promotions)
      if (promotion == name) {
        map.l2Promotion = candidate;
        return true;
      }
    return fail(path + ".l2_promotion",
                "expected \"none\", \"64B\", \"128B\" or \"256B\", got \"" +
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
      if (kind == paramKindName(candidate)) {
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
      if (!checkKeys(value, path, {"kind", "arg", "align"}) ||
          !readUnsigned(value, "align", path, 16, param.align, 0))
        return false;
      break;
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
    auto readOneArgument = [&](const Value &element, const std::string &at,
                               Argument &arg) {
      return readArgument(element, at, arg);
    };
    auto readOneParam = [&](const Value &element, const std::string &at,
                            Param &param) {
      return readParam(element, at, kernel, param);
    };
    if (!readArrayOf(value, "args", path, kernel.args, readOneArgument) ||
        !readArrayOf(value, "params", path, kernel.params, readOneParam))
      return false;
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

} // namespace tilec::bundle

//===- Bundle.cpp - tilec bundle: model, validation, container, files -----===//
//
// Implements metadata validation, the binary container and the file readers
// and writer (see docs/bundle.md). The metadata JSON is MetadataJson.cpp.
//
//===----------------------------------------------------------------------===//

#include "tilec/bundle/Bundle.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
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

const char *paramKindName(Param::Kind kind) {
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

namespace {

std::string validateTensorMap(const TensorMapSpec &map, const Argument &arg) {
  // A tensor list's maps describe its tensors, without the list's dim.
  size_t rank = arg.shape.size() - (arg.isTensorList() ? 1 : 0);
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
  if (arg.isTensorLike() != wantsTensor)
    return std::string("a ") + paramKindName(param.kind) +
           " parameter needs a " + (wantsTensor ? "tensor" : "scalar") +
           " argument";
  // The kernel reaches a list's tensors through their maps only, and knows
  // the list's length but not its tensors' sizes, which may differ.
  if (arg.isTensorList() &&
      (param.kind == Param::Kind::Pointer || param.kind == Param::Kind::Stride))
    return std::string("a ") + paramKindName(param.kind) +
           " parameter cannot refer to a tensor list";
  if (arg.isTensorList() && param.kind == Param::Kind::Dim && param.dim != 0)
    return "dim " + std::to_string(param.dim) +
           " of a tensor list differs between its tensors; only dim 0 (its "
           "length) can be a parameter";
  if ((param.kind == Param::Kind::Dim || param.kind == Param::Kind::Stride) &&
      param.dim >= arg.shape.size())
    return "dim " + std::to_string(param.dim) + " is out of range for rank " +
           std::to_string(arg.shape.size());
  if (param.kind == Param::Kind::TensorMap)
    return validateTensorMap(param.tensorMap, arg);
  if (param.kind == Param::Kind::Pointer && param.align != 0 &&
      ((param.align & (param.align - 1)) != 0 || param.align > 16 ||
       param.align < byteSize(arg.dtype)))
    return "align is " + std::to_string(param.align) +
           " bytes; expected a power of two from the element size to 16";
  return "";
}

std::string validateArgument(const Argument &arg) {
  if (arg.name.empty())
    return "has an empty name";
  if (!vocab::isKnown(arg.dtype))
    return "has an unknown dtype";
  if (!arg.isTensorLike())
    return !arg.shape.empty()  ? "is a scalar but has a shape"
           : arg.capacity != 0 ? "is a scalar but has a capacity"
                               : "";
  if (arg.isTensor() && arg.capacity != 0)
    return "is a tensor but has a capacity (only tensor lists have one)";
  if (arg.isTensorList() &&
      (arg.capacity < 1 || arg.capacity > kMaxListCapacity))
    return "is a tensor list of capacity " + std::to_string(arg.capacity) +
           ", expected 1.." + std::to_string(kMaxListCapacity);
  if (arg.isTensorList() && arg.shape.size() >= 1 && arg.shape[0] != kDynamic &&
      arg.shape[0] > int64_t(arg.capacity))
    return "is a tensor list of capacity " + std::to_string(arg.capacity) +
           " but of length " + std::to_string(arg.shape[0]);
  // A list's shape adds the list's dim to its tensors' rank (at least 1).
  size_t minRank = arg.isTensorList() ? 2 : 1;
  if (arg.shape.size() < minRank || arg.shape.size() > kMaxRank)
    return "has rank " + std::to_string(arg.shape.size()) + ", " +
           (arg.isTensorList() ? "tensor lists" : "tensors") + " need " +
           std::to_string(minRank) + ".." + std::to_string(kMaxRank);
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
    if (axis.arg >= kernel.args.size() || !kernel.args[axis.arg].isTensorLike())
      return where + "argument " + std::to_string(axis.arg) +
             " is not a tensor argument";
    if (kernel.args[axis.arg].isTensorList() && axis.dim != 0)
      return where + "dim " + std::to_string(axis.dim) + " of tensor list '" +
             kernel.args[axis.arg].name +
             "' differs between its tensors; only its length (dim 0) can "
             "size a grid";
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
      std::string what = paramKindName(param.kind);
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

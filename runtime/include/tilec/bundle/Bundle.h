//===- Bundle.h - tilec bundle: metadata model, reader and writer -*- C++ -*-=//
//
// The contract between the tilec compiler and the runtime. The compiler fills
// a Bundle and writes it; the runtime reads it back and launches its kernels.
// Depends on the C++17 standard library only (no CUDA, no MLIR), so both
// sides link it. The format is documented and versioned in docs/bundle.md.
//
// Nothing here throws or asserts on bad input: every reader returns false and
// a message that says what is wrong and where.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_BUNDLE_BUNDLE_H
#define TILEC_BUNDLE_BUNDLE_H

#include "tilec/Vocabulary.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tilec::bundle {

/// Version of the binary container (the header and section table).
constexpr uint32_t kContainerVersion = 1;
/// Version of the metadata JSON schema ("version" key).
constexpr uint32_t kMetadataVersion = 1;
/// Most dimensions a tensor argument may have (TMA allows 5; pointers more).
constexpr unsigned kMaxRank = 8;
/// Most dimensions a tensor map may have (cuTensorMapEncodeTiled's limit).
constexpr unsigned kMaxTensorMapRank = 5;
/// Marks a tensor dimension whose size is only known at launch.
constexpr int64_t kDynamic = -1;
/// Most tensors a tensor-list argument may hold (the vocabulary's bound).
constexpr uint32_t kMaxListCapacity = vocab::kMaxTensorListCapacity;

/// Element types: the vocabulary's, whose numeric values are also the C
/// API's tilec_dtype.
using DType = vocab::ElementType;
constexpr unsigned kNumDTypes = vocab::kNumElementTypes;

/// The metadata spelling ("f16", "bf16", ..., "e4m3"), sizes and classes.
using vocab::byteSize;
using vocab::isFloat;
using vocab::isSignedInteger;
using vocab::toString;
inline std::optional<DType> parseDType(std::string_view text) {
  return vocab::parseElementType(text);
}

/// One argument the user passes at launch: a tensor, a scalar, or a tensor
/// list (up to `capacity` tensors of one dtype and rank, each read through
/// its own tensor map: the groups of a grouped GEMM whose operands are
/// matrices of their own).
struct Argument {
  enum class Kind : uint8_t { Tensor, Scalar, TensorList };
  Kind kind = Kind::Tensor;
  std::string name;
  DType dtype = DType::F32;
  /// Tensors: sizes, outermost first; kDynamic where the spec left the size
  /// to run time. The rank is shape.size(). Tensor lists: shape[0] is the
  /// list's length, shape[1..] each tensor's sizes (static ones checked on
  /// every tensor, kDynamic ones free to differ between them).
  std::vector<int64_t> shape;
  /// Tensor lists only: the most tensors the kernel takes.
  uint32_t capacity = 0;

  bool isTensor() const { return kind == Kind::Tensor; }
  bool isTensorList() const { return kind == Kind::TensorList; }
  /// Tensors and tensor lists: both live in device memory.
  bool isTensorLike() const { return kind != Kind::Scalar; }
};

/// Shared-memory swizzle of a tensor map (the metadata writes its span in
/// bytes).
using Swizzle = vocab::Swizzle;
/// What a TMA load writes for out-of-bounds elements.
enum class OobFill : uint8_t { Zero, NaN };
/// L2 sector promotion of TMA loads.
enum class L2Promotion : uint8_t { None, B64, B128, B256 };

/// How a tensor map parameter is built from its tensor argument.
struct TensorMapSpec {
  /// Box (the tile one TMA instruction moves), outermost first; one entry per
  /// tensor dimension.
  std::vector<uint32_t> box;
  /// Traversal strides, outermost first; empty means all 1.
  std::vector<uint32_t> elementStrides;
  Swizzle swizzle = Swizzle::None;
  OobFill oobFill = OobFill::Zero;
  L2Promotion l2Promotion = L2Promotion::None;
};

/// One kernel parameter, in PTX order.
struct Param {
  enum class Kind : uint8_t {
    /// CUtensorMap by value: `.param .align 64 .b8 name[128]`. Of a tensor
    /// list: one per tensor, `.param .align 64 .b8 name[capacity * 128]`,
    /// map i built from tensor i, zero past the list's end and for an
    /// empty tensor (which the kernel never reads).
    TensorMap,
    /// The tensor's device address: `.param .u64`.
    Pointer,
    /// Size of dimension `dim` of tensor `arg`: `.param .u32` (checked to fit
    /// in a signed 32-bit integer).
    Dim,
    /// Stride in elements of dimension `dim` of tensor `arg`: `.param .u64`.
    Stride,
    /// Scalar argument `arg`, in its own dtype (f16/bf16 as `.b16`).
    Scalar,
  };
  Kind kind = Kind::Pointer;
  /// Index into Kernel::args.
  uint32_t arg = 0;
  /// Dim and Stride only: dimension index, outermost first (of a tensor
  /// list: dim 0, its length, only).
  uint32_t dim = 0;
  /// Pointer only: the widest access in bytes the kernel makes through it
  /// (a power of two up to 16; 0 means one element). The address, the
  /// strides of the stride parameters and the innermost dimension's bytes
  /// must be multiples of it, and the innermost dimension is contiguous.
  uint32_t align = 0;
  /// TensorMap only; of a tensor list, the box of each tensor (one entry per
  /// dimension of a tensor, without the list's).
  TensorMapSpec tensorMap;
};

/// The metadata spelling of a parameter kind ("tensor_map", "pointer", "dim",
/// "stride", "scalar"), also used in messages.
const char *paramKindName(Param::Kind kind);

/// One grid axis of a fixed grid: a constant, or ceildiv(dim `dim` of tensor
/// argument `arg`, `tile`).
struct GridAxis {
  enum class Kind : uint8_t { Constant, CeilDiv };
  Kind kind = Kind::Constant;
  /// Constant only.
  uint32_t value = 1;
  /// CeilDiv only.
  uint32_t arg = 0;
  uint32_t dim = 0;
  uint32_t tile = 1;

  static GridAxis constant(uint32_t value) {
    GridAxis axis;
    axis.value = value;
    return axis;
  }
  static GridAxis ceilDiv(uint32_t arg, uint32_t dim, uint32_t tile) {
    GridAxis axis;
    axis.kind = Kind::CeilDiv;
    axis.arg = arg;
    axis.dim = dim;
    axis.tile = tile;
    return axis;
  }
};

struct GridPolicy {
  enum class Kind : uint8_t {
    /// axes[0..2] give grid x, y, z; each is rounded up to a multiple of the
    /// cluster shape.
    Fixed,
    /// One CTA per SM: grid x = (SM count / cluster size) * cluster x,
    /// grid y, z = cluster y, z. The kernel loops over its tiles.
    Persistent,
  };
  Kind kind = Kind::Fixed;
  std::array<GridAxis, 3> axes = {GridAxis(), GridAxis(), GridAxis()};
};

struct Kernel {
  /// The PTX entry name (as cuModuleGetFunction sees it).
  std::string name;
  /// What the user passes, in order.
  std::vector<Argument> args;
  /// What the kernel receives, in PTX order.
  std::vector<Param> params;
  std::array<uint32_t, 3> block = {1, 1, 1};
  std::array<uint32_t, 3> cluster = {1, 1, 1};
  uint32_t dynamicSharedBytes = 0;
  GridPolicy grid;

  /// Index of the argument named \p argName, or -1.
  int findArg(std::string_view argName) const;
  /// CTAs in one cluster.
  uint32_t clusterSize() const { return cluster[0] * cluster[1] * cluster[2]; }
};

/// A compiled module: metadata plus the code. `version` is the metadata
/// version read from a file (the writer always writes kMetadataVersion).
struct Bundle {
  uint32_t version = kMetadataVersion;
  /// "sm_90a", "sm_100a", ...
  std::string target;
  /// Free text naming the tool that wrote the bundle, e.g. "tilec 0.1".
  std::string producer;
  std::vector<Kernel> kernels;
  /// The cubin (ELF) image; may be empty when `ptx` is set.
  std::vector<uint8_t> cubin;
  /// PTX text; optional when `cubin` is set.
  std::string ptx;

  /// The kernel named \p kernelName, or null.
  const Kernel *findKernel(std::string_view kernelName) const;
};

//===----------------------------------------------------------------------===//
// Checking
//===----------------------------------------------------------------------===//

/// Checks that the metadata is self-consistent and within hardware limits
/// (argument references, ranks, box sizes, swizzle spans, block and cluster
/// sizes). Returns an empty string when valid, else the first problem, e.g.
/// "kernel 'gemm': param 0 (tensor map of 'A'): box inner dimension is 96
/// bytes, more than the 64-byte swizzle span". Code is not checked.
std::string validate(const Bundle &bundle);

//===----------------------------------------------------------------------===//
// Metadata JSON (also used standalone beside a raw cubin or PTX file)
//===----------------------------------------------------------------------===//

/// Writes the metadata of \p bundle (everything but cubin and ptx) as JSON.
std::string writeMetadataJson(const Bundle &bundle);

/// Parses metadata JSON into \p out (cubin and ptx are left empty) and
/// validates it. Returns false with \p error set on malformed input.
bool parseMetadataJson(std::string_view json, Bundle &out, std::string &error);

//===----------------------------------------------------------------------===//
// Binary container
//===----------------------------------------------------------------------===//

/// The 8 bytes every bundle file starts with.
constexpr char kMagic[8] = {'T', 'I', 'L', 'E', 'C', 'B', 'N', 'D'};

/// True if \p data starts like a bundle (cheap sniffing; not validation).
bool looksLikeBundle(const void *data, size_t size);

/// Serializes \p bundle. Returns false with \p error set if the bundle does
/// not validate or has neither cubin nor PTX.
bool serializeBundle(const Bundle &bundle, std::vector<uint8_t> &out,
                     std::string &error);
bool writeBundleFile(const Bundle &bundle, const std::string &path,
                     std::string &error);

/// Parses a bundle from bytes / a file and validates its metadata.
bool parseBundle(const void *data, size_t size, Bundle &out,
                 std::string &error);
bool readBundleFile(const std::string &path, Bundle &out, std::string &error);

/// Reads a whole file; false with \p error ("cannot open 'x': ...") if not.
bool readFile(const std::string &path, std::vector<uint8_t> &out,
              std::string &error);

} // namespace tilec::bundle

#endif // TILEC_BUNDLE_BUNDLE_H

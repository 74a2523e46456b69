//===- SampleBundle.h - Metadata shared by the runtime's unit tests -------===//
//
// Kernels in the shapes the compiler produces: a TMA copy with a fixed
// grid, a GEMM-like kernel that uses every parameter kind and a persistent
// grid (the sample bundle holds these two), and a grouped kernel that reads
// a tensor list.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_TEST_UNIT_RUNTIME_SAMPLEBUNDLE_H
#define TILEC_TEST_UNIT_RUNTIME_SAMPLEBUNDLE_H

#include "tilec/bundle/Bundle.h"

#include <cstdio>

namespace tilec::test {

inline bundle::Param tensorMapParam(uint32_t arg, std::vector<uint32_t> box,
                                    bundle::Swizzle swizzle) {
  bundle::Param param;
  param.kind = bundle::Param::Kind::TensorMap;
  param.arg = arg;
  param.tensorMap.box = std::move(box);
  param.tensorMap.swizzle = swizzle;
  return param;
}

inline bundle::Param simpleParam(bundle::Param::Kind kind, uint32_t arg,
                                 uint32_t dim = 0) {
  bundle::Param param;
  param.kind = kind;
  param.arg = arg;
  param.dim = dim;
  return param;
}

inline bundle::Argument tensorArg(std::string name, bundle::DType dtype,
                                  std::vector<int64_t> shape) {
  bundle::Argument arg;
  arg.name = std::move(name);
  arg.dtype = dtype;
  arg.shape = std::move(shape);
  return arg;
}

inline bundle::Argument scalarArg(std::string name, bundle::DType dtype) {
  bundle::Argument arg;
  arg.kind = bundle::Argument::Kind::Scalar;
  arg.name = std::move(name);
  arg.dtype = dtype;
  return arg;
}

/// copy(X, Y): Y = X for f32 matrices of any size; 64x32 tiles, cluster 2.
inline bundle::Kernel makeCopyKernel() {
  using bundle::DType;
  bundle::Kernel kernel;
  kernel.name = "copy";
  kernel.args = {tensorArg("X", DType::F32, {-1, -1}),
                 tensorArg("Y", DType::F32, {-1, -1})};
  kernel.params = {tensorMapParam(0, {64, 32}, bundle::Swizzle::B128),
                   tensorMapParam(1, {64, 32}, bundle::Swizzle::B128)};
  kernel.block = {128, 1, 1};
  kernel.cluster = {2, 1, 1};
  kernel.dynamicSharedBytes = 8192;
  kernel.grid.kind = bundle::GridPolicy::Kind::Fixed;
  kernel.grid.axes = {bundle::GridAxis::ceilDiv(0, 1, 32),
                      bundle::GridAxis::ceilDiv(0, 0, 64),
                      bundle::GridAxis::constant(1)};
  return kernel;
}

/// gemm(A, B, D, alpha, n): bf16 A [M, 4096] x B [8192, 4096] -> f32 D.
inline bundle::Kernel makeGemmKernel() {
  using bundle::DType;
  using Kind = bundle::Param::Kind;
  bundle::Kernel kernel;
  kernel.name = "gemm";
  kernel.args = {tensorArg("A", DType::BF16, {-1, 4096}),
                 tensorArg("B", DType::BF16, {8192, 4096}),
                 tensorArg("D", DType::F32, {-1, 8192}),
                 scalarArg("alpha", DType::F32), scalarArg("n", DType::I16)};
  kernel.params = {tensorMapParam(0, {128, 64}, bundle::Swizzle::B128),
                   tensorMapParam(1, {256, 64}, bundle::Swizzle::B128),
                   simpleParam(Kind::Dim, 0, 0),
                   simpleParam(Kind::Scalar, 3),
                   simpleParam(Kind::Pointer, 2),
                   simpleParam(Kind::Stride, 2, 0),
                   simpleParam(Kind::Scalar, 4)};
  kernel.params[1].tensorMap.oobFill = bundle::OobFill::NaN;
  kernel.params[1].tensorMap.l2Promotion = bundle::L2Promotion::B256;
  kernel.params[4].align = 8; // D is read or written in f32 pairs
  kernel.block = {384, 1, 1};
  kernel.cluster = {2, 1, 1};
  kernel.dynamicSharedBytes = 200704;
  kernel.grid.kind = bundle::GridPolicy::Kind::Persistent;
  return kernel;
}

/// grouped(A, D): a tensor list A of up to 4 e4m3 [256, K_g] matrices (K_g
/// free to differ) and f32 D [G, 256, 256]; A's maps, A's length, D's map.
inline bundle::Kernel makeGroupedKernel() {
  using bundle::DType;
  bundle::Kernel kernel;
  kernel.name = "grouped";
  bundle::Argument list = tensorArg("A", DType::E4M3, {-1, 256, -1});
  list.kind = bundle::Argument::Kind::TensorList;
  list.capacity = 4;
  kernel.args = {list, tensorArg("D", DType::F32, {-1, 256, 256})};
  kernel.params = {tensorMapParam(0, {128, 128}, bundle::Swizzle::B128),
                   simpleParam(bundle::Param::Kind::Dim, 0, 0),
                   tensorMapParam(1, {1, 64, 32}, bundle::Swizzle::B128)};
  kernel.block = {384, 1, 1};
  kernel.dynamicSharedBytes = 147456;
  kernel.grid.kind = bundle::GridPolicy::Kind::Persistent;
  return kernel;
}

inline bundle::Bundle makeSampleBundle() {
  bundle::Bundle result;
  result.target = "sm_90a";
  result.producer = "unit test";
  result.kernels = {makeCopyKernel(), makeGemmKernel()};
  result.cubin = {0x7f, 'E', 'L', 'F', 1, 2, 3, 4, 5};
  result.ptx = ".version 8.7\n.target sm_90a\n";
  return result;
}

/// Writes \p bytes to \p path; false if it cannot.
inline bool writeFile(const std::string &path,
                      const std::vector<uint8_t> &bytes) {
  std::FILE *file = std::fopen(path.c_str(), "wb");
  if (!file)
    return false;
  bool written =
      std::fwrite(bytes.data(), 1, bytes.size(), file) == bytes.size();
  return std::fclose(file) == 0 && written;
}

/// What a new user might pass as a bundle path by mistake: a directory, a
/// missing file, an empty one, a bundle cut in half and bytes that are no
/// bundle. Written under the test's temporary directory, removed after.
struct BadBundleFiles {
  std::string directory, missing, empty, truncated, garbage;

  /// \p prefix keeps the files of two test programs apart.
  explicit BadBundleFiles(const std::string &prefix, const std::string &tmp) {
    directory = tmp;
    missing = tmp + prefix + "_missing.tilec";
    empty = tmp + prefix + "_empty.tilec";
    truncated = tmp + prefix + "_truncated.tilec";
    garbage = tmp + prefix + "_garbage.bin";
    std::vector<uint8_t> good;
    std::string error;
    bundle::serializeBundle(makeSampleBundle(), good, error);
    good.resize(good.size() / 2);
    writeFile(empty, {});
    writeFile(truncated, good);
    writeFile(garbage, {0xde, 0xad, 0xbe, 0xef, 0, 1, 2});
  }
  ~BadBundleFiles() {
    for (const std::string *path : {&empty, &truncated, &garbage})
      std::remove(path->c_str());
  }
};

} // namespace tilec::test

#endif // TILEC_TEST_UNIT_RUNTIME_SAMPLEBUNDLE_H

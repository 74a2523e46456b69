//===- KernelConfigs.h - kernel families, their configs and keys -*- C++
//-*-===//
//
// The kernel library: each family is a parameterised spec in lib/Kernels
// (embedded in the compiler library) and a config function that maps a
// problem (shape, dtypes) and the GPU's SM count to the spec's params, the
// grid and the shared memory, as DeepGEMM's get_best_config does. A kernel
// key names one compiled kernel: spec hash + params + target + compiler
// version. The C API (lib/CAPI) exposes all of it.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_KERNELS_KERNELCONFIGS_H
#define TILEC_LIB_KERNELS_KERNELCONFIGS_H

#include "tilec/Vocabulary.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace tilec::kernels {

/// How the spec of a family computes.
/// SplitKReduce: split K's second kernel (splitk_reduce.tile); its problem is
/// the fp8_gemm_1d2d problem whose config splits K, and that config sets
/// its params.
enum class FamilyKind { Bf16Gemm, Fp8Gemm1D2D, Fp8Gemm1D1D, SplitKReduce };

struct KernelFamily {
  llvm::StringLiteral name;     ///< "bf16_gemm_nt", the C API's name
  llvm::StringLiteral specFile; ///< its spec in lib/Kernels
  FamilyKind kind;
  bool aMnMajor;               ///< A stored [K, M] (DeepGEMM's T for A)
  bool bMnMajor;               ///< B stored [K, N] (DeepGEMM's N for B)
  llvm::StringLiteral summary; ///< one line for docs and errors
  /// M-grouped (B [G, N, K], the spec's LAYOUT param): its configs come from
  /// GroupedConfigs.cpp.
  bool mGrouped = false;
};

/// How an M-grouped problem's rows are grouped (tilec_group_layout; the
/// grouped specs' LAYOUT param).
enum class GroupLayout { Contiguous = 0, Psum = 1, Masked = 2 };

/// D[M, N] (+)= A B in the family's layouts.
struct GemmProblem {
  int64_t m = 0, n = 0, k = 0;
  vocab::ElementType a = vocab::ElementType::BF16;
  vocab::ElementType b = vocab::ElementType::BF16;
  vocab::ElementType d = vocab::ElementType::BF16;
  bool accumulate = false;
  /// M-grouped families only: the groups (0 for the others), their layout,
  /// and the alignment of each group's first row (contiguous layouts). m is
  /// then the rows computed over all groups (masked: G x expected rows).
  int64_t numGroups = 0;
  int64_t groupLayout = 0; ///< a GroupLayout
  int64_t mkAlignment = 128;
};

/// One `-D NAME=VALUE` of a configuration.
struct ConfigParam {
  std::string name;
  std::string value;
};

/// What a config function chose.
struct KernelConfig {
  const KernelFamily *family = nullptr;
  std::string target;
  std::vector<ConfigParam> params; ///< sorted by name
  int64_t blockM = 0, blockN = 0, blockK = 0, stages = 0;
  unsigned threads = 0;
  std::array<unsigned, 3> cluster = {1, 1, 1};
  std::array<unsigned, 3> grid = {1, 1, 1};
  int64_t numTiles = 0;
  int64_t sharedBytes = 0;
  /// > 1: the kernel (params SPLIT_K, OUT=f32) writes SPLIT_K slices of
  /// partial sums into an f32 workspace of SPLIT_K * ceil(M / blockM) *
  /// blockM rows by N, and splitk_reduce.tile (SPLIT_K, BLK_M = blockM,
  /// OUT = D's dtype) sums them into D.
  int64_t splitK = 1;
  std::string reason; ///< one line: why
};

llvm::ArrayRef<KernelFamily> kernelFamilies();
/// The family named `name`, or null.
const KernelFamily *findKernelFamily(llvm::StringRef name);
/// The family's spec as embedded in the library.
llvm::StringRef familySpec(const KernelFamily &family);
/// The kernel of the family's spec: the spec file's name without ".tile"
/// (m_grouped_bf16_gemm_nn shares m_grouped_bf16_gemm_nt's spec and kernel,
/// with B_MN = 1).
llvm::StringRef familyKernelName(const KernelFamily &family);
/// SHA-256 of the spec text, 64 hex digits (computed once).
const std::string &familySpecHash(const KernelFamily &family);

/// The family's defaults for a dtype the caller left unset.
vocab::ElementType defaultInputType(const KernelFamily &family);

/// Chooses the configuration of `family` for `problem` on a GPU with
/// `smCount` SMs and `target` (empty: sm_90a). Returns "" on success, else a
/// message naming the bad argument (problem.m, problem.d_dtype, sm_count,
/// target, ...).
std::string chooseConfig(const KernelFamily &family, const GemmProblem &problem,
                         int64_t smCount, llvm::StringRef target,
                         KernelConfig &config);

/// The configuration of `problem`'s quick build: the same arithmetic
/// without what buys speed with compile time: a K loop unrolled, K blocks
/// taken in overlapped pairs (4-5x the compile at the 64x32 overlapped
/// tiles), two waves per warpgroup with multicast (a 128-row tile of one
/// wave instead of 256 rows in a cluster, about 0.7x the compile). It
/// computes the same bits in the same order, so a first call may run it
/// while the configuration compiles (the Python package's tiered JIT,
/// docs/python.md). False when `config` has no cheaper build.
bool quickBuild(const GemmProblem &problem, const KernelConfig &config,
                KernelConfig &quick);

/// The params as tilec -D arguments ("BLK_M=128", ...).
std::vector<std::string> configDefines(const KernelConfig &config);
/// The params joined by spaces: "ACCUMULATE=0 BLK_M=128 ...".
std::string configParamString(const KernelConfig &config);

/// The kernel key: SHA-256 (64 hex digits) of the family, its spec's hash,
/// the sorted params, the target and `compilerVersion`.
std::string kernelKey(const KernelConfig &config,
                      llvm::StringRef compilerVersion);

/// The shared memory tile-allocate-smem gives buffers of these (bytes,
/// alignment) plus `barriers` mbarriers: largest alignment first, then the
/// barriers 8-byte aligned. Exposed for the unit tests.
int64_t layoutSharedMemory(llvm::ArrayRef<std::pair<int64_t, int64_t>> buffers,
                           int64_t barriers);

} // namespace tilec::kernels

#endif // TILEC_LIB_KERNELS_KERNELCONFIGS_H

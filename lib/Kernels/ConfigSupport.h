//===- ConfigSupport.h - what the config functions share -------*- C++ -*-===//
//
// The pieces of KernelConfigs.cpp that the grouped families' config function
// (GroupedConfigs.cpp) uses too: the problem checks, the shared-memory
// layout of a configuration, and the B scales the 1D2D specs stage.
// Internal to lib/Kernels.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_KERNELS_CONFIGSUPPORT_H
#define TILEC_LIB_KERNELS_CONFIGSUPPORT_H

#include "lib/Kernels/KernelConfigs.h"

namespace tilec::kernels {

/// Fewer stages than this cannot hide TMA latency (DeepGEMM's floor too).
constexpr int64_t kMinStages = 3;
/// The specs' own ceiling (fp8_gemm_*.tile: at most 12).
constexpr int64_t kMaxStages = 12;

/// "" or a message naming the bad argument (problem.m, problem.d_dtype,
/// problem.num_groups, sm_count, target).
std::string checkProblem(const KernelFamily &family, const GemmProblem &problem,
                         int64_t smCount, llvm::StringRef target);

/// The dynamic shared memory of one configuration, buffer by buffer as the
/// family's spec declares them.
int64_t sharedBytes(const KernelFamily &family, int64_t blockM, int64_t blockN,
                    int64_t blockK, int64_t stages, unsigned outBytes,
                    int64_t stagedBlocks);

/// The most stages (kMinStages..kMaxStages) of a configuration that fit in
/// shared memory, 0 if none; drops \p stagedBlocks (the staged B scales of
/// a 1D2D spec) to 0 where staging them would cost a stage.
int64_t chooseStages(const KernelFamily &family, int64_t blockM, int64_t blockN,
                     int64_t blockK, unsigned outBytes, int64_t &stagedBlocks);

/// K blocks whose B scales a 1D2D spec stages in shared memory per tile
/// (its MAX_KB) for this K, or for any K with `whateverK`; 0 for the other
/// families.
int64_t stagedScaleBlocks(const KernelFamily &family, int64_t k,
                          bool whateverK = false);

/// chooseConfig for the M-grouped families (family.mGrouped); the problem
/// has passed checkProblem.
std::string chooseGroupedConfig(const KernelFamily &family,
                                const GemmProblem &problem, int64_t smCount,
                                KernelConfig &config);

} // namespace tilec::kernels

#endif // TILEC_LIB_KERNELS_CONFIGSUPPORT_H

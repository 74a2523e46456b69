//===- Ptxas.h - run ptxas and read its resource report ------------------===//

#ifndef TILEC_LIB_TARGET_PTXAS_H
#define TILEC_LIB_TARGET_PTXAS_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tilec {

/// What ptxas -v says about one kernel.
struct KernelResources {
  std::string name;
  int64_t registers = 0;
  int64_t stackFrameBytes = 0;
  int64_t spillStoreBytes = 0;
  int64_t spillLoadBytes = 0;
  int64_t sharedBytes = 0;   ///< static shared memory
  int64_t barriers = 0;
};

/// The result of one ptxas run.
struct PtxasResult {
  std::vector<uint8_t> cubin;
  std::vector<KernelResources> kernels;
  /// ptxas warnings tilec treats as errors (setmaxnreg ignored, serialised
  /// wgmma): they mean a slow kernel.
  std::vector<std::string> fatalWarnings;
  std::vector<std::string> warnings;
  std::string log;
};

/// The ptxas to use: $TILEC_PTXAS, then PATH, then $CUDA_HOME/bin and
/// /usr/local/cuda/bin. Empty when none is found.
std::string findPtxas();

/// Assembles `ptx` for `target`; on failure returns std::nullopt with a
/// message in `error` (ptxas's own output included).
std::optional<PtxasResult> runPtxas(llvm::StringRef ptx, llvm::StringRef target,
                                    int optLevel, std::string &error);

/// Parses ptxas -v output (exposed for unit tests).
void parsePtxasLog(llvm::StringRef log, PtxasResult &result);

} // namespace tilec

#endif // TILEC_LIB_TARGET_PTXAS_H

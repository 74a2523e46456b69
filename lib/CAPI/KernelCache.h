//===- KernelCache.h - kernels by problem: config, key, caches --*- C++ -*-===//
//
// tilec_get_kernel's C++ side: problem -> configuration (lib/Kernels) -> key
// -> in-memory cache -> disk cache -> compile, then stored in both. One
// process-wide instance; thread-safe. A problem seen before costs a hash
// lookup; a kernel compiles once even when several threads ask for it at
// the same moment (the others wait for it).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_CAPI_KERNELCACHE_H
#define TILEC_LIB_CAPI_KERNELCACHE_H

#include "lib/Kernels/KernelConfigs.h"
#include "tilec/tilec_compiler.h"

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tilec {

/// One kernel the cache holds; it lives until the process ends.
struct CachedKernel {
  std::string key;
  std::vector<uint8_t> bundle;
  std::string kernelName;
  unsigned threads = 0;
  std::array<unsigned, 3> cluster = {1, 1, 1};
  int64_t sharedBytes = 0;
};

/// A problem seen before: its configuration, with the strings the C API
/// hands out made once. Immutable once made.
struct ProblemEntry {
  kernels::KernelConfig config;
  std::string key;    ///< kernels::kernelKey
  std::string params; ///< kernels::configParamString
};

/// What one lookup found.
struct KernelLookup {
  const CachedKernel *kernel = nullptr;
  std::shared_ptr<const ProblemEntry> problem;
  tilec_kernel_source source = TILEC_KERNEL_SOURCE_NONE;
  double seconds = 0;
};

class KernelCache {
public:
  static KernelCache &instance();

  /// Finds or builds the kernel; `flags` are tilec_kernel_flags (the quick
  /// build; TILEC_COMPILER_NOT_CACHED instead of a compile, also while
  /// another thread compiles it). On failure returns the status and sets
  /// `error`.
  tilec_compiler_status get(const kernels::KernelFamily &family,
                            const kernels::GemmProblem &problem,
                            int64_t smCount, llvm::StringRef target,
                            int32_t flags, KernelLookup &result,
                            std::string &error);

  /// Forgets what is in memory (kernels handed out stay valid).
  void clearMemory();

private:
  struct Impl;
  KernelCache();
  Impl *impl;
};

/// The compiler version kernel keys use (TILEC_COMPILER_VERSION).
const char *compilerVersion();

} // namespace tilec

#endif // TILEC_LIB_CAPI_KERNELCACHE_H

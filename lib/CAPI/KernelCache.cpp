//===- KernelCache.cpp - kernels by problem: config, key, caches ---------===//

#include "lib/CAPI/KernelCache.h"

#include "lib/CAPI/Compilation.h"
#include "lib/CAPI/DiskCache.h"

#include "tilec/bundle/Bundle.h"

#include "llvm/ADT/Hashing.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>

using namespace llvm;

namespace tilec {
namespace {

/// One kernel key: filled once, under its own mutex, so that two threads
/// asking for one new kernel compile it once.
struct Slot {
  std::mutex mutex;
  std::unique_ptr<CachedKernel> owned;
  std::atomic<const CachedKernel *> kernel{nullptr};
};

/// The problem as the memory cache's key: the exact request, so that a hit
/// costs a hash and a compare (no config, no strings).
struct ProblemKey {
  const kernels::KernelFamily *family;
  int64_t m, n, k, smCount;
  vocab::ElementType a, b, d;
  bool accumulate;
  vocab::Target target;
  int64_t numGroups, groupLayout, mkAlignment; ///< M-grouped families
  bool quick; ///< the configuration's quick build

  bool operator==(const ProblemKey &o) const {
    return quick == o.quick && family == o.family && m == o.m && n == o.n &&
           k == o.k && smCount == o.smCount && a == o.a && b == o.b &&
           d == o.d && accumulate == o.accumulate && target == o.target &&
           numGroups == o.numGroups && groupLayout == o.groupLayout &&
           mkAlignment == o.mkAlignment;
  }
};

struct ProblemKeyHash {
  size_t operator()(const ProblemKey &p) const {
    return llvm::hash_combine(p.family, p.m, p.n, p.k, p.smCount,
                              static_cast<int>(p.a), static_cast<int>(p.b),
                              static_cast<int>(p.d), p.accumulate,
                              static_cast<int>(p.target), p.numGroups,
                              p.groupLayout, p.mkAlignment, p.quick);
  }
};

/// A problem entry and the slot of its kernel.
struct ProblemSlot {
  std::shared_ptr<const ProblemEntry> entry;
  std::shared_ptr<Slot> slot;
};

void printConfig(const kernels::GemmProblem &p, int64_t smCount,
                 const kernels::KernelConfig &c) {
  std::string line = formatv(
      "tilec: {0} M={1} N={2} K={3}{15} ({4} x {5} -> {6}{7}) on {8} SMs, "
      "{9}: {10}; {11} tiles, {12} threads, {13} bytes of shared memory; "
      "{14}\n",
      c.family->name, p.m, p.n, p.k, vocab::toString(p.a), vocab::toString(p.b),
      vocab::toString(p.d), p.accumulate ? ", D +=" : "", smCount, c.target,
      kernels::configParamString(c), c.numTiles, c.threads, c.sharedBytes,
      c.reason,
      p.numGroups ? formatv(" in {0} groups", p.numGroups).str() : "");
  std::fputs(line.c_str(), stderr);
}

/// Reads the kernel's launch facts from its bundle; false if it is not one.
bool describe(std::vector<uint8_t> bytes, StringRef key, StringRef target,
              CachedKernel &kernel) {
  bundle::Bundle parsed;
  std::string error;
  if (!bundle::parseBundle(bytes.data(), bytes.size(), parsed, error) ||
      parsed.kernels.size() != 1 || parsed.target != target)
    return false;
  const bundle::Kernel &k = parsed.kernels.front();
  kernel.key = key.str();
  kernel.kernelName = k.name;
  kernel.threads = k.block[0] * k.block[1] * k.block[2];
  kernel.cluster = {k.cluster[0], k.cluster[1], k.cluster[2]};
  kernel.sharedBytes = k.dynamicSharedBytes;
  kernel.bundle = std::move(bytes);
  return true;
}

/// Compiles the family's embedded spec with the configuration's params.
tilec_compiler_status compile(const kernels::KernelConfig &config,
                              std::vector<uint8_t> &bytes, std::string &error) {
  CompileOptions options;
  options.target = config.target;
  options.defines = kernels::configDefines(config);
  std::string diagnostics;
  raw_string_ostream diag(diagnostics);
  if (compileToBundle(kernels::familySpec(*config.family),
                      config.family->specFile, options, bytes, diag))
    return TILEC_COMPILER_OK;
  error = formatv("{0} with {1} did not compile:\n{2}", config.family->name,
                  kernels::configParamString(config), diagnostics);
  return TILEC_COMPILER_ERROR_COMPILE;
}

} // namespace

struct KernelCache::Impl {
  std::mutex mutex; ///< guards the maps
  std::unordered_map<ProblemKey, ProblemSlot, ProblemKeyHash> problems;
  std::unordered_map<std::string, std::shared_ptr<Slot>> slots;
  /// Slots forgotten by clearMemory: their kernels were handed out.
  std::vector<std::shared_ptr<Slot>> retired;

  /// Fills `slot` from the disk cache or by compiling, under its mutex.
  tilec_compiler_status fill(Slot &slot, const kernels::KernelConfig &config,
                             const std::string &key, bool cachedOnly,
                             KernelLookup &result, std::string &error);
};

KernelCache::KernelCache() : impl(new Impl) {}

KernelCache &KernelCache::instance() {
  // Never destroyed: kernels handed out stay valid until the process ends.
  static KernelCache *cache = new KernelCache;
  return *cache;
}

tilec_compiler_status
KernelCache::Impl::fill(Slot &slot, const kernels::KernelConfig &config,
                        const std::string &key, bool cachedOnly,
                        KernelLookup &result, std::string &error) {
  auto start = std::chrono::steady_clock::now();
  auto seconds = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         start)
        .count();
  };
  std::string dirError;
  std::string dir = cacheDirFromEnvironment(dirError);
  if (!dirError.empty()) {
    error = dirError;
    return TILEC_COMPILER_ERROR_CACHE;
  }
  DiskCache disk(dir);
  if (!dir.empty()) {
    if (std::string why = disk.prepare(); !why.empty()) {
      error = why;
      return TILEC_COMPILER_ERROR_CACHE;
    }
  }
  auto kernel = std::make_unique<CachedKernel>();
  if (!dir.empty()) {
    if (std::optional<std::vector<uint8_t>> stored =
            disk.load(key, compilerVersion());
        stored && describe(std::move(*stored), key, config.target, *kernel))
      result.source = TILEC_KERNEL_SOURCE_DISK;
  }
  if (result.source != TILEC_KERNEL_SOURCE_DISK) {
    if (cachedOnly)
      return TILEC_COMPILER_NOT_CACHED;
    std::vector<uint8_t> bytes;
    if (tilec_compiler_status status = compile(config, bytes, error))
      return status;
    if (!dir.empty()) {
      if (std::string why = disk.store(key, compilerVersion(), bytes);
          !why.empty()) {
        error = why;
        return TILEC_COMPILER_ERROR_CACHE;
      }
    }
    if (!describe(std::move(bytes), key, config.target, *kernel)) {
      error = formatv("{0} with {1} compiled to an unreadable bundle",
                      config.family->name, kernels::configParamString(config));
      return TILEC_COMPILER_ERROR_INTERNAL;
    }
    result.source = TILEC_KERNEL_SOURCE_COMPILED;
    if (envFlag("TILEC_PRINT_COMPILES")) {
      std::string line =
          formatv("tilec: compiled {0} [{1}] for {2} in {3:f3} s (key {4})\n",
                  config.family->name, kernels::configParamString(config),
                  config.target, seconds(), StringRef(key).take_front(16));
      std::fputs(line.c_str(), stderr);
    }
  }
  result.seconds = seconds();
  slot.owned = std::move(kernel);
  slot.kernel.store(slot.owned.get(), std::memory_order_release);
  result.kernel = slot.owned.get();
  return TILEC_COMPILER_OK;
}

tilec_compiler_status KernelCache::get(const kernels::KernelFamily &family,
                                       const kernels::GemmProblem &problem,
                                       int64_t smCount, StringRef target,
                                       int32_t flags, KernelLookup &result,
                                       std::string &error) {
  result = KernelLookup();
  const bool quick = flags & TILEC_KERNEL_QUICK;
  const bool cachedOnly = flags & TILEC_KERNEL_CACHED_ONLY;
  std::optional<vocab::Target> parsedTarget =
      target.empty() ? vocab::kDefaultTarget : vocab::parseTarget(target);
  // An unknown target has no entry; chooseConfig below names it.
  ProblemKey problemKey{&family,
                        problem.m,
                        problem.n,
                        problem.k,
                        smCount,
                        problem.a,
                        problem.b,
                        problem.d,
                        problem.accumulate,
                        parsedTarget.value_or(vocab::kDefaultTarget),
                        problem.numGroups,
                        problem.groupLayout,
                        problem.mkAlignment,
                        quick};
  std::shared_ptr<Slot> slot;
  if (parsedTarget) {
    std::lock_guard<std::mutex> lock(impl->mutex);
    auto it = impl->problems.find(problemKey);
    if (it != impl->problems.end()) {
      result.problem = it->second.entry;
      slot = it->second.slot;
    }
  }
  if (slot) {
    if (const CachedKernel *kernel =
            slot->kernel.load(std::memory_order_acquire)) {
      result.kernel = kernel;
      result.source = TILEC_KERNEL_SOURCE_MEMORY;
      return TILEC_COMPILER_OK;
    }
  } else {
    auto entry = std::make_shared<ProblemEntry>();
    error =
        kernels::chooseConfig(family, problem, smCount, target, entry->config);
    if (!error.empty())
      return TILEC_COMPILER_ERROR_INVALID_ARGUMENT;
    kernels::KernelConfig cheaper;
    if (quick && kernels::quickBuild(problem, entry->config, cheaper))
      entry->config = std::move(cheaper);
    if (envFlag("TILEC_PRINT_CONFIGS"))
      printConfig(problem, smCount, entry->config);
    entry->key = kernels::kernelKey(entry->config, compilerVersion());
    entry->params = kernels::configParamString(entry->config);
    std::lock_guard<std::mutex> lock(impl->mutex);
    std::shared_ptr<Slot> &keySlot = impl->slots[entry->key];
    if (!keySlot)
      keySlot = std::make_shared<Slot>();
    slot = keySlot;
    result.problem = entry;
    impl->problems.emplace(problemKey, ProblemSlot{std::move(entry), slot});
  }

  // A cached-only lookup does not wait for another thread's compile.
  std::unique_lock<std::mutex> lock(slot->mutex, std::defer_lock);
  if (!cachedOnly)
    lock.lock();
  else if (!lock.try_lock())
    return TILEC_COMPILER_NOT_CACHED;
  if (const CachedKernel *kernel = slot->kernel.load()) {
    // Another thread, or another problem with the same kernel, filled it.
    result.kernel = kernel;
    result.source = TILEC_KERNEL_SOURCE_MEMORY;
    return TILEC_COMPILER_OK;
  }
  return impl->fill(*slot, result.problem->config, result.problem->key,
                    cachedOnly, result, error);
}

void KernelCache::clearMemory() {
  std::lock_guard<std::mutex> lock(impl->mutex);
  for (auto &entry : impl->slots)
    impl->retired.push_back(std::move(entry.second));
  impl->slots.clear();
  impl->problems.clear();
}

} // namespace tilec

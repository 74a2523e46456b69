//===- DiskCache.h - compiled kernels on disk, one file per key -*- C++ -*-===//
//
// A cache entry is `<dir>/kernels/<key>.kernel`: a short text header (key,
// compiler version, payload size and SHA-256) and the bundle bytes. Writers
// write a temporary file in the same directory, fsync it and rename it over
// the entry, so that several processes (and shared filesystems) may fill one
// cache and a reader never sees a partial entry. An entry that is truncated,
// corrupt or from another compiler is a miss, and the next store replaces it.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_CAPI_DISKCACHE_H
#define TILEC_LIB_CAPI_DISKCACHE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tilec {

class DiskCache {
public:
  /// `dir` is the cache's root ($TILEC_CACHE_DIR).
  explicit DiskCache(std::string dir) : dir(std::move(dir)) {}

  /// Creates the directory and checks that it can be written. Returns "" or
  /// a message that names the directory and the reason.
  std::string prepare() const;

  /// The payload stored for `key` by compiler `version`, or nullopt when
  /// there is none or it is unusable (a miss).
  std::optional<std::vector<uint8_t>> load(llvm::StringRef key,
                                           llvm::StringRef version) const;

  /// Stores `payload` for `key` atomically. Returns "" or why not.
  std::string store(llvm::StringRef key, llvm::StringRef version,
                    llvm::ArrayRef<uint8_t> payload) const;

  /// Where the entry of `key` lives.
  std::string entryPath(llvm::StringRef key) const;
  const std::string &root() const { return dir; }

private:
  std::string entryDir() const;
  std::string dir;
};

/// The directory the environment names: $TILEC_CACHE_DIR, else
/// $HOME/.cache/tilec; empty when TILEC_DISABLE_CACHE=1 or neither is set
/// (`error` then says which, if the cache is not disabled).
std::string cacheDirFromEnvironment(std::string &error);

/// True when the environment variable `name` is set to something other
/// than "", "0", "false", "off" or "no".
bool envFlag(const char *name);

} // namespace tilec

#endif // TILEC_LIB_CAPI_DISKCACHE_H

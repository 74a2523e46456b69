//===- DiskCache.cpp - compiled kernels on disk, one file per key --------===//

#include "lib/CAPI/DiskCache.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Errno.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"

#include <cerrno>
#include <cstdlib>
#include <fcntl.h>
#include <unistd.h>

using namespace llvm;

namespace tilec {
namespace {

constexpr StringLiteral kMagic = "tilec kernel cache 1\n";

std::string sha256Hex(ArrayRef<uint8_t> bytes) {
  return toHex(SHA256::hash(bytes), /*LowerCase=*/true);
}

std::string header(StringRef key, StringRef version,
                   ArrayRef<uint8_t> payload) {
  return formatv("{0}key={1}\ncompiler={2}\nsize={3}\nsha256={4}\n\n", kMagic,
                 key, version, payload.size(), sha256Hex(payload));
}

/// Writes all of `bytes` to `fd`, retrying short writes and EINTR.
bool writeAll(int fd, StringRef bytes) {
  while (!bytes.empty()) {
    ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    bytes = bytes.drop_front(n);
  }
  return true;
}

} // namespace

std::string DiskCache::entryDir() const {
  SmallString<256> path(dir);
  sys::path::append(path, "kernels");
  return std::string(path);
}

std::string DiskCache::entryPath(StringRef key) const {
  SmallString<256> path(entryDir());
  sys::path::append(path, key + ".kernel");
  return std::string(path);
}

std::string DiskCache::prepare() const {
  std::string entries = entryDir();
  if (std::error_code ec = sys::fs::create_directories(entries))
    return formatv("cache directory '{0}' cannot be created: {1} (set "
                   "TILEC_CACHE_DIR to a writable directory, or "
                   "TILEC_DISABLE_CACHE=1)",
                   entries, ec.message());
  if (::access(entries.c_str(), W_OK | X_OK) != 0)
    return formatv("cache directory '{0}' is not writable: {1} (set "
                   "TILEC_CACHE_DIR to a writable directory, or "
                   "TILEC_DISABLE_CACHE=1)",
                   entries, sys::StrError(errno));
  return {};
}

std::optional<std::vector<uint8_t>> DiskCache::load(StringRef key,
                                                    StringRef version) const {
  ErrorOr<std::unique_ptr<MemoryBuffer>> file =
      MemoryBuffer::getFile(entryPath(key), /*IsText=*/false,
                            /*RequiresNullTerminator=*/false);
  if (!file)
    return std::nullopt;
  StringRef text = (*file)->getBuffer();
  size_t end = text.find("\n\n");
  if (!text.starts_with(kMagic) || end == StringRef::npos)
    return std::nullopt;
  StringRef head = text.take_front(end + 1).drop_front(kMagic.size());
  StringRef body = text.drop_front(end + 2);
  StringRef storedKey, storedVersion, storedSize, storedHash;
  while (!head.empty()) {
    auto [line, rest] = head.split('\n');
    head = rest;
    auto [name, value] = line.split('=');
    if (name == "key")
      storedKey = value;
    else if (name == "compiler")
      storedVersion = value;
    else if (name == "size")
      storedSize = value;
    else if (name == "sha256")
      storedHash = value;
  }
  uint64_t size = 0;
  ArrayRef<uint8_t> payload = arrayRefFromStringRef(body);
  if (storedKey != key || storedVersion != version ||
      storedSize.getAsInteger(10, size) || size != payload.size() ||
      storedHash != sha256Hex(payload))
    return std::nullopt;
  return std::vector<uint8_t>(payload.begin(), payload.end());
}

std::string DiskCache::store(StringRef key, StringRef version,
                             ArrayRef<uint8_t> payload) const {
  std::string path = entryPath(key);
  // The temporary file is in the entry's directory, so that rename() is
  // atomic; its name is unique to this writer.
  SmallString<256> temp;
  int fd = -1;
  if (std::error_code ec = sys::fs::createUniqueFile(
          entryDir() + "/." + key + ".%%%%%%%%.tmp", fd, temp))
    return formatv("cannot write the cache entry '{0}': {1}", path,
                   ec.message());
  bool written = writeAll(fd, header(key, version, payload)) &&
                 writeAll(fd, toStringRef(payload)) && ::fsync(fd) == 0;
  int savedErrno = errno;
  written = ::close(fd) == 0 && written;
  if (!written) {
    sys::fs::remove(temp);
    return formatv("cannot write the cache entry '{0}': {1}", temp,
                   sys::StrError(savedErrno));
  }
  if (std::error_code ec = sys::fs::rename(temp, path)) {
    sys::fs::remove(temp);
    return formatv("cannot rename '{0}' to '{1}': {2}", temp, path,
                   ec.message());
  }
  // The rename itself survives a crash once the directory is synced.
  int dirFd = ::open(entryDir().c_str(), O_RDONLY | O_DIRECTORY);
  if (dirFd >= 0) {
    ::fsync(dirFd);
    ::close(dirFd);
  }
  return {};
}

bool envFlag(const char *name) {
  const char *value = std::getenv(name);
  if (!value)
    return false;
  StringRef v(value);
  return !(v.empty() || v == "0" || v.equals_insensitive("false") ||
           v.equals_insensitive("off") || v.equals_insensitive("no"));
}

std::string cacheDirFromEnvironment(std::string &error) {
  error.clear();
  if (envFlag("TILEC_DISABLE_CACHE"))
    return {};
  if (const char *dir = std::getenv("TILEC_CACHE_DIR"); dir && *dir)
    return dir;
  if (const char *home = std::getenv("HOME"); home && *home) {
    SmallString<256> path(home);
    sys::path::append(path, ".cache", "tilec");
    return std::string(path);
  }
  error = "no cache directory: set TILEC_CACHE_DIR (HOME is not set), or "
          "TILEC_DISABLE_CACHE=1";
  return {};
}

} // namespace tilec

//===- GlibcCompat.cpp - keep the library loadable on glibc 2.34 ---------===//
//
// Debian's static LLVM calls arc4random (glibc 2.36) for random numbers. A
// definition here, private to libtilec_compiler.so (exports.map keeps only
// tilec_*), satisfies that call, so the library needs no glibc newer than
// 2.34 (Ubuntu 22.04) instead of 2.36.
//
//===----------------------------------------------------------------------===//

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <sys/random.h>

extern "C" uint32_t arc4random(void) {
  uint32_t value = 0;
  for (int attempt = 0; attempt < 16; ++attempt) {
    if (getrandom(&value, sizeof(value), 0) == sizeof(value))
      return value;
    if (errno != EINTR && errno != EAGAIN)
      break;
  }
  // No getrandom (a very old kernel): the clock still makes temporary file
  // names unlikely to collide, which is all LLVM asks of it here.
  auto ticks = std::chrono::steady_clock::now().time_since_epoch().count();
  return static_cast<uint32_t>(ticks ^ (ticks >> 32)) ^
         static_cast<uint32_t>(reinterpret_cast<uintptr_t>(&value));
}

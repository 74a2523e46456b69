//===- EmbeddedSpecs.h - the kernel library's specs, built in ---*- C++ -*-===//
//
// EmbedSpecs.cmake writes the definitions at build time from
// lib/Kernels/*.tile, so the compiler library carries its specs.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_KERNELS_EMBEDDEDSPECS_H
#define TILEC_LIB_KERNELS_EMBEDDEDSPECS_H

#include <cstddef>

namespace tilec::kernels {

struct EmbeddedSpec {
  const char *fileName; ///< e.g. "fp8_gemm_1d2d.tile"
  const char *text;     ///< NUL-terminated
  size_t size;          ///< bytes, without the NUL
};

extern const EmbeddedSpec kEmbeddedSpecs[];
extern const size_t kNumEmbeddedSpecs;

} // namespace tilec::kernels

#endif // TILEC_LIB_KERNELS_EMBEDDEDSPECS_H

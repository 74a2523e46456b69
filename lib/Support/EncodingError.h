//===- EncodingError.h - The error of a hardware encoding check -*- C++ -*-===//
//
// Part of tilec. TileSupport is compiler-only: LLVM Support, no MLIR or CUDA.
//
//===----------------------------------------------------------------------===//
//
// TileSupport functions return llvm::Expected<T> (a value or the reason it
// could not be computed) or, for pure checks, llvm::Error. The message is
// lowercase, has no period and names the offending numbers; the lowering
// turns it into a diagnostic at the op's location. Nothing in TileSupport
// asserts on user-controlled input.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_SUPPORT_ENCODINGERROR_H
#define TILEC_SUPPORT_ENCODINGERROR_H

#include "llvm/Support/Error.h"
#include "llvm/Support/FormatVariadic.h"

#include <utility>

namespace tilec {

/// An error whose message is llvm::formatv(\p Fmt, \p Vals...).
/// Why: encoders must reject illegal shapes with a message the compiler can
/// show, instead of producing a descriptor the hardware silently misreads.
template <typename... Ts>
llvm::Error encodingError(const char *Fmt, Ts &&...Vals) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 llvm::formatv(Fmt, std::forward<Ts>(Vals)...));
}

} // namespace tilec

#endif // TILEC_SUPPORT_ENCODINGERROR_H

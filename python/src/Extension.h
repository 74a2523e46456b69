//===- Extension.h - What the extension's files share -----------*- C++ -*-===//
//
// A kernel reference (a loaded kernel, or parsed metadata for CPU-only
// "dry" checks), the conversion of runtime errors into Python exceptions and
// the launch of a filled argument array, used by the bindings (Module.cpp)
// and the dispatcher's fast path (Dispatcher.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_PYTHON_EXTENSION_H
#define TILEC_PYTHON_EXTENSION_H

#include "tilec/Runtime.h"

#include <nanobind/nanobind.h>

namespace tilec::python {

namespace nb = nanobind;

/// Most arguments one kernel takes through the extension.
constexpr size_t kMaxLaunchArgs = 32;

/// A kernel of a loaded module, or (kernel null) of a parsed bundle whose
/// launches only run the runtime's CPU checks.
struct KernelRef {
  rt::Kernel *kernel = nullptr;
  const bundle::Kernel *meta = nullptr;
  /// The Module or Bundle object that owns the kernel, kept alive.
  nb::object owner;

  bool dry() const { return kernel == nullptr; }
};

/// The Python exception type tilec._C.TilecError (a RuntimeError with a
/// `status` attribute), created at import.
PyObject *tilecErrorType();
void createTilecErrorType(nb::module_ &module);

/// Throws \p error as a Python exception: ValueError for a wrong argument
/// (the message names it), TilecError otherwise.
[[noreturn]] void raiseError(const rt::Error &error);

/// torch's current stream on \p device; null for a dry kernel (which
/// launches nothing). Throws when torch cannot say.
void *currentStreamFor(const KernelRef &kernel, int32_t device);

/// Launches \p kernel with \p args on \p stream (checks only, for a dry
/// kernel). Throws on failure.
void launchOn(const KernelRef &kernel, const rt::Arg *args, size_t count,
              void *stream);

/// launchOn torch's current stream of \p device.
void launchOrCheck(const KernelRef &kernel, const rt::Arg *args, size_t count,
                   int32_t device);

} // namespace tilec::python

#endif // TILEC_PYTHON_EXTENSION_H

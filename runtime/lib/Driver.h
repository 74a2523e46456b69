//===- Driver.h - CUDA driver loaded at run time ----------------*- C++ -*-===//
//
// The runtime never links libcuda: it dlopens the driver on first use and
// resolves every entry point of DriverApi.def through cuGetProcAddress. On a
// machine without a driver, getDriver() returns null and one message that
// says so, and every public call forwards that message.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_RUNTIME_DRIVER_H
#define TILEC_RUNTIME_DRIVER_H

#include <cuda.h>

#include <string>

namespace tilec::rt {

/// Function pointers to the driver, one per row of DriverApi.def. The member
/// types come from cuda.h's own prototypes, so a call through them is checked
/// by the compiler exactly like a call to the linked function.
struct DriverApi {
#define TILEC_DRIVER_SYMBOL(name, cudaVersion) decltype(&::name) name = nullptr;
#include "DriverApi.def"
};

/// Loads the driver once per process (thread-safe) and returns it, or null
/// with \p error set to the reason ("CUDA driver not available: ...").
/// The environment variable TILEC_CUDA_DRIVER names another library to load
/// instead of libcuda.so.1 (used by tests of the no-driver path).
const DriverApi *getDriver(std::string &error);

/// "CUDA_ERROR_INVALID_VALUE (invalid argument)" for \p result.
std::string describe(const DriverApi &driver, CUresult result);

} // namespace tilec::rt

#endif // TILEC_RUNTIME_DRIVER_H

//===- Driver.cpp - CUDA driver loaded at run time ------------------------===//
//
// dlopen of libcuda and resolution of the DriverApi.def table.
//
//===----------------------------------------------------------------------===//

#include "Driver.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>

namespace tilec::rt {

namespace {

/// cuGetProcAddress as exported since CUDA 12.5 (with a query result) and
/// before (without). Both are looked up by their exported names because the
/// unversioned name in cuda.h is a macro for the newer one.
using GetProcAddressV2 = CUresult (*)(const char *, void **, int, cuuint64_t,
                                      CUdriverProcAddressQueryResult *);
using GetProcAddressV1 = CUresult (*)(const char *, void **, int, cuuint64_t);

struct LoadedDriver {
  DriverApi api;
  std::string error; // empty when the driver loaded
};

std::string notAvailable(const std::string &why) {
  return "CUDA driver not available: " + why +
         ". The tilec runtime needs the NVIDIA driver (libcuda.so.1) and a "
         "GPU at run time";
}

void loadDriver(LoadedDriver &loaded) {
  void *library = nullptr;
  std::string tried;
  if (const char *overridePath = std::getenv("TILEC_CUDA_DRIVER")) {
    library = dlopen(overridePath, RTLD_NOW | RTLD_LOCAL);
    tried = overridePath;
  } else {
    for (const char *name : {"libcuda.so.1", "libcuda.so"}) {
      library = dlopen(name, RTLD_NOW | RTLD_LOCAL);
      if (library)
        break;
      tried += tried.empty() ? name : std::string(" or ") + name;
    }
  }
  if (!library) {
    const char *reason = dlerror();
    loaded.error = notAvailable(
        "cannot load " + tried +
        (reason ? std::string(" (") + reason + ")" : std::string()));
    return;
  }
  // The library stays loaded for the life of the process: function pointers
  // into it are handed out, and unloading a driver is never safe.
  auto getProcV2 =
      reinterpret_cast<GetProcAddressV2>(dlsym(library, "cuGetProcAddress_v2"));
  auto getProcV1 =
      reinterpret_cast<GetProcAddressV1>(dlsym(library, "cuGetProcAddress"));
  if (!getProcV2 && !getProcV1) {
    loaded.error = notAvailable("the loaded driver has no cuGetProcAddress "
                                "(CUDA 11.3 or newer is required)");
    return;
  }
  // Legacy-stream variants: a null stream is the legacy default stream, as
  // in torch and the CUDA runtime's default build.
  auto resolve = [&](const char *name, int cudaVersion, void **out) {
    if (getProcV2) {
      CUdriverProcAddressQueryResult status;
      return getProcV2(name, out, cudaVersion,
                       CU_GET_PROC_ADDRESS_LEGACY_STREAM,
                       &status) == CUDA_SUCCESS &&
             status == CU_GET_PROC_ADDRESS_SUCCESS;
    }
    return getProcV1(name, out, cudaVersion,
                     CU_GET_PROC_ADDRESS_LEGACY_STREAM) == CUDA_SUCCESS;
  };
#define TILEC_DRIVER_SYMBOL(name, cudaVersion)                                 \
  if (!resolve(#name, cudaVersion,                                             \
               reinterpret_cast<void **>(&loaded.api.name)) ||                 \
      !loaded.api.name) {                                                      \
    loaded.error = notAvailable("the driver does not provide " #name           \
                                " (version " #cudaVersion ")");                \
    return;                                                                    \
  }
#include "DriverApi.def"

  CUresult initResult = loaded.api.cuInit(0);
  if (initResult != CUDA_SUCCESS)
    loaded.error =
        notAvailable("cuInit failed with " + describe(loaded.api, initResult));
}

} // namespace

const DriverApi *getDriver(std::string &error) {
  static LoadedDriver loaded;
  static std::once_flag once;
  std::call_once(once, [] { loadDriver(loaded); });
  if (!loaded.error.empty()) {
    error = loaded.error;
    return nullptr;
  }
  return &loaded.api;
}

std::string describe(const DriverApi &driver, CUresult result) {
  const char *name = nullptr;
  const char *text = nullptr;
  if (driver.cuGetErrorName)
    driver.cuGetErrorName(result, &name);
  if (driver.cuGetErrorString)
    driver.cuGetErrorString(result, &text);
  std::string out = name ? name : "CUDA error " + std::to_string(result);
  if (text)
    out += std::string(" (") + text + ")";
  return out;
}

} // namespace tilec::rt

//===- FakeCuda.cpp - A recording stand-in for libcuda --------------------===//
//
// The fakes behind FakeCuda.h. Only cuGetProcAddress(_v2) and
// fakecuda_state are exported, as the runtime may look up nothing else.
//
//===----------------------------------------------------------------------===//

#include "FakeCuda.h"

#include <cstring>

#define FAKE_EXPORT extern "C" __attribute__((visibility("default")))

using fakecuda::State;

namespace {

State &state() {
  static State instance;
  return instance;
}

/// The primary context the fake hands out, and each thread's stack.
CUcontext const kPrimary = reinterpret_cast<CUcontext>(0x1000);
thread_local std::vector<CUcontext> contextStack;

CUresult fakeGetErrorName(CUresult error, const char **name) {
  *name = error == CUDA_ERROR_INVALID_VALUE ? "CUDA_ERROR_INVALID_VALUE"
          : error == CUDA_ERROR_INVALID_PTX ? "CUDA_ERROR_INVALID_PTX"
                                            : "CUDA_ERROR_UNKNOWN";
  return CUDA_SUCCESS;
}

CUresult fakeGetErrorString(CUresult error, const char **text) {
  *text =
      error == CUDA_ERROR_INVALID_VALUE ? "invalid argument" : "fake failure";
  return CUDA_SUCCESS;
}

CUresult fakeInit(unsigned) { return CUDA_SUCCESS; }
CUresult fakeDriverGetVersion(int *version) {
  *version = 13000;
  return CUDA_SUCCESS;
}
CUresult fakeDeviceGet(CUdevice *device, int ordinal) {
  *device = ordinal;
  return CUDA_SUCCESS;
}
CUresult fakeDeviceGetCount(int *count) {
  *count = 1;
  return CUDA_SUCCESS;
}
CUresult fakeDeviceGetAttribute(int *value, CUdevice_attribute attribute,
                                CUdevice) {
  std::lock_guard<std::mutex> lock(state().mutex);
  switch (attribute) {
  case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT:
    *value = state().smCount;
    return CUDA_SUCCESS;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
    *value = 9;
    return CUDA_SUCCESS;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
    *value = 0;
    return CUDA_SUCCESS;
  default:
    return CUDA_ERROR_INVALID_VALUE;
  }
}
CUresult fakePrimaryCtxRetain(CUcontext *context, CUdevice) {
  std::lock_guard<std::mutex> lock(state().mutex);
  ++state().primaryRetains;
  *context = kPrimary;
  return CUDA_SUCCESS;
}
CUresult fakePrimaryCtxRelease(CUdevice) { return CUDA_SUCCESS; }
CUresult fakeCtxGetCurrent(CUcontext *context) {
  *context = contextStack.empty() ? nullptr : contextStack.back();
  return CUDA_SUCCESS;
}
CUresult fakeCtxPushCurrent(CUcontext context) {
  std::lock_guard<std::mutex> lock(state().mutex);
  ++state().pushes;
  contextStack.push_back(context);
  return CUDA_SUCCESS;
}
CUresult fakeCtxPopCurrent(CUcontext *context) {
  std::lock_guard<std::mutex> lock(state().mutex);
  ++state().pops;
  if (contextStack.empty())
    return CUDA_ERROR_INVALID_CONTEXT;
  *context = contextStack.back();
  contextStack.pop_back();
  return CUDA_SUCCESS;
}
CUresult fakeCtxGetDevice(CUdevice *device) {
  *device = 0;
  return contextStack.empty() ? CUDA_ERROR_INVALID_CONTEXT : CUDA_SUCCESS;
}
CUresult fakeCtxSynchronize() { return CUDA_SUCCESS; }

CUresult fakeModuleLoadDataEx(CUmodule *module, const void *image,
                              unsigned count, CUjit_option *options,
                              void **values) {
  std::lock_guard<std::mutex> lock(state().mutex);
  if (contextStack.empty())
    return CUDA_ERROR_INVALID_CONTEXT;
  const std::string &bad = state().failLoadPrefix;
  if (std::memcmp(image, bad.data(), bad.size()) == 0) {
    for (unsigned i = 0; i < count; ++i)
      if (options[i] == CU_JIT_ERROR_LOG_BUFFER)
        std::strcpy(static_cast<char *>(values[i]), "ptxas fatal: fake");
    return CUDA_ERROR_INVALID_PTX;
  }
  const auto *bytes = static_cast<const uint8_t *>(image);
  state().lastImage.assign(bytes, bytes + 4); // the image is >= 4 bytes
  ++state().moduleLoads;
  *module = reinterpret_cast<CUmodule>(0x2000);
  return CUDA_SUCCESS;
}
CUresult fakeModuleUnload(CUmodule) {
  std::lock_guard<std::mutex> lock(state().mutex);
  ++state().moduleUnloads;
  return contextStack.empty() ? CUDA_ERROR_INVALID_CONTEXT : CUDA_SUCCESS;
}
CUresult fakeModuleGetFunction(CUfunction *function, CUmodule,
                               const char *name) {
  std::lock_guard<std::mutex> lock(state().mutex);
  auto it = state().functions.find(name);
  if (it == state().functions.end())
    return CUDA_ERROR_NOT_FOUND;
  // The handle is the interned name, so launches can say which kernel ran.
  *function = reinterpret_cast<CUfunction>(const_cast<char *>(it->c_str()));
  return CUDA_SUCCESS;
}
CUresult fakeFuncSetAttribute(CUfunction, CUfunction_attribute attribute,
                              int value) {
  std::lock_guard<std::mutex> lock(state().mutex);
  state().functionAttributes.push_back({attribute, value});
  return CUDA_SUCCESS;
}
CUresult fakeLaunchKernelEx(const CUlaunchConfig *config, CUfunction function,
                            void **params, void **extra) {
  std::lock_guard<std::mutex> lock(state().mutex);
  fakecuda::LaunchCall call = {};
  call.function = reinterpret_cast<const char *>(function);
  call.grid[0] = config->gridDimX;
  call.grid[1] = config->gridDimY;
  call.grid[2] = config->gridDimZ;
  call.block[0] = config->blockDimX;
  call.block[1] = config->blockDimY;
  call.block[2] = config->blockDimZ;
  call.sharedBytes = config->sharedMemBytes;
  call.stream = config->hStream;
  call.context = contextStack.empty() ? nullptr : contextStack.back();
  for (unsigned i = 0; i < config->numAttrs; ++i) {
    if (config->attrs[i].id != CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION)
      continue;
    call.hasCluster = true;
    call.cluster[0] = config->attrs[i].value.clusterDim.x;
    call.cluster[1] = config->attrs[i].value.clusterDim.y;
    call.cluster[2] = config->attrs[i].value.clusterDim.z;
  }
  for (size_t size : state().paramSizes[call.function]) {
    const auto *bytes = static_cast<const uint8_t *>(*params);
    call.params.emplace_back(bytes, bytes + size);
    call.aligned64.push_back(reinterpret_cast<uintptr_t>(*params) % 64 == 0);
    ++params;
  }
  state().launches.push_back(std::move(call));
  return extra ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
}
CUresult fakeOccupancyMaxActiveClusters(int *clusters, CUfunction,
                                        const CUlaunchConfig *config) {
  std::lock_guard<std::mutex> lock(state().mutex);
  unsigned clusterSize = 1;
  for (unsigned i = 0; i < config->numAttrs; ++i)
    if (config->attrs[i].id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION)
      clusterSize = config->attrs[i].value.clusterDim.x *
                    config->attrs[i].value.clusterDim.y *
                    config->attrs[i].value.clusterDim.z;
  *clusters = state().maxActiveClusters ? state().maxActiveClusters
                                        : state().smCount / int(clusterSize);
  return CUDA_SUCCESS;
}
CUresult fakeTensorMapEncodeTiled(
    CUtensorMap *map, CUtensorMapDataType dtype, cuuint32_t rank, void *address,
    const cuuint64_t *dims, const cuuint64_t *strides, const cuuint32_t *box,
    const cuuint32_t *elementStrides, CUtensorMapInterleave,
    CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2Promotion,
    CUtensorMapFloatOOBfill oobFill) {
  std::lock_guard<std::mutex> lock(state().mutex);
  auto pointer = reinterpret_cast<uint64_t>(address);
  if (pointer == state().failEncodeAddress)
    return CUDA_ERROR_INVALID_VALUE;
  fakecuda::EncodeCall call = {};
  call.dtype = dtype;
  call.rank = rank;
  call.address = pointer;
  call.dims.assign(dims, dims + rank);
  call.strides.assign(strides, strides + rank - 1);
  call.box.assign(box, box + rank);
  call.elementStrides.assign(elementStrides, elementStrides + rank);
  call.swizzle = swizzle;
  call.l2Promotion = l2Promotion;
  call.oobFill = oobFill;
  state().encodes.push_back(std::move(call));
  // A recognisable encoding: the address in every word.
  for (auto &word : map->opaque)
    word = pointer;
  return CUDA_SUCCESS;
}
CUresult fakeMemAlloc(CUdeviceptr *pointer, size_t bytes) {
  std::lock_guard<std::mutex> lock(state().mutex);
  uint64_t address = 0x100000 * (state().allocations.size() + 1);
  state().allocations[address].resize(bytes);
  *pointer = address;
  return CUDA_SUCCESS;
}
CUresult fakeMemFree(CUdeviceptr pointer) {
  std::lock_guard<std::mutex> lock(state().mutex);
  return state().allocations.erase(pointer) ? CUDA_SUCCESS
                                            : CUDA_ERROR_INVALID_VALUE;
}
CUresult fakeMemcpyHtoD(CUdeviceptr pointer, const void *host, size_t bytes) {
  std::lock_guard<std::mutex> lock(state().mutex);
  std::memcpy(state().allocations.at(pointer).data(), host, bytes);
  return CUDA_SUCCESS;
}
CUresult fakeMemcpyDtoH(void *host, CUdeviceptr pointer, size_t bytes) {
  std::lock_guard<std::mutex> lock(state().mutex);
  std::memcpy(host, state().allocations.at(pointer).data(), bytes);
  return CUDA_SUCCESS;
}
CUresult fakeStreamSynchronize(CUstream) { return CUDA_SUCCESS; }

struct Symbol {
  const char *name;
  void *function;
};

#define FAKE(name, fake)                                                       \
  { #name, reinterpret_cast < void *>(&fake) }
const Symbol kSymbols[] = {
    FAKE(cuGetErrorName, fakeGetErrorName),
    FAKE(cuGetErrorString, fakeGetErrorString),
    FAKE(cuInit, fakeInit),
    FAKE(cuDriverGetVersion, fakeDriverGetVersion),
    FAKE(cuDeviceGet, fakeDeviceGet),
    FAKE(cuDeviceGetCount, fakeDeviceGetCount),
    FAKE(cuDeviceGetAttribute, fakeDeviceGetAttribute),
    FAKE(cuDevicePrimaryCtxRetain, fakePrimaryCtxRetain),
    FAKE(cuDevicePrimaryCtxRelease, fakePrimaryCtxRelease),
    FAKE(cuCtxGetCurrent, fakeCtxGetCurrent),
    FAKE(cuCtxPushCurrent, fakeCtxPushCurrent),
    FAKE(cuCtxPopCurrent, fakeCtxPopCurrent),
    FAKE(cuCtxGetDevice, fakeCtxGetDevice),
    FAKE(cuCtxSynchronize, fakeCtxSynchronize),
    FAKE(cuModuleLoadDataEx, fakeModuleLoadDataEx),
    FAKE(cuModuleUnload, fakeModuleUnload),
    FAKE(cuModuleGetFunction, fakeModuleGetFunction),
    FAKE(cuFuncSetAttribute, fakeFuncSetAttribute),
    FAKE(cuLaunchKernelEx, fakeLaunchKernelEx),
    FAKE(cuOccupancyMaxActiveClusters, fakeOccupancyMaxActiveClusters),
    FAKE(cuTensorMapEncodeTiled, fakeTensorMapEncodeTiled),
    FAKE(cuMemAlloc, fakeMemAlloc),
    FAKE(cuMemFree, fakeMemFree),
    FAKE(cuMemcpyHtoD, fakeMemcpyHtoD),
    FAKE(cuMemcpyDtoH, fakeMemcpyDtoH),
    FAKE(cuStreamSynchronize, fakeStreamSynchronize),
};
#undef FAKE

} // namespace

FAKE_EXPORT CUresult
cuGetProcAddress_v2(const char *symbol, void **function, int cudaVersion,
                    cuuint64_t, CUdriverProcAddressQueryResult *status) {
  {
    std::lock_guard<std::mutex> lock(state().mutex);
    state().requestedVersions[symbol] = cudaVersion;
  }
  for (const Symbol &entry : kSymbols) {
    if (std::strcmp(entry.name, symbol) == 0) {
      *function = entry.function;
      if (status)
        *status = CU_GET_PROC_ADDRESS_SUCCESS;
      return CUDA_SUCCESS;
    }
  }
  *function = nullptr;
  if (status)
    *status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  return CUDA_ERROR_NOT_FOUND;
}

FAKE_EXPORT State *fakecuda_state() { return &state(); }

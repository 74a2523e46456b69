//===- FakeCuda.h - A recording stand-in for libcuda ------------*- C++ -*-===//
//
// libfakecuda.so exports cuGetProcAddress like the real driver and hands out
// fakes that record every call, so the runtime's driver path (symbol
// resolution, contexts, module load, attributes, tensor maps, the launch
// parameter array) can be tested on a machine without a GPU. Tests reach the
// recording through fakecuda_state().
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_TEST_UNIT_RUNTIME_FAKECUDA_H
#define TILEC_TEST_UNIT_RUNTIME_FAKECUDA_H

#include <cuda.h>

#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace fakecuda {

struct EncodeCall {
  CUtensorMapDataType dtype;
  uint32_t rank;
  uint64_t address;
  std::vector<uint64_t> dims, strides;
  std::vector<uint32_t> box, elementStrides;
  CUtensorMapSwizzle swizzle;
  CUtensorMapL2promotion l2Promotion;
  CUtensorMapFloatOOBfill oobFill;
};

struct LaunchCall {
  std::string function;
  unsigned grid[3], block[3], sharedBytes;
  CUstream stream;
  bool hasCluster;
  unsigned cluster[3];
  /// Parameter bytes, copied using State::paramSizes of the function.
  std::vector<std::vector<uint8_t>> params;
  /// Whether each parameter pointer was 64-byte aligned.
  std::vector<bool> aligned64;
  /// The context current during the launch.
  CUcontext context;
};

struct State {
  std::mutex mutex;
  /// cudaVersion asked for each symbol.
  std::map<std::string, int> requestedVersions;
  /// Kernels the loaded "module" contains.
  std::set<std::string> functions;
  /// Parameter sizes per kernel, for copying launch parameters.
  std::map<std::string, std::vector<size_t>> paramSizes;
  int smCount = 132;
  /// Clusters cuOccupancyMaxActiveClusters reports; 0: as many as SMs allow.
  int maxActiveClusters = 0;
  int moduleLoads = 0, moduleUnloads = 0;
  int pushes = 0, pops = 0, primaryRetains = 0;
  std::vector<uint8_t> lastImage;
  std::vector<std::pair<int, int>> functionAttributes;
  std::vector<EncodeCall> encodes;
  std::vector<LaunchCall> launches;
  /// Addresses whose encoding fails with CUDA_ERROR_INVALID_VALUE.
  uint64_t failEncodeAddress = 0;
  /// Images starting with these bytes fail to load with a JIT log.
  std::string failLoadPrefix = "BAD";
  /// Simulated device memory (cuMemAlloc hands out host memory).
  std::map<uint64_t, std::vector<uint8_t>> allocations;

  void reset() {
    std::lock_guard<std::mutex> lock(mutex);
    functions.clear();
    paramSizes.clear();
    smCount = 132;
    maxActiveClusters = 0;
    moduleLoads = moduleUnloads = pushes = pops = primaryRetains = 0;
    lastImage.clear();
    functionAttributes.clear();
    encodes.clear();
    launches.clear();
    failEncodeAddress = 0;
  }
};

} // namespace fakecuda

extern "C" fakecuda::State *fakecuda_state();

#endif // TILEC_TEST_UNIT_RUNTIME_FAKECUDA_H

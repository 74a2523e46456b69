// The driver's own launch cost on this machine, the floor under any
// library's: <<<>>> of an empty kernel, and cuLaunchKernelEx with three
// tensor maps' worth of parameters, with and without a cluster attribute.
#include <cuda.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <chrono>
struct __align__(64) Maps { char bytes[3 * 128]; };
__global__ void empty() {}
__global__ void withParams(const __grid_constant__ Maps maps, int m, int n, int k) {}
template <class F> double best(F f) { for (int i = 0; i < 200; ++i) f(); cudaDeviceSynchronize(); double b = 1e9;
  for (int r = 0; r < 5; ++r) { auto t = std::chrono::steady_clock::now(); for (int i = 0; i < 5000; ++i) f();
    double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t).count() / 5000;
    cudaDeviceSynchronize(); if (us < b) b = us; } return b; }
int main() {
  Maps maps = {}; int m = 128, n = 256, k = 256;
  printf("<<<1,32>>> empty: %.2f us\n", best([] { empty<<<1, 32>>>(); }));
  printf("<<<132,384>>> 3 maps: %.2f us\n", best([&] { withParams<<<132, 384>>>(maps, m, n, k); }));
  CUfunction f; cudaGetFuncBySymbol(&f, (const void *)withParams);
  CUcontext c; cuCtxGetCurrent(&c);
  printf("cuCtxGetCurrent: %.3f us\n", best([&] { CUcontext x; cuCtxGetCurrent(&x); }));
  void *params[] = {&maps, &m, &n, &k};
  CUlaunchConfig cfg = {}; cfg.gridDimX = 132; cfg.gridDimY = cfg.gridDimZ = 1; cfg.blockDimX = 384; cfg.blockDimY = cfg.blockDimZ = 1;
  CUlaunchAttribute attr = {}; attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION; attr.value.clusterDim.x = 2; attr.value.clusterDim.y = attr.value.clusterDim.z = 1;
  cfg.attrs = &attr; cfg.numAttrs = 1;
  printf("cuLaunchKernelEx 3 maps + cluster 2: %.2f us\n", best([&] { cuLaunchKernelEx(&cfg, f, params, nullptr); }));
  cfg.numAttrs = 0;
  printf("cuLaunchKernelEx 3 maps, no cluster attr: %.2f us\n", best([&] { cuLaunchKernelEx(&cfg, f, params, nullptr); }));
  return 0;
}

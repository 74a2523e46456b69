//===- tma_copy.cu - Reference TMA kernels for the runtime's GPU tests ----===//
//
// Hand-written stand-ins for what tilec emits, so that the GPU tests drive the
// runtime through exactly the path a tilec bundle takes: tensor maps passed
// by value as __grid_constant__ params (.param .align 64 .b8 [128]), TMA
// loads completing on an mbarrier, TMA stores, dynamic shared memory above
// 48 KiB, clusters, a persistent grid with i32 dim params, and pointer and
// scalar params. Metadata: tma_copy.json. Built with
//   nvcc -cubin -gencode arch=compute_90a,code=sm_90a tma_copy.cu
//
//===----------------------------------------------------------------------===//

#include <cuda.h>

#include <cstdint>

namespace {

__device__ inline uint32_t sharedAddress(const void *pointer) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(pointer));
}

/// 128B-swizzled TMA tiles must start on a 1024-byte boundary.
__device__ inline uint8_t *alignTo1024(uint8_t *pointer) {
  uint32_t offset = (1024 - (sharedAddress(pointer) & 1023)) & 1023;
  return pointer + offset;
}

__device__ inline void initBarrier(uint64_t *barrier, uint32_t arrivals) {
  asm volatile(
      "mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(sharedAddress(barrier)),
      "r"(arrivals));
  // Make the initialised barrier visible to the TMA unit (async proxy).
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

__device__ inline void arriveExpectBytes(uint64_t *barrier, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(
                   sharedAddress(barrier)),
               "r"(bytes)
               : "memory");
}

__device__ inline void waitPhase(uint64_t *barrier, uint32_t parity) {
  asm volatile("{\n"
               ".reg .pred done;\n"
               "WAIT_%=:\n"
               "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
               "@!done bra WAIT_%=;\n"
               "}" ::"r"(sharedAddress(barrier)),
               "r"(parity)
               : "memory");
}

/// Global -> shared: box at (column, row) of \p map, completing on
/// \p barrier.
__device__ inline void loadBox(void *destination, const CUtensorMap *map,
                               uint64_t *barrier, int column, int row) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::"
               "complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(
                   sharedAddress(destination)),
               "l"(reinterpret_cast<uint64_t>(map)), "r"(column), "r"(row),
               "r"(sharedAddress(barrier))
               : "memory");
}

/// Shared -> global: box at (column, row) of \p map. Out-of-bounds parts of
/// the box are dropped by the hardware.
__device__ inline void storeBox(const CUtensorMap *map, const void *source,
                                int column, int row) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group "
               "[%0, {%1, %2}], [%3];" ::"l"(reinterpret_cast<uint64_t>(map)),
               "r"(column), "r"(row), "r"(sharedAddress(source))
               : "memory");
}

__device__ inline void commitStores() {
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}

/// Waits until the stores have read shared memory (it may be reused).
__device__ inline void waitStoresRead() {
  asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
}

/// Waits until the stores are complete.
__device__ inline void waitStoresDone() {
  asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}

} // namespace

// Y = X for f32 matrices. Each CTA moves a 256 x 64 tile as two 256 x 32
// boxes (128 bytes wide: the 128B swizzle span), 64 KiB of dynamic shared
// memory, so the launch must raise the 48 KiB default.
extern "C" __global__ void __launch_bounds__(128, 1)
    tma_copy(const __grid_constant__ CUtensorMap x,
             const __grid_constant__ CUtensorMap y) {
  constexpr int kRows = 256, kBoxColumns = 32, kBoxes = 2;
  constexpr uint32_t kBoxBytes = kRows * kBoxColumns * sizeof(float);
  extern __shared__ __align__(1024) uint8_t dynamicShared[];
  __shared__ __align__(8) uint64_t full;
  uint8_t *tile = alignTo1024(dynamicShared);
  int column = blockIdx.x * kBoxColumns * kBoxes;
  int row = blockIdx.y * kRows;
  if (threadIdx.x == 0)
    initBarrier(&full, 1);
  __syncthreads();
  if (threadIdx.x == 0) {
    arriveExpectBytes(&full, kBoxes * kBoxBytes);
    for (int box = 0; box < kBoxes; ++box)
      loadBox(tile + box * kBoxBytes, &x, &full, column + box * kBoxColumns,
              row);
  }
  waitPhase(&full, 0);
  if (threadIdx.x == 0) {
    for (int box = 0; box < kBoxes; ++box)
      storeBox(&y, tile + box * kBoxBytes, column + box * kBoxColumns, row);
    commitStores();
    waitStoresDone();
  }
}

// Y = X for bf16 matrices with a persistent grid: each CTA walks the 64 x 32
// tiles (64 bytes wide, 64B swizzle) with a stride of the grid size, reusing
// one buffer and one barrier whose phase flips every tile.
extern "C" __global__ void __launch_bounds__(128, 1)
    tma_copy_persistent(const __grid_constant__ CUtensorMap x,
                        const __grid_constant__ CUtensorMap y, int rows,
                        int columns) {
  constexpr int kRows = 64, kColumns = 32;
  constexpr uint32_t kTileBytes = kRows * kColumns * sizeof(uint16_t);
  extern __shared__ __align__(1024) uint8_t dynamicShared[];
  __shared__ __align__(8) uint64_t full;
  uint8_t *tile = alignTo1024(dynamicShared);
  int tileColumns = (columns + kColumns - 1) / kColumns;
  int tiles = tileColumns * ((rows + kRows - 1) / kRows);
  if (threadIdx.x == 0)
    initBarrier(&full, 1);
  __syncthreads();
  uint32_t phase = 0;
  for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
    int column = (t % tileColumns) * kColumns;
    int row = (t / tileColumns) * kRows;
    if (threadIdx.x == 0) {
      arriveExpectBytes(&full, kTileBytes);
      loadBox(tile, &x, &full, column, row);
    }
    waitPhase(&full, phase);
    phase ^= 1;
    if (threadIdx.x == 0) {
      storeBox(&y, tile, column, row);
      commitStores();
      waitStoresRead();
    }
    // No thread may fall a phase behind the barrier.
    __syncthreads();
  }
  if (threadIdx.x == 0)
    waitStoresDone();
}

// Y = alpha * X for f32 vectors: pointer, dim and scalar params.
extern "C" __global__ void __launch_bounds__(256)
    scale(const float *x, float *y, int n, float alpha) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = alpha * x[i];
}

//===- GpuCheck.cu - TileSupport against a real Hopper GPU ----------------===//
//
// Not part of the CMake build (it needs nvcc and an sm_90 GPU). It checks, on
// the hardware, what the unit tests check against the sources:
//  - wgmma m64n64k16 bf16 with A K-major and B K-major or MN-major, for every
//    swizzle mode: operands placed with physicalByteOffset, descriptors from
//    wgmmaOperandDesc + smemDescAddressField, K steps from smemDescAdvance,
//    results read back through wgmmaAccumulatorCoord;
//  - TMA (cp.async.bulk.tensor.2d) with every swizzle mode: boxes from
//    planTmaBoxes land where physicalByteOffset says.
// Build and run from the repository root:
//   nvcc -std=c++17 -O2 -gencode=arch=compute_90a,code=sm_90a -I. \
//     -Iruntime/include -I/usr/lib/llvm-22/include \
//     test/unit/support/GpuCheck.cu lib/Support/*.cpp -lcuda \
//     -L/usr/lib/llvm-22/lib -lLLVM -Xlinker -rpath=/usr/lib/llvm-22/lib \
//     -o gpu-check
//   ./gpu-check    # prints one line per case and ALL CHECKS PASSED
//
//===----------------------------------------------------------------------===//
#include "lib/Support/Descriptors.h"
#include "lib/Support/TmaBoxes.h"
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda.h>
#include <cuda_runtime.h>
#include <vector>
using namespace tilec;

#define CK(x)                                                                  \
  do {                                                                         \
    cudaError_t E = (x);                                                       \
    if (E != cudaSuccess) {                                                    \
      printf("cuda error %s line %d\n", cudaGetErrorString(E), __LINE__);      \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

struct Incs {
  uint32_t A[4];
  uint32_t B[4];
};

template <int TransB>
__global__ void wgmmaKernel(const uint8_t *AImg, int ABytes,
                            const uint8_t *BImg, int BBytes, uint64_t DescA,
                            uint64_t DescB, Incs Inc, float *Out) {
  extern __shared__ uint8_t Raw[];
  uint32_t RawAddr = (uint32_t)__cvta_generic_to_shared(Raw);
  uint32_t Pad = (1024 - RawAddr % 1024) % 1024;
  uint8_t *Smem = Raw + Pad;
  const int OffB = 16384;
  int T = threadIdx.x;
  for (int I = T; I < ABytes; I += 128)
    Smem[I] = AImg[I];
  for (int I = T; I < BBytes; I += 128)
    Smem[OffB + I] = BImg[I];
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  uint32_t Base = RawAddr + Pad;
  uint64_t DA = DescA + ((Base & 0x3FFFF) >> 4);
  uint64_t DB = DescB + (((Base + OffB) & 0x3FFFF) >> 4);
  float D[32];
#pragma unroll
  for (int I = 0; I < 32; ++I)
    D[I] = 0.f;
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
  for (int K = 0; K < 4; ++K) {
    uint64_t A = DA + Inc.A[K], B = DB + Inc.B[K];
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {%0, "
                 "%1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, "
                 "%15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, "
                 "%27, %28, %29, %30, %31}, %32, %33, p, 1, 1, 0, %35;\n}\n"
                 : "+f"(D[0]), "+f"(D[1]), "+f"(D[2]), "+f"(D[3]), "+f"(D[4]),
                   "+f"(D[5]), "+f"(D[6]), "+f"(D[7]), "+f"(D[8]), "+f"(D[9]),
                   "+f"(D[10]), "+f"(D[11]), "+f"(D[12]), "+f"(D[13]),
                   "+f"(D[14]), "+f"(D[15]), "+f"(D[16]), "+f"(D[17]),
                   "+f"(D[18]), "+f"(D[19]), "+f"(D[20]), "+f"(D[21]),
                   "+f"(D[22]), "+f"(D[23]), "+f"(D[24]), "+f"(D[25]),
                   "+f"(D[26]), "+f"(D[27]), "+f"(D[28]), "+f"(D[29]),
                   "+f"(D[30]), "+f"(D[31])
                 : "l"(A), "l"(B), "r"(1), "n"(TransB));
  }
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
#pragma unroll
  for (int I = 0; I < 32; ++I)
    Out[T * 32 + I] = D[I];
}

struct BoxArgs {
  uint32_t N;
  uint32_t Col[16];
  uint32_t Row[16];
  uint32_t Smem[16];
};

__global__ void tmaKernel(const __grid_constant__ CUtensorMap Map,
                          BoxArgs Boxes, uint32_t Total, uint8_t *Out) {
  extern __shared__ uint8_t Raw[];
  __shared__ __align__(8) uint64_t Bar;
  uint32_t RawAddr = (uint32_t)__cvta_generic_to_shared(Raw);
  uint32_t Pad = (1024 - RawAddr % 1024) % 1024;
  uint32_t Base = RawAddr + Pad;
  uint32_t BarAddr = (uint32_t)__cvta_generic_to_shared(&Bar);
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(BarAddr));
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile(
        "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(BarAddr),
        "r"(Total)
        : "memory");
    for (uint32_t I = 0; I < Boxes.N; ++I)
      asm volatile(
          "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_"
          "tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(Base + Boxes.Smem[I]),
          "l"(&Map), "r"(Boxes.Col[I]), "r"(Boxes.Row[I]), "r"(BarAddr)
          : "memory");
  }
  uint32_t Done = 0;
  while (!Done)
    asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 "
                 "p, [%1], 0;\nselp.u32 %0, 1, 0, p;\n}\n"
                 : "=r"(Done)
                 : "r"(BarAddr)
                 : "memory");
  for (uint32_t I = threadIdx.x; I < Total; I += blockDim.x)
    Out[I] = Raw[Pad + I];
}

static uint16_t toBf16(float F) {
  uint32_t U;
  memcpy(&U, &F, 4);
  return uint16_t(U >> 16);
}
static float fromBf16(uint16_t H) {
  uint32_t U = uint32_t(H) << 16;
  float F;
  memcpy(&F, &U, 4);
  return F;
}

// Writes element (R, C) (2-byte) of the tile into its swizzled place.
static void place(std::vector<uint8_t> &Img, const SmemTileLayout &L,
                  uint32_t R, uint32_t C, uint16_t V) {
  uint32_t Off = physicalByteOffset(L, R, C * 2);
  memcpy(&Img[Off], &V, 2);
}

static int Failures = 0;

static void wgmmaCase(Swizzle S, MmaMajor MajorB) {
  const int M = 64, N = 64, K = 64;
  std::vector<uint16_t> A(M * K), B(N * K);
  for (auto &V : A)
    V = toBf16(float(rand() % 17 - 8) / 8.f);
  for (auto &V : B)
    V = toBf16(float(rand() % 17 - 8) / 8.f);
  SmemTileLayout LA = llvm::cantFail(makeSmemTileLayout(M, K, 2, S));
  SmemTileLayout LB =
      llvm::cantFail(MajorB == MmaMajor::K ? makeSmemTileLayout(N, K, 2, S)
                                           : makeSmemTileLayout(K, N, 2, S));
  std::vector<uint8_t> AImg(LA.totalBytes()), BImg(LB.totalBytes());
  for (int R = 0; R < M; ++R)
    for (int C = 0; C < K; ++C)
      place(AImg, LA, R, C, A[R * K + C]);
  for (int Nn = 0; Nn < N; ++Nn)
    for (int Kk = 0; Kk < K; ++Kk) {
      if (MajorB == MmaMajor::K)
        place(BImg, LB, Nn, Kk, B[Nn * K + Kk]);
      else
        place(BImg, LB, Kk, Nn, B[Nn * K + Kk]);
    }
  llvm::Expected<uint64_t> DA = wgmmaOperandDesc(LA, MmaMajor::K),
                           DB = wgmmaOperandDesc(LB, MajorB);
  if (!DA || !DB) {
    printf("desc error %s %s\n", llvm::toString(DA.takeError()).c_str(),
           llvm::toString(DB.takeError()).c_str());
    Failures++;
    return;
  }
  Incs Inc;
  for (int Kk = 0; Kk < 4; ++Kk) {
    Inc.A[Kk] = llvm::cantFail(smemDescAdvance(LA, MmaMajor::K, 0, 16 * Kk));
    Inc.B[Kk] = llvm::cantFail(
        MajorB == MmaMajor::K ? smemDescAdvance(LB, MmaMajor::K, 0, 16 * Kk)
                              : smemDescAdvance(LB, MmaMajor::MN, 16 * Kk, 0));
  }
  uint8_t *GA, *GB;
  float *GOut;
  CK(cudaMalloc(&GA, AImg.size()));
  CK(cudaMalloc(&GB, BImg.size()));
  CK(cudaMalloc(&GOut, 128 * 32 * 4));
  CK(cudaMemcpy(GA, AImg.data(), AImg.size(), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(GB, BImg.data(), BImg.size(), cudaMemcpyHostToDevice));
  CK(cudaMemset(GOut, 0xFF, 128 * 32 * 4));
  int Smem = 16384 + 16384 + 1024;
  if (MajorB == MmaMajor::K)
    wgmmaKernel<0><<<1, 128, Smem>>>(GA, AImg.size(), GB, BImg.size(), *DA, *DB,
                                     Inc, GOut);
  else
    wgmmaKernel<1><<<1, 128, Smem>>>(GA, AImg.size(), GB, BImg.size(), *DA, *DB,
                                     Inc, GOut);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  std::vector<float> Out(128 * 32);
  CK(cudaMemcpy(Out.data(), GOut, Out.size() * 4, cudaMemcpyDeviceToHost));
  int Bad = 0;
  for (uint32_t T = 0; T < 128; ++T)
    for (uint32_t I = 0; I < 32; ++I) {
      TileCoord C = wgmmaAccumulatorCoord(T, I);
      float Ref = 0;
      for (int Kk = 0; Kk < K; ++Kk)
        Ref += fromBf16(A[C.Row * K + Kk]) * fromBf16(B[C.Col * K + Kk]);
      if (std::fabs(Ref - Out[T * 32 + I]) > 1e-3f) {
        if (Bad < 3)
          printf("  t=%u i=%u (%u,%u) ref %f got %f\n", T, I, C.Row, C.Col, Ref,
                 Out[T * 32 + I]);
        ++Bad;
      }
    }
  printf("wgmma swizzle=%s B=%s descA=0x%016llx descB=0x%016llx incB=[%u %u %u "
         "%u]: %s (%d bad)\n",
         vocab::toString(S).data(), MajorB == MmaMajor::K ? "k-major" : "mn-major",
         (unsigned long long)*DA, (unsigned long long)*DB, Inc.B[0], Inc.B[1],
         Inc.B[2], Inc.B[3], Bad ? "FAIL" : "ok", Bad);
  Failures += Bad != 0;
  cudaFree(GA);
  cudaFree(GB);
  cudaFree(GOut);
}

static void tmaCase(uint32_t Rows, uint32_t Cols, uint32_t ElemBytes, Swizzle S,
                    NoSwizzleLayout NS) {
  llvm::Expected<SmemTileLayout> L =
      makeSmemTileLayout(Rows, Cols, ElemBytes, S, NS);
  llvm::Expected<TmaBoxPlan> P =
      L ? planTmaBoxes(*L) : llvm::Expected<TmaBoxPlan>(L.takeError());
  if (!P) {
    printf("plan error %s\n", llvm::toString(P.takeError()).c_str());
    Failures++;
    return;
  }
  uint32_t RowBytes = Cols * ElemBytes, Total = Rows * RowBytes;
  std::vector<uint8_t> G(Total);
  for (uint32_t I = 0; I < Total; ++I)
    G[I] = uint8_t((I * 131u + (I >> 8) * 7u) & 0xFF);
  uint8_t *GG, *GOut;
  CK(cudaMalloc(&GG, Total));
  CK(cudaMalloc(&GOut, Total));
  CK(cudaMemcpy(GG, G.data(), Total, cudaMemcpyHostToDevice));
  CUtensorMap Map;
  cuuint64_t Dims[2] = {Cols, Rows};
  cuuint64_t Strides[1] = {RowBytes};
  cuuint32_t Box[2] = {P->BoxCols, P->BoxRows};
  cuuint32_t EStr[2] = {1, 1};
  CUtensorMapSwizzle Sw = S == Swizzle::B128  ? CU_TENSOR_MAP_SWIZZLE_128B
                          : S == Swizzle::B64 ? CU_TENSOR_MAP_SWIZZLE_64B
                          : S == Swizzle::B32 ? CU_TENSOR_MAP_SWIZZLE_32B
                                              : CU_TENSOR_MAP_SWIZZLE_NONE;
  CUresult R = cuTensorMapEncodeTiled(
      &Map,
      ElemBytes == 1 ? CU_TENSOR_MAP_DATA_TYPE_UINT8
                     : CU_TENSOR_MAP_DATA_TYPE_UINT16,
      2, GG, Dims, Strides, Box, EStr, CU_TENSOR_MAP_INTERLEAVE_NONE, Sw,
      CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (R != CUDA_SUCCESS) {
    printf("encode failed %d\n", (int)R);
    Failures++;
    return;
  }
  BoxArgs B{};
  B.N = P->Boxes.size();
  for (uint32_t I = 0; I < B.N; ++I) {
    B.Col[I] = P->Boxes[I].ColOffset;
    B.Row[I] = P->Boxes[I].RowOffset;
    B.Smem[I] = P->Boxes[I].SmemOffset;
  }
  CK(cudaFuncSetAttribute(
      tmaKernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024));
  tmaKernel<<<1, 128, Total + 1024>>>(Map, B, P->TotalBytes, GOut);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  std::vector<uint8_t> Out(Total);
  CK(cudaMemcpy(Out.data(), GOut, Total, cudaMemcpyDeviceToHost));
  int Bad = 0;
  for (uint32_t Rr = 0; Rr < Rows; ++Rr)
    for (uint32_t Cb = 0; Cb < RowBytes; ++Cb)
      if (Out[physicalByteOffset(*L, Rr, Cb)] != G[Rr * RowBytes + Cb])
        ++Bad;
  printf("tma %ux%u x%uB swizzle=%s box=%ux%u boxes=%zu: %s (%d bad bytes)\n",
         Rows, Cols, ElemBytes, vocab::toString(S).data(), P->BoxCols, P->BoxRows,
         P->Boxes.size(), Bad ? "FAIL" : "ok", Bad);
  Failures += Bad != 0;
  cudaFree(GG);
  cudaFree(GOut);
}

int main() {
  srand(1);
  for (Swizzle S : {Swizzle::None, Swizzle::B32, Swizzle::B64, Swizzle::B128}) {
    wgmmaCase(S, MmaMajor::K);
    wgmmaCase(S, MmaMajor::MN);
  }
  for (Swizzle S : {Swizzle::None, Swizzle::B32, Swizzle::B64, Swizzle::B128})
    tmaCase(128, 128, 2, S, NoSwizzleLayout::Interleaved);
  tmaCase(128, 128, 1, Swizzle::B128, NoSwizzleLayout::Interleaved);
  tmaCase(512, 64, 2, Swizzle::B128, NoSwizzleLayout::Interleaved);
  tmaCase(264, 64, 2, Swizzle::B64, NoSwizzleLayout::Interleaved);
  tmaCase(300, 64, 2, Swizzle::None, NoSwizzleLayout::RowMajor);
  printf("%s\n", Failures ? "SOME CHECKS FAILED" : "ALL CHECKS PASSED");
  return Failures != 0;
}

// RUN: tile-opt %s --tile-dispatch --split-input-file --verify-diagnostics | FileCheck %s

// Copies become TMA and get the tensor map they use: the tensor, the box
// planned from the shared tile (outermost first) and its swizzle. Copies of
// one tensor with the same box share a map (KernelOp::getAbi lists each once).
// CHECK-LABEL: tile.kernel @maps
// CHECK: tile.copy_async {{.*}} {dispatch = #tile.copy_dispatch<tma>, tensormap = #tile.tensormap<arg = 0, box = [128, 64], swizzle = swizzle_128b>}
// CHECK: tile.copy_async {{.*}} {dispatch = #tile.copy_dispatch<tma>, tensormap = #tile.tensormap<arg = 0, box = [128, 64], swizzle = swizzle_128b>}
// CHECK: tile.copy_async {{.*}} {dispatch = #tile.copy_dispatch<tma>, tensormap = #tile.tensormap<arg = 1, box = [64, 64], swizzle = swizzle_128b>}
// CHECK: tile.gemm_async {{.*}} {dispatch = #tile.gemm_dispatch<wgmma>}
tile.kernel @maps(%A: !tile.global<?x64xbf16>, %D: !tile.global<128x?xbf16>, %alpha: f32)
    attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %a = tile.smem_alloc : !tile.smem<2x128x64xbf16, swizzle_128b>
  %d = tile.smem_alloc : !tile.smem<64x128xbf16, swizzle_128b>
  %full = tile.barrier_alloc arrivals 1 : !tile.barrier<tma, 2>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  tile.single_thread cta {
    tile.copy_async %a[%c0], %A[%c0, %c0] barrier %full[%c0] : !tile.smem<2x128x64xbf16, swizzle_128b>, !tile.global<?x64xbf16>, !tile.barrier<tma, 2>
    tile.copy_async %a[%c1], %A[%c0, %c0] barrier %full[%c1] : !tile.smem<2x128x64xbf16, swizzle_128b>, !tile.global<?x64xbf16>, !tile.barrier<tma, 2>
    tile.copy_async %D[%c0, %c0], %d[] : !tile.global<128x?xbf16>, !tile.smem<64x128xbf16, swizzle_128b>
  }
  %z = tile.frag.zero : !tile.frag<64x64xf32, wgmma_acc>
  %r = tile.gemm_async %z, %a[%c0, %c0], %a[%c1, %c0] : !tile.frag<64x64xf32, wgmma_acc>, !tile.smem<2x128x64xbf16, swizzle_128b>, !tile.smem<2x128x64xbf16, swizzle_128b> -> !tile.frag<64x64xf32, wgmma_acc>
}

// -----

// tcgen05 for a tensor-memory accumulator.
// CHECK-LABEL: tile.kernel @tcgen05
// CHECK: tile.gemm_async {{.*}} {dispatch = #tile.gemm_dispatch<tcgen05>}
tile.kernel @tcgen05() attributes {target = #tile.target<sm_100a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %t = tile.tmem_alloc : !tile.tmem<128x256xf32>
  %a = tile.smem_alloc : !tile.smem<128x64xf16, swizzle_128b>
  %b = tile.smem_alloc : !tile.smem<256x64xf16, swizzle_128b>
  %c0 = arith.constant 0 : i32
  tile.single_thread cta {
    tile.gemm_async %t[%c0], %a[%c0], %b[%c0] : !tile.tmem<128x256xf32>, !tile.smem<128x64xf16, swizzle_128b>, !tile.smem<256x64xf16, swizzle_128b>
  }
}

// -----

tile.kernel @rows_not_16_bytes(%X: !tile.global<?x100xbf16>) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %a = tile.smem_alloc : !tile.smem<64x64xbf16, swizzle_128b>
  %full = tile.barrier_alloc arrivals 1 : !tile.barrier<tma, 1>
  %c0 = arith.constant 0 : i32
  tile.single_thread cta {
    // expected-error @below {{'tile.copy_async' op TMA needs rows of a multiple of 16 bytes, but the global tensor's rows are 100 elements (200 bytes)}}
    tile.copy_async %a[], %X[%c0, %c0] barrier %full[%c0] : !tile.smem<64x64xbf16, swizzle_128b>, !tile.global<?x100xbf16>, !tile.barrier<tma, 1>
  }
}

// -----

tile.kernel @two_cta_on_hopper(%X: !tile.global<?x?xbf16>) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, cluster = array<i64: 2, 1, 1>, grid = #tile.grid_policy<persistent>} {
  %a = tile.smem_alloc : !tile.smem<64x64xbf16, swizzle_128b>
  %full = tile.barrier_alloc arrivals 1 : !tile.barrier<tma, 1>
  %c0 = arith.constant 0 : i32
  tile.single_thread cta {
    // expected-error @below {{'tile.copy_async' op the 2-CTA TMA form (cta_group 2) needs sm_100a, the kernel targets sm_90a}}
    tile.copy_async %a[], %X[%c0, %c0] barrier %full[%c0] {cta_group = 2 : i64} : !tile.smem<64x64xbf16, swizzle_128b>, !tile.global<?x?xbf16>, !tile.barrier<tma, 1>
  }
}

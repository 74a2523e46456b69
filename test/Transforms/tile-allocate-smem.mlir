// RUN: tile-opt %s --tile-allocate-smem --split-input-file --verify-diagnostics | FileCheck %s

// Buffers go first, largest alignment first (128B swizzle: 1024 bytes, 64B:
// 512, none: 128), then the barriers (8 bytes each) and the tensor-memory
// address slot; the kernel records the pool size.
// CHECK-LABEL: tile.kernel @pool
// CHECK-SAME: smem_bytes = 42008
// CHECK: tile.smem_alloc {offset = 33792 : i64} : !tile.smem<64x64xbf16, none>
// CHECK: tile.smem_alloc {offset = 0 : i64} : !tile.smem<2x128x64xbf16, swizzle_128b>
// CHECK: tile.smem_alloc {offset = 32768 : i64} : !tile.smem<8x32xf32, swizzle_64b>
// CHECK: tile.barrier_alloc arrivals 1 {offset = 41984 : i64} : !tile.barrier<tma, 2>
// CHECK: tile.barrier_alloc arrivals 128 {offset = 42000 : i64} : !tile.barrier<threads, 1>
tile.kernel @pool() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %plain = tile.smem_alloc : !tile.smem<64x64xbf16, none>
  %a = tile.smem_alloc : !tile.smem<2x128x64xbf16, swizzle_128b>
  %small = tile.smem_alloc : !tile.smem<8x32xf32, swizzle_64b>
  %full = tile.barrier_alloc arrivals 1 : !tile.barrier<tma, 2>
  %done = tile.barrier_alloc arrivals 128 : !tile.barrier<threads, 1>
}

// -----

// The tensor-memory address slot takes 8 bytes after the barriers.
// CHECK-LABEL: tile.kernel @tmem_slot
// CHECK-SAME: smem_bytes = 16
// CHECK: tile.tmem_alloc {offset = 8 : i64} : !tile.tmem<128x256xf32>
tile.kernel @tmem_slot() attributes {target = #tile.target<sm_100a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %bar = tile.barrier_alloc arrivals 1 : !tile.barrier<mma, 1>
  %t = tile.tmem_alloc : !tile.tmem<128x256xf32>
}

// -----

// expected-error @below {{'tile.kernel' op needs 262152 bytes of shared memory, over the 232448 a CTA may use on sm_90a; use fewer pipeline stages or smaller tiles}}
tile.kernel @too_big() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  // expected-note @below {{131072 bytes here}}
  %a = tile.smem_alloc : !tile.smem<4x128x128xbf16, swizzle_128b>
  // expected-note @below {{131072 bytes here}}
  %b = tile.smem_alloc : !tile.smem<4x128x128xbf16, swizzle_128b>
  %full = tile.barrier_alloc arrivals 1 : !tile.barrier<tma, 1>
}

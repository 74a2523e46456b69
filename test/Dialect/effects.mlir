// RUN: tile-opt %s --split-input-file --cse --loop-invariant-code-motion | FileCheck %s
// The ops declare their memory effects, so upstream CSE and LICM keep every
// barrier, copy, MMA and store in place while pure ops fold and move.

// Two waits on the same barrier and phase are two waits; two identical pure
// ops are one.
// CHECK-LABEL: tile.kernel @cse
// CHECK: tile.id warpgroup
// CHECK-NOT: tile.id warpgroup
// CHECK: tile.barrier.wait
// CHECK: tile.barrier.wait
// CHECK: tile.sync cta
// CHECK: tile.sync cta
tile.kernel @cse() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %b = tile.barrier_alloc arrivals 1 : !tile.barrier<threads, 1>
  %c0 = arith.constant 0 : i32
  %w0 = tile.id warpgroup
  %w1 = tile.id warpgroup
  tile.barrier.wait %b[%c0], %w0 : !tile.barrier<threads, 1>
  tile.barrier.wait %b[%c0], %w1 : !tile.barrier<threads, 1>
  tile.sync cta
  tile.sync cta
}

// -----

// Loop-invariant async work stays in the loop; a pure identity leaves it.
// CHECK-LABEL: tile.kernel @licm
// CHECK: tile.id lane
// CHECK: scf.for
// CHECK: tile.barrier.arrive
// CHECK: tile.barrier.wait
// CHECK: tile.copy_async
// CHECK: tile.gemm_async
// CHECK: tile.frag.store
tile.kernel @licm(%A: !tile.global<?x?xbf16>, %n: i32) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %a = tile.smem_alloc : !tile.smem<64x64xbf16, swizzle_128b>
  %b = tile.barrier_alloc arrivals 1 : !tile.barrier<tma, 1>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = tile.frag.zero : !tile.frag<64x64xf32, wgmma_acc>
  %h = tile.frag.zero : !tile.frag<64x64xbf16, wgmma_acc>
  scf.for %i = %c0 to %n step %c1 : i32 {
    %lane = tile.id lane
    tile.barrier.arrive %b[%c0] expect_tx 8192 : !tile.barrier<tma, 1>
    tile.barrier.wait %b[%c0], %lane : !tile.barrier<tma, 1>
    tile.copy_async %a[], %A[%c0, %c0] barrier %b[%c0] : !tile.smem<64x64xbf16, swizzle_128b>, !tile.global<?x?xbf16>, !tile.barrier<tma, 1>
    %r = tile.gemm_async %z, %a[%c0], %a[%c0] : !tile.frag<64x64xf32, wgmma_acc>, !tile.smem<64x64xbf16, swizzle_128b>, !tile.smem<64x64xbf16, swizzle_128b> -> !tile.frag<64x64xf32, wgmma_acc>
    tile.frag.store %h, %a[%c0] : !tile.frag<64x64xbf16, wgmma_acc>, !tile.smem<64x64xbf16, swizzle_128b>
  }
}

// -----

// Fragment math is pure: two identical reductions are one, and math on
// loop-invariant fragments leaves the loop.
// CHECK-LABEL: tile.kernel @pure_fragment_math
// CHECK: tile.frag.reduce
// CHECK-NOT: tile.frag.reduce
// CHECK: tile.frag.unary exp
// CHECK: scf.for
// CHECK-NOT: tile.frag.unary
// CHECK: tile.frag.store
tile.kernel @pure_fragment_math(%n: i32) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %d = tile.smem_alloc : !tile.smem<64x64xf32, swizzle_128b>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = tile.frag.zero : !tile.frag<64x64xf32, wgmma_acc>
  %s0 = tile.frag.reduce sum %z axis 1 : !tile.frag<64x64xf32, wgmma_acc> -> !tile.frag<64x64xf32, wgmma_acc, rows>
  %s1 = tile.frag.reduce sum %z axis 1 : !tile.frag<64x64xf32, wgmma_acc> -> !tile.frag<64x64xf32, wgmma_acc, rows>
  %x = tile.frag.binary add %s0, %s1 : !tile.frag<64x64xf32, wgmma_acc, rows>, !tile.frag<64x64xf32, wgmma_acc, rows> -> !tile.frag<64x64xf32, wgmma_acc, rows>
  scf.for %i = %c0 to %n step %c1 : i32 {
    %e = tile.frag.unary exp %x : !tile.frag<64x64xf32, wgmma_acc, rows>
    tile.frag.store %e, %d[%c0] : !tile.frag<64x64xf32, wgmma_acc, rows>, !tile.smem<64x64xf32, swizzle_128b>
  }
}

// -----

// Loads read memory: a load after a store to the same tensor is a second
// load, and no load leaves its loop; guarded stores stay. (An unused load
// is dead code and goes.)
// CHECK-LABEL: tile.kernel @loads
// CHECK: scf.for
// CHECK: tile.load
// CHECK: tile.frag.store_global
// CHECK: tile.load
// CHECK: tile.frag.store_global
tile.kernel @loads(%X: !tile.global<?x?xf32>, %n: i32) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = tile.frag.zero : !tile.frag<64x64xf32, wgmma_acc>
  scf.for %i = %c0 to %n step %c1 : i32 {
    %a = tile.load %X[%c0, %c0] : !tile.global<?x?xf32> -> f32
    %za = tile.frag.binary mul %z, %a : !tile.frag<64x64xf32, wgmma_acc>, f32 -> !tile.frag<64x64xf32, wgmma_acc>
    tile.frag.store_global %za, %X[%c0, %c0] : !tile.frag<64x64xf32, wgmma_acc>, !tile.global<?x?xf32>
    %b = tile.load %X[%c0, %c0] : !tile.global<?x?xf32> -> f32
    %zb = tile.frag.binary mul %z, %b : !tile.frag<64x64xf32, wgmma_acc>, f32 -> !tile.frag<64x64xf32, wgmma_acc>
    tile.frag.store_global %zb, %X[%c0, %c1] : !tile.frag<64x64xf32, wgmma_acc>, !tile.global<?x?xf32>
  }
}

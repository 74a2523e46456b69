// RUN: tile-opt %s --tile-test-ahead --split-input-file | FileCheck %s

// A K loop over a ring of 4 stages (the stage in bits 0..30 of the carried
// i32, the phase in bit 31): the next iteration's stage and phase are
// recomputed from the advanced state before the gemm_wait, tested there,
// and the test's result is carried to the wait as `unless`; the first
// iteration's wait has no test before it (false). Past the last iteration
// the test reads this iteration's barrier (an index computed for a wait
// that never comes could lie past the array). The marker is gone.
// CHECK-LABEL: tile.kernel @k_loop(
// CHECK: %[[NO:.*]] = arith.constant false
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[PS:.*]] = %{{.*}}, %[[ACC:.*]] = %{{.*}}, %[[READY:.*]] = %[[NO]]) -> (i32, !tile.frag<64x64xf32, wgmma_acc>, i1) : i32 {
// CHECK: %[[S:.*]] = arith.andi %[[PS]], %{{.*}} : i32
// CHECK: %[[PH:.*]] = arith.shrui %[[PS]], %{{.*}} : i32
// CHECK: tile.barrier.wait %{{.*}}[%[[S]]], %[[PH]] unless %[[READY]] : !tile.barrier<tma, 4>
// CHECK: tile.gemm_commit
// CHECK: %[[NEXT2:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : i32
// CHECK: %[[S2:.*]] = arith.andi %[[NEXT2]], %{{.*}} : i32
// CHECK: %[[PH2:.*]] = arith.shrui %[[NEXT2]], %{{.*}} : i32
// CHECK: %[[EXISTS:.*]] = arith.cmpi slt, %{{.*}}, %{{.*}} : i32
// CHECK: %[[IDX:.*]] = arith.select %[[EXISTS]], %[[S2]], %[[S]] : i32
// CHECK: %[[TEST:.*]] = tile.barrier.test %{{.*}}[%[[IDX]]], %[[PH2]] : !tile.barrier<tma, 4>
// CHECK-NEXT: tile.gemm_wait
// CHECK: scf.yield %{{.*}}, %{{.*}}, %[[TEST]] : i32, !tile.frag<64x64xf32, wgmma_acc>, i1
// CHECK-NOT: tile.test_ahead
tile.kernel @k_loop(%n: i32) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %a = tile.smem_alloc : !tile.smem<4x64x64xbf16, swizzle_128b>
  %b = tile.smem_alloc : !tile.smem<4x64x64xbf16, swizzle_128b>
  %full = tile.barrier_alloc arrivals 1 : !tile.barrier<tma, 4>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %c31 = arith.constant 31 : i32
  %mask = arith.constant 2147483647 : i32
  %wrap = arith.constant 2147483645 : i32
  %z = tile.frag.zero : !tile.frag<64x64xf32, wgmma_acc>
  %r:2 = scf.for %k = %c0 to %n step %c1 iter_args(%ps = %c0, %acc = %z) -> (i32, !tile.frag<64x64xf32, wgmma_acc>) : i32 {
    %s = arith.andi %ps, %mask : i32
    %ph = arith.shrui %ps, %c31 : i32
    tile.barrier.wait %full[%s], %ph : !tile.barrier<tma, 4>
    %t = tile.gemm_async %acc, %a[%s, %c0], %b[%s, %c0] : !tile.frag<64x64xf32, wgmma_acc>, !tile.smem<4x64x64xbf16, swizzle_128b>, !tile.smem<4x64x64xbf16, swizzle_128b> -> !tile.frag<64x64xf32, wgmma_acc>
    tile.gemm_commit
    %d = tile.gemm_wait %t pending 0 : !tile.frag<64x64xf32, wgmma_acc>
    %s1 = arith.addi %s, %c1 : i32
    %last = arith.cmpi eq, %s1, %c4 : i32
    %wrapped = arith.addi %ps, %wrap : i32
    %stepped = arith.addi %ps, %c1 : i32
    %next = arith.select %last, %wrapped, %stepped : i32
    scf.yield %next, %d : i32, !tile.frag<64x64xf32, wgmma_acc>
  } {tile.test_ahead}
}

// -----

// A wait whose stage is the loop index: the next iteration's is %k + step,
// which the last iteration (k = 3) would test at index 4 of an array of 4:
// there it tests index k.
// CHECK-LABEL: tile.kernel @by_index(
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %[[UB:[a-z0-9_]+]] step %[[STEP:[a-z0-9_]+]] iter_args(%[[READY:.*]] = %{{.*}}) -> (i1) : i32 {
// CHECK: tile.barrier.wait %{{.*}}[%[[K]]], %{{.*}} unless %[[READY]]
// CHECK: %[[K1:.*]] = arith.addi %[[K]], %[[STEP]] : i32
// CHECK: %[[K2:.*]] = arith.addi %[[K]], %[[STEP]] : i32
// CHECK: %[[EXISTS:.*]] = arith.cmpi slt, %[[K2]], %[[UB]] : i32
// CHECK: %[[IDX:.*]] = arith.select %[[EXISTS]], %[[K1]], %[[K]] : i32
// CHECK: %[[TEST:.*]] = tile.barrier.test %{{.*}}[%[[IDX]]], %{{.*}} : !tile.barrier<tma, 4>
// CHECK-NEXT: tile.gemm_wait
// CHECK: scf.yield %[[TEST]] : i1
tile.kernel @by_index() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %a = tile.smem_alloc : !tile.smem<4x64x64xbf16, swizzle_128b>
  %full = tile.barrier_alloc arrivals 1 : !tile.barrier<tma, 4>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %z = tile.frag.zero : !tile.frag<64x64xf32, wgmma_acc>
  scf.for %k = %c0 to %c4 step %c1 : i32 {
    tile.barrier.wait %full[%k], %c0 : !tile.barrier<tma, 4>
    %t = tile.gemm_async %z, %a[%k, %c0], %a[%k, %c0] : !tile.frag<64x64xf32, wgmma_acc>, !tile.smem<4x64x64xbf16, swizzle_128b>, !tile.smem<4x64x64xbf16, swizzle_128b> -> !tile.frag<64x64xf32, wgmma_acc>
    tile.gemm_commit
    %d = tile.gemm_wait %t pending 0 : !tile.frag<64x64xf32, wgmma_acc>
  } {tile.test_ahead}
}

// -----

// Left as they are: a loop without the marker; a wait with no gemm_wait
// after it (nothing to hide the test under); a wait whose stage is a load
// (its next value is not known before the next iteration reads it).
// CHECK-LABEL: tile.kernel @untouched(
// CHECK-NOT: tile.barrier.test
// CHECK-NOT: unless
tile.kernel @untouched(%G: !tile.global<?xi32>) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %a = tile.smem_alloc : !tile.smem<4x64x64xbf16, swizzle_128b>
  %full = tile.barrier_alloc arrivals 1 : !tile.barrier<tma, 4>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %z = tile.frag.zero : !tile.frag<64x64xf32, wgmma_acc>
  scf.for %k = %c0 to %c4 step %c1 : i32 {
    tile.barrier.wait %full[%k], %c0 : !tile.barrier<tma, 4>
    %t = tile.gemm_async %z, %a[%k, %c0], %a[%k, %c0] : !tile.frag<64x64xf32, wgmma_acc>, !tile.smem<4x64x64xbf16, swizzle_128b>, !tile.smem<4x64x64xbf16, swizzle_128b> -> !tile.frag<64x64xf32, wgmma_acc>
    tile.gemm_commit
    %d = tile.gemm_wait %t pending 0 : !tile.frag<64x64xf32, wgmma_acc>
  }
  scf.for %k = %c0 to %c4 step %c1 : i32 {
    tile.barrier.wait %full[%k], %c0 : !tile.barrier<tma, 4>
  } {tile.test_ahead}
  scf.for %k = %c0 to %c4 step %c1 : i32 {
    %s = tile.load %G[%k] : !tile.global<?xi32> -> i32
    tile.barrier.wait %full[%s], %c0 : !tile.barrier<tma, 4>
    %t = tile.gemm_async %z, %a[%s, %c0], %a[%s, %c0] : !tile.frag<64x64xf32, wgmma_acc>, !tile.smem<4x64x64xbf16, swizzle_128b>, !tile.smem<4x64x64xbf16, swizzle_128b> -> !tile.frag<64x64xf32, wgmma_acc>
    tile.gemm_commit
    %d = tile.gemm_wait %t pending 0 : !tile.frag<64x64xf32, wgmma_acc>
  } {tile.test_ahead}
}

// -----

// Before tile-lower-pipelines (where the pipeline runs it): the next stage
// and phase are those of the advanced state, and a pipeline's stage indexes
// a barrier array as deep as the ring in range, so the test needs no guard.
// CHECK-LABEL: tile.kernel @pipeline_state(
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[PS:.*]] = %{{.*}}, %[[READY:.*]] = %{{.*}}) -> (!tile.pipeline<4>, i1) : i32 {
// CHECK: tile.barrier.wait %{{.*}}[%{{.*}}], %{{.*}} unless %[[READY]] : !tile.barrier<tma, 4>
// CHECK: %[[NEXT:.*]] = tile.pipeline.advance %[[PS]] : !tile.pipeline<4>
// CHECK-NEXT: %[[S:.*]] = tile.pipeline.stage %[[NEXT]] : !tile.pipeline<4>
// CHECK-NEXT: %[[PH:.*]] = tile.pipeline.phase %[[NEXT]] : !tile.pipeline<4>
// CHECK-NEXT: %[[TEST:.*]] = tile.barrier.test %{{.*}}[%[[S]]], %[[PH]] : !tile.barrier<tma, 4>
// CHECK-NEXT: tile.gemm_wait
// CHECK: scf.yield %{{.*}}, %[[TEST]] : !tile.pipeline<4>, i1
tile.kernel @pipeline_state(%n: i32) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %a = tile.smem_alloc : !tile.smem<4x64x64xbf16, swizzle_128b>
  %full = tile.barrier_alloc arrivals 1 : !tile.barrier<tma, 4>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = tile.frag.zero : !tile.frag<64x64xf32, wgmma_acc>
  %ps0 = tile.pipeline.init phase 0 : !tile.pipeline<4>
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%ps = %ps0) -> (!tile.pipeline<4>) : i32 {
    %s = tile.pipeline.stage %ps : !tile.pipeline<4>
    %ph = tile.pipeline.phase %ps : !tile.pipeline<4>
    tile.barrier.wait %full[%s], %ph : !tile.barrier<tma, 4>
    %t = tile.gemm_async %z, %a[%s, %c0], %a[%s, %c0] : !tile.frag<64x64xf32, wgmma_acc>, !tile.smem<4x64x64xbf16, swizzle_128b>, !tile.smem<4x64x64xbf16, swizzle_128b> -> !tile.frag<64x64xf32, wgmma_acc>
    tile.gemm_commit
    %d = tile.gemm_wait %t pending 0 : !tile.frag<64x64xf32, wgmma_acc>
    %next = tile.pipeline.advance %ps : !tile.pipeline<4>
    scf.yield %next : !tile.pipeline<4>
  } {tile.test_ahead}
}

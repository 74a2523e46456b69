// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --mlir-print-op-generic | tile-opt | FileCheck %s
// Round trip of every tile op: print, parse again, same IR.

// CHECK-LABEL: tile.kernel @hopper_ws_gemm
// CHECK-SAME: (%{{.*}}: !tile.global<?x?xbf16>, %{{.*}}: !tile.global<?x?xbf16>, %{{.*}}: !tile.global<?x?xbf16>)
// CHECK-SAME: grid = #tile.grid_policy<persistent>
// CHECK-SAME: target = #tile.target<sm_90a>
tile.kernel @hopper_ws_gemm(%A: !tile.global<?x?xbf16>, %B: !tile.global<?x?xbf16>,
                            %D: !tile.global<?x?xbf16>)
    attributes {target = #tile.target<sm_90a>, warpgroups = 3 : i64,
                grid = #tile.grid_policy<persistent>} {
  // CHECK: %[[A_S:.*]] = tile.smem_alloc : !tile.smem<4x128x64xbf16, swizzle_128b>
  %a = tile.smem_alloc : !tile.smem<4x128x64xbf16, swizzle_128b>
  // CHECK: tile.smem_alloc : !tile.smem<4x256x64xbf16, swizzle_128b>
  %b = tile.smem_alloc : !tile.smem<4x256x64xbf16, swizzle_128b>
  // CHECK: tile.smem_alloc : !tile.smem<2x64x256xbf16, swizzle_128b>
  %d = tile.smem_alloc : !tile.smem<2x64x256xbf16, swizzle_128b>
  // CHECK: tile.barrier_alloc arrivals 1 : !tile.barrier<tma, 4>
  %full = tile.barrier_alloc arrivals 1 : !tile.barrier<tma, 4>
  // CHECK: tile.barrier_alloc arrivals 256 : !tile.barrier<threads, 4>
  %empty = tile.barrier_alloc arrivals 256 : !tile.barrier<threads, 4>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  // CHECK: tile.dim %{{.*}}[0] : !tile.global<?x?xbf16>
  %M = tile.dim %A[0] : !tile.global<?x?xbf16>
  %N = tile.dim %B[0] : !tile.global<?x?xbf16>
  %K = tile.dim %A[1] : !tile.global<?x?xbf16>
  %ktiles = arith.ceildivsi %K, %c64 : i32
  // CHECK: tile.sched.num_tiles %{{.*}}, %{{.*}} block [128, 256]
  %ntiles = tile.sched.num_tiles %M, %N block [128, 256]
  // CHECK: tile.id cta
  %first = tile.id cta
  // CHECK: tile.id num_ctas
  %step = tile.id num_ctas

  // CHECK: tile.role "producer" warpgroups [2] warps [0] single_thread max_regs 40 {
  tile.role "producer" warpgroups [2] warps [0] single_thread max_regs 40 {
    // CHECK: tile.pipeline.init phase 1 : !tile.pipeline<4>
    %ps0 = tile.pipeline.init phase 1 : !tile.pipeline<4>
    %r = scf.for %t = %first to %ntiles step %step iter_args(%ps1 = %ps0) -> (!tile.pipeline<4>) : i32 {
      // CHECK: tile.sched.coords %{{.*}}, %{{.*}}, %{{.*}} block [128, 256] group 8
      %mi, %ni = tile.sched.coords %t, %M, %N block [128, 256] group 8
      %c128 = arith.constant 128 : i32
      %c256 = arith.constant 256 : i32
      %m0 = arith.muli %mi, %c128 : i32
      %n0 = arith.muli %ni, %c256 : i32
      %r2 = scf.for %kt = %c0 to %ktiles step %c1 iter_args(%ps = %ps1) -> (!tile.pipeline<4>) : i32 {
        // CHECK: tile.pipeline.stage %{{.*}} : !tile.pipeline<4>
        %s = tile.pipeline.stage %ps : !tile.pipeline<4>
        // CHECK: tile.pipeline.phase %{{.*}} : !tile.pipeline<4>
        %ph = tile.pipeline.phase %ps : !tile.pipeline<4>
        // CHECK: tile.barrier.wait %{{.*}}[%{{.*}}], %{{.*}} : !tile.barrier<threads, 4>
        tile.barrier.wait %empty[%s], %ph : !tile.barrier<threads, 4>
        %k0 = arith.muli %kt, %c64 : i32
        // CHECK: tile.copy_async %[[A_S]][%{{.*}}], %{{.*}}[%{{.*}}, %{{.*}}] barrier %{{.*}}[%{{.*}}] : !tile.smem<4x128x64xbf16, swizzle_128b>, !tile.global<?x?xbf16>, !tile.barrier<tma, 4>
        tile.copy_async %a[%s], %A[%m0, %k0] barrier %full[%s]
            : !tile.smem<4x128x64xbf16, swizzle_128b>, !tile.global<?x?xbf16>, !tile.barrier<tma, 4>
        tile.copy_async %b[%s], %B[%n0, %k0] barrier %full[%s] {dispatch = #tile.copy_dispatch<tma>}
            : !tile.smem<4x256x64xbf16, swizzle_128b>, !tile.global<?x?xbf16>, !tile.barrier<tma, 4>
        // CHECK: tile.copy_async %[[A_S]][%{{.*}}], %{{.*}}[%{{.*}}, %{{.*}}] barrier %{{.*}}[%{{.*}}] {extent = array<i64: 16, 64>} : !tile.smem<4x128x64xbf16, swizzle_128b>
        tile.copy_async %a[%s], %A[%m0, %k0] barrier %full[%s] {extent = array<i64: 16, 64>}
            : !tile.smem<4x128x64xbf16, swizzle_128b>, !tile.global<?x?xbf16>, !tile.barrier<tma, 4>
        // CHECK: tile.barrier.arrive %{{.*}}[%{{.*}}] expect_tx 49152 : !tile.barrier<tma, 4>
        tile.barrier.arrive %full[%s] expect_tx 49152 : !tile.barrier<tma, 4>
        // CHECK: tile.pipeline.advance %{{.*}} : !tile.pipeline<4>
        %next = tile.pipeline.advance %ps : !tile.pipeline<4>
        scf.yield %next : !tile.pipeline<4>
      }
      scf.yield %r2 : !tile.pipeline<4>
    }
  }

  // CHECK: tile.role "consumer" warpgroups [0, 1] max_regs 232 {
  tile.role "consumer" warpgroups [0, 1] max_regs 232 {
    %wg = tile.id warpgroup
    %row = arith.muli %wg, %c64 : i32
    %ps0 = tile.pipeline.init phase 0 : !tile.pipeline<4>
    %r = scf.for %t = %first to %ntiles step %step iter_args(%ps1 = %ps0) -> (!tile.pipeline<4>) : i32 {
      %mi, %ni = tile.sched.coords %t, %M, %N block [128, 256] group 8
      // CHECK: tile.frag.zero : !tile.frag<64x256xf32, wgmma_acc>
      %acc0 = tile.frag.zero : !tile.frag<64x256xf32, wgmma_acc>
      %acc, %ps2 = scf.for %kt = %c0 to %ktiles step %c1 iter_args(%acc_i = %acc0, %ps = %ps1)
          -> (!tile.frag<64x256xf32, wgmma_acc>, !tile.pipeline<4>) : i32 {
        %s = tile.pipeline.stage %ps : !tile.pipeline<4>
        %ph = tile.pipeline.phase %ps : !tile.pipeline<4>
        tile.barrier.wait %full[%s], %ph : !tile.barrier<tma, 4>
        // CHECK: %[[READY:.*]] = tile.barrier.test %{{.*}}[%{{.*}}], %{{.*}} : !tile.barrier<tma, 4>
        %ready = tile.barrier.test %full[%s], %ph : !tile.barrier<tma, 4>
        // CHECK: tile.barrier.wait %{{.*}}[%{{.*}}], %{{.*}} unless %[[READY]] : !tile.barrier<tma, 4>
        tile.barrier.wait %full[%s], %ph unless %ready : !tile.barrier<tma, 4>
        // CHECK: tile.gemm_async %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}}[%{{.*}}, %{{.*}}] {dispatch = #tile.gemm_dispatch<wgmma>} : !tile.frag<64x256xf32, wgmma_acc>, !tile.smem<4x128x64xbf16, swizzle_128b>, !tile.smem<4x256x64xbf16, swizzle_128b> -> !tile.frag<64x256xf32, wgmma_acc>
        %acc1 = tile.gemm_async %acc_i, %a[%s, %row], %b[%s, %c0] {dispatch = #tile.gemm_dispatch<wgmma>}
            : !tile.frag<64x256xf32, wgmma_acc>, !tile.smem<4x128x64xbf16, swizzle_128b>,
              !tile.smem<4x256x64xbf16, swizzle_128b> -> !tile.frag<64x256xf32, wgmma_acc>
        // CHECK: tile.gemm_commit
        tile.gemm_commit
        // CHECK: tile.gemm_wait %{{.*}} pending 0 : !tile.frag<64x256xf32, wgmma_acc>
        %acc2 = tile.gemm_wait %acc1 pending 0 : !tile.frag<64x256xf32, wgmma_acc>
        tile.barrier.arrive %empty[%s] : !tile.barrier<threads, 4>
        // CHECK: tile.barrier.arrive %{{.*}}[%{{.*}}] if %{{.*}} : !tile.barrier<threads, 4>
        %elected = nvvm.elect.sync -> i1
        tile.barrier.arrive %empty[%s] if %elected : !tile.barrier<threads, 4>
        %next = tile.pipeline.advance %ps : !tile.pipeline<4>
        scf.yield %acc2, %next : !tile.frag<64x256xf32, wgmma_acc>, !tile.pipeline<4>
      }
      %alpha = arith.constant 1.0 : f32
      // CHECK: tile.frag.binary mul %{{.*}}, %{{.*}} : !tile.frag<64x256xf32, wgmma_acc>, f32 -> !tile.frag<64x256xf32, wgmma_acc>
      %scaled = tile.frag.binary mul %acc, %alpha : !tile.frag<64x256xf32, wgmma_acc>, f32 -> !tile.frag<64x256xf32, wgmma_acc>
      // CHECK: tile.frag.cast %{{.*}} : !tile.frag<64x256xf32, wgmma_acc> -> !tile.frag<64x256xbf16, wgmma_acc>
      %h = tile.frag.cast %scaled : !tile.frag<64x256xf32, wgmma_acc> -> !tile.frag<64x256xbf16, wgmma_acc>
      // CHECK: tile.single_thread warpgroup {
      tile.single_thread warpgroup {
        // CHECK: tile.bulk_wait 0 read
        tile.bulk_wait 0 read
      }
      // CHECK: tile.sync warpgroup
      tile.sync warpgroup
      // CHECK: tile.frag.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : !tile.frag<64x256xbf16, wgmma_acc>, !tile.smem<2x64x256xbf16, swizzle_128b>
      tile.frag.store %h, %d[%wg, %c0] : !tile.frag<64x256xbf16, wgmma_acc>, !tile.smem<2x64x256xbf16, swizzle_128b>
      // CHECK: tile.fence proxy_async
      tile.fence proxy_async
      tile.sync warpgroup
      %c128 = arith.constant 128 : i32
      %c256 = arith.constant 256 : i32
      %m0 = arith.muli %mi, %c128 : i32
      %m1 = arith.addi %m0, %row : i32
      %n0 = arith.muli %ni, %c256 : i32
      tile.single_thread warpgroup {
        // CHECK: tile.copy_async %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}}[%{{.*}}] : !tile.global<?x?xbf16>, !tile.smem<2x64x256xbf16, swizzle_128b>
        tile.copy_async %D[%m1, %n0], %d[%wg] : !tile.global<?x?xbf16>, !tile.smem<2x64x256xbf16, swizzle_128b>
        // CHECK: tile.bulk_commit
        tile.bulk_commit
      }
      scf.yield %ps2 : !tile.pipeline<4>
    }
  }
}

// CHECK-LABEL: tile.kernel @blackwell_pieces
// CHECK-SAME: cluster = array<i64: 2, 1, 1>
tile.kernel @blackwell_pieces(%A: !tile.global<4096x4096xf16>, %B: !tile.global<4096x4096xf16>)
    attributes {target = #tile.target<sm_100a>, warpgroups = 2 : i64, cluster = array<i64: 2, 1, 1>,
                grid = #tile.grid_policy<fixed>,
                grid_axes = [#tile.grid_axis<ceildiv(arg 1, dim 0, 128)>, #tile.grid_axis<32>, #tile.grid_axis<1>]} {
  // CHECK: grid_axes = [#tile.grid_axis<ceildiv(arg 1, dim 0, 128)>, #tile.grid_axis<32>, #tile.grid_axis<1>]
  // CHECK: tile.tmem_alloc cta_group 2 : !tile.tmem<128x512xf32>
  %tmem = tile.tmem_alloc cta_group 2 : !tile.tmem<128x512xf32>
  %a = tile.smem_alloc : !tile.smem<4x128x64xf16, swizzle_128b>
  %b = tile.smem_alloc : !tile.smem<4x128x64xf16, swizzle_128b>
  %full = tile.barrier_alloc arrivals 1 : !tile.barrier<tma, 4>
  %empty = tile.barrier_alloc arrivals 1 : !tile.barrier<mma, 4>
  // CHECK: tile.barrier.remote_view %{{.*}} cta 0 : !tile.barrier<tma, 4> -> !tile.barrier<tma, 4, remote>
  %full0 = tile.barrier.remote_view %full cta 0 : !tile.barrier<tma, 4> -> !tile.barrier<tma, 4, remote>
  %c0 = arith.constant 0 : i32
  %true = arith.constant true
  tile.role "mma" warpgroups [1] warps [0] single_thread {
    // CHECK: tile.copy_async {{.*}} {cta_group = 2 : i64, multicast = 3 : i64}
    tile.copy_async %a[%c0], %A[%c0, %c0] barrier %full0[%c0] {cta_group = 2 : i64, multicast = 3 : i64}
        : !tile.smem<4x128x64xf16, swizzle_128b>, !tile.global<4096x4096xf16>, !tile.barrier<tma, 4, remote>
    // CHECK: tile.gemm_async %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}}[%{{.*}}, %{{.*}}] accumulate(%{{.*}}) {cta_group = 2 : i64, dispatch = #tile.gemm_dispatch<tcgen05>} : !tile.tmem<128x512xf32>
    tile.gemm_async %tmem[%c0], %a[%c0, %c0], %b[%c0, %c0] accumulate(%true) {cta_group = 2 : i64, dispatch = #tile.gemm_dispatch<tcgen05>}
        : !tile.tmem<128x512xf32>, !tile.smem<4x128x64xf16, swizzle_128b>, !tile.smem<4x128x64xf16, swizzle_128b>
    // CHECK: tile.gemm_commit barrier %{{.*}}[%{{.*}}] cta_mask 3 {cta_group = 2 : i64} : !tile.barrier<mma, 4>
    tile.gemm_commit barrier %empty[%c0] cta_mask 3 {cta_group = 2 : i64} : !tile.barrier<mma, 4>
  }
  tile.role "writeback" warpgroups [0] {
    // CHECK: tile.tmem_load %{{.*}}[%{{.*}}] : !tile.tmem<128x512xf32> -> !tile.frag<128x64xf32, row_per_thread>
    %r = tile.tmem_load %tmem[%c0] : !tile.tmem<128x512xf32> -> !tile.frag<128x64xf32, row_per_thread>
    // CHECK: tile.tmem_wait %{{.*}} : !tile.frag<128x64xf32, row_per_thread>
    %r2 = tile.tmem_wait %r : !tile.frag<128x64xf32, row_per_thread>
    // CHECK: tile.fence tcgen05_after_sync
    tile.fence tcgen05_after_sync
    // CHECK: tile.sync cluster
    tile.sync cluster
  }
}

// The batched scheduler (batch, m, n) and extents counted in tiles, as
// tile_coords gives them; the result names say which block index is which.
// CHECK-LABEL: tile.kernel @batched_schedule
tile.kernel @batched_schedule(%B: i32, %M: i32, %N: i32)
    attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  // CHECK: tile.sched.num_tiles %{{.*}}, %{{.*}}, %{{.*}} block [1, 128, 256]
  %n = tile.sched.num_tiles %B, %M, %N block [1, 128, 256]
  %t = tile.id cta
  // CHECK: %b_block, %m_block, %n_block = tile.sched.coords %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} block [1, 128, 256] group 8
  %b, %mi, %ni = tile.sched.coords %t, %B, %M, %N block [1, 128, 256] group 8
  // CHECK: %m_block_0, %n_block_1 = tile.sched.coords %{{.*}}, %{{.*}}, %{{.*}} block [1, 1]{{$}}
  %mt, %nt = tile.sched.coords %t, %mi, %ni block [1, 1]
}

// wgmma that overwrites an undefined accumulator on a run-time predicate,
// with A stored [K, M] and B stored [K, N] (MN-major).
// CHECK-LABEL: tile.kernel @wgmma_majors
tile.kernel @wgmma_majors(%k: i32)
    attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %a = tile.smem_alloc : !tile.smem<2x64x128xbf16, swizzle_128b>
  %b = tile.smem_alloc : !tile.smem<2x64x256xbf16, swizzle_128b>
  %c0 = arith.constant 0 : i32
  %first = arith.cmpi ne, %k, %c0 : i32
  // CHECK: tile.frag.undef : !tile.frag<64x256xf32, wgmma_acc>
  %u = tile.frag.undef : !tile.frag<64x256xf32, wgmma_acc>
  // CHECK: tile.gemm_async %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}}[%{{.*}}, %{{.*}}] accumulate(%{{.*}}) {a_major = #tile.mma_major<mn>, b_major = #tile.mma_major<mn>} : !tile.frag<64x256xf32, wgmma_acc>, !tile.smem<2x64x128xbf16, swizzle_128b>, !tile.smem<2x64x256xbf16, swizzle_128b> -> !tile.frag<64x256xf32, wgmma_acc>
  %r = tile.gemm_async %u, %a[%c0, %c0], %b[%c0, %c0] accumulate(%first)
      {a_major = #tile.mma_major<mn>, b_major = #tile.mma_major<mn>}
      : !tile.frag<64x256xf32, wgmma_acc>, !tile.smem<2x64x128xbf16, swizzle_128b>,
        !tile.smem<2x64x256xbf16, swizzle_128b> -> !tile.frag<64x256xf32, wgmma_acc>
  %w = tile.gemm_wait %r pending 0 : !tile.frag<64x256xf32, wgmma_acc>
}

// Fragment math: broadcast fragments, every op family, the fp8 cast.
// CHECK-LABEL: tile.kernel @fragment_math
tile.kernel @fragment_math(%alpha: f32) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  // CHECK: tile.frag.zero : !tile.frag<64x128xf32, wgmma_acc>
  %acc = tile.frag.zero : !tile.frag<64x128xf32, wgmma_acc>
  // CHECK: tile.frag.zero : !tile.frag<64x128xf32, wgmma_acc, cols>
  %bias = tile.frag.zero : !tile.frag<64x128xf32, wgmma_acc, cols>
  // CHECK: tile.frag.zero : !tile.frag<128x32xf32, row_per_thread, rows>
  %scale = tile.frag.zero : !tile.frag<128x32xf32, row_per_thread, rows>
  // CHECK: tile.frag.index : !tile.frag<64x128xf32, wgmma_acc, cols>
  %cols = tile.frag.index : !tile.frag<64x128xf32, wgmma_acc, cols>
  // CHECK: tile.frag.index {align = 8 : i64} : !tile.frag<64x128xf32, wgmma_acc, cols>
  %groups = tile.frag.index {align = 8 : i64} : !tile.frag<64x128xf32, wgmma_acc, cols>
  // CHECK: tile.frag.unary exp %{{.*}} : !tile.frag<64x128xf32, wgmma_acc>
  %e = tile.frag.unary exp %acc : !tile.frag<64x128xf32, wgmma_acc>
  // CHECK: tile.frag.unary relu %{{.*}} : !tile.frag<64x128xf32, wgmma_acc, cols>
  %r = tile.frag.unary relu %bias : !tile.frag<64x128xf32, wgmma_acc, cols>
  // CHECK: tile.frag.binary sub %{{.*}}, %{{.*}} : f32, !tile.frag<64x128xf32, wgmma_acc, cols> -> !tile.frag<64x128xf32, wgmma_acc, cols>
  %s = tile.frag.binary sub %alpha, %r : f32, !tile.frag<64x128xf32, wgmma_acc, cols> -> !tile.frag<64x128xf32, wgmma_acc, cols>
  // CHECK: tile.frag.binary div %{{.*}}, %{{.*}} : !tile.frag<64x128xf32, wgmma_acc, cols>, !tile.frag<64x128xf32, wgmma_acc> -> !tile.frag<64x128xf32, wgmma_acc>
  %d = tile.frag.binary div %s, %e : !tile.frag<64x128xf32, wgmma_acc, cols>, !tile.frag<64x128xf32, wgmma_acc> -> !tile.frag<64x128xf32, wgmma_acc>
  // CHECK: tile.frag.fma %{{.*}}, %{{.*}}, %{{.*}} : !tile.frag<64x128xf32, wgmma_acc>, f32, !tile.frag<64x128xf32, wgmma_acc, cols> -> !tile.frag<64x128xf32, wgmma_acc>
  %f = tile.frag.fma %d, %alpha, %bias : !tile.frag<64x128xf32, wgmma_acc>, f32, !tile.frag<64x128xf32, wgmma_acc, cols> -> !tile.frag<64x128xf32, wgmma_acc>
  // CHECK: tile.frag.cmp ge %{{.*}}, %{{.*}} : !tile.frag<64x128xf32, wgmma_acc>, f32 -> !tile.frag<64x128xi1, wgmma_acc>
  %m = tile.frag.cmp ge %f, %alpha : !tile.frag<64x128xf32, wgmma_acc>, f32 -> !tile.frag<64x128xi1, wgmma_acc>
  // CHECK: tile.frag.select %{{.*}}, %{{.*}}, %{{.*}} : !tile.frag<64x128xi1, wgmma_acc>, !tile.frag<64x128xf32, wgmma_acc>, f32 -> !tile.frag<64x128xf32, wgmma_acc>
  %y = tile.frag.select %m, %f, %alpha : !tile.frag<64x128xi1, wgmma_acc>, !tile.frag<64x128xf32, wgmma_acc>, f32 -> !tile.frag<64x128xf32, wgmma_acc>
  // CHECK: tile.frag.reduce max %{{.*}} axis 1 : !tile.frag<64x128xf32, wgmma_acc> -> !tile.frag<64x128xf32, wgmma_acc, rows>
  %rowmax = tile.frag.reduce max %y axis 1 : !tile.frag<64x128xf32, wgmma_acc> -> !tile.frag<64x128xf32, wgmma_acc, rows>
  // CHECK: tile.frag.binary sub %{{.*}}, %{{.*}} : !tile.frag<64x128xf32, wgmma_acc>, !tile.frag<64x128xf32, wgmma_acc, rows> -> !tile.frag<64x128xf32, wgmma_acc>
  %c = tile.frag.binary sub %y, %rowmax : !tile.frag<64x128xf32, wgmma_acc>, !tile.frag<64x128xf32, wgmma_acc, rows> -> !tile.frag<64x128xf32, wgmma_acc>
  // A rows and a cols fragment make a full one (an outer sum).
  // CHECK: tile.frag.binary add %{{.*}}, %{{.*}} : !tile.frag<64x128xf32, wgmma_acc, rows>, !tile.frag<64x128xf32, wgmma_acc, cols> -> !tile.frag<64x128xf32, wgmma_acc>
  %o = tile.frag.binary add %rowmax, %bias : !tile.frag<64x128xf32, wgmma_acc, rows>, !tile.frag<64x128xf32, wgmma_acc, cols> -> !tile.frag<64x128xf32, wgmma_acc>
  // CHECK: tile.frag.reduce sum %{{.*}} axis 1 : !tile.frag<128x32xf32, row_per_thread> -> !tile.frag<128x32xf32, row_per_thread, rows>
  %t = tile.frag.zero : !tile.frag<128x32xf32, row_per_thread>
  %tsum = tile.frag.reduce sum %t axis 1 : !tile.frag<128x32xf32, row_per_thread> -> !tile.frag<128x32xf32, row_per_thread, rows>
  // CHECK: tile.frag.slice %{{.*}} cols 64 : !tile.frag<64x128xf32, wgmma_acc> -> !tile.frag<64x64xf32, wgmma_acc>
  %half = tile.frag.slice %y cols 64 : !tile.frag<64x128xf32, wgmma_acc> -> !tile.frag<64x64xf32, wgmma_acc>
  // CHECK: tile.frag.slice %{{.*}} cols 8 : !tile.frag<64x128xf32, wgmma_acc, cols> -> !tile.frag<64x16xf32, wgmma_acc, cols>
  %bias16 = tile.frag.slice %bias cols 8 : !tile.frag<64x128xf32, wgmma_acc, cols> -> !tile.frag<64x16xf32, wgmma_acc, cols>
  // CHECK: tile.frag.cast %{{.*}} : !tile.frag<64x128xf32, wgmma_acc> -> !tile.frag<64x128xf8E4M3FN, wgmma_acc>
  %q = tile.frag.cast %c : !tile.frag<64x128xf32, wgmma_acc> -> !tile.frag<64x128xf8E4M3FN, wgmma_acc>
  // CHECK: tile.frag.cast %{{.*}} : !tile.frag<64x128xf32, wgmma_acc> -> !tile.frag<64x128xf8E5M2, wgmma_acc>
  %q2 = tile.frag.cast %o : !tile.frag<64x128xf32, wgmma_acc> -> !tile.frag<64x128xf8E5M2, wgmma_acc>
}

// Grouped reductions: per-slice partial sums gathered with tile.frag.insert,
// reduced together into a quad_spread fragment (one value per thread per
// 64 accumulator rows), its row and column indices, and its global store.
// CHECK-LABEL: tile.kernel @grouped_reduction
tile.kernel @grouped_reduction(%L: !tile.global<?x?xf32>) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %c0 = arith.constant 0 : i32
  %part = tile.frag.zero : !tile.frag<64x8xf32, wgmma_acc>
  // CHECK: tile.frag.undef : !tile.frag<64x16xf32, wgmma_acc>
  %u = tile.frag.undef : !tile.frag<64x16xf32, wgmma_acc>
  // CHECK: tile.frag.insert %{{.*}} into %{{.*}} cols 0 : !tile.frag<64x8xf32, wgmma_acc> into !tile.frag<64x16xf32, wgmma_acc>
  %p0 = tile.frag.insert %part into %u cols 0 : !tile.frag<64x8xf32, wgmma_acc> into !tile.frag<64x16xf32, wgmma_acc>
  // CHECK: tile.frag.insert %{{.*}} into %{{.*}} cols 8 : !tile.frag<64x8xf32, wgmma_acc> into !tile.frag<64x16xf32, wgmma_acc>
  %p1 = tile.frag.insert %part into %p0 cols 8 : !tile.frag<64x8xf32, wgmma_acc> into !tile.frag<64x16xf32, wgmma_acc>
  // CHECK: tile.frag.reduce sum %{{.*}} axis 1 groups 2 : !tile.frag<64x16xf32, wgmma_acc> -> !tile.frag<2x64xf32, quad_spread>
  %l = tile.frag.reduce sum %p1 axis 1 groups 2 : !tile.frag<64x16xf32, wgmma_acc> -> !tile.frag<2x64xf32, quad_spread>
  // CHECK: tile.frag.reduce max %{{.*}} axis 1 groups 8 : !tile.frag<128x64xf32, wgmma_acc> -> !tile.frag<8x128xf32, quad_spread>
  %big = tile.frag.zero : !tile.frag<128x64xf32, wgmma_acc>
  %m = tile.frag.reduce max %big axis 1 groups 8 : !tile.frag<128x64xf32, wgmma_acc> -> !tile.frag<8x128xf32, quad_spread>
  // groups 1 (the default) is not printed.
  // CHECK: tile.frag.reduce sum %{{.*}} axis 1 : !tile.frag<64x16xf32, wgmma_acc> -> !tile.frag<64x16xf32, wgmma_acc, rows>
  %s = tile.frag.reduce sum %p1 axis 1 groups 1 : !tile.frag<64x16xf32, wgmma_acc> -> !tile.frag<64x16xf32, wgmma_acc, rows>
  // CHECK: tile.frag.index : !tile.frag<2x64xf32, quad_spread, rows>
  %q = tile.frag.index : !tile.frag<2x64xf32, quad_spread, rows>
  // CHECK: tile.frag.index : !tile.frag<2x64xf32, quad_spread, cols>
  %k = tile.frag.index : !tile.frag<2x64xf32, quad_spread, cols>
  // CHECK: tile.frag.binary add %{{.*}}, %{{.*}} : !tile.frag<2x64xf32, quad_spread>, !tile.frag<2x64xf32, quad_spread, cols> -> !tile.frag<2x64xf32, quad_spread>
  %y = tile.frag.binary add %l, %k : !tile.frag<2x64xf32, quad_spread>, !tile.frag<2x64xf32, quad_spread, cols> -> !tile.frag<2x64xf32, quad_spread>
  // CHECK: tile.frag.store_global %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : !tile.frag<2x64xf32, quad_spread>, !tile.global<?x?xf32>
  tile.frag.store_global %y, %L[%c0, %c0] : !tile.frag<2x64xf32, quad_spread>, !tile.global<?x?xf32>
}

// Loads into registers, guarded stores and copies of rank-1 tensors.
// CHECK-LABEL: tile.kernel @loads
tile.kernel @loads(%grp: !tile.global<?xi32>, %R: !tile.global<?x?xbf16>,
                   %bias: !tile.global<?xf32>, %D: !tile.global<?x?xbf16>)
    attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64,
                grid = #tile.grid_policy<persistent>} {
  %sfa = tile.smem_alloc : !tile.smem<4x128xf32, none>
  %full = tile.barrier_alloc arrivals 1 : !tile.barrier<tma, 1>
  %c0 = arith.constant 0 : i32
  %m1 = arith.constant -1 : i32
  %one = arith.constant 1.0 : f32
  // CHECK: tile.load %{{.*}}[%{{.*}}] : !tile.global<?xi32> -> i32
  %g = tile.load %grp[%c0] : !tile.global<?xi32> -> i32
  // CHECK: tile.load %{{.*}}[%{{.*}}] other %{{.*}} : i32 {nc} : !tile.global<?xi32> -> i32
  %h = tile.load %grp[%c0] other %m1 : i32 {nc} : !tile.global<?xi32> -> i32
  // CHECK: tile.load %{{.*}}[%{{.*}}] order acquire scope sys : !tile.global<?xi32> -> i32
  %flag = tile.load %grp[%c0] order acquire scope sys : !tile.global<?xi32> -> i32
  // CHECK: tile.atomic add %{{.*}}[%{{.*}}], %{{.*}} order release scope sys : !tile.global<?xi32>, i32
  %old = tile.atomic add %grp[%c0], %flag order release scope sys : !tile.global<?xi32>, i32
  // The defaults (relaxed, gpu) are not printed.
  // CHECK: tile.atomic max %{{.*}}[%{{.*}}], %{{.*}} : !tile.global<?xi32>, i32
  %hi = tile.atomic max %grp[%c0], %old order relaxed scope gpu : !tile.global<?xi32>, i32
  // CHECK: tile.atomic exch %{{.*}}[%{{.*}}], %{{.*}} order acq_rel scope cluster : !tile.global<?xf32>, f32
  %swapped = tile.atomic exch %bias[%c0], %one order acq_rel scope cluster : !tile.global<?xf32>, f32
  // CHECK: tile.peer_view %{{.*}}, %{{.*}} : !tile.global<?xi32>
  %far = arith.constant 4096 : i64
  %peer = tile.peer_view %grp, %far : !tile.global<?xi32>
  // CHECK: tile.grid_sync %{{.*}}[%{{.*}}] : !tile.global<?xi32>
  tile.grid_sync %grp[%c0] : !tile.global<?xi32>
  // CHECK: tile.load %{{.*}}[%{{.*}}, %{{.*}}] : !tile.smem<4x128xf32, none> -> f32
  %x = tile.load %sfa[%c0, %c0] : !tile.smem<4x128xf32, none> -> f32
  // CHECK: tile.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : f32, !tile.smem<4x128xf32, none>
  tile.store %x, %sfa[%c0, %c0] : f32, !tile.smem<4x128xf32, none>
  // CHECK: tile.store %{{.*}}, %{{.*}}[%{{.*}}] : i32, !tile.global<?xi32>
  tile.store %c0, %grp[%c0] : i32, !tile.global<?xi32>
  // CHECK: tile.copy_async %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}] barrier %{{.*}}[%{{.*}}] {dispatch = #tile.copy_dispatch<bulk>} : !tile.smem<4x128xf32, none>, !tile.global<?xf32>, !tile.barrier<tma, 1>
  tile.copy_async %sfa[%c0], %bias[%c0] barrier %full[%c0] {dispatch = #tile.copy_dispatch<bulk>} : !tile.smem<4x128xf32, none>, !tile.global<?xf32>, !tile.barrier<tma, 1>
  // CHECK: tile.frag.load %{{.*}}[%{{.*}}, %{{.*}}] : !tile.smem<4x128xf32, none> -> !tile.frag<64x256xf32, wgmma_acc, rows>
  %sa = tile.frag.load %sfa[%c0, %c0] : !tile.smem<4x128xf32, none> -> !tile.frag<64x256xf32, wgmma_acc, rows>
  // CHECK: tile.frag.load %{{.*}}[%{{.*}}] other %{{.*}} : f32 {nc, vector = 2 : i64} : !tile.global<?xf32> -> !tile.frag<64x256xf32, wgmma_acc, cols>
  %b = tile.frag.load %bias[%c0] other %one : f32 {nc, vector = 2 : i64} : !tile.global<?xf32> -> !tile.frag<64x256xf32, wgmma_acc, cols>
  // CHECK: tile.frag.load %{{.*}}[%{{.*}}, %{{.*}}] : !tile.global<?x?xbf16> -> !tile.frag<64x256xbf16, wgmma_acc>
  %r = tile.frag.load %R[%c0, %c0] : !tile.global<?x?xbf16> -> !tile.frag<64x256xbf16, wgmma_acc>
  // CHECK: tile.frag.store_global %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] {vector = 2 : i64} : !tile.frag<64x256xbf16, wgmma_acc>, !tile.global<?x?xbf16>
  tile.frag.store_global %r, %D[%c0, %c0] {vector = 2 : i64} : !tile.frag<64x256xbf16, wgmma_acc>, !tile.global<?x?xbf16>
  // One value per row along the last dimension: the inverse of %sa's load.
  // CHECK: tile.frag.store_global %{{.*}}, %{{.*}}[%{{.*}}] {lines} : !tile.frag<64x256xf32, wgmma_acc, rows>, !tile.global<?xf32>
  tile.frag.store_global %sa, %bias[%c0] {lines} : !tile.frag<64x256xf32, wgmma_acc, rows>, !tile.global<?xf32>
}

// A gather and a scatter: each row of the fragment at the tensor row its
// row number names.
// CHECK-LABEL: tile.kernel @gather_scatter
tile.kernel @gather_scatter(%ids: !tile.global<?xi32>, %X: !tile.global<?x?xi32>, %Y: !tile.global<?x?xi32>) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %c0 = arith.constant 0 : i32
  %neg = arith.constant -1 : i32
  %rows = tile.frag.load %ids[%c0] other %neg : i32 : !tile.global<?xi32> -> !tile.frag<128x32xi32, row_per_thread, rows>
  // CHECK: tile.frag.load %{{.*}}[%{{.*}}, %{{.*}}] rows %{{.*}} : !tile.frag<128x32xi32, row_per_thread, rows> : !tile.global<?x?xi32> -> !tile.frag<128x32xi32, row_per_thread>
  %x = tile.frag.load %X[%c0, %c0] rows %rows : !tile.frag<128x32xi32, row_per_thread, rows> : !tile.global<?x?xi32> -> !tile.frag<128x32xi32, row_per_thread>
  // CHECK: tile.frag.store_global %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] rows %{{.*}} : !tile.frag<128x32xi32, row_per_thread, rows> : !tile.frag<128x32xi32, row_per_thread>, !tile.global<?x?xi32>
  tile.frag.store_global %x, %Y[%c0, %c0] rows %rows : !tile.frag<128x32xi32, row_per_thread, rows> : !tile.frag<128x32xi32, row_per_thread>, !tile.global<?x?xi32>
}

// Two accumulators in turn: the next block's wgmma is committed before the
// previous one is waited for with pending 1, which settles it (its group is
// not the newest), so it may be read while the other is in flight.
// CHECK-LABEL: tile.kernel @wgmma_two_accumulators_in_turn
tile.kernel @wgmma_two_accumulators_in_turn(%k: i32)
    attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %a = tile.smem_alloc : !tile.smem<64x64xbf16, swizzle_128b>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %u = tile.frag.undef : !tile.frag<64x64xf32, wgmma_acc>
  %acc = tile.frag.zero : !tile.frag<64x64xf32, wgmma_acc>
  %f = arith.constant false
  %t0 = tile.gemm_async %u, %a[%c0], %a[%c0] accumulate(%f) : !tile.frag<64x64xf32, wgmma_acc>, !tile.smem<64x64xbf16, swizzle_128b>, !tile.smem<64x64xbf16, swizzle_128b> -> !tile.frag<64x64xf32, wgmma_acc>
  tile.gemm_commit
  %r:3 = scf.for %i = %c0 to %k step %c1 iter_args(%prev = %t0, %next = %u, %sum = %acc) -> (!tile.frag<64x64xf32, wgmma_acc>, !tile.frag<64x64xf32, wgmma_acc>, !tile.frag<64x64xf32, wgmma_acc>) : i32 {
    %t1 = tile.gemm_async %next, %a[%c0], %a[%c0] accumulate(%f) : !tile.frag<64x64xf32, wgmma_acc>, !tile.smem<64x64xbf16, swizzle_128b>, !tile.smem<64x64xbf16, swizzle_128b> -> !tile.frag<64x64xf32, wgmma_acc>
    tile.gemm_commit
    // CHECK: tile.gemm_wait %{{.*}} pending 1
    %w = tile.gemm_wait %prev pending 1 : !tile.frag<64x64xf32, wgmma_acc>
    // CHECK: tile.frag.binary add
    %s = tile.frag.binary add %sum, %w : !tile.frag<64x64xf32, wgmma_acc>, !tile.frag<64x64xf32, wgmma_acc> -> !tile.frag<64x64xf32, wgmma_acc>
    scf.yield %t1, %w, %s : !tile.frag<64x64xf32, wgmma_acc>, !tile.frag<64x64xf32, wgmma_acc>, !tile.frag<64x64xf32, wgmma_acc>
  }
  %last = tile.gemm_wait %r#0 pending 0 : !tile.frag<64x64xf32, wgmma_acc>
}

// A tensor list: dim 0 (its length) is read, and a copy's first index picks
// the tensor.
// CHECK-LABEL: tile.kernel @tensor_list
// CHECK-SAME: !tile.global<?x?x?xbf16, list = 4>
tile.kernel @tensor_list(%A: !tile.global<?x?x?xbf16, list = 4>) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %a = tile.smem_alloc : !tile.smem<64x64xbf16, swizzle_128b>
  %full = tile.barrier_alloc arrivals 1 : !tile.barrier<tma, 1>
  %c0 = arith.constant 0 : i32
  // CHECK: tile.dim %{{.*}}[0] : !tile.global<?x?x?xbf16, list = 4>
  %g = tile.dim %A[0] : !tile.global<?x?x?xbf16, list = 4>
  // CHECK: tile.copy_async %{{.*}}[], %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] barrier %{{.*}}[%{{.*}}] : !tile.smem<64x64xbf16, swizzle_128b>, !tile.global<?x?x?xbf16, list = 4>, !tile.barrier<tma, 1>
  tile.copy_async %a[], %A[%g, %c0, %c0] barrier %full[%c0] : !tile.smem<64x64xbf16, swizzle_128b>, !tile.global<?x?x?xbf16, list = 4>, !tile.barrier<tma, 1>
}

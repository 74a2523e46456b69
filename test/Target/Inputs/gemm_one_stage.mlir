tile.kernel @gemm_rung1(%A: !tile.global<?x?xbf16>, %B: !tile.global<?x?xbf16>, %D: !tile.global<?x?xbf16>)
    attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<fixed>,
      grid_axes = [#tile.grid_axis<ceildiv(arg 1, dim 0, 128)>, #tile.grid_axis<ceildiv(arg 0, dim 0, 128)>, #tile.grid_axis<1>]} {
  %a = tile.smem_alloc : !tile.smem<128x64xbf16, swizzle_128b>
  %b = tile.smem_alloc : !tile.smem<128x64xbf16, swizzle_128b>
  %d = tile.smem_alloc : !tile.smem<128x128xbf16, swizzle_128b>
  %full = tile.barrier_alloc arrivals 1 : !tile.barrier<tma, 1>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %K = tile.dim %A[1] : !tile.global<?x?xbf16>
  %ktiles = arith.ceildivsi %K, %c64 : i32
  %bx = tile.id cta_x
  %by = tile.id cta_y
  %m0 = arith.muli %by, %c128 : i32
  %n0 = arith.muli %bx, %c128 : i32
  %acc0 = tile.frag.zero : !tile.frag<128x128xf32, wgmma_acc>
  %acc = scf.for %kt = %c0 to %ktiles step %c1 iter_args(%acc_i = %acc0) -> (!tile.frag<128x128xf32, wgmma_acc>) : i32 {
    %k0 = arith.muli %kt, %c64 : i32
    tile.single_thread cta {
      tile.copy_async %a[], %A[%m0, %k0] barrier %full[%c0] : !tile.smem<128x64xbf16, swizzle_128b>, !tile.global<?x?xbf16>, !tile.barrier<tma, 1>
      tile.copy_async %b[], %B[%n0, %k0] barrier %full[%c0] : !tile.smem<128x64xbf16, swizzle_128b>, !tile.global<?x?xbf16>, !tile.barrier<tma, 1>
      tile.barrier.arrive %full[%c0] expect_tx 32768 : !tile.barrier<tma, 1>
    }
    %ph = arith.andi %kt, %c1 : i32
    tile.barrier.wait %full[%c0], %ph : !tile.barrier<tma, 1>
    %acc1 = tile.gemm_async %acc_i, %a[%c0], %b[%c0] : !tile.frag<128x128xf32, wgmma_acc>, !tile.smem<128x64xbf16, swizzle_128b>, !tile.smem<128x64xbf16, swizzle_128b> -> !tile.frag<128x128xf32, wgmma_acc>
    tile.gemm_commit
    %acc2 = tile.gemm_wait %acc1 pending 0 : !tile.frag<128x128xf32, wgmma_acc>
    tile.sync cta
    scf.yield %acc2 : !tile.frag<128x128xf32, wgmma_acc>
  }
  %h = tile.frag.cast %acc : !tile.frag<128x128xf32, wgmma_acc> -> !tile.frag<128x128xbf16, wgmma_acc>
  tile.frag.store %h, %d[%c0] : !tile.frag<128x128xbf16, wgmma_acc>, !tile.smem<128x128xbf16, swizzle_128b>
  tile.fence proxy_async
  tile.sync cta
  tile.single_thread cta {
    tile.copy_async %D[%m0, %n0], %d[] : !tile.global<?x?xbf16>, !tile.smem<128x128xbf16, swizzle_128b>
    tile.bulk_commit
    tile.bulk_wait 0
  }
}

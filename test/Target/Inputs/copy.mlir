tile.kernel @tma_copy(%X: !tile.global<?x?xbf16>, %Y: !tile.global<?x?xbf16>)
    attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<fixed>,
      grid_axes = [#tile.grid_axis<ceildiv(arg 0, dim 1, 64)>, #tile.grid_axis<ceildiv(arg 0, dim 0, 128)>, #tile.grid_axis<1>]} {
  %buf = tile.smem_alloc : !tile.smem<128x64xbf16, swizzle_128b>
  %full = tile.barrier_alloc arrivals 1 : !tile.barrier<tma, 1>
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %bx = tile.id cta_x
  %by = tile.id cta_y
  %row = arith.muli %by, %c128 : i32
  %col = arith.muli %bx, %c64 : i32
  tile.single_thread cta {
    tile.copy_async %buf[], %X[%row, %col] barrier %full[%c0]
        : !tile.smem<128x64xbf16, swizzle_128b>, !tile.global<?x?xbf16>, !tile.barrier<tma, 1>
    tile.barrier.arrive %full[%c0] expect_tx 16384 : !tile.barrier<tma, 1>
  }
  tile.barrier.wait %full[%c0], %c0 : !tile.barrier<tma, 1>
  tile.single_thread cta {
    tile.copy_async %Y[%row, %col], %buf[] : !tile.global<?x?xbf16>, !tile.smem<128x64xbf16, swizzle_128b>
    tile.bulk_commit
    tile.bulk_wait 0
  }
}

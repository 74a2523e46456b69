// A kernel whose buffers do not fit in shared memory.
tile.kernel @too_big() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %a = tile.smem_alloc : !tile.smem<4x128x128xbf16, swizzle_128b>
  %b = tile.smem_alloc : !tile.smem<4x128x128xbf16, swizzle_128b>
  %full = tile.barrier_alloc arrivals 1 : !tile.barrier<tma, 1>
}

// RUN: tile-opt %s --tile-verify-scopes --split-input-file --verify-diagnostics
// Each case puts an op where its scope cannot issue it.

tile.kernel @cta_sync_in_role() attributes {target = #tile.target<sm_90a>, warpgroups = 2 : i64, grid = #tile.grid_policy<persistent>} {
  // expected-note @below {{the role is declared here}}
  tile.role "producer" warpgroups [1] warps [0] single_thread {
    // expected-error @below {{'tile.sync' op a cta-wide sync inside role 'producer' deadlocks: the other roles never reach it; sync the role's warpgroup instead (tile.sync warpgroup, sync(warpgroup) in a spec)}}
    tile.sync cta
  }
}

// -----

tile.kernel @cluster_sync_in_single_thread() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  tile.single_thread cta {
    // expected-error @below {{'tile.sync' op a cluster-wide sync inside a tile.single_thread block deadlocks: the other threads never reach it}}
    tile.sync cluster
  }
}

// -----

tile.kernel @grid_sync_in_role(%W: !tile.global<1xi32>) attributes {target = #tile.target<sm_90a>, warpgroups = 2 : i64, grid = #tile.grid_policy<persistent>} {
  %c0 = arith.constant 0 : i32
  // expected-note @below {{the role is declared here}}
  tile.role "consumer" warpgroups [0] {
    // expected-error @below {{'tile.grid_sync' op a grid sync inside role 'consumer' deadlocks: the other roles never reach it}}
    tile.grid_sync %W[%c0] : !tile.global<1xi32>
  }
}

// -----

tile.kernel @grid_sync_in_single_thread(%W: !tile.global<1xi32>) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %c0 = arith.constant 0 : i32
  tile.single_thread cta {
    // expected-error @below {{'tile.grid_sync' op a grid sync inside a tile.single_thread block deadlocks: the other threads never reach it}}
    tile.grid_sync %W[%c0] : !tile.global<1xi32>
  }
}

// -----

tile.kernel @tma_from_warpgroup(%A: !tile.global<128x64xbf16>) attributes {target = #tile.target<sm_90a>, warpgroups = 2 : i64, grid = #tile.grid_policy<persistent>} {
  %a = tile.smem_alloc : !tile.smem<128x64xbf16, swizzle_128b>
  %full = tile.barrier_alloc arrivals 1 : !tile.barrier<tma, 1>
  %c0 = arith.constant 0 : i32
  tile.role "producer" warpgroups [1] {
    // expected-error @below {{'tile.copy_async' op a TMA copy is issued by one thread, but this op runs in role 'producer', which runs on 4 of 4 warps; put it in a single_thread role or a tile.single_thread block}}
    tile.copy_async %a[], %A[%c0, %c0] barrier %full[%c0] : !tile.smem<128x64xbf16, swizzle_128b>, !tile.global<128x64xbf16>, !tile.barrier<tma, 1>
  }
}

// -----

tile.kernel @bulk_commit_at_top() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  // expected-error @below {{'tile.bulk_commit' op a bulk-copy commit is issued by one thread, but this op runs at the kernel's top level; put it in a single_thread role or a tile.single_thread block}}
  tile.bulk_commit
}

// -----

tile.kernel @wgmma_on_one_warp() attributes {target = #tile.target<sm_90a>, warpgroups = 2 : i64, grid = #tile.grid_policy<persistent>} {
  %a = tile.smem_alloc : !tile.smem<64x64xbf16, swizzle_128b>
  %b = tile.smem_alloc : !tile.smem<64x64xbf16, swizzle_128b>
  %c0 = arith.constant 0 : i32
  tile.role "math" warpgroups [0] warps [0] {
    %z = tile.frag.zero : !tile.frag<64x64xf32, wgmma_acc>
    // expected-error @below {{'tile.gemm_async' op wgmma needs all 128 threads of a warpgroup, but this op runs in role 'math', which runs on 1 of 4 warps}}
    %r = tile.gemm_async %z, %a[%c0], %b[%c0] : !tile.frag<64x64xf32, wgmma_acc>, !tile.smem<64x64xbf16, swizzle_128b>, !tile.smem<64x64xbf16, swizzle_128b> -> !tile.frag<64x64xf32, wgmma_acc>
  }
}

// -----

tile.kernel @wgmma_commit_in_single_thread() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  tile.single_thread warpgroup {
    // expected-error @below {{'tile.gemm_commit' op wgmma.commit_group needs all 128 threads of a warpgroup, but this op runs inside a tile.single_thread block}}
    tile.gemm_commit
  }
}

// -----

tile.kernel @wgmma_wait_in_single_thread_role() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  tile.role "math" warpgroups [0] single_thread {
    %z = tile.frag.zero : !tile.frag<64x64xf32, wgmma_acc>
    // expected-error @below {{'tile.gemm_wait' op wgmma.wait_group needs all 128 threads of a warpgroup, but this op runs in single-thread role 'math'}}
    %w = tile.gemm_wait %z pending 0 : !tile.frag<64x64xf32, wgmma_acc>
  }
}

// -----

tile.kernel @tcgen05_by_warpgroup() attributes {target = #tile.target<sm_100a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %t = tile.tmem_alloc : !tile.tmem<128x256xf32>
  %a = tile.smem_alloc : !tile.smem<128x64xf16, swizzle_128b>
  %b = tile.smem_alloc : !tile.smem<128x64xf16, swizzle_128b>
  %c0 = arith.constant 0 : i32
  // expected-error @below {{'tile.gemm_async' op tcgen05.mma is issued by one thread, but this op runs at the kernel's top level; put it in a single_thread role or a tile.single_thread block}}
  tile.gemm_async %t[%c0], %a[%c0], %b[%c0] : !tile.tmem<128x256xf32>, !tile.smem<128x64xf16, swizzle_128b>, !tile.smem<128x64xf16, swizzle_128b>
}

// -----

tile.kernel @tcgen05_commit_by_warpgroup() attributes {target = #tile.target<sm_100a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %bar = tile.barrier_alloc arrivals 1 : !tile.barrier<mma, 1>
  %c0 = arith.constant 0 : i32
  // expected-error @below {{'tile.gemm_commit' op tcgen05.commit is issued by one thread, but this op runs at the kernel's top level; put it in a single_thread role or a tile.single_thread block}}
  tile.gemm_commit barrier %bar[%c0] : !tile.barrier<mma, 1>
}

// -----

tile.kernel @tmem_load_by_one_thread() attributes {target = #tile.target<sm_100a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %t = tile.tmem_alloc : !tile.tmem<128x256xf32>
  %c0 = arith.constant 0 : i32
  tile.single_thread warp {
    // expected-error @below {{'tile.tmem_load' op tcgen05.ld needs all 128 threads of a warpgroup, but this op runs inside a tile.single_thread block}}
    %r = tile.tmem_load %t[%c0] : !tile.tmem<128x256xf32> -> !tile.frag<128x64xf32, row_per_thread>
  }
}

// -----

// A reduction's shuffles need every lane of the warps holding the fragment.
tile.kernel @reduce_by_one_thread() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %z = tile.frag.zero : !tile.frag<64x64xf32, wgmma_acc>
  tile.single_thread warp {
    // expected-error @below {{'tile.frag.reduce' op a fragment reduction needs all 128 threads of a warpgroup, but this op runs inside a tile.single_thread block}}
    %s = tile.frag.reduce sum %z axis 1 : !tile.frag<64x64xf32, wgmma_acc> -> !tile.frag<64x64xf32, wgmma_acc, rows>
  }
}

// -----

tile.kernel @warpgroup_sync_on_one_warp() attributes {target = #tile.target<sm_90a>, warpgroups = 2 : i64, grid = #tile.grid_policy<persistent>} {
  tile.role "epilogue" warpgroups [0] warps [0, 1] {
    // expected-error @below {{'tile.sync' op a warpgroup sync needs all 128 threads of a warpgroup, but this op runs in role 'epilogue', which runs on 2 of 4 warps}}
    tile.sync warpgroup
  }
}

// -----

tile.kernel @role_in_single_thread() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  tile.single_thread cta {
    // expected-error @below {{'tile.role' op expects parent op 'tile.kernel'}}
    tile.role "r" warpgroups [0] {
    }
  }
}

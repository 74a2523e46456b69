// RUN: tile-opt %s -split-input-file -verify-diagnostics --allow-unregistered-dialect
// Every verifier message of the tile dialect, in full, at the op it blames.

// The target is an enum attribute: its parser names the targets.
// expected-error @+2 {{expected ::mlir::tile::Target to be one of: sm_90a, sm_100a}}
// expected-error @+1 {{failed to parse Tile_TargetAttr parameter 'value' which is to be a `::mlir::tile::Target`}}
tile.kernel @bad_target() attributes {target = #tile.target<sm_80>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %c = arith.constant 0 : i32
}

// -----

// expected-error @below {{'tile.kernel' op warpgroups must be 1 to 8 (128 to 1024 threads), got 9}}
tile.kernel @too_many_warpgroups() attributes {target = #tile.target<sm_90a>, warpgroups = 9 : i64, grid = #tile.grid_policy<persistent>} {
  %c = arith.constant 0 : i32
}

// -----

// expected-error @below {{'tile.kernel' op cluster must be three positive sizes, got [2, 0, 1]}}
tile.kernel @bad_cluster() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, cluster = array<i64: 2, 0, 1>, grid = #tile.grid_policy<persistent>} {
  %c = arith.constant 0 : i32
}

// -----

// expected-error @below {{'tile.kernel' op cluster of 32 CTAs is over the limit of 16}}
tile.kernel @big_cluster() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, cluster = array<i64: 32, 1, 1>, grid = #tile.grid_policy<persistent>} {
  %c = arith.constant 0 : i32
}

// -----

// expected-error @below {{'tile.kernel' op a kernel returns no values}}
tile.kernel @returns() -> i32 attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %c = arith.constant 0 : i32
}

// -----

// expected-error @below {{'tile.kernel' op argument 0 has type 'f64'; kernel arguments are !tile.global tensors, i32, i64 or f32}}
tile.kernel @bad_arg(%x: f64) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %c = arith.constant 0 : i32
}

// -----

// expected-error @below {{'tile.kernel' op a fixed grid needs three grid_axes}}
tile.kernel @fixed_without_axes() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<fixed>} {
  %c = arith.constant 0 : i32
}

// -----

// expected-error @below {{'tile.kernel' op grid axis refers to argument 3 but the kernel has 1}}
tile.kernel @axis_arg(%A: !tile.global<?x?xbf16>) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<fixed>, grid_axes = [#tile.grid_axis<ceildiv(arg 3, dim 0, 128)>, #tile.grid_axis<1>, #tile.grid_axis<1>]} {
  %c = arith.constant 0 : i32
}

// -----

// expected-error @below {{'tile.kernel' op grid axis refers to dim 2 of argument 0, which is not a global tensor with that dimension}}
tile.kernel @axis_dim(%A: !tile.global<?x?xbf16>) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<fixed>, grid_axes = [#tile.grid_axis<ceildiv(arg 0, dim 2, 128)>, #tile.grid_axis<1>, #tile.grid_axis<1>]} {
  %c = arith.constant 0 : i32
}

// -----

tile.kernel @role_no_warpgroup() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  // expected-error @below {{'tile.role' op role 'r' names no warpgroup}}
  tile.role "r" warpgroups [] {
  }
}

// -----

tile.kernel @role_warpgroup_range() attributes {target = #tile.target<sm_90a>, warpgroups = 2 : i64, grid = #tile.grid_policy<persistent>} {
  // expected-error @below {{'tile.role' op warpgroup 2 is out of range: the kernel has 2 warpgroups}}
  tile.role "r" warpgroups [2] {
  }
}

// -----

tile.kernel @role_warpgroup_twice() attributes {target = #tile.target<sm_90a>, warpgroups = 2 : i64, grid = #tile.grid_policy<persistent>} {
  // expected-error @below {{'tile.role' op warpgroup 1 is listed twice}}
  tile.role "r" warpgroups [1, 1] {
  }
}

// -----

tile.kernel @role_warp_range() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  // expected-error @below {{'tile.role' op warp 4 is out of range: a warpgroup has warps 0 to 3}}
  tile.role "r" warpgroups [0] warps [4] {
  }
}

// -----

tile.kernel @role_warp_twice() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  // expected-error @below {{'tile.role' op warp 2 is listed twice}}
  tile.role "r" warpgroups [0] warps [2, 2] {
  }
}

// -----

tile.kernel @role_budget() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  // expected-error @below {{'tile.role' op register budget must be a multiple of 8 in 24..256, got 30}}
  tile.role "r" warpgroups [0] max_regs 30 {
  }
}

// -----

tile.kernel @dim_range(%A: !tile.global<?x?xbf16>) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  // expected-error @below {{'tile.dim' op dimension 2 is out of range for a rank-2 tensor}}
  %d = tile.dim %A[2] : !tile.global<?x?xbf16>
}

// -----

tile.kernel @list_dim(%A: !tile.global<?x?x?xbf16, list = 4>) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  // expected-error @below {{'tile.dim' op dimension 2 of a tensor list differs between its tensors; only dimension 0 (its length) can be read}}
  %d = tile.dim %A[2] : !tile.global<?x?x?xbf16, list = 4>
}

// -----

tile.kernel @list_load(%A: !tile.global<?x?x?xi32, list = 4>) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %c0 = arith.constant 0 : i32
  // expected-error @below {{'tile.load' op reads tensor list 'arg0', which only copy_async (through its tensor maps) and tile.dim (its length) can use}}
  %v = tile.load %A[%c0, %c0, %c0] : !tile.global<?x?x?xi32, list = 4> -> i32
}

// -----

// expected-error @below {{'tile.kernel' op grid axis refers to dim 1 of tensor list argument 0, whose tensors' dims differ; only its length (dim 0) can size a grid}}
tile.kernel @list_axis(%A: !tile.global<?x?x?xbf16, list = 4>) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<fixed>, grid_axes = [#tile.grid_axis<ceildiv(arg 0, dim 1, 128)>, #tile.grid_axis<1>, #tile.grid_axis<1>]} {
  %c = arith.constant 0 : i32
}

// -----

tile.kernel @tmem_on_hopper() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  // expected-error @below {{'tile.tmem_alloc' op tensor memory needs sm_100a, the kernel targets sm_90a}}
  %t = tile.tmem_alloc : !tile.tmem<128x256xf32>
}

// -----

tile.kernel @tmem_group() attributes {target = #tile.target<sm_100a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  // expected-error @below {{'tile.tmem_alloc' op cta_group must be 1 or 2, got 3}}
  %t = tile.tmem_alloc cta_group 3 : !tile.tmem<128x256xf32>
}

// -----

tile.kernel @arrivals() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  // expected-error @below {{'tile.barrier_alloc' op arrivals must be 1 to 1048575, got 0}}
  %b = tile.barrier_alloc arrivals 0 : !tile.barrier<tma, 1>
}

// -----

tile.kernel @alloc_remote() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  // expected-error @below {{'tile.barrier_alloc' op allocates local barriers; take a remote view with tile.barrier.remote_view}}
  %b = tile.barrier_alloc arrivals 1 : !tile.barrier<tma, 1, remote>
}

// -----

tile.kernel @remote_of_remote() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, cluster = array<i64: 2, 1, 1>, grid = #tile.grid_policy<persistent>} {
  %b = tile.barrier_alloc arrivals 1 : !tile.barrier<tma, 1>
  %r = tile.barrier.remote_view %b cta 0 : !tile.barrier<tma, 1> -> !tile.barrier<tma, 1, remote>
  // expected-error @below {{'tile.barrier.remote_view' op source is already a remote view}}
  %rr = tile.barrier.remote_view %r cta 1 : !tile.barrier<tma, 1, remote> -> !tile.barrier<tma, 1, remote>
}

// -----

tile.kernel @remote_type() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, cluster = array<i64: 2, 1, 1>, grid = #tile.grid_policy<persistent>} {
  %b = tile.barrier_alloc arrivals 1 : !tile.barrier<tma, 1>
  // expected-error @below {{'tile.barrier.remote_view' op result must be the remote form of '!tile.barrier<tma, 1>'}}
  %r = tile.barrier.remote_view %b cta 0 : !tile.barrier<tma, 1> -> !tile.barrier<mma, 1, remote>
}

// -----

tile.kernel @remote_cta() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, cluster = array<i64: 2, 1, 1>, grid = #tile.grid_policy<persistent>} {
  %b = tile.barrier_alloc arrivals 1 : !tile.barrier<tma, 1>
  // expected-error @below {{'tile.barrier.remote_view' op cta 2 is not in the cluster of 2 CTAs}}
  %r = tile.barrier.remote_view %b cta 2 : !tile.barrier<tma, 1> -> !tile.barrier<tma, 1, remote>
}

// -----

tile.kernel @expect_tx_kind() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %b = tile.barrier_alloc arrivals 1 : !tile.barrier<threads, 1>
  %c0 = arith.constant 0 : i32
  // expected-error @below {{'tile.barrier.arrive' op expect_tx needs a tma barrier, got threads}}
  tile.barrier.arrive %b[%c0] expect_tx 16 : !tile.barrier<threads, 1>
}

// -----

tile.kernel @expect_tx_range() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %b = tile.barrier_alloc arrivals 1 : !tile.barrier<tma, 1>
  %c0 = arith.constant 0 : i32
  // expected-error @below {{'tile.barrier.arrive' op expect_tx must be 0 to 1048575 bytes, got 1048576}}
  tile.barrier.arrive %b[%c0] expect_tx 1048576 : !tile.barrier<tma, 1>
}

// -----

tile.kernel @wait_remote() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, cluster = array<i64: 2, 1, 1>, grid = #tile.grid_policy<persistent>} {
  %b = tile.barrier_alloc arrivals 1 : !tile.barrier<tma, 1>
  %r = tile.barrier.remote_view %b cta 0 : !tile.barrier<tma, 1> -> !tile.barrier<tma, 1, remote>
  %c0 = arith.constant 0 : i32
  // expected-error @below {{'tile.barrier.wait' op cannot wait on a remote barrier; wait on the local one}}
  tile.barrier.wait %r[%c0], %c0 : !tile.barrier<tma, 1, remote>
}

// -----

tile.kernel @test_remote() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, cluster = array<i64: 2, 1, 1>, grid = #tile.grid_policy<persistent>} {
  %b = tile.barrier_alloc arrivals 1 : !tile.barrier<tma, 1>
  %r = tile.barrier.remote_view %b cta 0 : !tile.barrier<tma, 1> -> !tile.barrier<tma, 1, remote>
  %c0 = arith.constant 0 : i32
  // expected-error @below {{'tile.barrier.test' op cannot test a remote barrier; test the local one}}
  %t = tile.barrier.test %r[%c0], %c0 : !tile.barrier<tma, 1, remote>
}

// -----

tile.kernel @test_index() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %b = tile.barrier_alloc arrivals 1 : !tile.barrier<tma, 2>
  %c0 = arith.constant 0 : i32
  %c2 = arith.constant 2 : i32
  // expected-error @below {{'tile.barrier.test' op barrier index 2 is out of range for an array of 2 barriers}}
  %t = tile.barrier.test %b[%c2], %c0 : !tile.barrier<tma, 2>
}

// -----

tile.kernel @atomic_type(%F: !tile.global<?xi32>) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %c0 = arith.constant 0 : i32
  %x = arith.constant 1.0 : f32
  // expected-error @below {{'tile.atomic' op value type 'f32' differs from the tensor's element type 'i32'}}
  %o = "tile.atomic"(%F, %c0, %x) {kind = 0 : i32} : (!tile.global<?xi32>, i32, f32) -> f32
}

// -----

tile.kernel @atomic_element(%H: !tile.global<?xbf16>) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %c0 = arith.constant 0 : i32
  %x = arith.constant 1.0 : bf16
  // expected-error @below {{'tile.atomic' op operand #2 must be 32-bit signless integer or 32-bit float, but got 'bf16'}}
  %o = tile.atomic add %H[%c0], %x : !tile.global<?xbf16>, bf16
}

// -----

tile.kernel @atomic_f32_max(%X: !tile.global<?xf32>) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %c0 = arith.constant 0 : i32
  %x = arith.constant 1.0 : f32
  // expected-error @below {{'tile.atomic' op an f32 atomic is add or exch, got max}}
  %o = tile.atomic max %X[%c0], %x : !tile.global<?xf32>, f32
}

// -----

tile.kernel @atomic_index(%F: !tile.global<?x?xi32>) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %c0 = arith.constant 0 : i32
  // expected-error @below {{'tile.atomic' op destination of rank 2 takes 2 indices, got 1}}
  %o = tile.atomic add %F[%c0], %c0 : !tile.global<?x?xi32>, i32
}

// -----

tile.kernel @ordered_shared_load() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %s = tile.smem_alloc : !tile.smem<128xi32, none>
  %c0 = arith.constant 0 : i32
  // expected-error @below {{'tile.load' op an ordered load reads global memory (shared-memory loads are ordered by barriers)}}
  %x = tile.load %s[%c0] order acquire scope cta : !tile.smem<128xi32, none> -> i32
}

// -----

tile.kernel @release_load(%F: !tile.global<?xi32>) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %c0 = arith.constant 0 : i32
  // expected-error @below {{'tile.load' op a load is relaxed or acquire, got release}}
  %x = tile.load %F[%c0] order release scope sys : !tile.global<?xi32> -> i32
}

// -----

tile.kernel @ordered_nc_load(%F: !tile.global<?xi32>) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %c0 = arith.constant 0 : i32
  // expected-error @below {{'tile.load' op an ordered load cannot read through the read-only cache (nc)}}
  %x = tile.load %F[%c0] order acquire scope gpu {nc} : !tile.global<?xi32> -> i32
}

// -----

tile.kernel @scope_without_order(%F: !tile.global<?xi32>) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %c0 = arith.constant 0 : i32
  // expected-error @below {{'tile.load' op a scope needs an order (order relaxed or acquire)}}
  %x = tile.load %F[%c0] scope sys : !tile.global<?xi32> -> i32
}

// -----

tile.kernel @grid_sync_counter(%W: !tile.global<?xf32>) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %c0 = arith.constant 0 : i32
  // expected-error @below {{'tile.grid_sync' op the counter is an i32 element, got 'f32'}}
  tile.grid_sync %W[%c0] : !tile.global<?xf32>
}

// -----

tile.kernel @grid_sync_fixed(%W: !tile.global<?xi32>) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<fixed>, grid_axes = [#tile.grid_axis<4>, #tile.grid_axis<1>, #tile.grid_axis<1>]} {
  %c0 = arith.constant 0 : i32
  // expected-error @below {{'tile.grid_sync' op a grid sync needs a persistent grid (every CTA resident at once), got fixed}}
  tile.grid_sync %W[%c0] : !tile.global<?xi32>
}

// -----

tile.kernel @grid_sync_index(%W: !tile.global<2xi32>) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %c2 = arith.constant 2 : i32
  // expected-error @below {{'tile.grid_sync' op counter index 2 is out of range for dimension 0 of size 2 of '!tile.global<2xi32>'}}
  tile.grid_sync %W[%c2] : !tile.global<2xi32>
}

// -----

tile.kernel @pipeline_phase() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  // expected-error @below {{'tile.pipeline.init' op phase must be 0 or 1, got 2}}
  %p = tile.pipeline.init phase 2 : !tile.pipeline<4>
}

// -----

tile.kernel @copy_two_globals(%A: !tile.global<?x?xbf16>) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %c0 = arith.constant 0 : i32
  // expected-error @below {{'tile.copy_async' op copies between global and shared memory: one side must be !tile.smem and the other !tile.global}}
  tile.copy_async %A[%c0, %c0], %A[%c0, %c0] : !tile.global<?x?xbf16>, !tile.global<?x?xbf16>
}

// -----

tile.kernel @copy_types(%A: !tile.global<?x?xf16>) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %a = tile.smem_alloc : !tile.smem<64x64xbf16, swizzle_128b>
  %b = tile.barrier_alloc arrivals 1 : !tile.barrier<tma, 1>
  %c0 = arith.constant 0 : i32
  // expected-error @below {{'tile.copy_async' op element types differ: shared 'bf16', global 'f16'}}
  tile.copy_async %a[], %A[%c0, %c0] barrier %b[%c0] : !tile.smem<64x64xbf16, swizzle_128b>, !tile.global<?x?xf16>, !tile.barrier<tma, 1>
}

// -----

tile.kernel @copy_rank1_smem(%A: !tile.global<?x?xbf16>) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %a = tile.smem_alloc : !tile.smem<64xbf16, none>
  %b = tile.barrier_alloc arrivals 1 : !tile.barrier<tma, 1>
  %c0 = arith.constant 0 : i32
  // expected-error @below {{'tile.copy_async' op shared buffer must have a 2-D tile, got shape 64}}
  tile.copy_async %a[], %A[%c0, %c0] barrier %b[%c0] : !tile.smem<64xbf16, none>, !tile.global<?x?xbf16>, !tile.barrier<tma, 1>
}

// -----

tile.kernel @copy_extent_outside(%A: !tile.global<?x?xbf16>) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %a = tile.smem_alloc : !tile.smem<64x64xbf16, swizzle_128b>
  %b = tile.barrier_alloc arrivals 1 : !tile.barrier<tma, 1>
  %c0 = arith.constant 0 : i32
  // expected-error @below {{'tile.copy_async' op extent 80x64 must lie within the tile of 64x64}}
  tile.copy_async %a[], %A[%c0, %c0] barrier %b[%c0] {extent = array<i64: 80, 64>} : !tile.smem<64x64xbf16, swizzle_128b>, !tile.global<?x?xbf16>, !tile.barrier<tma, 1>
}

// -----

tile.kernel @copy_extent_arity(%A: !tile.global<?x?xbf16>) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %a = tile.smem_alloc : !tile.smem<64x64xbf16, swizzle_128b>
  %b = tile.barrier_alloc arrivals 1 : !tile.barrier<tma, 1>
  %c0 = arith.constant 0 : i32
  // expected-error @below {{'tile.copy_async' op extent is [rows, cols], got 1 values}}
  tile.copy_async %a[], %A[%c0, %c0] barrier %b[%c0] {extent = array<i64: 16>} : !tile.smem<64x64xbf16, swizzle_128b>, !tile.global<?x?xbf16>, !tile.barrier<tma, 1>
}

// -----

tile.kernel @copy_extent_part_rows(%A: !tile.global<?x?xbf16>) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %a = tile.smem_alloc : !tile.smem<64x64xbf16, swizzle_128b>
  %b = tile.barrier_alloc arrivals 1 : !tile.barrier<tma, 1>
  %c0 = arith.constant 0 : i32
  // expected-error @below {{'tile.copy_async' op a copy of part of each row needs a one-row tile, got a tile of 64x64}}
  tile.copy_async %a[], %A[%c0, %c0] barrier %b[%c0] {extent = array<i64: 64, 32>} : !tile.smem<64x64xbf16, swizzle_128b>, !tile.global<?x?xbf16>, !tile.barrier<tma, 1>
}

// -----

tile.kernel @copy_extent_vector(%X: !tile.global<?xf32>) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %a = tile.smem_alloc : !tile.smem<64xf32, none>
  %b = tile.barrier_alloc arrivals 1 : !tile.barrier<tma, 1>
  %c0 = arith.constant 0 : i32
  // expected-error @below {{'tile.copy_async' op extent applies to 2-D tiles; a rank-1 tensor copies the whole 1-D tile}}
  tile.copy_async %a[], %X[%c0] barrier %b[%c0] {extent = array<i64: 1, 16>} : !tile.smem<64xf32, none>, !tile.global<?xf32>, !tile.barrier<tma, 1>
}

// -----

tile.kernel @copy_smem_indices(%A: !tile.global<?x?xbf16>) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %a = tile.smem_alloc : !tile.smem<2x64x64xbf16, swizzle_128b>
  %b = tile.barrier_alloc arrivals 1 : !tile.barrier<tma, 1>
  %c0 = arith.constant 0 : i32
  // expected-error @below {{'tile.copy_async' op shared buffer of rank 3 takes 1 leading indices to select a tile, got 0}}
  tile.copy_async %a[], %A[%c0, %c0] barrier %b[%c0] : !tile.smem<2x64x64xbf16, swizzle_128b>, !tile.global<?x?xbf16>, !tile.barrier<tma, 1>
}

// -----

tile.kernel @copy_global_rank(%A: !tile.global<?xbf16>) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %a = tile.smem_alloc : !tile.smem<64x64xbf16, swizzle_128b>
  %b = tile.barrier_alloc arrivals 1 : !tile.barrier<tma, 1>
  %c0 = arith.constant 0 : i32
  // expected-error @below {{'tile.copy_async' op a rank-1 global tensor copies a 1-D tile, which is unswizzled; got '!tile.smem<64x64xbf16, swizzle_128b>'}}
  tile.copy_async %a[], %A[%c0] barrier %b[%c0] : !tile.smem<64x64xbf16, swizzle_128b>, !tile.global<?xbf16>, !tile.barrier<tma, 1>
}

// -----

tile.kernel @copy_coords(%A: !tile.global<?x?xbf16>) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %a = tile.smem_alloc : !tile.smem<64x64xbf16, swizzle_128b>
  %b = tile.barrier_alloc arrivals 1 : !tile.barrier<tma, 1>
  %c0 = arith.constant 0 : i32
  // expected-error @below {{'tile.copy_async' op global tensor of rank 2 takes 2 coordinates, got 1}}
  tile.copy_async %a[], %A[%c0] barrier %b[%c0] : !tile.smem<64x64xbf16, swizzle_128b>, !tile.global<?x?xbf16>, !tile.barrier<tma, 1>
}

// -----

tile.kernel @copy_no_barrier(%A: !tile.global<?x?xbf16>) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %a = tile.smem_alloc : !tile.smem<64x64xbf16, swizzle_128b>
  %c0 = arith.constant 0 : i32
  // expected-error @below {{'tile.copy_async' op a global->shared copy needs a barrier to complete on}}
  tile.copy_async %a[], %A[%c0, %c0] : !tile.smem<64x64xbf16, swizzle_128b>, !tile.global<?x?xbf16>
}

// -----

tile.kernel @copy_barrier_kind(%A: !tile.global<?x?xbf16>) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %a = tile.smem_alloc : !tile.smem<64x64xbf16, swizzle_128b>
  %b = tile.barrier_alloc arrivals 1 : !tile.barrier<threads, 1>
  %c0 = arith.constant 0 : i32
  // expected-error @below {{'tile.copy_async' op a global->shared copy completes on a tma barrier, got threads}}
  tile.copy_async %a[], %A[%c0, %c0] barrier %b[%c0] : !tile.smem<64x64xbf16, swizzle_128b>, !tile.global<?x?xbf16>, !tile.barrier<threads, 1>
}

// -----

tile.kernel @copy_reduce_load(%A: !tile.global<?x?xbf16>) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %a = tile.smem_alloc : !tile.smem<64x64xbf16, swizzle_128b>
  %b = tile.barrier_alloc arrivals 1 : !tile.barrier<tma, 1>
  %c0 = arith.constant 0 : i32
  // expected-error @below {{'tile.copy_async' op reduce_add applies to shared->global copies only}}
  tile.copy_async %a[], %A[%c0, %c0] barrier %b[%c0] {reduce_add} : !tile.smem<64x64xbf16, swizzle_128b>, !tile.global<?x?xbf16>, !tile.barrier<tma, 1>
}

// -----

tile.kernel @copy_store_barrier(%A: !tile.global<?x?xbf16>) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %a = tile.smem_alloc : !tile.smem<64x64xbf16, swizzle_128b>
  %b = tile.barrier_alloc arrivals 1 : !tile.barrier<tma, 1>
  %c0 = arith.constant 0 : i32
  // expected-error @below {{'tile.copy_async' op a shared->global copy takes no barrier; use tile.bulk_commit and tile.bulk_wait}}
  tile.copy_async %A[%c0, %c0], %a[] barrier %b[%c0] : !tile.global<?x?xbf16>, !tile.smem<64x64xbf16, swizzle_128b>, !tile.barrier<tma, 1>
}

// -----

tile.kernel @copy_store_multicast(%A: !tile.global<?x?xbf16>) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, cluster = array<i64: 2, 1, 1>, grid = #tile.grid_policy<persistent>} {
  %a = tile.smem_alloc : !tile.smem<64x64xbf16, swizzle_128b>
  %c0 = arith.constant 0 : i32
  // expected-error @below {{'tile.copy_async' op multicast applies to global->shared copies only}}
  tile.copy_async %A[%c0, %c0], %a[] {multicast = 3 : i64} : !tile.global<?x?xbf16>, !tile.smem<64x64xbf16, swizzle_128b>
}

// -----

tile.kernel @copy_cta_group(%A: !tile.global<?x?xbf16>) attributes {target = #tile.target<sm_100a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %a = tile.smem_alloc : !tile.smem<64x64xbf16, swizzle_128b>
  %c0 = arith.constant 0 : i32
  // expected-error @below {{'tile.copy_async' op cta_group must be 1 or 2, got 4}}
  tile.copy_async %A[%c0, %c0], %a[] {cta_group = 4 : i64} : !tile.global<?x?xbf16>, !tile.smem<64x64xbf16, swizzle_128b>
}

// -----

tile.kernel @copy_mask(%A: !tile.global<?x?xbf16>) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, cluster = array<i64: 2, 1, 1>, grid = #tile.grid_policy<persistent>} {
  %a = tile.smem_alloc : !tile.smem<64x64xbf16, swizzle_128b>
  %b = tile.barrier_alloc arrivals 1 : !tile.barrier<tma, 1>
  %c0 = arith.constant 0 : i32
  // expected-error @below {{'tile.copy_async' op multicast mask 4 names CTAs outside the cluster of 2}}
  tile.copy_async %a[], %A[%c0, %c0] barrier %b[%c0] {multicast = 4 : i64} : !tile.smem<64x64xbf16, swizzle_128b>, !tile.global<?x?xbf16>, !tile.barrier<tma, 1>
}

// -----

tile.kernel @copy_group_odd_cluster(%A: !tile.global<?x?xbf16>) attributes {target = #tile.target<sm_100a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %a = tile.smem_alloc : !tile.smem<64x64xbf16, swizzle_128b>
  %b = tile.barrier_alloc arrivals 1 : !tile.barrier<tma, 1>
  %c0 = arith.constant 0 : i32
  // expected-error @below {{'tile.copy_async' op cta_group 2 needs clusters of an even number of CTAs, got 1}}
  tile.copy_async %a[], %A[%c0, %c0] barrier %b[%c0] {cta_group = 2 : i64} : !tile.smem<64x64xbf16, swizzle_128b>, !tile.global<?x?xbf16>, !tile.barrier<tma, 1>
}

// -----

tile.kernel @gemm_types() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %a = tile.smem_alloc : !tile.smem<64x64xbf16, swizzle_128b>
  %b = tile.smem_alloc : !tile.smem<64x64xf16, swizzle_128b>
  %c0 = arith.constant 0 : i32
  %z = tile.frag.zero : !tile.frag<64x64xf32, wgmma_acc>
  // expected-error @below {{'tile.gemm_async' op A and B element types differ: 'bf16' and 'f16'}}
  %r = tile.gemm_async %z, %a[%c0], %b[%c0] : !tile.frag<64x64xf32, wgmma_acc>, !tile.smem<64x64xbf16, swizzle_128b>, !tile.smem<64x64xf16, swizzle_128b> -> !tile.frag<64x64xf32, wgmma_acc>
}

// -----

tile.kernel @gemm_input_type() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %a = tile.smem_alloc : !tile.smem<64x32xf32, swizzle_128b>
  %c0 = arith.constant 0 : i32
  %z = tile.frag.zero : !tile.frag<64x64xf32, wgmma_acc>
  // expected-error @below {{'tile.gemm_async' op MMA inputs must be f16, bf16, f8E4M3FN or f8E5M2, got 'f32'}}
  %r = tile.gemm_async %z, %a[%c0], %a[%c0] : !tile.frag<64x64xf32, wgmma_acc>, !tile.smem<64x32xf32, swizzle_128b>, !tile.smem<64x32xf32, swizzle_128b> -> !tile.frag<64x64xf32, wgmma_acc>
}

// -----

tile.kernel @gemm_rank1() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %a = tile.smem_alloc : !tile.smem<64xbf16, none>
  %b = tile.smem_alloc : !tile.smem<64x64xbf16, swizzle_128b>
  %c0 = arith.constant 0 : i32
  %z = tile.frag.zero : !tile.frag<64x64xf32, wgmma_acc>
  // expected-error @below {{'tile.gemm_async' op A must be a 2-D tile or a stack of them}}
  %r = tile.gemm_async %z, %a[], %b[%c0] : !tile.frag<64x64xf32, wgmma_acc>, !tile.smem<64xbf16, none>, !tile.smem<64x64xbf16, swizzle_128b> -> !tile.frag<64x64xf32, wgmma_acc>
}

// -----

tile.kernel @gemm_indices() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %a = tile.smem_alloc : !tile.smem<2x64x64xbf16, swizzle_128b>
  %c0 = arith.constant 0 : i32
  %z = tile.frag.zero : !tile.frag<64x64xf32, wgmma_acc>
  // expected-error @below {{'tile.gemm_async' op B of rank 3 takes 2 indices (the tile, then its first row), got 1}}
  %r = tile.gemm_async %z, %a[%c0, %c0], %a[%c0] : !tile.frag<64x64xf32, wgmma_acc>, !tile.smem<2x64x64xbf16, swizzle_128b>, !tile.smem<2x64x64xbf16, swizzle_128b> -> !tile.frag<64x64xf32, wgmma_acc>
}

// -----

tile.kernel @gemm_unswizzled() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %a = tile.smem_alloc : !tile.smem<64x64xbf16, none>
  %c0 = arith.constant 0 : i32
  %z = tile.frag.zero : !tile.frag<64x64xf32, wgmma_acc>
  // expected-error @below {{'tile.gemm_async' op A must be swizzled (32B, 64B or 128B) for the MMA's shared-memory descriptor}}
  %r = tile.gemm_async %z, %a[%c0], %a[%c0] : !tile.frag<64x64xf32, wgmma_acc>, !tile.smem<64x64xbf16, none>, !tile.smem<64x64xbf16, none> -> !tile.frag<64x64xf32, wgmma_acc>
}

// -----

tile.kernel @gemm_k() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %a = tile.smem_alloc : !tile.smem<64x64xbf16, swizzle_128b>
  %b = tile.smem_alloc : !tile.smem<64x128xbf16, swizzle_128b>
  %c0 = arith.constant 0 : i32
  %z = tile.frag.zero : !tile.frag<64x64xf32, wgmma_acc>
  // expected-error @below {{'tile.gemm_async' op A and B tiles disagree on K: 64 (A is 64x64, K-major) and 128 (B is 64x128, K-major); B's 64 rows match A's K: for B stored as [K, N] (N contiguous) set b_major = mn}}
  %r = tile.gemm_async %z, %a[%c0], %b[%c0] : !tile.frag<64x64xf32, wgmma_acc>, !tile.smem<64x64xbf16, swizzle_128b>, !tile.smem<64x128xbf16, swizzle_128b> -> !tile.frag<64x64xf32, wgmma_acc>
}

// -----

tile.kernel @wgmma_with_tcgen05() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %a = tile.smem_alloc : !tile.smem<64x64xbf16, swizzle_128b>
  %c0 = arith.constant 0 : i32
  %z = tile.frag.zero : !tile.frag<64x64xf32, wgmma_acc>
  // expected-error @below {{'tile.gemm_async' op tcgen05 accumulates in tensor memory, not in a register fragment}}
  %r = tile.gemm_async %z, %a[%c0], %a[%c0] {dispatch = #tile.gemm_dispatch<tcgen05>} : !tile.frag<64x64xf32, wgmma_acc>, !tile.smem<64x64xbf16, swizzle_128b>, !tile.smem<64x64xbf16, swizzle_128b> -> !tile.frag<64x64xf32, wgmma_acc>
}

// -----

tile.kernel @wgmma_on_blackwell() attributes {target = #tile.target<sm_100a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %a = tile.smem_alloc : !tile.smem<64x64xbf16, swizzle_128b>
  %c0 = arith.constant 0 : i32
  %z = tile.frag.zero : !tile.frag<64x64xf32, wgmma_acc>
  // expected-error @below {{'tile.gemm_async' op sm_100a has no wgmma: accumulate in tensor memory with dispatch tcgen05}}
  %r = tile.gemm_async %z, %a[%c0], %a[%c0] : !tile.frag<64x64xf32, wgmma_acc>, !tile.smem<64x64xbf16, swizzle_128b>, !tile.smem<64x64xbf16, swizzle_128b> -> !tile.frag<64x64xf32, wgmma_acc>
}

// -----

tile.kernel @wgmma_layout() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %a = tile.smem_alloc : !tile.smem<128x64xbf16, swizzle_128b>
  %c0 = arith.constant 0 : i32
  %z = tile.frag.zero : !tile.frag<128x64xf32, row_per_thread>
  // expected-error @below {{'tile.gemm_async' op wgmma accumulates into a wgmma_acc fragment, got row_per_thread}}
  %r = tile.gemm_async %z, %a[%c0], %a[%c0] : !tile.frag<128x64xf32, row_per_thread>, !tile.smem<128x64xbf16, swizzle_128b>, !tile.smem<128x64xbf16, swizzle_128b> -> !tile.frag<128x64xf32, row_per_thread>
}

// -----

tile.kernel @wgmma_acc_type() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %a = tile.smem_alloc : !tile.smem<64x64xbf16, swizzle_128b>
  %c0 = arith.constant 0 : i32
  %z = tile.frag.zero : !tile.frag<64x64xf16, wgmma_acc>
  // expected-error @below {{'tile.gemm_async' op accumulator must be f32, got 'f16'}}
  %r = tile.gemm_async %z, %a[%c0], %a[%c0] : !tile.frag<64x64xf16, wgmma_acc>, !tile.smem<64x64xbf16, swizzle_128b>, !tile.smem<64x64xbf16, swizzle_128b> -> !tile.frag<64x64xf16, wgmma_acc>
}

// -----

tile.kernel @wgmma_result() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %a = tile.smem_alloc : !tile.smem<64x64xbf16, swizzle_128b>
  %c0 = arith.constant 0 : i32
  %z = tile.frag.zero : !tile.frag<64x64xf32, wgmma_acc>
  // expected-error @below {{'tile.gemm_async' op wgmma returns the new accumulator of type '!tile.frag<64x64xf32, wgmma_acc>'}}
  tile.gemm_async %z, %a[%c0], %a[%c0] : !tile.frag<64x64xf32, wgmma_acc>, !tile.smem<64x64xbf16, swizzle_128b>, !tile.smem<64x64xbf16, swizzle_128b>
}

// -----

tile.kernel @wgmma_column() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %a = tile.smem_alloc : !tile.smem<64x64xbf16, swizzle_128b>
  %c0 = arith.constant 0 : i32
  %z = tile.frag.zero : !tile.frag<64x64xf32, wgmma_acc>
  // expected-error @below {{'tile.gemm_async' op a register accumulator takes no column}}
  %r = tile.gemm_async %z[%c0], %a[%c0], %a[%c0] : !tile.frag<64x64xf32, wgmma_acc>, !tile.smem<64x64xbf16, swizzle_128b>, !tile.smem<64x64xbf16, swizzle_128b> -> !tile.frag<64x64xf32, wgmma_acc>
}

// -----

tile.kernel @wgmma_n() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %a = tile.smem_alloc : !tile.smem<64x64xbf16, swizzle_128b>
  %c0 = arith.constant 0 : i32
  %z = tile.frag.zero : !tile.frag<64x128xf32, wgmma_acc>
  // expected-error @below {{'tile.gemm_async' op accumulator has 128 columns but the B tile has only 64 rows}}
  %r = tile.gemm_async %z, %a[%c0], %a[%c0] : !tile.frag<64x128xf32, wgmma_acc>, !tile.smem<64x64xbf16, swizzle_128b>, !tile.smem<64x64xbf16, swizzle_128b> -> !tile.frag<64x128xf32, wgmma_acc>
}

// -----

tile.kernel @wgmma_m() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %a = tile.smem_alloc : !tile.smem<64x64xbf16, swizzle_128b>
  %c0 = arith.constant 0 : i32
  %z = tile.frag.zero : !tile.frag<128x64xf32, wgmma_acc>
  // expected-error @below {{'tile.gemm_async' op accumulator has 128 rows but the A tile has only 64 rows}}
  %r = tile.gemm_async %z, %a[%c0], %a[%c0] : !tile.frag<128x64xf32, wgmma_acc>, !tile.smem<64x64xbf16, swizzle_128b>, !tile.smem<64x64xbf16, swizzle_128b> -> !tile.frag<128x64xf32, wgmma_acc>
}

// -----

tile.kernel @wgmma_cta_group() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %a = tile.smem_alloc : !tile.smem<64x64xbf16, swizzle_128b>
  %c0 = arith.constant 0 : i32
  %z = tile.frag.zero : !tile.frag<64x64xf32, wgmma_acc>
  // expected-error @below {{'tile.gemm_async' op wgmma has no cta_group; got 2}}
  %r = tile.gemm_async %z, %a[%c0], %a[%c0] {cta_group = 2 : i64} : !tile.frag<64x64xf32, wgmma_acc>, !tile.smem<64x64xbf16, swizzle_128b>, !tile.smem<64x64xbf16, swizzle_128b> -> !tile.frag<64x64xf32, wgmma_acc>
}

// -----

tile.kernel @wgmma_undef_accumulates() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %a = tile.smem_alloc : !tile.smem<64x64xbf16, swizzle_128b>
  %c0 = arith.constant 0 : i32
  %u = tile.frag.undef : !tile.frag<64x64xf32, wgmma_acc>
  // An undefined accumulator must be overwritten, not added to.
  // expected-error @below {{'tile.gemm_async' op the accumulator is a tile.frag.undef and this wgmma adds to it: overwrite it (accumulate false or a predicate) or start from tile.frag.zero}}
  %r = tile.gemm_async %u, %a[%c0], %a[%c0] : !tile.frag<64x64xf32, wgmma_acc>, !tile.smem<64x64xbf16, swizzle_128b>, !tile.smem<64x64xbf16, swizzle_128b> -> !tile.frag<64x64xf32, wgmma_acc>
}

// -----

tile.kernel @gemm_k_a_major() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %a = tile.smem_alloc : !tile.smem<128x64xbf16, swizzle_128b>
  %b = tile.smem_alloc : !tile.smem<256x128xbf16, swizzle_128b>
  %c0 = arith.constant 0 : i32
  %z = tile.frag.zero : !tile.frag<64x64xf32, wgmma_acc>
  // A stored [K, M] without a_major: the message says how to read it.
  // expected-error @below {{'tile.gemm_async' op A and B tiles disagree on K: 64 (A is 128x64, K-major) and 128 (B is 256x128, K-major); A's 128 rows match B's K: for A stored as [K, M] (M contiguous) set a_major = mn}}
  %r = tile.gemm_async %z, %a[%c0], %b[%c0] : !tile.frag<64x64xf32, wgmma_acc>, !tile.smem<128x64xbf16, swizzle_128b>, !tile.smem<256x128xbf16, swizzle_128b> -> !tile.frag<64x64xf32, wgmma_acc>
}

// -----

tile.kernel @gemm_k_fp8() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %a = tile.smem_alloc : !tile.smem<64x128xf8E4M3FN, swizzle_128b>
  %b = tile.smem_alloc : !tile.smem<128x256xf8E4M3FN, swizzle_128b>
  %c0 = arith.constant 0 : i32
  %z = tile.frag.zero : !tile.frag<64x256xf32, wgmma_acc>
  // An fp8 B stored [K, N]: wgmma cannot transpose it.
  // expected-error @below {{'tile.gemm_async' op A and B tiles disagree on K: 128 (A is 64x128, K-major) and 256 (B is 128x256, K-major); B's 128 rows match A's K, but e4m3 wgmma takes K-major operands only: store B as [N, K]}}
  %r = tile.gemm_async %z, %a[%c0], %b[%c0] : !tile.frag<64x256xf32, wgmma_acc>, !tile.smem<64x128xf8E4M3FN, swizzle_128b>, !tile.smem<128x256xf8E4M3FN, swizzle_128b> -> !tile.frag<64x256xf32, wgmma_acc>
}

// -----

tile.kernel @wgmma_fp8_mn_major() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %a = tile.smem_alloc : !tile.smem<64x128xf8E4M3FN, swizzle_128b>
  %b = tile.smem_alloc : !tile.smem<128x256xf8E4M3FN, swizzle_128b>
  %c0 = arith.constant 0 : i32
  %z = tile.frag.zero : !tile.frag<64x256xf32, wgmma_acc>
  // wgmma transposes only 16-bit operands.
  // expected-error @below {{'tile.gemm_async' op wgmma with e4m3 inputs needs k-major a and b; only f16 and bf16 operands may be mn-major}}
  %r = tile.gemm_async %z, %a[%c0], %b[%c0] {b_major = #tile.mma_major<mn>} : !tile.frag<64x256xf32, wgmma_acc>, !tile.smem<64x128xf8E4M3FN, swizzle_128b>, !tile.smem<128x256xf8E4M3FN, swizzle_128b> -> !tile.frag<64x256xf32, wgmma_acc>
}

// -----

tile.kernel @wgmma_mn_k_step() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %a = tile.smem_alloc : !tile.smem<24x64xbf16, swizzle_128b>
  %c0 = arith.constant 0 : i32
  %z = tile.frag.zero : !tile.frag<64x64xf32, wgmma_acc>
  // An MN-major tile has K rows, which need not be a multiple of 16.
  // expected-error @below {{'tile.gemm_async' op K of 24 (the rows of the MN-major A tile) is not a multiple of the MMA's K step of 16}}
  %r = tile.gemm_async %z, %a[%c0], %a[%c0] {a_major = #tile.mma_major<mn>, b_major = #tile.mma_major<mn>} : !tile.frag<64x64xf32, wgmma_acc>, !tile.smem<24x64xbf16, swizzle_128b>, !tile.smem<24x64xbf16, swizzle_128b> -> !tile.frag<64x64xf32, wgmma_acc>
}

// -----

tile.kernel @wgmma_mn_n() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %a = tile.smem_alloc : !tile.smem<64x64xbf16, swizzle_128b>
  %b = tile.smem_alloc : !tile.smem<64x128xbf16, swizzle_128b>
  %c0 = arith.constant 0 : i32
  %z = tile.frag.zero : !tile.frag<64x256xf32, wgmma_acc>
  // N of an MN-major B is its columns.
  // expected-error @below {{'tile.gemm_async' op accumulator has 256 columns but the MN-major B tile has only 128 columns}}
  %r = tile.gemm_async %z, %a[%c0], %b[%c0] {b_major = #tile.mma_major<mn>} : !tile.frag<64x256xf32, wgmma_acc>, !tile.smem<64x64xbf16, swizzle_128b>, !tile.smem<64x128xbf16, swizzle_128b> -> !tile.frag<64x256xf32, wgmma_acc>
}

// -----

tile.kernel @wgmma_mn_columns() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %a = tile.smem_alloc : !tile.smem<64x128xbf16, swizzle_128b>
  %c0 = arith.constant 0 : i32
  %c128 = arith.constant 128 : i32
  %z = tile.frag.zero : !tile.frag<64x64xf32, wgmma_acc>
  // The last index of an MN-major A is its first column.
  // expected-error @below {{'tile.gemm_async' op A columns 128 to 191 are outside the MN-major tile of 128 columns of '!tile.smem<64x128xbf16, swizzle_128b>'}}
  %r = tile.gemm_async %z, %a[%c128], %a[%c0] {a_major = #tile.mma_major<mn>, b_major = #tile.mma_major<mn>} : !tile.frag<64x64xf32, wgmma_acc>, !tile.smem<64x128xbf16, swizzle_128b>, !tile.smem<64x128xbf16, swizzle_128b> -> !tile.frag<64x64xf32, wgmma_acc>
}

// -----

tile.kernel @wgmma_mn_atom() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %a = tile.smem_alloc : !tile.smem<64x128xbf16, swizzle_128b>
  %b = tile.smem_alloc : !tile.smem<64x64xbf16, swizzle_128b>
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %z = tile.frag.zero : !tile.frag<64x64xf32, wgmma_acc>
  // A descriptor of an MN-major tile starts at a swizzle atom.
  // expected-error @below {{'tile.gemm_async' op A starts at column 32 of its MN-major tile, which does not start a swizzle atom of 64 columns; its descriptor cannot address it}}
  %r = tile.gemm_async %z, %a[%c32], %b[%c0] {a_major = #tile.mma_major<mn>} : !tile.frag<64x64xf32, wgmma_acc>, !tile.smem<64x128xbf16, swizzle_128b>, !tile.smem<64x64xbf16, swizzle_128b> -> !tile.frag<64x64xf32, wgmma_acc>
}

// -----

tile.kernel @wgmma_mn_m() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %a = tile.smem_alloc : !tile.smem<64x64xbf16, swizzle_128b>
  %c0 = arith.constant 0 : i32
  %z = tile.frag.zero : !tile.frag<128x64xf32, wgmma_acc>
  // M of an MN-major A is its columns.
  // expected-error @below {{'tile.gemm_async' op accumulator has 128 rows but the MN-major A tile has only 64 columns}}
  %r = tile.gemm_async %z, %a[%c0], %a[%c0] {a_major = #tile.mma_major<mn>} : !tile.frag<128x64xf32, wgmma_acc>, !tile.smem<64x64xbf16, swizzle_128b>, !tile.smem<64x64xbf16, swizzle_128b> -> !tile.frag<128x64xf32, wgmma_acc>
}

// -----

tile.kernel @tcgen05_with_wgmma() attributes {target = #tile.target<sm_100a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %t = tile.tmem_alloc : !tile.tmem<128x256xf32>
  %a = tile.smem_alloc : !tile.smem<128x64xf16, swizzle_128b>
  %c0 = arith.constant 0 : i32
  // expected-error @below {{'tile.gemm_async' op wgmma accumulates in registers, not tensor memory}}
  tile.gemm_async %t[%c0], %a[%c0], %a[%c0] {dispatch = #tile.gemm_dispatch<wgmma>} : !tile.tmem<128x256xf32>, !tile.smem<128x64xf16, swizzle_128b>, !tile.smem<128x64xf16, swizzle_128b>
}

// -----

tile.kernel @tcgen05_on_hopper() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %a = tile.smem_alloc : !tile.smem<128x64xf16, swizzle_128b>
  %c0 = arith.constant 0 : i32
  %t = "test.tmem"() : () -> !tile.tmem<128x256xf32>
  // expected-error @below {{'tile.gemm_async' op accumulating in tensor memory (tcgen05) needs sm_100a, the kernel targets sm_90a}}
  tile.gemm_async %t[%c0], %a[%c0], %a[%c0] : !tile.tmem<128x256xf32>, !tile.smem<128x64xf16, swizzle_128b>, !tile.smem<128x64xf16, swizzle_128b>
}

// -----

tile.kernel @tcgen05_result() attributes {target = #tile.target<sm_100a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %t = tile.tmem_alloc : !tile.tmem<128x256xf32>
  %a = tile.smem_alloc : !tile.smem<128x64xf16, swizzle_128b>
  %c0 = arith.constant 0 : i32
  // expected-error @below {{'tile.gemm_async' op a tensor-memory accumulator gives no result}}
  %r = tile.gemm_async %t[%c0], %a[%c0], %a[%c0] : !tile.tmem<128x256xf32>, !tile.smem<128x64xf16, swizzle_128b>, !tile.smem<128x64xf16, swizzle_128b> -> !tile.frag<128x64xf32, row_per_thread>
}

// -----

tile.kernel @tcgen05_column() attributes {target = #tile.target<sm_100a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %t = tile.tmem_alloc : !tile.tmem<128x256xf32>
  %a = tile.smem_alloc : !tile.smem<128x64xf16, swizzle_128b>
  %c0 = arith.constant 0 : i32
  // expected-error @below {{'tile.gemm_async' op a tensor-memory accumulator needs a column}}
  tile.gemm_async %t, %a[%c0], %a[%c0] : !tile.tmem<128x256xf32>, !tile.smem<128x64xf16, swizzle_128b>, !tile.smem<128x64xf16, swizzle_128b>
}

// -----

tile.kernel @tcgen05_acc_type() attributes {target = #tile.target<sm_100a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %t = tile.tmem_alloc : !tile.tmem<128x256xi32>
  %a = tile.smem_alloc : !tile.smem<128x64xf16, swizzle_128b>
  %c0 = arith.constant 0 : i32
  // expected-error @below {{'tile.gemm_async' op accumulator must be f32, got 'i32'}}
  tile.gemm_async %t[%c0], %a[%c0], %a[%c0] : !tile.tmem<128x256xi32>, !tile.smem<128x64xf16, swizzle_128b>, !tile.smem<128x64xf16, swizzle_128b>
}

// -----

tile.kernel @tcgen05_cta_group() attributes {target = #tile.target<sm_100a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %t = tile.tmem_alloc : !tile.tmem<128x256xf32>
  %a = tile.smem_alloc : !tile.smem<128x64xf16, swizzle_128b>
  %c0 = arith.constant 0 : i32
  // expected-error @below {{'tile.gemm_async' op cta_group must be 1 or 2, got 3}}
  tile.gemm_async %t[%c0], %a[%c0], %a[%c0] {cta_group = 3 : i64} : !tile.tmem<128x256xf32>, !tile.smem<128x64xf16, swizzle_128b>, !tile.smem<128x64xf16, swizzle_128b>
}

// -----

tile.kernel @tcgen05_m() attributes {target = #tile.target<sm_100a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %t = tile.tmem_alloc : !tile.tmem<128x256xf32>
  %a = tile.smem_alloc : !tile.smem<32x64xf16, swizzle_128b>
  %b = tile.smem_alloc : !tile.smem<128x64xf16, swizzle_128b>
  %c0 = arith.constant 0 : i32
  // expected-error @below {{'tile.gemm_async' op tcgen05 M of 32 is not supported with cta_group 1; use 64 or 128}}
  tile.gemm_async %t[%c0], %a[%c0], %b[%c0] : !tile.tmem<128x256xf32>, !tile.smem<32x64xf16, swizzle_128b>, !tile.smem<128x64xf16, swizzle_128b>
}

// -----

tile.kernel @tcgen05_n() attributes {target = #tile.target<sm_100a>, warpgroups = 1 : i64, cluster = array<i64: 2, 1, 1>, grid = #tile.grid_policy<persistent>} {
  %t = tile.tmem_alloc cta_group 2 : !tile.tmem<128x512xf32>
  %a = tile.smem_alloc : !tile.smem<64x64xf16, swizzle_128b>
  %b = tile.smem_alloc : !tile.smem<136x64xf16, swizzle_128b>
  %c0 = arith.constant 0 : i32
  // expected-error @below {{'tile.gemm_async' op tcgen05 N of 272 must be a multiple of 16 in 16..256}}
  tile.gemm_async %t[%c0], %a[%c0], %b[%c0] {cta_group = 2 : i64} : !tile.tmem<128x512xf32>, !tile.smem<64x64xf16, swizzle_128b>, !tile.smem<136x64xf16, swizzle_128b>
}

// -----

tile.kernel @tcgen05_columns() attributes {target = #tile.target<sm_100a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %t = tile.tmem_alloc : !tile.tmem<128x64xf32>
  %a = tile.smem_alloc : !tile.smem<128x64xf16, swizzle_128b>
  %c0 = arith.constant 0 : i32
  // expected-error @below {{'tile.gemm_async' op N of 128 does not fit the 64 tensor-memory columns}}
  tile.gemm_async %t[%c0], %a[%c0], %a[%c0] : !tile.tmem<128x64xf32>, !tile.smem<128x64xf16, swizzle_128b>, !tile.smem<128x64xf16, swizzle_128b>
}

// -----

tile.kernel @commit_index() attributes {target = #tile.target<sm_100a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %b = tile.barrier_alloc arrivals 1 : !tile.barrier<mma, 1>
  // expected-error @below {{'tile.gemm_commit' op a barrier needs an index}}
  "tile.gemm_commit"(%b) <{cta_group = 1 : i64, operandSegmentSizes = array<i32: 1, 0>}> : (!tile.barrier<mma, 1>) -> ()
}

// -----

tile.kernel @commit_group() attributes {target = #tile.target<sm_100a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %b = tile.barrier_alloc arrivals 1 : !tile.barrier<mma, 1>
  %c0 = arith.constant 0 : i32
  // expected-error @below {{'tile.gemm_commit' op cta_group must be 1 or 2, got 5}}
  tile.gemm_commit barrier %b[%c0] {cta_group = 5 : i64} : !tile.barrier<mma, 1>
}

// -----

tile.kernel @commit_no_barrier_on_blackwell() attributes {target = #tile.target<sm_100a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  // expected-error @below {{'tile.gemm_commit' op on sm_100a a commit signals a barrier}}
  tile.gemm_commit
}

// -----

tile.kernel @commit_barrier_on_hopper() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %b = tile.barrier_alloc arrivals 1 : !tile.barrier<mma, 1>
  %c0 = arith.constant 0 : i32
  // expected-error @below {{'tile.gemm_commit' op on sm_90a a commit closes a wgmma group and signals no barrier; arrive on the barrier after tile.gemm_wait}}
  tile.gemm_commit barrier %b[%c0] : !tile.barrier<mma, 1>
}

// -----

tile.kernel @commit_mask() attributes {target = #tile.target<sm_100a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %b = tile.barrier_alloc arrivals 1 : !tile.barrier<mma, 1>
  %c0 = arith.constant 0 : i32
  // expected-error @below {{'tile.gemm_commit' op cta_mask needs cta_group 2}}
  tile.gemm_commit barrier %b[%c0] cta_mask 3 : !tile.barrier<mma, 1>
}

// -----

tile.kernel @tmem_load_layout() attributes {target = #tile.target<sm_100a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %t = tile.tmem_alloc : !tile.tmem<128x256xf32>
  %c0 = arith.constant 0 : i32
  // expected-error @below {{'tile.tmem_load' op tensor memory loads into a row_per_thread fragment, got wgmma_acc}}
  %r = tile.tmem_load %t[%c0] : !tile.tmem<128x256xf32> -> !tile.frag<128x64xf32, wgmma_acc>
}

// -----

tile.kernel @tmem_load_type() attributes {target = #tile.target<sm_100a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %t = tile.tmem_alloc : !tile.tmem<128x256xf32>
  %c0 = arith.constant 0 : i32
  // expected-error @below {{'tile.tmem_load' op fragment element type 'i32' differs from tensor memory's 'f32'}}
  %r = tile.tmem_load %t[%c0] : !tile.tmem<128x256xf32> -> !tile.frag<128x64xi32, row_per_thread>
}

// -----

tile.kernel @tmem_load_columns() attributes {target = #tile.target<sm_100a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %t = tile.tmem_alloc : !tile.tmem<128x256xf32>
  %c0 = arith.constant 0 : i32
  // expected-error @below {{'tile.tmem_load' op loads a power-of-two number of columns up to 128 that fits tensor memory, got 96}}
  %r = tile.tmem_load %t[%c0] : !tile.tmem<128x256xf32> -> !tile.frag<128x96xf32, row_per_thread>
}

// -----

tile.kernel @frag_cast() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %z = tile.frag.zero : !tile.frag<64x64xf32, wgmma_acc>
  // expected-error @below {{'tile.frag.cast' op changes only the element type; got '!tile.frag<64x64xf32, wgmma_acc>' -> '!tile.frag<64x128xbf16, wgmma_acc>'}}
  %h = tile.frag.cast %z : !tile.frag<64x64xf32, wgmma_acc> -> !tile.frag<64x128xbf16, wgmma_acc>
}

// -----

tile.kernel @frag_rhs() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %z = tile.frag.zero : !tile.frag<64x64xf32, wgmma_acc>
  %x = arith.constant 1 : i32
  // expected-error @below {{'tile.frag.binary' op operand #1 must be register fragment or f32 scalar, but got 'i32'}}
  %r = tile.frag.binary mul %z, %x : !tile.frag<64x64xf32, wgmma_acc>, i32 -> !tile.frag<64x64xf32, wgmma_acc>
}

// -----

tile.kernel @frag_math_type() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %z = tile.frag.zero : !tile.frag<64x64xbf16, wgmma_acc>
  %x = arith.constant 1.0 : f32
  // expected-error @below {{'tile.frag.binary' op math on fragments is done in f32, got 'bf16' (do the math before the cast)}}
  %r = tile.frag.binary add %z, %x : !tile.frag<64x64xbf16, wgmma_acc>, f32 -> !tile.frag<64x64xbf16, wgmma_acc>
}

// -----

// Two fragments of different shapes do not combine.
tile.kernel @frag_math_shapes() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %a = tile.frag.zero : !tile.frag<64x64xf32, wgmma_acc>
  %b = tile.frag.zero : !tile.frag<128x64xf32, wgmma_acc, rows>
  // expected-error @below {{'tile.frag.binary' op fragments of different shapes or layouts: '!tile.frag<64x64xf32, wgmma_acc>' and '!tile.frag<128x64xf32, wgmma_acc, rows>'}}
  %r = tile.frag.binary add %a, %b : !tile.frag<64x64xf32, wgmma_acc>, !tile.frag<128x64xf32, wgmma_acc, rows> -> !tile.frag<64x64xf32, wgmma_acc>
}

// -----

// Nor do two layouts.
tile.kernel @frag_math_layouts() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %a = tile.frag.zero : !tile.frag<128x64xf32, wgmma_acc>
  %b = tile.frag.zero : !tile.frag<128x64xf32, row_per_thread>
  // expected-error @below {{'tile.frag.fma' op fragments of different shapes or layouts: '!tile.frag<128x64xf32, wgmma_acc>' and '!tile.frag<128x64xf32, row_per_thread>'}}
  %r = tile.frag.fma %a, %b, %a : !tile.frag<128x64xf32, wgmma_acc>, !tile.frag<128x64xf32, row_per_thread>, !tile.frag<128x64xf32, wgmma_acc> -> !tile.frag<128x64xf32, wgmma_acc>
}

// -----

// A full and a broadcast operand give a full fragment.
tile.kernel @frag_math_result() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %a = tile.frag.zero : !tile.frag<64x64xf32, wgmma_acc>
  %b = tile.frag.zero : !tile.frag<64x64xf32, wgmma_acc, rows>
  // expected-error @below {{'tile.frag.binary' op result must be '!tile.frag<64x64xf32, wgmma_acc>' (the operands' shape, layout and broadcast), got '!tile.frag<64x64xf32, wgmma_acc, rows>'}}
  %r = tile.frag.binary mul %b, %a : !tile.frag<64x64xf32, wgmma_acc, rows>, !tile.frag<64x64xf32, wgmma_acc> -> !tile.frag<64x64xf32, wgmma_acc, rows>
}

// -----

tile.kernel @frag_math_scalars() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %x = arith.constant 1.0 : f32
  // expected-error @below {{'tile.frag.binary' op needs a fragment operand; got only scalars}}
  %r = tile.frag.binary add %x, %x : f32, f32 -> !tile.frag<64x64xf32, wgmma_acc>
}

// -----

tile.kernel @frag_unary_type() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %z = tile.frag.zero : !tile.frag<64x64xf16, wgmma_acc>
  // expected-error @below {{'tile.frag.unary' op math on fragments is done in f32, got 'f16' (do the math before the cast)}}
  %r = tile.frag.unary exp %z : !tile.frag<64x64xf16, wgmma_acc>
}

// -----

// A comparison gives an i1 fragment.
tile.kernel @frag_cmp_result() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %z = tile.frag.zero : !tile.frag<64x64xf32, wgmma_acc>
  %x = arith.constant 1.0 : f32
  // expected-error @below {{'tile.frag.cmp' op result must be '!tile.frag<64x64xi1, wgmma_acc>' (the operands' shape, layout and broadcast), got '!tile.frag<64x64xf32, wgmma_acc>'}}
  %r = tile.frag.cmp gt %z, %x : !tile.frag<64x64xf32, wgmma_acc>, f32 -> !tile.frag<64x64xf32, wgmma_acc>
}

// -----

tile.kernel @frag_select_condition() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %z = tile.frag.zero : !tile.frag<64x64xf32, wgmma_acc>
  %x = arith.constant 1.0 : f32
  // expected-error @below {{'tile.frag.select' op condition must be an i1 fragment, got '!tile.frag<64x64xf32, wgmma_acc>'}}
  %r = tile.frag.select %z, %z, %x : !tile.frag<64x64xf32, wgmma_acc>, !tile.frag<64x64xf32, wgmma_acc>, f32 -> !tile.frag<64x64xf32, wgmma_acc>
}

// -----

tile.kernel @frag_reduce_broadcast() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %z = tile.frag.zero : !tile.frag<64x64xf32, wgmma_acc, cols>
  // expected-error @below {{'tile.frag.reduce' op reduces a full fragment, got '!tile.frag<64x64xf32, wgmma_acc, cols>'}}
  %r = tile.frag.reduce sum %z axis 1 : !tile.frag<64x64xf32, wgmma_acc, cols> -> !tile.frag<64x64xf32, wgmma_acc, rows>
}

// -----

tile.kernel @frag_reduce_type() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %z = tile.frag.zero : !tile.frag<64x64xbf16, wgmma_acc>
  // expected-error @below {{'tile.frag.reduce' op math on fragments is done in f32, got 'bf16' (do the math before the cast)}}
  %r = tile.frag.reduce max %z axis 1 : !tile.frag<64x64xbf16, wgmma_acc> -> !tile.frag<64x64xbf16, wgmma_acc, rows>
}

// -----

tile.kernel @frag_reduce_axis() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %z = tile.frag.zero : !tile.frag<64x64xf32, wgmma_acc>
  // expected-error @below {{'tile.frag.reduce' op axis is 0 (along columns) or 1 (along rows), got 2}}
  %r = tile.frag.reduce sum %z axis 2 : !tile.frag<64x64xf32, wgmma_acc> -> !tile.frag<64x64xf32, wgmma_acc, rows>
}

// -----

// A column of the accumulator spans the four warps: no shuffle reaches them.
tile.kernel @frag_reduce_across_warps() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %z = tile.frag.zero : !tile.frag<64x64xf32, wgmma_acc>
  // expected-error @below {{'tile.frag.reduce' op reducing a wgmma_acc fragment along axis 0 combines elements that different warps hold, which needs shared memory; not supported}}
  %r = tile.frag.reduce sum %z axis 0 : !tile.frag<64x64xf32, wgmma_acc> -> !tile.frag<64x64xf32, wgmma_acc, cols>
}

// -----

tile.kernel @frag_reduce_result() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %z = tile.frag.zero : !tile.frag<64x64xf32, wgmma_acc>
  // expected-error @below {{'tile.frag.reduce' op result must be '!tile.frag<64x64xf32, wgmma_acc, rows>', got '!tile.frag<64x64xf32, wgmma_acc>'}}
  %r = tile.frag.reduce sum %z axis 1 : !tile.frag<64x64xf32, wgmma_acc> -> !tile.frag<64x64xf32, wgmma_acc>
}

// -----

// A grouped reduction splits the columns into 2, 4 or 8 groups.
tile.kernel @frag_reduce_groups_count() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %z = tile.frag.zero : !tile.frag<64x48xf32, wgmma_acc>
  // expected-error @below {{'tile.frag.reduce' op groups is 1, 2, 4 or 8, got 3}}
  %r = tile.frag.reduce sum %z axis 1 groups 3 : !tile.frag<64x48xf32, wgmma_acc> -> !tile.frag<2x64xf32, quad_spread>
}

// -----

// The quad_spread map follows the accumulator's quads: no other layout.
tile.kernel @frag_reduce_groups_layout() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %z = tile.frag.zero : !tile.frag<128x64xf32, row_per_thread>
  // expected-error @below {{'tile.frag.reduce' op a grouped reduction runs along the rows (axis 1) of a wgmma_acc fragment, got '!tile.frag<128x64xf32, row_per_thread>' along axis 1}}
  %r = tile.frag.reduce sum %z axis 1 groups 2 : !tile.frag<128x64xf32, row_per_thread> -> !tile.frag<2x128xf32, quad_spread>
}

// -----

tile.kernel @frag_reduce_groups_axis() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %z = tile.frag.zero : !tile.frag<64x64xf32, wgmma_acc>
  // expected-error @below {{'tile.frag.reduce' op a grouped reduction runs along the rows (axis 1) of a wgmma_acc fragment, got '!tile.frag<64x64xf32, wgmma_acc>' along axis 0}}
  %r = tile.frag.reduce sum %z axis 0 groups 2 : !tile.frag<64x64xf32, wgmma_acc> -> !tile.frag<2x64xf32, quad_spread>
}

// -----

// Each group is whole 8-column groups, so its registers are the thread's.
tile.kernel @frag_reduce_groups_split() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %z = tile.frag.zero : !tile.frag<64x24xf32, wgmma_acc>
  // expected-error @below {{'tile.frag.reduce' op the 24 columns do not split into 2 groups of whole 8-column register groups}}
  %r = tile.frag.reduce sum %z axis 1 groups 2 : !tile.frag<64x24xf32, wgmma_acc> -> !tile.frag<2x64xf32, quad_spread>
}

// -----

tile.kernel @frag_reduce_groups_result() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %z = tile.frag.zero : !tile.frag<128x32xf32, wgmma_acc>
  // expected-error @below {{'tile.frag.reduce' op result must be '!tile.frag<4x128xf32, quad_spread>', got '!tile.frag<4x64xf32, quad_spread>'}}
  %r = tile.frag.reduce sum %z axis 1 groups 4 : !tile.frag<128x32xf32, wgmma_acc> -> !tile.frag<4x64xf32, quad_spread>
}

// -----

// fp8 is written, not read: no cast from e4m3.
tile.kernel @frag_cast_pair() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %z = tile.frag.zero : !tile.frag<64x64xf8E4M3FN, wgmma_acc>
  // expected-error @below {{'tile.frag.cast' op converts between f32, f16 and bf16, or from f32 to e4m3 or e5m2; got 'f8E4M3FN' to 'f32'}}
  %h = tile.frag.cast %z : !tile.frag<64x64xf8E4M3FN, wgmma_acc> -> !tile.frag<64x64xf32, wgmma_acc>
}

// -----

tile.kernel @frag_cast_broadcast() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %z = tile.frag.zero : !tile.frag<64x64xf32, wgmma_acc, rows>
  // expected-error @below {{'tile.frag.cast' op changes only the element type; got '!tile.frag<64x64xf32, wgmma_acc, rows>' -> '!tile.frag<64x64xbf16, wgmma_acc>'}}
  %h = tile.frag.cast %z : !tile.frag<64x64xf32, wgmma_acc, rows> -> !tile.frag<64x64xbf16, wgmma_acc>
}

// -----

tile.kernel @gemm_broadcast_acc() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %a = tile.smem_alloc : !tile.smem<64x64xbf16, swizzle_128b>
  %c0 = arith.constant 0 : i32
  %z = tile.frag.zero : !tile.frag<64x64xf32, wgmma_acc, rows>
  // expected-error @below {{'tile.gemm_async' op wgmma accumulates into a full fragment, got '!tile.frag<64x64xf32, wgmma_acc, rows>'}}
  %r = tile.gemm_async %z, %a[%c0], %a[%c0] : !tile.frag<64x64xf32, wgmma_acc, rows>, !tile.smem<64x64xbf16, swizzle_128b>, !tile.smem<64x64xbf16, swizzle_128b> -> !tile.frag<64x64xf32, wgmma_acc, rows>
}

// -----

tile.kernel @tmem_load_broadcast() attributes {target = #tile.target<sm_100a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %t = tile.tmem_alloc : !tile.tmem<128x128xf32>
  %c0 = arith.constant 0 : i32
  // expected-error @below {{'tile.tmem_load' op tensor memory loads into a full fragment, got '!tile.frag<128x64xf32, row_per_thread, rows>'}}
  %r = tile.tmem_load %t[%c0] : !tile.tmem<128x128xf32> -> !tile.frag<128x64xf32, row_per_thread, rows>
}

// -----

tile.kernel @frag_store_type() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %d = tile.smem_alloc : !tile.smem<64x64xbf16, swizzle_128b>
  %z = tile.frag.zero : !tile.frag<64x64xf32, wgmma_acc>
  %c0 = arith.constant 0 : i32
  // expected-error @below {{'tile.frag.store' op fragment element type 'f32' differs from the buffer's 'bf16'}}
  tile.frag.store %z, %d[%c0] : !tile.frag<64x64xf32, wgmma_acc>, !tile.smem<64x64xbf16, swizzle_128b>
}

// -----

tile.kernel @frag_store_rank() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %d = tile.smem_alloc : !tile.smem<64xbf16, none>
  %z = tile.frag.zero : !tile.frag<64x64xbf16, wgmma_acc>
  // expected-error @below {{'tile.frag.store' op destination must be a 2-D tile or a stack of them}}
  tile.frag.store %z, %d[] : !tile.frag<64x64xbf16, wgmma_acc>, !tile.smem<64xbf16, none>
}

// -----

tile.kernel @frag_store_indices() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %d = tile.smem_alloc : !tile.smem<2x64x64xbf16, swizzle_128b>
  %z = tile.frag.zero : !tile.frag<64x64xbf16, wgmma_acc>
  %c0 = arith.constant 0 : i32
  // expected-error @below {{'tile.frag.store' op destination of rank 3 takes 2 indices (the tile, then its first row), got 1}}
  tile.frag.store %z, %d[%c0] : !tile.frag<64x64xbf16, wgmma_acc>, !tile.smem<2x64x64xbf16, swizzle_128b>
}

// -----

tile.kernel @frag_store_columns() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %d = tile.smem_alloc : !tile.smem<64x128xbf16, swizzle_128b>
  %z = tile.frag.zero : !tile.frag<64x64xbf16, wgmma_acc>
  %c0 = arith.constant 0 : i32
  // expected-error @below {{'tile.frag.store' op fragment has 64 columns, the tile has 128}}
  tile.frag.store %z, %d[%c0] : !tile.frag<64x64xbf16, wgmma_acc>, !tile.smem<64x128xbf16, swizzle_128b>
}

// -----

// Threads address a shared tile in 16-byte row chunks.
tile.kernel @frag_store_narrow_rows() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %d = tile.smem_alloc : !tile.smem<64x8xf8E4M3FN, none>
  %z = tile.frag.zero : !tile.frag<64x8xf8E4M3FN, wgmma_acc>
  %c0 = arith.constant 0 : i32
  // expected-error @below {{'tile.frag.store' op destination: tile rows of 8 bytes (8 elements of 1 bytes) are not a multiple of 16 bytes}}
  tile.frag.store %z, %d[%c0] : !tile.frag<64x8xf8E4M3FN, wgmma_acc>, !tile.smem<64x8xf8E4M3FN, none>
}

// -----

// Each thread holds scattered single elements: no 16-byte row chunks.
tile.kernel @frag_store_quad_spread() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %d = tile.smem_alloc : !tile.smem<2x64xf32, none>
  %z = tile.frag.zero : !tile.frag<2x64xf32, quad_spread>
  %c0 = arith.constant 0 : i32
  // expected-error @below {{'tile.frag.store' op a quad_spread fragment is stored to global memory (tile.frag.store_global), not to a shared tile}}
  tile.frag.store %z, %d[%c0] : !tile.frag<2x64xf32, quad_spread>, !tile.smem<2x64xf32, none>
}

// -----

tile.kernel @sched_block() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %c = arith.constant 64 : i32
  // expected-error @below {{'tile.sched.num_tiles' op block must be two positive sizes [m, n]}}
  %n = tile.sched.num_tiles %c, %c block [128]
}

// -----

tile.kernel @sched_group() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %c = arith.constant 64 : i32
  // expected-error @below {{'tile.sched.coords' op group must be positive, got 0}}
  %m, %n = tile.sched.coords %c, %c, %c block [128, 128] group 0
}

// -----

tile.kernel @sched_rank() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %c = arith.constant 64 : i32
  // expected-error @below {{'tile.sched.num_tiles' op takes two extents (m, n) or three (batch, m, n), got 1}}
  %n = tile.sched.num_tiles %c block [128]
}

// -----

tile.kernel @sched_rank_coords() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %c = arith.constant 64 : i32
  // expected-error @below {{'tile.sched.coords' op takes two extents (m, n) or three (batch, m, n), got 4}}
  %a, %b, %m, %n = tile.sched.coords %c, %c, %c, %c, %c block [1, 1, 128, 128]
}

// -----

tile.kernel @sched_block_3d() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %c = arith.constant 64 : i32
  // expected-error @below {{'tile.sched.coords' op block must be three positive sizes [batch, m, n]}}
  %b, %m, %n = tile.sched.coords %c, %c, %c, %c block [0, 128, 128] group 8
}

// -----

tile.kernel @sched_block_rank() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %c = arith.constant 64 : i32
  // expected-error @below {{'tile.sched.num_tiles' op block must be three positive sizes [batch, m, n]}}
  %n = tile.sched.num_tiles %c, %c, %c block [128, 128]
}

// -----

tile.kernel @sched_results() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %c = arith.constant 64 : i32
  // expected-error @below {{'tile.sched.coords' op gives one block index per extent: 3 extents, 2 results}}
  %m, %n = "tile.sched.coords"(%c, %c, %c, %c) <{block = array<i64: 1, 128, 128>}> : (i32, i32, i32, i32) -> (i32, i32)
}

// -----

// Types.

// expected-error @below {{global tensor rank must be 1 to 5, got 6}}
"test.global"() : () -> !tile.global<1x1x1x1x1x1xbf16>

// -----

// expected-error @below {{a tensor list holds 1 to 128 tensors, got a capacity of 129}}
"test.global"() : () -> !tile.global<?x?x?xbf16, list = 129>

// -----

// expected-error @below {{a tensor list's tensors have rank 2 to 4 (the list's rank is one more), got a rank-2 list}}
"test.global"() : () -> !tile.global<?x?xbf16, list = 4>

// -----

// expected-error @below {{a tensor list of capacity 2 cannot hold 3 tensors}}
"test.global"() : () -> !tile.global<3x?x?xbf16, list = 2>

// -----

// expected-error @below {{global tensor dimensions must be positive, got 0x4}}
"test.global"() : () -> !tile.global<0x4xbf16>

// -----

// expected-error @below {{unsupported element type 'index' (expected f16, bf16, f32, f64, tf32, i8, ui8, i16, ui16, i32, ui32, i64, ui64, f8E4M3FN, f8E5M2, f8E8M0FNU)}}
"test.global"() : () -> !tile.global<4xindex>

// -----

// expected-error @below {{shared-memory dimensions must be static and positive, got ?x64}}
"test.smem"() : () -> !tile.smem<?x64xbf16, none>

// -----

// expected-error @below {{a swizzled shared-memory buffer needs at least two dimensions, got 64}}
"test.smem"() : () -> !tile.smem<64xbf16, swizzle_128b>

// -----

// expected-error @below {{innermost dimension of 48 bf16 elements (96 bytes) is not a multiple of the 128-byte swizzle span}}
"test.smem"() : () -> !tile.smem<64x48xbf16, swizzle_128b>

// -----

// expected-error @below {{a swizzled tile needs a multiple of 8 rows (one swizzle atom), got 12}}
"test.smem"() : () -> !tile.smem<12x64xbf16, swizzle_128b>

// -----

// expected-error @below {{tensor memory is two-dimensional (lanes x columns), got shape 128}}
"test.tmem"() : () -> !tile.tmem<128xf32>

// -----

// expected-error @below {{tensor memory has 128 lanes, got 64}}
"test.tmem"() : () -> !tile.tmem<64x128xf32>

// -----

// expected-error @below {{tensor memory has 1 to 512 columns, got 1024}}
"test.tmem"() : () -> !tile.tmem<128x1024xf32>

// -----

// expected-error @below {{tensor-memory cells are 32-bit, got 'f16'}}
"test.tmem"() : () -> !tile.tmem<128x128xf16>

// -----

// expected-error @below {{barrier array depth must be 1 to 64, got 0}}
"test.barrier"() : () -> !tile.barrier<tma, 0>

// -----

// expected-error @below {{unknown barrier kind 'fence' (expected tma, mma or threads)}}
"test.barrier"() : () -> !tile.barrier<fence, 1>

// -----

// expected-error @below {{pipeline depth must be 1 to 64, got 65}}
"test.pipeline"() : () -> !tile.pipeline<65>

// -----

// expected-error @below {{a fragment is two-dimensional, got shape 64}}
"test.frag"() : () -> !tile.frag<64xf32, wgmma_acc>

// -----

// expected-error @below {{fragment dimensions must be static and positive, got ?x64}}
"test.frag"() : () -> !tile.frag<?x64xf32, wgmma_acc>

// -----

// expected-error @below {{a wgmma_acc fragment has a multiple of 64 rows, got 32}}
"test.frag"() : () -> !tile.frag<32x64xf32, wgmma_acc>

// -----

// expected-error @below {{a wgmma_acc fragment has a multiple of 8 columns up to 256, got 260}}
"test.frag"() : () -> !tile.frag<64x260xf32, wgmma_acc>

// -----

// expected-error @below {{a row_per_thread fragment has 128 rows (one per thread of the warpgroup), got 64}}
"test.frag"() : () -> !tile.frag<64x64xf32, row_per_thread>

// -----

// expected-error @below {{a quad_spread fragment has 2, 4 or 8 rows (the groups of a grouped reduction), got 16}}
"test.frag"() : () -> !tile.frag<16x64xf32, quad_spread>

// -----

// expected-error @below {{a quad_spread fragment has a multiple of 64 columns (the reduced fragment's rows), got 96}}
"test.frag"() : () -> !tile.frag<2x96xf32, quad_spread>

// -----

// expected-error @below {{grid axis must be positive, got 0}}
"test.axis"() {axis = #tile.grid_axis<0>} : () -> ()

// -----

// Roles of one kernel partition its warps.
tile.kernel @role_name_twice() attributes {target = #tile.target<sm_90a>, warpgroups = 2 : i64, grid = #tile.grid_policy<persistent>} {
  // expected-note @below {{the first declaration is here}}
  tile.role "r" warpgroups [0] {
  }
  // expected-error @below {{'tile.role' op role 'r' is already declared}}
  tile.role "r" warpgroups [1] {
  }
}

// -----

tile.kernel @role_warp_overlap() attributes {target = #tile.target<sm_90a>, warpgroups = 2 : i64, grid = #tile.grid_policy<persistent>} {
  // expected-note @below {{'a' is declared here}}
  tile.role "a" warpgroups [0, 1] warps [0, 1] {
  }
  // expected-error @below {{'tile.role' op role 'b' runs on warp 1 of warpgroup 1, which role 'a' already runs on}}
  tile.role "b" warpgroups [1] warps [1, 2] {
  }
}

// -----

tile.kernel @role_budget_conflict() attributes {target = #tile.target<sm_90a>, warpgroups = 2 : i64, grid = #tile.grid_policy<persistent>} {
  // expected-note @below {{'a' sets its budget here}}
  tile.role "a" warpgroups [0] warps [0] max_regs 40 {
  }
  // expected-error @below {{'tile.role' op role 'b' gives warpgroup 0 48 registers per thread, but role 'a' gives it 40; setmaxnreg sets one budget for a whole warpgroup}}
  tile.role "b" warpgroups [0] warps [1] max_regs 48 {
  }
}

// -----

tile.kernel @gemm_wait_pending() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %z = tile.frag.zero : !tile.frag<64x64xf32, wgmma_acc>
  // expected-error @below {{'tile.gemm_wait' op pending is 0 to 7 wgmma groups, got 8}}
  %w = tile.gemm_wait %z pending 8 : !tile.frag<64x64xf32, wgmma_acc>
}

// -----

tile.kernel @bulk_wait_pending() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  // expected-error @below {{'tile.bulk_wait' op pending is 0 to 63 copy groups, got 64}}
  tile.bulk_wait 64
}

// -----

// Constant indices stay inside the buffer they view.
tile.kernel @copy_stage_out_of_range(%A: !tile.global<?x?xbf16>) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %a = tile.smem_alloc : !tile.smem<4x128x64xbf16, swizzle_128b>
  %b = tile.barrier_alloc arrivals 1 : !tile.barrier<tma, 4>
  %c0 = arith.constant 0 : i32
  %c5 = arith.constant 5 : i32
  // expected-error @below {{'tile.copy_async' op shared tile index 5 is out of range for dimension 0 of size 4 of '!tile.smem<4x128x64xbf16, swizzle_128b>'}}
  tile.copy_async %a[%c5], %A[%c0, %c0] barrier %b[%c0] : !tile.smem<4x128x64xbf16, swizzle_128b>, !tile.global<?x?xbf16>, !tile.barrier<tma, 4>
}

// -----

tile.kernel @barrier_index_out_of_range() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %b = tile.barrier_alloc arrivals 1 : !tile.barrier<threads, 4>
  %c4 = arith.constant 4 : i32
  // expected-error @below {{'tile.barrier.arrive' op barrier index 4 is out of range for an array of 4 barriers}}
  tile.barrier.arrive %b[%c4] : !tile.barrier<threads, 4>
}

// -----

tile.kernel @wait_index_out_of_range() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %b = tile.barrier_alloc arrivals 1 : !tile.barrier<threads, 2>
  %c0 = arith.constant 0 : i32
  %m1 = arith.constant -1 : i32
  // expected-error @below {{'tile.barrier.wait' op barrier index -1 is out of range for an array of 2 barriers}}
  tile.barrier.wait %b[%m1], %c0 : !tile.barrier<threads, 2>
}

// -----

tile.kernel @wgmma_rows_outside_tile() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %a = tile.smem_alloc : !tile.smem<128x64xbf16, swizzle_128b>
  %b = tile.smem_alloc : !tile.smem<64x64xbf16, swizzle_128b>
  %z = tile.frag.zero : !tile.frag<64x64xf32, wgmma_acc>
  %c0 = arith.constant 0 : i32
  %c96 = arith.constant 96 : i32
  // expected-error @below {{'tile.gemm_async' op A rows 96 to 159 are outside the tile of 128 rows of '!tile.smem<128x64xbf16, swizzle_128b>'}}
  %r = tile.gemm_async %z, %a[%c96], %b[%c0] : !tile.frag<64x64xf32, wgmma_acc>, !tile.smem<128x64xbf16, swizzle_128b>, !tile.smem<64x64xbf16, swizzle_128b> -> !tile.frag<64x64xf32, wgmma_acc>
}

// -----

tile.kernel @store_rows_outside_tile() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %d = tile.smem_alloc : !tile.smem<128x64xbf16, swizzle_128b>
  %z = tile.frag.zero : !tile.frag<64x64xbf16, wgmma_acc>
  %c96 = arith.constant 96 : i32
  // expected-error @below {{'tile.frag.store' op destination rows 96 to 159 are outside the tile of 128 rows of '!tile.smem<128x64xbf16, swizzle_128b>'}}
  tile.frag.store %z, %d[%c96] : !tile.frag<64x64xbf16, wgmma_acc>, !tile.smem<128x64xbf16, swizzle_128b>
}

// -----

tile.kernel @tmem_load_columns() attributes {target = #tile.target<sm_100a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %t = tile.tmem_alloc : !tile.tmem<128x128xf32>
  %c96 = arith.constant 96 : i32
  // expected-error @below {{'tile.tmem_load' op columns 96 to 159 are outside the tensor memory's 128 columns}}
  %r = tile.tmem_load %t[%c96] : !tile.tmem<128x128xf32> -> !tile.frag<128x64xf32, row_per_thread>
}

// -----

tile.kernel @tcgen05_acc_columns() attributes {target = #tile.target<sm_100a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %t = tile.tmem_alloc : !tile.tmem<128x256xf32>
  %a = tile.smem_alloc : !tile.smem<128x64xf16, swizzle_128b>
  %c0 = arith.constant 0 : i32
  %c192 = arith.constant 192 : i32
  // expected-error @below {{'tile.gemm_async' op accumulator columns 192 to 319 are outside the tensor memory's 256 columns}}
  tile.gemm_async %t[%c192], %a[%c0], %a[%c0] : !tile.tmem<128x256xf32>, !tile.smem<128x64xf16, swizzle_128b>, !tile.smem<128x64xf16, swizzle_128b>
}

// -----

tile.kernel @tcgen05_pair_needs_even_cluster() attributes {target = #tile.target<sm_100a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %t = tile.tmem_alloc : !tile.tmem<128x256xf32>
  %a = tile.smem_alloc : !tile.smem<64x64xf16, swizzle_128b>
  %c0 = arith.constant 0 : i32
  // expected-error @below {{'tile.gemm_async' op cta_group 2 needs clusters of an even number of CTAs, got 1}}
  tile.gemm_async %t[%c0], %a[%c0], %a[%c0] {cta_group = 2 : i64} : !tile.tmem<128x256xf32>, !tile.smem<64x64xf16, swizzle_128b>, !tile.smem<64x64xf16, swizzle_128b>
}

// -----

// An accumulator is read only after the MMAs into it are waited on.
tile.kernel @read_in_flight_accumulator() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %a = tile.smem_alloc : !tile.smem<64x64xbf16, swizzle_128b>
  %z = tile.frag.zero : !tile.frag<64x64xf32, wgmma_acc>
  %c0 = arith.constant 0 : i32
  // expected-note @below {{the gemm_async is here}}
  %r = tile.gemm_async %z, %a[%c0], %a[%c0] : !tile.frag<64x64xf32, wgmma_acc>, !tile.smem<64x64xbf16, swizzle_128b>, !tile.smem<64x64xbf16, swizzle_128b> -> !tile.frag<64x64xf32, wgmma_acc>
  // expected-error @below {{'tile.frag.cast' op reads an accumulator that a tile.gemm_async may still be writing; wait for it with tile.gemm_wait first (pending 0, or pending n after n later commits)}}
  %h = tile.frag.cast %r : !tile.frag<64x64xf32, wgmma_acc> -> !tile.frag<64x64xbf16, wgmma_acc>
}

// -----

tile.kernel @read_in_flight_after_loop(%k: i32) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %a = tile.smem_alloc : !tile.smem<64x64xbf16, swizzle_128b>
  %z = tile.frag.zero : !tile.frag<64x64xf32, wgmma_acc>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %acc = scf.for %i = %c0 to %k step %c1 iter_args(%x = %z) -> (!tile.frag<64x64xf32, wgmma_acc>) : i32 {
    // expected-note @below {{the gemm_async is here}}
    %r = tile.gemm_async %x, %a[%c0], %a[%c0] : !tile.frag<64x64xf32, wgmma_acc>, !tile.smem<64x64xbf16, swizzle_128b>, !tile.smem<64x64xbf16, swizzle_128b> -> !tile.frag<64x64xf32, wgmma_acc>
    %w = tile.gemm_wait %r pending 1 : !tile.frag<64x64xf32, wgmma_acc>
    scf.yield %w : !tile.frag<64x64xf32, wgmma_acc>
  }
  %s = arith.constant 2.0 : f32
  // expected-error @below {{'tile.frag.binary' op reads an accumulator that a tile.gemm_async may still be writing; wait for it with tile.gemm_wait first (pending 0, or pending n after n later commits)}}
  %m = tile.frag.binary mul %acc, %s : !tile.frag<64x64xf32, wgmma_acc>, f32 -> !tile.frag<64x64xf32, wgmma_acc>
}

// -----

// pending 1 leaves the newest group in flight: with no commit after the
// accumulator's own, its wgmma may still run.
tile.kernel @read_newest_group_after_pending_1() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %a = tile.smem_alloc : !tile.smem<64x64xbf16, swizzle_128b>
  %z = tile.frag.zero : !tile.frag<64x64xf32, wgmma_acc>
  %c0 = arith.constant 0 : i32
  %t0 = tile.gemm_async %z, %a[%c0], %a[%c0] : !tile.frag<64x64xf32, wgmma_acc>, !tile.smem<64x64xbf16, swizzle_128b>, !tile.smem<64x64xbf16, swizzle_128b> -> !tile.frag<64x64xf32, wgmma_acc>
  tile.gemm_commit
  // expected-note @below {{the gemm_async is here}}
  %t1 = tile.gemm_async %z, %a[%c0], %a[%c0] : !tile.frag<64x64xf32, wgmma_acc>, !tile.smem<64x64xbf16, swizzle_128b>, !tile.smem<64x64xbf16, swizzle_128b> -> !tile.frag<64x64xf32, wgmma_acc>
  tile.gemm_commit
  %w0 = tile.gemm_wait %t0 pending 1 : !tile.frag<64x64xf32, wgmma_acc>
  %w1 = tile.gemm_wait %t1 pending 1 : !tile.frag<64x64xf32, wgmma_acc>
  %s = tile.frag.binary add %w0, %w0 : !tile.frag<64x64xf32, wgmma_acc>, !tile.frag<64x64xf32, wgmma_acc> -> !tile.frag<64x64xf32, wgmma_acc>
  // expected-error @below {{'tile.frag.binary' op reads an accumulator that a tile.gemm_async may still be writing; wait for it with tile.gemm_wait first (pending 0, or pending n after n later commits)}}
  %m = tile.frag.binary add %w1, %w1 : !tile.frag<64x64xf32, wgmma_acc>, !tile.frag<64x64xf32, wgmma_acc> -> !tile.frag<64x64xf32, wgmma_acc>
}

// -----

tile.kernel @read_unwaited_tmem_load() attributes {target = #tile.target<sm_100a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %t = tile.tmem_alloc : !tile.tmem<128x128xf32>
  %d = tile.smem_alloc : !tile.smem<128x64xf32, swizzle_128b>
  %c0 = arith.constant 0 : i32
  // expected-note @below {{the tmem_load is here}}
  %r = tile.tmem_load %t[%c0] : !tile.tmem<128x128xf32> -> !tile.frag<128x64xf32, row_per_thread>
  // expected-error @below {{'tile.frag.store' op reads a fragment that a tile.tmem_load may still be filling; wait for it with tile.tmem_wait first}}
  tile.frag.store %r, %d[%c0] : !tile.frag<128x64xf32, row_per_thread>, !tile.smem<128x64xf32, swizzle_128b>
}

// -----

tile.kernel @role_no_warp() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  // expected-error @below {{'tile.role' op role 'r' names no warp}}
  tile.role "r" warpgroups [0] warps [] {
  }
}

// -----

tile.kernel @negative_expect_tx() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %b = tile.barrier_alloc arrivals 1 : !tile.barrier<tma, 1>
  %c0 = arith.constant 0 : i32
  // expected-error @below {{'tile.barrier.arrive' op expect_tx must be 0 to 1048575 bytes, got -16}}
  tile.barrier.arrive %b[%c0] expect_tx -16 : !tile.barrier<tma, 1>
}

// -----

// Loads into registers and guarded stores (LoadOps.cpp).
tile.kernel @load_rank(%X: !tile.global<?x?xi32>) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %c0 = arith.constant 0 : i32
  // expected-error @below {{'tile.load' op source of rank 2 takes 2 indices, got 1}}
  %x = tile.load %X[%c0] : !tile.global<?x?xi32> -> i32
}

// -----

tile.kernel @load_result_type(%X: !tile.global<?xi32>) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %c0 = arith.constant 0 : i32
  // expected-error @below {{'tile.load' op result type 'f32' differs from the source's element type 'i32'}}
  %x = tile.load %X[%c0] : !tile.global<?xi32> -> f32
}

// -----

tile.kernel @load_bounds(%X: !tile.global<4xi32>) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %c4 = arith.constant 4 : i32
  // expected-error @below {{'tile.load' op source index 4 is out of range for dimension 0 of size 4 of '!tile.global<4xi32>'}}
  %x = tile.load %X[%c4] : !tile.global<4xi32> -> i32
}

// -----

tile.kernel @load_swizzled() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %s = tile.smem_alloc : !tile.smem<8x32xf32, swizzle_128b>
  %c0 = arith.constant 0 : i32
  // expected-error @below {{'tile.load' op reads and writes shared memory unswizzled, got '!tile.smem<8x32xf32, swizzle_128b>'}}
  %x = tile.load %s[%c0, %c0] : !tile.smem<8x32xf32, swizzle_128b> -> f32
}

// -----

tile.kernel @load_other_shared() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %s = tile.smem_alloc : !tile.smem<128xf32, none>
  %c0 = arith.constant 0 : i32
  %one = arith.constant 1.0 : f32
  // expected-error @below {{'tile.load' op other applies to global loads (shared-memory loads are not guarded)}}
  %x = tile.load %s[%c0] other %one : f32 : !tile.smem<128xf32, none> -> f32
}

// -----

tile.kernel @load_nc_shared() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %s = tile.smem_alloc : !tile.smem<128xf32, none>
  %c0 = arith.constant 0 : i32
  // expected-error @below {{'tile.load' op nc applies to global loads}}
  %x = tile.load %s[%c0] {nc} : !tile.smem<128xf32, none> -> f32
}

// -----

tile.kernel @load_other_type(%X: !tile.global<?xi32>) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %c0 = arith.constant 0 : i32
  %one = arith.constant 1.0 : f32
  // expected-error @below {{'tile.load' op other has type 'f32', the elements are 'i32'}}
  %x = tile.load %X[%c0] other %one : f32 : !tile.global<?xi32> -> i32
}

// -----

tile.kernel @frag_load_type(%X: !tile.global<?xbf16>) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %c0 = arith.constant 0 : i32
  // expected-error @below {{'tile.frag.load' op fragment element type 'f32' differs from the source's 'bf16'}}
  %b = tile.frag.load %X[%c0] : !tile.global<?xbf16> -> !tile.frag<64x256xf32, wgmma_acc, cols>
}

// -----

tile.kernel @frag_load_full_rank(%X: !tile.global<?xf32>) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %c0 = arith.constant 0 : i32
  // expected-error @below {{'tile.frag.load' op a full fragment reads a 2-D tile: the source needs rank 2 or more, got 1}}
  %b = tile.frag.load %X[%c0] : !tile.global<?xf32> -> !tile.frag<64x256xf32, wgmma_acc>
}

// -----

tile.kernel @frag_load_shared_extent() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %s = tile.smem_alloc : !tile.smem<4x128xf32, none>
  %c0 = arith.constant 0 : i32
  %c96 = arith.constant 96 : i32
  // expected-error @below {{'tile.frag.load' op source elements 96 to 159 are outside dimension 1 of size 128 of '!tile.smem<4x128xf32, none>'}}
  %b = tile.frag.load %s[%c0, %c96] : !tile.smem<4x128xf32, none> -> !tile.frag<64x256xf32, wgmma_acc, rows>
}

// -----

tile.kernel @frag_load_vector_bytes(%X: !tile.global<?xf32>) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %c0 = arith.constant 0 : i32
  // expected-error @below {{'tile.frag.load' op vector must be a power of two of at most 16 bytes, got 3 elements}}
  %b = tile.frag.load %X[%c0] {vector = 3 : i64} : !tile.global<?xf32> -> !tile.frag<64x256xf32, wgmma_acc, cols>
}

// -----

tile.kernel @frag_load_vector_layout(%X: !tile.global<?x?xf32>) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %c0 = arith.constant 0 : i32
  // expected-error @below {{'tile.frag.load' op vector of 4 elements does not fit '!tile.frag<64x256xf32, wgmma_acc>', whose threads hold runs of 2 consecutive elements}}
  %b = tile.frag.load %X[%c0, %c0] {vector = 4 : i64} : !tile.global<?x?xf32> -> !tile.frag<64x256xf32, wgmma_acc>
}

// -----

tile.kernel @store_global_type(%D: !tile.global<?x?xbf16>) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %c0 = arith.constant 0 : i32
  %z = tile.frag.zero : !tile.frag<64x64xf32, wgmma_acc>
  // expected-error @below {{'tile.frag.store_global' op fragment element type 'f32' differs from the tensor's 'bf16'}}
  tile.frag.store_global %z, %D[%c0, %c0] : !tile.frag<64x64xf32, wgmma_acc>, !tile.global<?x?xbf16>
}

// -----

tile.kernel @store_global_rank(%D: !tile.global<?xf32>) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %c0 = arith.constant 0 : i32
  %z = tile.frag.zero : !tile.frag<64x64xf32, wgmma_acc>
  // expected-error @below {{'tile.frag.store_global' op destination must have rank 2 or more (the tile's rows and columns), got 1}}
  tile.frag.store_global %z, %D[%c0] : !tile.frag<64x64xf32, wgmma_acc>, !tile.global<?xf32>
}

// -----

tile.kernel @store_global_bounds(%D: !tile.global<?x64xf32>) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %z = tile.frag.zero : !tile.frag<64x64xf32, wgmma_acc>
  // expected-error @below {{'tile.frag.store_global' op destination index 64 is out of range for dimension 1 of size 64 of '!tile.global<?x64xf32>'}}
  tile.frag.store_global %z, %D[%c0, %c64] : !tile.frag<64x64xf32, wgmma_acc>, !tile.global<?x64xf32>
}

// -----

tile.kernel @store_global_unsettled(%D: !tile.global<?x?xf32>) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %a = tile.smem_alloc : !tile.smem<64x64xbf16, swizzle_128b>
  %c0 = arith.constant 0 : i32
  %z = tile.frag.zero : !tile.frag<64x64xf32, wgmma_acc>
  // expected-note @below {{the gemm_async is here}}
  %r = tile.gemm_async %z, %a[%c0], %a[%c0] : !tile.frag<64x64xf32, wgmma_acc>, !tile.smem<64x64xbf16, swizzle_128b>, !tile.smem<64x64xbf16, swizzle_128b> -> !tile.frag<64x64xf32, wgmma_acc>
  // expected-error @below {{'tile.frag.store_global' op reads an accumulator that a tile.gemm_async may still be writing; wait for it with tile.gemm_wait first (pending 0, or pending n after n later commits)}}
  tile.frag.store_global %r, %D[%c0, %c0] : !tile.frag<64x64xf32, wgmma_acc>, !tile.global<?x?xf32>
}

// -----

tile.kernel @frag_index_full() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  // expected-error @below {{'tile.frag.index' op gives a rows or cols fragment of f32 (each row's or column's index), got '!tile.frag<64x64xf32, wgmma_acc>'}}
  %i = tile.frag.index : !tile.frag<64x64xf32, wgmma_acc>
}

// -----

tile.kernel @frag_index_align() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  // expected-error @below {{'tile.frag.index' op align must be positive, got 0}}
  %i = tile.frag.index {align = 0 : i64} : !tile.frag<64x64xf32, wgmma_acc, cols>
}

// -----

tile.kernel @store_type(%v: i32) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %s = tile.smem_alloc : !tile.smem<4x128xf32, none>
  %c0 = arith.constant 0 : i32
  // expected-error @below {{'tile.store' op value type 'i32' differs from the destination's element type 'f32'}}
  tile.store %v, %s[%c0, %c0] : i32, !tile.smem<4x128xf32, none>
}

// -----

tile.kernel @store_index(%v: f32) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %s = tile.smem_alloc : !tile.smem<4x128xf32, none>
  %c0 = arith.constant 0 : i32
  %c4 = arith.constant 4 : i32
  // expected-error @below {{'tile.store' op destination index 4 is out of range for dimension 0 of size 4 of '!tile.smem<4x128xf32, none>'}}
  tile.store %v, %s[%c4, %c0] : f32, !tile.smem<4x128xf32, none>
}

// -----

// tile.unroll marks an scf.for for tile-unroll-loops with a factor of 2 or more.
func.func @unroll_factor(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @below {{'tile.unroll' must be an integer of at least 2 on an scf.for, got 1 : i64 on 'scf.for'}}
  scf.for %i = %c0 to %n step %c1 {
  } {tile.unroll = 1 : i64}
  return
}

// -----

// tile.test_ahead marks an scf.for for tile-test-ahead.
func.func @test_ahead_not_a_loop() {
  // expected-error @below {{'tile.test_ahead' must be a unit attribute on an scf.for, got unit on 'arith.constant'}}
  %c0 = arith.constant {tile.test_ahead} 0 : index
  return
}

// -----

func.func @test_ahead_value(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @below {{'tile.test_ahead' must be a unit attribute on an scf.for, got 1 : i64 on 'scf.for'}}
  scf.for %i = %c0 to %n step %c1 {
  } {tile.test_ahead = 1 : i64}
  return
}

// -----

func.func @unroll_not_a_loop() {
  // expected-error @below {{'tile.unroll' must be an integer of at least 2 on an scf.for, got 2 : i64 on 'arith.constant'}}
  %c0 = arith.constant {tile.unroll = 2 : i64} 0 : index
  return
}

// -----

tile.kernel @frag_slice_cut(%x: f32) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %z = tile.frag.zero : !tile.frag<64x64xf32, wgmma_acc>
  // expected-error @below {{'tile.frag.slice' op columns [4, 12) of a wgmma_acc fragment are not whole register groups of every thread (wgmma_acc slices start and end on a multiple of 8)}}
  %s = tile.frag.slice %z cols 4 : !tile.frag<64x64xf32, wgmma_acc> -> !tile.frag<64x8xf32, wgmma_acc>
}

// -----

tile.kernel @frag_slice_outside(%x: f32) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %z = tile.frag.zero : !tile.frag<64x64xf32, wgmma_acc>
  // expected-error @below {{'tile.frag.slice' op columns [32, 96) are outside the source's 64 columns}}
  %s = tile.frag.slice %z cols 32 : !tile.frag<64x64xf32, wgmma_acc> -> !tile.frag<64x64xf32, wgmma_acc>
}

// -----

tile.kernel @frag_slice_type(%x: f32) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %z = tile.frag.zero : !tile.frag<64x64xf32, wgmma_acc>
  // expected-error @below {{'tile.frag.slice' op result must keep the source's rows, layout, broadcast and element type ('!tile.frag<64x64xf32, wgmma_acc>'), got '!tile.frag<64x32xf32, wgmma_acc, rows>'}}
  %s = tile.frag.slice %z cols 0 : !tile.frag<64x64xf32, wgmma_acc> -> !tile.frag<64x32xf32, wgmma_acc, rows>
}

// -----

// tile.frag.insert shares tile.frag.slice's rules, for the inserted part.
tile.kernel @frag_insert_type() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %z = tile.frag.zero : !tile.frag<64x64xf32, wgmma_acc>
  %p = tile.frag.zero : !tile.frag<64x8xf32, wgmma_acc, cols>
  // expected-error @below {{'tile.frag.insert' op inserted fragment must keep the destination's rows, layout, broadcast and element type ('!tile.frag<64x64xf32, wgmma_acc>'), got '!tile.frag<64x8xf32, wgmma_acc, cols>'}}
  %r = tile.frag.insert %p into %z cols 0 : !tile.frag<64x8xf32, wgmma_acc, cols> into !tile.frag<64x64xf32, wgmma_acc>
}

// -----

tile.kernel @frag_insert_outside() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %z = tile.frag.zero : !tile.frag<64x64xf32, wgmma_acc>
  %p = tile.frag.zero : !tile.frag<64x16xf32, wgmma_acc>
  // expected-error @below {{'tile.frag.insert' op columns [56, 72) are outside the destination's 64 columns}}
  %r = tile.frag.insert %p into %z cols 56 : !tile.frag<64x16xf32, wgmma_acc> into !tile.frag<64x64xf32, wgmma_acc>
}

// -----

tile.kernel @frag_insert_cut() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %z = tile.frag.zero : !tile.frag<64x64xf32, wgmma_acc>
  %p = tile.frag.zero : !tile.frag<64x8xf32, wgmma_acc>
  // expected-error @below {{'tile.frag.insert' op columns [4, 12) of a wgmma_acc fragment are not whole register groups of every thread (wgmma_acc slices start and end on a multiple of 8)}}
  %r = tile.frag.insert %p into %z cols 4 : !tile.frag<64x8xf32, wgmma_acc> into !tile.frag<64x64xf32, wgmma_acc>
}

// -----

tile.kernel @store_global_lines_full(%D: !tile.global<?x?xf32>) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %c0 = arith.constant 0 : i32
  %z = tile.frag.zero : !tile.frag<64x64xf32, wgmma_acc>
  // expected-error @below {{'tile.frag.store_global' op lines writes a rows or cols fragment's values along the last dimension, got '!tile.frag<64x64xf32, wgmma_acc>'}}
  tile.frag.store_global %z, %D[%c0, %c0] {lines} : !tile.frag<64x64xf32, wgmma_acc>, !tile.global<?x?xf32>
}

// -----

tile.kernel @gather_shared(%ids: !tile.global<?xi32>) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %s = tile.smem_alloc : !tile.smem<128x32xi32, none>
  %c0 = arith.constant 0 : i32
  %rows = tile.frag.load %ids[%c0] : !tile.global<?xi32> -> !tile.frag<128x32xi32, row_per_thread, rows>
  // expected-error @below {{'tile.frag.load' op rows gathers or scatters the rows of a global tensor, got '!tile.smem<128x32xi32, none>'}}
  %x = tile.frag.load %s[%c0, %c0] rows %rows : !tile.frag<128x32xi32, row_per_thread, rows> : !tile.smem<128x32xi32, none> -> !tile.frag<128x32xi32, row_per_thread>
}

// -----

tile.kernel @gather_broadcast(%ids: !tile.global<?xi32>, %X: !tile.global<?x?xi32>) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %c0 = arith.constant 0 : i32
  %rows = tile.frag.load %ids[%c0] : !tile.global<?xi32> -> !tile.frag<128x32xi32, row_per_thread, rows>
  // expected-error @below {{'tile.frag.load' op rows picks the tensor row of each row of a full fragment, got '!tile.frag<128x32xi32, row_per_thread, cols>'}}
  %x = tile.frag.load %X[%c0, %c0] rows %rows : !tile.frag<128x32xi32, row_per_thread, rows> : !tile.global<?x?xi32> -> !tile.frag<128x32xi32, row_per_thread, cols>
}

// -----

tile.kernel @gather_row_numbers(%ids: !tile.global<?xi32>, %X: !tile.global<?x?xi32>) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %c0 = arith.constant 0 : i32
  %rows = tile.frag.load %ids[%c0] : !tile.global<?xi32> -> !tile.frag<128x64xi32, row_per_thread, rows>
  // expected-error @below {{'tile.frag.load' op rows must be '!tile.frag<128x32xi32, row_per_thread, rows>' (one i32 row number per row), got '!tile.frag<128x64xi32, row_per_thread, rows>'}}
  %x = tile.frag.load %X[%c0, %c0] rows %rows : !tile.frag<128x64xi32, row_per_thread, rows> : !tile.global<?x?xi32> -> !tile.frag<128x32xi32, row_per_thread>
}

// -----

tile.kernel @scatter_lines(%ids: !tile.global<?xi32>, %X: !tile.global<?xi32>) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %c0 = arith.constant 0 : i32
  %rows = tile.frag.load %ids[%c0] : !tile.global<?xi32> -> !tile.frag<128x32xi32, row_per_thread, rows>
  // expected-error @below {{'tile.frag.store_global' op lines writes along the last dimension; rows scatters the rows of a full fragment: not both}}
  tile.frag.store_global %rows, %X[%c0] rows %rows : !tile.frag<128x32xi32, row_per_thread, rows> {lines} : !tile.frag<128x32xi32, row_per_thread, rows>, !tile.global<?xi32>
}

// -----

tile.kernel @scatter_broadcast(%ids: !tile.global<?xi32>, %Y: !tile.global<?x?xi32>) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %c0 = arith.constant 0 : i32
  %rows = tile.frag.load %ids[%c0] : !tile.global<?xi32> -> !tile.frag<128x32xi32, row_per_thread, rows>
  // expected-error @below {{'tile.frag.store_global' op rows picks the tensor row of each row of a full fragment, got '!tile.frag<128x32xi32, row_per_thread, rows>'}}
  tile.frag.store_global %rows, %Y[%c0, %c0] rows %rows : !tile.frag<128x32xi32, row_per_thread, rows> : !tile.frag<128x32xi32, row_per_thread, rows>, !tile.global<?x?xi32>
}

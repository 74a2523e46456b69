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

// -----

// A rank-1 tile of at most 256 elements is one 1-D TMA box (unswizzled); a
// longer one a bulk copy. Global loads of tensors the kernel never writes
// read through the read-only cache (nc); D is written, so its load is not
// nc. Accesses use the widest vector the layout and the start allow: pairs
// of an accumulator at a start known to be even, single elements where the
// start is unknown, 16 bytes of a row_per_thread row.
// CHECK-LABEL: tile.kernel @vectors
// CHECK: tile.copy_async {{.*}} {dispatch = #tile.copy_dispatch<tma>, tensormap = #tile.tensormap<arg = 0, box = [256], swizzle = none>}
// CHECK: tile.copy_async {{.*}} {dispatch = #tile.copy_dispatch<bulk>}
// CHECK: tile.load {{.*}} {nc} : !tile.global<?xf32> -> f32
// CHECK: tile.frag.load {{.*}} {nc, vector = 2 : i64} : !tile.global<?xf32> -> !tile.frag<64x128xf32, wgmma_acc, cols>
// CHECK: tile.frag.load {{.*}} {nc, vector = 1 : i64} : !tile.global<?xf32> -> !tile.frag<64x128xf32, wgmma_acc, cols>
// CHECK: tile.frag.load {{.*}} {vector = 2 : i64} : !tile.global<?x?xbf16> -> !tile.frag<64x128xbf16, wgmma_acc>
// CHECK: tile.frag.load {{.*}} {nc, vector = 4 : i64} : !tile.global<?xf32> -> !tile.frag<128x32xf32, row_per_thread, cols>
// CHECK: tile.frag.load {{.*}} {vector = 1 : i64} : !tile.smem<1024xf32, none> -> !tile.frag<64x128xf32, wgmma_acc, rows>
// CHECK: tile.frag.store_global {{.*}} {vector = 2 : i64}
tile.kernel @vectors(%X: !tile.global<?xf32>, %D: !tile.global<?x?xbf16>, %n: i32) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %s = tile.smem_alloc : !tile.smem<256xf32, none>
  %t = tile.smem_alloc : !tile.smem<1024xf32, none>
  %full = tile.barrier_alloc arrivals 1 : !tile.barrier<tma, 1>
  %c0 = arith.constant 0 : i32
  %c128 = arith.constant 128 : i32
  %n0 = arith.muli %n, %c128 : i32
  tile.single_thread cta {
    tile.copy_async %s[], %X[%n] barrier %full[%c0] : !tile.smem<256xf32, none>, !tile.global<?xf32>, !tile.barrier<tma, 1>
    tile.copy_async %t[], %X[%n0] barrier %full[%c0] : !tile.smem<1024xf32, none>, !tile.global<?xf32>, !tile.barrier<tma, 1>
  }
  %x = tile.load %X[%c0] : !tile.global<?xf32> -> f32
  %b = tile.frag.load %X[%n0] : !tile.global<?xf32> -> !tile.frag<64x128xf32, wgmma_acc, cols>
  %c = tile.frag.load %X[%n] : !tile.global<?xf32> -> !tile.frag<64x128xf32, wgmma_acc, cols>
  %r = tile.frag.load %D[%c0, %n0] : !tile.global<?x?xbf16> -> !tile.frag<64x128xbf16, wgmma_acc>
  %q = tile.frag.load %X[%c0] : !tile.global<?xf32> -> !tile.frag<128x32xf32, row_per_thread, cols>
  %rs = tile.frag.load %t[%c0] : !tile.smem<1024xf32, none> -> !tile.frag<64x128xf32, wgmma_acc, rows>
  tile.frag.store_global %r, %D[%c0, %n0] : !tile.frag<64x128xbf16, wgmma_acc>, !tile.global<?x?xbf16>
}

// -----

tile.kernel @bulk_rank2(%X: !tile.global<?x?xf32>) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %s = tile.smem_alloc : !tile.smem<8x64xf32, none>
  %full = tile.barrier_alloc arrivals 1 : !tile.barrier<tma, 1>
  %c0 = arith.constant 0 : i32
  tile.single_thread cta {
    // expected-error @below {{'tile.copy_async' op a bulk copy moves a 1-D tile of a rank-1 tensor; this tensor has rank 2: use dispatch = tma}}
    tile.copy_async %s[], %X[%c0, %c0] barrier %full[%c0] {dispatch = #tile.copy_dispatch<bulk>} : !tile.smem<8x64xf32, none>, !tile.global<?x?xf32>, !tile.barrier<tma, 1>
  }
}

// -----

tile.kernel @vector_bytes(%X: !tile.global<?xf32>) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %s = tile.smem_alloc : !tile.smem<6xf32, none>
  %full = tile.barrier_alloc arrivals 1 : !tile.barrier<tma, 1>
  %c0 = arith.constant 0 : i32
  tile.single_thread cta {
    // expected-error @below {{'tile.copy_async' op a 1-D copy moves a multiple of 16 bytes, but the tile is 6 elements (24 bytes)}}
    tile.copy_async %s[], %X[%c0] barrier %full[%c0] : !tile.smem<6xf32, none>, !tile.global<?xf32>, !tile.barrier<tma, 1>
  }
}

// -----

tile.kernel @vector_box(%X: !tile.global<?xf32>) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %s = tile.smem_alloc : !tile.smem<512xf32, none>
  %full = tile.barrier_alloc arrivals 1 : !tile.barrier<tma, 1>
  %c0 = arith.constant 0 : i32
  tile.single_thread cta {
    // expected-error @below {{'tile.copy_async' op a 1-D TMA box holds at most 256 elements, the tile has 512; use dispatch = bulk (or auto)}}
    tile.copy_async %s[], %X[%c0] barrier %full[%c0] {dispatch = #tile.copy_dispatch<tma>} : !tile.smem<512xf32, none>, !tile.global<?xf32>, !tile.barrier<tma, 1>
  }
}

// -----

tile.kernel @bulk_store(%X: !tile.global<?xf32>) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %s = tile.smem_alloc : !tile.smem<512xf32, none>
  %c0 = arith.constant 0 : i32
  tile.single_thread cta {
    // expected-error @below {{'tile.copy_async' op a bulk copy to global memory could write past the tensor's end; use a tile of at most 256 elements (a 1-D tensor map), in tiles a multiple of 128 bytes apart}}
    tile.copy_async %X[%c0], %s[] : !tile.global<?xf32>, !tile.smem<512xf32, none>
  }
}

// -----

tile.kernel @bulk_multicast(%X: !tile.global<?xf32>) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, cluster = array<i64: 2, 1, 1>, grid = #tile.grid_policy<persistent>} {
  %s = tile.smem_alloc : !tile.smem<512xf32, none>
  %full = tile.barrier_alloc arrivals 1 : !tile.barrier<tma, 1>
  %c0 = arith.constant 0 : i32
  tile.single_thread cta {
    // expected-error @below {{'tile.copy_async' op a bulk copy of a 1-D tile does not multicast; use a tile of at most 256 elements}}
    tile.copy_async %s[], %X[%c0] barrier %full[%c0] {multicast = 3 : i64} : !tile.smem<512xf32, none>, !tile.global<?xf32>, !tile.barrier<tma, 1>
  }
}

// -----

tile.kernel @bulk_start(%X: !tile.global<?xf32>, %n: i32) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %s = tile.smem_alloc : !tile.smem<512xf32, none>
  %full = tile.barrier_alloc arrivals 1 : !tile.barrier<tma, 1>
  %c0 = arith.constant 0 : i32
  tile.single_thread cta {
    // expected-error @below {{'tile.copy_async' op a bulk copy reads from a 16-byte-aligned address, but the start index is not known to be a multiple of 4 elements; write it as a multiple (n * 256)}}
    tile.copy_async %s[], %X[%n] barrier %full[%c0] : !tile.smem<512xf32, none>, !tile.global<?xf32>, !tile.barrier<tma, 1>
  }
}

// -----

// Stages of 64 bytes: a TMA copy needs 128-byte-aligned shared memory, so
// auto picks the bulk copy (16-byte alignment) and tma is refused.
// CHECK-LABEL: tile.kernel @small_stages
// CHECK: tile.copy_async {{.*}} {dispatch = #tile.copy_dispatch<bulk>}
tile.kernel @small_stages(%X: !tile.global<?xf32>) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %s = tile.smem_alloc : !tile.smem<4x16xf32, none>
  %full = tile.barrier_alloc arrivals 1 : !tile.barrier<tma, 1>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  tile.single_thread cta {
    tile.copy_async %s[%c1], %X[%c0] barrier %full[%c0] : !tile.smem<4x16xf32, none>, !tile.global<?xf32>, !tile.barrier<tma, 1>
  }
}

// -----

tile.kernel @small_stages_tma(%X: !tile.global<?xf32>) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %s = tile.smem_alloc : !tile.smem<4x16xf32, none>
  %full = tile.barrier_alloc arrivals 1 : !tile.barrier<tma, 1>
  %c0 = arith.constant 0 : i32
  tile.single_thread cta {
    // expected-error @below {{'tile.copy_async' op a 1-D TMA copy writes 128-byte-aligned shared memory, but the tiles of the buffer are 64 bytes apart; use dispatch = bulk (or auto)}}
    tile.copy_async %s[%c0], %X[%c0] barrier %full[%c0] {dispatch = #tile.copy_dispatch<tma>} : !tile.smem<4x16xf32, none>, !tile.global<?xf32>, !tile.barrier<tma, 1>
  }
}

// -----

// A copy of the first rows of a tile: the box is cut to them (16 rows of a
// 64-row swizzled tile), and to the first columns of a one-row tile.
// CHECK-LABEL: tile.kernel @prefix
// CHECK: tile.copy_async {{.*}} {dispatch = #tile.copy_dispatch<tma>, extent = array<i64: 16, 128>, tensormap = #tile.tensormap<arg = 0, box = [16, 128], swizzle = swizzle_128b>}
// CHECK: tile.copy_async {{.*}} {dispatch = #tile.copy_dispatch<tma>, extent = array<i64: 1, 16>, tensormap = #tile.tensormap<arg = 1, box = [1, 16], swizzle = none>}
tile.kernel @prefix(%A: !tile.global<?x?xf8E4M3FN>, %S: !tile.global<?x?xf32>) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %a = tile.smem_alloc : !tile.smem<2x64x128xf8E4M3FN, swizzle_128b>
  %s = tile.smem_alloc : !tile.smem<2x1x64xf32, none>
  %full = tile.barrier_alloc arrivals 1 : !tile.barrier<tma, 2>
  %c0 = arith.constant 0 : i32
  tile.single_thread cta {
    tile.copy_async %a[%c0], %A[%c0, %c0] barrier %full[%c0] {extent = array<i64: 16, 128>} : !tile.smem<2x64x128xf8E4M3FN, swizzle_128b>, !tile.global<?x?xf8E4M3FN>, !tile.barrier<tma, 2>
    tile.copy_async %s[%c0], %S[%c0, %c0] barrier %full[%c0] {extent = array<i64: 1, 16>} : !tile.smem<2x1x64xf32, none>, !tile.global<?x?xf32>, !tile.barrier<tma, 2>
  }
}

// -----

// The first rows of a tile TMA fills in several box heights: no one box.
tile.kernel @prefix_tall(%A: !tile.global<?x?xf32>) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %a = tile.smem_alloc : !tile.smem<512x4xf32, none>
  %full = tile.barrier_alloc arrivals 1 : !tile.barrier<tma, 1>
  %c0 = arith.constant 0 : i32
  tile.single_thread cta {
    // expected-error @below {{'tile.copy_async' op shared tile cannot be copied by TMA: a copy of the first 300 rows needs a tile TMA fills in one box height, but the 512 rows take boxes of 256}}
    tile.copy_async %a[], %A[%c0, %c0] barrier %full[%c0] {extent = array<i64: 300, 4>} : !tile.smem<512x4xf32, none>, !tile.global<?x?xf32>, !tile.barrier<tma, 1>
  }
}

// -----

// Part of a one-row tile: TMA boxes span a multiple of 16 bytes.
tile.kernel @prefix_narrow(%S: !tile.global<?x?xf32>) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %s = tile.smem_alloc : !tile.smem<1x64xf32, none>
  %full = tile.barrier_alloc arrivals 1 : !tile.barrier<tma, 1>
  %c0 = arith.constant 0 : i32
  tile.single_thread cta {
    // expected-error @below {{'tile.copy_async' op shared tile cannot be copied by TMA: tma boxes span a multiple of 16 bytes, but 6 columns are 24 bytes}}
    tile.copy_async %s[], %S[%c0, %c0] barrier %full[%c0] {extent = array<i64: 1, 6>} : !tile.smem<1x64xf32, none>, !tile.global<?x?xf32>, !tile.barrier<tma, 1>
  }
}

// -----

// A tensor the kernel views on a peer (tile.peer_view) is written by the
// peers' copies of the kernel: its loads, through the view or not, never
// read through the read-only cache. The offset table, only read, does.
// An ordered load never does either: it reads what another thread or GPU
// writes, whatever this kernel does.
// CHECK-LABEL: tile.kernel @peer_written(
// CHECK: %[[OFF:.*]] = tile.load %{{.*}}[%{{.*}}] {nc} : !tile.global<?xi64> -> i64
// CHECK: tile.load %{{.*}}[%{{.*}}] : !tile.global<?xi32> -> i32
// CHECK: tile.load %{{.*}}[%{{.*}}] : !tile.global<?xi32> -> i32
// CHECK: tile.load %{{.*}}[%{{.*}}] order acquire scope sys : !tile.global<?xi64> -> i64
tile.kernel @peer_written(%F: !tile.global<?xi32>, %OFFS: !tile.global<?xi64>) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %c0 = arith.constant 0 : i32
  %off = tile.load %OFFS[%c0] : !tile.global<?xi64> -> i64
  %peer = tile.peer_view %F, %off : !tile.global<?xi32>
  %a = tile.load %peer[%c0] : !tile.global<?xi32> -> i32
  %b = tile.load %F[%a] : !tile.global<?xi32> -> i32
  %flag = tile.load %OFFS[%b] order acquire scope sys : !tile.global<?xi64> -> i64
}

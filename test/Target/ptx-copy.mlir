// RUN: tilec %s --emit=ptx -o - | FileCheck %s
// The TMA copy kernel in PTX: tensor maps as 64-byte-aligned 128-byte
// by-value parameters, the thread count and one CTA per SM declared, the
// barrier in the dynamic pool, a 2-D TMA load completing on it and a TMA
// store.

// CHECK: .version 8.8
// CHECK: .target sm_90a
// CHECK: .extern .shared .align 1024 .b8 __tile_smem[];
// CHECK-LABEL: .visible .entry tma_copy(
// CHECK-NEXT: .param .align 64 .b8 tma_copy_param_0[128],
// CHECK-NEXT: .param .align 64 .b8 tma_copy_param_1[128],
// CHECK-NEXT: .param .u32 tma_copy_param_2,
// CHECK: .reqntid 128, 1, 1
// CHECK-NEXT: .minnctapersm 1
// CHECK: mbarrier.init.shared.b64 [__tile_smem+16384], %{{.*}};
// CHECK: fence.mbarrier_init.release.cluster;
// CHECK: bar.sync 0;
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%{{.*}}], [%{{.*}}, {%{{.*}}, %{{.*}}}], [__tile_smem+16384];
// CHECK: mbarrier.arrive.expect_tx.shared.b64 {{.*}}, [__tile_smem+16384], %{{.*}};
// CHECK: mbarrier.try_wait.parity.shared.b64
// CHECK: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%{{.*}}, {%{{.*}}, %{{.*}}}], [__tile_smem];
// CHECK: cp.async.bulk.commit_group;
// CHECK: cp.async.bulk.wait_group 0;
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

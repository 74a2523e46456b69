// RUN: tile-opt %s --tile-warp-specialize --tile-allocate-smem --tile-assign-named-barriers --tile-lower-pipelines --tile-dispatch --tile-convert-to-nvvm --split-input-file | FileCheck %s

// The kernel becomes an llvm.func: tensor maps by value (byval, align 64,
// grid_constant), then the dynamic dims; .reqntid and .minnctapersm 1. The
// barrier is initialised by thread 0; the copy is a TMA load into the
// shared::cluster window completing on the barrier, and a TMA store.
// CHECK-LABEL: llvm.mlir.global external @__tile_smem() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
// CHECK-LABEL: llvm.func @copy(
// CHECK-SAME: %[[MAPX:[a-z0-9]+]]: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}
// CHECK-SAME: %[[MAPY:[a-z0-9]+]]: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}
// CHECK-SAME: %{{.*}}: i32, %{{.*}}: i32)
// CHECK-SAME: nvvm.kernel, nvvm.minctasm = 1 : i32, nvvm.reqntid = array<i32: 128, 1, 1>
// The kernel's ABI stays on the function, typed, for the bundle writer.
// CHECK-SAME: tile.kernel_abi = #tile.kernel_abi<params = [#tile.tensormap<arg = 0, box = [128, 64], swizzle = swizzle_128b>, #tile.tensormap<arg = 1, box = [128, 64], swizzle = swizzle_128b>, #tile.dim_param<arg = 0, dim = 0>, #tile.dim_param<arg = 1, dim = 0>], argNames = ["X", "Y"], argTypes = [!tile.global<?x64xbf16>, !tile.global<?x64xbf16>], threads = 128, cluster = [1, 1, 1], smemBytes = 16392, grid = persistent, target = sm_90a>
// Thread 0 prefetches each tensor map (from the parameter space) at entry.
// CHECK: %[[TID0:.*]] = nvvm.read.ptx.sreg.tid.x
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[TID0]]
// CHECK: scf.if %[[FIRST]] {
// CHECK-NEXT: nvvm.prefetch tensormap in_param_space, %[[MAPX]] : !llvm.ptr
// CHECK-NEXT: nvvm.prefetch tensormap in_param_space, %[[MAPY]] : !llvm.ptr
// CHECK-NEXT: }
// CHECK: %[[BASE:.*]] = llvm.mlir.addressof @__tile_smem : !llvm.ptr<3>
// CHECK: %[[BAR:.*]] = llvm.getelementptr %{{.*}}[16384] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK: nvvm.read.ptx.sreg.tid.x
// CHECK: scf.if
// CHECK: nvvm.mbarrier.init %[[BAR]], %{{.*}} : !llvm.ptr<3>, i32
// CHECK: nvvm.fence.mbarrier.init
// CHECK-NEXT: nvvm.barrier0
// CHECK: %[[DST:.*]] = llvm.addrspacecast %[[BASE]] : !llvm.ptr<3> to !llvm.ptr<7>
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %[[DST]], %[[MAPX]], %{{.*}}, box[%{{.*}}, %{{.*}}] : !llvm.ptr<7>, !llvm.ptr
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %{{.*}} : !llvm.ptr<3>, i32
// CHECK: nvvm.mbarrier.try_wait.parity %{{.*}}, %{{.*}}, %{{.*}} : !llvm.ptr<3>, i32, i32
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta %[[MAPY]], %[[BASE]], box[%{{.*}}, %{{.*}}]
// CHECK: nvvm.cp.async.bulk.commit.group
// CHECK: nvvm.cp.async.bulk.wait_group 0
tile.kernel @copy(%X: !tile.global<?x64xbf16>, %Y: !tile.global<?x64xbf16>)
    attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>, arg_names = ["X", "Y"]} {
  %buf = tile.smem_alloc : !tile.smem<128x64xbf16, swizzle_128b>
  %full = tile.barrier_alloc arrivals 1 : !tile.barrier<tma, 1>
  %c0 = arith.constant 0 : i32
  tile.single_thread cta {
    tile.copy_async %buf[], %X[%c0, %c0] barrier %full[%c0] : !tile.smem<128x64xbf16, swizzle_128b>, !tile.global<?x64xbf16>, !tile.barrier<tma, 1>
    tile.barrier.arrive %full[%c0] expect_tx 16384 : !tile.barrier<tma, 1>
  }
  tile.barrier.wait %full[%c0], %c0 : !tile.barrier<tma, 1>
  tile.single_thread cta {
    tile.copy_async %Y[%c0, %c0], %buf[] : !tile.global<?x64xbf16>, !tile.smem<128x64xbf16, swizzle_128b>
    tile.bulk_commit
    tile.bulk_wait 0
  }
}

// -----

// A tensor list's maps: one by-value array of capacity x 128 bytes, not
// prefetched; the copy's first index picks map g at byte 128 g, the others
// are the tensor's own coordinates. Only its length is a dim parameter.
// CHECK-LABEL: llvm.func @tensor_list(
// CHECK-SAME: %[[MAPS:[a-z0-9]+]]: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<512 x i8>, nvvm.grid_constant}
// CHECK-SAME: %[[LENGTH:[a-z0-9]+]]: i32)
// CHECK-SAME: #tile.tensormap<arg = 0, box = [1, 128, 64], swizzle = swizzle_128b>, #tile.dim_param<arg = 0, dim = 0>]
// CHECK-NOT: nvvm.prefetch
// CHECK: %[[OFFSET:.*]] = arith.muli %[[LENGTH]], %{{.*}} : i32
// CHECK: %[[MAP:.*]] = llvm.getelementptr %[[MAPS]][%[[OFFSET]]] : (!llvm.ptr, i32) -> !llvm.ptr, i8
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[MAP]], %{{.*}}, box[%{{.*}}, %{{.*}}] : !llvm.ptr<7>, !llvm.ptr
tile.kernel @tensor_list(%A: !tile.global<?x?x?xbf16, list = 4>)
    attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>, arg_names = ["A"]} {
  %buf = tile.smem_alloc : !tile.smem<128x64xbf16, swizzle_128b>
  %full = tile.barrier_alloc arrivals 1 : !tile.barrier<tma, 1>
  %c0 = arith.constant 0 : i32
  %g = tile.dim %A[0] : !tile.global<?x?x?xbf16, list = 4>
  tile.single_thread cta {
    tile.copy_async %buf[], %A[%g, %c0, %c0] barrier %full[%c0] : !tile.smem<128x64xbf16, swizzle_128b>, !tile.global<?x?x?xbf16, list = 4>, !tile.barrier<tma, 1>
    tile.barrier.arrive %full[%c0] expect_tx 16384 : !tile.barrier<tma, 1>
  }
}

// -----

// wgmma: a fence, then per 64-row block and K step one m64nNk16 with
// descriptors (constant fields | (address & 0x3FFFF) >> 4); the wait fences
// every accumulator register with one empty asm; warpgroup syncs use named
// barrier 1 + wg; the 16-bit store is stmatrix.
// CHECK-LABEL: llvm.func @mma(
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-COUNT-4: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 64, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: llvm.inline_asm has_side_effects "", "=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31"
// CHECK: %[[ID:.*]] = arith.addi %{{.*}}, %{{.*}} : i32
// CHECK: nvvm.barrier id = %[[ID]] number_of_threads = %{{.*}}
// The bf16 accumulator goes to shared memory by stmatrix.x4 (4 per 64x64),
// on 32-bit shared addresses.
// CHECK-COUNT-4: llvm.inline_asm has_side_effects "stmatrix.sync.aligned.m8n8.x4.shared.b16 [$0], {$1, $2, $3, $4};", "r,r,r,r,r" %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (i32, i32, i32, i32, i32) -> ()
// CHECK-NOT: stmatrix
tile.kernel @mma() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %a = tile.smem_alloc : !tile.smem<64x64xbf16, swizzle_128b>
  %b = tile.smem_alloc : !tile.smem<64x64xbf16, swizzle_128b>
  %c0 = arith.constant 0 : i32
  %z = tile.frag.zero : !tile.frag<64x64xf32, wgmma_acc>
  %r = tile.gemm_async %z, %a[%c0], %b[%c0] : !tile.frag<64x64xf32, wgmma_acc>, !tile.smem<64x64xbf16, swizzle_128b>, !tile.smem<64x64xbf16, swizzle_128b> -> !tile.frag<64x64xf32, wgmma_acc>
  tile.gemm_commit
  %w = tile.gemm_wait %r pending 0 : !tile.frag<64x64xf32, wgmma_acc>
  tile.sync warpgroup
  %h = tile.frag.cast %w : !tile.frag<64x64xf32, wgmma_acc> -> !tile.frag<64x64xbf16, wgmma_acc>
  tile.frag.store %h, %b[%c0] : !tile.frag<64x64xbf16, wgmma_acc>, !tile.smem<64x64xbf16, swizzle_128b>
}

// -----

// scale-d and operand majors. An undefined accumulator is poison (nothing is
// zeroed). accumulate false overwrites in the first K step only (D <zero>,
// then <one>). A run-time predicate replaces the scale-d immediate of the
// first K step by a register: NVVM's own PTX with an "r" operand. MN-major
// operands are the instruction's transpose (A <col>, B <row>) with
// MN-major descriptors (bf16 64x64 128B: LBO 8192, SBO 1024 =
// 0x4000004002000000; K-major 0x4000004000010000), built as the low word
// (LBO | address field, 33554432 or 65536) and the high word
// (0x4000004000000000 = 4611686293305294848).
// CHECK-LABEL: llvm.func @mma_scale_d_majors(
// CHECK: llvm.mlir.poison : f32
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: arith.constant 65536 : i32
// CHECK: arith.constant 4611686293305294848 : i64
// CHECK: arith.constant 33554432 : i32
// CHECK: arith.constant 4611686293305294848 : i64
// CHECK: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 64, k = 16>, D[<f32>, <zero>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <row>]
// CHECK-COUNT-3: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 64, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <row>]
// CHECK: %[[ON:.*]] = arith.extui %{{.*}} : i1 to i32
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: arith.constant 33554432 : i32
// CHECK: arith.constant 65536 : i32
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "{\0A.reg .pred p;\0Asetp.ne.b32 p, $66, 0;\0Awgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {$0, $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26, $27, $28, $29, $30, $31}, $64, $65, p, $67,  $68, $69,  $70;\0A}\0A", "=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,l,l,r,n,n,n,n" {{.*}}, %[[ON]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} :
// CHECK-COUNT-3: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 64, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <col>], B[<bf16>, <one>, <col>]
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
tile.kernel @mma_scale_d_majors(%k: i32) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %a = tile.smem_alloc : !tile.smem<64x64xbf16, swizzle_128b>
  %b = tile.smem_alloc : !tile.smem<64x64xbf16, swizzle_128b>
  %c0 = arith.constant 0 : i32
  %false = arith.constant false
  %u = tile.frag.undef : !tile.frag<64x64xf32, wgmma_acc>
  %r = tile.gemm_async %u, %a[%c0], %b[%c0] accumulate(%false) {b_major = #tile.mma_major<mn>} : !tile.frag<64x64xf32, wgmma_acc>, !tile.smem<64x64xbf16, swizzle_128b>, !tile.smem<64x64xbf16, swizzle_128b> -> !tile.frag<64x64xf32, wgmma_acc>
  %first = arith.cmpi ne, %k, %c0 : i32
  %r2 = tile.gemm_async %r, %a[%c0], %b[%c0] accumulate(%first) {a_major = #tile.mma_major<mn>} : !tile.frag<64x64xf32, wgmma_acc>, !tile.smem<64x64xbf16, swizzle_128b>, !tile.smem<64x64xbf16, swizzle_128b> -> !tile.frag<64x64xf32, wgmma_acc>
  tile.gemm_commit
  %w = tile.gemm_wait %r2 pending 0 : !tile.frag<64x64xf32, wgmma_acc>
  %h = tile.frag.cast %w : !tile.frag<64x64xf32, wgmma_acc> -> !tile.frag<64x64xbf16, wgmma_acc>
  tile.frag.store %h, %b[%c0] : !tile.frag<64x64xbf16, wgmma_acc>, !tile.smem<64x64xbf16, swizzle_128b>
}

// -----

// Clusters: the setup and teardown syncs are cluster-wide; a remote view is
// mapa; the 2-CTA TMA form masks the peer bit of the leader's barrier; the
// tcgen05 family is NVVM ops, tensor memory addresses becoming !llvm.ptr<6>.
// CHECK-LABEL: llvm.func @blackwell(
// CHECK-SAME: nvvm.cluster_dim = array<i32: 2, 1, 1>
// CHECK: nvvm.tcgen05.alloc %{{.*}}, %{{.*}} {group = #nvvm.cta_group<cta_2>} : !llvm.ptr<3>, i32
// CHECK: nvvm.cluster.arrive {aligned}
// CHECK-NEXT: nvvm.cluster.wait {aligned}
// CHECK: %[[TMEM:.*]] = llvm.load %{{.*}} : !llvm.ptr<3> -> i32
// CHECK: nvvm.mapa %{{.*}}, %{{.*}} : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK: arith.andi %{{.*}}, %{{.*}} : i32
// CHECK: %[[LDADDR:.*]] = llvm.inttoptr %{{.*}} : i32 to !llvm.ptr<6>
// CHECK: nvvm.tcgen05.ld %[[LDADDR]] {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : vector<64xi32>
// CHECK: nvvm.tcgen05.wait <load>
// CHECK: nvvm.tcgen05.fence <after>
// CHECK: nvvm.mbarrier.arrive %{{.*}} : !llvm.ptr<7>
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global {{.*}} multicast_mask = %{{.*}} {group = #nvvm.cta_group<cta_2>}
// CHECK-COUNT-4: nvvm.tcgen05.mma %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {ctaGroup = #nvvm.cta_group<cta_2>, kind = #nvvm.tcgen05_mma_kind<f16>} : (!llvm.ptr<6>, i64, i64, i32, i1)
// CHECK: nvvm.tcgen05.commit %{{.*}}, multicast_mask = %{{.*}} {group = #nvvm.cta_group<cta_2>} : !llvm.ptr<3>, i16
// CHECK: nvvm.cluster.arrive {aligned}
// CHECK: nvvm.tcgen05.relinquish_alloc_permit {group = #nvvm.cta_group<cta_2>}
// CHECK: %[[TPTR:.*]] = llvm.inttoptr %[[TMEM]] : i32 to !llvm.ptr<6>
// CHECK: nvvm.tcgen05.dealloc %[[TPTR]], %{{.*}} {group = #nvvm.cta_group<cta_2>} : !llvm.ptr<6>, i32
tile.kernel @blackwell(%A: !tile.global<4096x4096xf16>)
    attributes {target = #tile.target<sm_100a>, warpgroups = 2 : i64, cluster = array<i64: 2, 1, 1>, grid = #tile.grid_policy<persistent>} {
  %tmem = tile.tmem_alloc cta_group 2 : !tile.tmem<128x512xf32>
  %a = tile.smem_alloc : !tile.smem<4x128x64xf16, swizzle_128b>
  %b = tile.smem_alloc : !tile.smem<4x128x64xf16, swizzle_128b>
  %full = tile.barrier_alloc arrivals 1 : !tile.barrier<tma, 4>
  %empty = tile.barrier_alloc arrivals 1 : !tile.barrier<mma, 4>
  %done = tile.barrier_alloc arrivals 256 : !tile.barrier<threads, 1>
  %full0 = tile.barrier.remote_view %full cta 0 : !tile.barrier<tma, 4> -> !tile.barrier<tma, 4, remote>
  %done0 = tile.barrier.remote_view %done cta 0 : !tile.barrier<threads, 1> -> !tile.barrier<threads, 1, remote>
  %c0 = arith.constant 0 : i32
  %true = arith.constant true
  tile.role "mma" warpgroups [1] warps [0] single_thread {
    tile.copy_async %a[%c0], %A[%c0, %c0] barrier %full0[%c0] {cta_group = 2 : i64, multicast = 3 : i64}
        : !tile.smem<4x128x64xf16, swizzle_128b>, !tile.global<4096x4096xf16>, !tile.barrier<tma, 4, remote>
    tile.gemm_async %tmem[%c0], %a[%c0, %c0], %b[%c0, %c0] accumulate(%true) {cta_group = 2 : i64}
        : !tile.tmem<128x512xf32>, !tile.smem<4x128x64xf16, swizzle_128b>, !tile.smem<4x128x64xf16, swizzle_128b>
    tile.gemm_commit barrier %empty[%c0] cta_mask 3 {cta_group = 2 : i64} : !tile.barrier<mma, 4>
  }
  tile.role "writeback" warpgroups [0] {
    %r = tile.tmem_load %tmem[%c0] : !tile.tmem<128x512xf32> -> !tile.frag<128x64xf32, row_per_thread>
    %r2 = tile.tmem_wait %r : !tile.frag<128x64xf32, row_per_thread>
    tile.fence tcgen05_after_sync
    tile.barrier.arrive %done0[%c0] : !tile.barrier<threads, 1, remote>
  }
}

// -----

// A commit to a peer CTA's barrier stays inline PTX on the shared::cluster
// address (LLVM 22's tcgen05.commit has no shared::cluster pointer form).
// CHECK-LABEL: llvm.func @remote_commit(
// CHECK: nvvm.tcgen05.mma
// CHECK: %[[PEER:.*]] = llvm.ptrtoint %{{.*}} : !llvm.ptr<7> to i32
// CHECK: llvm.inline_asm has_side_effects "tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.b64 [$0];", "r" %[[PEER]] : (i32) -> ()
tile.kernel @remote_commit()
    attributes {target = #tile.target<sm_100a>, warpgroups = 2 : i64, cluster = array<i64: 2, 1, 1>, grid = #tile.grid_policy<persistent>} {
  %tmem = tile.tmem_alloc cta_group 2 : !tile.tmem<128x512xf32>
  %a = tile.smem_alloc : !tile.smem<4x128x64xf16, swizzle_128b>
  %b = tile.smem_alloc : !tile.smem<4x128x64xf16, swizzle_128b>
  %empty = tile.barrier_alloc arrivals 1 : !tile.barrier<mma, 4>
  %empty0 = tile.barrier.remote_view %empty cta 0 : !tile.barrier<mma, 4> -> !tile.barrier<mma, 4, remote>
  %c0 = arith.constant 0 : i32
  tile.role "mma" warpgroups [1] warps [0] single_thread {
    tile.gemm_async %tmem[%c0], %a[%c0, %c0], %b[%c0, %c0] {cta_group = 2 : i64}
        : !tile.tmem<128x512xf32>, !tile.smem<4x128x64xf16, swizzle_128b>, !tile.smem<4x128x64xf16, swizzle_128b>
    tile.gemm_commit barrier %empty0[%c0] {cta_group = 2 : i64} : !tile.barrier<mma, 4, remote>
  }
}

// -----

// A predicated arrive (what tile-warp-specialize makes of a single_thread
// block that only arrives) is nvvm.mbarrier.arrive.expect_tx with 0 bytes
// and the predicate, `@p mbarrier.arrive...`; on a peer's barrier inline
// PTX on the shared::cluster address.
// CHECK-LABEL: llvm.func @predicated_arrive(
// CHECK: %[[E:.*]] = nvvm.elect.sync -> i1
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %[[ZERO]], predicate = %[[E]] : !llvm.ptr<3>, i32, i1
// CHECK: %[[FLAG:.*]] = arith.extui %[[E]] : i1 to i32
// CHECK: llvm.inline_asm has_side_effects "{\0A.reg .pred p;\0Asetp.ne.b32 p, $2, 0;\0A@p mbarrier.arrive.expect_tx.shared::cluster.b64 _, [$0], $1;\0A}", "r,r,r" %{{.*}}, %{{.*}}, %[[FLAG]] : (i32, i32, i32) -> ()
tile.kernel @predicated_arrive() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, cluster = array<i64: 2, 1, 1>, grid = #tile.grid_policy<persistent>} {
  %empty = tile.barrier_alloc arrivals 8 : !tile.barrier<threads, 2>
  %peer = tile.barrier.remote_view %empty cta 1 : !tile.barrier<threads, 2> -> !tile.barrier<threads, 2, remote>
  %c0 = arith.constant 0 : i32
  tile.single_thread warp {
    tile.barrier.arrive %empty[%c0] : !tile.barrier<threads, 2>
    tile.barrier.arrive %peer[%c0] : !tile.barrier<threads, 2, remote>
  }
}

// -----

// tile.barrier.test is mbarrier.test_wait.parity; a wait `unless %ready`
// spins (try_wait.parity) only where %ready is false.
// CHECK-LABEL: llvm.func @test_then_wait(
// CHECK: %[[READY:.*]] = nvvm.mbarrier.test.wait %{{.*}}, %{{.*}} : !llvm.ptr<3>, i32 -> i1
// CHECK: %[[NOT:.*]] = arith.xori %[[READY]], %{{.*}} : i1
// CHECK: scf.if %[[NOT]] {
// CHECK-NOT: }
// CHECK: nvvm.mbarrier.try_wait.parity %{{.*}}, %{{.*}}, %{{.*}} : !llvm.ptr<3>, i32, i32
// CHECK-NEXT: }
tile.kernel @test_then_wait() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %full = tile.barrier_alloc arrivals 1 : !tile.barrier<tma, 2>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %ready = tile.barrier.test %full[%c1], %c0 : !tile.barrier<tma, 2>
  tile.barrier.wait %full[%c1], %c0 unless %ready : !tile.barrier<tma, 2>
}

// RUN: tile-opt %s --tile-warp-specialize --tile-allocate-smem --tile-dispatch --tile-convert-to-nvvm --split-input-file | FileCheck %s

// A tensor read or written directly gets a pointer parameter (aligned to
// its widest access) and i64 strides for its outer dims, after the tensor
// maps and around the dims. A guarded global load reads __tile_zeros where
// its index is outside the tensor (a select, no branch), through the
// read-only cache (invariant) when the kernel never writes the tensor.
// CHECK: llvm.mlir.global internal constant @__tile_zeros("{{.*}}") {addr_space = 1 : i32, alignment = 16 : i64}
// CHECK-LABEL: llvm.func @scalar(
// CHECK-SAME: %[[G:[a-z0-9]+]]: !llvm.ptr<1>, %[[R:[a-z0-9]+]]: !llvm.ptr<1>, %[[DIMG:[a-z0-9]+]]: i32, %{{.*}}: i32, %{{.*}}: i32, %[[STRIDE:[a-z0-9]+]]: i64)
// CHECK-SAME: tile.kernel_abi = #tile.kernel_abi<params = [#tile.pointer_param<arg = 0, align = 4>, #tile.pointer_param<arg = 1, align = 8>, #tile.dim_param<arg = 0, dim = 0>, #tile.dim_param<arg = 1, dim = 0>, #tile.dim_param<arg = 1, dim = 1>, #tile.stride_param<arg = 1, dim = 0>]
// CHECK: %[[IN:.*]] = arith.cmpi ult, %{{.*}}, %[[DIMG]] : i32
// CHECK: %[[ADDR:.*]] = llvm.getelementptr %[[G]][%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i32
// CHECK: %[[ZEROS:.*]] = llvm.mlir.addressof @__tile_zeros : !llvm.ptr<1>
// CHECK: %[[SAFE:.*]] = llvm.select %[[IN]], %[[ADDR]], %[[ZEROS]] : i1, !llvm.ptr<1>
// CHECK: llvm.load %[[SAFE]] invariant {alignment = 4 : i64} : !llvm.ptr<1> -> i32
// A full fragment: rows scaled by the stride, pairs of columns.
// CHECK: arith.muli %{{.*}}, %[[STRIDE]] : i64
// CHECK: llvm.load %{{.*}} invariant {alignment = 8 : i64} : !llvm.ptr<1> -> vector<2xf32>
tile.kernel @scalar(%grp: !tile.global<?xi32>, %R: !tile.global<?x?xf32>) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %tid = tile.id thread
  %g = tile.load %grp[%tid] : !tile.global<?xi32> -> i32
  %m = arith.muli %g, %c64 : i32
  %r = tile.frag.load %R[%m, %c0] : !tile.global<?x?xf32> -> !tile.frag<64x64xf32, wgmma_acc>
  %s = tile.frag.reduce sum %r axis 1 : !tile.frag<64x64xf32, wgmma_acc> -> !tile.frag<64x64xf32, wgmma_acc, rows>
}

// -----

// A shared-memory load is unguarded, and so is a scalar store to shared
// memory (each thread one element); a guarded store writes each pair (a
// bf16 pair as one 32-bit word) as one st.global predicated on its bounds
// (inline PTX: no NVVM op stores under a predicate).
// CHECK-LABEL: llvm.func @shared_and_store(
// CHECK: %[[X:.*]] = llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> f32
// CHECK: %[[AT:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
// CHECK-NEXT: llvm.store %[[X]], %[[AT]] {alignment = 4 : i64} : f32, !llvm.ptr<3>
// CHECK-NOT: scf.if
// CHECK: %[[PAIR:.*]] = llvm.bitcast %{{.*}} : vector<2xbf16> to i32
// CHECK: llvm.inline_asm has_side_effects "@$0 st.global.b32 [$1], $2;", "b,l,r" %{{.*}}, %{{.*}}, %[[PAIR]] : (i1, !llvm.ptr<1>, i32) -> ()
tile.kernel @shared_and_store(%D: !tile.global<?x?xbf16>) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %s = tile.smem_alloc : !tile.smem<4x64xf32, none>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %tid = tile.id thread
  %x = tile.load %s[%c0, %tid] : !tile.smem<4x64xf32, none> -> f32
  tile.store %x, %s[%c1, %tid] : f32, !tile.smem<4x64xf32, none>
  %rs = tile.frag.load %s[%c0, %c0] : !tile.smem<4x64xf32, none> -> !tile.frag<64x64xf32, wgmma_acc, rows>
  %h = tile.frag.cast %rs : !tile.frag<64x64xf32, wgmma_acc, rows> -> !tile.frag<64x64xbf16, wgmma_acc, rows>
  tile.frag.store_global %h, %D[%c0, %c0] : !tile.frag<64x64xbf16, wgmma_acc, rows>, !tile.global<?x?xbf16>
}

// -----

// A rank-1 copy: one 1-D TMA box, or a bulk copy of the bytes inside the
// tensor with mbarrier.complete_tx for the rest of the tile.
// CHECK-LABEL: llvm.func @vector_copies(
// CHECK-SAME: %[[MAP:[a-z0-9]+]]: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}, %[[X:[a-z0-9]+]]: !llvm.ptr<1>
// CHECK-SAME: #tile.tensormap<arg = 0, box = [64], swizzle = none>, #tile.pointer_param<arg = 0, align = 16>
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[MAP]], %{{.*}}, box[%{{.*}}] : !llvm.ptr<7>, !llvm.ptr
// CHECK: scf.if
// CHECK: nvvm.cp.async.bulk.shared.cluster.global %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : !llvm.ptr<7>, <1>
// CHECK: scf.if
// CHECK: nvvm.mbarrier.complete_tx %{{.*}}, %{{.*}} : !llvm.ptr<3>, i32
tile.kernel @vector_copies(%X: !tile.global<?xf32>) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %s = tile.smem_alloc : !tile.smem<2x64xf32, none>
  %t = tile.smem_alloc : !tile.smem<512xf32, none>
  %full = tile.barrier_alloc arrivals 1 : !tile.barrier<tma, 1>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  tile.single_thread cta {
    tile.copy_async %s[%c1], %X[%c0] barrier %full[%c0] : !tile.smem<2x64xf32, none>, !tile.global<?xf32>, !tile.barrier<tma, 1>
    tile.copy_async %t[], %X[%c0] barrier %full[%c0] : !tile.smem<512xf32, none>, !tile.global<?xf32>, !tile.barrier<tma, 1>
  }
}

// -----

// Atomics: PTX atom / red with their .sem and .scope (inline PTX: NVPTX
// prints an atomicrmw's ordering and scope as neither), predicated on the
// element lying inside the tensor; the old value 0 where it does not. An
// unused old value of a relaxed or release update is a red. Ordered loads
// are LLVM atomic loads: ld.acquire.sys, ld.relaxed.gpu.
// CHECK-LABEL: llvm.func @atomics(
// CHECK: %[[IN:.*]] = arith.cmpi ult, %{{.*}}, %{{.*}} : i32
// CHECK: %[[AT:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i32
// CHECK: %[[P:.*]] = arith.extui %[[IN]] : i1 to i32
// CHECK: llvm.inline_asm has_side_effects "{\0A.reg .pred p;\0Asetp.ne.b32 p, $2, 0;\0Amov.b32 $0, 0;\0A@p atom.release.sys.global.add.u32 $0, [$1], $3;\0A}", "=r,l,r,r" %[[AT]], %[[P]], %{{.*}} : (!llvm.ptr<1>, i32, i32) -> i32
// CHECK: "{\0A.reg .pred p;\0Asetp.ne.b32 p, $1, 0;\0A@p red.relaxed.gpu.global.max.s32 [$0], $2;\0A}", "l,r,r"
// CHECK: "{\0A.reg .pred p;\0Asetp.ne.b32 p, $2, 0;\0Amov.b32 $0, 0f00000000;\0A@p atom.acq_rel.cluster.global.exch.b32 $0, [$1], $3;\0A}", "=f,l,r,f"
// CHECK: "{\0A.reg .pred p;\0Asetp.ne.b32 p, $1, 0;\0A@p red.release.cta.global.add.f32 [$0], $2;\0A}", "l,r,f"
// CHECK: llvm.load %{{.*}} atomic acquire {alignment = 4 : i64} : !llvm.ptr<1> -> i32
// CHECK: llvm.load %{{.*}} atomic syncscope("device") monotonic {alignment = 4 : i64} : !llvm.ptr<1> -> i32
tile.kernel @atomics(%F: !tile.global<?xi32>, %X: !tile.global<?xf32>) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %f = arith.constant 1.5 : f32
  %tid = tile.id thread
  %old = tile.atomic add %F[%tid], %c1 order release scope sys : !tile.global<?xi32>, i32
  %unused = tile.atomic max %F[%c0], %old : !tile.global<?xi32>, i32
  %x = tile.atomic exch %X[%tid], %f order acq_rel scope cluster : !tile.global<?xf32>, f32
  %y = tile.atomic add %X[%c1], %x order release scope cta : !tile.global<?xf32>, f32
  %seen = tile.load %F[%c1] order acquire scope sys : !tile.global<?xi32> -> i32
  %r = tile.load %F[%seen] order relaxed scope gpu : !tile.global<?xi32> -> i32
  %last = tile.atomic add %F[%r], %c1 : !tile.global<?xi32>, i32
}

// -----

// A grid sync: CTA barriers around thread 0's fenced release add on the
// counter and its spin on acquire loads until the next multiple of the CTA
// count (CUDA's grid.sync()); only where the counter lies in the tensor.
// CHECK-LABEL: llvm.func @grid(
// CHECK: nvvm.barrier0
// CHECK: %[[T0:.*]] = arith.cmpi eq, %{{.*}}, %{{.*}} : i32
// CHECK: %[[GO:.*]] = arith.andi %[[T0]], %{{.*}} : i1
// CHECK: scf.if %[[GO]] {
// CHECK: llvm.fence syncscope("device") acq_rel
// CHECK: %[[OLD:.*]] = llvm.inline_asm has_side_effects "atom.add.release.gpu.global.u32 $0, [$1], 1;", "=r,l"
// CHECK: %[[ROUND:.*]] = arith.divui %[[OLD]], %{{.*}} : i32
// CHECK: scf.while : () -> () {
// CHECK: %[[NOW:.*]] = llvm.load %{{.*}} atomic syncscope("device") acquire {alignment = 4 : i64} : !llvm.ptr<1> -> i32
// CHECK: arith.cmpi slt
// CHECK: scf.condition
// CHECK: llvm.fence syncscope("device") acq_rel
// CHECK: nvvm.barrier0
tile.kernel @grid(%W: !tile.global<?xi32>) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %c0 = arith.constant 0 : i32
  tile.grid_sync %W[%c0] : !tile.global<?xi32>
}

// -----

// A peer view is the tensor's pointer plus the offset in bytes (views of
// views add up); its dims and guard are the tensor's (a symmetric buffer
// has the same shape everywhere), and the tensor has one pointer
// parameter however it is viewed.
// CHECK-LABEL: llvm.func @peer(
// CHECK-SAME: %[[F:[a-z0-9]+]]: !llvm.ptr<1>, %[[OFFS:[a-z0-9]+]]: !llvm.ptr<1>
// CHECK-SAME: tile.kernel_abi = #tile.kernel_abi<params = [#tile.pointer_param<arg = 0, align = 4>, #tile.pointer_param<arg = 1, align = 8>,
// CHECK: %[[OFF:.*]] = llvm.load %{{.*}} invariant {alignment = 8 : i64} : !llvm.ptr<1> -> i64
// CHECK: %[[SUM:.*]] = arith.addi %[[OFF]], %[[OFF]] : i64
// CHECK: %[[BASE:.*]] = llvm.getelementptr %[[F]][%[[SUM]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i8
// CHECK: llvm.getelementptr %[[BASE]][%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i32
// CHECK: red.release.sys.global.add.u32
// CHECK-NOT: peer_view
tile.kernel @peer(%F: !tile.global<?xi32>, %OFFS: !tile.global<?xi64>) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %off = tile.load %OFFS[%c0] : !tile.global<?xi64> -> i64
  %peer = tile.peer_view %F, %off : !tile.global<?xi32>
  %twice = tile.peer_view %peer, %off : !tile.global<?xi32>
  %o = tile.atomic add %twice[%c1], %c1 order release scope sys : !tile.global<?xi32>, i32
}

// -----

// A gather and a scatter: each row's address and guard come from its row
// number (the rows fragment's register) instead of the thread's row, so a
// row number of -1 (ult: outside the tensor) reads zeros and writes nothing.
// CHECK-LABEL: llvm.func @gather_scatter(
// CHECK-SAME: %[[IDS:[a-z0-9]+]]: !llvm.ptr<1>, %[[X:[a-z0-9]+]]: !llvm.ptr<1>, %[[Y:[a-z0-9]+]]: !llvm.ptr<1>, %{{[a-z0-9]+}}: i32, %[[XROWS:[a-z0-9]+]]: i32, %{{[a-z0-9]+}}: i32, %[[YROWS:[a-z0-9]+]]: i32
// CHECK: %[[N:.*]] = arith.select %{{.*}}, %{{.*}}, %c-1_i32 : i32
// CHECK: %[[XR:.*]] = arith.addi %{{.*}}, %[[N]] : i32
// CHECK: arith.cmpi ult, %[[XR]], %[[XROWS]] : i32
// CHECK: llvm.getelementptr %[[X]]
// CHECK: %[[YR:.*]] = arith.addi %{{.*}}, %[[N]] : i32
// CHECK: arith.cmpi ult, %[[YR]], %[[YROWS]] : i32
// CHECK: llvm.getelementptr %[[Y]]
// CHECK: st.global.v4.b32
tile.kernel @gather_scatter(%ids: !tile.global<?xi32>, %X: !tile.global<?x?xi32>, %Y: !tile.global<?x?xi32>) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %c0 = arith.constant 0 : i32
  %neg = arith.constant -1 : i32
  %rows = tile.frag.load %ids[%c0] other %neg : i32 : !tile.global<?xi32> -> !tile.frag<128x8xi32, row_per_thread, rows>
  %x = tile.frag.load %X[%c0, %c0] rows %rows : !tile.frag<128x8xi32, row_per_thread, rows> : !tile.global<?x?xi32> -> !tile.frag<128x8xi32, row_per_thread>
  tile.frag.store_global %x, %Y[%c0, %c0] rows %rows : !tile.frag<128x8xi32, row_per_thread, rows> : !tile.frag<128x8xi32, row_per_thread>, !tile.global<?x?xi32>
}

// -----

// In wgmma_acc a thread holds two rows per 64 (r and r + 8): each row's
// accesses take the row number of its own register of the rows fragment.
// CHECK-LABEL: llvm.func @gather_two_rows(
// CHECK: %[[N0:.*]] = arith.select %{{.*}}, %{{.*}}, %c-1_i32 : i32
// CHECK: %[[N1:.*]] = arith.select %{{.*}}, %{{.*}}, %c-1_i32 : i32
// CHECK: arith.addi %{{.*}}, %[[N0]] : i32
// CHECK: arith.addi %{{.*}}, %[[N1]] : i32
tile.kernel @gather_two_rows(%ids: !tile.global<?xi32>, %X: !tile.global<?x?xf32>, %Y: !tile.global<?x?xf32>) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %c0 = arith.constant 0 : i32
  %neg = arith.constant -1 : i32
  %rows = tile.frag.load %ids[%c0] other %neg : i32 : !tile.global<?xi32> -> !tile.frag<64x8xi32, wgmma_acc, rows>
  %x = tile.frag.load %X[%c0, %c0] rows %rows : !tile.frag<64x8xi32, wgmma_acc, rows> : !tile.global<?x?xf32> -> !tile.frag<64x8xf32, wgmma_acc>
  tile.frag.store_global %x, %Y[%c0, %c0] : !tile.frag<64x8xf32, wgmma_acc>, !tile.global<?x?xf32>
}

// -----

// One element into a global tensor: a st.global predicated on the index
// lying inside the tensor (as a scalar load is guarded), no branch.
// CHECK-LABEL: llvm.func @global_store(
// CHECK-SAME: %[[T:[a-z0-9]+]]: !llvm.ptr<1>, %[[DIM:[a-z0-9]+]]: i32
// CHECK: %[[IN:.*]] = arith.cmpi ult, %{{.*}}, %[[DIM]] : i32
// CHECK: %[[PTR:.*]] = llvm.getelementptr %[[T]][%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i32
// CHECK: llvm.inline_asm has_side_effects "@$0 st.global.b32 [$1], $2;", "b,l,r" %[[IN]], %[[PTR]], %{{.*}} : (i1, !llvm.ptr<1>, i32) -> ()
tile.kernel @global_store(%T: !tile.global<?xi32>) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %c7 = arith.constant 7 : i32
  %v = arith.constant 3 : i32
  tile.store %v, %T[%c7] : i32, !tile.global<?xi32>
}

// -----

// A quad_spread fragment (4 x 128: per 64 columns, 2 rows per thread) in
// and out of global memory, one element per access. Thread t's first row
// is ((lane >> 1) & 1) * 4 / 2 and its column 16 warp + lane / 4 + 8 (lane
// & 1); its registers are rows +0, +1 of that column, then of column + 64.
// CHECK-LABEL: llvm.func @quad_spread_global(
// CHECK-SAME: %[[X:[a-z0-9]+]]: !llvm.ptr<1>, %[[L:[a-z0-9]+]]: !llvm.ptr<1>, %{{[a-z0-9]+}}: i32, %{{[a-z0-9]+}}: i32, %[[ROWS:[a-z0-9]+]]: i32, %[[COLS:[a-z0-9]+]]: i32, %{{[a-z0-9]+}}: i64, %[[STRIDE:[a-z0-9]+]]: i64, %[[M:[a-z0-9]+]]: i32, %[[N:[a-z0-9]+]]: i32)
// CHECK-COUNT-4: llvm.load %{{.*}} invariant {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK: %[[T:.*]] = arith.andi %{{.*}}, %c127_i32{{(_[0-9]+)?}} : i32
// CHECK: %[[WARP:.*]] = arith.shrui %[[T]], %c5_i32{{(_[0-9]+)?}} : i32
// CHECK: %[[LANE:.*]] = arith.andi %[[T]], %c31_i32{{(_[0-9]+)?}} : i32
// CHECK: %[[QUAD:.*]] = arith.shrui %[[LANE]], %c2_i32{{(_[0-9]+)?}} : i32
// CHECK: %[[W16:.*]] = arith.muli %[[WARP]], %c16_i32{{(_[0-9]+)?}} : i32
// CHECK: %[[QROW:.*]] = arith.addi %[[W16]], %[[QUAD]] : i32
// CHECK: %[[ODD:.*]] = arith.andi %[[LANE]], %c1_i32{{(_[0-9]+)?}} : i32
// CHECK: %[[ODD8:.*]] = arith.muli %[[ODD]], %c8_i32{{(_[0-9]+)?}} : i32
// CHECK: %[[COL:.*]] = arith.addi %[[QROW]], %[[ODD8]] : i32
// CHECK: %[[LANE2:.*]] = arith.shrui %[[LANE]], %c1_i32{{(_[0-9]+)?}} : i32
// CHECK: %[[HALF:.*]] = arith.andi %[[LANE2]], %c1_i32{{(_[0-9]+)?}} : i32
// CHECK: %[[ROW:.*]] = arith.muli %[[HALF]], %c2_i32{{(_[0-9]+)?}} : i32
// CHECK: %[[C:.*]] = arith.addi %[[N]], %[[COL]] : i32
// CHECK: %[[C64:.*]] = arith.extsi %[[C]] : i32 to i64
// CHECK: %[[R0:.*]] = arith.addi %[[ROW]], %c0_i32{{(_[0-9]+)?}} : i32
// CHECK: %[[M0:.*]] = arith.addi %[[M]], %[[R0]] : i32
// CHECK: %[[IN0:.*]] = arith.cmpi ult, %[[M0]], %[[ROWS]] : i32
// CHECK: %[[M064:.*]] = arith.extsi %[[M0]] : i32 to i64
// CHECK: %[[OFF0:.*]] = arith.muli %[[M064]], %[[STRIDE]] : i64
// CHECK: %[[A0:.*]] = arith.addi %[[OFF0]], %[[C64]] : i64
// CHECK: %[[CIN:.*]] = arith.cmpi ult, %[[C]], %[[COLS]] : i32
// CHECK: %[[OK0:.*]] = arith.andi %[[IN0]], %[[CIN]] : i1
// CHECK: %[[P0:.*]] = llvm.getelementptr %[[L]][%[[A0]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
// CHECK: %[[R1:.*]] = arith.addi %[[ROW]], %c1_i32{{(_[0-9]+)?}} : i32
// CHECK: arith.addi %[[M]], %[[R1]] : i32
// CHECK: %[[C64B:.*]] = arith.addi %[[C64]], %c64_i64{{(_[0-9]+)?}} : i64
// CHECK: %[[CB:.*]] = arith.addi %[[C]], %c64_i32{{(_[0-9]+)?}} : i32
// CHECK: %[[A2:.*]] = arith.addi %[[OFF0]], %[[C64B]] : i64
// CHECK: arith.cmpi ult, %[[CB]], %[[COLS]] : i32
// CHECK: "@$0 st.global.b32 [$1], $2;", "b,l,r" %[[OK0]], %[[P0]], %{{.*}} : (i1, !llvm.ptr<1>, i32) -> ()
// CHECK-COUNT-3: "@$0 st.global.b32 [$1], $2;"
// CHECK-NOT: st.global
tile.kernel @quad_spread_global(%X: !tile.global<?x?xf32>, %L: !tile.global<?x?xf32>, %m: i32, %n: i32) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %x = tile.frag.load %X[%m, %n] : !tile.global<?x?xf32> -> !tile.frag<4x128xf32, quad_spread>
  tile.frag.store_global %x, %L[%m, %n] : !tile.frag<4x128xf32, quad_spread>, !tile.global<?x?xf32>
}

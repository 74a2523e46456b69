// RUN: tile-opt %s --tile-convert-to-nvvm --split-input-file | FileCheck %s
// Fragment math after conversion: one scalar op per register, broadcast
// registers paired with the full ones by lib/Support's layout map, the
// reductions' shuffles, the fp8 packing. The fragments are loop-carried so
// that each register is its own value.

// A row sum of a 64x8 accumulator: registers 0, 1 are row r and 2, 3 row
// r + 8; each row is then combined over the lanes xor 1 and xor 2 of the
// quad, and broadcast back when subtracted from the full fragment.
// CHECK-LABEL: llvm.func @row_sum(
// CHECK: scf.for {{.*}} iter_args(%[[R0:[a-z0-9]+]] = %{{.*}}, %[[R1:[a-z0-9]+]] = %{{.*}}, %[[R2:[a-z0-9]+]] = %{{.*}}, %[[R3:[a-z0-9]+]] = %{{.*}}) -> (f32, f32, f32, f32)
// CHECK: %[[LO:.*]] = arith.addf %[[R0]], %[[R1]] : f32
// CHECK: %[[HI:.*]] = arith.addf %[[R2]], %[[R3]] : f32
// CHECK: %[[ALL:.*]] = arith.constant -1 : i32
// CHECK: %[[CLAMP:.*]] = arith.constant 31 : i32
// CHECK: %[[ONE:.*]] = arith.constant 1 : i32
// CHECK: %[[S0:.*]] = nvvm.shfl.sync  bfly %[[ALL]], %[[LO]], %[[ONE]], %[[CLAMP]] : f32 -> f32
// CHECK: %[[LO1:.*]] = arith.addf %[[LO]], %[[S0]] : f32
// CHECK: nvvm.shfl.sync  bfly %[[ALL]], %[[HI]], %[[ONE]], %[[CLAMP]]
// CHECK: %[[HI1:.*]] = arith.addf %[[HI]], %{{.*}} : f32
// CHECK: %[[TWO:.*]] = arith.constant 2 : i32
// CHECK: nvvm.shfl.sync  bfly %[[ALL]], %[[LO1]], %[[TWO]], %[[CLAMP]]
// CHECK: %[[LO2:.*]] = arith.addf %[[LO1]], %{{.*}} : f32
// CHECK: nvvm.shfl.sync  bfly %[[ALL]], %[[HI1]], %[[TWO]], %[[CLAMP]]
// CHECK: %[[HI2:.*]] = arith.addf %[[HI1]], %{{.*}} : f32
// CHECK: %[[X0:.*]] = arith.subf %[[R0]], %[[LO2]] : f32
// CHECK: %[[X1:.*]] = arith.subf %[[R1]], %[[LO2]] : f32
// CHECK: %[[X2:.*]] = arith.subf %[[R2]], %[[HI2]] : f32
// CHECK: %[[X3:.*]] = arith.subf %[[R3]], %[[HI2]] : f32
// CHECK: scf.yield %[[X0]], %[[X1]], %[[X2]], %[[X3]]
tile.kernel @row_sum(%n: i32) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = tile.frag.zero : !tile.frag<64x8xf32, wgmma_acc>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %z) -> (!tile.frag<64x8xf32, wgmma_acc>) : i32 {
    %s = tile.frag.reduce sum %a axis 1 : !tile.frag<64x8xf32, wgmma_acc> -> !tile.frag<64x8xf32, wgmma_acc, rows>
    %x = tile.frag.binary sub %a, %s : !tile.frag<64x8xf32, wgmma_acc>, !tile.frag<64x8xf32, wgmma_acc, rows> -> !tile.frag<64x8xf32, wgmma_acc>
    scf.yield %x : !tile.frag<64x8xf32, wgmma_acc>
  }
}

// -----

// A column broadcast (a bias along N): registers 0 and 2 are column
// 2(t%4), 1 and 3 the next; a scalar on the left repeats.
// CHECK-LABEL: llvm.func @column_bias(
// CHECK-SAME: %[[ALPHA:[a-z0-9]+]]: f32
// CHECK: scf.for {{.*}} iter_args(%[[A0:[a-z0-9]+]] = %{{.*}}, %[[A1:[a-z0-9]+]] = %{{.*}}, %[[A2:[a-z0-9]+]] = %{{.*}}, %[[A3:[a-z0-9]+]] = %{{.*}}, %[[B0:[a-z0-9]+]] = %{{.*}}, %[[B1:[a-z0-9]+]] = %{{.*}})
// CHECK: %[[Y0:.*]] = arith.addf %[[A0]], %[[B0]] : f32
// CHECK: %[[Y1:.*]] = arith.addf %[[A1]], %[[B1]] : f32
// CHECK: %[[Y2:.*]] = arith.addf %[[A2]], %[[B0]] : f32
// CHECK: %[[Y3:.*]] = arith.addf %[[A3]], %[[B1]] : f32
// CHECK: arith.divf %[[ALPHA]], %[[Y0]] : f32
// CHECK: arith.divf %[[ALPHA]], %[[Y3]] : f32
tile.kernel @column_bias(%n: i32, %alpha: f32) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = tile.frag.zero : !tile.frag<64x8xf32, wgmma_acc>
  %zb = tile.frag.zero : !tile.frag<64x8xf32, wgmma_acc, cols>
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%a = %z, %b = %zb) -> (!tile.frag<64x8xf32, wgmma_acc>, !tile.frag<64x8xf32, wgmma_acc, cols>) : i32 {
    %y = tile.frag.binary add %a, %b : !tile.frag<64x8xf32, wgmma_acc>, !tile.frag<64x8xf32, wgmma_acc, cols> -> !tile.frag<64x8xf32, wgmma_acc>
    %q = tile.frag.binary div %alpha, %y : f32, !tile.frag<64x8xf32, wgmma_acc> -> !tile.frag<64x8xf32, wgmma_acc>
    scf.yield %q, %b : !tile.frag<64x8xf32, wgmma_acc>, !tile.frag<64x8xf32, wgmma_acc, cols>
  }
}

// -----

// Unary math, fma, compare and select on a row-per-thread fragment; its
// row reduction needs no shuffle (a thread holds its whole row).
// CHECK-LABEL: llvm.func @unary_and_select(
// CHECK: scf.for {{.*}} iter_args(%[[X0:[a-z0-9]+]] = %{{.*}}, %{{[a-z0-9]+}} = %{{.*}})
// CHECK: %[[ABS:.*]] = llvm.intr.fabs(%[[X0]]) : (f32) -> f32
// CHECK: llvm.intr.fabs
// CHECK: %[[LOG2E:.*]] = arith.constant 1.44269502 : f32
// CHECK: %[[T:.*]] = arith.mulf %[[ABS]], %[[LOG2E]] : f32
// CHECK: %[[E:.*]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"(%[[T]]) : (f32) -> f32
// CHECK: arith.mulf
// CHECK: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"
// CHECK: %[[E2:.*]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"(%[[E]]) : (f32) -> f32
// CHECK: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"
// CHECK: %[[RS:.*]] = llvm.call_intrinsic "llvm.nvvm.rsqrt.approx.ftz.f"(%[[E2]]) : (f32) -> f32
// CHECK: llvm.call_intrinsic "llvm.nvvm.rsqrt.approx.ftz.f"
// CHECK: %[[RC:.*]] = nvvm.rcp.approx.ftz.f %[[RS]] : f32
// CHECK: nvvm.rcp.approx.ftz.f
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[RELU:.*]] = arith.maxnumf %[[RC]], %[[ZERO]] : f32
// CHECK: arith.maxnumf
// CHECK: %[[NEG:.*]] = arith.negf %[[RELU]] : f32
// CHECK: arith.negf
// CHECK: %[[FMA:.*]] = llvm.intr.fma(%[[NEG]], %[[X0]], %[[NEG]]) : (f32, f32, f32) -> f32
// CHECK: llvm.intr.fma
// CHECK: %[[M:.*]] = arith.cmpf ogt, %[[FMA]], %[[X0]] : f32
// CHECK: arith.cmpf ogt
// CHECK: %[[S0:.*]] = arith.select %[[M]], %[[FMA]], %[[X0]] : f32
// CHECK: %[[S1:.*]] = arith.select
// CHECK: %[[SUM:.*]] = arith.addf %[[S0]], %[[S1]] : f32
// CHECK-NOT: nvvm.shfl.sync
// CHECK: arith.mulf %[[S0]], %[[SUM]] : f32
tile.kernel @unary_and_select(%n: i32) attributes {target = #tile.target<sm_100a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = tile.frag.zero : !tile.frag<128x2xf32, row_per_thread>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%x = %z) -> (!tile.frag<128x2xf32, row_per_thread>) : i32 {
    %a = tile.frag.unary abs %x : !tile.frag<128x2xf32, row_per_thread>
    %e = tile.frag.unary exp %a : !tile.frag<128x2xf32, row_per_thread>
    %e2 = tile.frag.unary exp2 %e : !tile.frag<128x2xf32, row_per_thread>
    %rs = tile.frag.unary rsqrt %e2 : !tile.frag<128x2xf32, row_per_thread>
    %rc = tile.frag.unary rcp %rs : !tile.frag<128x2xf32, row_per_thread>
    %re = tile.frag.unary relu %rc : !tile.frag<128x2xf32, row_per_thread>
    %ng = tile.frag.unary neg %re : !tile.frag<128x2xf32, row_per_thread>
    %f = tile.frag.fma %ng, %x, %ng : !tile.frag<128x2xf32, row_per_thread>, !tile.frag<128x2xf32, row_per_thread>, !tile.frag<128x2xf32, row_per_thread> -> !tile.frag<128x2xf32, row_per_thread>
    %m = tile.frag.cmp gt %f, %x : !tile.frag<128x2xf32, row_per_thread>, !tile.frag<128x2xf32, row_per_thread> -> !tile.frag<128x2xi1, row_per_thread>
    %s = tile.frag.select %m, %f, %x : !tile.frag<128x2xi1, row_per_thread>, !tile.frag<128x2xf32, row_per_thread>, !tile.frag<128x2xf32, row_per_thread> -> !tile.frag<128x2xf32, row_per_thread>
    %sum = tile.frag.reduce sum %s axis 1 : !tile.frag<128x2xf32, row_per_thread> -> !tile.frag<128x2xf32, row_per_thread, rows>
    %y = tile.frag.binary mul %s, %sum : !tile.frag<128x2xf32, row_per_thread>, !tile.frag<128x2xf32, row_per_thread, rows> -> !tile.frag<128x2xf32, row_per_thread>
    scf.yield %y : !tile.frag<128x2xf32, row_per_thread>
  }
}

// -----

// f32 -> e4m3 in pairs: the first register is operand b (the low byte, the
// vector's element 0), so it is stored first; the fp8 values are i8 and the
// store writes each row's pair as one vector<2xi8>. A broadcast fragment
// is stored by repeating its registers: 4 stores of each 64x16 fragment.
// CHECK-LABEL: llvm.func @fp8_store(
// CHECK: scf.for {{.*}} iter_args(%[[A0:[a-z0-9]+]] = %{{.*}}, %[[A1:[a-z0-9]+]] = %{{.*}}, %[[A2:[a-z0-9]+]] = %{{.*}}, %[[A3:[a-z0-9]+]] = %{{.*}}, %{{[a-z0-9]+}} = %{{.*}}, %{{[a-z0-9]+}} = %{{.*}}, %{{[a-z0-9]+}} = %{{.*}}, %{{[a-z0-9]+}} = %{{.*}}, %[[C0:[a-z0-9]+]] = %{{.*}}, %[[C1:[a-z0-9]+]] = %{{.*}}, %{{[a-z0-9]+}} = %{{.*}}, %{{[a-z0-9]+}} = %{{.*}})
// CHECK: %[[P:.*]] = nvvm.convert.f32x2.to.f8x2 %[[A1]], %[[A0]] {rnd = #nvvm.fp_rnd_mode<rn>, sat = #nvvm.sat_mode<satfinite>} : vector<2xi8>(f8E4M3FN)
// CHECK: %[[Q0:.*]] = llvm.extractelement %[[P]][%{{.*}} : i32] : vector<2xi8>
// CHECK: %[[Q1:.*]] = llvm.extractelement %[[P]][%{{.*}} : i32] : vector<2xi8>
// CHECK: nvvm.convert.f32x2.to.f8x2 %[[A3]], %[[A2]] {{.*}} : vector<2xi8>(f8E4M3FN)
// CHECK: nvvm.convert.f32x2.to.f8x2 %[[C1]], %[[C0]] {{.*}} : vector<2xi8>(f8E5M2)
// CHECK: %[[V:.*]] = llvm.insertelement %[[Q0]], %{{.*}}[%{{.*}} : i32] : vector<2xi8>
// CHECK: llvm.insertelement %[[Q1]], %[[V]][%{{.*}} : i32] : vector<2xi8>
// CHECK-COUNT-8: llvm.store %{{.*}}, %{{.*}} {alignment = 2 : i64} : vector<2xi8>, !llvm.ptr<3>
// CHECK-NOT: llvm.store
tile.kernel @fp8_store(%n: i32) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %d = tile.smem_alloc {offset = 0 : i64} : !tile.smem<64x16xf8E4M3FN, none>
  %e = tile.smem_alloc {offset = 1024 : i64} : !tile.smem<64x16xf8E5M2, none>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = tile.frag.zero : !tile.frag<64x16xf32, wgmma_acc>
  %zc = tile.frag.zero : !tile.frag<64x16xf32, wgmma_acc, cols>
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%a = %z, %c = %zc) -> (!tile.frag<64x16xf32, wgmma_acc>, !tile.frag<64x16xf32, wgmma_acc, cols>) : i32 {
    %q = tile.frag.cast %a : !tile.frag<64x16xf32, wgmma_acc> -> !tile.frag<64x16xf8E4M3FN, wgmma_acc>
    %qc = tile.frag.cast %c : !tile.frag<64x16xf32, wgmma_acc, cols> -> !tile.frag<64x16xf8E5M2, wgmma_acc, cols>
    tile.frag.store %q, %d[%c0] : !tile.frag<64x16xf8E4M3FN, wgmma_acc>, !tile.smem<64x16xf8E4M3FN, none>
    tile.frag.store %qc, %e[%c0] : !tile.frag<64x16xf8E5M2, wgmma_acc, cols>, !tile.smem<64x16xf8E5M2, none>
    scf.yield %a, %c : !tile.frag<64x16xf32, wgmma_acc>, !tile.frag<64x16xf32, wgmma_acc, cols>
  }
}

// -----

// Row and column indices: the thread's offset (cols: 2 (t % 4); rows:
// 16 (t / 32) + (t % 32) / 4) plus thread 0's line of each register
// (cols 0, 1, 8, 9; rows 0, 8), converted to f32.
// CHECK-LABEL: llvm.func @indices(
// CHECK: %[[C1:.*]] = arith.constant 1 : i32
// CHECK: %[[COL1:.*]] = arith.addi %[[COLS:.*]], %[[C1]] : i32
// CHECK: arith.uitofp %[[COL1]] : i32 to f32
// CHECK: %[[C8:.*]] = arith.constant 8 : i32
// CHECK: %[[COL8:.*]] = arith.addi %[[COLS]], %[[C8]] : i32
// CHECK: arith.uitofp %[[COL8]] : i32 to f32
// CHECK: %[[C9:.*]] = arith.constant 9 : i32
// CHECK: arith.addi %[[COLS]], %[[C9]] : i32
// CHECK: %[[R8:.*]] = arith.constant 8 : i32
// CHECK: %[[ROW8:.*]] = arith.addi %{{.*}}, %[[R8]] : i32
// CHECK: arith.uitofp %[[ROW8]] : i32 to f32
tile.kernel @indices() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %c = tile.frag.index : !tile.frag<64x16xf32, wgmma_acc, cols>
  %r = tile.frag.index : !tile.frag<64x16xf32, wgmma_acc, rows>
}

// With align = 8 a wgmma_acc column rounds to its 8-column group, the same
// for every thread: constants, no thread arithmetic. Rows (a thread's rows
// are 8 apart, its warp's 16 rows span two groups) keep the computation.
// CHECK-LABEL: @aligned_indices
// CHECK-DAG: arith.constant 0.000000e+00 : f32
// CHECK-DAG: arith.constant 8.000000e+00 : f32
// CHECK: arith.divui
// CHECK: arith.muli
// CHECK: arith.uitofp
tile.kernel @aligned_indices() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %c = tile.frag.index {align = 8 : i64} : !tile.frag<64x16xf32, wgmma_acc, cols>
  %r = tile.frag.index {align = 8 : i64} : !tile.frag<64x16xf32, wgmma_acc, rows>
}

// -----

// groups 2 on a 64x16 accumulator: per (row bit, group) a thread adds its
// pair (registers 0, 1: row r, group 0; 4, 5: row r, group 1; 2, 3 and 6, 7
// row r + 8), then the quad halves the list twice. Lane bit 0 keeps the row
// r + 8 values (select) and sends the row r ones (the opposite select) to
// lane ^ 1, which adds them: 2 shuffles with mask 1; then lane bit 1 keeps
// group 1 and trades group 0 with lane ^ 2: 1 shuffle with mask 2. Each
// thread ends with one value, (group ((lane >> 1) & 1), row 16 warp +
// lane / 4 + 8 (lane & 1)) of the 2x64 quad_spread result.
// CHECK-LABEL: llvm.func @grouped_sum_2(
// CHECK: scf.for {{.*}} iter_args(%[[A0:[a-z0-9]+]] = %{{.*}}, %[[A1:[a-z0-9]+]] = %{{.*}}, %[[A2:[a-z0-9]+]] = %{{.*}}, %[[A3:[a-z0-9]+]] = %{{.*}}, %[[A4:[a-z0-9]+]] = %{{.*}}, %[[A5:[a-z0-9]+]] = %{{.*}}, %[[A6:[a-z0-9]+]] = %{{.*}}, %[[A7:[a-z0-9]+]] = %{{.*}}, %{{[a-z0-9]+}} = %{{.*}}) -> (f32, f32, f32, f32, f32, f32, f32, f32, f32)
// CHECK: %[[LANE:.*]] = arith.andi %{{.*}}, %c31_i32 : i32
// CHECK: %[[ALL:.*]] = arith.constant -1 : i32
// CHECK: %[[CLAMP:.*]] = arith.constant 31 : i32
// CHECK: %[[R0G0:.*]] = arith.addf %[[A0]], %[[A1]] : f32
// CHECK: %[[R0G1:.*]] = arith.addf %[[A4]], %[[A5]] : f32
// CHECK: %[[R8G0:.*]] = arith.addf %[[A2]], %[[A3]] : f32
// CHECK: %[[R8G1:.*]] = arith.addf %[[A6]], %[[A7]] : f32
// CHECK: %[[BIT0:.*]] = arith.andi %[[LANE]], %{{.*}} : i32
// CHECK: %[[UP0:.*]] = arith.cmpi ne, %[[BIT0]], %{{.*}} : i32
// CHECK: %[[K0:.*]] = arith.select %[[UP0]], %[[R8G0]], %[[R0G0]] : f32
// CHECK: %[[S0:.*]] = arith.select %[[UP0]], %[[R0G0]], %[[R8G0]] : f32
// CHECK: %[[ONE:.*]] = arith.constant 1 : i32
// CHECK: %[[X0:.*]] = nvvm.shfl.sync  bfly %[[ALL]], %[[S0]], %[[ONE]], %[[CLAMP]] : f32 -> f32
// CHECK: %[[G0:.*]] = arith.addf %[[K0]], %[[X0]] : f32
// CHECK: %[[K1:.*]] = arith.select %[[UP0]], %[[R8G1]], %[[R0G1]] : f32
// CHECK: %[[S1:.*]] = arith.select %[[UP0]], %[[R0G1]], %[[R8G1]] : f32
// CHECK: %[[X1:.*]] = nvvm.shfl.sync  bfly %[[ALL]], %[[S1]], %{{.*}}, %[[CLAMP]] : f32 -> f32
// CHECK: %[[G1:.*]] = arith.addf %[[K1]], %[[X1]] : f32
// CHECK: %[[TWO:.*]] = arith.constant 2 : i32
// CHECK: %[[BIT1:.*]] = arith.andi %[[LANE]], %[[TWO]] : i32
// CHECK: %[[UP1:.*]] = arith.cmpi ne, %[[BIT1]], %{{.*}} : i32
// CHECK: %[[K2:.*]] = arith.select %[[UP1]], %[[G1]], %[[G0]] : f32
// CHECK: %[[S2:.*]] = arith.select %[[UP1]], %[[G0]], %[[G1]] : f32
// CHECK: %[[TWO2:.*]] = arith.constant 2 : i32
// CHECK: %[[X2:.*]] = nvvm.shfl.sync  bfly %[[ALL]], %[[S2]], %[[TWO2]], %[[CLAMP]] : f32 -> f32
// CHECK: %[[L:.*]] = arith.addf %[[K2]], %[[X2]] : f32
// CHECK-NOT: nvvm.shfl.sync
// CHECK: scf.yield %[[A0]], %[[A1]], %[[A2]], %[[A3]], %[[A4]], %[[A5]], %[[A6]], %[[A7]], %[[L]] :
tile.kernel @grouped_sum_2(%n: i32) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = tile.frag.zero : !tile.frag<64x16xf32, wgmma_acc>
  %zl = tile.frag.zero : !tile.frag<2x64xf32, quad_spread>
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%a = %z, %l = %zl) -> (!tile.frag<64x16xf32, wgmma_acc>, !tile.frag<2x64xf32, quad_spread>) : i32 {
    %s = tile.frag.reduce sum %a axis 1 groups 2 : !tile.frag<64x16xf32, wgmma_acc> -> !tile.frag<2x64xf32, quad_spread>
    scf.yield %a, %s : !tile.frag<64x16xf32, wgmma_acc>, !tile.frag<2x64xf32, quad_spread>
  }
}

// -----

// max with groups 2: the same tree and halving steps, every combine a
// maxnumf (the grouped butterfly takes the reduction's kind throughout).
// CHECK-LABEL: llvm.func @grouped_max_2(
// CHECK-COUNT-4: arith.maxnumf
// CHECK: nvvm.shfl.sync  bfly
// CHECK-NEXT: arith.maxnumf
// CHECK: nvvm.shfl.sync  bfly
// CHECK-NEXT: arith.maxnumf
// CHECK: nvvm.shfl.sync  bfly
// CHECK-NEXT: arith.maxnumf
// CHECK-NOT: arith.addf
// CHECK: llvm.return
tile.kernel @grouped_max_2(%n: i32) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = tile.frag.zero : !tile.frag<64x16xf32, wgmma_acc>
  %zl = tile.frag.zero : !tile.frag<2x64xf32, quad_spread>
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%a = %z, %l = %zl) -> (!tile.frag<64x16xf32, wgmma_acc>, !tile.frag<2x64xf32, quad_spread>) : i32 {
    %s = tile.frag.reduce max %a axis 1 groups 2 : !tile.frag<64x16xf32, wgmma_acc> -> !tile.frag<2x64xf32, quad_spread>
    scf.yield %a, %s : !tile.frag<64x16xf32, wgmma_acc>, !tile.frag<2x64xf32, quad_spread>
  }
}

// -----

// groups 4 on 64x32: 8 partial sums per thread, 4 shuffles with mask 1 and
// 2 with mask 2 (four row sums of its 8-column slices take 16 and leave
// every lane of the quad with all 8 results); the thread keeps groups
// 2 ((lane >> 1) & 1) and 2 ((lane >> 1) & 1) + 1.
// CHECK-LABEL: llvm.func @grouped_sum_4(
// CHECK: scf.for
// CHECK-COUNT-4: nvvm.shfl.sync  bfly %{{.*}}, %{{.*}}, %c1_i32_{{[0-9]+}}, %{{.*}} : f32 -> f32
// CHECK: %[[X0:.*]] = nvvm.shfl.sync  bfly %{{.*}}, %{{.*}}, %c2_i32_{{[0-9]+}}, %{{.*}} : f32 -> f32
// CHECK-NEXT: %[[L0:.*]] = arith.addf %{{.*}}, %[[X0]] : f32
// CHECK: %[[X1:.*]] = nvvm.shfl.sync  bfly %{{.*}}, %{{.*}}, %c2_i32_{{[0-9]+}}, %{{.*}} : f32 -> f32
// CHECK-NEXT: %[[L1:.*]] = arith.addf %{{.*}}, %[[X1]] : f32
// CHECK-NOT: nvvm.shfl.sync
// CHECK: scf.yield {{.*}}, %[[L0]], %[[L1]] : f32
tile.kernel @grouped_sum_4(%n: i32) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = tile.frag.zero : !tile.frag<64x32xf32, wgmma_acc>
  %zl = tile.frag.zero : !tile.frag<4x64xf32, quad_spread>
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%a = %z, %l = %zl) -> (!tile.frag<64x32xf32, wgmma_acc>, !tile.frag<4x64xf32, quad_spread>) : i32 {
    %s = tile.frag.reduce sum %a axis 1 groups 4 : !tile.frag<64x32xf32, wgmma_acc> -> !tile.frag<4x64xf32, quad_spread>
    scf.yield %a, %s : !tile.frag<64x32xf32, wgmma_acc>, !tile.frag<4x64xf32, quad_spread>
  }
}

// -----

// tile.frag.insert is a choice of registers: columns 8 to 15 of a 64x16
// accumulator are its registers 4 to 7, which the part's 4 replace; no
// instruction.
// CHECK-LABEL: llvm.func @insert(
// CHECK: scf.for {{.*}} iter_args(%[[W0:[a-z0-9]+]] = %{{.*}}, %[[W1:[a-z0-9]+]] = %{{.*}}, %[[W2:[a-z0-9]+]] = %{{.*}}, %[[W3:[a-z0-9]+]] = %{{.*}}, %{{[a-z0-9]+}} = %{{.*}}, %{{[a-z0-9]+}} = %{{.*}}, %{{[a-z0-9]+}} = %{{.*}}, %{{[a-z0-9]+}} = %{{.*}}, %[[P0:[a-z0-9]+]] = %{{.*}}, %[[P1:[a-z0-9]+]] = %{{.*}}, %[[P2:[a-z0-9]+]] = %{{.*}}, %[[P3:[a-z0-9]+]] = %{{.*}})
// CHECK-NEXT: scf.yield %[[W0]], %[[W1]], %[[W2]], %[[W3]], %[[P0]], %[[P1]], %[[P2]], %[[P3]], %[[P0]], %[[P1]], %[[P2]], %[[P3]] :
tile.kernel @insert(%n: i32) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = tile.frag.zero : !tile.frag<64x16xf32, wgmma_acc>
  %zp = tile.frag.zero : !tile.frag<64x8xf32, wgmma_acc>
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%w = %z, %p = %zp) -> (!tile.frag<64x16xf32, wgmma_acc>, !tile.frag<64x8xf32, wgmma_acc>) : i32 {
    %x = tile.frag.insert %p into %w cols 8 : !tile.frag<64x8xf32, wgmma_acc> into !tile.frag<64x16xf32, wgmma_acc>
    scf.yield %x, %p : !tile.frag<64x16xf32, wgmma_acc>, !tile.frag<64x8xf32, wgmma_acc>
  }
}

// -----

// quad_spread indices: rows ((lane >> 1) & 1) * 2 + {0, 1} (4 rows: two
// per thread), columns 16 warp + lane / 4 + 8 (lane & 1) + {0, 64}.
// CHECK-LABEL: llvm.func @quad_spread_indices(
// CHECK: %[[WARP:.*]] = arith.shrui %[[T:.*]], %c5_i32 : i32
// CHECK: %[[LANE:.*]] = arith.andi %[[T]], %c31_i32 : i32
// CHECK: %[[QUAD:.*]] = arith.shrui %[[LANE]], %c2_i32 : i32
// CHECK: %[[W16:.*]] = arith.muli %[[WARP]], %c16_i32 : i32
// CHECK: %[[QROW:.*]] = arith.addi %[[W16]], %[[QUAD]] : i32
// CHECK: %[[ODD:.*]] = arith.andi %[[LANE]], %c1_i32 : i32
// CHECK: %[[ODD8:.*]] = arith.muli %[[ODD]], %c8_i32 : i32
// CHECK: arith.addi %[[QROW]], %[[ODD8]] : i32
// CHECK: %[[LANE2:.*]] = arith.shrui %[[LANE]], %{{.*}} : i32
// CHECK: %[[HALF:.*]] = arith.andi %[[LANE2]], %{{.*}} : i32
// CHECK: %[[ROW:.*]] = arith.muli %[[HALF]], %{{.*}} : i32
// CHECK: %[[ROW0:.*]] = arith.addi %[[ROW]], %c0_i32 : i32
// CHECK: arith.uitofp %[[ROW0]] : i32 to f32
// CHECK: %[[ROW1:.*]] = arith.addi %[[ROW]], %{{.*}} : i32
// CHECK: arith.uitofp %[[ROW1]] : i32 to f32
// CHECK: %[[ODD8B:.*]] = arith.muli %{{.*}}, %c8_i32_{{[0-9]+}} : i32
// CHECK: %[[COL:.*]] = arith.addi %{{.*}}, %[[ODD8B]] : i32
// CHECK: %[[COL0:.*]] = arith.addi %[[COL]], %c0_i32_{{[0-9]+}} : i32
// CHECK: arith.uitofp %[[COL0]] : i32 to f32
// CHECK: %[[C64:.*]] = arith.constant 64 : i32
// CHECK: %[[COL64:.*]] = arith.addi %[[COL]], %[[C64]] : i32
// CHECK: arith.uitofp %[[COL64]] : i32 to f32
tile.kernel @quad_spread_indices() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %r = tile.frag.index : !tile.frag<4x128xf32, quad_spread, rows>
  %c = tile.frag.index : !tile.frag<4x128xf32, quad_spread, cols>
}

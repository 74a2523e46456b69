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

// RUN: tile-opt %s --tile-unroll-loops --split-input-file | FileCheck %s

// A runtime trip count: the main loop steps by 2 and runs the body twice
// (the second copy at %k + 1), the carried value threaded through both; a
// remainder loop runs what is left, from the main loop's end and value. The
// bound is clamped to the start first (a loop whose bound lies below its
// start runs nothing; the unroller's unsigned trip count would run the
// remainder). The marker is gone.
// CHECK-LABEL: llvm.func @runtime_count(
// CHECK-SAME: %[[N0:[a-z0-9]+]]: i32
// CHECK: %[[N:.*]] = arith.maxsi %[[N0]], %{{.*}} : i32
// CHECK: %[[MAIN:.*]] = scf.for %[[K:.*]] = %{{.*}} to %[[END:.*]] step %{{.*}} iter_args(%[[A:.*]] = %{{.*}}) -> (i32) : i32 {
// CHECK-NEXT: nvvm.mbarrier.try_wait.parity
// CHECK-NEXT: %[[A1:.*]] = arith.addi %[[A]], %[[K]] : i32
// CHECK: %[[K1:.*]] = arith.addi %[[K]], %{{.*}} : i32
// CHECK-NEXT: nvvm.mbarrier.try_wait.parity
// CHECK-NEXT: %[[A2:.*]] = arith.addi %[[A1]], %[[K1]] : i32
// CHECK-NEXT: scf.yield %[[A2]] : i32
// CHECK: scf.for %{{.*}} = %[[END]] to %[[N]] step %{{.*}} iter_args(%{{.*}} = %[[MAIN]]) -> (i32) : i32 {
// CHECK-NOT: tile.unroll
llvm.func @runtime_count(%n: i32, %bar: !llvm.ptr<3>, %phase: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%a = %c0) -> (i32) : i32 {
    nvvm.mbarrier.try_wait.parity %bar, %phase, %c1 : !llvm.ptr<3>, i32, i32
    %next = arith.addi %a, %k : i32
    scf.yield %next : i32
  } {tile.unroll = 2 : i64}
  llvm.return %r : i32
}

// -----

// A constant trip count that the factor divides: one loop of 2 iterations
// with 4 copies of the body, no remainder.
// CHECK-LABEL: llvm.func @constant_count(
// CHECK: scf.for
// CHECK-COUNT-4: llvm.store
// CHECK-NOT: scf.for
llvm.func @constant_count(%p: !llvm.ptr<3>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c8 = arith.constant 8 : i32
  scf.for %k = %c0 to %c8 step %c1 : i32 {
    llvm.store %k, %p : i32, !llvm.ptr<3>
  } {tile.unroll = 4 : i64}
  llvm.return
}

// -----

// Loops without the marker are left alone.
// CHECK-LABEL: llvm.func @unmarked(
// CHECK: scf.for
// CHECK-COUNT-1: llvm.store
// CHECK-NOT: llvm.store
llvm.func @unmarked(%p: !llvm.ptr<3>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %k = %c0 to %n step %c1 : i32 {
    llvm.store %k, %p : i32, !llvm.ptr<3>
  }
  llvm.return
}

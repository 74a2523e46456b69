// RUN: tile-opt %s --tile-hoist-innermost-invariants --split-input-file | FileCheck %s

// An innermost loop: the address arithmetic that does not depend on the
// induction variable moves in front of it; the barrier wait (a side effect)
// and the use of %k stay inside.
// CHECK-LABEL: llvm.func @innermost(
// CHECK: %[[BASE:.*]] = llvm.ptrtoint %{{.*}} : !llvm.ptr<3> to i32
// CHECK-NEXT: %[[ADDR:.*]] = arith.addi %[[BASE]], %{{.*}} : i32
// CHECK-NEXT: scf.for %[[K:.*]] =
// CHECK-NEXT: nvvm.mbarrier.try_wait.parity
// CHECK-NEXT: %[[AT:.*]] = arith.addi %[[ADDR]], %[[K]] : i32
// CHECK-NEXT: llvm.store %{{.*}}, %{{.*}} : i32, !llvm.ptr<3>
llvm.func @innermost(%smem: !llvm.ptr<3>, %bar: !llvm.ptr<3>, %n: i32, %phase: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c1024 = arith.constant 1024 : i32
  scf.for %k = %c0 to %n step %c1 : i32 {
    %base = llvm.ptrtoint %smem : !llvm.ptr<3> to i32
    %addr = arith.addi %base, %c1024 : i32
    nvvm.mbarrier.try_wait.parity %bar, %phase, %c1024 : !llvm.ptr<3>, i32, i32
    %at = arith.addi %addr, %k : i32
    llvm.store %at, %smem : i32, !llvm.ptr<3>
  }
  llvm.return
}

// -----

// Nested loops: only the inner loop is hoisted from. Its invariant (which
// depends on the outer %i) lands in the outer body; the outer loop's own
// invariant stays where it is (hoisting out of outer loops made NVPTX's
// straight-line strength reduction slow).
// CHECK-LABEL: llvm.func @nested(
// CHECK: scf.for %[[I:.*]] =
// CHECK-NEXT: %[[OUTER:.*]] = arith.muli %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: %[[ROW:.*]] = arith.muli %[[I]], %{{.*}} : i32
// CHECK-NEXT: scf.for %[[J:.*]] =
// CHECK-NEXT: %[[AT:.*]] = arith.addi %[[ROW]], %[[J]] : i32
// CHECK-NEXT: llvm.store %[[AT]], %{{.*}} : i32, !llvm.ptr<3>
llvm.func @nested(%smem: !llvm.ptr<3>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  scf.for %i = %c0 to %n step %c1 : i32 {
    %outer = arith.muli %n, %c64 : i32
    scf.for %j = %c0 to %n step %c1 : i32 {
      %row = arith.muli %i, %c64 : i32
      %at = arith.addi %row, %j : i32
      llvm.store %at, %smem : i32, !llvm.ptr<3>
    }
    llvm.store %outer, %smem : i32, !llvm.ptr<3>
  }
  llvm.return
}

// -----

// Loads stay in the loop even when their address is invariant: only ops
// without memory effects move (the loop's own store changes the value here),
// and invariant loads from a guarded address.
// CHECK-LABEL: llvm.func @loads_stay(
// CHECK: scf.for
// CHECK-NEXT: llvm.load
// CHECK-NEXT: llvm.store
llvm.func @loads_stay(%smem: !llvm.ptr<3>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %k = %c0 to %n step %c1 : i32 {
    %v = llvm.load %smem : !llvm.ptr<3> -> i32
    llvm.store %v, %smem : i32, !llvm.ptr<3>
  }
  llvm.return
}

// -----

// An invariant load (tile.load's `nc`: the kernel never writes the tensor)
// from a guarded address (a select with __tile_zeros) reads the same value
// on every iteration and valid memory even before a loop of no iteration:
// it moves out, and what depends only on it follows. An invariant load from
// an unguarded address, and one inside a branch of the body, stay.
// CHECK-LABEL: llvm.func @invariant_loads(
// CHECK: %[[SAFE:.*]] = llvm.select
// CHECK-NEXT: %[[V:.*]] = llvm.load %[[SAFE]] invariant : !llvm.ptr<1> -> i32
// CHECK-NEXT: %[[W:.*]] = arith.addi %[[V]], %{{.*}} : i32
// CHECK-NEXT: scf.for
// CHECK-NEXT: llvm.load %{{.*}} invariant : !llvm.ptr<1> -> i32
// CHECK-NEXT: scf.if
// CHECK-NEXT: llvm.load %[[SAFE]] invariant : !llvm.ptr<1> -> i32
llvm.func @invariant_loads(%g: !llvm.ptr<1>, %zeros: !llvm.ptr<1>, %in: i1, %smem: !llvm.ptr<3>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %safe = llvm.select %in, %g, %zeros : i1, !llvm.ptr<1>
  scf.for %k = %c0 to %n step %c1 : i32 {
    %v = llvm.load %safe invariant : !llvm.ptr<1> -> i32
    %w = arith.addi %v, %c1 : i32
    %u = llvm.load %g invariant : !llvm.ptr<1> -> i32
    scf.if %in {
      %x = llvm.load %safe invariant : !llvm.ptr<1> -> i32
      llvm.store %x, %smem : i32, !llvm.ptr<3>
    }
    llvm.store %w, %smem : i32, !llvm.ptr<3>
    llvm.store %u, %smem : i32, !llvm.ptr<3>
  }
  llvm.return
}

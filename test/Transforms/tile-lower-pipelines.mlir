// RUN: tile-opt %s --tile-lower-pipelines --allow-unregistered-dialect | FileCheck %s

// A pipeline state is one i32: stage in bits 0..30, phase in bit 31. Init
// puts the phase bit; stage masks; phase shifts; advance adds 1 or, at the
// last stage, wraps to stage 0 and flips the phase in one add.
// CHECK-LABEL: tile.kernel @ring
// CHECK: %[[INIT:.*]] = arith.constant -2147483648 : i32
// CHECK: %[[R:.*]] = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[PS:.*]] = %[[INIT]]) -> (i32) : i32 {
// CHECK: %[[MASK:.*]] = arith.constant 2147483647 : i32
// CHECK: %[[S:.*]] = arith.andi %[[PS]], %[[MASK]] : i32
// CHECK: %[[C31:.*]] = arith.constant 31 : i32
// CHECK: %[[PH:.*]] = arith.shrui %[[PS]], %[[C31]] : i32
// CHECK: "use"(%[[S]], %[[PH]]) : (i32, i32) -> ()
// CHECK: %[[S2:.*]] = arith.andi %[[PS]], %{{.*}} : i32
// CHECK: %[[NEXT:.*]] = arith.addi %[[S2]], %{{.*}} : i32
// CHECK: %[[C4:.*]] = arith.constant 4 : i32
// CHECK: %[[WRAP:.*]] = arith.cmpi eq, %[[NEXT]], %[[C4]] : i32
// CHECK: %[[FLIP:.*]] = arith.constant 2147483645 : i32
// CHECK: %[[WRAPPED:.*]] = arith.addi %[[PS]], %[[FLIP]] : i32
// CHECK: %[[PLAIN:.*]] = arith.addi %[[PS]], %{{.*}} : i32
// CHECK: %[[ADV:.*]] = arith.select %[[WRAP]], %[[WRAPPED]], %[[PLAIN]] : i32
// CHECK: scf.yield %[[ADV]] : i32
tile.kernel @ring() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c8 = arith.constant 8 : i32
  %ps0 = tile.pipeline.init phase 1 : !tile.pipeline<4>
  %r = scf.for %i = %c0 to %c8 step %c1 iter_args(%ps = %ps0) -> (!tile.pipeline<4>) : i32 {
    %s = tile.pipeline.stage %ps : !tile.pipeline<4>
    %ph = tile.pipeline.phase %ps : !tile.pipeline<4>
    "use"(%s, %ph) : (i32, i32) -> ()
    %next = tile.pipeline.advance %ps : !tile.pipeline<4>
    scf.yield %next : !tile.pipeline<4>
  }
}

// A ring of one: the stage is always 0 and advance only flips the phase.
// CHECK-LABEL: tile.kernel @single
// CHECK: scf.for {{.*}} iter_args(%[[PS:.*]] = %{{.*}}) -> (i32)
// CHECK: %[[S:.*]] = arith.constant 0 : i32
// CHECK: "use"(%[[S]])
// CHECK: %[[BIT:.*]] = arith.constant -2147483648 : i32
// CHECK: %[[N:.*]] = arith.xori %[[PS]], %[[BIT]] : i32
// CHECK: scf.yield %[[N]] : i32
tile.kernel @single() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c8 = arith.constant 8 : i32
  %ps0 = tile.pipeline.init phase 0 : !tile.pipeline<1>
  %r = scf.for %i = %c0 to %c8 step %c1 iter_args(%ps = %ps0) -> (!tile.pipeline<1>) : i32 {
    %s = tile.pipeline.stage %ps : !tile.pipeline<1>
    "use"(%s) : (i32) -> ()
    %next = tile.pipeline.advance %ps : !tile.pipeline<1>
    scf.yield %next : !tile.pipeline<1>
  }
}

// RUN: tile-opt %s --tile-convert-to-nvvm --split-input-file | FileCheck %s

// The tile count of an M x N problem is the product of the block counts,
// each extent rounded up to whole blocks.
// CHECK-LABEL: llvm.func @count_2d(
// CHECK-SAME: %[[M:[a-z0-9]+]]: i32, %[[N:[a-z0-9]+]]: i32
// CHECK: %[[C128:.*]] = arith.constant 128 : i32
// CHECK: %[[MT:.*]] = arith.ceildivsi %[[M]], %[[C128]] : i32
// CHECK: %[[C256:.*]] = arith.constant 256 : i32
// CHECK: %[[NT:.*]] = arith.ceildivsi %[[N]], %[[C256]] : i32
// CHECK: arith.muli %[[MT]], %[[NT]] : i32
tile.kernel @count_2d(%M: i32, %N: i32) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>, arg_names = ["M", "N"]} {
  %n = tile.sched.num_tiles %M, %N block [128, 256]
}

// -----

// A batch extent multiplies the count; a block size of 1 takes the extent
// as a count of blocks already (no division).
// CHECK-LABEL: llvm.func @count_3d(
// CHECK-SAME: %[[B:[a-z0-9]+]]: i32, %[[M:[a-z0-9]+]]: i32, %[[N:[a-z0-9]+]]: i32
// CHECK-NOT: arith.ceildivsi %[[B]]
// CHECK: %[[MT:.*]] = arith.ceildivsi %[[M]], %{{.*}} : i32
// CHECK: %[[BM:.*]] = arith.muli %[[B]], %[[MT]] : i32
// CHECK: %[[NT:.*]] = arith.ceildivsi %[[N]], %{{.*}} : i32
// CHECK: arith.muli %[[BM]], %[[NT]] : i32
tile.kernel @count_3d(%B: i32, %M: i32, %N: i32) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>, arg_names = ["B", "M", "N"]} {
  %n = tile.sched.num_tiles %B, %M, %N block [1, 128, 256]
}

// -----

// Grouped rasterisation of (m, n): groups of `group` block rows; in a group
// the block row varies fastest (m = first + r % rows, n = r / rows), and the
// last group has the rows that are left.
// CHECK-LABEL: llvm.func @coords_2d(
// CHECK-SAME: %[[T:[a-z0-9]+]]: i32, %[[M:[a-z0-9]+]]: i32, %[[N:[a-z0-9]+]]: i32
// CHECK: %[[MT:.*]] = arith.ceildivsi %[[M]], %{{.*}} : i32
// CHECK: %[[NT:.*]] = arith.ceildivsi %[[N]], %{{.*}} : i32
// CHECK: %[[G:.*]] = arith.constant 8 : i32
// CHECK: %[[PER:.*]] = arith.muli %[[G]], %[[NT]] : i32
// CHECK: %[[GID:.*]] = arith.divui %[[T]], %[[PER]] : i32
// CHECK: %[[FIRST:.*]] = arith.muli %[[GID]], %[[G]] : i32
// CHECK: %[[LEFT:.*]] = arith.subi %[[MT]], %[[FIRST]] : i32
// CHECK: %[[ROWS:.*]] = arith.minsi %[[LEFT]], %[[G]] : i32
// CHECK: %[[IN:.*]] = arith.remui %[[T]], %[[PER]] : i32
// CHECK: %[[R:.*]] = arith.remui %[[IN]], %[[ROWS]] : i32
// CHECK: arith.addi %[[FIRST]], %[[R]] : i32
// CHECK: arith.divui %[[IN]], %[[ROWS]] : i32
tile.kernel @coords_2d(%t: i32, %M: i32, %N: i32) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>, arg_names = ["t", "M", "N"]} {
  %mi, %ni = tile.sched.coords %t, %M, %N block [128, 256] group 8
}

// -----

// Batch-major: the batch is t / (m_tiles * n_tiles) and the groups are
// formed from the rest, within the batch. Extents counted in tiles
// (tile_coords) are used as they are.
// CHECK-LABEL: llvm.func @coords_3d(
// CHECK-SAME: %[[T:[a-z0-9]+]]: i32, %[[B:[a-z0-9]+]]: i32, %[[MT:[a-z0-9]+]]: i32, %[[NT:[a-z0-9]+]]: i32
// CHECK-NOT: arith.ceildivsi
// CHECK: %[[PB:.*]] = arith.muli %[[MT]], %[[NT]] : i32
// CHECK: arith.divui %[[T]], %[[PB]] : i32
// CHECK: %[[R:.*]] = arith.remui %[[T]], %[[PB]] : i32
// CHECK: %[[G:.*]] = arith.constant 4 : i32
// CHECK: %[[PER:.*]] = arith.muli %[[G]], %[[NT]] : i32
// CHECK: arith.divui %[[R]], %[[PER]] : i32
// CHECK: arith.remui %[[R]], %[[PER]] : i32
tile.kernel @coords_3d(%t: i32, %B: i32, %mt: i32, %nt: i32) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>, arg_names = ["t", "B", "mt", "nt"]} {
  %b, %mi, %ni = tile.sched.coords %t, %B, %mt, %nt block [1, 1, 1] group 4
}

// -----

// One batch (a constant extent of 1, as a spec's SPLIT_K = 1 gives): the
// batch index is 0 and the tile index goes to the 2-D walk as it is, with
// no division by the tiles per batch.
// CHECK-LABEL: llvm.func @coords_one_batch(
// CHECK-SAME: %[[T:[a-z0-9]+]]: i32, %[[MT:[a-z0-9]+]]: i32, %[[NT:[a-z0-9]+]]: i32
// CHECK-NOT: arith.muli %[[MT]], %[[NT]] : i32
// CHECK: %[[G:.*]] = arith.constant 4 : i32
// CHECK-NOT: arith.muli %[[MT]], %[[NT]] : i32
// CHECK: %[[PER:.*]] = arith.muli %[[G]], %[[NT]] : i32
// CHECK: arith.divui %[[T]], %[[PER]] : i32
// CHECK: arith.remui %[[T]], %[[PER]] : i32
tile.kernel @coords_one_batch(%t: i32, %mt: i32, %nt: i32) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>, arg_names = ["t", "mt", "nt"]} {
  %one = arith.constant 1 : i32
  %b, %mi, %ni = tile.sched.coords %t, %one, %mt, %nt block [1, 1, 1] group 4
}

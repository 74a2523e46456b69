// RUN: tile-opt %s --tile-assign-named-barriers | FileCheck %s

// Warpgroup syncs get base id 1 (the warpgroup id is added when lowered);
// CTA and cluster syncs keep barrier 0.
// CHECK-LABEL: tile.kernel @ids
// CHECK: tile.sync warpgroup {barrier_id = 1 : i64}
// CHECK: tile.sync cta{{$}}
// CHECK: tile.sync warpgroup {barrier_id = 1 : i64}
tile.kernel @ids() attributes {target = #tile.target<sm_90a>, warpgroups = 2 : i64, grid = #tile.grid_policy<persistent>} {
  tile.role "a" warpgroups [0] {
    tile.sync warpgroup
  }
  tile.sync cta
  tile.role "b" warpgroups [1] {
    tile.sync warpgroup
  }
}


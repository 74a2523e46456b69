// RUN: tile-opt %s --tile-warp-specialize --split-input-file --verify-diagnostics --allow-unregistered-dialect | FileCheck %s

// Roles become one if/else chain on the warpgroup id with setmaxnreg; warps
// and single-thread roles nest inside; declarations move first, followed by
// the barrier-init fence and the setup sync.
// CHECK-LABEL: tile.kernel @two_roles
// CHECK: %[[A:.*]] = tile.smem_alloc
// CHECK-NEXT: %[[FULL:.*]] = tile.barrier_alloc arrivals 1
// CHECK-NEXT: tile.fence mbarrier_init
// CHECK-NEXT: tile.sync cta
// CHECK: %[[WG:.*]] = tile.id warpgroup
// CHECK: %[[WARP:.*]] = tile.id warp_in_warpgroup
// CHECK: %[[LO:.*]] = arith.cmpi sge, %[[WG]], %{{.*}} : i32
// CHECK: %[[HI:.*]] = arith.cmpi sle, %[[WG]], %{{.*}} : i32
// CHECK: %[[IN:.*]] = arith.andi %[[LO]], %[[HI]] : i1
// CHECK: scf.if %[[IN]] {
// CHECK-NEXT: nvvm.setmaxregister increase 232
// CHECK-NEXT: "consumer.body"() : () -> ()
// CHECK-NEXT: } else {
// CHECK: %[[IS2:.*]] = arith.cmpi eq, %[[WG]], %{{.*}} : i32
// CHECK: scf.if %[[IS2]] {
// CHECK-NEXT: nvvm.setmaxregister decrease 40
// CHECK: %[[W3:.*]] = arith.cmpi eq, %[[WARP]], %{{.*}} : i32
// CHECK-NEXT: scf.if %[[W3]] {
// CHECK-NEXT: %[[E:.*]] = nvvm.elect.sync -> i1
// CHECK-NEXT: scf.if %[[E]] {
// CHECK-NEXT: "producer.body"() : () -> ()
// CHECK-NOT: tile.role
tile.kernel @two_roles() attributes {target = #tile.target<sm_90a>, warpgroups = 3 : i64, grid = #tile.grid_policy<persistent>} {
  tile.role "producer" warpgroups [2] warps [3] single_thread max_regs 40 {
    "producer.body"() : () -> ()
  }
  %a = tile.smem_alloc : !tile.smem<128x64xbf16, swizzle_128b>
  tile.role "consumer" warpgroups [0, 1] max_regs 232 {
    "consumer.body"() : () -> ()
  }
  %full = tile.barrier_alloc arrivals 1 : !tile.barrier<tma, 1>
}

// -----

// Without budgets no setmaxnreg; the starting allocation is left alone.
// CHECK-LABEL: tile.kernel @no_budget
// CHECK-NOT: nvvm.setmaxregister
tile.kernel @no_budget() attributes {target = #tile.target<sm_90a>, warpgroups = 2 : i64, grid = #tile.grid_policy<persistent>} {
  tile.role "a" warpgroups [0] {
    "a.body"() : () -> ()
  }
  tile.role "b" warpgroups [1] {
    "b.body"() : () -> ()
  }
}

// -----

// single_thread blocks test the thread id (warpgroup, cta) or elect a lane.
// CHECK-LABEL: tile.kernel @single_threads
// CHECK: %[[T:.*]] = tile.id thread_in_warpgroup
// CHECK: %[[Z:.*]] = arith.cmpi eq, %[[T]], %{{.*}} : i32
// CHECK: scf.if %[[Z]] {
// CHECK-NEXT: "wg.body"
// CHECK: %[[C:.*]] = tile.id thread
// CHECK: %[[Z2:.*]] = arith.cmpi eq, %[[C]], %{{.*}} : i32
// CHECK: scf.if %[[Z2]] {
// CHECK-NEXT: "cta.body"
// CHECK: %[[E:.*]] = nvvm.elect.sync -> i1
// CHECK: scf.if %[[E]] {
// CHECK-NEXT: "warp.body"
tile.kernel @single_threads() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  tile.single_thread warpgroup {
    "wg.body"() : () -> ()
  }
  tile.single_thread cta {
    "cta.body"() : () -> ()
  }
  tile.single_thread warp {
    "warp.body"() : () -> ()
  }
}

// -----

// A single_thread block that only arrives (and computes the arrives'
// operands without side effects) becomes predicated arrives, no branch; one
// that does anything else keeps its scf.if.
// CHECK-LABEL: tile.kernel @predicated_arrives
// CHECK: %[[E:.*]] = nvvm.elect.sync -> i1
// CHECK-NEXT: tile.barrier.arrive %{{.*}}[%{{.*}}] if %[[E]] : !tile.barrier<threads, 2>
// CHECK-NEXT: %[[R:.*]] = tile.barrier.remote_view %{{.*}} cta 1
// CHECK-NEXT: tile.barrier.arrive %[[R]][%{{.*}}] if %[[E]] : !tile.barrier<threads, 2, remote>
// CHECK-NOT: scf.if %[[E]]
// CHECK: %[[E2:.*]] = nvvm.elect.sync -> i1
// CHECK-NEXT: scf.if %[[E2]] {
// CHECK-NEXT: tile.barrier.arrive
// CHECK-NEXT: "other.effect"() : () -> ()
tile.kernel @predicated_arrives() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, cluster = array<i64: 2, 1, 1>, grid = #tile.grid_policy<persistent>} {
  %empty = tile.barrier_alloc arrivals 8 : !tile.barrier<threads, 2>
  %c0 = arith.constant 0 : i32
  tile.single_thread warp {
    tile.barrier.arrive %empty[%c0] : !tile.barrier<threads, 2>
    %peer = tile.barrier.remote_view %empty cta 1 : !tile.barrier<threads, 2> -> !tile.barrier<threads, 2, remote>
    tile.barrier.arrive %peer[%c0] : !tile.barrier<threads, 2, remote>
  }
  tile.single_thread warp {
    tile.barrier.arrive %empty[%c0] : !tile.barrier<threads, 2>
    "other.effect"() : () -> ()
  }
}

// -----

// Tensor memory: the address is read after the setup sync; the kernel ends
// with a sync and the release. Clusters sync cluster-wide.
// CHECK-LABEL: tile.kernel @tmem
// CHECK: %[[T:.*]] = tile.tmem_alloc cta_group 2
// CHECK-NEXT: tile.sync cluster
// CHECK-NEXT: %[[ADDR:.*]] = tile.tmem_address %[[T]]
// CHECK: "use"(%[[ADDR]])
// CHECK: tile.sync cluster
// CHECK-NEXT: tile.tmem_dealloc %[[ADDR]]
tile.kernel @tmem() attributes {target = #tile.target<sm_100a>, warpgroups = 1 : i64, cluster = array<i64: 2, 1, 1>, grid = #tile.grid_policy<persistent>} {
  %t = tile.tmem_alloc cta_group 2 : !tile.tmem<128x512xf32>
  "use"(%t) : (!tile.tmem<128x512xf32>) -> ()
}

// -----

tile.kernel @too_many_registers() attributes {target = #tile.target<sm_90a>, warpgroups = 3 : i64, grid = #tile.grid_policy<persistent>} {
  // expected-error @below {{'tile.role' op register budgets need 98304 registers per CTA, over the 64512 it starts with (168 per thread x 384 threads): setmaxnreg.inc would wait forever}}
  tile.role "a" warpgroups [0, 1, 2] max_regs 256 {
  }
}

// -----

// Five warpgroups start with 96 registers each (61440 in all): producer 40
// and four at 112 would need 62464 (the MQA logits deadlock this rule found).
tile.kernel @budget_over_launch() attributes {target = #tile.target<sm_90a>, warpgroups = 5 : i64, grid = #tile.grid_policy<persistent>} {
  // expected-error @below {{'tile.role' op register budgets need 62464 registers per CTA, over the 61440 it starts with (96 per thread x 640 threads): setmaxnreg.inc would wait forever}}
  tile.role "math" warpgroups [0, 1, 2, 3] max_regs 112 {
  }
  tile.role "producer" warpgroups [4] max_regs 40 {
  }
}

// -----

tile.kernel @side_effect_between_roles() attributes {target = #tile.target<sm_90a>, warpgroups = 2 : i64, grid = #tile.grid_policy<persistent>} {
  // expected-note @below {{first role here}}
  tile.role "a" warpgroups [0] {
  }
  // expected-error @below {{'tile.sync' op has side effects and sits between roles; move it before the first role or into a role}}
  tile.sync cta
  tile.role "b" warpgroups [1] {
  }
}

// -----

tile.kernel @two_tmem_allocs() attributes {target = #tile.target<sm_100a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %t0 = tile.tmem_alloc : !tile.tmem<128x256xf32>
  // expected-error @below {{'tile.tmem_alloc' op a kernel allocates tensor memory once; use column offsets into one allocation}}
  %t1 = tile.tmem_alloc : !tile.tmem<128x256xf32>
}

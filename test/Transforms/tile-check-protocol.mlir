// RUN: tile-opt %s --tile-check-protocol --split-input-file --verify-diagnostics | FileCheck %s
// Each case breaks the barrier protocol of a one-stage producer/consumer
// ring (or a TMA store); the last one is correct.

// The producer's ring starts at phase 0: its first wait blocks on the fresh
// `empty` barrier, which only the consumer releases after `full`.
tile.kernel @producer_phase_0(%A: !tile.global<64x64xbf16>) attributes {target = #tile.target<sm_90a>, warpgroups = 2 : i64, grid = #tile.grid_policy<persistent>} {
  %a = tile.smem_alloc : !tile.smem<1x64x64xbf16, swizzle_128b>
  %full = tile.barrier_alloc arrivals 1 : !tile.barrier<tma, 1> loc("full")
  %empty = tile.barrier_alloc arrivals 1 : !tile.barrier<threads, 1> loc("empty")
  %c0 = arith.constant 0 : i32
  tile.role "producer" warpgroups [1] warps [0] single_thread {
    %ps = tile.pipeline.init phase 0 : !tile.pipeline<1>
    %s = tile.pipeline.stage %ps : !tile.pipeline<1>
    %p = tile.pipeline.phase %ps : !tile.pipeline<1>
    // expected-error @below {{role 'producer' waits forever for phase 0 of 'empty[0]', which has completed 0 phases and has 0 of 1 arrival in its current one}}
    // expected-note @below {{a wait for phase 0 blocks until the barrier completes its first phase; a pipeline that waits for free slots starts at phase 1 (a fresh barrier passes a wait for phase 1 at once)}}
    tile.barrier.wait %empty[%s], %p : !tile.barrier<threads, 1>
    tile.copy_async %a[%s], %A[%c0, %c0] barrier %full[%s] : !tile.smem<1x64x64xbf16, swizzle_128b>, !tile.global<64x64xbf16>, !tile.barrier<tma, 1>
    tile.barrier.arrive %full[%s] expect_tx 8192 : !tile.barrier<tma, 1>
  }
  tile.role "consumer" warpgroups [0] {
    %ps = tile.pipeline.init phase 0 : !tile.pipeline<1>
    %s = tile.pipeline.stage %ps : !tile.pipeline<1>
    %p = tile.pipeline.phase %ps : !tile.pipeline<1>
    // expected-note @below {{role 'consumer', which arrives on 'empty' at line 29, has arrived on 'empty[0]' 0 times and waits here for phase 0 of 'full[0]', which has completed 0 phases and has 0 of 1 arrival in its current one}}
    tile.barrier.wait %full[%s], %p : !tile.barrier<tma, 1>
    tile.single_thread warpgroup {
      tile.barrier.arrive %empty[%s] : !tile.barrier<threads, 1>
    }
  }
}

// -----

// expect_tx names half the bytes of the copy completing on `full`.
tile.kernel @expect_tx_small(%A: !tile.global<64x64xbf16>) attributes {target = #tile.target<sm_90a>, warpgroups = 2 : i64, grid = #tile.grid_policy<persistent>} {
  %a = tile.smem_alloc : !tile.smem<1x64x64xbf16, swizzle_128b>
  %full = tile.barrier_alloc arrivals 1 : !tile.barrier<tma, 1> loc("full")
  %c0 = arith.constant 0 : i32
  tile.role "producer" warpgroups [1] warps [0] single_thread {
    // expected-note @below {{this copy brings 8192 bytes (role 'producer')}}
    tile.copy_async %a[%c0], %A[%c0, %c0] barrier %full[%c0] : !tile.smem<1x64x64xbf16, swizzle_128b>, !tile.global<64x64xbf16>, !tile.barrier<tma, 1>
    // expected-error @below {{expect_tx of 4096 bytes on 'full[0]' is less than the 8192 bytes its copies bring}}
    tile.barrier.arrive %full[%c0] expect_tx 4096 : !tile.barrier<tma, 1>
  }
  tile.role "consumer" warpgroups [0] {
    tile.barrier.wait %full[%c0], %c0 : !tile.barrier<tma, 1>
  }
}

// -----

// The threads write the tile with st.shared and one of them stores it with
// TMA, with a sync but no fence(proxy_async) in between.
tile.kernel @store_without_proxy_fence(%D: !tile.global<64x64xbf16>) attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %d = tile.smem_alloc : !tile.smem<64x64xbf16, swizzle_128b> loc("d")
  %c0 = arith.constant 0 : i32
  %z = tile.frag.zero : !tile.frag<64x64xf32, wgmma_acc>
  %h = tile.frag.cast %z : !tile.frag<64x64xf32, wgmma_acc> -> !tile.frag<64x64xbf16, wgmma_acc>
  // expected-note @below {{written here by st.shared: a fence(proxy_async) after the write, before the sync, makes it visible to TMA}}
  tile.frag.store %h, %d[%c0] : !tile.frag<64x64xbf16, wgmma_acc>, !tile.smem<64x64xbf16, swizzle_128b>
  tile.sync warpgroup
  tile.single_thread warpgroup {
    // expected-error @below {{the TMA store reads 'd' after threads wrote it with no fence(proxy_async) in between}}
    tile.copy_async %D[%c0, %c0], %d[] : !tile.global<64x64xbf16>, !tile.smem<64x64xbf16, swizzle_128b>
  }
}

// -----

// CHECK-LABEL: tile.kernel @ring
// A correct one-stage ring: the producer starts at phase 1.
tile.kernel @ring(%A: !tile.global<64x64xbf16>) attributes {target = #tile.target<sm_90a>, warpgroups = 2 : i64, grid = #tile.grid_policy<persistent>} {
  %a = tile.smem_alloc : !tile.smem<1x64x64xbf16, swizzle_128b>
  %full = tile.barrier_alloc arrivals 1 : !tile.barrier<tma, 1> loc("full")
  %empty = tile.barrier_alloc arrivals 1 : !tile.barrier<threads, 1> loc("empty")
  %c0 = arith.constant 0 : i32
  tile.role "producer" warpgroups [1] warps [0] single_thread {
    %ps = tile.pipeline.init phase 1 : !tile.pipeline<1>
    %s = tile.pipeline.stage %ps : !tile.pipeline<1>
    %p = tile.pipeline.phase %ps : !tile.pipeline<1>
    tile.barrier.wait %empty[%s], %p : !tile.barrier<threads, 1>
    tile.copy_async %a[%s], %A[%c0, %c0] barrier %full[%s] : !tile.smem<1x64x64xbf16, swizzle_128b>, !tile.global<64x64xbf16>, !tile.barrier<tma, 1>
    tile.barrier.arrive %full[%s] expect_tx 8192 : !tile.barrier<tma, 1>
  }
  tile.role "consumer" warpgroups [0] {
    %ps = tile.pipeline.init phase 0 : !tile.pipeline<1>
    %s = tile.pipeline.stage %ps : !tile.pipeline<1>
    %p = tile.pipeline.phase %ps : !tile.pipeline<1>
    tile.barrier.wait %full[%s], %p : !tile.barrier<tma, 1>
    tile.single_thread warpgroup {
      tile.barrier.arrive %empty[%s] : !tile.barrier<threads, 1>
    }
  }
}

//===- Passes.td - the passes on the tile dialect --------------*- tablegen -*-===//

#ifndef TILE_TRANSFORMS_PASSES_TD
#define TILE_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileVerifyScopes : Pass<"tile-verify-scopes", "::mlir::tile::KernelOp"> {
  let summary = "Check that each op runs in a scope that may issue it";
  let description = [{
    Some instructions need a particular set of threads: wgmma a whole
    warpgroup, TMA copies and tcgen05.mma one thread, tcgen05.ld a whole
    warpgroup. A CTA-wide sync inside a role deadlocks, because the other
    roles never reach it. This pass reports such misuse at the op.

    Before (an error):
    ```mlir
    tile.role "producer" warpgroups [1] warps [0] single_thread {
      tile.sync cta
    }
    ```
    After: `error: a cta-wide sync inside role 'producer' deadlocks: the
    other roles never reach it; sync the role's warpgroup instead
    (tile.sync warpgroup, sync(warpgroup) in a spec)`, with a note at the
    role. This pass is the one place of the rule: the front end emits
    `sync(...)` wherever it is written, and tilec reports this error at the
    spec's line.
  }];
  let dependentDialects = ["::mlir::tile::TileDialect"];
}

def TileCheckProtocol : Pass<"tile-check-protocol", "::mlir::tile::KernelOp"> {
  let summary = "Execute the roles' barrier traffic abstractly and report protocol bugs";
  let description = [{
    Each role runs as an agent per warpgroup (per warp for single-thread
    roles) and per CTA of the cluster; the pass executes their barrier
    traffic: arrivals and how many threads make them (one thread, one per
    warp, all threads), arrivals on a peer CTA's barriers, expect_tx bytes
    against the bytes of the TMA copies completing on the barrier (multicast
    copies on every receiving CTA's barrier, 2-CTA copies on the leader's),
    tcgen05 commits with their CTA masks, and every wait's (stage, phase)
    from its pipeline state. Loops whose trip counts are known only at run
    time (K tiles, tiles per CTA) run with every count up to two laps of the
    rings and one more; loops of different roles with the same bounds run
    the same number of times (docs/protocol.md: what is proven).

    Findings, each an error at the op with notes that trace it: a wait that
    never completes (deadlock: who waits where, on which barrier, stage and
    phase, and which arrivals the phase lacks), a wait that can miss its
    phase or passes on a fresh barrier before anyone arrived, more threads
    arriving at once than the barrier expects, arrivals that never fill a
    phase, expect_tx bytes that differ from the copies' bytes, a barrier
    index out of range, a TMA copy into a stage that a wgmma or tcgen05 MMA
    may still read (released before gemm_wait, or before the tcgen05.commit
    that tracks the MMA) or that a load from shared memory reads after the
    stage's release, an MMA into tensor-memory columns that a
    tmem_load may still read, and a TMA store of shared memory that threads
    wrote without `tile.fence proxy_async` in between. Kernels it cannot model
    (a branch on a run-time value around barrier traffic, a barrier index
    not known at compile time) get a warning and pass.

    Before (an error: the producer's ring starts at phase 0):
    ```mlir
    tile.role "producer" warpgroups [1] warps [0] single_thread {
      %ps = tile.pipeline.init phase 0 : !tile.pipeline<2>
      ...
      tile.barrier.wait %empty[%s], %p : !tile.barrier<threads, 2>
    ```
    After: `error: role 'producer' waits forever on 'empty[0]' for phase 0:
    it has completed 0 phases and its current phase has 0 of 4 arrivals`,
    with notes on the consumer waiting for the producer's `full` barrier.
  }];
  let dependentDialects = ["::mlir::tile::TileDialect"];
}

def TileDebugHangs : Pass<"tile-debug-hangs", "::mlir::tile::KernelOp"> {
  let summary = "Mark every barrier wait to report a hang instead of spinning forever";
  let description = [{
    `tilec --debug-hangs` runs this pass before tile-warp-specialize, while
    the roles still exist. It puts on each `tile.barrier.wait` the name of
    its enclosing role (`kernel` outside any role) and the name its barrier
    was declared with in the spec (`barrierN`, in declaration order, when
    the input has none). tile-convert-to-nvvm lowers a wait carrying these
    as a bounded spin on `mbarrier.try_wait.parity`: after 2^32 ns (about
    4.3 s) of `%globaltimer` without the phase completing, the lowest
    waiting lane of each warp prints kernel, CTA, thread, role, barrier,
    stage and phase with vprintf, and the thread executes `trap`. The
    kernels of such a build call vprintf, so ptxas ignores their setmaxnreg
    and serialises their wgmma: they are for diagnosis, not speed.

    Before:
    ```mlir
    tile.role "consumer" warpgroups [0] {
      tile.barrier.wait %full[%s], %p : !tile.barrier<tma, 4>
    }
    ```
    After:
    ```mlir
    tile.role "consumer" warpgroups [0] {
      tile.barrier.wait %full[%s], %p {debug_barrier = "full", debug_role = "consumer"} : !tile.barrier<tma, 4>
    }
    ```
  }];
  let dependentDialects = ["::mlir::tile::TileDialect"];
}

def TileWarpSpecialize : Pass<"tile-warp-specialize", "::mlir::tile::KernelOp"> {
  let summary = "Turn roles into branches on the warpgroup and warp id";
  let description = [{
    Each warpgroup that runs a role gets one branch of an if/else chain on the
    warpgroup id; its register budget becomes setmaxnreg (dec below the
    kernel's starting allocation, inc above; the budgets together must fit
    that allocation, 65536 / threads rounded down to 8 per thread, since an
    inc waits for registers other warpgroups gave back and would wait
    forever); inside, each role tests the warp
    id, and single-thread roles elect one lane with elect.sync.
    `tile.single_thread` regions become branches on the thread id, except a
    region that only arrives on barriers: its arrives take the condition as
    a predicate (`tile.barrier.arrive ... if %elected`), so a K loop's stage
    release adds no block to the loop body (LLVM's MachineSink moved FP8
    promotion math into such a block, past the next wgmma). Buffer and
    barrier declarations move to the kernel's start, followed by the setup
    (barrier initialisation fence, the CTA or cluster sync, the tensor-memory
    address) and, at the end, the teardown (tensor-memory release).
    The kernel gets `tile.reqntid` = warpgroups x 128 and `tile.minctasm` = 1,
    without which ptxas ignores setmaxnreg.

    Before:
    ```mlir
    tile.role "producer" warpgroups [1] warps [0] single_thread max_regs 40 {
      "body"() : () -> ()
    }
    ```
    After:
    ```mlir
    %wg = tile.id warpgroup
    %is1 = arith.cmpi eq, %wg, %c1 : i32
    scf.if %is1 {
      nvvm.setmaxregister decrease 40
      %warp = tile.id warp_in_warpgroup
      %is0 = arith.cmpi eq, %warp, %c0 : i32
      scf.if %is0 {
        %elected = nvvm.elect.sync -> i1
        scf.if %elected { "body"() : () -> () }
      }
    }
    ```
    and `tile.single_thread warp { tile.barrier.arrive %empty[%s] }` becomes
    ```mlir
    %e = nvvm.elect.sync -> i1
    tile.barrier.arrive %empty[%s] if %e : !tile.barrier<threads, 4>
    ```
  }];
  let dependentDialects = ["::mlir::tile::TileDialect", "::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect", "::mlir::NVVM::NVVMDialect"];
}

def TileAllocateSharedMemory : Pass<"tile-allocate-smem", "::mlir::tile::KernelOp"> {
  let summary = "Place buffers and barriers in one dynamic shared-memory pool";
  let description = [{
    Barriers (8 bytes each) and the tensor-memory address slot come first,
    then the buffers, each aligned to its swizzle repeat (1024 bytes for 128B,
    512 for 64B, 256 for 32B) so that descriptors keep a base offset of 0.
    Sets `offset` on every allocation and `smem_bytes` on the kernel; fails
    with the byte counts when the pool exceeds the target's 232448 bytes.

    Before:
    ```mlir
    %full = tile.barrier_alloc arrivals 1 : !tile.barrier<tma, 4>
    %a = tile.smem_alloc : !tile.smem<4x128x64xbf16, swizzle_128b>
    ```
    After:
    ```mlir
    %full = tile.barrier_alloc arrivals 1 {offset = 0 : i64} : !tile.barrier<tma, 4>
    %a = tile.smem_alloc {offset = 1024 : i64} : !tile.smem<4x128x64xbf16, swizzle_128b>
    ```
  }];
  let dependentDialects = ["::mlir::tile::TileDialect"];
}

def TileAssignNamedBarriers : Pass<"tile-assign-named-barriers", "::mlir::tile::KernelOp"> {
  let summary = "Give warpgroup-scoped syncs their named-barrier ids";
  let description = [{
    Barrier 0 stays the CTA-wide barrier. A warpgroup sync uses barrier
    1 + (warpgroup id), so that warpgroups running the same code never share
    a counter (the article's `warpgroup_sync(wg_id + 10)`). The id is stored
    as `barrier_id` = 1 (the base; the warpgroup id is added when lowered).

    Before: `tile.sync warpgroup`
    After: `tile.sync warpgroup {barrier_id = 1 : i64}`
  }];
  let dependentDialects = ["::mlir::tile::TileDialect"];
}

def TileLowerPipelines : Pass<"tile-lower-pipelines", "::mlir::tile::KernelOp"> {
  let summary = "Turn pipeline states into loop-carried (stage, phase) integers";
  let description = [{
    A `!tile.pipeline<N>` value becomes one i32 holding the stage in bits
    0..30 and the phase in bit 31; advance increments the stage and, when it
    reaches N, wraps it to 0 and flips the phase. Loop-carried states become
    i32 iter_args.

    Before:
    ```mlir
    %ps = tile.pipeline.init phase 1 : !tile.pipeline<4>
    %s = tile.pipeline.stage %ps : !tile.pipeline<4>
    %next = tile.pipeline.advance %ps : !tile.pipeline<4>
    ```
    After:
    ```mlir
    %ps = arith.constant -2147483648 : i32
    %s = arith.andi %ps, %c2147483647 : i32
    %s1 = arith.addi %s, %c1 : i32
    %wrap = arith.cmpi eq, %s1, %c4 : i32
    ...
    ```
  }];
  let dependentDialects = ["::mlir::tile::TileDialect", "::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

def TileTestAhead : Pass<"tile-test-ahead", "::mlir::tile::KernelOp"> {
  let summary = "Test the next iteration's barrier waits while this one's MMA runs";
  let description = [{
    For each scf.for a spec marked with `range(..., test_ahead = 1)`
    (`tile.test_ahead`): each barrier wait at the top level of its body
    that a `tile.gemm_wait` follows gets a `tile.barrier.test` of the stage
    and phase it will wait for in the next iteration, placed before that
    gemm_wait, and the test's result carried round the loop to the wait as
    `unless %ready`. The next stage and phase are computed from the values
    the body yields, by clones of the pure ops that compute them; a wait
    whose index or phase depends on anything else (a load, an op in a
    nested region) is left as it is.

    Why: the wait at the top of a K loop is a try_wait whose predicate a
    branch needs at once, and ptxas moves no instruction across the back
    edge (DeepGEMM's K loop, unrolled 8 times, lets ptxas issue the next
    block's try_wait under the promotion instead). Measured on an H100 the
    FP8 and MQA kernels did not gain (bench/results/2026-12-06-fp8-unroll.md),
    so the library's specs leave it off. The test
    is non-blocking and the wait still spins when it saw the phase
    incomplete, so the change is correct whatever the timing: the stage a
    consumer has not released cannot complete a second phase before its
    wait.

    The pipeline runs it before tile-lower-pipelines: the stage of a
    pipeline state indexes a barrier array as deep as its ring in range, so
    the test needs no guard. Any other index (a stage from the loop
    variable, say) is guarded: past the last iteration the test reads this
    iteration's barrier instead of one that may lie past the array.

    Before:
    ```mlir
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%ps = %ps0) -> (!tile.pipeline<4>) : i32 {
      %s = tile.pipeline.stage %ps : !tile.pipeline<4>
      %ph = tile.pipeline.phase %ps : !tile.pipeline<4>
      tile.barrier.wait %full[%s], %ph : !tile.barrier<tma, 4>
      %t = tile.gemm_async ...
      tile.gemm_commit
      %d = tile.gemm_wait %t pending 0 : ...
      %next = tile.pipeline.advance %ps : !tile.pipeline<4>
      scf.yield %next : !tile.pipeline<4>
    } {tile.test_ahead}
    ```
    After:
    ```mlir
    %r:2 = scf.for %k = %c0 to %n step %c1 iter_args(%ps = %ps0, %ready = %false) -> (!tile.pipeline<4>, i1) : i32 {
      %s = tile.pipeline.stage %ps : !tile.pipeline<4>
      %ph = tile.pipeline.phase %ps : !tile.pipeline<4>
      tile.barrier.wait %full[%s], %ph unless %ready : !tile.barrier<tma, 4>
      %t = tile.gemm_async ...
      tile.gemm_commit
      %next2 = tile.pipeline.advance %ps : !tile.pipeline<4>
      %s2 = tile.pipeline.stage %next2 : !tile.pipeline<4>
      %ph2 = tile.pipeline.phase %next2 : !tile.pipeline<4>
      %test = tile.barrier.test %full[%s2], %ph2 : !tile.barrier<tma, 4>
      %d = tile.gemm_wait %t pending 0 : ...
      %next = tile.pipeline.advance %ps : !tile.pipeline<4>
      scf.yield %next, %test : !tile.pipeline<4>, i1
    }
    ```
  }];
  let dependentDialects = ["::mlir::tile::TileDialect", "::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

def TileDispatch : Pass<"tile-dispatch", "::mlir::tile::KernelOp"> {
  let summary = "Choose TMA, wgmma or tcgen05 for each async op and check it is legal";
  let description = [{
    `dispatch = auto` becomes `tma` for copies and `wgmma` (sm_90a) or
    `tcgen05` (sm_100a) for MMAs. The pass checks the instruction's rules
    (TMA boxes of at most 256 rows and, with a swizzle, at most the swizzle
    span per box; wgmma M a multiple of 64 and N a multiple of 8 up to 256;
    tcgen05 shapes), and puts on each copy the tensor map it uses: the
    tensor argument, the TMA box planned from the shared tile and its
    swizzle. A rank-1 tile is one 1-D TMA box (at most 256 elements) or a
    bulk copy (`dispatch = bulk`, no tensor map). Loads into registers get
    `nc` (the read-only cache) where no op of the kernel writes their tensor
    (by the ops' memory effects), and fragment loads and stores the widest
    `vector` the layout and a start known to be a multiple allow.
    KernelOp::getAbi() lists each distinct map once, then the pointers of
    tensors accessed directly, then one i32 per dynamic dimension, then the
    pointers' strides, then the scalars: the kernel's parameter list.

    Before:
    ```mlir
    tile.copy_async %a[%s], %A[%m, %k] barrier %full[%s] : ...
    ```
    After:
    ```mlir
    tile.copy_async %a[%s], %A[%m, %k] barrier %full[%s]
        {dispatch = #tile.copy_dispatch<tma>,
         tensormap = #tile.tensormap<arg = 0, box = [128, 64], swizzle = swizzle_128b>} : ...
    ```
  }];
  let dependentDialects = ["::mlir::tile::TileDialect"];
}

def TileHoistInnermostInvariants : Pass<"tile-hoist-innermost-invariants", "::mlir::ModuleOp"> {
  let summary = "Hoist loop-invariant code out of innermost scf.for loops";
  let description = [{
    Runs after tile-convert-to-nvvm, on the scf loops it leaves: what does
    not change across an innermost loop (descriptor bases, tile addresses)
    moves in front of it, which is what LLVM's LICM bought (10% on the
    pipelined GEMM) without running an LLVM IR pipeline. Only innermost
    loops: hoisting the epilogue's addressing out of the tile loop as well
    made straight-line blocks on which NVPTX's straight-line strength
    reduction took seconds. Ops with side effects (barrier waits, MMAs,
    loads) stay where they are, except a load of a tensor the kernel never
    writes (`invariant`, tile.load's `nc`) from a guarded address (a select
    with __tile_zeros, valid memory whatever the index) at the top of the
    body: it reads the same value on every iteration, so it moves out like
    a pure op (mqa_logits' window bounds: once per query block instead of
    once per query and key block).

    Before:
    ```mlir
    scf.for %k = %c0 to %n step %c1 {
      %base = llvm.ptrtoint %smem : !llvm.ptr<3> to i32
      %addr = arith.addi %base, %c1024 : i32
      nvvm.mbarrier.try_wait.parity %bar, %phase, %ticks : !llvm.ptr<3>, i32, i32
      "use"(%addr, %k) : (i32, i32) -> ()
    }
    ```
    After:
    ```mlir
    %base = llvm.ptrtoint %smem : !llvm.ptr<3> to i32
    %addr = arith.addi %base, %c1024 : i32
    scf.for %k = %c0 to %n step %c1 {
      nvvm.mbarrier.try_wait.parity %bar, %phase, %ticks : !llvm.ptr<3>, i32, i32
      "use"(%addr, %k) : (i32, i32) -> ()
    }
    ```
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect"];
}

def TileUnrollLoops : Pass<"tile-unroll-loops", "::mlir::ModuleOp"> {
  let summary = "Unroll the scf.for loops a spec marked with range(..., unroll = N)";
  let description = [{
    Runs after tile-hoist-innermost-invariants, on the scf loops of NVVM and
    LLVM ops that tile-convert-to-nvvm leaves: each loop carrying
    `tile.unroll = N` becomes a loop whose body is the original body N times
    (iteration arguments threaded through the copies) and a remainder loop
    for the last trip count mod N iterations, as CUDA's `#pragma unroll N`
    does. LLVM's unroller would not do it: it refuses a runtime trip count
    around convergent operations (barriers, wgmma), and here the trip count
    is the same on every thread of the loop's scope, which the spec states
    by the marker. Why: the compiler schedules a K block's scale loads,
    barrier wait and descriptor arithmetic across iterations (DeepGEMM's
    math loop is unrolled 8 times).

    Before:
    ```mlir
    scf.for %k = %c0 to %n step %c1 {
      "use"(%k) : (i32) -> ()
    } {tile.unroll = 2 : i64}
    ```
    After:
    ```mlir
    %even = ... (%n rounded down to a multiple of 2)
    scf.for %k = %c0 to %even step %c2 {
      "use"(%k) : (i32) -> ()
      %k1 = arith.addi %k, %c1 : i32
      "use"(%k1) : (i32) -> ()
    }
    scf.for %k = %even to %n step %c1 {
      "use"(%k) : (i32) -> ()
    }
    ```
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect", "::mlir::arith::ArithDialect"];
}

#endif // TILE_TRANSFORMS_PASSES_TD

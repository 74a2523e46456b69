//===- TileOps.td - operations of the tile dialect -------------*- tablegen -*-===//

#ifndef TILE_OPS_TD
#define TILE_OPS_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/FunctionInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "TileDialect.td"
include "TileEnums.td"
include "TileTypes.td"

def Tile_AnyGlobal : Type<CPred<"::llvm::isa<::mlir::tile::GlobalType>($_self)">,
                          "global tensor", "::mlir::Type">;
def Tile_AnySmem : Type<CPred<"::llvm::isa<::mlir::tile::SmemType>($_self)">,
                        "shared-memory buffer", "::mlir::Type">;
def Tile_AnyTmem : Type<CPred<"::llvm::isa<::mlir::tile::TmemType>($_self)">,
                        "tensor-memory buffer", "::mlir::Type">;
def Tile_AnyBarrier : Type<CPred<"::llvm::isa<::mlir::tile::BarrierType>($_self)">,
                           "barrier array", "::mlir::Type">;
def Tile_AnyPipeline : Type<CPred<"::llvm::isa<::mlir::tile::PipelineType>($_self)">,
                            "pipeline state", "::mlir::Type">;
def Tile_AnyFrag : Type<CPred<"::llvm::isa<::mlir::tile::FragType>($_self)">,
                        "register fragment", "::mlir::Type">;
def Tile_CopyOperand : AnyTypeOf<[Tile_AnyGlobal, Tile_AnySmem]>;
def Tile_Accumulator : AnyTypeOf<[Tile_AnyFrag, Tile_AnyTmem]>;

//===----------------------------------------------------------------------===//
// Structure
//===----------------------------------------------------------------------===//

def Tile_KernelOp : Tile_Op<"kernel", [
    FunctionOpInterface, IsolatedFromAbove, SingleBlock, NoTerminator]> {
  let summary = "a GPU kernel: its arguments, target, warpgroups, cluster and grid";
  let description = [{
    The body runs on every thread of every CTA. Arguments are global tensors
    (`!tile.global`) and scalars (i32, i64, f32). The kernel launches
    `warpgroups` x 128 threads per CTA, clusters of `cluster` CTAs and a grid
    that is either `persistent` (one CTA per SM, rounded down to the cluster
    size) or `fixed` by `grid_axes`.

    ```mlir
    tile.kernel @copy(%x: !tile.global<?x?xbf16>, %y: !tile.global<?x?xbf16>)
        attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64,
                    grid = #tile.grid_policy<fixed>, grid_axes = [...]} {
      ...
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<FunctionType>:$function_type,
                       OptionalAttr<DictArrayAttr>:$arg_attrs,
                       OptionalAttr<DictArrayAttr>:$res_attrs,
                       Tile_TargetAttr:$target,
                       I64Attr:$warpgroups,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1, 1}">:$cluster,
                       Tile_GridPolicyAttr:$grid,
                       OptionalAttr<TypedArrayAttrBase<Tile_GridAxisAttr, "grid axes">>:$grid_axes,
                       OptionalAttr<I64Attr>:$smem_bytes,
                       OptionalAttr<StrArrayAttr>:$arg_names);
  let regions = (region SizedRegion<1>:$body);
  let extraClassDeclaration = [{
    ::mlir::Region *getCallableRegion() { return &getBody(); }
    ::llvm::ArrayRef<::mlir::Type> getArgumentTypes() {
      return getFunctionType().getInputs();
    }
    ::llvm::ArrayRef<::mlir::Type> getResultTypes() {
      return getFunctionType().getResults();
    }
    /// Threads per CTA.
    int64_t getNumThreads() { return getWarpgroups() * 128; }
    /// CTAs per cluster.
    int64_t getClusterSize() {
      auto c = getCluster();
      return c[0] * c[1] * c[2];
    }
    /// The target in the vocabulary compiler, bundle and runtime share.
    ::tilec::vocab::Target getVocabTarget();
    bool isBlackwell() { return ::tilec::vocab::isBlackwell(getVocabTarget()); }
    /// "sm_90a", "sm_100a".
    ::llvm::StringRef getTargetName() { return stringifyTarget(getTarget()); }
    /// The kernel's ABI: its parameter list (the distinct tensor maps of its
    /// copies in order, then a pointer per tensor it reads or writes
    /// directly, then one i32 per dynamic dimension, then the i64 strides of
    /// the pointers' outer dimensions, then the scalars), argument names and
    /// types, launch shape and shared memory.
    /// The one place the parameter list is computed.
    KernelAbiAttr getAbi();
    /// The name of argument `i` (`arg<i>` when the author gave none).
    std::string getArgName(unsigned i);
  }];
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
}

def Tile_RoleOp : Tile_Op<"role", [
    HasParent<"KernelOp">, SingleBlock, NoTerminator, RecursiveMemoryEffects]> {
  let summary = "a region run by a named set of warps, with a register budget";
  let description = [{
    The body runs on the warps `warps` (default: all four) of the warpgroups
    `warpgroups`; with `single_thread`, on one elected thread of each of those
    warps. `max_regs` is the per-thread register budget of these warpgroups
    (setmaxnreg). The warp-specialization pass turns roles into branches.

    ```mlir
    tile.role "producer" warpgroups [2] warps [3] single_thread max_regs 40 {
      ...
    }
    ```
  }];
  let arguments = (ins StrAttr:$role_name,
                       DenseI64ArrayAttr:$warpgroups,
                       OptionalAttr<DenseI64ArrayAttr>:$warps,
                       UnitAttr:$single_thread,
                       OptionalAttr<I64Attr>:$max_regs);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $role_name `warpgroups` $warpgroups (`warps` $warps^)?
    (`single_thread` $single_thread^)? (`max_regs` $max_regs^)?
    attr-dict-with-keyword $body
  }];
  let extraClassDeclaration = [{
    /// The warps of each warpgroup that run the body (0..3).
    ::llvm::SmallVector<int64_t> getWarpList();
  }];
  let hasVerifier = 1;
}

def Tile_SingleThreadOp : Tile_Op<"single_thread", [SingleBlock, NoTerminator,
                                                    RecursiveMemoryEffects]> {
  let summary = "run the body on one thread of each warp, warpgroup or CTA";
  let description = [{
    `warp` elects one lane (elect.sync); `warpgroup` and `cta` run the body on
    the first thread of the warpgroup or CTA. Every thread of the scope must
    reach the op.

    ```mlir
    tile.single_thread warpgroup {
      tile.copy_async %D[%m, %n], %d[%wg] : ...
    }
    ```
  }];
  let arguments = (ins Tile_ThreadScope:$scope);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$scope attr-dict-with-keyword $body";
}

//===----------------------------------------------------------------------===//
// Identity and shapes
//===----------------------------------------------------------------------===//

def Tile_IdOp : Tile_Op<"id", [Pure]> {
  let summary = "a thread or block identity (cta, warpgroup, lane, ...)";
  let description = [{
    ```mlir
    %wg = tile.id warpgroup
    %lane = tile.id lane
    ```
  }];
  let arguments = (ins Tile_IdKind:$kind);
  let results = (outs I32:$result);
  let assemblyFormat = "$kind attr-dict";
  let builders = [OpBuilder<(ins "::mlir::tile::IdKind":$kind), [{
    build($_builder, $_state, $_builder.getI32Type(), kind);
  }]>];
}

def Tile_DimOp : Tile_Op<"dim", [Pure]> {
  let summary = "one dimension of a global tensor, as i32";
  let description = [{
    Static dimensions fold to constants; dynamic ones become kernel
    parameters. `%m = tile.dim %A[0] : !tile.global<?x4096xbf16>`
  }];
  let arguments = (ins Tile_AnyGlobal:$tensor, I64Attr:$index);
  let results = (outs I32:$result);
  let assemblyFormat = "$tensor `[` $index `]` attr-dict `:` type($tensor)";
  let hasFolder = 1;
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

def Tile_SmemAllocOp : Tile_Op<"smem_alloc", [HasParent<"KernelOp">]> {
  let summary = "a shared-memory buffer";
  let description = [{
    `offset` (bytes into the kernel's dynamic shared memory) is set by the
    allocation pass. `%a = tile.smem_alloc : !tile.smem<4x128x64xbf16, swizzle_128b>`
  }];
  let arguments = (ins OptionalAttr<I64Attr>:$offset);
  let results = (outs Tile_AnySmem:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def Tile_TmemAllocOp : Tile_Op<"tmem_alloc", [HasParent<"KernelOp">]> {
  let summary = "a tensor-memory buffer (sm_100)";
  let description = [{
    Allocated by warp 0 at kernel start (columns rounded up to a power of two
    of at least 32) and released at kernel end. `offset` is the shared-memory
    slot that receives the address, set by tile-allocate-smem.
    `%t = tile.tmem_alloc cta_group 2 : !tile.tmem<128x512xf32>`
  }];
  let arguments = (ins DefaultValuedAttr<I64Attr, "1">:$cta_group,
                       OptionalAttr<I64Attr>:$offset);
  let results = (outs Tile_AnyTmem:$result);
  let assemblyFormat = "(`cta_group` $cta_group^)? attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Tile_TmemAddressOp : Tile_Op<"tmem_address", [AllTypesMatch<["tmem", "result"]>]> {
  let summary = "the allocated tensor-memory address (inserted after the setup sync)";
  let description = [{
    tcgen05.alloc writes the address to shared memory; after the setup sync
    every thread reads it from there. Inserted by tile-warp-specialize.
    `%t1 = tile.tmem_address %t : !tile.tmem<128x512xf32>`
  }];
  let arguments = (ins Tile_AnyTmem:$tmem);
  let results = (outs Tile_AnyTmem:$result);
  let assemblyFormat = "$tmem attr-dict `:` type($tmem)";
}

def Tile_TmemDeallocOp : Tile_Op<"tmem_dealloc"> {
  let summary = "release tensor memory at kernel end (inserted by tile-warp-specialize)";
  let description = [{
    Warp 0 relinquishes the allocation permit and frees the columns.
    `tile.tmem_dealloc %t : !tile.tmem<128x512xf32>`
  }];
  let arguments = (ins Tile_AnyTmem:$tmem);
  let assemblyFormat = "$tmem attr-dict `:` type($tmem)";
}

def Tile_BarrierAllocOp : Tile_Op<"barrier_alloc", [HasParent<"KernelOp">]> {
  let summary = "an array of mbarriers, each expecting `arrivals` arrivals per phase";
  let description = [{
    The barriers are initialised at kernel start, before any role runs.
    `%full = tile.barrier_alloc arrivals 1 : !tile.barrier<tma, 4>`
  }];
  let arguments = (ins I64Attr:$arrivals, OptionalAttr<I64Attr>:$offset);
  let results = (outs Tile_AnyBarrier:$result);
  let assemblyFormat = "`arrivals` $arrivals attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Tile_BarrierRemoteViewOp : Tile_Op<"barrier.remote_view", [Pure]> {
  let summary = "a view onto the same barriers in another CTA of the cluster";
  let description = [{
    `%r = tile.barrier.remote_view %full cta 0 : !tile.barrier<tma, 4> -> !tile.barrier<tma, 4, remote>`
  }];
  let arguments = (ins Tile_AnyBarrier:$barrier, I64Attr:$cta);
  let results = (outs Tile_AnyBarrier:$result);
  let assemblyFormat =
      "$barrier `cta` $cta attr-dict `:` type($barrier) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_BarrierArriveOp : Tile_Op<"barrier.arrive"> {
  let summary = "arrive on barrier `index`, optionally expecting transaction bytes";
  let description = [{
    On a `tma` barrier, `expect_tx` adds the bytes the TMA copies of this
    phase will deliver. `tile.barrier.arrive %full[%s] expect_tx 32768 : !tile.barrier<tma, 4>`

    With `if %p`, only the threads where `%p` holds arrive: a predicated
    instruction, no branch. tile-warp-specialize turns a `single_thread warp`
    block that only arrives into this form (DeepGEMM's
    `lane_idx == 0 ? arrive() : void()`), so that a K loop's stage release
    does not split the loop body into blocks that LLVM's MachineSink moves
    promotion math into (docs/passes.md).
    `tile.barrier.arrive %empty[%s] if %elected : !tile.barrier<threads, 4>`
  }];
  let arguments = (ins Arg<Tile_AnyBarrier, "", [MemRead, MemWrite]>:$barrier,
                       I32:$index, Optional<I1>:$pred,
                       OptionalAttr<I64Attr>:$expect_tx);
  let assemblyFormat = [{
    $barrier `[` $index `]` (`if` $pred^)? (`expect_tx` $expect_tx^)? attr-dict `:` type($barrier)
  }];
  let hasVerifier = 1;
}

def Tile_BarrierWaitOp : Tile_Op<"barrier.wait"> {
  let summary = "wait until barrier `index` has completed phase `phase`";
  let description = [{
    `tile.barrier.wait %full[%s], %phase : !tile.barrier<tma, 4>`

    With `unless %ready`, a thread whose `%ready` holds goes on at once:
    `%ready` is a tile.barrier.test of the same barrier, index and phase
    taken earlier (tile-test-ahead), which saw the phase complete.
    `tile.barrier.wait %full[%s], %phase unless %ready : !tile.barrier<tma, 4>`

    With `debug_barrier` (and `debug_role`), which tile-debug-hangs sets for
    `tilec --debug-hangs`, the wait is a bounded spin: after about 4.3 s
    (2^32 ns of %globaltimer) without the phase completing, the lowest
    waiting lane of each warp prints the kernel, CTA, thread, role, barrier,
    stage and phase with vprintf and the thread traps (docs/protocol.md).
  }];
  let arguments = (ins Arg<Tile_AnyBarrier, "", [MemRead, MemWrite]>:$barrier,
                       I32:$index, I32:$phase, Optional<I1>:$ready,
                       OptionalAttr<StrAttr>:$debug_role,
                       OptionalAttr<StrAttr>:$debug_barrier);
  let assemblyFormat = [{
    $barrier `[` $index `]` `,` $phase (`unless` $ready^)? attr-dict `:` type($barrier)
  }];
  let hasVerifier = 1;
}

def Tile_BarrierTestOp : Tile_Op<"barrier.test"> {
  let summary = "whether barrier `index` has completed phase `phase`, without waiting";
  let description = [{
    A non-blocking test (mbarrier.test_wait.parity, acquire semantics when
    it returns true). tile-test-ahead tests the next K block's stage while
    the current block's MMA runs and hands the result to that block's wait
    as `unless %ready`: a wait whose phase has already been seen complete
    spins no more, so the test's latency is hidden under the MMA instead of
    exposed at the top of every iteration (CUTLASS's consumer_try_wait).
    `%r = tile.barrier.test %full[%s], %phase : !tile.barrier<tma, 4>`
  }];
  let arguments = (ins Arg<Tile_AnyBarrier, "", [MemRead]>:$barrier,
                       I32:$index, I32:$phase);
  let results = (outs I1:$ready);
  let assemblyFormat =
      "$barrier `[` $index `]` `,` $phase attr-dict `:` type($barrier)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Pipeline state
//===----------------------------------------------------------------------===//

def Tile_PipelineInitOp : Tile_Op<"pipeline.init", [Pure]> {
  let summary = "a pipeline state at stage 0 and the given phase";
  let description = [{
    Producers start at phase 1 (a fresh barrier passes a wait on parity 1 at
    once), consumers at phase 0.
    `%ps = tile.pipeline.init phase 1 : !tile.pipeline<4>`
  }];
  let arguments = (ins I64Attr:$phase);
  let results = (outs Tile_AnyPipeline:$result);
  let assemblyFormat = "`phase` $phase attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Tile_PipelineAdvanceOp : Tile_Op<"pipeline.advance",
    [Pure, AllTypesMatch<["state", "result"]>]> {
  let summary = "the next (stage, phase): the stage wraps at depth and the phase flips";
  let arguments = (ins Tile_AnyPipeline:$state);
  let results = (outs Tile_AnyPipeline:$result);
  let assemblyFormat = "$state attr-dict `:` type($state)";
}

def Tile_PipelineStageOp : Tile_Op<"pipeline.stage", [Pure]> {
  let summary = "the stage of a pipeline state";
  let arguments = (ins Tile_AnyPipeline:$state);
  let results = (outs I32:$result);
  let assemblyFormat = "$state attr-dict `:` type($state)";
}

def Tile_PipelinePhaseOp : Tile_Op<"pipeline.phase", [Pure]> {
  let summary = "the phase (0 or 1) of a pipeline state";
  let arguments = (ins Tile_AnyPipeline:$state);
  let results = (outs I32:$result);
  let assemblyFormat = "$state attr-dict `:` type($state)";
}

//===----------------------------------------------------------------------===//
// Asynchronous copies
//===----------------------------------------------------------------------===//

def Tile_CopyAsyncOp : Tile_Op<"copy_async", [AttrSizedOperandSegments]> {
  let summary = "an asynchronous tile copy between global and shared memory";
  let description = [{
    Global -> shared: the shared tile `dst[dstIndices]` (the leading indices
    select a tile of the two innermost dimensions) is filled from the global
    tensor at element coordinates `srcIndices`; the bytes complete on
    `barrier[barrierIndex]`. Out-of-bounds elements read as zero.
    Shared -> global: the tile is written at `dstIndices`; out-of-bounds
    elements are dropped; completion is tracked with bulk_commit/bulk_wait.
    `multicast` is a cluster CTA mask; `cta_group 2` is Blackwell's 2-CTA form
    that signals the leader CTA's barrier.

    `extent = [rows, cols]` moves only the top-left rows x cols of the tile
    (a 64-row wgmma operand of which a small-M kernel loads 16 rows): fewer
    rows of any tile TMA fills in one box height, fewer columns of a one-row
    tile. The rest of the tile is left as it was.

    ```mlir
    tile.copy_async %a_smem[%s], %A[%m, %k] barrier %full[%s]
        : !tile.smem<4x128x64xbf16, swizzle_128b>, !tile.global<?x?xbf16>,
          !tile.barrier<tma, 4>
    ```
  }];
  let arguments = (ins Arg<Tile_CopyOperand, "", [MemWrite]>:$dst,
                       Variadic<I32>:$dstIndices,
                       Arg<Tile_CopyOperand, "", [MemRead]>:$src,
                       Variadic<I32>:$srcIndices,
                       Arg<Optional<Tile_AnyBarrier>, "", [MemRead, MemWrite]>:$barrier,
                       Optional<I32>:$barrierIndex,
                       DefaultValuedAttr<Tile_CopyDispatchAttr,
                                         "::mlir::tile::CopyDispatch::auto_">:$dispatch,
                       OptionalAttr<I64Attr>:$multicast,
                       DefaultValuedAttr<I64Attr, "1">:$cta_group,
                       UnitAttr:$reduce_add,
                       OptionalAttr<DenseI64ArrayAttr>:$extent,
                       OptionalAttr<Tile_TensorMapParamAttr>:$tensormap);
  let assemblyFormat = [{
    $dst `[` $dstIndices `]` `,` $src `[` $srcIndices `]`
    (`barrier` $barrier^ `[` $barrierIndex `]`)?
    attr-dict `:` type($dst) `,` type($src) (`,` type($barrier)^)?
  }];
  let extraClassDeclaration = [{
    bool isLoad() { return ::llvm::isa<SmemType>(getDst().getType()); }
    SmemType getSmemType() {
      return ::llvm::cast<SmemType>(isLoad() ? getDst().getType()
                                             : getSrc().getType());
    }
    GlobalType getGlobalType() {
      return ::llvm::cast<GlobalType>(isLoad() ? getSrc().getType()
                                               : getDst().getType());
    }
    ::mlir::Value getSmem() { return isLoad() ? getDst() : getSrc(); }
    ::mlir::Value getGlobal() { return isLoad() ? getSrc() : getDst(); }
    ::mlir::OperandRange getSmemIndices() {
      return isLoad() ? getDstIndices() : getSrcIndices();
    }
    ::mlir::OperandRange getGlobalIndices() {
      return isLoad() ? getSrcIndices() : getDstIndices();
    }
    /// Rows and columns the copy moves: `extent`, else the whole tile.
    std::pair<int64_t, int64_t> getMovedExtent();
    ::mlir::LogicalResult verifyCopyExtent();
  }];
  let hasVerifier = 1;
}

def Tile_BulkCommitOp : Tile_Op<"bulk_commit", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "close the group of outstanding shared->global copies of this thread";
  let assemblyFormat = "attr-dict";
}

def Tile_BulkWaitOp : Tile_Op<"bulk_wait", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "wait until at most `pending` copy groups of this thread are outstanding";
  let description = [{
    With `read`, wait only until their shared-memory reads are done (enough to
    reuse the buffer). `tile.bulk_wait 0 read`
  }];
  let arguments = (ins I64Attr:$pending, UnitAttr:$read);
  let assemblyFormat = "$pending (`read` $read^)? attr-dict";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Asynchronous MMA
//===----------------------------------------------------------------------===//

def Tile_GemmAsyncOp : Tile_Op<"gemm_async", [AttrSizedOperandSegments,
                                               MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "acc (+)= A * B^T on tiles in shared memory, asynchronously";
  let description = [{
    A (M x K) and B (N x K) are K-major tiles in shared memory; the leading
    indices select the tile and the last index is the first row. The
    accumulator is a register fragment (wgmma: M and N come from the
    fragment; the result is the new fragment, valid after gemm_wait) or
    tensor memory at column `accColumn` (tcgen05: M = rows of A x cta_group,
    N = rows of B x cta_group; no result).

    `accumulate` false (or a predicate that is false at run time) overwrites
    instead: the first K step ignores the accumulator's input (wgmma's
    scale-d, tcgen05's enable-input-d) and the later K steps of the same op
    add to it. With wgmma the input may then be a `tile.frag.undef`.

    `a_major = mn` / `b_major = mn` (wgmma, f16 and bf16 only) take A as a
    K x M tile and B as a K x N tile (M or N contiguous: the instruction's
    transpose); the last index is then the first column, a multiple of the
    swizzle atom's width.

    ```mlir
    %acc1 = tile.gemm_async %acc, %a[%s, %row], %b[%s, %c0] {dispatch = #tile.gemm_dispatch<wgmma>}
        : !tile.frag<64x256xf32, wgmma_acc>, !tile.smem<4x128x64xbf16, swizzle_128b>,
          !tile.smem<4x256x64xbf16, swizzle_128b> -> !tile.frag<64x256xf32, wgmma_acc>
    %acc2 = tile.gemm_async %acc, %a[%s, %row], %bt[%s, %c0] accumulate(%first)
        {b_major = #tile.mma_major<mn>}
        : !tile.frag<64x256xf32, wgmma_acc>, !tile.smem<4x128x64xbf16, swizzle_128b>,
          !tile.smem<4x64x256xbf16, swizzle_128b> -> !tile.frag<64x256xf32, wgmma_acc>
    ```
  }];
  let arguments = (ins Tile_Accumulator:$acc, Optional<I32>:$accColumn,
                       Arg<Tile_AnySmem, "", [MemRead]>:$a, Variadic<I32>:$aIndices,
                       Arg<Tile_AnySmem, "", [MemRead]>:$b, Variadic<I32>:$bIndices,
                       Optional<I1>:$accumulate,
                       DefaultValuedAttr<Tile_GemmDispatchAttr,
                                         "::mlir::tile::GemmDispatch::auto_">:$dispatch,
                       DefaultValuedAttr<I64Attr, "1">:$cta_group,
                       DefaultValuedAttr<Tile_MmaMajorAttr,
                                         "::mlir::tile::MmaMajor::k">:$a_major,
                       DefaultValuedAttr<Tile_MmaMajorAttr,
                                         "::mlir::tile::MmaMajor::k">:$b_major);
  let results = (outs Optional<Tile_AnyFrag>:$result);
  let assemblyFormat = [{
    $acc (`[` $accColumn^ `]`)? `,` $a `[` $aIndices `]` `,` $b `[` $bIndices `]`
    (`accumulate` `(` $accumulate^ `)`)?
    attr-dict `:` type($acc) `,` type($a) `,` type($b) (`->` type($result)^)?
  }];
  let hasVerifier = 1;
}

def Tile_GemmCommitOp : Tile_Op<"gemm_commit", [AttrSizedOperandSegments,
                                                 MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "close the group of outstanding MMAs (and signal a barrier on sm_100)";
  let description = [{
    sm_90a: wgmma.commit_group. sm_100a: tcgen05.commit arrives on
    `barrier[index]` once the MMAs are done; with cta_group 2 the arrival is
    multicast to the CTAs in `cta_mask`.
    `tile.gemm_commit barrier %empty[%s] cta_mask 3 {cta_group = 2 : i64} : !tile.barrier<mma, 4>`
  }];
  let arguments = (ins Optional<Tile_AnyBarrier>:$barrier,
                       Optional<I32>:$index,
                       OptionalAttr<I64Attr>:$cta_mask,
                       DefaultValuedAttr<I64Attr, "1">:$cta_group);
  let assemblyFormat = [{
    (`barrier` $barrier^ `[` $index `]`)? (`cta_mask` $cta_mask^)? attr-dict (`:` type($barrier)^)?
  }];
  let hasVerifier = 1;
}

def Tile_GemmWaitOp : Tile_Op<"gemm_wait", [AllTypesMatch<["acc", "result"]>,
                                             MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "wait until at most `pending` wgmma groups are outstanding (sm_90a)";
  let description = [{
    The accumulator passes through so that no read of it moves above the wait.
    `%acc2 = tile.gemm_wait %acc1 pending 0 : !tile.frag<64x256xf32, wgmma_acc>`
  }];
  let arguments = (ins Tile_AnyFrag:$acc, I64Attr:$pending);
  let results = (outs Tile_AnyFrag:$result);
  let assemblyFormat = "$acc `pending` $pending attr-dict `:` type($acc)";
  let hasVerifier = 1;
}

def Tile_FragUndefOp : Tile_Op<"frag.undef", [Pure]> {
  let summary = "a fragment with no defined value";
  let description = [{
    The input of a wgmma tile.gemm_async that overwrites its accumulator
    (`accumulate` false or a predicate): nothing is zeroed. Reading its
    elements in any other way gives unspecified values.
    `%acc = tile.frag.undef : !tile.frag<64x256xf32, wgmma_acc>`
  }];
  let results = (outs Tile_AnyFrag:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

//===----------------------------------------------------------------------===//
// Tensor memory and registers
//===----------------------------------------------------------------------===//

def Tile_TmemLoadOp : Tile_Op<"tmem_load", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "a warpgroup reads columns of tensor memory into registers (sm_100)";
  let description = [{
    Thread t of the warpgroup receives lane t, columns [column, column + N).
    The values are valid after tmem_wait.
    `%r = tile.tmem_load %tmem[%c0] : !tile.tmem<128x512xf32> -> !tile.frag<128x64xf32, row_per_thread>`
  }];
  let arguments = (ins Tile_AnyTmem:$tmem, I32:$column);
  let results = (outs Tile_AnyFrag:$result);
  let assemblyFormat =
      "$tmem `[` $column `]` attr-dict `:` type($tmem) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_TmemWaitOp : Tile_Op<"tmem_wait", [AllTypesMatch<["value", "result"]>,
                                             MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "wait for this thread's tensor-memory loads (tcgen05.wait::ld)";
  let arguments = (ins Tile_AnyFrag:$value);
  let results = (outs Tile_AnyFrag:$result);
  let assemblyFormat = "$value attr-dict `:` type($value)";
}

def Tile_FragZeroOp : Tile_Op<"frag.zero", [Pure]> {
  let summary = "a fragment of zeros";
  let description = [{
    Full or broadcast (a running row maximum starts as one).
    `%z = tile.frag.zero : !tile.frag<64x256xf32, wgmma_acc, rows>`
  }];
  let results = (outs Tile_AnyFrag:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def Tile_FragIndexOp : Tile_Op<"frag.index", [Pure]> {
  let summary = "each row's or each column's index within the tile";
  let description = [{
    A broadcast fragment whose element is its row index (`rows`) or column
    index (`cols`) in the tile, as an f32: compared with a scalar it picks
    per row or column, e.g. which of two 128-column scale blocks a column
    of an FP8 tile lies in. With `align = a` each index is rounded down to
    a multiple of a: where a register's line stays within one such multiple
    for every thread (a wgmma_acc column with a = 8: a thread's columns are
    offset by at most 7) the result is a constant per register, so that a
    comparison with it is shared by the register's neighbours and folds
    where the other side is a constant.
    `%c = tile.frag.index : !tile.frag<64x192xf32, wgmma_acc, cols>`
    `%g = tile.frag.index {align = 8 : i64} : !tile.frag<64x192xf32, wgmma_acc, cols>`
  }];
  let arguments = (ins DefaultValuedAttr<I64Attr, "1">:$align);
  let results = (outs Tile_AnyFrag:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Tile_FragCastOp : Tile_Op<"frag.cast", [Pure]> {
  let summary = "convert every element of a fragment to another type";
  let description = [{
    Between f32, f16 and bf16, and from f32 to e4m3 and e5m2 (round to
    nearest even; fp8 saturates to the largest finite value). The fp8
    conversions take pairs of elements (`cvt.rn.satfinite.e4m3x2.f32`).
    `%h = tile.frag.cast %acc : !tile.frag<64x256xf32, wgmma_acc> -> !tile.frag<64x256xbf16, wgmma_acc>`
  }];
  let arguments = (ins Tile_AnyFrag:$source);
  let results = (outs Tile_AnyFrag:$result);
  let assemblyFormat = "$source attr-dict `:` type($source) `->` type($result)";
  let hasVerifier = 1;
}

// An operand of fragment math: a fragment (full or broadcast) or an f32.
def Tile_FragOperand : AnyTypeOf<[Tile_AnyFrag, F32],
                                 "register fragment or f32 scalar">;

def Tile_FragUnaryOp : Tile_Op<"frag.unary",
    [Pure, AllTypesMatch<["operand", "result"]>]> {
  let summary = "elementwise math of one fragment: neg, abs, exp2, exp, rsqrt, rcp, relu";
  let description = [{
    In f32, on full and broadcast fragments alike. exp2, rsqrt and rcp are
    the approximate instructions (`ex2.approx.ftz.f32`, ...); exp is
    exp2(x * log2(e)); relu is max(x, 0), which gives 0 for NaN.
    `%e = tile.frag.unary exp %x : !tile.frag<64x256xf32, wgmma_acc>`
  }];
  let arguments = (ins Tile_FragUnaryKind:$kind, Tile_AnyFrag:$operand);
  let results = (outs Tile_AnyFrag:$result);
  let assemblyFormat = "$kind $operand attr-dict `:` type($operand)";
  let hasVerifier = 1;
}

def Tile_FragBinaryOp : Tile_Op<"frag.binary", [Pure]> {
  let summary = "elementwise math of two operands: add, sub, mul, div, max, min";
  let description = [{
    Each operand is a fragment or an f32 scalar, at least one a fragment.
    Fragments have one shape and layout; a broadcast fragment (`rows`,
    `cols`) combines with the full one as if it were repeated along the
    other dimension. The result is a broadcast fragment when every fragment
    operand is one of the same kind, else a full fragment. div is IEEE
    division (`div.rn.f32`); max and min return the other operand for NaN.

    ```mlir
    %s = tile.frag.binary mul %acc, %alpha : !tile.frag<64x256xf32, wgmma_acc>, f32 -> !tile.frag<64x256xf32, wgmma_acc>
    %b = tile.frag.binary add %s, %bias : !tile.frag<64x256xf32, wgmma_acc>, !tile.frag<64x256xf32, wgmma_acc, cols> -> !tile.frag<64x256xf32, wgmma_acc>
    ```
  }];
  let arguments = (ins Tile_FragBinaryKind:$kind, Tile_FragOperand:$lhs,
                       Tile_FragOperand:$rhs);
  let results = (outs Tile_AnyFrag:$result);
  let assemblyFormat = [{
    $kind $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_FragFmaOp : Tile_Op<"frag.fma", [Pure]> {
  let summary = "a * b + c, rounded once (fma.rn.f32)";
  let description = [{
    The operands follow tile.frag.binary's rules.
    `%y = tile.frag.fma %acc, %scale, %bias : !tile.frag<64x256xf32, wgmma_acc>, !tile.frag<64x256xf32, wgmma_acc, rows>, f32 -> !tile.frag<64x256xf32, wgmma_acc>`
  }];
  let arguments = (ins Tile_FragOperand:$a, Tile_FragOperand:$b,
                       Tile_FragOperand:$c);
  let results = (outs Tile_AnyFrag:$result);
  let assemblyFormat = [{
    $a `,` $b `,` $c attr-dict `:` type($a) `,` type($b) `,` type($c) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_FragCmpOp : Tile_Op<"frag.cmp", [Pure]> {
  let summary = "an elementwise comparison, giving an i1 fragment";
  let description = [{
    The operands follow tile.frag.binary's rules; the comparisons are
    ordered (false when either side is NaN).
    `%m = tile.frag.cmp gt %x, %t : !tile.frag<64x256xf32, wgmma_acc>, f32 -> !tile.frag<64x256xi1, wgmma_acc>`
  }];
  let arguments = (ins Tile_FragCmpPredicate:$predicate, Tile_FragOperand:$lhs,
                       Tile_FragOperand:$rhs);
  let results = (outs Tile_AnyFrag:$result);
  let assemblyFormat = [{
    $predicate $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_FragSelectOp : Tile_Op<"frag.select", [Pure]> {
  let summary = "elementwise condition ? a : b";
  let description = [{
    The condition is an i1 fragment (full or broadcast) of the values'
    shape and layout; the values follow tile.frag.binary's rules.
    `%y = tile.frag.select %m, %x, %c0 : !tile.frag<64x256xi1, wgmma_acc>, !tile.frag<64x256xf32, wgmma_acc>, f32 -> !tile.frag<64x256xf32, wgmma_acc>`
  }];
  let arguments = (ins Tile_AnyFrag:$condition, Tile_FragOperand:$true_value,
                       Tile_FragOperand:$false_value);
  let results = (outs Tile_AnyFrag:$result);
  let assemblyFormat = [{
    $condition `,` $true_value `,` $false_value attr-dict `:` type($condition)
    `,` type($true_value) `,` type($false_value) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_FragReduceOp : Tile_Op<"frag.reduce", [Pure]> {
  let summary = "reduce a fragment along its rows or columns";
  let description = [{
    `axis 1` combines the elements of each row and gives a `rows` broadcast
    fragment, `axis 0` those of each column and gives a `cols` one. Each
    thread combines its own elements, then the lanes that hold the same row
    exchange partial results with shuffles (the 4 lanes of a quad in
    wgmma_acc, none in row_per_thread); the whole warpgroup runs it. A line
    that threads of several warps share would need shared memory, which the
    op does not use: that is an error.
    `%s = tile.frag.reduce sum %x axis 1 : !tile.frag<64x256xf32, wgmma_acc> -> !tile.frag<64x256xf32, wgmma_acc, rows>`

    `groups G` (G of 2, 4 or 8; a wgmma_acc fragment, axis 1) reduces each
    row of each of G equal column groups on its own and gives the G x R
    `quad_spread` fragment of the results (R the source's rows; element
    (g, r) is group g of row r): instead of every lane of a quad ending with
    every result of its rows, the butterfly hands half of the results to
    each partner at each step (a select, a shuffle and an add per pair), so
    each result ends in one thread and what follows (scales, masks, casts,
    stores) runs on G / 2 registers per 64 rows instead of 2 G. The MQA
    logits kernels reduce the heads of several queries at once so.
    `%l = tile.frag.reduce sum %x axis 1 groups 2 : !tile.frag<64x16xf32, wgmma_acc> -> !tile.frag<2x64xf32, quad_spread>`
  }];
  let arguments = (ins Tile_FragReduceKind:$kind, Tile_AnyFrag:$source,
                       I64Attr:$axis, DefaultValuedAttr<I64Attr, "1">:$groups);
  let results = (outs Tile_AnyFrag:$result);
  let assemblyFormat = [{
    $kind $source `axis` $axis (`groups` $groups^)? attr-dict `:`
    type($source) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_FragSliceOp : Tile_Op<"frag.slice", [Pure]> {
  let summary = "the columns [col, col + width) of a fragment, as a fragment";
  let description = [{
    Takes the registers that hold the columns `col` to `col` plus the
    result's width of every row: no data moves. The result keeps the
    source's rows, layout, broadcast and element type. In `wgmma_acc` each
    thread holds column pairs of 8-column groups, so the slice starts and
    ends on a multiple of 8; `row_per_thread` slices at any column.
    `%q = tile.frag.slice %acc cols 64 : !tile.frag<64x128xf32, wgmma_acc> -> !tile.frag<64x64xf32, wgmma_acc>`
  }];
  let arguments = (ins Tile_AnyFrag:$source, I64Attr:$col);
  let results = (outs Tile_AnyFrag:$result);
  let assemblyFormat = [{
    $source `cols` $col attr-dict `:` type($source) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_FragInsertOp : Tile_Op<"frag.insert",
    [Pure, AllTypesMatch<["dest", "result"]>]> {
  let summary = "a fragment with its columns [col, col + width) replaced";
  let description = [{
    The inverse of tile.frag.slice: `dest` with the registers that hold the
    columns `col` to `col` plus the source's width taken from `source`; no
    data moves. The source keeps the destination's rows, layout, broadcast
    and element type, and the columns are whole register groups of every
    thread, as for a slice. It gathers results computed one column slice
    at a time into one fragment (the MQA kernels' per-query head sums,
    reduced together by tile.frag.reduce with groups).
    `%p1 = tile.frag.insert %part into %p0 cols 8 : !tile.frag<64x8xf32, wgmma_acc> into !tile.frag<64x16xf32, wgmma_acc>`
  }];
  let arguments = (ins Tile_AnyFrag:$source, Tile_AnyFrag:$dest, I64Attr:$col);
  let results = (outs Tile_AnyFrag:$result);
  let assemblyFormat = [{
    $source `into` $dest `cols` $col attr-dict `:` type($source) `into`
    type($dest)
  }];
  let hasVerifier = 1;
}

def Tile_FragStoreOp : Tile_Op<"frag.store"> {
  let summary = "each thread stores its fragment elements into a shared tile";
  let description = [{
    The leading indices select the tile; the last index is the first row.
    The swizzle of the buffer is applied. A broadcast fragment writes its
    value to every element of its row (column).
    `tile.frag.store %h, %d[%row] : !tile.frag<64x256xbf16, wgmma_acc>, !tile.smem<128x256xbf16, swizzle_128b>`
  }];
  let arguments = (ins Tile_AnyFrag:$value,
                       Arg<Tile_AnySmem, "", [MemWrite]>:$dst,
                       Variadic<I32>:$indices);
  let assemblyFormat =
      "$value `,` $dst `[` $indices `]` attr-dict `:` type($value) `,` type($dst)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Synchronisation
//===----------------------------------------------------------------------===//

def Tile_SyncOp : Tile_Op<"sync", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "a CTA, cluster or warpgroup barrier";
  let description = [{
    A warpgroup sync waits for the 128 threads of the calling warpgroup; its
    named-barrier id is assigned by tile-assign-named-barriers.
    `tile.sync warpgroup`
  }];
  let arguments = (ins Tile_SyncScope:$scope, OptionalAttr<I64Attr>:$barrier_id);
  let assemblyFormat = "$scope attr-dict";
}

def Tile_GridSyncOp : Tile_Op<"grid_sync", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "a barrier of every CTA of the grid, through a global counter";
  let description = [{
    Every thread of every CTA waits until all CTAs have reached the sync,
    and what any of them wrote before it is visible to all after it. Thread
    0 of each CTA, between two CTA barriers, adds 1 to the i32 element
    `counter[indices]` (release, GPU scope) and waits for the counter to
    reach the next multiple of the CTA count (acquire loads), fenced as
    CUDA's grid.sync() is. The counter must be zero when the kernel's
    first launch starts and is never reset: each sync moves it on by one
    CTA count, so later launches and syncs continue from where it stands.
    Every CTA must be resident at once, so the kernel has a persistent grid
    (one CTA per SM); no role or single-thread block may hold the sync (the
    others never reach it). An index outside the tensor makes it no sync.

    `tile.grid_sync %counter[%c0] : !tile.global<?xi32>`
  }];
  let arguments = (ins Arg<Tile_AnyGlobal, "", [MemRead, MemWrite]>:$counter,
                       Variadic<I32>:$indices);
  let assemblyFormat = "$counter `[` $indices `]` attr-dict `:` type($counter)";
  let hasVerifier = 1;
}

def Tile_FenceOp : Tile_Op<"fence", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "a memory-ordering fence";
  let description = [{
    `proxy_async` makes this thread's generic shared-memory writes visible to
    TMA and the tensor cores. `tile.fence proxy_async`
  }];
  let arguments = (ins Tile_FenceKind:$kind);
  let assemblyFormat = "$kind attr-dict";
}

//===----------------------------------------------------------------------===//
// Tile scheduler
//===----------------------------------------------------------------------===//

def Tile_SchedNumTilesOp : Tile_Op<"sched.num_tiles", [Pure]> {
  let summary = "the number of output tiles of an M x N or batch x M x N problem";
  let description = [{
    The extents are given outermost first, two (m, n) or three (batch, m, n),
    with one positive block size each; each extent is rounded up to whole
    blocks. Extents may be run-time values: with block sizes of 1 they are
    counts of tiles already (a group's `ceildiv(masked_m[g], BLK_M)`).

    ```mlir
    %n = tile.sched.num_tiles %M, %N block [128, 256]
    %nb = tile.sched.num_tiles %B, %M, %N block [1, 128, 256]
    ```
  }];
  let arguments = (ins Variadic<I32>:$dims, DenseI64ArrayAttr:$block);
  let results = (outs I32:$result);
  let assemblyFormat = "$dims `block` $block attr-dict";
  let hasVerifier = 1;
}

def Tile_SchedCoordsOp : Tile_Op<"sched.coords", [Pure,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>]> {
  let summary = "the block indices of linear tile `tile`, grouped for L2 reuse";
  let description = [{
    One block index per extent (the extents and blocks of
    `tile.sched.num_tiles`). Tiles are visited in groups of `group` block
    rows so that CTAs running at the same time share A and B tiles in L2
    (DeepGEMM's swizzled block index). With three extents the walk is
    batch-major: all tiles of batch 0 first, and the groups lie within a
    batch.

    ```mlir
    %mi, %ni = tile.sched.coords %t, %M, %N block [128, 256] group 8
    %b, %mi, %ni = tile.sched.coords %t, %B, %M, %N block [1, 128, 256] group 8
    ```
  }];
  let arguments = (ins I32:$tile, Variadic<I32>:$dims,
                       DenseI64ArrayAttr:$block,
                       DefaultValuedAttr<I64Attr, "1">:$group);
  let results = (outs Variadic<I32>:$blocks);
  let assemblyFormat = [{
    $tile `,` $dims `block` $block (`group` $group^)?
    `` custom<OneI32PerExtent>(ref($dims), type($blocks)) attr-dict
  }];
  let builders = [
    // One i32 block index per extent.
    OpBuilder<(ins "Value":$tile, "ValueRange":$dims,
                   "ArrayRef<int64_t>":$block, "uint64_t":$group)>
  ];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Loads into registers and guarded stores (LoadOps.cpp)
//===----------------------------------------------------------------------===//

def Tile_LoadOp : Tile_Op<"load", [AttrSizedOperandSegments]> {
  let summary = "each thread reads one element of a global tensor or a shared buffer";
  let description = [{
    One index per dimension. From global memory the address is the tensor's
    pointer parameter plus its strides, and an index outside the tensor
    (a runtime dimension included) reads `other`, or 0 without it, instead
    of memory. `nc` (set by tile-dispatch where the kernel never writes the
    tensor) reads through the read-only cache, `ld.global.nc`. Shared
    buffers are read as they are (`ld.shared`), unswizzled, unguarded.
    `order acquire` (with a `scope`, default gpu) is an acquiring global
    load, `ld.acquire.scope`: what the writer released before the value it
    reads is visible after it (a flag another CTA or GPU set).

    ```mlir
    %g = tile.load %grp[%mb] : !tile.global<?xi32> -> i32
    %x = tile.load %s[%stage, %i] : !tile.smem<4x128xf32> -> f32
    ```
  }];
  let arguments = (ins Arg<Tile_CopyOperand, "", [MemRead]>:$source,
                       Variadic<I32>:$indices,
                       Optional<AnyTypeOf<[I32, I64, F32]>>:$other,
                       UnitAttr:$nc,
                       OptionalAttr<Tile_MemoryOrder>:$order,
                       OptionalAttr<Tile_MemoryScope>:$scope);
  let results = (outs AnyTypeOf<[I32, I64, F32]>:$result);
  let assemblyFormat = [{
    $source `[` $indices `]` (`other` $other^ `:` type($other))?
    (`order` $order^)? (`scope` $scope^)? attr-dict
    `:` type($source) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_PeerViewOp : Tile_Op<"peer_view", [Pure, AllTypesMatch<["tensor", "result"]>]> {
  let summary = "the same tensor in another GPU's memory, `offset` bytes away";
  let description = [{
    A symmetric buffer (NVSHMEM's, PyTorch's symmetric memory) has the same
    shape on every rank and each rank's copy mapped into this GPU's address
    space; `offset` is the peer's copy's address minus this one's (DeepGEMM's
    SymBuffer: a base and per-rank offsets, loaded from a table the engine
    filled). Loads, stores of fragments and atomics through the view reach
    the peer's memory (over NVLink); a TMA copy cannot use it (its tensor
    map is the host's, for this GPU's copy). A kernel that takes a peer view
    of a tensor never reads that tensor through the read-only cache: peers
    write it.

    `%peer = tile.peer_view %X, %offset : !tile.global<?xi32>`
  }];
  let arguments = (ins Tile_AnyGlobal:$tensor, I64:$offset);
  let results = (outs Tile_AnyGlobal:$result);
  let assemblyFormat = "$tensor `,` $offset attr-dict `:` type($tensor)";
}

def Tile_AtomicOp : Tile_Op<"atomic", [AllTypesMatch<["value", "old"]>]> {
  let summary = "each thread updates one element of a global tensor atomically";
  let description = [{
    `kind` (add, max, min, exch) combines `value` with the element and the
    op gives the element's old value. `order` (relaxed, acquire, release,
    acq_rel; default relaxed) and `scope` (cta, cluster, gpu, sys; default
    gpu) are PTX's: a release at sys scope makes this thread's earlier
    writes visible to any thread, on any GPU, that acquires the element
    after it (the signals of a cross-GPU barrier). An index outside the
    tensor updates nothing and gives 0, as a guarded load reads 0. Where
    the old value is not used the update is PTX's `red` (no result).

    ```mlir
    %old = tile.atomic add %count[%i], %one order release scope sys : !tile.global<?xi32>, i32
    ```
  }];
  let arguments = (ins Tile_AtomicKind:$kind,
                       Arg<Tile_AnyGlobal, "", [MemRead, MemWrite]>:$dest,
                       Variadic<I32>:$indices,
                       AnyTypeOf<[I32, F32]>:$value,
                       DefaultValuedAttr<Tile_MemoryOrder,
                                         "::mlir::tile::MemoryOrder::relaxed">:$order,
                       DefaultValuedAttr<Tile_MemoryScope,
                                         "::mlir::tile::MemoryScope::gpu">:$scope);
  let results = (outs AnyTypeOf<[I32, F32]>:$old);
  let assemblyFormat = [{
    $kind $dest `[` $indices `]` `,` $value (`order` $order^)? (`scope` $scope^)?
    attr-dict `:` type($dest) `,` type($value)
  }];
  let hasVerifier = 1;
}

def Tile_StoreOp : Tile_Op<"store"> {
  let summary = "each thread writes one element of a shared buffer or a global tensor";
  let description = [{
    One index per dimension. Into shared memory: `st.shared`, unswizzled,
    unguarded; with tile.load, how a warpgroup stages a small table (a
    tile's scale factors) in shared memory for its threads to read; 16-bit
    floats too, as a row of -inf that TMA stores into bf16 logits. Into a
    global tensor (or a peer's view of one): a `st.global` guarded by the
    tensor's dimensions, as a scalar load is (an index outside writes
    nothing): each thread its own element, as a routing kernel writes a
    table.

    ```mlir
    tile.store %x, %s[%wg, %i] : f32, !tile.smem<2x128xf32, none>
    tile.store %n, %T[%r, %p] : i32, !tile.global<?x?xi32>
    ```
  }];
  let arguments = (ins AnyTypeOf<[I32, F32, F16, BF16]>:$value,
                       Arg<AnyTypeOf<[Tile_SmemType, Tile_AnyGlobal]>, "", [MemWrite]>:$dest,
                       Variadic<I32>:$indices);
  let assemblyFormat = [{
    $value `,` $dest `[` $indices `]` attr-dict `:` type($value) `,` type($dest)
  }];
  let hasVerifier = 1;
}

def Tile_FragLoadOp : Tile_Op<"frag.load", [AttrSizedOperandSegments]> {
  let summary = "each thread reads the elements of a fragment it holds from memory";
  let description = [{
    One index per dimension of the source, each the start of that dimension
    (a leading index selects a row or a stage). A full fragment reads the
    tile at (second-to-last, last) = (first row, first column); a `rows`
    fragment reads one value per row along the source's last dimension from
    the last index on (per-row scales), a `cols` fragment one value per
    column (a bias). The element type is the source's.

    From global memory every access is guarded by the tensor's dimensions:
    past the edge it reads `other` (or 0) instead of memory; `nc` reads
    through the read-only cache. `vector` (set by tile-dispatch) is the
    number of consecutive columns one access reads. Shared buffers are
    read unswizzled and unguarded.

    With `rows` (a gather, global tensors only) row r of a full fragment
    reads the tensor's row `start + rows[r]`, `rows` an i32 rows fragment
    of the same shape and layout (one row number per row: token ids);
    a row number outside the tensor reads `other` (a negative one too).

    ```mlir
    %sa = tile.frag.load %sfa[%s, %row] : !tile.smem<4x128xf32> -> !tile.frag<64x256xf32, wgmma_acc, rows>
    %r = tile.frag.load %R[%m, %n] {nc, vector = 2 : i64} : !tile.global<?x?xbf16> -> !tile.frag<64x256xbf16, wgmma_acc>
    %g = tile.frag.load %X[%c0, %n] rows %ids : !tile.frag<128x32xi32, row_per_thread, rows> : !tile.global<?x?xi32> -> !tile.frag<128x32xi32, row_per_thread>
    ```
  }];
  let arguments = (ins Arg<Tile_CopyOperand, "", [MemRead]>:$source,
                       Variadic<I32>:$indices,
                       Optional<Tile_AnyFrag>:$rows,
                       Optional<AnyType>:$other,
                       UnitAttr:$nc,
                       OptionalAttr<I64Attr>:$vector);
  let results = (outs Tile_AnyFrag:$result);
  let assemblyFormat = [{
    $source `[` $indices `]` (`rows` $rows^ `:` type($rows))?
    (`other` $other^ `:` type($other))? attr-dict
    `:` type($source) `->` type($result)
  }];
  let extraClassDeclaration = [{
    /// Consecutive columns per access (1 until tile-dispatch sets it).
    int64_t getVectorWidth() { return getVector().value_or(1); }
  }];
  let hasVerifier = 1;
}

def Tile_FragStoreGlobalOp : Tile_Op<"frag.store_global", [AttrSizedOperandSegments]> {
  let summary = "each thread writes its fragment elements into a global tensor, guarded";
  let description = [{
    The leading indices select the tile; the last two are its first row and
    first column. Elements outside the tensor are not written (partial
    tiles). `vector` (set by tile-dispatch) is the number of consecutive
    columns one store writes: bf16 pairs as 32-bit stores. A broadcast
    fragment writes the full tile it stands for; with `lines` it writes
    instead its one value per row (`rows`) or per column (`cols`) along the
    tensor's last dimension from the last index on, the inverse of
    tile.frag.load of a broadcast fragment (one logit per row of a tile),
    each value by one of the threads that hold it. With `rows` (a scatter)
    row r of a full fragment goes to the tensor's row `start + rows[r]`,
    `rows` an i32 rows fragment of the same shape and layout; a row number
    outside the tensor (-1) writes nothing.
    `tile.frag.store_global %out, %D[%m, %n] : !tile.frag<64x256xbf16, wgmma_acc>, !tile.global<?x?xbf16>`
    `tile.frag.store_global %v, %L[%q, %kv] {lines} : !tile.frag<64x64xf32, wgmma_acc, rows>, !tile.global<?x?xf32>`
    `tile.frag.store_global %x, %D[%c0, %n] rows %slots : !tile.frag<128x32xi32, row_per_thread, rows> : !tile.frag<128x32xi32, row_per_thread>, !tile.global<?x?xi32>`
  }];
  let arguments = (ins Tile_AnyFrag:$value,
                       Arg<Tile_AnyGlobal, "", [MemWrite]>:$dst,
                       Variadic<I32>:$indices,
                       Optional<Tile_AnyFrag>:$rows,
                       OptionalAttr<I64Attr>:$vector,
                       UnitAttr:$lines);
  let assemblyFormat = [{
    $value `,` $dst `[` $indices `]` (`rows` $rows^ `:` type($rows))? attr-dict
    `:` type($value) `,` type($dst)
  }];
  let extraClassDeclaration = [{
    int64_t getVectorWidth() { return getVector().value_or(1); }
  }];
  let hasVerifier = 1;
}

#endif // TILE_OPS_TD

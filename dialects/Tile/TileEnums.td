//===- TileEnums.td - enums and attributes of the tile dialect -*- tablegen -*-===//

#ifndef TILE_ENUMS_TD
#define TILE_ENUMS_TD

include "mlir/IR/EnumAttr.td"
include "TileDialect.td"

// The values follow tilec::vocab::Target (runtime/include/tilec/Vocabulary.h),
// the one list of targets; TileOps.cpp checks they agree.
def Tile_Target : I32EnumAttr<"Target", "the GPU architecture a kernel is compiled for", [
    I32EnumAttrCase<"sm_90a", 0>,
    I32EnumAttrCase<"sm_100a", 1>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::tile";
}
def Tile_TargetAttr : EnumAttr<Tile_Dialect, Tile_Target, "target"> {
  let assemblyFormat = "`<` $value `>`";
}

// The values are the span in bytes, as tilec::vocab::Swizzle's.
def Tile_Swizzle : I32EnumAttr<"Swizzle", "shared-memory swizzle mode", [
    I32EnumAttrCase<"none", 0>,
    I32EnumAttrCase<"swizzle_32b", 32>,
    I32EnumAttrCase<"swizzle_64b", 64>,
    I32EnumAttrCase<"swizzle_128b", 128>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::tile";
}
def Tile_SwizzleAttr : EnumAttr<Tile_Dialect, Tile_Swizzle, "swizzle"> {
  let assemblyFormat = "`<` $value `>`";
}

def Tile_BarrierKind : I32EnumAttr<"BarrierKind", "what completes a barrier phase", [
    I32EnumAttrCase<"tma", 0>,      // arrive.expect_tx + TMA transaction bytes
    I32EnumAttrCase<"mma", 1>,      // completed by tcgen05.commit / MMA consumers
    I32EnumAttrCase<"threads", 2>]> { // n thread arrivals
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::tile";
}
def Tile_BarrierKindAttr : EnumAttr<Tile_Dialect, Tile_BarrierKind, "barrier_kind"> {
  let assemblyFormat = "`<` $value `>`";
}

def Tile_FragLayout : I32EnumAttr<"FragLayout", "how a register fragment maps to threads", [
    // The wgmma accumulator layout: a warpgroup holds 64-row blocks; thread t
    // of the warpgroup holds rows 16*(t/32) + (t%32)/4 (+8) and column pairs.
    I32EnumAttrCase<"wgmma_acc", 0>,
    // One row per thread of the warpgroup, all columns in that thread
    // (the article's S[(128, N) : (1@tid_in_wg, 1)], what tcgen05.ld 32x32b gives).
    I32EnumAttrCase<"row_per_thread", 1>,
    // What a grouped row reduction of a wgmma_acc fragment gives
    // (tile.frag.reduce groups G): a G x N tile, N the accumulator's rows,
    // each element in one thread; the 4 lanes of a quad split a row's G
    // group results (lib/Support/FragmentLayout.h has the map).
    I32EnumAttrCase<"quad_spread", 2>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::tile";
}
def Tile_FragLayoutAttr : EnumAttr<Tile_Dialect, Tile_FragLayout, "frag_layout"> {
  let assemblyFormat = "`<` $value `>`";
}

def Tile_CopyDispatch : I32EnumAttr<"CopyDispatch", "instruction family for copy_async", [
    I32EnumAttrCase<"auto_", 0, "auto">,
    I32EnumAttrCase<"tma", 1>,
    // cp.async.bulk without a tensor map: rank-1 tiles a tensor map cannot box.
    I32EnumAttrCase<"bulk", 2>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::tile";
}
def Tile_CopyDispatchAttr : EnumAttr<Tile_Dialect, Tile_CopyDispatch, "copy_dispatch"> {
  let assemblyFormat = "`<` $value `>`";
}

def Tile_GemmDispatch : I32EnumAttr<"GemmDispatch", "instruction family for gemm_async", [
    I32EnumAttrCase<"auto_", 0, "auto">,
    I32EnumAttrCase<"wgmma", 1>,
    I32EnumAttrCase<"tcgen05", 2>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::tile";
}
def Tile_GemmDispatchAttr : EnumAttr<Tile_Dialect, Tile_GemmDispatch, "gemm_dispatch"> {
  let assemblyFormat = "`<` $value `>`";
}

// Which dimension of an MMA operand tile is contiguous in shared memory
// (tilec::MmaMajor): k, a [M, K] / [N, K] tile; mn, a [K, M] / [K, N] tile.
def Tile_MmaMajor : I32EnumAttr<"MmaMajor", "the contiguous dimension of an MMA operand", [
    I32EnumAttrCase<"k", 0>,
    I32EnumAttrCase<"mn", 1>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::tile";
}
def Tile_MmaMajorAttr : EnumAttr<Tile_Dialect, Tile_MmaMajor, "mma_major"> {
  let assemblyFormat = "`<` $value `>`";
}

def Tile_IdKind : I32EnumAttr<"IdKind", "a thread or block identity", [
    I32EnumAttrCase<"cta", 0>,                  // linear CTA index in the grid
    I32EnumAttrCase<"num_ctas", 1>,             // CTAs in the grid
    I32EnumAttrCase<"cta_in_cluster", 2>,       // rank of the CTA in its cluster
    I32EnumAttrCase<"cluster", 3>,              // linear cluster index in the grid
    I32EnumAttrCase<"num_clusters", 4>,         // clusters in the grid
    I32EnumAttrCase<"warpgroup", 5>,            // warpgroup index in the CTA
    I32EnumAttrCase<"warp_in_warpgroup", 6>,    // warp index in its warpgroup
    I32EnumAttrCase<"lane", 7>,                 // lane index in its warp
    I32EnumAttrCase<"thread_in_warpgroup", 8>,  // thread index in its warpgroup
    I32EnumAttrCase<"thread", 9>,               // thread index in the CTA
    I32EnumAttrCase<"cta_x", 10>,               // CTA index along grid x
    I32EnumAttrCase<"cta_y", 11>,               // CTA index along grid y
    I32EnumAttrCase<"cta_z", 12>]> {            // CTA index along grid z
  let cppNamespace = "::mlir::tile";
}

def Tile_SyncScope : I32EnumAttr<"SyncScope", "the threads a sync waits for", [
    I32EnumAttrCase<"cta", 0>,
    I32EnumAttrCase<"cluster", 1>,
    I32EnumAttrCase<"warpgroup", 2>]> {
  let cppNamespace = "::mlir::tile";
}

def Tile_ThreadScope : I32EnumAttr<"ThreadScope", "a group of threads", [
    I32EnumAttrCase<"warp", 0>,
    I32EnumAttrCase<"warpgroup", 1>,
    I32EnumAttrCase<"cta", 2>]> {
  let cppNamespace = "::mlir::tile";
}

def Tile_FenceKind : I32EnumAttr<"FenceKind", "a memory fence", [
    // generic-proxy shared-memory writes made visible to TMA / tensor cores
    I32EnumAttrCase<"proxy_async", 0>,
    // barrier initialisation made visible to the cluster and the TMA unit
    I32EnumAttrCase<"mbarrier_init", 3>,
    // tcgen05 ordering around thread syncs
    I32EnumAttrCase<"tcgen05_before_sync", 1>,
    I32EnumAttrCase<"tcgen05_after_sync", 2>]> {
  let cppNamespace = "::mlir::tile";
}

def Tile_GridPolicy : I32EnumAttr<"GridPolicy", "how the launch grid is chosen", [
    I32EnumAttrCase<"fixed", 0>,
    I32EnumAttrCase<"persistent", 1>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::tile";
}
def Tile_GridPolicyAttr : EnumAttr<Tile_Dialect, Tile_GridPolicy, "grid_policy"> {
  let assemblyFormat = "`<` $value `>`";
}

// What a register fragment keeps of its layout: every element, or one value
// per row (or column) the thread covers (lib/Support/FragmentLayout.h).
def Tile_FragBroadcast : I32EnumAttr<"FragBroadcast", "the broadcast form of a register fragment", [
    I32EnumAttrCase<"none", 0>,
    I32EnumAttrCase<"rows", 1>,
    I32EnumAttrCase<"cols", 2>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::tile";
}

def Tile_FragUnaryKind : I32EnumAttr<"FragUnaryKind", "elementwise math of one fragment", [
    I32EnumAttrCase<"neg", 0>,
    I32EnumAttrCase<"abs", 1>,
    I32EnumAttrCase<"exp2", 2>,   // ex2.approx.ftz.f32
    I32EnumAttrCase<"exp", 3>,    // exp2(x * log2(e))
    I32EnumAttrCase<"rsqrt", 4>,  // rsqrt.approx.ftz.f32
    I32EnumAttrCase<"rcp", 5>,    // rcp.approx.ftz.f32
    I32EnumAttrCase<"relu", 6>]> { // max(x, 0)
  let cppNamespace = "::mlir::tile";
}

def Tile_FragBinaryKind : I32EnumAttr<"FragBinaryKind", "elementwise math of two operands", [
    I32EnumAttrCase<"add", 0>,
    I32EnumAttrCase<"mul", 1>,
    I32EnumAttrCase<"max", 2>,
    I32EnumAttrCase<"min", 3>,
    I32EnumAttrCase<"sub", 4>,
    I32EnumAttrCase<"div", 5>]> {
  let cppNamespace = "::mlir::tile";
}

// Ordered, as the DSL's scalar comparisons: false when either side is NaN.
def Tile_FragCmpPredicate : I32EnumAttr<"FragCmpPredicate", "an elementwise comparison", [
    I32EnumAttrCase<"lt", 0>,
    I32EnumAttrCase<"le", 1>,
    I32EnumAttrCase<"gt", 2>,
    I32EnumAttrCase<"ge", 3>,
    I32EnumAttrCase<"eq", 4>,
    I32EnumAttrCase<"ne", 5>]> {
  let cppNamespace = "::mlir::tile";
}

def Tile_FragReduceKind : I32EnumAttr<"FragReduceKind", "how a reduction combines elements", [
    I32EnumAttrCase<"sum", 0>,
    I32EnumAttrCase<"max", 1>,
    I32EnumAttrCase<"min", 2>]> {
  let cppNamespace = "::mlir::tile";
}

// The memory-consistency qualifiers of PTX's atomics and ordered loads
// (atom{.sem}{.scope}, ld.acquire{.scope}).
def Tile_MemoryOrder : I32EnumAttr<"MemoryOrder", "the ordering an atomic or load gives", [
    I32EnumAttrCase<"relaxed", 0>,
    I32EnumAttrCase<"acquire", 1>,
    I32EnumAttrCase<"release", 2>,
    I32EnumAttrCase<"acq_rel", 3>]> {
  let cppNamespace = "::mlir::tile";
}

// The threads an ordering holds among: the CTA, the cluster, the GPU, or
// every GPU and the host (sys: peers' memory over NVLink).
def Tile_MemoryScope : I32EnumAttr<"MemoryScope", "the threads an ordering holds among", [
    I32EnumAttrCase<"cta", 0>,
    I32EnumAttrCase<"cluster", 1>,
    I32EnumAttrCase<"gpu", 2>,
    I32EnumAttrCase<"sys", 3>]> {
  let cppNamespace = "::mlir::tile";
}

def Tile_AtomicKind : I32EnumAttr<"AtomicKind", "what an atomic does to memory", [
    I32EnumAttrCase<"add", 0>,
    I32EnumAttrCase<"max", 1>,
    I32EnumAttrCase<"min", 2>,
    I32EnumAttrCase<"exch", 3>]> {
  let cppNamespace = "::mlir::tile";
}

#endif // TILE_ENUMS_TD

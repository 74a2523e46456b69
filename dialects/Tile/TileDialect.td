//===- TileDialect.td - the tile dialect definition ------------*- tablegen -*-===//

#ifndef TILE_DIALECT_TD
#define TILE_DIALECT_TD

include "mlir/IR/OpBase.td"

def Tile_Dialect : Dialect {
  let name = "tile";
  let cppNamespace = "::mlir::tile";
  let summary = "Explicit GPU tile kernels: scopes, layouts, barriers, async copies and MMAs";
  let description = [{
    The tile dialect describes a GPU kernel at the level of the TIRx article:
    explicit thread scopes (CTA, warpgroup, warp, thread), explicit layouts
    (swizzled shared memory, tensor memory, register fragments), pipeline
    states (stage + phase), mbarriers, and asynchronous copies and MMAs whose
    instruction (TMA, wgmma, tcgen05) is chosen by the dispatch pass.
  }];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  // Attributes the passes put on ops of other dialects.
  let discardableAttrs = (ins
    "KernelAbiAttr":$kernel_abi,
    "::mlir::IntegerAttr":$arg,
    // On an scf.for: tile-unroll-loops repeats its body this many times.
    "::mlir::IntegerAttr":$unroll,
    // On an scf.for: tile-test-ahead tests the next iteration's barrier
    // waits during this one's MMA wait.
    "::mlir::UnitAttr":$test_ahead
  );
  let hasOperationAttrVerify = 1;
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::scf::SCFDialect"
  ];
}

class Tile_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tile_Dialect, mnemonic, traits>;

#endif // TILE_DIALECT_TD

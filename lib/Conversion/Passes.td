//===- Passes.td - conversion of the tile dialect to NVVM ------*- tablegen -*-===//

#ifndef TILE_CONVERSION_PASSES_TD
#define TILE_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileConvertToNVVM : Pass<"tile-convert-to-nvvm", "::mlir::ModuleOp"> {
  let summary = "Lower tile kernels to the LLVM and NVVM dialects";
  let description = [{
    Each `tile.kernel` becomes an `llvm.func` kernel whose parameters follow
    the kernel's ABI (KernelOp::getAbi, from the tensor maps tile-dispatch
    put on the copies): every tensor map is a
    `!llvm.ptr` argument with `llvm.byval = !llvm.array<128 x i8>`,
    `llvm.align = 64` and `nvvm.grid_constant` (passed by value, never through
    global memory), then one i32 per dynamic dimension, then the scalars. The
    function gets `nvvm.kernel`, `nvvm.reqntid` (warpgroups x 128) and
    `nvvm.minctasm = 1` (without both, ptxas ignores setmaxnreg) and, for
    clusters, `nvvm.cluster_dim`. The ABI (parameters, argument names and
    types, shared memory, grid, cluster, target) stays on the function as
    one typed `tile.kernel_abi` attribute for the bundle writer. The body's ops become TMA, mbarrier, wgmma, tcgen05 and
    shared-memory operations; scf and arith are lowered to LLVM too.

    Before:
    ```mlir
    tile.kernel @copy(%x: !tile.global<?x?xbf16>, ...) attributes {...} {
      tile.copy_async %buf[], %x[%m, %n] barrier %full[%c0]
          {tensormap = #tile.tensormap<arg = 0, box = [64, 128], swizzle = swizzle_128b>} : ...
    }
    ```
    After:
    ```mlir
    llvm.func @copy(%tmap0: !llvm.ptr {llvm.align = 64 : i64,
                    llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}, ...)
        attributes {nvvm.kernel, nvvm.reqntid = array<i32: 128, 1, 1>,
                    tile.kernel_abi = #tile.kernel_abi<...>} {
      nvvm.cp.async.bulk.tensor.shared.cluster.global %dst, %tmap0, %bar, box[%n, %m] : ...
    }
    ```
  }];
  let options = [
    Option<"verifyResult", "verify-result", "bool", /*default=*/"true",
           "Verify the converted module in the pass, so that invalid IR a "
           "pattern built is reported as an internal compiler error (tilec "
           "turns it off: it verifies once, the same way, after the whole "
           "pipeline)">
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect", "::mlir::NVVM::NVVMDialect",
                           "::mlir::scf::SCFDialect", "::mlir::cf::ControlFlowDialect",
                           "::mlir::arith::ArithDialect"];
}

#endif // TILE_CONVERSION_PASSES_TD

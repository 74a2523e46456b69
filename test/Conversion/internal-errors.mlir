// RUN: not tile-opt %s --tile-convert-to-nvvm --split-input-file --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s
// When tile-convert-to-nvvm fails, the kernel has passed the verifiers and
// the tile passes: the failure is the compiler's. It is reported as an
// internal compiler error naming the tile op, with what went wrong as notes
// (here the conversion runs without the passes it needs before it).

// An op no pattern lowers (tile-warp-specialize removes roles).
// CHECK: internal-errors.mlir:[[@LINE+3]]:3: error: internal compiler error: tile-convert-to-nvvm could not lower 'tile.role'; this is a bug in tilec, not in the kernel
// CHECK: internal-errors.mlir:[[@LINE+2]]:3: note: failed to legalize operation 'tile.role' that was explicitly marked illegal
tile.kernel @role_left() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  tile.role "math" warpgroups [0] {
  }
}

// -----

// A pattern that fails: its message and the failed legalization are two
// notes of one error.
// CHECK: internal-errors.mlir:[[@LINE+4]]:8: error: internal compiler error: tile-convert-to-nvvm could not lower 'tile.smem_alloc'; this is a bug in tilec, not in the kernel
// CHECK: internal-errors.mlir:[[@LINE+3]]:8: note: 'tile.smem_alloc' op has no offset; run tile-allocate-smem first
// CHECK: internal-errors.mlir:[[@LINE+2]]:8: note: failed to legalize operation 'tile.smem_alloc' that was explicitly marked illegal
tile.kernel @unallocated() attributes {target = #tile.target<sm_90a>, warpgroups = 1 : i64, grid = #tile.grid_policy<persistent>} {
  %d = tile.smem_alloc : !tile.smem<64x16xbf16, none>
  %z = tile.frag.zero : !tile.frag<64x16xbf16, wgmma_acc>
  %c0 = arith.constant 0 : i32
  tile.frag.store %z, %d[%c0] : !tile.frag<64x16xbf16, wgmma_acc>, !tile.smem<64x16xbf16, none>
}

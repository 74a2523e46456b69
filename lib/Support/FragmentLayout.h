//===- FragmentLayout.h - which thread holds which fragment element -*- C++
//-*-===//
//
// Part of tilec. TileSupport is plain C++17: no LLVM, MLIR or CUDA headers.
//
//===----------------------------------------------------------------------===//
//
// A register fragment is a Rows x Cols tile held by the 128 threads of a
// warpgroup. Its layout says which (row, column) register Reg of thread T
// holds: the wgmma accumulator (wgmmaAccumulatorCoord in MmaTypes.h, 64-row
// block after 64-row block) or one row per thread (what tcgen05.ld 32x32b
// gives). A broadcast fragment keeps one value per row (or per column) that
// the thread's full fragment covers: a per-row scale, a bias along N, the
// result of a reduction. Everything below is derived from fragmentCoord, the
// one map of each layout.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_SUPPORT_FRAGMENTLAYOUT_H
#define TILEC_SUPPORT_FRAGMENTLAYOUT_H

#include "lib/Support/MmaTypes.h"

#include <cstdint>
#include <vector>

namespace tilec {

/// How a fragment's elements map to the threads of a warpgroup.
enum class FragmentLayout : uint8_t {
  /// The wgmma accumulator, 64-row blocks of Cols/2 registers each.
  WgmmaAccumulator,
  /// Thread t holds row t, every column (128 rows).
  RowPerThread,
  /// What a grouped row reduction of a wgmma accumulator leaves: a G x N
  /// tile (G groups, a power of two from 2 to 8; N a multiple of 64, the
  /// accumulator's rows) whose elements each live in one thread. Thread t
  /// holds, per 64-column block, column 16(t/32) + (t%32)/4 + 8(t%2) and
  /// rows ((t%4)/2) * G/2 + r for r < G/2: the quad's 4 lanes split the
  /// accumulator rows' group sums instead of all holding all of them.
  QuadSpread,
};

/// What a fragment keeps of its full layout.
enum class FragmentBroadcast : uint8_t {
  None, ///< every element
  Rows, ///< one value per row the thread covers
  Cols, ///< one value per column the thread covers
};

/// The layout and the tile shape of a fragment. The fragment types' verifier
/// checks the shape (wgmma_acc: Rows a multiple of 64, Cols of 8; row per
/// thread: 128 rows; quad spread: Rows 2, 4 or 8, Cols a multiple of 64);
/// the functions below assume it.
struct FragmentShape {
  FragmentLayout Layout = FragmentLayout::WgmmaAccumulator;
  uint32_t Rows = 0;
  uint32_t Cols = 0;
};

/// Registers each thread holds of the full fragment: Rows * Cols / 128.
uint32_t fragmentFullRegs(const FragmentShape &S);

/// The (row, column) that register \p Reg of thread \p T (0..127) holds in
/// the full fragment. Why: the one map every broadcast, reduction and store
/// derives from.
TileCoord fragmentCoord(const FragmentShape &S, uint32_t T, uint32_t Reg);

/// The registers of a broadcast fragment, lined up with the full one.
struct BroadcastMap {
  /// Registers each thread holds of the broadcast fragment.
  uint32_t Regs = 0;
  /// For each register of the full fragment, the broadcast register that
  /// holds its row (Rows) or column (Cols); the identity for None.
  std::vector<uint32_t> SlotOfReg;
};

/// The broadcast registers are the distinct rows (or columns) of a thread's
/// full registers in increasing order. The map is the same for every thread
/// (each layout moves thread 0's pattern by a per-thread offset), so one map
/// serves the whole warpgroup. Why: elementwise math between a full and a
/// broadcast fragment, and reductions, pair registers at compile time.
BroadcastMap fragmentBroadcastMap(const FragmentShape &S, FragmentBroadcast B);

/// Registers each thread holds of a fragment with broadcast \p B.
uint32_t fragmentRegs(const FragmentShape &S, FragmentBroadcast B);

/// The row (Rows) or column (Cols) that broadcast register \p Slot of
/// thread \p T holds (\p B is Rows or Cols). Why: loading a scale or bias
/// vector into a broadcast fragment reads that element.
uint32_t fragmentBroadcastLine(const FragmentShape &S, FragmentBroadcast B,
                               uint32_t T, uint32_t Slot);

/// The position of register (slot) \p Reg of thread \p T along memory's
/// innermost dimension, and the line it sits on: a full register's (row,
/// column); a Rows register's row, a Cols register's column (on line 0).
/// Why: loads and stores of fragments address memory with it.
TileCoord fragmentMemoryCoord(const FragmentShape &S, FragmentBroadcast B,
                              uint32_t T, uint32_t Reg);

/// The most registers, a power of two up to \p MaxWidth, that one memory
/// access moves: groups of that many consecutive registers sit on one line
/// at consecutive positions starting at a multiple of the width, for every
/// thread. Why: loads and stores of fragments read and write pairs (and 16
/// bytes of a row per thread) in one instruction.
uint32_t fragmentAccessWidth(const FragmentShape &S, FragmentBroadcast B,
                             uint32_t MaxWidth);

/// Which other threads hold the same rows (Lines = Rows) or columns (Cols)
/// as a thread: the lane XOR masks within its warp, and whether threads of
/// other warps do too. Why: a reduction along a row combines the values of
/// those lanes with shuffles; across warps it would need shared memory.
struct LineSharing {
  std::vector<uint32_t> LaneMasks;
  bool AcrossWarps = false;
  /// Every thread-index bit (lanes and warps) whose flip keeps the lines:
  /// the threads with none of these bits set hold each line once.
  uint32_t ThreadBits = 0;
};
LineSharing fragmentLineSharing(const FragmentShape &S,
                                FragmentBroadcast Lines);

/// For each register (slot) of the columns [\p Col, \p Col + \p Width) of
/// a fragment of shape \p S and broadcast \p B, the register of the whole
/// fragment that holds the same element, for every thread; empty when some
/// thread holds the slice's elements in other places (a slice that cuts an
/// 8-column group of wgmma_acc). Why: a column slice of a fragment is then
/// a choice of registers, with no data movement.
std::vector<uint32_t> fragmentColumnSlice(const FragmentShape &S,
                                          FragmentBroadcast B, uint32_t Col,
                                          uint32_t Width);

} // namespace tilec

#endif // TILEC_SUPPORT_FRAGMENTLAYOUT_H

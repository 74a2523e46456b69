//===- KernelConfigs.cpp - kernel families, their configs and keys -------===//
//
// The configuration tables start from the winners measured on the H200; the
// real heuristic (a cost model over every legal tile, as DeepGEMM's) is
// issue 13. A table's first row that the problem meets wins.
//
//===----------------------------------------------------------------------===//

#include "lib/Kernels/KernelConfigs.h"

#include "lib/Kernels/ConfigSupport.h"
#include "lib/Kernels/EmbeddedSpecs.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/SHA256.h"

#include <algorithm>
#include <limits>

using namespace llvm;
using tilec::vocab::ElementType;

namespace tilec::kernels {
namespace {

constexpr KernelFamily kFamilies[] = {
    {"bf16_gemm_nt", "bf16_gemm_nt.tile", FamilyKind::Bf16Gemm, false, false,
     "bf16 D = A B^T: A [M, K], B [N, K], both K-major"},
    {"bf16_gemm_nn", "bf16_gemm_nn.tile", FamilyKind::Bf16Gemm, false, true,
     "bf16 D = A B: A [M, K] K-major, B [K, N] N-major"},
    {"bf16_gemm_tn", "bf16_gemm_tn.tile", FamilyKind::Bf16Gemm, true, true,
     "bf16 D = A^T B: A [K, M] M-major, B [K, N] N-major"},
    {"bf16_gemm_tt", "bf16_gemm_tt.tile", FamilyKind::Bf16Gemm, true, false,
     "bf16 D = A^T B^T: A [K, M] M-major, B [N, K] K-major"},
    {"fp8_gemm_1d2d", "fp8_gemm_1d2d.tile", FamilyKind::Fp8Gemm1D2D, false,
     false,
     "e4m3 D = A B^T, A scaled per row and 128 K, B per 128 x 128 block"},
    {"fp8_gemm_1d1d", "fp8_gemm_1d1d.tile", FamilyKind::Fp8Gemm1D1D, false,
     false, "e4m3 D = A B^T, A and B scaled per row and 128 K"},
    {"splitk_reduce", "splitk_reduce.tile", FamilyKind::SplitKReduce, false,
     false,
     "split K's second kernel: D = the sum of the f32 slices fp8_gemm_1d2d "
     "(e4m3 inputs) or bf16_gemm_nt (bf16) wrote for this problem (its "
     "config splits K)"},
    {"m_grouped_bf16_gemm_nt", "m_grouped_bf16_gemm_nt.tile",
     FamilyKind::Bf16Gemm, false, false,
     "M-grouped bf16 D = A B[g]^T: B [G, N, K], rows grouped contiguously "
     "(grouped_layout or psum) or masked (GroupedConfigs.cpp)",
     /*mGrouped=*/true},
    {"m_grouped_bf16_gemm_nn", "m_grouped_bf16_gemm_nt.tile",
     FamilyKind::Bf16Gemm, false, true,
     "M-grouped bf16 D = A B[g]: B [G, K, N] N-major (DeepGEMM's nn), rows "
     "grouped as m_grouped_bf16_gemm_nt's",
     /*mGrouped=*/true},
    {"m_grouped_fp8_gemm_1d2d", "m_grouped_fp8_gemm_1d2d.tile",
     FamilyKind::Fp8Gemm1D2D, false, false,
     "M-grouped e4m3 D = A B[g]^T with 1D2D scaling: B [G, N, K], rows "
     "grouped contiguously (grouped_layout or psum) or masked "
     "(GroupedConfigs.cpp)",
     /*mGrouped=*/true},
};

/// One row of a configuration table. It applies when M <= maxM and
/// N <= maxN (0: any), when (fillsSms) its tiles are at least the SMs, when
/// (oneWave) its tiles times its K splits are at most the SMs, and when at
/// least kMinStages stages fit in shared memory. A blockN of 0 (and a
/// blockM of 0) is chosen by waves among the family's wide tiles.
struct TableRow {
  int64_t maxM;
  int64_t maxN;
  bool fillsSms;
  int64_t blockM;
  int64_t blockN;
  const char *why;
  /// A row measured for this family only (others skip it): fp8_gemm_1d2d's
  /// (not the 1D1D spec's), bf16_gemm_nt's (the one BF16 spec with 16- and
  /// 32-row tiles and split K).
  const char *onlyFamily = nullptr;
  /// fp8_gemm_1d2d: the consumer's K loop unrolled this many times (UNROLL),
  /// and the B scales read from global memory whatever K (MAX_KB = 0).
  int64_t unroll = 1;
  bool globalScales = false;
  /// fp8_gemm_1d2d: the B scales staged in shared memory whatever K (MAX_KB
  /// = 128; stagedScaleBlocks stages them only where K > 4096).
  bool stagedScales = false;
  /// fp8_gemm_1d2d: K blocks in pairs through two temporaries, one's
  /// promotion beside the other's wgmma (OVERLAP = 1).
  bool overlap = false;
  /// The row applies from this N up (rows are otherwise ordered by maxN).
  int64_t minN = 0;
  /// fp8_gemm_1d2d: K split over this many tiles (SPLIT_K, an f32
  /// workspace that splitk_reduce sums into D), from K = minK up, never
  /// with accumulation.
  int64_t splits = 1;
  int64_t minK = 0;
  /// The row applies up to this K (0: any).
  int64_t maxK = 0;
  /// The row applies only where its tiles (times its splits) are one wave.
  bool oneWave = false;
  /// Tiles this wide (BLK_N) instead where they take fewer waves than the
  /// row's and fit (0: never).
  int64_t widerN = 0;
  /// bf16_gemm_nt: K elements a stage (BLK_K; 0: the family's 64 for bf16,
  /// 128 for fp8) and one K block's wgmmas in flight while the next block's
  /// are issued (MMA_INFLIGHT = 1).
  int64_t blockK = 0;
  bool mmaInflight = false;

  // The options by name, so that a row reads as what it sets:
  // TableRow{...}.only1D2D().unrolled(4).splitK(4, /*minK=*/4096).
  constexpr TableRow only1D2D() const {
    return with(&TableRow::onlyFamily, "fp8_gemm_1d2d");
  }
  constexpr TableRow onlyNT() const {
    return with(&TableRow::onlyFamily, "bf16_gemm_nt");
  }
  constexpr TableRow unrolled(int64_t times) const {
    return with(&TableRow::unroll, times);
  }
  constexpr TableRow overlapped() const {
    return with(&TableRow::overlap, true);
  }
  constexpr TableRow stagedBScales() const {
    return with(&TableRow::stagedScales, true);
  }
  constexpr TableRow globalBScales() const {
    return with(&TableRow::globalScales, true);
  }
  constexpr TableRow fromN(int64_t n) const { return with(&TableRow::minN, n); }
  constexpr TableRow upToK(int64_t k) const { return with(&TableRow::maxK, k); }
  constexpr TableRow fromK(int64_t k) const { return with(&TableRow::minK, k); }
  constexpr TableRow kBlock(int64_t k) const {
    return with(&TableRow::blockK, k);
  }
  constexpr TableRow inflight() const {
    return with(&TableRow::mmaInflight, true);
  }
  constexpr TableRow splitK(int64_t ways, int64_t fromK) const {
    return with(&TableRow::splits, ways).with(&TableRow::minK, fromK);
  }
  constexpr TableRow inOneWave() const {
    return with(&TableRow::oneWave, true);
  }
  constexpr TableRow widerInFewerWaves(int64_t n) const {
    return with(&TableRow::widerN, n);
  }

private:
  template <typename T>
  constexpr TableRow with(T TableRow::*field, T value) const {
    TableRow row = *this;
    row.*field = value;
    return row;
  }
};

// BF16: bench/results/2026-12-02-bf16-tiles.md (run 26: the eight 64- and
// 128-row tiles on 13 shapes; every row below picks a tile within 3% of
// the fastest measured there, test/unit/capi checks it) and
// 2026-11-29-hopper-gemm-ladder.md (128x256, rung 6: 1.00-1.02x cuBLAS at
// 8192^3). A blockN of 0 is chosen by waves (kBf16WideTiles).
constexpr TableRow kBf16Table[] = {
    // bf16_gemm_nt's 16-row tiles and split K: run 42 of
    // bench/results/2026-12-03-vs-deepgemm.md (raw:
    // 2026-12-03-raw/run42-bf16-small-m.md; tiles timed with 13 stages where
    // the table takes 12).
    TableRow{16, 0, false, 16, 256,
             "M <= 16, K <= 512: 16x256, TMA bringing 16 rows of A (7.3 us at "
             "1x32768x512, 16x64 10.1: run 42)"}
        .onlyNT()
        .upToK(512),
    TableRow{16, 1024, false, 16, 64,
             "M <= 16, N <= 1024, K >= 4096: 16x64 with K split 4 ways "
             "(1.02x DeepGEMM at 1x576x7168, 2.0x the 64x64 tiles: run 42)"}
        .onlyNT()
        .splitK(4, /*minK=*/4096),
    // With BLK_K = 128 and one K block in flight: run 51 of
    // bench/results/2026-12-03-vs-deepgemm.md (raw:
    // 2026-12-03-raw/run51-bf16-m1.md), measured at N = 2112 to 7168.
    TableRow{16, 2112, false, 16, 64,
             "M <= 16, N <= 2112, K >= 4096: 16x64, BLK_K 128, one K block in "
             "flight, K split 4 ways (10.1 us at 1x2112x7168, BLK_K 64 "
             "unsplit in flight 18.4, DeepGEMM 13.7: run 51)"}
        .onlyNT()
        .splitK(4, /*minK=*/4096)
        .kBlock(128)
        .inflight(),
    TableRow{16, 8192, false, 16, 64,
             "M <= 16, N <= 8192: 16x64, BLK_K 128, one K block in flight "
             "(18.9 us at 1x4096x7168, split 2 ways with BLK_K 64 20.6; 8.7 "
             "at 1x7168x2048, 58.8 at 1x7168x16384, BLK_K 64 8.9 and 61.9; "
             "DeepGEMM 18.4, 8.9, 63.0: run 51)"}
        .onlyNT()
        .kBlock(128)
        .inflight(),
    TableRow{16, 0, false, 16, 64,
             "M <= 16: 16x64 (the fastest or within 1% at 1x24576x1536: run "
             "42)"}
        .onlyNT(),
    // The 64-row tiles at M = 128 with BLK_K = 128 and one K block's
    // wgmmas in flight: run 49 of bench/results/2026-12-03-vs-deepgemm.md
    // (raw: 2026-12-03-raw/run49-bf16-wide-k.md), CUDA-graph timing.
    TableRow{128, 1024, false, 64, 64,
             "M <= 128, N <= 1024, K >= 4096: 64x64, BLK_K 128, one K block "
             "in flight, K split 4 ways (9.4 us at 128x576x7168, BLK_K 64 "
             "10.1, DeepGEMM 10.7: run 49)"}
        .onlyNT()
        .splitK(4, /*minK=*/4096)
        .kBlock(128)
        .inflight(),
    TableRow{128, 2112, false, 64, 64,
             "M <= 128, N <= 2112, K >= 4096: 64x64, BLK_K 128, one K block "
             "in flight, K split 2 ways (12.2 us at 128x2112x7168, BLK_K 64 "
             "13.6, DeepGEMM 12.2: run 49)"}
        .onlyNT()
        .splitK(2, /*minK=*/4096)
        .kBlock(128)
        .inflight(),
    TableRow{64, 0, false, 64, 192,
             "M <= 64, K <= 512: 64x192, a third of 64x64's waves where the "
             "per-tile fixed cost dominates (1.12x 64x64 at 1x32768x512, run "
             "26; measured at that shape only)"}
        .upToK(512),
    TableRow{64, 8192, false, 64, 256,
             "M <= 64, N <= 8192, K <= 2048: 64x256, few tiles of little K "
             "(1.33x 64x64 at 1x7168x2048, run 26; measured at that shape "
             "only)"}
        .upToK(2048),
    TableRow{64, 0, false, 64, 64,
             "M <= 64: 64x64, one consumer warpgroup, the most CTAs (the "
             "fastest or within 3% at 1x{2112,4096}x7168, 1x7168x16384, "
             "1x24576x1536: run 26)"},
    TableRow{128, 4096, false, 64, 64,
             "M <= 128, N <= 4096, K >= 4096: 64x64, BLK_K 128, one K block "
             "in flight (19.9 us at 128x4096x7168, without in flight 19.4, "
             "128x32 26.3, DeepGEMM 19.1: run 49)"}
        .onlyNT()
        .fromK(4096)
        .kBlock(128)
        .inflight(),
    TableRow{128, 4096, false, 64, 64,
             "M <= 128, N <= 4096: 64x64 (1.25x 128x64 at 128x2112x7168, 1.20x "
             "at 128x4096x7168: run 26)"},
    // 2 x 66 tiles of 112 columns fill the 132 SMs up to N = 7392.
    TableRow{128, 7392, false, 64, 112,
             "M <= 128, 4096 < N <= 7392, K <= 2048: 64x112, BLK_K 128, one "
             "K block in flight (8.2 us at 128x7168x2048, 128x64 9.4, "
             "DeepGEMM 9.4: run 49)"}
        .onlyNT()
        .fromN(4097)
        .upToK(2048)
        .kBlock(128)
        .inflight(),
    TableRow{128, 7392, false, 64, 112,
             "M <= 128, 4096 < N <= 7392: 64x112, BLK_K 128 (64.7 us at "
             "128x7168x16384, in flight 67.0, 128x64 70.8, DeepGEMM 65.2: "
             "run 49)"}
        .onlyNT()
        .fromN(4097)
        .kBlock(128),
    TableRow{128, 0, false, 128, 128,
             "M <= 128, K <= 512: 128x128 (9.4 us at 128x32768x512, 128x192 "
             "12.2, 128x64 10.8: run 44, CUDA-graph timing; run 26's "
             "back-to-back launches had 128x192 ahead)"}
        .upToK(512),
    TableRow{128, 0, false, 128, 64,
             "M <= 128: 128x64 (the fastest at 128x7168x{2048,16384} and "
             "128x24576x1536: run 26)"},
    TableRow{512, 1024, false, 64, 32,
             "M <= 512, N <= 1024, K <= 512: 64x32, enough tiles for a short "
             "K (3.2 us at 333x520x72, 128x128 4.4, DeepGEMM 3.6: run 44; "
             "measured at that shape only)"}
        .onlyNT()
        .upToK(512),
    TableRow{0, 0, false, 128, 0,
             "128 rows, the width with the least time by waves "
             "(kBf16WideTiles)"},
};

/// The BF16 widths of 128-row tiles that many-tile problems choose from,
/// with each one's speed per tile area relative to 128x256's, from run 26
/// at 4096x2112x7168 (128x192 0.191 ms in 3 waves, 128x256 0.232 in 3,
/// 128x128 0.223 in 5). A problem takes the width of the least
/// waves * width / efficiency: 128x192 at 4096x2112 (0.82x 128x256's time
/// measured), 128x256 at 4096^3 and 8192^3 (the ladder's winner).
/// 128x144 (bf16_gemm_nt only, run 44 of
/// bench/results/2026-12-03-vs-deepgemm.md): 173.4 us at 4096x2112x7168 in
/// 4 waves against 128x192's 176.8 in 3, 46.6 us at 4096x576x7168 against
/// 54.9; 0.92 puts it ahead at both and behind 128x256 at 4096^3 and the
/// wide shapes.
struct WideTile {
  int64_t blockM;
  int64_t blockN;
  double efficiency;
  const char *onlyFamily = nullptr;
  /// fp8_gemm_1d2d only: two 64-row waves per consumer warpgroup (WAVES =
  /// 2) and A multicast to a pair of CTAs along N (CLUSTER_N = 2).
  bool twoWavesMulticastA = false;
  /// fp8_gemm_1d2d: the consumer's K loop unrolled this many times (UNROLL)
  /// where the tile is chosen.
  int64_t unroll = 1;
  /// The least K the tile is chosen for (0: any).
  int64_t minK = 0;
  /// fp8_gemm_1d2d: the B scales staged in shared memory whatever K.
  bool stagedScales = false;
  /// Chosen for a bf16 D only (the output it was measured with).
  bool onlyBf16Out = false;
};
constexpr WideTile kBf16WideTiles[] = {{128, 256, 1.0},
                                       {128, 192, 0.90},
                                       {128, 144, 0.92, "bf16_gemm_nt"},
                                       {128, 128, 0.86}};

// FP8, both scalings: bench/results/2026-12-01-fp8-gemm.md, runs 1-2.
constexpr TableRow kFp8Table[] = {
    TableRow{
        16, 2112, false, 16, 64,
        "M <= 16, N <= 2112, K >= 4096: 16x64 with K split 4 ways (1.5x "
        "the unsplit build: run 19 of bench/results/2026-12-01-fp8-gemm.md), "
        "K blocks in overlapped pairs (1.23x and 1.50x DeepGEMM at "
        "1x576x7168 and 1x2112x7168, 1.06-1.09x the 4-times unrolled "
        "build: run 34 of bench/results/2026-12-02-fp8-gemm.md; measured "
        "at K = 7168)"}
        .only1D2D()
        .overlapped()
        .splitK(4, /*minK=*/4096),
    TableRow{
        16, 4096, false, 16, 64,
        "M <= 16, N <= 4096, K >= 4096: 16x64 with K split 2 ways, K loop "
        "unrolled 4 times (1.12x DeepGEMM at 1x4096x7168, 1.25x the unsplit "
        "build: run 19 of bench/results/2026-12-01-fp8-gemm.md; measured at "
        "K = 7168)"}
        .only1D2D()
        .unrolled(4)
        .splitK(2, /*minK=*/4096),
    TableRow{
        16, 4096, false, 16, 32,
        "M <= 16, 1024 < N <= 4096: 16x32, a 64-row wgmma over 16 loaded "
        "rows, K loop unrolled 4 times (0.88x and 0.94x DeepGEMM at "
        "1x2112x7168 and 1x4096x7168, 1.07-1.19x the 64x64 build: run 19 of "
        "bench/results/2026-12-01-fp8-gemm.md; K < 4096 here: the split "
        "rows above take K >= 4096)"}
        .only1D2D()
        .unrolled(4)
        .fromN(1025),
    TableRow{16, 8192, false, 16, 64,
             "M <= 16, N <= 8192: 16x64, a 64-row wgmma over 16 loaded rows, K "
             "loop unrolled 4 times (1.00-1.11x DeepGEMM at 1x7168x2048 and "
             "1x7168x16384, 1.35-1.53x the 64x64 build: run 19 of "
             "bench/results/2026-12-01-fp8-gemm.md), the B scales staged "
             "whatever K (7.0 us at 1x7168x2048 against 8.2 from global "
             "memory, 1.07x DeepGEMM: "
             "bench/results/2026-12-04-vs-deepgemm.md)"}
        .only1D2D()
        .unrolled(4)
        .stagedBScales()
        .fromN(4097),
    TableRow{16, 0, false, 16, 128,
             "M <= 16, N > 8192: 16x128, K loop unrolled 4 times (0.92-0.95x "
             "DeepGEMM at 1x24576x1536 and 1x32768x512, 1.3-1.5x the 64x64 "
             "build: run 20 of bench/results/2026-12-01-fp8-gemm.md), the B "
             "scales staged whatever K (8.5 us at 1x32768x512 against 9.1 from "
             "global memory); 16x192 where that takes fewer waves "
             "(1x24576x1536: one wave of 128 tiles for two of 192, 1.08x and "
             "1.11x 16x128's time in two runs; not at 1x32768x512, two waves "
             "either way, 0.77x): bench/results/2026-12-04-vs-deepgemm.md"}
        .only1D2D()
        .unrolled(4)
        .stagedBScales()
        .fromN(8193)
        .widerInFewerWaves(192),
    TableRow{
        64, 1024, false, 64, 32,
        "M <= 64, N <= 1024: 64x32, the most CTAs, K loop unrolled 4 times "
        "with the B scales from global memory (1.13x the staged, not "
        "unrolled build at 1x576x7168: run 14 of "
        "bench/results/2026-12-01-fp8-gemm.md)"}
        .unrolled(4)
        .globalBScales(),
    TableRow{
        64, 8192, false, 64, 64,
        "M <= 64, N <= 8192: 64x64 (1.15-1.16x the 64x32 builds at "
        "1x2112x7168, 1.03x at 1x4096x7168, 1.02-1.19x the 64x128 build at "
        "1x7168x16384: runs 12 and 14 of "
        "bench/results/2026-12-01-fp8-gemm.md), "
        "K blocks in overlapped pairs (1.00-1.03x at 1x{2112,7168}, "
        "1.16-1.17x at 128x{576,2112,4096}x7168: run 32 of "
        "bench/results/2026-12-02-fp8-gemm.md)"}
        .only1D2D()
        .overlapped(),
    TableRow{64, 0, false, 64, 128,
             "M <= 64: one 64-row consumer, 64x128 (1.25x the 128x128 build at "
             "1x24576x1536, 1.20x at 1x32768x512: run 12 of "
             "bench/results/2026-12-01-fp8-gemm.md), K blocks in overlapped "
             "pairs (1.08-1.18x at 128x32768x512, 128x24576x1536 and "
             "1x2112x7168, 0.99x at 1x7168x16384: run 32 of "
             "bench/results/2026-12-02-fp8-gemm.md)"}
        .only1D2D()
        .overlapped(),
    TableRow{128, 1024, false, 64, 32,
             "M <= 128, N <= 1024, K >= 4096: 64x32 with K split 3 ways, K "
             "blocks in overlapped pairs (1.02x DeepGEMM at 128x576x7168, "
             "1.19x the unsplit 64x32: run 34 of "
             "bench/results/2026-12-02-fp8-gemm.md; measured at K = 7168)"}
        .only1D2D()
        .overlapped()
        .splitK(3, /*minK=*/4096),
    TableRow{
        128, 2112, false, 64, 32,
        "M <= 128, N <= 2112: 64x32, the most CTAs, B scales from global "
        "memory, K blocks in overlapped pairs, the pair loop unrolled 4 "
        "times (0.99x DeepGEMM at 128x2112x7168, 0.94x unrolled twice, 0.81x "
        "with the B scales staged: run 36 of "
        "bench/results/2026-12-02-fp8-gemm.md; the plain loop unrolled 4 "
        "times 0.87x in run 32)"}
        .unrolled(4)
        .globalBScales()
        .only1D2D()
        .overlapped(),
    TableRow{
        128, 2112, false, 64, 32,
        "M <= 128, N <= 2112 (1D1D): 64x32, the most CTAs, K loop unrolled 4 "
        "times with the B scales from global memory (1.12-1.14x the staged, "
        "not unrolled build at 128x2112x7168 and 128x576x7168: run 14 of "
        "bench/results/2026-12-01-fp8-gemm.md)"}
        .unrolled(4)
        .globalBScales(),
    TableRow{128, 4096, false, 64, 64,
             "M <= 128, N <= 4096: 64x64, twice the CTAs of 64x128 (1.06x its "
             "speed at 1x4096x7168, 1.31x at 128x4096x7168: run 11 of "
             "bench/results/2026-12-01-fp8-gemm.md), K blocks in overlapped "
             "pairs (0.93x DeepGEMM at 128x4096x7168, 1.16x the build before: "
             "run 32 of bench/results/2026-12-02-fp8-gemm.md)"}
        .only1D2D()
        .overlapped(),
    TableRow{128, 8192, false, 64, 128,
             "M <= 128, N <= 8192: one 64-row consumer, 64x128, K blocks in "
             "overlapped pairs (1.21x DeepGEMM at 128x7168x16384, 1.14x at "
             "128x7168x2048, 1.14x the build before: run 32 of "
             "bench/results/2026-12-02-fp8-gemm.md), the B scales staged "
             "whatever K (7.9 us at 128x7168x2048 against 8.7-9.1 from "
             "global memory: "
             "bench/results/2026-12-04-vs-deepgemm.md)"}
        .only1D2D()
        .overlapped()
        .stagedBScales(),
    TableRow{128, 24576, false, 128, 192,
             "M <= 128, 8192 < N <= 24576: 128x192, one wave at N = 24576, the "
             "promotion specialised per split, the B scales staged whatever K "
             "(0.98x DeepGEMM at 128x24576x1536, 0.93x with them from global "
             "memory: run 34 of bench/results/2026-12-02-fp8-gemm.md; 128x128 "
             "0.75x in run 28)"}
        .only1D2D()
        .stagedBScales()
        .fromN(8193),
    TableRow{128, 0, false, 128, 128,
             "M <= 128, N > 8192: 128x128 (1.15x the 64x128 build at "
             "128x24576x1536, 1.38x at 128x32768x512: run 12 of "
             "bench/results/2026-12-01-fp8-gemm.md)"}
        .only1D2D(),
    TableRow{128, 0, false, 64, 128,
             "M <= 128: one 64-row consumer, 64x128 (0.98-1.06x DeepGEMM at "
             "128x7168x16384, bench/results/2026-12-01-fp8-gemm.md)"},
    TableRow{
        0, 1024, false, 64, 32,
        "N <= 1024, K <= 512: 64x32, B scales from global memory, K blocks "
        "in overlapped pairs, the pair loop unrolled twice: the most CTAs "
        "for short tiles (0.97-0.99x DeepGEMM at 333x520x72, where "
        "128x160 takes 0.63x: runs 33 and 34 of "
        "bench/results/2026-12-02-fp8-gemm.md; measured at that shape "
        "only)"}
        .only1D2D()
        .overlapped()
        .unrolled(2)
        .globalBScales()
        .upToK(512),
    // Few tiles (256x384x20480: six 128x128 tiles for 132 SMs): the M <=
    // 128 rows' 64x64 split tiles past 128 rows, where they are one wave.
    TableRow{0, 0, false, 64, 64,
             "few tiles, K >= 4096: 64x64 with K split 4 ways, one wave, K "
             "blocks in overlapped pairs (the M <= 128 rows' tile past 128 "
             "rows: 1.69x DeepGEMM at 256x384x20480 in run 60 of "
             "bench/results/2026-12-03-vs-deepgemm.md, where 128x160 took "
             "0.27-0.29x in run 54)"}
        .only1D2D()
        .overlapped()
        .splitK(4, /*minK=*/4096)
        .inOneWave(),
    TableRow{0, 0, false, 64, 64,
             "few tiles, K >= 4096: 64x64 with K split 2 ways, one wave, K "
             "blocks in overlapped pairs (as the 4-way row)"}
        .only1D2D()
        .overlapped()
        .splitK(2, /*minK=*/4096)
        .inOneWave(),
    TableRow{0, 0, false, 64, 64,
             "few tiles: 64x64, one wave, K blocks in overlapped pairs (1.03x "
             "DeepGEMM at 256x2112x7168 and 512x1024x8192, 128x64 0.75x: run "
             "60 of bench/results/2026-12-03-vs-deepgemm.md)"}
        .only1D2D()
        .overlapped()
        .inOneWave(),
    TableRow{
        0, 0, false, 0, 0,
        "the tile of the least time by waves (kFp8WideTiles): 256x128 "
        "with two waves per warpgroup and A multicast at the large "
        "shapes (0.92-0.99x DeepGEMM, 128x128 0.88-0.90x: runs 58 and 60 "
        "of bench/results/2026-12-03-vs-deepgemm.md), its K loop "
        "unrolled 8 times (0.95-0.99x DeepGEMM on an H100 against "
        "0.86-0.93x not unrolled: bench/results/2026-12-06-fp8-unroll.md), "
        "128x192 at "
        "4096x2112x7168 and 1000x3000x4160, 128x160 at 4096x576x7168 "
        "(0.96-1.07x in run 58)"}
        .only1D2D(),
    TableRow{
        0, 2112, true, 128, 128,
        "N <= 2112, tiles enough for the SMs: 128x128 with the B scales from "
        "global memory (118.8 us at 4096x2112x7168 against 124.9 staged, run "
        "11; 128x64 took 149.4 us there, run 16, of "
        "bench/results/2026-12-01-fp8-gemm.md)"}
        .globalBScales(),
    TableRow{0, 2112, false, 128, 64,
             "N <= 2112, few tiles: 128x64 for more CTAs (by wave count, not "
             "measured)"},
    TableRow{0, 0, false, 128, 128,
             "large: 128x128 (0.73-0.86x DeepGEMM at 4096^3 to 8192^3, "
             "bench/results/2026-12-01-fp8-gemm.md)"},
};

/// The FP8 1D2D tiles that the wide row chooses from, with each one's speed
/// per tile area relative to 128x128's:
/// - 256x128, two 64-row waves per consumer warpgroup, A multicast: 1.06,
///   the median of its ratios to 128x128 over the model's waves in runs
///   58 and 60 (bench/results/2026-12-03-vs-deepgemm.md: 1.04 at 8192^3,
///   1.05 at 4096x4096x7168, 1.07 at 4096x1024x24576, 1.12 at
///   4096x24576x1536), measured not unrolled; its K loop unrolled 8 times
///   is 1-9% faster again (runs 4-5 of bench/results/2026-12-06-fp8-unroll.md,
///   an H100: 0.86 -> 0.95x DeepGEMM at 4096x7168x16384, 0.93 -> 0.99 at
///   8192^3, 0.93 -> 0.96 at 4096x4096x7168; 4 times: 0.91-0.93, 0.98,
///   0.95), which the efficiency leaves out (no pick moves);
/// - 192x128, three consumer warpgroups of 64 rows (while one promotes,
///   the tensor cores run the other two's wgmmas): 1.10, its speed per
///   tile area being 1.06-1.08x 128x192's at 4096x2112x7168, 8192^3 and
///   4096x7168x16384 and 1.04-1.06x 256x128's at K >= 4096
///   (bench/results/2026-12-06-fp8-three-consumers.md, an H100); from
///   K = 4096 up, since at 4096x24576x1536 it took 1.02x and 1.00x
///   256x128's time in the same waves * area in two runs; its B scales
///   staged whatever K (the three warpgroups' global reads took 1.05-1.17x
///   the time at K = 1536-8192 in the same runs); for a bf16 D only (an
///   f32 D leaves it three stages, not timed);
/// - 128x192: 1.03 from run 28 at 4096x2112x7168 (109.9 us in 3 waves
///   against 126.2 in 5 for 128x128; bench/results/2026-12-02-fp8-gemm.md);
/// - 128x160: 0.95 from run 28 at 4096x576x7168 (31.3 us in one wave,
///   128x128 47.5 in two);
/// - 128x64: 0.64 from run 16 at 4096x2112x7168 (149.4 us in 8 waves,
///   128x128 118.8 in 5; bench/results/2026-12-01-fp8-gemm.md).
constexpr WideTile kFp8WideTiles[] = {
    {256, 128, 1.06, nullptr, /*twoWavesMulticastA=*/true, /*unroll=*/8},
    {192, 128, 1.10, "fp8_gemm_1d2d", false, 1, /*minK=*/4096,
     /*stagedScales=*/true, /*onlyBf16Out=*/true},
    {128, 192, 1.03},
    {128, 160, 0.95},
    {128, 128, 1.0},
    {128, 64, 0.64},
};

} // namespace

static bool isBf16(const KernelFamily &family) {
  return family.kind == FamilyKind::Bf16Gemm;
}

/// The widest swizzle span dividing a row of `rowBytes` (the specs'
/// D_SWIZZLE), and the alignment tile-allocate-smem gives such a buffer.
static int64_t swizzledAlignment(int64_t rowBytes) {
  int64_t span = std::min<int64_t>(128, rowBytes & -rowBytes);
  return span >= 32 ? 8 * span : 128;
}

/// K blocks whose B scales fp8_gemm_1d2d may stage in shared memory per
/// tile (its MAX_KB): up to 128 where K is large, none where it is small
/// and the staging's load and barrier per tile cost more than the global
/// reads they save (bench/results/2026-12-01-fp8-gemm.md, run 11: +4-19% at
/// K = 7168-16384 and small M, -5-23% at K = 512-2048). chooseConfig drops
/// it where it would cost a pipeline stage. `whateverK`: up to 128 for any
/// K (a table row that measured staging faster at small K).
int64_t stagedScaleBlocks(const KernelFamily &family, int64_t k,
                          bool whateverK) {
  if (family.kind != FamilyKind::Fp8Gemm1D2D)
    return 0;
  return whateverK || k > 4096 ? 128 : 0;
}

/// Consumer warpgroups of a GEMM spec (its CONSUMERS): one per 64 * waves
/// rows, and one for the FP8 tiles of 16 and 32 rows.
static int64_t consumerWarpgroups(int64_t blockM, int64_t waves) {
  return std::max<int64_t>(1, blockM / (64 * waves));
}

/// 64-row waves per consumer warpgroup of the tables' tiles: two in the
/// 256-row FP8 tile (kFp8WideTiles), one elsewhere.
static int64_t wavesOfTile(int64_t blockM) { return blockM > 192 ? 2 : 1; }

/// The shared memory of one configuration, buffer by buffer as the family's
/// spec declares them.
int64_t sharedBytes(const KernelFamily &family, int64_t blockM, int64_t blockN,
                    int64_t blockK, int64_t stages, unsigned outBytes,
                    int64_t stagedBlocks) {
  constexpr int64_t kSwizzle128Alignment = 1024;
  constexpr int64_t kPlainAlignment = 128;
  int64_t inBytes = isBf16(family) ? 2 : 1;
  // A stages and output waves hold 64 rows at least: a tile of 16 or 32
  // rows still runs a 64-row wgmma (the specs' A_ROWS).
  int64_t consumers = consumerWarpgroups(blockM, /*waves=*/1);
  int64_t aRows = std::max<int64_t>(64, blockM);
  int64_t dRows = consumers * 64;
  SmallVector<std::pair<int64_t, int64_t>> buffers = {
      {stages * aRows * blockK * inBytes, kSwizzle128Alignment},
      {stages * blockN * blockK * inBytes, kSwizzle128Alignment},
      {dRows * blockN * outBytes, swizzledAlignment(blockN * outBytes)}};
  if (!isBf16(family))
    buffers.push_back({stages * aRows * 4, kPlainAlignment}); // A scales
  if (family.kind == FamilyKind::Fp8Gemm1D1D)                 // B scales
    buffers.push_back({stages * alignTo(blockN, 32) * 4, kPlainAlignment});
  if (family.kind == FamilyKind::Fp8Gemm1D2D) // staged B scales, per consumer
    buffers.push_back({consumerWarpgroups(blockM, wavesOfTile(blockM)) *
                           (128 % blockN ? 2 : 1) *
                           std::max<int64_t>(stagedBlocks, 1) * 4,
                       kPlainAlignment});
  return layoutSharedMemory(buffers, /*barriers=*/2 * stages);
}

int64_t chooseStages(const KernelFamily &family, int64_t blockM, int64_t blockN,
                     int64_t blockK, unsigned outBytes, int64_t &stagedBlocks) {
  const int64_t limit =
      vocab::maxDynamicSharedMemoryBytes(vocab::Target::SM90a);
  auto mostStages = [&](int64_t staged) -> int64_t {
    for (int64_t s = kMaxStages; s >= kMinStages; --s)
      if (sharedBytes(family, blockM, blockN, blockK, s, outBytes, staged) <=
          limit)
        return s;
    return 0;
  };
  const int64_t stages = mostStages(0);
  if (stagedBlocks && mostStages(stagedBlocks) < stages)
    stagedBlocks = 0; // a pipeline stage is worth more than the staging
  return stages;
}

std::string checkProblem(const KernelFamily &family, const GemmProblem &problem,
                         int64_t smCount, StringRef target) {
  for (auto [name, value] : {std::pair<const char *, int64_t>{"m", problem.m},
                             {"n", problem.n},
                             {"k", problem.k}}) {
    if (value <= 0)
      return formatv("problem.{0} must be positive, got {1}", name, value);
    if (value > std::numeric_limits<int32_t>::max())
      return formatv("problem.{0} = {1} does not fit the kernels' 32-bit "
                     "dimensions",
                     name, value);
  }
  // splitk_reduce follows the GEMM its inputs name: e4m3 or bf16.
  ElementType input =
      family.kind == FamilyKind::SplitKReduce && problem.a == ElementType::BF16
          ? ElementType::BF16
          : defaultInputType(family);
  for (auto [name, type] :
       {std::pair<const char *, ElementType>{"a_dtype", problem.a},
        {"b_dtype", problem.b}}) {
    if (type != input)
      return formatv("problem.{0} must be {1} for {2}, got {3}", name,
                     vocab::toString(input), family.name, vocab::toString(type))
          .str();
  }
  if (problem.d != ElementType::BF16 && problem.d != ElementType::F32)
    return formatv("problem.d_dtype must be bf16 or f32 for {0}, got {1}",
                   family.name, vocab::toString(problem.d))
        .str();
  if (problem.accumulate && !isBf16(family) && problem.d != ElementType::F32)
    return formatv("problem.accumulate needs d_dtype f32 for {0} (D += A B^T "
                   "adds in f32), got {1}",
                   family.name, vocab::toString(problem.d))
        .str();
  if (smCount <= 0)
    return formatv("sm_count must be positive, got {0}", smCount);
  if (!target.empty() && !vocab::parseTarget(target))
    return formatv("unknown target '{0}'; use {1}", target,
                   vocab::listSpellings(vocab::kAllTargets))
        .str();
  if (!target.empty() && target != "sm_90a")
    return formatv("target {0}: {1} has sm_90a kernels only (its spec uses "
                   "wgmma)",
                   target, family.name)
        .str();
  if (!family.mGrouped && problem.numGroups != 0)
    return formatv("problem.num_groups must be 0 for {0} (it is not an "
                   "M-grouped family), got {1}",
                   family.name, problem.numGroups)
        .str();
  return {};
}

ArrayRef<KernelFamily> kernelFamilies() { return kFamilies; }

const KernelFamily *findKernelFamily(StringRef name) {
  for (const KernelFamily &family : kFamilies)
    if (family.name == name)
      return &family;
  return nullptr;
}

StringRef familySpec(const KernelFamily &family) {
  for (size_t i = 0; i < kNumEmbeddedSpecs; ++i)
    if (family.specFile == kEmbeddedSpecs[i].fileName)
      return StringRef(kEmbeddedSpecs[i].text, kEmbeddedSpecs[i].size);
  return {};
}

StringRef familyKernelName(const KernelFamily &family) {
  return StringRef(family.specFile).drop_back(StringRef(".tile").size());
}

const std::string &familySpecHash(const KernelFamily &family) {
  static const std::vector<std::string> hashes = [] {
    std::vector<std::string> result;
    for (const KernelFamily &f : kFamilies)
      result.push_back(toHex(SHA256::hash(arrayRefFromStringRef(familySpec(f))),
                             /*LowerCase=*/true));
    return result;
  }();
  return hashes[&family - kFamilies];
}

ElementType defaultInputType(const KernelFamily &family) {
  return isBf16(family) ? ElementType::BF16 : ElementType::E4M3;
}

int64_t layoutSharedMemory(ArrayRef<std::pair<int64_t, int64_t>> buffers,
                           int64_t barriers) {
  // A stable insertion sort: a handful of buffers, in the config search's
  // inner loop (std::stable_sort would allocate).
  SmallVector<std::pair<int64_t, int64_t>, 8> sorted(buffers);
  for (size_t i = 1; i < sorted.size(); ++i)
    for (size_t j = i; j > 0 && sorted[j - 1].second < sorted[j].second; --j)
      std::swap(sorted[j - 1], sorted[j]);
  int64_t offset = 0;
  for (auto [bytes, alignment] : sorted)
    offset = alignTo(offset, alignment) + bytes;
  return alignTo(offset, 8) + 8 * barriers;
}

/// The reduce kernel of a split GEMM problem (fp8_gemm_1d2d's, or
/// bf16_gemm_nt's for bf16 inputs): 64-row tiles of BLK_N = 64 columns
/// (splitk_reduce.tile's defaults), the GEMM's BLK_M and SPLIT_K, D's dtype.
static std::string chooseReduceConfig(const KernelFamily &family,
                                      const GemmProblem &problem,
                                      int64_t smCount, StringRef target,
                                      KernelConfig &config) {
  const KernelFamily *gemmFamily = findKernelFamily(
      problem.a == ElementType::BF16 ? "bf16_gemm_nt" : "fp8_gemm_1d2d");
  KernelConfig gemm;
  std::string error = chooseConfig(*gemmFamily, problem, smCount, target, gemm);
  if (!error.empty())
    return error;
  if (gemm.splitK <= 1)
    return formatv("problem {0}x{1}x{2} does not split K ({3} runs {4}x{5} "
                   "tiles unsplit): it has no {6} kernel",
                   problem.m, problem.n, problem.k, gemmFamily->name,
                   gemm.blockM, gemm.blockN, family.name);
  constexpr int64_t kReduceRows = 64, kReduceCols = 64;
  config = KernelConfig();
  config.family = &family;
  config.target = "sm_90a";
  config.blockM = kReduceRows;
  config.blockN = kReduceCols;
  config.threads = 128;
  config.grid = {static_cast<unsigned>(smCount), 1, 1};
  config.numTiles =
      divideCeil(problem.m, kReduceRows) * divideCeil(problem.n, kReduceCols);
  config.reason =
      formatv("sums the {0} slices of {1}'s {2}x{3} tiles", gemm.splitK,
              gemmFamily->name, gemm.blockM, gemm.blockN)
          .str();
  config.params = {
      {"BLK_M", std::to_string(gemm.blockM)},
      {"BLK_N", std::to_string(kReduceCols)},
      {"OUT", std::string(vocab::toString(problem.d))},
      {"SPLIT_K", std::to_string(gemm.splitK)},
  };
  return {};
}

std::string chooseConfig(const KernelFamily &family, const GemmProblem &problem,
                         int64_t smCount, StringRef target,
                         KernelConfig &config) {
  std::string error = checkProblem(family, problem, smCount, target);
  if (!error.empty())
    return error;
  if (family.kind == FamilyKind::SplitKReduce)
    return chooseReduceConfig(family, problem, smCount, target, config);
  if (family.mGrouped)
    return chooseGroupedConfig(family, problem, smCount, config);
  const int64_t familyBlockK = isBf16(family) ? 64 : 128;
  const unsigned outBytes = vocab::byteSize(problem.d);
  ArrayRef<TableRow> table = isBf16(family) ? ArrayRef<TableRow>(kBf16Table)
                                            : ArrayRef<TableRow>(kFp8Table);
  for (const TableRow &row : table) {
    if ((row.onlyFamily && family.name != StringRef(row.onlyFamily)))
      continue;
    if ((row.maxM && problem.m > row.maxM) ||
        (row.maxN && problem.n > row.maxN) || problem.n < row.minN ||
        problem.k < row.minK)
      continue;
    if (row.maxK && problem.k > row.maxK)
      continue;
    const bool split = row.splits > 1;
    if (split && problem.accumulate)
      continue;
    const int64_t blockK = row.blockK ? row.blockK : familyBlockK;
    // A split GEMM writes f32 partial sums, whatever D is.
    const unsigned gemmOutBytes = split ? 4 : outBytes;
    int64_t stagedBlocks =
        row.globalScales
            ? 0
            : stagedScaleBlocks(family, problem.k, row.stagedScales);
    int64_t blockM = row.blockM, blockN = row.blockN;
    int64_t unroll = row.unroll;
    bool twoWaves = false;
    if (!blockN) {
      // The tile of the least time by waves, among those that fit.
      double best = 0;
      const int64_t rowStaged = stagedBlocks;
      for (const WideTile &wide : isBf16(family)
                                      ? ArrayRef<WideTile>(kBf16WideTiles)
                                      : ArrayRef<WideTile>(kFp8WideTiles)) {
        // Whether it fits; the chosen tile's own call below settles the
        // staging (a candidate's must not drop it for the others).
        const int64_t tileStaged =
            wide.stagedScales ? stagedScaleBlocks(family, problem.k, true)
                              : rowStaged;
        int64_t staged = tileStaged;
        if ((row.blockM && wide.blockM != row.blockM) ||
            (wide.onlyFamily && family.name != StringRef(wide.onlyFamily)) ||
            (wide.twoWavesMulticastA &&
             family.kind != FamilyKind::Fp8Gemm1D2D) ||
            problem.k < wide.minK || (wide.onlyBf16Out && gemmOutBytes != 2) ||
            !chooseStages(family, wide.blockM, wide.blockN, blockK,
                          gemmOutBytes, staged))
          continue;
        int64_t waves = divideCeil(divideCeil(problem.m, wide.blockM) *
                                       divideCeil(problem.n, wide.blockN),
                                   smCount);
        double time = waves * wide.blockM * wide.blockN / wide.efficiency;
        if (!blockN || time < best) {
          blockM = wide.blockM;
          blockN = wide.blockN;
          twoWaves = wide.twoWavesMulticastA;
          stagedBlocks = tileStaged;
          unroll = std::max(row.unroll, wide.unroll);
          best = time;
        }
      }
      if (!blockN)
        continue;
    }
    const int64_t mBlocks = divideCeil(problem.m, blockM);
    int64_t tiles = mBlocks * divideCeil(problem.n, blockN);
    if (row.widerN) {
      const int64_t widerTiles = mBlocks * divideCeil(problem.n, row.widerN);
      int64_t staged = stagedBlocks;
      if (divideCeil(widerTiles, smCount) < divideCeil(tiles, smCount) &&
          chooseStages(family, blockM, row.widerN, blockK, gemmOutBytes,
                       staged)) {
        blockN = row.widerN;
        tiles = widerTiles;
      }
    }
    if (row.fillsSms && tiles < smCount)
      continue;
    if (row.oneWave && tiles * row.splits > smCount)
      continue;
    const int64_t stages = chooseStages(family, blockM, blockN, blockK,
                                        gemmOutBytes, stagedBlocks);
    if (!stages)
      continue;

    config = KernelConfig();
    config.family = &family;
    config.target = "sm_90a";
    config.blockM = blockM;
    config.blockN = blockN;
    config.blockK = blockK;
    config.stages = stages;
    config.threads = (consumerWarpgroups(blockM, twoWaves ? 2 : 1) + 1) * 128;
    // Persistent grids: one CTA per SM, whatever the tile count.
    config.grid = {static_cast<unsigned>(smCount), 1, 1};
    config.numTiles = tiles;
    config.splitK = row.splits;
    config.sharedBytes = sharedBytes(family, blockM, blockN, blockK, stages,
                                     gemmOutBytes, stagedBlocks);
    config.reason = row.why;
    config.params = {
        {"ACCUMULATE", problem.accumulate ? "1" : "0"},
        {"BLK_M", std::to_string(blockM)},
        {"BLK_N", std::to_string(blockN)},
        {"OUT",
         split ? std::string("f32") : std::string(vocab::toString(problem.d))},
        {"STAGES", std::to_string(stages)},
    };
    if (isBf16(family))
      config.params.push_back({"BLK_K", std::to_string(blockK)});
    if (family.kind == FamilyKind::Fp8Gemm1D2D)
      config.params.push_back({"MAX_KB", std::to_string(stagedBlocks)});
    if (family.kind == FamilyKind::Fp8Gemm1D2D && unroll > 1)
      config.params.push_back({"UNROLL", std::to_string(unroll)});
    if (family.kind == FamilyKind::Fp8Gemm1D2D && row.overlap)
      config.params.push_back({"OVERLAP", "1"});
    if (split)
      config.params.push_back({"SPLIT_K", std::to_string(row.splits)});
    if (row.mmaInflight)
      config.params.push_back({"MMA_INFLIGHT", "1"});
    if (twoWaves) {
      config.cluster = {2, 1, 1};
      config.params.push_back({"CLUSTER_N", "2"});
      config.params.push_back({"WAVES", "2"});
    }
    llvm::sort(config.params, [](const ConfigParam &a, const ConfigParam &b) {
      return a.name < b.name;
    });
    return {};
  }
  return formatv("no configuration of {0} fits problem {1}x{2}x{3} with "
                 "d_dtype {4}",
                 family.name, problem.m, problem.n, problem.k,
                 vocab::toString(problem.d));
}

bool quickBuild(const GemmProblem &problem, const KernelConfig &config,
                KernelConfig &quick) {
  // UNROLL = 1 and OVERLAP = 0 are the specs' defaults; neither changes
  // shared memory, the grid or the order of the promotions' fmas.
  auto slow = [](const ConfigParam &p) {
    return (p.name == "UNROLL" && p.value != "1") ||
           (p.name == "OVERLAP" && p.value != "0");
  };
  // Two 64-row waves per warpgroup with A multicast (256-row tiles in a
  // cluster of two) compile the promotion twice; a 128-row tile of one wave
  // issues the same m64nNk32 wgmmas and the same fma per element in the
  // same K order, so it computes the same bits in about 70% of the time.
  auto param = [&](StringRef name) -> StringRef {
    for (const ConfigParam &p : config.params)
      if (p.name == name)
        return p.value;
    return {};
  };
  const bool twoWaves = param("WAVES") == "2";
  if (llvm::none_of(config.params, slow) && !twoWaves)
    return false;
  quick = config;
  llvm::erase_if(quick.params, slow);
  quick.reason = config.reason + " (quick build: not unrolled, not paired";
  if (twoWaves) {
    const int64_t blockM = config.blockM / 2;
    int64_t staged = 0;
    param("MAX_KB").getAsInteger(10, staged);
    const unsigned outBytes = vocab::byteSize(problem.d);
    const int64_t stages = chooseStages(*config.family, blockM, config.blockN,
                                        config.blockK, outBytes, staged);
    if (!stages)
      return false;
    llvm::erase_if(quick.params, [](const ConfigParam &p) {
      return p.name == "WAVES" || p.name == "CLUSTER_N" ||
             p.name == "CLUSTER_M";
    });
    for (ConfigParam &p : quick.params) {
      if (p.name == "BLK_M")
        p.value = std::to_string(blockM);
      if (p.name == "STAGES")
        p.value = std::to_string(stages);
      if (p.name == "MAX_KB")
        p.value = std::to_string(staged);
    }
    quick.blockM = blockM;
    quick.stages = stages;
    quick.cluster = {1, 1, 1};
    quick.threads = (consumerWarpgroups(blockM, 1) + 1) * 128;
    quick.numTiles =
        divideCeil(problem.m, blockM) * divideCeil(problem.n, config.blockN);
    quick.sharedBytes = sharedBytes(*config.family, blockM, config.blockN,
                                    config.blockK, stages, outBytes, staged);
    quick.reason += ", one wave of " + std::to_string(blockM) + " rows";
  }
  quick.reason += ")";
  return true;
}

std::vector<std::string> configDefines(const KernelConfig &config) {
  std::vector<std::string> defines;
  for (const ConfigParam &p : config.params)
    defines.push_back(p.name + "=" + p.value);
  return defines;
}

std::string configParamString(const KernelConfig &config) {
  return join(configDefines(config), " ");
}

std::string kernelKey(const KernelConfig &config, StringRef compilerVersion) {
  std::string text =
      formatv("tilec kernel key 1\nfamily={0}\nspec={1}\nparams={2}\n"
              "target={3}\ncompiler={4}\n",
              config.family->name, familySpecHash(*config.family),
              configParamString(config), config.target, compilerVersion);
  return toHex(SHA256::hash(arrayRefFromStringRef(text)), /*LowerCase=*/true);
}

} // namespace tilec::kernels

//===- GroupedConfigs.cpp - configs of the M-grouped GEMM families --------===//
//
// m_grouped_bf16_gemm_nt, m_grouped_bf16_gemm_nn (its spec with B_MN = 1)
// and m_grouped_fp8_gemm_1d2d (DeepGEMM's m_grouped_*_contiguous and
// _masked) on sm_90a. BLK_M follows DeepGEMM's
// SM90 heuristic: the contiguous layouts take tiles that divide the groups'
// alignment (DeepGEMM: BLOCK_M = the alignment), so that no tile spans two
// groups; masked groups take 64 rows for few expected rows per group, else
// 128. BLK_N is the widest that still gives every SM a tile (BF16: and
// whose last wave is at least kBf16MinLastWave full); the FP8 widths are
// measured against each other (kFp8Widths), the BF16 ones at the masked
// cases (kBf16MinLastWave). BF16 masked tiles keep a K block's wgmmas in
// flight (MMA_INFLIGHT).
//
//===----------------------------------------------------------------------===//

#include "lib/Kernels/ConfigSupport.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

#include <limits>

using namespace llvm;
using tilec::vocab::ElementType;

namespace tilec::kernels {
namespace {

/// The N tile widths tried, widest first: the BF16 spec's rung-6 width and
/// halves; the FP8 spec's 192 (two B scale blocks, DeepGEMM's pick for its
/// grouped shapes), 128 (one) and 64. 192 against 128 in one run (session
/// 4 of bench/results/2026-12-03-grouped.md): contiguous 0.88x DeepGEMM
/// against 0.85x, psum 0.96x against 0.90x, masked 0.96x against 0.94x
/// (64x192 against 64x128 at 20 expected rows: 0.98x against 0.95x).
constexpr int64_t kBf16Widths[] = {256, 128, 64};
constexpr int64_t kFp8Widths[] = {192, 128, 64};

/// BF16 widths whose tiles fill less of the SMs than this over the waves
/// they take are passed over for the next narrower one (the narrowest
/// stays). 6 masked groups of 20 rows on 132 SMs: 64x256 at N = 6144 is
/// 144 tiles, two waves 55% full, 0.86x DeepGEMM; 64x128 (73%) 0.89x; at
/// N = 7168 0.94x (64%) against 1.00x (85%); at every other masked and
/// contiguous case of DeepGEMM's the widest fills over 95% (runs 3-4 of
/// bench/results/2026-12-06-grouped-tiles-and-overlap.md).
constexpr double kBf16MinLastWave = 0.7;

/// Tiles over the SM slots of the waves they take.
double waveFill(int64_t tiles, int64_t smCount) {
  return static_cast<double>(tiles) /
         static_cast<double>(divideCeil(tiles, smCount) * smCount);
}

/// DeepGEMM's kNum1DBlocksPerGroup (scheduler/gemm.cuh): of 8 and 16 block
/// rows per L2 group, the one whose group's A and B tiles span fewer rows
/// for one wave of `smCount` tiles.
int64_t l2GroupRows(int64_t blockM, int64_t blockN, int64_t smCount) {
  int64_t best = 0, bestUsage = std::numeric_limits<int64_t>::max();
  for (int64_t candidate : {8, 16}) {
    int64_t usage =
        candidate * blockM + divideCeil(smCount, candidate) * blockN;
    if (usage < bestUsage) {
      bestUsage = usage;
      best = candidate;
    }
  }
  return best;
}

std::string checkGroups(const KernelFamily &family,
                        const GemmProblem &problem) {
  if (problem.numGroups <= 0 ||
      problem.numGroups > std::numeric_limits<int32_t>::max())
    return formatv("problem.num_groups must be positive for {0} (B is [G, "
                   "N, K]), got {1}",
                   family.name, problem.numGroups);
  if (problem.groupLayout < 0 || problem.groupLayout > 2)
    return formatv("problem.group_layout must be 0 (contiguous), 1 (psum) or "
                   "2 (masked), got {0}",
                   problem.groupLayout);
  if (problem.d != ElementType::BF16)
    return formatv("problem.d_dtype must be bf16 for {0} (DeepGEMM's grouped "
                   "GEMMs write bf16), got {1}",
                   family.name, vocab::toString(problem.d))
        .str();
  if (problem.accumulate)
    return formatv("problem.accumulate must be 0 for {0}", family.name);
  auto layout = static_cast<GroupLayout>(problem.groupLayout);
  if (layout != GroupLayout::Masked &&
      (problem.mkAlignment <= 0 || problem.mkAlignment % 64))
    return formatv("problem.mk_alignment must be a positive multiple of 64 "
                   "for {0}'s contiguous layouts (its tiles of 64 or 128 "
                   "rows must not span two groups), got {1}",
                   family.name, problem.mkAlignment);
  return {};
}

} // namespace

std::string chooseGroupedConfig(const KernelFamily &family,
                                const GemmProblem &problem, int64_t smCount,
                                KernelConfig &config) {
  if (std::string error = checkGroups(family, problem); !error.empty())
    return error;
  const bool bf16 = family.kind == FamilyKind::Bf16Gemm;
  const auto layout = static_cast<GroupLayout>(problem.groupLayout);
  const int64_t groups = problem.numGroups;
  int64_t blockM;
  const char *whyM;
  if (layout == GroupLayout::Masked) {
    const int64_t expectedRows = divideCeil(problem.m, groups);
    blockM = expectedRows <= 64 ? 64 : 128;
    whyM = blockM == 64 ? "masked, at most 64 expected rows per group"
                        : "masked, more than 64 expected rows per group";
  } else {
    blockM = problem.mkAlignment % 128 == 0 ? 128 : 64;
    whyM = blockM == 128 ? "contiguous, groups aligned to 128 rows"
                         : "contiguous, groups aligned to 64 rows";
  }
  // Masked and psum groups start on a tile of their own; contiguous ones
  // are one range of rows.
  const int64_t mTiles =
      layout == GroupLayout::Contiguous
          ? divideCeil(problem.m, blockM)
          : groups * divideCeil(divideCeil(problem.m, groups), blockM);
  const int64_t blockK = bf16 ? 64 : 128;
  ArrayRef<int64_t> widths =
      bf16 ? ArrayRef<int64_t>(kBf16Widths) : ArrayRef<int64_t>(kFp8Widths);
  for (int64_t blockN : widths) {
    const int64_t tiles = mTiles * divideCeil(problem.n, blockN);
    if (blockN != widths.back() &&
        (tiles < smCount ||
         (bf16 && waveFill(tiles, smCount) < kBf16MinLastWave)))
      continue;
    int64_t stagedBlocks = stagedScaleBlocks(family, problem.k);
    const int64_t stages = chooseStages(family, blockM, blockN, blockK,
                                        /*outBytes=*/2, stagedBlocks);
    if (!stages)
      continue;

    config = KernelConfig();
    config.family = &family;
    config.target = "sm_90a";
    config.blockM = blockM;
    config.blockN = blockN;
    config.blockK = blockK;
    config.stages = stages;
    config.threads = static_cast<unsigned>((blockM / 64 + 1) * 128);
    config.grid = {static_cast<unsigned>(smCount), 1, 1};
    config.numTiles = tiles;
    config.sharedBytes = sharedBytes(family, blockM, blockN, blockK, stages,
                                     /*outBytes=*/2, stagedBlocks);
    const char *whyN = tiles < smCount ? "few tiles: the narrowest"
                       : blockN == widths.front()
                           ? "the widest, a tile for every SM"
                           : "wider tiles would leave SMs idle";
    const bool inflight = bf16 && layout == GroupLayout::Masked;
    config.reason =
        formatv("{0}: {1}x{2} tiles, {3}{4}", whyM, blockM, blockN, whyN,
                !bf16      ? " (192 against 128 measured: kFp8Widths)"
                : inflight ? ", a K block in flight (measured: "
                             "kBf16MinLastWave)"
                           : " (measured at the masked cases: "
                             "kBf16MinLastWave)")
            .str();
    const int64_t groupRows = l2GroupRows(blockM, blockN, smCount);
    config.params = {
        {"BLK_M", std::to_string(blockM)},
        {"BLK_N", std::to_string(blockN)},
        {"GROUP", std::to_string(groupRows)},
        {"LAYOUT", std::to_string(problem.groupLayout)},
        {"STAGES", std::to_string(stages)},
    };
    if (layout == GroupLayout::Psum)
      config.params.push_back({"ALIGN", std::to_string(problem.mkAlignment)});
    if (!bf16)
      config.params.push_back({"MAX_KB", std::to_string(stagedBlocks)});
    // Masked BF16 tiles, 128x256 at 192 expected rows: 0.77-0.86x DeepGEMM
    // without, 0.97-0.99x with (run 3 of 2026-12-06-grouped-tiles-and-
    // overlap.md); contiguous 1.00x without, 0.99x with, so off there.
    if (inflight)
      config.params.push_back({"MMA_INFLIGHT", "1"});
    if (family.bMnMajor) // B [G, K, N]: the shared spec's B_MN
      config.params.push_back({"B_MN", "1"});
    llvm::sort(config.params, [](const ConfigParam &a, const ConfigParam &b) {
      return a.name < b.name;
    });
    return {};
  }
  return formatv("no configuration of {0} fits problem {1}x{2}x{3} in {4} "
                 "groups",
                 family.name, problem.m, problem.n, problem.k, groups);
}

} // namespace tilec::kernels

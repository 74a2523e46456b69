//===- FragmentLayoutTest.cpp - fragment layouts and broadcasts -----------===//
//
// Sources: PTX ISA "WGMMA .m64nNk16 register fragment layout for accumulator
// matrix D" (thread t, register i: row 16(t/32) + (t%32)/4 + 8((i/2)%2),
// column 8(i/4) + 2(t%4) + i%2), tcgen05.ld 32x32b (thread t reads lane t).
// The quad_spread map is tilec's own (FragmentLayout.h): what a grouped row
// reduction of that accumulator leaves, one element per thread.
//
//===----------------------------------------------------------------------===//

#include "lib/Support/FragmentLayout.h"

#include "gtest/gtest.h"

#include <set>
#include <utility>

using namespace tilec;

namespace {

const FragmentShape kAcc64x256{FragmentLayout::WgmmaAccumulator, 64, 256};
const FragmentShape kAcc128x64{FragmentLayout::WgmmaAccumulator, 128, 64};
const FragmentShape kRows128x64{FragmentLayout::RowPerThread, 128, 64};
const FragmentShape kSpread4x128{FragmentLayout::QuadSpread, 4, 128};

/// Every quad_spread shape: 2, 4 or 8 groups by 64 or 128 reduced rows.
std::vector<FragmentShape> quadSpreadShapes() {
  std::vector<FragmentShape> Shapes;
  for (uint32_t Groups : {2u, 4u, 8u})
    for (uint32_t Cols : {64u, 128u})
      Shapes.push_back({FragmentLayout::QuadSpread, Groups, Cols});
  return Shapes;
}

/// The three layouts' shapes that the map properties are checked on.
std::vector<FragmentShape> allShapes() {
  std::vector<FragmentShape> Shapes = {kAcc64x256, kAcc128x64, kRows128x64};
  for (const FragmentShape &S : quadSpreadShapes())
    Shapes.push_back(S);
  return Shapes;
}

TEST(FragmentLayoutTest, RegisterCounts) {
  EXPECT_EQ(fragmentFullRegs(kAcc64x256), 128u);
  EXPECT_EQ(fragmentRegs(kAcc64x256, FragmentBroadcast::None), 128u);
  // Two rows per 64-row block (r and r + 8), two columns per 8-column group.
  EXPECT_EQ(fragmentRegs(kAcc64x256, FragmentBroadcast::Rows), 2u);
  EXPECT_EQ(fragmentRegs(kAcc64x256, FragmentBroadcast::Cols), 64u);
  EXPECT_EQ(fragmentRegs(kAcc128x64, FragmentBroadcast::Rows), 4u);
  EXPECT_EQ(fragmentRegs(kAcc128x64, FragmentBroadcast::Cols), 16u);
  EXPECT_EQ(fragmentRegs(kRows128x64, FragmentBroadcast::Rows), 1u);
  EXPECT_EQ(fragmentRegs(kRows128x64, FragmentBroadcast::Cols), 64u);
}

TEST(FragmentLayoutTest, CoordsFollowTheAccumulatorMap) {
  // The second 64-row block repeats the first 64 rows further down.
  for (uint32_t T = 0; T < 128; ++T)
    for (uint32_t Reg = 0; Reg < 32; ++Reg) {
      TileCoord First = fragmentCoord(kAcc128x64, T, Reg);
      TileCoord Second = fragmentCoord(kAcc128x64, T, Reg + 32);
      TileCoord Acc = wgmmaAccumulatorCoord(T, Reg);
      EXPECT_EQ(First.Row, Acc.Row);
      EXPECT_EQ(First.Col, Acc.Col);
      EXPECT_EQ(Second.Row, Acc.Row + 64);
      EXPECT_EQ(Second.Col, Acc.Col);
    }
  TileCoord C = fragmentCoord(kRows128x64, 37, 5);
  EXPECT_EQ(C.Row, 37u);
  EXPECT_EQ(C.Col, 5u);
}

TEST(FragmentLayoutTest, EveryElementOnce) {
  for (const FragmentShape &S : allShapes()) {
    std::set<std::pair<uint32_t, uint32_t>> Seen;
    for (uint32_t T = 0; T < 128; ++T)
      for (uint32_t Reg = 0; Reg < fragmentFullRegs(S); ++Reg) {
        TileCoord C = fragmentCoord(S, T, Reg);
        EXPECT_TRUE(Seen.insert({C.Row, C.Col}).second);
      }
    EXPECT_EQ(Seen.size(), size_t(S.Rows) * S.Cols);
  }
}

TEST(FragmentLayoutTest, BroadcastMapHoldsForEveryThread) {
  // The map computed from thread 0 pairs each register with the broadcast
  // register of its row (column) on every thread.
  for (const FragmentShape &S : allShapes())
    for (FragmentBroadcast B :
         {FragmentBroadcast::Rows, FragmentBroadcast::Cols}) {
      BroadcastMap Map = fragmentBroadcastMap(S, B);
      ASSERT_EQ(Map.SlotOfReg.size(), fragmentFullRegs(S));
      for (uint32_t T = 0; T < 128; ++T)
        for (uint32_t Reg = 0; Reg < fragmentFullRegs(S); ++Reg) {
          TileCoord C = fragmentCoord(S, T, Reg);
          uint32_t Line = fragmentBroadcastLine(S, B, T, Map.SlotOfReg[Reg]);
          EXPECT_EQ(Line, B == FragmentBroadcast::Rows ? C.Row : C.Col)
              << "thread " << T << " register " << Reg;
        }
    }
}

TEST(FragmentLayoutTest, BroadcastSlotsOfTheAccumulator) {
  BroadcastMap Rows = fragmentBroadcastMap(kAcc128x64, FragmentBroadcast::Rows);
  EXPECT_EQ(Rows.Regs, 4u);
  // Registers 0, 1 are row r; 2, 3 row r + 8; block 1 adds two more rows.
  EXPECT_EQ(Rows.SlotOfReg[0], 0u);
  EXPECT_EQ(Rows.SlotOfReg[1], 0u);
  EXPECT_EQ(Rows.SlotOfReg[2], 1u);
  EXPECT_EQ(Rows.SlotOfReg[5], 0u);
  EXPECT_EQ(Rows.SlotOfReg[32], 2u);
  EXPECT_EQ(Rows.SlotOfReg[35], 3u);
  BroadcastMap Cols = fragmentBroadcastMap(kAcc128x64, FragmentBroadcast::Cols);
  EXPECT_EQ(Cols.Regs, 16u);
  EXPECT_EQ(Cols.SlotOfReg[0], 0u);
  EXPECT_EQ(Cols.SlotOfReg[1], 1u);
  EXPECT_EQ(Cols.SlotOfReg[2], 0u);
  EXPECT_EQ(Cols.SlotOfReg[4], 2u);
  EXPECT_EQ(Cols.SlotOfReg[36], 2u);
  EXPECT_EQ(fragmentBroadcastLine(kAcc128x64, FragmentBroadcast::Rows, 37, 3),
            64u + 16 + 1 + 8);
  EXPECT_EQ(fragmentBroadcastLine(kAcc128x64, FragmentBroadcast::Cols, 37, 3),
            8u + 2 + 1);
}

TEST(FragmentLayoutTest, LineSharing) {
  // A row of the accumulator is spread over the 4 lanes of a quad.
  LineSharing Rows = fragmentLineSharing(kAcc64x256, FragmentBroadcast::Rows);
  EXPECT_EQ(Rows.LaneMasks, (std::vector<uint32_t>{1, 2}));
  EXPECT_FALSE(Rows.AcrossWarps);
  EXPECT_EQ(Rows.ThreadBits, 3u);
  // A column over 8 lanes of each of the 4 warps.
  LineSharing Cols = fragmentLineSharing(kAcc64x256, FragmentBroadcast::Cols);
  EXPECT_EQ(Cols.LaneMasks, (std::vector<uint32_t>{4, 8, 16}));
  EXPECT_TRUE(Cols.AcrossWarps);
  EXPECT_EQ(Cols.ThreadBits, 4u | 8 | 16 | 32 | 64);
  // One row per thread: a row is one thread's; a column everyone's.
  LineSharing Own = fragmentLineSharing(kRows128x64, FragmentBroadcast::Rows);
  EXPECT_TRUE(Own.LaneMasks.empty());
  EXPECT_FALSE(Own.AcrossWarps);
  LineSharing All = fragmentLineSharing(kRows128x64, FragmentBroadcast::Cols);
  EXPECT_EQ(All.LaneMasks, (std::vector<uint32_t>{1, 2, 4, 8, 16}));
  EXPECT_TRUE(All.AcrossWarps);
}

TEST(FragmentLayoutTest, ThreadsShiftThreadZerosPattern) {
  // Loads and stores compute a thread's coordinates as thread 0's register
  // coordinates plus a per-thread offset (its register 0's): check that.
  for (const FragmentShape &S : allShapes())
    for (uint32_t T = 0; T < 128; ++T) {
      TileCoord Base = fragmentCoord(S, T, 0);
      for (uint32_t Reg = 0; Reg < fragmentFullRegs(S); ++Reg) {
        TileCoord Zero = fragmentCoord(S, 0, Reg), C = fragmentCoord(S, T, Reg);
        EXPECT_EQ(C.Row, Zero.Row + Base.Row);
        EXPECT_EQ(C.Col, Zero.Col + Base.Col);
      }
    }
}

TEST(FragmentLayoutTest, AccessWidths) {
  // The accumulator holds column pairs; a row of a row_per_thread fragment
  // is contiguous; per-row values of the accumulator are 8 rows apart.
  EXPECT_EQ(fragmentAccessWidth(kAcc64x256, FragmentBroadcast::None, 8), 2u);
  EXPECT_EQ(fragmentAccessWidth(kAcc64x256, FragmentBroadcast::Cols, 8), 2u);
  EXPECT_EQ(fragmentAccessWidth(kAcc64x256, FragmentBroadcast::Rows, 8), 1u);
  EXPECT_EQ(fragmentAccessWidth(kAcc64x256, FragmentBroadcast::None, 1), 1u);
  EXPECT_EQ(fragmentAccessWidth(kRows128x64, FragmentBroadcast::None, 4), 4u);
  EXPECT_EQ(fragmentAccessWidth(kRows128x64, FragmentBroadcast::Cols, 8), 8u);
  EXPECT_EQ(fragmentAccessWidth(kRows128x64, FragmentBroadcast::Rows, 8), 1u);
  const FragmentShape Rows128x12{FragmentLayout::RowPerThread, 128, 12};
  EXPECT_EQ(fragmentAccessWidth(Rows128x12, FragmentBroadcast::None, 8), 4u);
  TileCoord C = fragmentMemoryCoord(kAcc64x256, FragmentBroadcast::Rows, 37, 1);
  EXPECT_EQ(C.Row, 0u);
  EXPECT_EQ(C.Col, 16u + 1 + 8);
}

TEST(FragmentLayoutTest, QuadSpreadHoldsOneElementPerThreadPerRowPair) {
  // G x N: G / 2 registers per 64 columns, each element in one thread (the
  // every-element-once test above covers 2, 4, 8 by 64, 128).
  for (const FragmentShape &S : quadSpreadShapes())
    EXPECT_EQ(fragmentFullRegs(S), S.Rows / 2 * (S.Cols / 64));
  // Thread 0: rows 0, 1 of column 0, then of column 64.
  const uint32_t Want0[4][2] = {{0, 0}, {1, 0}, {0, 64}, {1, 64}};
  for (uint32_t Reg = 0; Reg < 4; ++Reg) {
    TileCoord C = fragmentCoord(kSpread4x128, 0, Reg);
    EXPECT_EQ(C.Row, Want0[Reg][0]) << "register " << Reg;
    EXPECT_EQ(C.Col, Want0[Reg][1]) << "register " << Reg;
  }
  // Thread 37 (warp 1, lane 5): lane bit 0 is the accumulator's row + 8,
  // lane bit 1 clear the first half of the groups: column 16 + 1 + 8.
  TileCoord C = fragmentCoord(kSpread4x128, 37, 1);
  EXPECT_EQ(C.Row, 1u);
  EXPECT_EQ(C.Col, 25u);
  // Thread 38 (lane 6): bit 1 set, the second half (rows 2, 3); row r.
  C = fragmentCoord(kSpread4x128, 38, 0);
  EXPECT_EQ(C.Row, 2u);
  EXPECT_EQ(C.Col, 17u);
  // Thread 127 (warp 3, lane 31): the last column of each block, rows 2, 3.
  C = fragmentCoord(kSpread4x128, 127, 3);
  EXPECT_EQ(C.Row, 3u);
  EXPECT_EQ(C.Col, 64u + 48 + 7 + 8);
  // With 8 groups a thread holds 4 rows: 4 to 7 where lane bit 1 is set.
  const FragmentShape Spread8x64{FragmentLayout::QuadSpread, 8, 64};
  C = fragmentCoord(Spread8x64, 2, 3);
  EXPECT_EQ(C.Row, 7u);
  EXPECT_EQ(C.Col, 0u);
  // With 2 groups one: group 1 where lane bit 1 is set.
  const FragmentShape Spread2x64{FragmentLayout::QuadSpread, 2, 64};
  C = fragmentCoord(Spread2x64, 3, 0);
  EXPECT_EQ(C.Row, 1u);
  EXPECT_EQ(C.Col, 8u);
}

TEST(FragmentLayoutTest, QuadSpreadBroadcasts) {
  // A rows fragment holds the thread's G / 2 rows; a cols one its column
  // of each 64-column block.
  EXPECT_EQ(fragmentRegs(kSpread4x128, FragmentBroadcast::Rows), 2u);
  EXPECT_EQ(fragmentRegs(kSpread4x128, FragmentBroadcast::Cols), 2u);
  BroadcastMap Rows =
      fragmentBroadcastMap(kSpread4x128, FragmentBroadcast::Rows);
  EXPECT_EQ(Rows.Regs, 2u);
  EXPECT_EQ(Rows.SlotOfReg, (std::vector<uint32_t>{0, 1, 0, 1}));
  BroadcastMap Cols =
      fragmentBroadcastMap(kSpread4x128, FragmentBroadcast::Cols);
  EXPECT_EQ(Cols.Regs, 2u);
  EXPECT_EQ(Cols.SlotOfReg, (std::vector<uint32_t>{0, 0, 1, 1}));
  EXPECT_EQ(fragmentBroadcastLine(kSpread4x128, FragmentBroadcast::Rows, 38, 1),
            3u);
  EXPECT_EQ(fragmentBroadcastLine(kSpread4x128, FragmentBroadcast::Cols, 37, 1),
            64u + 25);
  const FragmentShape Spread8x64{FragmentLayout::QuadSpread, 8, 64};
  EXPECT_EQ(fragmentRegs(Spread8x64, FragmentBroadcast::Rows), 4u);
  EXPECT_EQ(fragmentRegs(Spread8x64, FragmentBroadcast::Cols), 1u);
  const FragmentShape Spread2x64{FragmentLayout::QuadSpread, 2, 64};
  EXPECT_EQ(fragmentRegs(Spread2x64, FragmentBroadcast::Rows), 1u);
  EXPECT_EQ(fragmentRegs(Spread2x64, FragmentBroadcast::Cols), 1u);
  // A row (a group) is spread over lane bits 0 and 2-4 and the 4 warps; a
  // column over lane bit 1 only, so a reduction along a column or a store
  // of one value per column needs no other warp.
  LineSharing RowSharing =
      fragmentLineSharing(kSpread4x128, FragmentBroadcast::Rows);
  EXPECT_EQ(RowSharing.LaneMasks, (std::vector<uint32_t>{1, 4, 8, 16}));
  EXPECT_TRUE(RowSharing.AcrossWarps);
  LineSharing ColSharing =
      fragmentLineSharing(kSpread4x128, FragmentBroadcast::Cols);
  EXPECT_EQ(ColSharing.LaneMasks, (std::vector<uint32_t>{2}));
  EXPECT_FALSE(ColSharing.AcrossWarps);
  EXPECT_EQ(ColSharing.ThreadBits, 2u);
  // Memory: a full register is one element (its neighbours in the row are
  // other threads'); a rows fragment's G / 2 rows are consecutive.
  EXPECT_EQ(fragmentAccessWidth(kSpread4x128, FragmentBroadcast::None, 8), 1u);
  EXPECT_EQ(fragmentAccessWidth(kSpread4x128, FragmentBroadcast::Cols, 8), 1u);
  EXPECT_EQ(fragmentAccessWidth(kSpread4x128, FragmentBroadcast::Rows, 8), 2u);
  // A 64-column block is a choice of registers.
  EXPECT_EQ(fragmentColumnSlice(kSpread4x128, FragmentBroadcast::None, 64, 64),
            (std::vector<uint32_t>{2, 3}));
}

} // namespace

TEST(FragmentLayoutTest, ColumnSlicesAreRegisterChoices) {
  // Columns [64, 128) of a 64 x 256 accumulator are registers 32..63: four
  // per 8-column group, groups in order.
  std::vector<uint32_t> Full =
      fragmentColumnSlice(kAcc64x256, FragmentBroadcast::None, 64, 64);
  ASSERT_EQ(Full.size(), 32u);
  for (uint32_t Reg = 0; Reg < 32; ++Reg)
    EXPECT_EQ(Full[Reg], 32 + Reg);
  // A cols fragment keeps 2 of every 8 columns: slots 16..31.
  std::vector<uint32_t> Cols =
      fragmentColumnSlice(kAcc64x256, FragmentBroadcast::Cols, 64, 64);
  ASSERT_EQ(Cols.size(), 16u);
  EXPECT_EQ(Cols.front(), 16u);
  EXPECT_EQ(Cols.back(), 31u);
  // A rows fragment holds the same rows whatever the columns.
  std::vector<uint32_t> Rows =
      fragmentColumnSlice(kAcc128x64, FragmentBroadcast::Rows, 32, 32);
  EXPECT_EQ(Rows, (std::vector<uint32_t>{0, 1, 2, 3}));
  // Each 64-row block of a 128-row accumulator is sliced alike.
  std::vector<uint32_t> Blocks =
      fragmentColumnSlice(kAcc128x64, FragmentBroadcast::None, 8, 8);
  EXPECT_EQ(Blocks, (std::vector<uint32_t>{4, 5, 6, 7, 36, 37, 38, 39}));
  // A slice that cuts a thread's column pair, or runs past the end, is not.
  EXPECT_TRUE(
      fragmentColumnSlice(kAcc64x256, FragmentBroadcast::None, 1, 8).empty());
  EXPECT_TRUE(fragmentColumnSlice(kAcc64x256, FragmentBroadcast::None, 248, 16)
                  .empty());
  // One row per thread: any column range.
  std::vector<uint32_t> Row =
      fragmentColumnSlice(kRows128x64, FragmentBroadcast::None, 3, 5);
  EXPECT_EQ(Row, (std::vector<uint32_t>{3, 4, 5, 6, 7}));
}

//===- FragmentLayout.cpp - which thread holds which fragment element -----===//
//
// Part of tilec. TileSupport is plain C++17: no LLVM, MLIR or CUDA headers.
//
//===----------------------------------------------------------------------===//

#include "lib/Support/FragmentLayout.h"

#include <algorithm>

namespace tilec {

namespace {

constexpr uint32_t kWarpgroupThreads = 128;
constexpr uint32_t kWarpThreads = 32;

/// The row or column register \p Reg of thread \p T holds.
uint32_t lineOf(const FragmentShape &S, FragmentBroadcast Lines, uint32_t T,
                uint32_t Reg) {
  TileCoord C = fragmentCoord(S, T, Reg);
  return Lines == FragmentBroadcast::Rows ? C.Row : C.Col;
}

/// The distinct rows or columns thread \p T covers, in increasing order.
std::vector<uint32_t> linesOf(const FragmentShape &S, FragmentBroadcast Lines,
                              uint32_t T) {
  std::vector<uint32_t> Result;
  uint32_t Regs = fragmentFullRegs(S);
  Result.reserve(Regs);
  for (uint32_t Reg = 0; Reg < Regs; ++Reg)
    Result.push_back(lineOf(S, Lines, T, Reg));
  std::sort(Result.begin(), Result.end());
  Result.erase(std::unique(Result.begin(), Result.end()), Result.end());
  return Result;
}

} // namespace

uint32_t fragmentFullRegs(const FragmentShape &S) {
  return S.Rows * S.Cols / kWarpgroupThreads;
}

TileCoord fragmentCoord(const FragmentShape &S, uint32_t T, uint32_t Reg) {
  if (S.Layout == FragmentLayout::RowPerThread)
    return TileCoord{T, Reg};
  if (S.Layout == FragmentLayout::QuadSpread) {
    uint32_t PerBlock = S.Rows / 2, Lane = T % kWarpThreads;
    uint32_t Col = 64 * (Reg / PerBlock) + 16 * (T / kWarpThreads) + Lane / 4 +
                   8 * (Lane % 2);
    return TileCoord{(Lane % 4) / 2 * PerBlock + Reg % PerBlock, Col};
  }
  // Each 64-row block holds Cols/2 registers in the accumulator's order.
  uint32_t BlockRegs = S.Cols / 2;
  TileCoord C = wgmmaAccumulatorCoord(T, Reg % BlockRegs);
  C.Row += 64 * (Reg / BlockRegs);
  return C;
}

BroadcastMap fragmentBroadcastMap(const FragmentShape &S, FragmentBroadcast B) {
  BroadcastMap Map;
  uint32_t Regs = fragmentFullRegs(S);
  Map.SlotOfReg.resize(Regs);
  if (B == FragmentBroadcast::None) {
    for (uint32_t Reg = 0; Reg < Regs; ++Reg)
      Map.SlotOfReg[Reg] = Reg;
    Map.Regs = Regs;
    return Map;
  }
  std::vector<uint32_t> Lines = linesOf(S, B, 0);
  for (uint32_t Reg = 0; Reg < Regs; ++Reg)
    Map.SlotOfReg[Reg] = static_cast<uint32_t>(
        std::lower_bound(Lines.begin(), Lines.end(), lineOf(S, B, 0, Reg)) -
        Lines.begin());
  Map.Regs = static_cast<uint32_t>(Lines.size());
  return Map;
}

uint32_t fragmentRegs(const FragmentShape &S, FragmentBroadcast B) {
  if (B == FragmentBroadcast::None)
    return fragmentFullRegs(S);
  return static_cast<uint32_t>(linesOf(S, B, 0).size());
}

uint32_t fragmentBroadcastLine(const FragmentShape &S, FragmentBroadcast B,
                               uint32_t T, uint32_t Slot) {
  return linesOf(S, B == FragmentBroadcast::Cols ? B : FragmentBroadcast::Rows,
                 T)[Slot];
}

TileCoord fragmentMemoryCoord(const FragmentShape &S, FragmentBroadcast B,
                              uint32_t T, uint32_t Reg) {
  if (B == FragmentBroadcast::None)
    return fragmentCoord(S, T, Reg);
  return TileCoord{0, fragmentBroadcastLine(S, B, T, Reg)};
}

uint32_t fragmentAccessWidth(const FragmentShape &S, FragmentBroadcast B,
                             uint32_t MaxWidth) {
  uint32_t Regs = fragmentRegs(S, B);
  // Every thread's registers in memory, computed once.
  std::vector<std::vector<TileCoord>> Coords(kWarpgroupThreads);
  for (uint32_t T = 0; T < kWarpgroupThreads; ++T) {
    if (B == FragmentBroadcast::None) {
      for (uint32_t Reg = 0; Reg < Regs; ++Reg)
        Coords[T].push_back(fragmentCoord(S, T, Reg));
      continue;
    }
    for (uint32_t Line : linesOf(S, B, T))
      Coords[T].push_back(TileCoord{0, Line});
  }
  auto Fits = [&](uint32_t Width) {
    if (Regs % Width != 0)
      return false;
    for (const std::vector<TileCoord> &Thread : Coords)
      for (uint32_t Reg = 0; Reg < Regs; Reg += Width) {
        const TileCoord &First = Thread[Reg];
        if (First.Col % Width != 0)
          return false;
        for (uint32_t I = 1; I < Width; ++I)
          if (Thread[Reg + I].Row != First.Row ||
              Thread[Reg + I].Col != First.Col + I)
            return false;
      }
    return true;
  };
  uint32_t Width = 1;
  while (Width * 2 <= MaxWidth && Fits(Width * 2))
    Width *= 2;
  return Width;
}

LineSharing fragmentLineSharing(const FragmentShape &S,
                                FragmentBroadcast Lines) {
  LineSharing Sharing;
  std::vector<uint32_t> Own = linesOf(S, Lines, 0);
  // The layouts are linear in the thread index: the threads holding thread
  // 0's lines are those that differ from it in a set of bits.
  for (uint32_t Bit = 1; Bit < kWarpgroupThreads; Bit <<= 1) {
    if (linesOf(S, Lines, Bit) != Own)
      continue;
    Sharing.ThreadBits |= Bit;
    if (Bit < kWarpThreads)
      Sharing.LaneMasks.push_back(Bit);
    else
      Sharing.AcrossWarps = true;
  }
  return Sharing;
}

std::vector<uint32_t> fragmentColumnSlice(const FragmentShape &S,
                                          FragmentBroadcast B, uint32_t Col,
                                          uint32_t Width) {
  if (Width == 0 || Col + Width > S.Cols)
    return {};
  FragmentShape Slice{S.Layout, S.Rows, Width};
  // Each register's element in a thread's view: a full register's (row,
  // column), a broadcast one's line. The slice's columns are shifted by Col.
  auto Element = [&](const FragmentShape &Shape, uint32_t Shift, uint32_t T,
                     uint32_t Reg) {
    if (B == FragmentBroadcast::None) {
      TileCoord C = fragmentCoord(Shape, T, Reg);
      return TileCoord{C.Row, C.Col + Shift};
    }
    uint32_t Line = fragmentBroadcastLine(Shape, B, T, Reg);
    return B == FragmentBroadcast::Cols ? TileCoord{0, Line + Shift}
                                        : TileCoord{Line, 0};
  };
  uint32_t SliceRegs = fragmentRegs(Slice, B);
  uint32_t WholeRegs = fragmentRegs(S, B);
  std::vector<uint32_t> Map(SliceRegs);
  for (uint32_t T = 0; T < kWarpgroupThreads; ++T)
    for (uint32_t Reg = 0; Reg < SliceRegs; ++Reg) {
      TileCoord Want = Element(Slice, Col, T, Reg);
      uint32_t Found = WholeRegs;
      for (uint32_t W = 0; W < WholeRegs && Found == WholeRegs; ++W) {
        TileCoord Have = Element(S, 0, T, W);
        if (Have.Row == Want.Row && Have.Col == Want.Col)
          Found = W;
      }
      if (Found == WholeRegs || (T != 0 && Map[Reg] != Found))
        return {};
      Map[Reg] = Found;
    }
  return Map;
}

} // namespace tilec

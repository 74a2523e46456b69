//===- FragmentMath.cpp - fragment math and reductions -> NVVM -----------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//
//
// A fragment is one SSA value per register after conversion, so elementwise
// math is one scalar op per register of the result, its operands lined up by
// alignToFragment (a scalar repeats, a broadcast register serves its whole
// row or column). The scalar ops are arith (add.f32, max.f32, setp, selp,
// div.rn.f32), LLVM intrinsics (fma.rn.f32, abs.f32, ex2.approx.ftz.f32,
// rsqrt.approx.ftz.f32) and NVVM ops (rcp.approx.ftz.f32, shfl.sync.bfly).
//
//===----------------------------------------------------------------------===//

#include "lib/Conversion/TileToNVVM/Common.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::lowering;

namespace {

Value f32Const(OpBuilder &b, Location loc, double v) {
  return arith::ConstantOp::create(b, loc, b.getF32Type(),
                                   b.getF32FloatAttr(v));
}

/// An NVVM intrinsic on one f32 that the NVVM dialect has no op for, called
/// by name (an LLVM-dialect op, not inline PTX).
Value callF32Intrinsic(OpBuilder &b, Location loc, StringRef name, Value x) {
  return LLVM::CallIntrinsicOp::create(b, loc, b.getF32Type(),
                                       b.getStringAttr(name), ValueRange{x})
      .getResult(0);
}

/// Constants a scalar builder needs, made once per op, not per register.
struct Constants {
  Value zero, log2e;
};

Value buildScalar(FragUnaryOp op, OpBuilder &b, Location loc,
                  const Constants &c, ArrayRef<Value> x) {
  switch (op.getKind()) {
  case FragUnaryKind::neg:
    return arith::NegFOp::create(b, loc, x[0]);
  case FragUnaryKind::abs:
    return LLVM::FAbsOp::create(b, loc, x[0]);
  case FragUnaryKind::exp2:
    return callF32Intrinsic(b, loc, "llvm.nvvm.ex2.approx.ftz.f", x[0]);
  case FragUnaryKind::exp:
    return callF32Intrinsic(b, loc, "llvm.nvvm.ex2.approx.ftz.f",
                            arith::MulFOp::create(b, loc, x[0], c.log2e));
  case FragUnaryKind::rsqrt:
    return callF32Intrinsic(b, loc, "llvm.nvvm.rsqrt.approx.ftz.f", x[0]);
  case FragUnaryKind::rcp:
    return NVVM::RcpApproxFtzF32Op::create(b, loc, b.getF32Type(), x[0]);
  case FragUnaryKind::relu:
    return arith::MaxNumFOp::create(b, loc, x[0], c.zero);
  }
  llvm_unreachable("unknown unary kind");
}

Value buildScalar(FragBinaryOp op, OpBuilder &b, Location loc,
                  const Constants &, ArrayRef<Value> x) {
  // Rounded as written: no implicit contraction into fma (fma() is
  // explicit), so `acc * alpha` keeps the mul.rn.f32 it always had.
  switch (op.getKind()) {
  case FragBinaryKind::add:
    return arith::AddFOp::create(b, loc, x[0], x[1]);
  case FragBinaryKind::sub:
    return arith::SubFOp::create(b, loc, x[0], x[1]);
  case FragBinaryKind::mul:
    return arith::MulFOp::create(b, loc, x[0], x[1]);
  case FragBinaryKind::div:
    return arith::DivFOp::create(b, loc, x[0], x[1]);
  case FragBinaryKind::max:
    return arith::MaxNumFOp::create(b, loc, x[0], x[1]);
  case FragBinaryKind::min:
    return arith::MinNumFOp::create(b, loc, x[0], x[1]);
  }
  llvm_unreachable("unknown binary kind");
}

Value buildScalar(FragFmaOp, OpBuilder &b, Location loc, const Constants &,
                  ArrayRef<Value> x) {
  return LLVM::FMAOp::create(b, loc, x[0], x[1], x[2]);
}

arith::CmpFPredicate toArith(FragCmpPredicate predicate) {
  switch (predicate) {
  case FragCmpPredicate::lt:
    return arith::CmpFPredicate::OLT;
  case FragCmpPredicate::le:
    return arith::CmpFPredicate::OLE;
  case FragCmpPredicate::gt:
    return arith::CmpFPredicate::OGT;
  case FragCmpPredicate::ge:
    return arith::CmpFPredicate::OGE;
  case FragCmpPredicate::eq:
    return arith::CmpFPredicate::OEQ;
  case FragCmpPredicate::ne:
    return arith::CmpFPredicate::ONE;
  }
  llvm_unreachable("unknown predicate");
}

Value buildScalar(FragCmpOp op, OpBuilder &b, Location loc, const Constants &,
                  ArrayRef<Value> x) {
  return arith::CmpFOp::create(b, loc, toArith(op.getPredicate()), x[0], x[1]);
}

Value buildScalar(FragSelectOp, OpBuilder &b, Location loc, const Constants &,
                  ArrayRef<Value> x) {
  return arith::SelectOp::create(b, loc, x[0], x[1], x[2]);
}

/// One scalar op per register of the result.
template <typename OpT>
LogicalResult lowerElementwise(OpT op, OneToNAdaptor<OpT> adaptor,
                               ConversionPatternRewriter &rewriter) {
  Location loc = op.getLoc();
  auto result = cast<FragType>(op.getType());
  SmallVector<SmallVector<Value>> operands;
  for (auto [operand, values] :
       llvm::zip(op->getOperands(), adaptor.getOperands()))
    operands.push_back(alignToFragment(operand.getType(), values, result));
  Constants constants;
  if constexpr (std::is_same_v<OpT, FragUnaryOp>) {
    if (op.getKind() == FragUnaryKind::relu)
      constants.zero = f32Const(rewriter, loc, 0.0);
    if (op.getKind() == FragUnaryKind::exp)
      constants.log2e = f32Const(rewriter, loc, M_LOG2E);
  }
  SmallVector<Value> values;
  SmallVector<Value, 3> args(operands.size());
  for (int64_t reg = 0; reg < result.getElementsPerThread(); ++reg) {
    for (auto [arg, aligned] : llvm::zip(args, operands))
      arg = aligned[reg];
    values.push_back(buildScalar(op, rewriter, loc, constants, args));
  }
  replaceWithFragment(rewriter, op, values);
  return success();
}

/// `a` and `b` combined as a reduction of `kind` does.
Value combine(OpBuilder &b, Location loc, FragReduceKind kind, Value x,
              Value y) {
  switch (kind) {
  case FragReduceKind::sum:
    return arith::AddFOp::create(b, loc, x, y);
  case FragReduceKind::max:
    return arith::MaxNumFOp::create(b, loc, x, y);
  case FragReduceKind::min:
    return arith::MinNumFOp::create(b, loc, x, y);
  }
  llvm_unreachable("unknown reduction");
}

/// A pairwise tree over `values`, so the dependency chain is log2 of their
/// number long.
Value reduceTree(OpBuilder &b, Location loc, FragReduceKind kind,
                 SmallVector<Value> values) {
  while (values.size() > 1) {
    SmallVector<Value> next;
    for (size_t i = 0; i + 1 < values.size(); i += 2)
      next.push_back(combine(b, loc, kind, values[i], values[i + 1]));
    if (values.size() % 2)
      next.push_back(values.back());
    values = std::move(next);
  }
  return values.front();
}

/// `groups G` on a wgmma_acc fragment: per 64-row block, the thread's
/// registers of each (row r or r + 8, group) reduced by a tree, then 2 G
/// values spread over the quad in two halving steps: at the step of lane bit
/// `s`, a lane keeps the half of its list whose index has that bit set as
/// its own lane bit and sends the other half to its partner (lane ^ 2^s),
/// which adds it to the same elements: one select of what to keep, one of
/// what to send, a shuffle and a combine per pair. The list's index is
/// (row bit, group), so lane bit 0 ends with the row and lane bit 1 with
/// the half of the groups, the quad_spread map.
SmallVector<Value> reduceGroupsAcrossQuad(OpBuilder &b, Location loc,
                                          FragReduceKind kind, FragType source,
                                          int64_t groups, ValueRange regs) {
  tilec::FragmentShape shape = source.getSupportShape();
  int64_t groupCols = source.getShape()[1] / groups;
  int64_t blocks = source.getShape()[0] / 64;
  // Thread 0's (block, row bit, group) of each register; every thread's
  // registers follow the same pattern.
  SmallVector<SmallVector<Value>> lists(blocks * 2 * groups);
  for (auto [reg, value] : llvm::enumerate(regs)) {
    tilec::TileCoord c =
        tilec::fragmentCoord(shape, 0, static_cast<uint32_t>(reg));
    int64_t index = (c.Row / 64) * 2 * groups + (c.Row % 16) / 8 * groups +
                    c.Col / groupCols;
    lists[index].push_back(value);
  }
  Value lane =
      arith::AndIOp::create(b, loc, threadIdx(b, loc), i32Const(b, loc, 31));
  Value everyLane = i32Const(b, loc, -1);
  Value clamp = i32Const(b, loc, 31);
  SmallVector<Value> result;
  for (int64_t block = 0; block < blocks; ++block) {
    SmallVector<Value> list;
    for (int64_t i = 0; i < 2 * groups; ++i)
      list.push_back(reduceTree(b, loc, kind, lists[block * 2 * groups + i]));
    for (int64_t bit = 0; bit < 2; ++bit) {
      Value upper = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::ne,
          arith::AndIOp::create(b, loc, lane, i32Const(b, loc, 1 << bit)),
          i32Const(b, loc, 0));
      size_t half = list.size() / 2;
      SmallVector<Value> next;
      for (size_t i = 0; i < half; ++i) {
        Value keep =
            arith::SelectOp::create(b, loc, upper, list[half + i], list[i]);
        Value send =
            arith::SelectOp::create(b, loc, upper, list[i], list[half + i]);
        Value other = NVVM::ShflOp::create(
            b, loc, b.getF32Type(), everyLane, send, i32Const(b, loc, 1 << bit),
            clamp, NVVM::ShflKind::bfly, UnitAttr());
        next.push_back(combine(b, loc, kind, keep, other));
      }
      list = std::move(next);
    }
    result.append(list.begin(), list.end());
  }
  return result;
}

/// Within the thread, a pairwise tree over the registers of each row
/// (column), so the dependency chain is log2 of their number long; then a
/// butterfly over the lanes that hold the same rows, each step a
/// shfl.sync.bfly by one of their XOR masks.
LogicalResult lowerFragReduce(FragReduceOp op,
                              OneToNAdaptor<FragReduceOp> adaptor,
                              ConversionPatternRewriter &rewriter) {
  Location loc = op.getLoc();
  OpBuilder &b = rewriter;
  auto source = cast<FragType>(op.getSource().getType());
  auto result = cast<FragType>(op.getType());
  if (op.getGroups() != 1) {
    replaceWithFragment(rewriter, op,
                        reduceGroupsAcrossQuad(b, loc, op.getKind(), source,
                                               op.getGroups(),
                                               adaptor.getSource()));
    return success();
  }
  tilec::FragmentShape shape = source.getSupportShape();
  tilec::FragmentBroadcast lines = result.getSupportBroadcast();
  tilec::LineSharing sharing = tilec::fragmentLineSharing(shape, lines);
  if (sharing.AcrossWarps)
    return rewriter.notifyMatchFailure(op, "the lines span several warps");
  tilec::BroadcastMap map = tilec::fragmentBroadcastMap(shape, lines);
  SmallVector<SmallVector<Value>> groups(map.Regs);
  for (auto [reg, value] : llvm::enumerate(adaptor.getSource()))
    groups[map.SlotOfReg[reg]].push_back(value);
  FragReduceKind kind = op.getKind();
  SmallVector<Value> partial;
  for (SmallVector<Value> &group : groups)
    partial.push_back(reduceTree(b, loc, kind, group));
  if (!sharing.LaneMasks.empty()) {
    Value everyLane = i32Const(b, loc, -1);
    Value clamp = i32Const(b, loc, 31);
    for (uint32_t mask : sharing.LaneMasks) {
      Value offset = i32Const(b, loc, mask);
      for (Value &value : partial) {
        Value other = NVVM::ShflOp::create(b, loc, b.getF32Type(), everyLane,
                                           value, offset, clamp,
                                           NVVM::ShflKind::bfly, UnitAttr());
        value = combine(b, loc, kind, value, other);
      }
    }
  }
  replaceWithFragment(rewriter, op, partial);
  return success();
}

} // namespace

void mlir::tile::populateTileFragmentMathToNVVMPatterns(
    LLVMTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<OpLowering<FragUnaryOp, lowerElementwise<FragUnaryOp>>,
               OpLowering<FragBinaryOp, lowerElementwise<FragBinaryOp>>,
               OpLowering<FragFmaOp, lowerElementwise<FragFmaOp>>,
               OpLowering<FragCmpOp, lowerElementwise<FragCmpOp>>,
               OpLowering<FragSelectOp, lowerElementwise<FragSelectOp>>,
               OpLowering<FragReduceOp, lowerFragReduce>>(converter);
}

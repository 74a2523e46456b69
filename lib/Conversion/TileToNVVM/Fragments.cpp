//===- Fragments.cpp - register fragments: zero, cast, store ------------===//

#include "lib/Conversion/TileToNVVM/Common.h"
#include "lib/Support/FragmentLayout.h"
#include "lib/Transforms/LayoutUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::lowering;

namespace {

LogicalResult lowerFragZero(FragZeroOp op, FragZeroOp::Adaptor,
                            ConversionPatternRewriter &rewriter,
                            const LLVMTypeConverter &converter) {
  auto frag = cast<FragType>(op.getType());
  // fp8 elements are i8 after conversion; 0 is +0.0 in every format.
  Type elem = converter.convertType(frag.getElementType());
  Value zero = arith::ConstantOp::create(rewriter, op.getLoc(), elem,
                                         rewriter.getZeroAttr(elem));
  replaceWithFragment(rewriter, op,
                      SmallVector<Value>(frag.getElementsPerThread(), zero));
  return success();
}

/// Each register's row (rows) or column (cols) in the tile: the thread's
/// offset (fragmentThreadCoord) plus thread 0's line of that register
/// (lib/Support's fragment map), as f32; with `align`, rounded down to its
/// multiple -- a constant where every thread's line of the register rounds
/// to the same one.
LogicalResult lowerFragIndex(FragIndexOp op, FragIndexOp::Adaptor,
                             ConversionPatternRewriter &rewriter) {
  constexpr uint32_t kWarpgroupThreads = 128;
  Location loc = op.getLoc();
  OpBuilder &b = rewriter;
  auto frag = cast<FragType>(op.getType());
  const int64_t align = op.getAlign();
  Value tid =
      arith::AndIOp::create(b, loc, threadIdx(b, loc), i32Const(b, loc, 127));
  auto [rowOffset, colOffset] = fragmentThreadCoord(b, loc, frag, tid);
  bool rows = frag.getBroadcast() == FragBroadcast::rows;
  tilec::FragmentShape shape = frag.getSupportShape();
  tilec::FragmentBroadcast broadcast = frag.getSupportBroadcast();
  SmallVector<Value> values;
  for (int64_t reg = 0; reg < frag.getElementsPerThread(); ++reg) {
    auto slot = static_cast<uint32_t>(reg);
    tilec::TileCoord coord =
        tilec::fragmentMemoryCoord(shape, broadcast, 0, slot);
    std::optional<int64_t> uniform;
    if (align > 1) {
      uniform = coord.Col / align;
      for (uint32_t t = 1; t < kWarpgroupThreads && uniform; ++t)
        if (tilec::fragmentMemoryCoord(shape, broadcast, t, slot).Col / align !=
            *uniform)
          uniform.reset();
    }
    if (uniform) {
      values.push_back(arith::ConstantOp::create(
          b, loc, b.getF32FloatAttr(static_cast<float>(*uniform * align))));
      continue;
    }
    Value line = arith::AddIOp::create(b, loc, rows ? rowOffset : colOffset,
                                       i32Const(b, loc, coord.Col));
    if (align > 1)
      line = arith::MulIOp::create(
          b, loc, arith::DivUIOp::create(b, loc, line, i32Const(b, loc, align)),
          i32Const(b, loc, align));
    values.push_back(
        arith::UIToFPOp::create(b, loc, b.getF32Type(), line).getResult());
  }
  replaceWithFragment(rewriter, op, values);
  return success();
}

/// f32 -> e4m3 / e5m2, two registers per cvt.rn.satfinite.{e4m3,e5m2}x2.f32.
/// The result's element 0 (the low byte) converts the op's `b`, so a pair
/// (x0, x1) is converted as (a = x1, b = x0) and x0 stays first in memory.
SmallVector<Value> convertToFp8(OpBuilder &b, Location loc, Type to,
                                ArrayRef<Value> values) {
  auto pairType = VectorType::get(2, b.getI8Type());
  auto rounding =
      NVVM::FPRoundingModeAttr::get(b.getContext(), NVVM::FPRoundingMode::RN);
  auto saturation = NVVM::SaturationModeAttr::get(
      b.getContext(), NVVM::SaturationMode::SATFINITE);
  SmallVector<Value> result;
  for (size_t i = 0; i < values.size(); i += 2) {
    bool single = i + 1 == values.size();
    Value hi = single ? values[i] : values[i + 1];
    Value pair = NVVM::ConvertF32x2ToF8x2Op::create(
        b, loc, pairType, hi, values[i], rounding, saturation,
        b.getBoolAttr(false), TypeAttr::get(to));
    for (int64_t j = 0; j < (single ? 1 : 2); ++j)
      result.push_back(
          LLVM::ExtractElementOp::create(b, loc, pair, i32Const(b, loc, j)));
  }
  return result;
}

LogicalResult lowerFragCast(FragCastOp op, OneToNAdaptor<FragCastOp> adaptor,
                            ConversionPatternRewriter &rewriter) {
  Location loc = op.getLoc();
  Type to = cast<FragType>(op.getType()).getElementType();
  Type from = cast<FragType>(op.getSource().getType()).getElementType();
  SmallVector<Value> values(adaptor.getSource().begin(),
                            adaptor.getSource().end());
  if (isa<Float8E4M3FNType, Float8E5M2Type>(to)) {
    replaceWithFragment(rewriter, op, convertToFp8(rewriter, loc, to, values));
    return success();
  }
  // Among f32, f16 and bf16 (the verifier allows no other casts).
  for (Value &v : values) {
    if (to.getIntOrFloatBitWidth() < from.getIntOrFloatBitWidth())
      v = arith::TruncFOp::create(rewriter, loc, to, v);
    else if (to.getIntOrFloatBitWidth() > from.getIntOrFloatBitWidth())
      v = arith::ExtFOp::create(rewriter, loc, to, v);
    else if (to != from)
      v = arith::TruncFOp::create(
          rewriter, loc, to,
          arith::ExtFOp::create(rewriter, loc, rewriter.getF32Type(), v));
  }
  replaceWithFragment(rewriter, op, values);
  return success();
}

/// The slice's registers, picked from the source's (the verifier checked
/// that every thread holds them in the same places).
LogicalResult lowerFragSlice(FragSliceOp op, OneToNAdaptor<FragSliceOp> adaptor,
                             ConversionPatternRewriter &rewriter) {
  auto source = cast<FragType>(op.getSource().getType());
  auto result = cast<FragType>(op.getType());
  std::vector<uint32_t> regs = tilec::fragmentColumnSlice(
      source.getSupportShape(), source.getSupportBroadcast(),
      static_cast<uint32_t>(op.getCol()),
      static_cast<uint32_t>(result.getShape()[1]));
  SmallVector<Value> values;
  for (uint32_t reg : regs)
    values.push_back(adaptor.getSource()[reg]);
  replaceWithFragment(rewriter, op, values);
  return success();
}

LogicalResult lowerFragInsert(FragInsertOp op,
                              OneToNAdaptor<FragInsertOp> adaptor,
                              ConversionPatternRewriter &rewriter) {
  auto dest = cast<FragType>(op.getDest().getType());
  auto source = cast<FragType>(op.getSource().getType());
  std::vector<uint32_t> regs = tilec::fragmentColumnSlice(
      dest.getSupportShape(), dest.getSupportBroadcast(),
      static_cast<uint32_t>(op.getCol()),
      static_cast<uint32_t>(source.getShape()[1]));
  SmallVector<Value> values(adaptor.getDest().begin(), adaptor.getDest().end());
  for (auto [slot, reg] : llvm::enumerate(regs))
    values[reg] = adaptor.getSource()[slot];
  replaceWithFragment(rewriter, op, values);
  return success();
}

/// Stores `values` (consecutive columns of one row) at shared byte `offset`
/// as one vector store.
void storeVector(OpBuilder &b, Location loc, Value tileBase, Value offset,
                 ArrayRef<Value> values) {
  Value ptr = byteGep(b, loc, tileBase, offset);
  if (values.size() == 1) {
    LLVM::StoreOp::create(b, loc, values[0], ptr);
    return;
  }
  auto vecType = VectorType::get(values.size(), values[0].getType());
  Value vec = LLVM::UndefOp::create(b, loc, vecType);
  for (auto [i, v] : llvm::enumerate(values))
    vec = LLVM::InsertElementOp::create(b, loc, vec, v, i32Const(b, loc, i));
  int64_t bytes = values.size() * getElementBytes(values[0].getType());
  LLVM::StoreOp::create(b, loc, vec, ptr, bytes);
}

LogicalResult lowerFragStore(FragStoreOp op, OneToNAdaptor<FragStoreOp> adaptor,
                             ConversionPatternRewriter &rewriter) {
  Location loc = op.getLoc();
  OpBuilder &b = rewriter;
  auto frag = cast<FragType>(op.getValue().getType());
  auto smem = cast<SmemType>(op.getDst().getType());
  auto layout = getTileLayout(smem);
  if (!layout)
    return op.emitOpError("destination layout: ")
           << llvm::toString(layout.takeError());
  int64_t elemBytes = smem.getElementBytes();
  int64_t blockBytes = layout->BlockBytes;
  int64_t blockSize = layout->blockSizeBytes();
  int64_t span = getSwizzleBytes(smem.getSwizzle());
  SmallVector<Value> indices = operandGroup(op, adaptor.getOperands(), 2);
  Value tile = adaptor.getDst().front();
  if (Value off =
          tileOffset(b, loc, smem, ArrayRef<Value>(indices).drop_back()))
    tile = byteGep(b, loc, tile, off);
  Value row0 = indices.back();
  // A broadcast fragment writes its value to every element of its line.
  SmallVector<Value> values = alignToFragment(
      frag, adaptor.getValue(), frag.withBroadcast(FragBroadcast::none));
  Value tid =
      arith::AndIOp::create(b, loc, threadIdx(b, loc), i32Const(b, loc, 127));

  // Byte offset of (row, column) for a runtime row and constant column.
  // Inside a column block a row is `blockBytes` wide, so the swizzle XORs
  // bits of the row number into the 16-byte chunk index: the swizzled
  // offset is rowBase + (columnByte ^ rowXor), with rowXor computed once
  // per row (CUTLASS Swizzle<B,4,3> on rowBase + columnByte).
  struct Row {
    Value base, xorBits;
  };
  auto rowOf = [&](Value row) {
    Value base = mulConst(b, loc, row, blockBytes);
    Value xorBits;
    if (span) {
      int64_t bits = span == 128 ? 3 : span == 64 ? 2 : 1;
      Value high = arith::ShRUIOp::create(b, loc, base, i32Const(b, loc, 7));
      Value masked = arith::AndIOp::create(b, loc, high,
                                           i32Const(b, loc, (1 << bits) - 1));
      xorBits = arith::ShLIOp::create(b, loc, masked, i32Const(b, loc, 4));
    }
    return Row{base, xorBits};
  };
  // `extraBytes` (run time) moves inside the same column block.
  auto address = [&](const Row &row, int64_t col, Value extraBytes) {
    int64_t colByte = col * elemBytes;
    int64_t block = colByte / blockBytes;
    Value inRow = i32Const(b, loc, colByte % blockBytes);
    if (extraBytes)
      inRow = arith::AddIOp::create(b, loc, inRow, extraBytes);
    if (row.xorBits)
      inRow = arith::XOrIOp::create(b, loc, inRow, row.xorBits);
    Value offset = arith::AddIOp::create(b, loc, row.base, inRow);
    if (block)
      offset = arith::AddIOp::create(b, loc, offset,
                                     i32Const(b, loc, block * blockSize));
    return offset;
  };

  int64_t n = frag.getShape()[1];
  if (frag.getLayout() == FragLayout::wgmma_acc && elemBytes == 2 &&
      n % 16 == 0) {
    // stmatrix.x4: the accumulator's pairs are exactly the m8n8 b16
    // fragments; one instruction stores rows 0-7 and 8-15 of two 8-column
    // groups, lane l giving the address of row l%8 of matrix l/8. Each
    // matrix row is one 16-byte chunk, which the swizzle keeps whole.
    Value warp = arith::ShRUIOp::create(b, loc, tid, i32Const(b, loc, 5));
    Value lane = arith::AndIOp::create(b, loc, tid, i32Const(b, loc, 31));
    Value matrix = arith::ShRUIOp::create(b, loc, lane, i32Const(b, loc, 3));
    Value rowInBlock = arith::AddIOp::create(
        b, loc, mulConst(b, loc, warp, 16),
        arith::AddIOp::create(
            b, loc,
            mulConst(b, loc,
                     arith::AndIOp::create(b, loc, matrix, i32Const(b, loc, 1)),
                     8),
            arith::AndIOp::create(b, loc, lane, i32Const(b, loc, 7))));
    // Matrices 2 and 3 are the next 8 columns: 16 bytes further.
    Value columnBytes = mulConst(
        b, loc, arith::ShRUIOp::create(b, loc, matrix, i32Const(b, loc, 1)),
        16);
    Value smemBase = sharedAddress(b, loc, tile);
    Type i32 = b.getI32Type();
    auto pack = [&](Value lo, Value hi) {
      auto vecType = VectorType::get(2, lo.getType());
      Value vec = LLVM::UndefOp::create(b, loc, vecType);
      vec = LLVM::InsertElementOp::create(b, loc, vec, lo, i32Const(b, loc, 0));
      vec = LLVM::InsertElementOp::create(b, loc, vec, hi, i32Const(b, loc, 1));
      return LLVM::BitcastOp::create(b, loc, i32, vec).getResult();
    };
    for (int64_t mb = 0; mb < frag.getShape()[0] / 64; ++mb) {
      Row row = rowOf(arith::AddIOp::create(
          b, loc, row0,
          arith::AddIOp::create(b, loc, rowInBlock,
                                i32Const(b, loc, 64 * mb))));
      for (int64_t jj = 0; jj < n / 16; ++jj) {
        Value addr = arith::AddIOp::create(b, loc, smemBase,
                                           address(row, 16 * jj, columnBytes));
        SmallVector<Value> regs = {addr};
        for (int64_t m = 0; m < 4; ++m) {
          int64_t j = 2 * jj + m / 2, half = m % 2;
          int64_t base = mb * (n / 2) + 4 * j + 2 * half;
          regs.push_back(pack(values[base], values[base + 1]));
        }
        // Inline PTX although LLVM 22 has nvvm.stmatrix: that op takes a
        // 64-bit shared pointer, so every address became cvt.u64.u32 +
        // add.s64 and rung 6 spent 3 ms (6%) more in the NVPTX back end
        // (bench/results/2026-12-01-compile-speed-refactor.md); the 32-bit
        // shared address here keeps the PTX and the compile time as they
        // were. Revisit with 32-bit shared pointers (nvptx-short-ptr).
        inlinePtx(b, loc, {}, regs,
                  "stmatrix.sync.aligned.m8n8.x4.shared.b16 [$0], {$1, $2, "
                  "$3, $4};",
                  "r,r,r,r,r");
      }
    }
  } else if (frag.getLayout() == FragLayout::wgmma_acc) {
    // Thread t holds, per 64-row block and 8-column group j, the pairs
    // (r, 8j + 2(t%4) + {0,1}) and (r + 8, ...) with r = 16(t/32) + (t%32)/4.
    auto [rowInBlock, colPair] = fragmentThreadCoord(b, loc, frag, tid);
    Value colPairBytes = mulConst(b, loc, colPair, elemBytes);
    for (int64_t mb = 0; mb < frag.getShape()[0] / 64; ++mb) {
      for (int64_t half = 0; half < 2; ++half) {
        Row row = rowOf(arith::AddIOp::create(
            b, loc, row0,
            arith::AddIOp::create(b, loc, rowInBlock,
                                  i32Const(b, loc, 64 * mb + 8 * half))));
        for (int64_t j = 0; j < n / 8; ++j) {
          // Columns 8j + 2(t%4), + 1 of this row.
          Value off = address(row, 8 * j, colPairBytes);
          int64_t base = mb * (n / 2) + 4 * j + 2 * half;
          storeVector(b, loc, tile, off, {values[base], values[base + 1]});
        }
      }
    }
  } else {
    // row_per_thread: thread t holds row t, all columns; 16-byte stores.
    int64_t cols = n;
    int64_t perStore = 16 / elemBytes;
    Row row = rowOf(arith::AddIOp::create(b, loc, row0, tid));
    for (int64_t c = 0; c < cols; c += perStore) {
      int64_t count = std::min(perStore, cols - c);
      storeVector(b, loc, tile, address(row, c, Value()),
                  ArrayRef<Value>(values).slice(c, count));
    }
  }
  rewriter.eraseOp(op);
  return success();
}

} // namespace

void mlir::tile::populateTileFragmentsToNVVMPatterns(
    LLVMTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<OpLowering<FragZeroOp, lowerFragZero>,
               OpLowering<FragIndexOp, lowerFragIndex>,
               OpLowering<FragCastOp, lowerFragCast>,
               OpLowering<FragSliceOp, lowerFragSlice>,
               OpLowering<FragInsertOp, lowerFragInsert>,
               OpLowering<FragStoreOp, lowerFragStore>>(converter);
}

//===- Ids.cpp - thread identity, tensor dims, tile scheduler -------------===//

#include "lib/Conversion/TileToNVVM/Common.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::lowering;

namespace {

LogicalResult lowerId(IdOp op, IdOp::Adaptor adaptor,
                      ConversionPatternRewriter &rewriter) {
  Location loc = op.getLoc();
  OpBuilder &b = rewriter;
  Type i32 = b.getI32Type();
  auto linear3 = [&](Value x, Value y, Value z, Value nx, Value ny) {
    Value yz =
        arith::AddIOp::create(b, loc, y, arith::MulIOp::create(b, loc, ny, z));
    return arith::AddIOp::create(b, loc, x,
                                 arith::MulIOp::create(b, loc, nx, yz))
        .getResult();
  };
  Value result;
  switch (op.getKind()) {
  case IdKind::cta:
    result = linear3(NVVM::BlockIdXOp::create(b, loc, i32),
                     NVVM::BlockIdYOp::create(b, loc, i32),
                     NVVM::BlockIdZOp::create(b, loc, i32),
                     NVVM::GridDimXOp::create(b, loc, i32),
                     NVVM::GridDimYOp::create(b, loc, i32));
    break;
  case IdKind::num_ctas:
    result = numCtas(b, loc);
    break;
  case IdKind::cta_x:
    result = NVVM::BlockIdXOp::create(b, loc, i32);
    break;
  case IdKind::cta_y:
    result = NVVM::BlockIdYOp::create(b, loc, i32);
    break;
  case IdKind::cta_z:
    result = NVVM::BlockIdZOp::create(b, loc, i32);
    break;
  case IdKind::cta_in_cluster:
    result = linear3(NVVM::BlockInClusterIdXOp::create(b, loc, i32),
                     NVVM::BlockInClusterIdYOp::create(b, loc, i32),
                     NVVM::BlockInClusterIdZOp::create(b, loc, i32),
                     NVVM::ClusterDimBlocksXOp::create(b, loc, i32),
                     NVVM::ClusterDimBlocksYOp::create(b, loc, i32));
    break;
  case IdKind::cluster:
    result = linear3(NVVM::ClusterIdXOp::create(b, loc, i32),
                     NVVM::ClusterIdYOp::create(b, loc, i32),
                     NVVM::ClusterIdZOp::create(b, loc, i32),
                     NVVM::ClusterDimXOp::create(b, loc, i32),
                     NVVM::ClusterDimYOp::create(b, loc, i32));
    break;
  case IdKind::num_clusters:
    result = arith::MulIOp::create(
        b, loc, NVVM::ClusterDimXOp::create(b, loc, i32),
        arith::MulIOp::create(b, loc, NVVM::ClusterDimYOp::create(b, loc, i32),
                              NVVM::ClusterDimZOp::create(b, loc, i32)));
    break;
  case IdKind::warpgroup:
    result =
        arith::ShRUIOp::create(b, loc, threadIdx(b, loc), i32Const(b, loc, 7));
    break;
  case IdKind::warp_in_warpgroup:
    result = arith::AndIOp::create(
        b, loc,
        arith::ShRUIOp::create(b, loc, threadIdx(b, loc), i32Const(b, loc, 5)),
        i32Const(b, loc, 3));
    break;
  case IdKind::lane:
    result =
        arith::AndIOp::create(b, loc, threadIdx(b, loc), i32Const(b, loc, 31));
    break;
  case IdKind::thread_in_warpgroup:
    result =
        arith::AndIOp::create(b, loc, threadIdx(b, loc), i32Const(b, loc, 127));
    break;
  case IdKind::thread:
    result = threadIdx(b, loc);
    break;
  }
  rewriter.replaceOp(op, result);
  return success();
}

LogicalResult lowerDim(DimOp op, DimOp::Adaptor adaptor,
                       ConversionPatternRewriter &rewriter) {
  auto type = cast<GlobalType>(op.getTensor().getType());
  int64_t index = op.getIndex();
  if (!type.isDynamicDim(index)) {
    rewriter.replaceOp(op,
                       i32Const(rewriter, op.getLoc(), type.getShape()[index]));
    return success();
  }
  LLVM::LLVMFuncOp func = getFunc(op);
  int64_t arg = getGlobalArg(adaptor.getTensor());
  int64_t param = getKernelAbi(func).getDimParamIndex(arg, index);
  if (param < 0)
    return rewriter.notifyMatchFailure(op, "no parameter for this dim");
  rewriter.replaceOp(op, func.getArgument(param));
  return success();
}

/// The number of blocks of `size` along `extent`, rounded up; an extent
/// counted in blocks already (size 1) is used as it is.
Value blocksAlong(OpBuilder &b, Location loc, Value extent, int64_t size) {
  if (size == 1)
    return extent;
  return arith::CeilDivSIOp::create(b, loc, extent, i32Const(b, loc, size));
}

LogicalResult lowerNumTiles(SchedNumTilesOp op,
                            SchedNumTilesOp::Adaptor adaptor,
                            ConversionPatternRewriter &rewriter) {
  Location loc = op.getLoc();
  ArrayRef<int64_t> block = op.getBlock();
  Value count;
  for (auto [extent, size] : llvm::zip(adaptor.getDims(), block)) {
    Value blocks = blocksAlong(rewriter, loc, extent, size);
    count =
        count ? arith::MulIOp::create(rewriter, loc, count, blocks) : blocks;
  }
  rewriter.replaceOp(op, count);
  return success();
}

/// Grouped rasterisation: tiles walk `group` block rows at a time, so that
/// CTAs in flight together share A rows and B columns in L2. With a batch
/// extent the walk is batch-major and the groups lie within one batch.
LogicalResult lowerCoords(SchedCoordsOp op, SchedCoordsOp::Adaptor adaptor,
                          ConversionPatternRewriter &rewriter) {
  Location loc = op.getLoc();
  OpBuilder &b = rewriter;
  ArrayRef<int64_t> block = op.getBlock();
  ValueRange dims = adaptor.getDims();
  bool batched = dims.size() == 3;
  Value t = adaptor.getTile();
  Value mTiles = blocksAlong(b, loc, dims[batched], block[batched]);
  Value nTiles = blocksAlong(b, loc, dims[batched + 1], block[batched + 1]);
  SmallVector<Value, 3> results;
  // One batch (a spec's SPLIT_K = 1, say): batch 0, and the tile index as
  // it is, so that the kernel computes what the 2-D schedule would.
  if (batched && matchPattern(op.getDims()[0], m_One())) {
    results.push_back(i32Const(b, loc, 0));
  } else if (batched) {
    Value perBatch = arith::MulIOp::create(b, loc, mTiles, nTiles);
    results.push_back(arith::DivUIOp::create(b, loc, t, perBatch));
    t = arith::RemUIOp::create(b, loc, t, perBatch);
  }
  Value group = i32Const(b, loc, op.getGroup());
  Value perGroup = arith::MulIOp::create(b, loc, group, nTiles);
  Value groupId = arith::DivUIOp::create(b, loc, t, perGroup);
  Value firstM = arith::MulIOp::create(b, loc, groupId, group);
  Value left = arith::SubIOp::create(b, loc, mTiles, firstM);
  Value groupRows = arith::MinSIOp::create(b, loc, left, group);
  Value inGroup = arith::RemUIOp::create(b, loc, t, perGroup);
  results.push_back(arith::AddIOp::create(
      b, loc, firstM, arith::RemUIOp::create(b, loc, inGroup, groupRows)));
  results.push_back(arith::DivUIOp::create(b, loc, inGroup, groupRows));
  rewriter.replaceOp(op, results);
  return success();
}

} // namespace

void mlir::tile::populateTileIdsToNVVMPatterns(LLVMTypeConverter &converter,
                                               RewritePatternSet &patterns) {
  patterns.add<OpLowering<IdOp, lowerId>, OpLowering<DimOp, lowerDim>,
               OpLowering<SchedNumTilesOp, lowerNumTiles>,
               OpLowering<SchedCoordsOp, lowerCoords>>(converter);
}

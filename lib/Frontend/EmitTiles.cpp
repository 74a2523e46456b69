//===- EmitTiles.cpp - the tile schedule: tiles, persistent, tile_coords -===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//
//
// The workers of a persistent kernel (CTAs, or clusters) share out linear
// tile indices round-robin: worker w takes w, w + W, w + 2W, ... Three
// constructs build schedules on that; grouped schedulers combine the last
// two in the DSL, with extents known only at run time:
//
//   tiles(M, N, block = (BM, BN))       a whole M x N (or batched) problem
//   persistent(start, stop)             this worker's tiles of a range
//   tile_coords(t, m_tiles, n_tiles)    the L2-grouped (m, n) of tile t
//
// tiles(...) is tile.sched.num_tiles, the loop and tile.sched.coords;
// tile_coords(...) is tile.sched.coords over extents counted in tiles.
//
//===----------------------------------------------------------------------===//

#include "lib/Frontend/Emitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/STLExtras.h"

using namespace tilec::frontend;
using namespace mlir;

static const llvm::StringRef kTileWorkers[] = {"cta", "cluster"};

/// Whether `per = ...` (null: cta) makes the workers clusters; nullopt after
/// an error.
static std::optional<bool> evalPerCluster(Emitter &emitter, const Expr *per) {
  if (!per)
    return false;
  std::optional<unsigned> worker =
      emitter.evalChoice(*per, "worker", kTileWorkers);
  if (!worker)
    return std::nullopt;
  return *worker == 1;
}

/// This worker's id and the number of workers: its first tile and the stride
/// between its tiles.
static std::pair<Value, Value> emitWorkers(OpBuilder &builder, Location l,
                                           bool perCluster) {
  Type i32 = builder.getI32Type();
  Value id = tile::IdOp::create(
      builder, l, i32, perCluster ? tile::IdKind::cluster : tile::IdKind::cta);
  Value count = tile::IdOp::create(builder, l, i32,
                                   perCluster ? tile::IdKind::num_clusters
                                              : tile::IdKind::num_ctas);
  return {id, count};
}

/// A compile-time size of the schedule: the scheduler computes in i32, so it
/// must fit in one (the tile.sched verifiers check the rest).
static std::optional<int64_t> evalScheduleSize(Emitter &emitter,
                                               const Expr &expr,
                                               llvm::StringRef what,
                                               bool isUnsigned) {
  std::optional<int64_t> value = isUnsigned
                                     ? emitter.evalConstUnsigned(expr, what)
                                     : emitter.evalConstInt(expr, what);
  if (!value || *value <= INT32_MAX)
    return value;
  emitter.error(expr.getRange(),
                what + " must fit in an i32, got " + llvm::Twine(*value));
  emitter.noteParamsIn(expr);
  return std::nullopt;
}

/// The `group = G` of a schedule; 1 without one.
static std::optional<int64_t> evalGroup(Emitter &emitter, const Expr *group) {
  if (!group)
    return 1;
  return evalScheduleSize(emitter, *group, "the group size",
                          /*isUnsigned=*/true);
}

/// The extents of a schedule as i32 values; empty after an error.
static SmallVector<Value, 3> evalExtents(Emitter &emitter,
                                         ArrayRef<const Expr *> exprs,
                                         ArrayRef<llvm::StringRef> whats) {
  SmallVector<Value, 3> values;
  bool ok = true;
  for (auto [expr, what] : llvm::zip(exprs, whats)) {
    values.push_back(emitter.evalI32(*expr, what));
    ok &= static_cast<bool>(values.back());
  }
  if (!ok)
    values.clear();
  return values;
}

void Emitter::emitTilesFor(const ForStmt &stmt, const CallExpr &iter) {
  // The loop variables say whether the problem has a batch dimension.
  size_t rank = stmt.vars.size();
  if (rank != 2 && rank != 3) {
    error(stmt.vars.front().range,
          "tiles(...) gives the block indices of a tile: write "
          "'for (m_blk, n_blk) in tiles(M, N, ...)' or "
          "'for (b, m_blk, n_blk) in tiles(BATCH, M, N, ...)'");
    return;
  }
  bool batched = rank == 3;
  SmallVector<ArgSpec, 6> specs;
  if (batched)
    specs.push_back({"batch", true});
  specs.append({{"m", true},
                {"n", true},
                {"block", true},
                {"group", false},
                {"per", false}});
  SmallVector<const Expr *> args;
  if (!bindArgs(iter, "tiles", specs, args))
    return;
  ArrayRef<const Expr *> extentExprs = ArrayRef(args).take_front(rank);
  ArrayRef<const Expr *> options = ArrayRef(args).drop_front(rank);
  static const llvm::StringRef kExtentWhats[] = {
      "the number of batches", "the number of rows", "the number of columns"};
  SmallVector<Value, 3> extents =
      evalExtents(*this, extentExprs, ArrayRef(kExtentWhats).take_back(rank));
  llvm::SmallVector<const Expr *, 3> blockDims;
  if (auto *tuple = llvm::dyn_cast<TupleExpr>(options[0]))
    for (const ExprPtr &e : tuple->elements)
      blockDims.push_back(e.get());
  else if (auto *list = llvm::dyn_cast<ListExpr>(options[0]))
    for (const ExprPtr &e : list->elements)
      blockDims.push_back(e.get());
  if (blockDims.size() != rank) {
    error(options[0]->getRange(),
          batched ? "block is the tile's three sizes, as in "
                    "'block = (1, BLK_M, BLK_N)'"
                  : "block is the tile's two sizes, as in "
                    "'block = (BLK_M, BLK_N)'");
    return;
  }
  llvm::SmallVector<int64_t, 3> block;
  for (const Expr *dim : blockDims) {
    std::optional<int64_t> size =
        evalScheduleSize(*this, *dim, "a block size", /*isUnsigned=*/false);
    if (!size)
      return;
    block.push_back(*size);
  }
  std::optional<int64_t> group = evalGroup(*this, options[1]);
  std::optional<bool> perCluster = evalPerCluster(*this, options[2]);
  if (!group || !perCluster || extents.empty())
    return;
  Location l = loc(stmt.getLoc());
  Value numTiles = tile::SchedNumTilesOp::create(
      builder, loc(iter.getLoc()), builder.getI32Type(), extents, block);
  auto [first, stride] = emitWorkers(builder, l, *perCluster);
  emitScfFor(stmt, first, numTiles, stride, [&](Value t) {
    cast<BlockArgument>(t).setLoc(namedLoc("tile", l));
    auto coords =
        tile::SchedCoordsOp::create(builder, loc(iter.getLoc()), t, extents,
                                    block, static_cast<uint64_t>(*group));
    for (auto [var, index] : llvm::zip(stmt.vars, coords.getResults()))
      declare(Symbol::Kind::LoopVar, var.name, var.range, Val::of(index));
  });
}

void Emitter::emitPersistentFor(const ForStmt &stmt, const CallExpr &iter) {
  if (stmt.vars.size() != 1) {
    error(stmt.vars[1].range, "persistent(...) gives one linear tile index: "
                              "write 'for t in persistent(num_tiles)'");
    return;
  }
  SmallVector<const Expr *> args;
  if (!bindArgs(iter, "persistent",
                {{"start", false}, {"stop", false}, {"per", false}}, args))
    return;
  // persistent(stop), as range(stop).
  if (!args[1] && iter.args.size() == 1)
    std::swap(args[0], args[1]);
  if (!args[1]) {
    error(closingParen(iter),
          "missing argument 'stop' of persistent(start, stop, per)");
    return;
  }
  std::optional<int64_t> knownStart =
      args[0] ? tryFoldInt(*args[0]) : std::optional<int64_t>(0);
  if (knownStart && *knownStart < 0) {
    error(args[0]->getRange(),
          "the first tile cannot be negative, got " + llvm::Twine(*knownStart));
    noteParamsIn(*args[0]);
    return;
  }
  Value start = knownStart == 0 ? Value() : evalI32(*args[0], "the first tile");
  Value stop = evalI32(*args[1], "the end of the tiles");
  std::optional<bool> perCluster = evalPerCluster(*this, args[2]);
  if (!stop || !perCluster || (knownStart != 0 && !start))
    return;
  Location l = loc(stmt.getLoc());
  auto [worker, workers] = emitWorkers(builder, l, *perCluster);
  Value first = worker;
  if (start) {
    // The numbering is global, so that the tiles of consecutive ranges
    // (a scheduler's groups) keep going round the workers: this worker's
    // first tile at or after `start` is start + (worker - start) mod workers.
    Value behind = arith::SubIOp::create(
        builder, l, workers,
        arith::RemUIOp::create(builder, l, start, workers));
    Value offset = arith::RemUIOp::create(
        builder, l, arith::AddIOp::create(builder, l, worker, behind), workers);
    first = arith::AddIOp::create(builder, l, start, offset);
  }
  const ForStmt::Var &var = stmt.vars.front();
  emitScfFor(stmt, first, stop, workers, [&](Value t) {
    cast<BlockArgument>(t).setLoc(namedLoc(var.name, var.range));
    declare(Symbol::Kind::LoopVar, var.name, var.range, Val::of(t));
  });
}

bool Emitter::emitTileCoords(const CallExpr &call,
                             llvm::SmallVectorImpl<Val> &values) {
  // Three extents (positional, or a `batches` keyword) add a batch index.
  bool batched = call.args.size() == 4 ||
                 llvm::any_of(call.keywords, [](const KeywordArg &keyword) {
                   return keyword.name == "batches";
                 });
  SmallVector<ArgSpec, 5> specs{{"tile", true}};
  if (batched)
    specs.push_back({"batches", true});
  specs.append({{"m_tiles", true}, {"n_tiles", true}, {"group", false}});
  SmallVector<const Expr *> args;
  if (!bindArgs(call, "tile_coords", specs, args))
    return false;
  size_t rank = batched ? 3 : 2;
  Value t = evalI32(*args[0], "a tile index");
  static const llvm::StringRef kExtentWhats[] = {"the number of batches",
                                                 "the number of tile rows",
                                                 "the number of tile columns"};
  SmallVector<Value, 3> extents =
      evalExtents(*this, ArrayRef(args).slice(1, rank),
                  ArrayRef(kExtentWhats).take_back(rank));
  std::optional<int64_t> group = evalGroup(*this, args.back());
  if (!t || extents.empty() || !group)
    return false;
  // The extents count tiles already: blocks of one.
  SmallVector<int64_t, 3> block(rank, 1);
  auto coords =
      tile::SchedCoordsOp::create(builder, loc(call.getLoc()), t, extents,
                                  block, static_cast<uint64_t>(*group));
  for (Value index : coords.getResults())
    values.push_back(Val::of(index));
  return true;
}

//===- WarpSpecialize.cpp - roles become branches on warpgroup/warp ids --===//

#include "lib/Transforms/Passes.h"

#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "tile-warp-specialize"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEWARPSPECIALIZE
#include "lib/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

int64_t mlir::tile::startingRegisters(int64_t threads) {
  int64_t regs = (65536 / threads) / 8 * 8;
  return std::min<int64_t>(regs, 255 / 8 * 8);
}

namespace {

Value constI32(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v);
}

/// An i1 that is true when `value` is one of `set` (a range test when the set
/// is contiguous).
Value buildMembership(OpBuilder &b, Location loc, Value value,
                      ArrayRef<int64_t> set) {
  SmallVector<int64_t> sorted(set.begin(), set.end());
  llvm::sort(sorted);
  if (sorted.size() == 1)
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, value,
                                 constI32(b, loc, sorted[0]));
  if (sorted.back() - sorted.front() + 1 == (int64_t)sorted.size()) {
    Value lo = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, value,
                                     constI32(b, loc, sorted.front()));
    Value hi = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle, value,
                                     constI32(b, loc, sorted.back()));
    return arith::AndIOp::create(b, loc, lo, hi);
  }
  Value any;
  for (int64_t v : sorted) {
    Value eq = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, value,
                                     constI32(b, loc, v));
    any = any ? arith::OrIOp::create(b, loc, any, eq).getResult() : eq;
  }
  return any;
}

/// Moves the body of `region` (single block, no terminator) into a new
/// scf.if on `cond` built at `b`'s insertion point.
void moveIntoIf(OpBuilder &b, Location loc, Value cond, Block &body) {
  auto ifOp = scf::IfOp::create(b, loc, cond, /*withElseRegion=*/false);
  Block *thenBlock = ifOp.thenBlock();
  thenBlock->getOperations().splice(thenBlock->begin(), body.getOperations());
}

/// Whether `body` does nothing but arrive on barriers (and compute their
/// operands without side effects): then a predicate serves instead of a
/// branch.
bool onlyArrives(Block &body) {
  bool arrives = false;
  for (Operation &op : body) {
    if (auto arrive = dyn_cast<BarrierArriveOp>(op)) {
      if (arrive.getPred())
        return false;
      arrives = true;
    } else if (!isMemoryEffectFree(&op) || op.getNumRegions()) {
      return false;
    }
  }
  return arrives;
}

/// Inlines a single_thread block of arrives before it, each arrive taking
/// `cond` as its predicate: `@p mbarrier.arrive` instead of a branch around
/// it, so a K loop's stage release leaves the loop body one block.
void predicateArrives(SingleThreadOp op, Value cond) {
  Block &body = op.getBody().front();
  for (Operation &inner : llvm::make_early_inc_range(body)) {
    inner.moveBefore(op);
    if (auto arrive = dyn_cast<BarrierArriveOp>(inner))
      arrive.getPredMutable().assign(cond);
  }
}

struct WarpSpecializePass
    : public tile::impl::TileWarpSpecializeBase<WarpSpecializePass> {
  void runOnOperation() override {
    if (failed(specialize(getOperation())))
      signalPassFailure();
  }

  LogicalResult specialize(KernelOp kernel) {
    Block &body = kernel.getBody().front();
    if (failed(hoistDeclarations(kernel)))
      return failure();
    if (failed(lowerRoles(kernel)))
      return failure();
    // single_thread blocks, innermost first so that nested ones see plain IR.
    SmallVector<SingleThreadOp> singles;
    kernel.walk([&](SingleThreadOp op) { singles.push_back(op); });
    for (SingleThreadOp op : singles) {
      OpBuilder b(op);
      Location loc = op.getLoc();
      Value cond;
      switch (op.getScope()) {
      case ThreadScope::warp:
        cond = NVVM::ElectSyncOp::create(b, loc, b.getI1Type(), Value());
        break;
      case ThreadScope::warpgroup:
      case ThreadScope::cta: {
        Value tid = IdOp::create(b, loc,
                                 op.getScope() == ThreadScope::cta
                                     ? IdKind::thread
                                     : IdKind::thread_in_warpgroup);
        cond = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid,
                                     constI32(b, loc, 0));
        break;
      }
      }
      Block &block = op.getBody().front();
      if (onlyArrives(block))
        predicateArrives(op, cond);
      else
        moveIntoIf(b, loc, cond, block);
      op.erase();
    }
    addTeardown(kernel, body);
    return success();
  }

  /// Moves buffer and barrier declarations to the kernel's start and adds the
  /// setup: barrier-init fence, the CTA/cluster sync, the tmem address read.
  LogicalResult hoistDeclarations(KernelOp kernel) {
    Block &body = kernel.getBody().front();
    SmallVector<Operation *> decls;
    for (Operation &op : body)
      if (isa<SmemAllocOp, BarrierAllocOp, TmemAllocOp>(op))
        decls.push_back(&op);
    Operation *insertAfter = nullptr;
    for (Operation *op : decls) {
      if (insertAfter)
        op->moveAfter(insertAfter);
      else
        op->moveBefore(&body, body.begin());
      insertAfter = op;
    }
    bool hasBarriers = llvm::any_of(
        decls, [](Operation *op) { return isa<BarrierAllocOp>(op); });
    auto tmemAllocs = llvm::to_vector(llvm::make_filter_range(
        decls, [](Operation *op) { return isa<TmemAllocOp>(op); }));
    if (tmemAllocs.size() > 1)
      return tmemAllocs[1]->emitOpError(
          "a kernel allocates tensor memory once; use column offsets into one "
          "allocation");
    if (!hasBarriers && tmemAllocs.empty())
      return success();

    OpBuilder b(kernel.getContext());
    if (insertAfter)
      b.setInsertionPointAfter(insertAfter);
    else
      b.setInsertionPointToStart(&body);
    Location loc = kernel.getLoc();
    if (hasBarriers)
      FenceOp::create(b, loc, FenceKind::mbarrier_init);
    SyncOp::create(b, loc,
                   kernel.getClusterSize() > 1 ? SyncScope::cluster
                                               : SyncScope::cta,
                   IntegerAttr());
    if (!tmemAllocs.empty()) {
      auto alloc = cast<TmemAllocOp>(tmemAllocs[0]);
      // After the sync every thread reads the address tcgen05.alloc wrote.
      auto address =
          TmemAddressOp::create(b, loc, alloc.getType(), alloc.getResult());
      alloc.getResult().replaceAllUsesExcept(address.getResult(), address);
    }
    return success();
  }

  void addTeardown(KernelOp kernel, Block &body) {
    TmemAllocOp tmem;
    for (Operation &op : body)
      if (auto t = dyn_cast<TmemAllocOp>(op))
        tmem = t;
    if (!tmem && kernel.getClusterSize() == 1)
      return;
    OpBuilder b = OpBuilder::atBlockEnd(&body);
    Location loc = kernel.getLoc();
    // No CTA may exit (or free tensor memory) while a peer in its cluster can
    // still write its shared memory or barriers.
    SyncOp::create(b, loc,
                   kernel.getClusterSize() > 1 ? SyncScope::cluster
                                               : SyncScope::cta,
                   IntegerAttr());
    if (tmem) {
      // Release the allocated address, which only tile.tmem_address knows.
      Value address = tmem.getResult();
      for (Operation *user : tmem->getUsers())
        if (auto read = dyn_cast<TmemAddressOp>(user))
          address = read.getResult();
      TmemDeallocOp::create(b, loc, address);
    }
  }

  LogicalResult lowerRoles(KernelOp kernel) {
    Block &body = kernel.getBody().front();
    SmallVector<RoleOp> roles;
    for (Operation &op : body)
      if (auto role = dyn_cast<RoleOp>(op))
        roles.push_back(role);
    if (roles.empty())
      return success();

    // Ops between the first and the last role run before every role once
    // roles become one if/else chain; that is only harmless when they have
    // no side effects.
    for (Operation *op = roles.front(); op != roles.back();
         op = op->getNextNode()) {
      if (isa<RoleOp>(op) || isMemoryEffectFree(op))
        continue;
      return op->emitOpError("has side effects and sits between roles; move "
                             "it before the first role or into a role")
                 .attachNote(roles.front().getLoc())
             << "first role here";
    }

    // Warpgroups that run the same roles share one branch.
    int64_t numWarpgroups = kernel.getWarpgroups();
    SmallVector<std::pair<SmallVector<RoleOp>, SmallVector<int64_t>>> classes;
    // The roles of a warpgroup agree on its budget (KernelOp's verifier).
    DenseMap<int64_t, RoleOp> budgetOwner;
    for (int64_t wg = 0; wg < numWarpgroups; ++wg) {
      SmallVector<RoleOp> members;
      for (RoleOp role : roles) {
        if (!llvm::is_contained(role.getWarpgroups(), wg))
          continue;
        members.push_back(role);
        if (role.getMaxRegs())
          budgetOwner.try_emplace(wg, role);
      }
      if (members.empty())
        continue;
      auto it =
          llvm::find_if(classes, [&](auto &c) { return c.first == members; });
      if (it == classes.end())
        classes.push_back({members, {wg}});
      else
        it->second.push_back(wg);
    }

    LLVM_DEBUG({
      for (auto &[members, wgs] : classes) {
        llvm::dbgs() << "branch for warpgroups";
        for (int64_t wg : wgs)
          llvm::dbgs() << " " << wg;
        llvm::dbgs() << ":";
        for (RoleOp role : members)
          llvm::dbgs() << " '" << role.getRoleName() << "'";
        llvm::dbgs() << "\n";
      }
    });

    // Registers: setmaxnreg moves registers between the warpgroups of the
    // CTA, within what the launch gave it (the starting count per thread
    // times the threads); an increase beyond that waits forever.
    int64_t startRegs = startingRegisters(kernel.getNumThreads());
    int64_t launched = startRegs * kernel.getNumThreads();
    int64_t total = 0;
    for (int64_t wg = 0; wg < numWarpgroups; ++wg) {
      auto it = budgetOwner.find(wg);
      total += 128 *
               (it == budgetOwner.end() ? startRegs : *it->second.getMaxRegs());
    }
    if (total > launched)
      return roles.front().emitOpError("register budgets need ")
             << total << " registers per CTA, over the " << launched
             << " it starts with (" << startRegs << " per thread x "
             << kernel.getNumThreads()
             << " threads): setmaxnreg.inc would wait forever";

    OpBuilder b(roles.back());
    Location loc = roles.back().getLoc();
    Value wgId = IdOp::create(b, loc, IdKind::warpgroup);
    Value warpId = IdOp::create(b, loc, IdKind::warp_in_warpgroup);
    for (auto [index, cls] : llvm::enumerate(classes)) {
      auto &[members, wgs] = cls;
      bool last = index + 1 == classes.size();
      Value cond = buildMembership(b, loc, wgId, wgs);
      auto ifOp = scf::IfOp::create(b, loc, cond, /*withElseRegion=*/!last);
      b.setInsertionPointToStart(ifOp.thenBlock());
      auto it = budgetOwner.find(wgs.front());
      if (it != budgetOwner.end()) {
        int64_t regs = *it->second.getMaxRegs();
        auto action = regs < startRegs ? NVVM::SetMaxRegisterAction::decrease
                                       : NVVM::SetMaxRegisterAction::increase;
        if (regs != startRegs)
          NVVM::SetMaxRegisterOp::create(b, it->second.getLoc(), regs, action);
      }
      for (RoleOp role : members) {
        Location roleLoc = role.getLoc();
        OpBuilder::InsertionGuard guard(b);
        SmallVector<int64_t> warps = role.getWarpList();
        if (warps.size() != 4) {
          Value inWarps = buildMembership(b, roleLoc, warpId, warps);
          auto warpIf = scf::IfOp::create(b, roleLoc, inWarps, false);
          b.setInsertionPointToStart(warpIf.thenBlock());
        }
        if (role.getSingleThread()) {
          Value elected =
              NVVM::ElectSyncOp::create(b, roleLoc, b.getI1Type(), Value());
          auto electIf = scf::IfOp::create(b, roleLoc, elected, false);
          b.setInsertionPointToStart(electIf.thenBlock());
        }
        // Roles shared by several branches are cloned into each.
        IRMapping mapping;
        for (Operation &op : role.getBody().front())
          b.clone(op, mapping);
      }
      if (!last)
        b.setInsertionPointToStart(ifOp.elseBlock());
    }
    for (RoleOp role : roles)
      role.erase();
    return success();
  }
};

} // namespace

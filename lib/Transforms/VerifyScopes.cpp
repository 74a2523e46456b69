//===- VerifyScopes.cpp - check which scope issues which op --------------===//

#include "lib/Transforms/Passes.h"

#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "tile-verify-scopes"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEVERIFYSCOPES
#include "lib/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

RoleOp mlir::tile::getEnclosingRole(Operation *op) {
  return op->getParentOfType<RoleOp>();
}

namespace {

/// The threads that reach an op: a whole warpgroup (or more), whole warps of
/// a warpgroup, or one thread.
enum class Scope { Warpgroups, Warps, OneThread };

/// Which threads execute `op`, judged from its enclosing role and
/// single_thread blocks.
Scope getScope(Operation *op, KernelOp kernel) {
  if (op->getParentOfType<SingleThreadOp>())
    return Scope::OneThread;
  RoleOp role = getEnclosingRole(op);
  if (!role)
    return Scope::Warpgroups;
  if (role.getSingleThread())
    return Scope::OneThread;
  if (role.getWarpList().size() != 4)
    return Scope::Warps;
  return Scope::Warpgroups;
}

/// How to say where `op` runs in a message.
std::string describeScope(Operation *op) {
  if (auto st = op->getParentOfType<SingleThreadOp>())
    return "inside a tile.single_thread block";
  if (RoleOp role = getEnclosingRole(op)) {
    if (role.getSingleThread())
      return "in single-thread role '" + role.getRoleName().str() + "'";
    return "in role '" + role.getRoleName().str() + "', which runs on " +
           std::to_string(role.getWarpList().size()) + " of 4 warps";
  }
  return "at the kernel's top level";
}

struct VerifyScopesPass
    : public tile::impl::TileVerifyScopesBase<VerifyScopesPass> {
  void runOnOperation() override {
    bool failed = false;
    KernelOp kernel = getOperation();
    LLVM_DEBUG(llvm::dbgs()
               << "checking the scopes of " << kernel.getSymName() << "\n");
    kernel.walk([&](Operation *op) {
      if (::mlir::failed(verifyOp(op, kernel)))
        failed = true;
    });
    if (failed)
      signalPassFailure();
  }

  LogicalResult requireOneThread(Operation *op, KernelOp kernel,
                                 StringRef what) {
    if (getScope(op, kernel) == Scope::OneThread)
      return success();
    return op->emitOpError()
           << what << " is issued by one thread, but this op runs "
           << describeScope(op)
           << "; put it in a single_thread role or a "
              "tile.single_thread block";
  }

  LogicalResult requireWarpgroup(Operation *op, KernelOp kernel,
                                 StringRef what) {
    if (getScope(op, kernel) == Scope::Warpgroups)
      return success();
    return op->emitOpError() << what
                             << " needs all 128 threads of a warpgroup, but "
                                "this op runs "
                             << describeScope(op);
  }

  LogicalResult verifyOp(Operation *op, KernelOp kernel) {
    if (auto sync = dyn_cast<SyncOp>(op)) {
      if (sync.getScope() == SyncScope::warpgroup)
        return requireWarpgroup(op, kernel, "a warpgroup sync");
      // The one place of this rule: the DSL's sync(cta | cluster) lowers to
      // this op, and its errors reach the spec's line through here.
      if (op->getParentOfType<SingleThreadOp>())
        return op->emitOpError()
               << "a " << stringifySyncScope(sync.getScope())
               << "-wide sync inside a tile.single_thread block deadlocks: "
                  "the other threads never reach it";
      if (RoleOp role = getEnclosingRole(op)) {
        InFlightDiagnostic diag =
            op->emitOpError()
            << "a " << stringifySyncScope(sync.getScope())
            << "-wide sync inside role '" << role.getRoleName()
            << "' deadlocks: the other roles never reach it; sync the role's "
               "warpgroup instead (tile.sync warpgroup, sync(warpgroup) in a "
               "spec)";
        diag.attachNote(role.getLoc()) << "the role is declared here";
        return diag;
      }
      return success();
    }
    if (isa<GridSyncOp>(op)) {
      if (RoleOp role = getEnclosingRole(op)) {
        InFlightDiagnostic diag =
            op->emitOpError()
            << "a grid sync inside role '" << role.getRoleName()
            << "' deadlocks: the other roles never reach it";
        diag.attachNote(role.getLoc()) << "the role is declared here";
        return diag;
      }
      if (op->getParentOfType<SingleThreadOp>())
        return op->emitOpError()
               << "a grid sync inside a tile.single_thread block deadlocks: "
                  "the other threads never reach it";
      return success();
    }
    if (auto copy = dyn_cast<CopyAsyncOp>(op))
      return requireOneThread(op, kernel, "a TMA copy");
    if (isa<BulkCommitOp>(op))
      return requireOneThread(op, kernel, "a bulk-copy commit");
    if (auto gemm = dyn_cast<GemmAsyncOp>(op)) {
      if (isa<TmemType>(gemm.getAcc().getType()))
        return requireOneThread(op, kernel, "tcgen05.mma");
      return requireWarpgroup(op, kernel, "wgmma");
    }
    if (auto commit = dyn_cast<GemmCommitOp>(op)) {
      if (kernel.isBlackwell())
        return requireOneThread(op, kernel, "tcgen05.commit");
      return requireWarpgroup(op, kernel, "wgmma.commit_group");
    }
    if (isa<GemmWaitOp>(op))
      return requireWarpgroup(op, kernel, "wgmma.wait_group");
    if (isa<TmemLoadOp>(op))
      return requireWarpgroup(op, kernel, "tcgen05.ld");
    // The lanes that share a row exchange partial results with shfl.sync.
    if (isa<FragReduceOp>(op))
      return requireWarpgroup(op, kernel, "a fragment reduction");
    return success();
  }
};

} // namespace

//===- DebugHangs.cpp - name every barrier wait for tilec --debug-hangs --===//
//
// Puts the enclosing role's name and the barrier's name (the spec's name of
// its declaration) on every tile.barrier.wait, before tile-warp-specialize
// turns the roles into branches. tile-convert-to-nvvm lowers a wait that
// carries them as a bounded spin that reports a time-out and traps.
//
//===----------------------------------------------------------------------===//

#include "lib/Transforms/Passes.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEDEBUGHANGS
#include "lib/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

struct DebugHangsPass : tile::impl::TileDebugHangsBase<DebugHangsPass> {
  void runOnOperation() override {
    KernelOp kernel = getOperation();
    // Barriers without a name in the spec (an .mlir input without NameLocs)
    // are called by their declaration order.
    llvm::DenseMap<Operation *, std::string> names;
    unsigned unnamed = 0;
    kernel.walk([&](BarrierAllocOp alloc) {
      if (auto named = dyn_cast<NameLoc>(alloc.getLoc()))
        names[alloc] = named.getName().str();
      else
        names[alloc] = "barrier" + std::to_string(unnamed);
      ++unnamed;
    });
    Builder b(&getContext());
    kernel.walk([&](BarrierWaitOp wait) {
      Value barrier = wait.getBarrier();
      std::string name = "?";
      if (Operation *def = barrier.getDefiningOp())
        if (auto it = names.find(def); it != names.end())
          name = it->second;
      RoleOp role = getEnclosingRole(wait);
      wait.setDebugRoleAttr(
          b.getStringAttr(role ? role.getRoleName() : StringRef("kernel")));
      wait.setDebugBarrierAttr(b.getStringAttr(name));
    });
  }
};

} // namespace

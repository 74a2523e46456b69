//===- EmitSync.cpp - sync, fence, pipelines and barrier methods ---------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//
//
// Synchronisation: sync(...) and fence(...), pipeline states (a stage and a
// phase that advance() moves on) and the methods of barriers (wait, arrive,
// remote_view).
//
//===----------------------------------------------------------------------===//

#include "lib/Frontend/Emitter.h"

#include "llvm/ADT/STLExtras.h"

using namespace tilec::frontend;
using namespace mlir;

//===----------------------------------------------------------------------===//
// Synchronisation and pipelines
//===----------------------------------------------------------------------===//

static const llvm::StringRef kSyncScopes[] = {"cta", "cluster", "warpgroup",
                                              "grid"};
/// The index of "grid" in kSyncScopes: no tile.sync scope, a tile.grid_sync.
static constexpr unsigned kGridScope = 3;
static const llvm::StringRef kFenceKinds[] = {
    "proxy_async", "tcgen05_before_sync", "tcgen05_after_sync"};

Val Emitter::emitSync(const CallExpr &call) {
  SmallVector<const Expr *> args;
  if (!bindArgs(call, "sync", {{"scope", true}, {"counter", false}}, args))
    return Val::error();
  std::optional<unsigned> scope =
      evalChoice(*args[0], "sync scope", kSyncScopes);
  if (!scope)
    return Val::error();
  if (*scope == kGridScope) {
    if (!args[1]) {
      error(closingParen(call),
            "a grid sync counts the CTAs in a global i32 element that starts "
            "at 0: give it with counter = X[i]");
      return Val::error();
    }
    std::optional<BufferRef> counter =
        evalBufferRef(*args[1], "the counter of a grid sync");
    if (!counter)
      return Val::error();
    if (!counter->base.getValueType<tile::GlobalType>()) {
      error(args[1]->getRange(), "a grid sync's counter is an element of a "
                                 "global tensor, got " +
                                     describeVal(counter->base));
      return Val::error();
    }
    SmallVector<Value> indices;
    if (!elementIndices(*counter, /*store=*/false, indices))
      return Val::error();
    tile::GridSyncOp::create(builder, loc(call.getLoc()), counter->base.value,
                             indices);
    return Val::error();
  }
  if (args[1]) {
    error(args[1]->getRange(), "counter = ... is the grid sync's: "
                               "sync(grid, counter = X[i])");
    return Val::error();
  }
  // Where a sync deadlocks (in a role, in a single_thread block) is
  // tile-verify-scopes' rule, reported at this line.
  tile::SyncOp::create(builder, loc(call.getLoc()),
                       static_cast<tile::SyncScope>(*scope),
                       /*barrier_id=*/nullptr);
  return Val::error();
}

Val Emitter::emitFence(const CallExpr &call) {
  SmallVector<const Expr *> args;
  if (!bindArgs(call, "fence", {{"kind", true}}, args))
    return Val::error();
  if (auto *name = llvm::dyn_cast<NameExpr>(args[0]);
      name && name->name == "mbarrier_init") {
    error(args[0]->getRange(), "the compiler initialises the barriers and "
                               "fences them itself");
    return Val::error();
  }
  std::optional<unsigned> kind = evalChoice(*args[0], "fence", kFenceKinds);
  if (!kind)
    return Val::error();
  std::optional<tile::FenceKind> fence =
      tile::symbolizeFenceKind(kFenceKinds[*kind]);
  if (!fence)
    return Val::error();
  tile::FenceOp::create(builder, loc(call.getLoc()), *fence);
  return Val::error();
}

Val Emitter::emitPipeline(const CallExpr &call) {
  SmallVector<const Expr *> args;
  if (!bindArgs(call, "pipeline", {{"depth", true}, {"phase", false}}, args))
    return Val::error();
  std::optional<int64_t> depth = evalConstInt(*args[0], "a pipeline's depth");
  if (!depth)
    return Val::error();
  if (*depth < 1 || *depth > 64) {
    error(args[0]->getRange(),
          "a pipeline's depth is 1 to 64 stages, got " + llvm::Twine(*depth));
    noteParamsIn(*args[0]);
    return Val::error();
  }
  if (!args[1]) {
    error(closingParen(call),
          "give the start phase: 'phase = 1' for a producer (its first wait "
          "on a fresh barrier passes at once), 'phase = 0' for a consumer");
    return Val::error();
  }
  std::optional<int64_t> phase = evalConstUnsigned(*args[1], "the start phase");
  if (!phase)
    return Val::error();
  Location l = loc(call.getLoc());
  auto type = tile::PipelineType::getChecked([&] { return emitError(l); },
                                             &context, *depth);
  if (!type)
    return Val::error();
  return Val::of(tile::PipelineInitOp::create(builder, l, type,
                                              static_cast<uint64_t>(*phase)));
}

static const llvm::StringRef kBarrierMethods[] = {"wait", "arrive",
                                                  "remote_view"};

Val Emitter::emitMethod(const CallExpr &call, const MemberExpr &callee,
                        bool isStatement) {
  if (!inKernelBody()) {
    error(callee.getRange(), "methods can only be called inside a kernel "
                             "body");
    return Val::error();
  }
  Val base = eval(*callee.base);
  if (base.isError())
    return base;
  llvm::StringRef method = callee.member;
  auto checkStatement = [&](bool wantStatement) {
    if (wantStatement && !isStatement) {
      error(callee.memberRange,
            method + "() is a statement: it gives no value");
      return false;
    }
    if (!wantStatement && isStatement) {
      error(call.getRange(), "the value of " + method +
                                 "() is not used; bind it with 'let name = "
                                 "...'");
      return false;
    }
    return true;
  };
  if (auto barrier = base.getValueType<tile::BarrierType>()) {
    if (method == "wait")
      return checkStatement(true) ? emitBarrierWait(call, base.value)
                                  : Val::error();
    if (method == "arrive")
      return checkStatement(true) ? emitBarrierArrive(call, base.value)
                                  : Val::error();
    if (method == "remote_view")
      return checkStatement(false) ? emitRemoteView(call, base.value)
                                   : Val::error();
    llvm::StringRef close = closestName(method, kBarrierMethods);
    std::string message = "a barrier has no method '" + method.str() +
                          "' (it has wait, arrive and remote_view)";
    if (!close.empty())
      diag.errorWithFixIt(callee.memberRange,
                          message + "; did you mean '" + close.str() + "'?",
                          close);
    else
      error(callee.memberRange, message);
    return Val::error();
  }
  if (base.getValueType<tile::PipelineType>()) {
    if (method == "advance")
      return checkStatement(true) ? emitAdvance(call, callee) : Val::error();
    if (method == "wait" || method == "arrive") {
      error(callee.memberRange, "a pipeline state is not a barrier: " + method +
                                    " on a barrier with it, as in 'full." +
                                    method + "(" +
                                    textOf(callee.base->getRange()) + ")'");
      return Val::error();
    }
    if (method == "stage" || method == "phase") {
      error(call.getRange(), method + " is not a method: write '" +
                                 textOf(callee.getRange()) + "'");
      return Val::error();
    }
    static const llvm::StringRef kPipelineMethods[] = {"advance"};
    error(callee.memberRange, "a pipeline state has no method '" + method +
                                  "' (it has advance(), and the members "
                                  "stage and phase)" +
                                  didYouMean(method, kPipelineMethods));
    return Val::error();
  }
  error(callee.memberRange,
        describeVal(base) + " has no method '" + method + "'");
  return Val::error();
}

/// The (stage, phase) of a pipeline state, or null values.
static std::pair<Value, Value> stageAndPhase(Emitter &emitter, const Val &val,
                                             Location l) {
  if (!val.getValueType<tile::PipelineType>())
    return {};
  Type i32 = emitter.builder.getI32Type();
  return {tile::PipelineStageOp::create(emitter.builder, l, i32, val.value),
          tile::PipelinePhaseOp::create(emitter.builder, l, i32, val.value)};
}

Val Emitter::emitBarrierWait(const CallExpr &call, Value barrier) {
  SmallVector<const Expr *> args;
  if (!bindArgs(call, "wait", {{"index", true}, {"phase", false}}, args))
    return Val::error();
  Location l = loc(call.getLoc());
  Val index = eval(*args[0]);
  if (index.isError())
    return index;
  Value stage, phase;
  if (index.getValueType<tile::PipelineType>()) {
    if (args[1]) {
      error(args[1]->getRange(), "the phase comes from the pipeline state; "
                                 "write wait(ps) or wait(index, phase)");
      return Val::error();
    }
    std::tie(stage, phase) = stageAndPhase(*this, index, l);
  } else {
    if (!index.isInt() &&
        !(index.isValue() && index.type.isSignlessInteger(32))) {
      error(args[0]->getRange(), "wait takes a barrier index and a phase, or "
                                 "a pipeline state, got " +
                                     describeVal(index));
      return Val::error();
    }
    if (!args[1]) {
      error(closingParen(call),
            "give the phase to wait for: wait(index, phase), or pass a "
            "pipeline state: wait(ps)");
      return Val::error();
    }
    stage = materialize(index, args[0]->getRange());
    phase = evalI32(*args[1], "the phase");
  }
  if (!stage || !phase)
    return Val::error();
  tile::BarrierWaitOp::create(builder, l, barrier, stage, phase,
                              /*ready=*/Value(), /*debug_role=*/nullptr,
                              /*debug_barrier=*/nullptr);
  return Val::error();
}

Val Emitter::emitBarrierArrive(const CallExpr &call, Value barrier) {
  for (const KeywordArg &keyword : call.keywords)
    if (keyword.name == "cta_group" || keyword.name == "cta_mask") {
      auto *member = llvm::cast<MemberExpr>(call.callee.get());
      error(keyword.nameRange,
            "an MMA completion is signalled with gemm_commit, as in "
            "'gemm_commit(" +
                textOf(member->base->getRange()) +
                "[stage], cta_group = 2, cta_mask = 3)'");
      return Val::error();
    }
  SmallVector<const Expr *> args;
  if (!bindArgs(call, "arrive", {{"index", true}, {"expect_tx", false}}, args))
    return Val::error();
  Location l = loc(call.getLoc());
  Val index = eval(*args[0]);
  if (index.isError())
    return index;
  Value stage;
  if (index.getValueType<tile::PipelineType>())
    stage = stageAndPhase(*this, index, l).first;
  else if (index.isInt() ||
           (index.isValue() && index.type.isSignlessInteger(32)))
    stage = materialize(index, args[0]->getRange());
  else
    error(args[0]->getRange(), "arrive takes a barrier index or a pipeline "
                               "state, got " +
                                   describeVal(index));
  if (!stage)
    return Val::error();
  IntegerAttr expectTx;
  if (args[1]) {
    std::optional<int64_t> bytes =
        evalConstUnsigned(*args[1], "expect_tx (the bytes the copies deliver)");
    if (!bytes)
      return Val::error();
    expectTx = builder.getI64IntegerAttr(*bytes);
  }
  tile::BarrierArriveOp::create(builder, l, barrier, stage, /*pred=*/Value(),
                                expectTx);
  return Val::error();
}

Val Emitter::emitRemoteView(const CallExpr &call, Value barrier) {
  SmallVector<const Expr *> args;
  if (!bindArgs(call, "remote_view", {{"cta", true}}, args))
    return Val::error();
  std::optional<int64_t> cta =
      evalConstUnsigned(*args[0], "the CTA of a remote view");
  if (!cta)
    return Val::error();
  auto type = cast<tile::BarrierType>(barrier.getType());
  auto remote = tile::BarrierType::get(&context, type.getKind(),
                                       type.getDepth(), /*remote=*/true);
  return Val::of(
      tile::BarrierRemoteViewOp::create(builder, loc(call.getLoc()), remote,
                                        barrier, static_cast<uint64_t>(*cta)));
}

Val Emitter::emitAdvance(const CallExpr &call, const MemberExpr &callee) {
  if (!call.args.empty() || !call.keywords.empty()) {
    error(call.getRange(), "advance() takes no arguments");
    return Val::error();
  }
  auto *name = llvm::dyn_cast<NameExpr>(callee.base.get());
  if (!name) {
    error(callee.base->getRange(),
          "advance() updates a pipeline-state variable in place");
    return Val::error();
  }
  Val state = eval(*name);
  if (state.isError())
    return state;
  Value next = tile::PipelineAdvanceOp::create(builder, loc(call.getLoc()),
                                               state.type, state.value);
  assignVariable(name->name, name->getRange(), Val::of(next));
  return Val::error();
}

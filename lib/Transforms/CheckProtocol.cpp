//===- CheckProtocol.cpp - execute the roles' barrier traffic abstractly --===//
//
// tile-check-protocol runs every role of a kernel as an agent (one per
// warpgroup of a role, one per warp of a single-thread role, one per CTA of
// the cluster) over its barrier traffic: arrivals with their thread counts,
// expect_tx bytes, the bytes of the TMA copies completing on each barrier
// (multicast and 2-CTA forms), tcgen05 commits, and the (stage, phase) of
// every wait from its pipeline state. Loops with run-time trip counts are run
// with every count up to a bound that covers each phase combination of the
// rings (docs/protocol.md says why that suffices and what is not proven).
//
// A wait passes, in the model, when the barrier has completed the phase it
// names at or after the last phase this agent saw there; each completion
// carries a vector clock, so the check also proves that no completion can
// overtake a wait that should have seen the phase before it (a lapped or
// free-passing wait), which makes the verdict of one schedule hold for all.
// The same clocks order the asynchronous reads (wgmma and tcgen05 operands,
// tmem loads) before the writes that reuse their places (TMA refills, MMAs
// into the accumulator).
//
//===----------------------------------------------------------------------===//

#include "lib/Transforms/Passes.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Debug.h"

#include <deque>
#include <functional>
#include <numeric>

#define DEBUG_TYPE "tile-check-protocol"

namespace mlir::tile {
#define GEN_PASS_DEF_TILECHECKPROTOCOL
#include "lib/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

//===----------------------------------------------------------------------===//
// Abstract values
//===----------------------------------------------------------------------===//

/// What the checker knows of an SSA value: an integer, a pipeline state, or
/// nothing.
struct AbsVal {
  enum Kind { Unknown, Int, Pipe } kind = Unknown;
  int64_t value = 0; // Int
  int64_t depth = 0, stage = 0, phase = 0;
  Operation *init = nullptr; // Pipe: the tile.pipeline.init it comes from

  static AbsVal integer(int64_t v) {
    AbsVal a;
    a.kind = Int;
    a.value = v;
    return a;
  }
  bool isInt() const { return kind == Int; }
};

/// The name a declaration or variable was given in the spec (its NameLoc),
/// else `fallback`.
std::string nameOf(Location loc, StringRef fallback) {
  if (auto named = dyn_cast<NameLoc>(loc))
    return named.getName().str();
  return fallback.str();
}

/// " at line N" for an op with a file location, else "".
std::string lineOf(Operation *op) {
  Location loc = op->getLoc();
  if (auto named = dyn_cast<NameLoc>(loc))
    loc = named.getChildLoc();
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    return " at line " + std::to_string(file.getLine());
  return "";
}

/// The source position of a (possibly named) location, for notes.
Location plainLoc(Location loc) {
  if (auto named = dyn_cast<NameLoc>(loc))
    return named.getChildLoc();
  return loc;
}

//===----------------------------------------------------------------------===//
// The model
//===----------------------------------------------------------------------===//

using Clock = SmallVector<uint32_t, 8>;

void join(Clock &into, const Clock &from) {
  for (auto [a, b] : llvm::zip(into, from))
    a = std::max(a, b);
}

/// One arrival or copy that went into a barrier's current phase.
struct Contribution {
  Operation *op;
  int agent;
  int64_t arrivals;
  int64_t bytes;  // expect_tx bytes (arrive) or delivered bytes (copy)
  bool delivered; // a copy's bytes rather than an arrive's expectation
};

/// A wait that passed, remembered until the completion after the one it
/// synchronised with: that completion must happen after the wait.
struct PassedWait {
  Operation *op;
  int agent;
  uint32_t time;
  int64_t target;
  int64_t phase;
};

/// An asynchronous read of a shared-memory stage or of tensor-memory columns
/// (a wgmma's or tcgen05 MMA's operands, a tcgen05.ld): a later write of the
/// same place (a TMA copy, an MMA into the accumulator) must happen after
/// the read is done.
struct Access {
  Operation *op;
  Operation *doneAt = nullptr; // the gemm_wait, gemm_commit or tmem_wait
  int agent;
  uint32_t done = UINT32_MAX; // the reader's clock once it is done
  int64_t lo, hi;             // smem: the stage [lo, lo + 1); tmem: columns
  enum Reader { Wgmma, Tcgen05Mma, TmemLoad, SharedLoad } reader;
};

struct BarrierState {
  int64_t completed = 0;
  int64_t arrivals = 0, expected = 0, delivered = 0;
  Clock clock;
  SmallVector<Contribution> contributions;
  SmallVector<Clock> completions;
  SmallVector<Contribution> completers; // the last contribution of each
  SmallVector<PassedWait> waits;
  SmallVector<int64_t, 8> arrivedBy; // per agent, over all phases
  // The completions of other barriers that the current phase's contributors
  // had seen, and per completion the same: an agent that passes a wait on
  // this barrier knows them too (the phases it may then wait for are read
  // from them, as from its own).
  DenseMap<int64_t, int64_t> observed;
  SmallVector<DenseMap<int64_t, int64_t>> completionObserved;
};

/// Raises each element of `into` to `from`'s count where that is higher.
void joinObserved(DenseMap<int64_t, int64_t> &into,
                  const DenseMap<int64_t, int64_t> &from) {
  for (auto [elem, count] : from) {
    int64_t &known = into[elem];
    known = std::max(known, count);
  }
}

/// One barrier array of the kernel.
struct BarrierArray {
  Operation *op;
  std::string name;
  int64_t depth, arrivals;
  BarrierKind kind;
};

struct Frame {
  Block *block;
  Block::iterator it;
  Operation *owner;
  int64_t threads;
  int64_t iteration = 0, trips = 0;
};

struct Agent {
  int cta;
  RoleOp role;            // null: the kernel body of a kernel without roles
  int64_t warpgroup = -1; // -1: not one warpgroup
  int64_t warp = -1;      // -1: not one warp
  int64_t threads;        // threads that run the agent's code
  std::string name;
  SmallVector<Frame, 6> stack;
  DenseMap<Value, AbsVal> env;
  Clock clock;
  DenseMap<int64_t, int64_t> observed; // barrier element -> completions seen
  int64_t passedWaits = 0;
  bool done = false;
  // Its reads in flight, as indices into ProtocolChecker::accesses.
  SmallVector<int> uncommittedWgmmaReads;
  std::deque<SmallVector<int>> wgmmaGroups; // committed, oldest first
  SmallVector<int> tcgen05Reads;            // done at the next commit
  SmallVector<int> tmemReads;               // done at the next tmem_wait

  /// wgmma.commit_group: the reads issued since the last one form a group.
  void commitWgmmaGroup() {
    if (uncommittedWgmmaReads.empty())
      return;
    wgmmaGroups.push_back(std::move(uncommittedWgmmaReads));
    uncommittedWgmmaReads.clear();
  }
  // Where it is blocked.
  BarrierWaitOp blockedAt;
  int64_t blockedElement = -1, blockedTarget = 0, blockedPhase = 0;
  int64_t blockedIndex = 0;
};

/// Why a kernel cannot be checked (reported as a warning; no finding).
struct Unsupported {
  Location loc;
  std::string reason;
};

/// A run-time loop class: loops of different roles whose bounds are the
/// same expression run the same number of times.
struct LoopSymbol {
  scf::ForOp first;
  bool innermost = true;
};

/// The loop symbol whose trip count a bound's expression takes: the loop
/// runs from `lb` by `step` to it.
struct BoundSymbol {
  int symbol;
  int64_t lb, step;
};

/// A run-time condition of a branch around barrier traffic (a leaf of its
/// and / or / xor tree): conditions of different roles that are the same
/// expression share one; one that depends on the warpgroup or warp id has
/// one value per agent of its role. Each trace fixes every value.
struct CondAtom {
  Value first;
  bool perAgent = false; // a value per warpgroup / warp of its role
  bool perCta = false;   // a value per CTA of the cluster
  RoleOp role;           // perAgent: the role whose agents evaluate it
};

/// What a value depends on besides the trace: the agent's warpgroup or
/// warp, its CTA.
enum AgentDependence : unsigned { kOnWarp = 1, kOnCta = 2 };

class ProtocolChecker {
public:
  explicit ProtocolChecker(KernelOp kernel) : kernel(kernel) {}

  /// Returns failure after reporting a finding.
  LogicalResult run();

private:
  // Static preparation.
  void collectBarriers();
  void markRelevant();
  void collectLoopSymbols();
  void collectCondAtoms();
  unsigned agentDependence(Value v, DenseSet<Value> &seen);
  int condTag(int atom, int a) const;
  bool fixedByTrace(Value v, DenseSet<Value> &seen);
  int condSlot(int atom, int a) const;
  std::pair<llvm::hash_code, bool> structuralKey(Value v);
  void buildAgents();

  // One run with the trip counts in `trips`.
  bool simulate(ArrayRef<int64_t> trips);
  void reset(ArrayRef<int64_t> trips);
  bool stepAgent(int a);
  enum class Exec { Next, Blocked, Entered, Stop };
  Exec exec(int a, Operation *op);
  bool finishBlock(int a);
  AbsVal eval(int a, Value v);
  void evalPure(int a, Operation *op);
  std::optional<std::pair<int, int>> resolveBarrier(int a, Value barrier);
  std::optional<int64_t> element(int a, Operation *op, Value barrier,
                                 Value index, int targetCta);
  bool arrive(int a, Operation *op, int array, int cta, int64_t index,
              int64_t count, int64_t bytes, bool delivered);
  bool tryComplete(int64_t elem);
  bool checkTermination();

  // Asynchronous reads and the writes that must come after them.
  bool trackAccesses(int a, Operation *op);
  std::optional<int64_t> stageOf(int a, Value buffer, OperandRange indices);
  void recordRead(int a, Operation *op, int cta, Value buffer, int64_t lo,
                  int64_t hi, Access::Reader reader,
                  SmallVector<int> &inFlight);
  void markDone(int a, SmallVector<int> &reads, Operation *at);
  /// Shared memory is tracked per stage, tensor memory per buffer.
  static std::tuple<int, Value, int64_t> readKey(int cta, Value buffer,
                                                 int64_t lo) {
    return {cta, buffer, isa<TmemType>(buffer.getType()) ? -1 : lo};
  }
  bool checkOverwrite(int a, Operation *op, int cta, Value buffer, int64_t lo,
                      int64_t hi);
  void reportDeadlock();

  // Findings.
  InFlightDiagnostic error(Operation *op) {
    found = true;
    return op->emitError();
  }
  void unsupported(Operation *op, const Twine &reason) {
    if (!skip)
      skip = Unsupported{op->getLoc(), reason.str()};
  }
  std::string elementName(int64_t elem) const;
  std::string describeState(int64_t elem) const;
  void noteTrips(InFlightDiagnostic &diag);
  bool noteArrivers(InFlightDiagnostic &diag, int64_t elem, int waiter);
  void missedPhase(Operation *wait, int waiter, int64_t elem, int64_t target,
                   int64_t parity, const Contribution *completer);

  int64_t elementId(int array, int cta, int64_t index) const {
    return (static_cast<int64_t>(array) * clusterSize + cta) * maxDepth + index;
  }

  KernelOp kernel;
  int64_t clusterSize = 1, maxDepth = 1;
  std::vector<BarrierArray> arrays;
  DenseMap<Operation *, int> arrayOf;
  DenseSet<Operation *> relevant;
  /// Ops outside the barrier traffic that the agents evaluate (one result,
  /// no regions, no effects, or an id), classified once: the traces ask
  /// for every op they step over.
  DenseSet<Operation *> evaluated;
  /// The single-result arith ops, for evalPure.
  DenseSet<Operation *> arithOps;
  DenseMap<Value, std::pair<llvm::hash_code, bool>> keys;
  SmallVector<LoopSymbol, 4> symbols;
  DenseMap<Operation *, int> symbolOf;
  DenseMap<llvm::hash_code, BoundSymbol> boundSymbols; // bound's key -> symbol
  std::vector<Agent> agents;
  std::vector<DenseMap<Value, AbsVal>> ctaEnv;
  std::vector<BarrierState> barriers;
  std::vector<Access> accesses;
  /// (CTA, buffer, stage or -1 for tensor memory) -> its reads in
  /// `accesses`, in trace order.
  DenseMap<std::tuple<int, Value, int64_t>, SmallVector<int>> readsOf;
  /// Regions the agents step over: whether they hold a gemm_commit (1), a
  /// gemm_wait (2) or a tmem_wait (4).
  DenseMap<Operation *, uint8_t> regionEffects;
  SmallVector<int64_t> currentTrips;
  SmallVector<CondAtom, 4> condAtoms;
  DenseMap<Value, int> condAtomOf;
  DenseMap<std::pair<int, int>, int> condSlots; // (atom, condTag) -> bit
  uint64_t currentConds = 0;                    // bit per slot, this trace
  std::optional<Unsupported> skip;
  bool found = false;
  bool evaluatingTopLevel = false;
  bool arriverFinished = false; // set by noteArrivers
};

//===----------------------------------------------------------------------===//
// Static preparation
//===----------------------------------------------------------------------===//

void ProtocolChecker::collectBarriers() {
  kernel.walk([&](BarrierAllocOp op) {
    auto type = cast<BarrierType>(op.getType());
    arrayOf[op] = arrays.size();
    arrays.push_back(
        {op, nameOf(op.getLoc(), "barrier " + std::to_string(arrays.size())),
         type.getDepth(), static_cast<int64_t>(op.getArrivals()),
         type.getKind()});
    maxDepth = std::max(maxDepth, type.getDepth());
  });
}

/// Ops whose execution the model needs: barrier traffic, pipeline states,
/// and every region op around them.
void ProtocolChecker::markRelevant() {
  kernel.walk([&](Operation *op) {
    if (op->getNumResults() == 1 && !op->getNumRegions() &&
        (isa<IdOp>(op) || isMemoryEffectFree(op)))
      evaluated.insert(op);
    if (op->getNumResults() == 1 && op->getDialect() &&
        op->getDialect()->getNamespace() == "arith")
      arithOps.insert(op);
    bool traffic =
        isa<BarrierArriveOp, BarrierWaitOp, PipelineInitOp, PipelineAdvanceOp>(
            op);
    if (auto copy = dyn_cast<CopyAsyncOp>(op))
      traffic = copy.getBarrier() != nullptr;
    if (auto commit = dyn_cast<GemmCommitOp>(op))
      traffic = commit.getBarrier() != nullptr;
    if (!traffic)
      return;
    for (Operation *p = op; p && p != kernel; p = p->getParentOp())
      if (!relevant.insert(p).second)
        break;
  });
}

/// A hash of what `v` computes, equal for the same expression in two roles;
/// the flag says whether it depends on run-time values.
std::pair<llvm::hash_code, bool> ProtocolChecker::structuralKey(Value v) {
  auto it = keys.find(v);
  if (it != keys.end())
    return it->second;
  std::pair<llvm::hash_code, bool> key;
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    Operation *owner = arg.getOwner()->getParentOp();
    if (isa<KernelOp>(owner)) {
      key = {llvm::hash_combine("arg", arg.getArgNumber()), true};
    } else if (auto loop = dyn_cast<scf::ForOp>(owner)) {
      auto lb = structuralKey(loop.getLowerBound());
      auto ub = structuralKey(loop.getUpperBound());
      auto st = structuralKey(loop.getStep());
      llvm::hash_code bounds = llvm::hash_combine(lb.first, ub.first, st.first);
      if (arg == loop.getInductionVar()) {
        key = {llvm::hash_combine("iv", bounds),
               lb.second || ub.second || st.second};
      } else {
        // A carried value (`base += count`): its start and what each
        // iteration makes of it; the provisional key breaks the cycle. Not
        // its position among the loop's carried values: two roles may carry
        // different sets (the producer its tiles and its K offset, the
        // consumer its tiles only) in any order.
        unsigned n = arg.getArgNumber() - 1;
        auto init = structuralKey(loop.getInitArgs()[n]);
        llvm::hash_code start =
            llvm::hash_combine("carried", bounds, init.first);
        keys[v] = {start, true};
        auto next = structuralKey(loop.getYieldedValues()[n]);
        key = {llvm::hash_combine(start, next.first), true};
      }
    } else {
      key = {llvm::hash_combine("value", v.getAsOpaquePointer()), true};
    }
  } else {
    Operation *op = v.getDefiningOp();
    bool dynamic = false;
    llvm::hash_code h =
        llvm::hash_combine(op->getName().getStringRef(),
                           op->getAttrDictionary().getAsOpaquePointer(),
                           cast<OpResult>(v).getResultNumber());
    if (auto branch = dyn_cast<scf::IfOp>(op)) {
      // The value either branch yields, by the same condition.
      unsigned n = cast<OpResult>(v).getResultNumber();
      h = llvm::hash_combine(
          h, structuralKey(branch.getCondition()).first,
          structuralKey(branch.thenYield().getOperand(n)).first,
          structuralKey(branch.elseYield().getOperand(n)).first);
      dynamic = true;
    } else if (auto id = dyn_cast<IdOp>(op)) {
      IdKind kind = id.getKind();
      dynamic = kind != IdKind::cta_in_cluster && kind != IdKind::warpgroup &&
                kind != IdKind::warp_in_warpgroup;
    } else if (!isa<arith::ConstantOp>(op)) {
      // Two loads of one address give one value in two roles where nothing
      // writes it (a group's size); other effects make each op its own.
      if ((!isMemoryEffectFree(op) && !isa<LoadOp>(op)) || op->getNumRegions())
        h = llvm::hash_combine(h, op), dynamic = true;
      if (!op->getDialect() || (op->getDialect()->getNamespace() != "arith" &&
                                !isa<PipelineStageOp, PipelinePhaseOp>(op)))
        dynamic = true;
      for (Value operand : op->getOperands()) {
        auto k = structuralKey(operand);
        h = llvm::hash_combine(h, k.first);
        dynamic |= k.second;
      }
    }
    key = {h, dynamic};
  }
  keys[v] = key;
  return key;
}

/// Gives every relevant scf.for whose bounds are known only at run time its
/// symbol: loops with the same bounds share one. A loop counted from a
/// constant by a constant step to a bound is the bound's symbol: a value
/// with the same expression as that bound (in any role) is then its trip
/// count in each run, and a loop whose bounds the run computes from such
/// values (`range((k_count - 1) / 2)` beside `range(k_count)`) needs no
/// symbol of its own.
void ProtocolChecker::collectLoopSymbols() {
  SmallVector<scf::ForOp> runtimeLoops;
  kernel.walk<WalkOrder::PreOrder>([&](scf::ForOp loop) {
    if (!relevant.contains(loop))
      return;
    if (structuralKey(loop.getLowerBound()).second ||
        structuralKey(loop.getUpperBound()).second ||
        structuralKey(loop.getStep()).second)
      runtimeLoops.push_back(loop);
  });
  DenseMap<llvm::hash_code, int> byKey;
  auto symbolFor = [&](scf::ForOp loop) {
    llvm::hash_code key =
        llvm::hash_combine(structuralKey(loop.getLowerBound()).first,
                           structuralKey(loop.getUpperBound()).first,
                           structuralKey(loop.getStep()).first);
    auto [it, inserted] = byKey.try_emplace(key, symbols.size());
    if (inserted)
      symbols.push_back({loop});
    symbolOf[loop] = it->second;
    return it->second;
  };
  // The bounds that name a symbol first, then the loops derived from them.
  // A bound computed from the symbols named so far (a chunk's count of K
  // blocks, min(k_tiles - chunk * MAX_KB, MAX_KB), in its loop over
  // ceildiv(k_tiles, MAX_KB) chunks) names none: each trace fixes it.
  for (scf::ForOp loop : runtimeLoops) {
    std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound());
    std::optional<int64_t> step = getConstantIntValue(loop.getStep());
    if (!lb || !step || *step <= 0)
      continue;
    DenseSet<Value> seen;
    if (!boundSymbols.empty() && fixedByTrace(loop.getUpperBound(), seen))
      continue;
    int sym = symbolFor(loop);
    boundSymbols.try_emplace(structuralKey(loop.getUpperBound()).first,
                             BoundSymbol{sym, *lb, *step});
  }
  for (scf::ForOp loop : runtimeLoops) {
    if (symbolOf.count(loop))
      continue;
    DenseSet<Value> seen;
    if (fixedByTrace(loop.getLowerBound(), seen) &&
        fixedByTrace(loop.getUpperBound(), seen) &&
        fixedByTrace(loop.getStep(), seen))
      continue;
    symbolFor(loop);
  }
  // A symbol is outer when one of its loops holds another run-time loop.
  for (auto [loop, sym] : symbolOf) {
    bool holds = false;
    loop->walk([&](scf::ForOp inner) {
      if (inner.getOperation() != loop && symbolOf.count(inner))
        holds = true;
    });
    if (holds)
      symbols[sym].innermost = false;
  }
}

/// What `v` depends on among the agent's identities (AgentDependence
/// bits): its warpgroup or warp id (each agent of a role may see its own
/// value), its CTA (the CTAs of a cluster may see different values).
unsigned ProtocolChecker::agentDependence(Value v, DenseSet<Value> &seen) {
  if (!seen.insert(v).second)
    return 0;
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    if (auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp()))
      return agentDependence(loop.getLowerBound(), seen) |
             agentDependence(loop.getUpperBound(), seen) |
             agentDependence(loop.getStep(), seen);
    return 0;
  }
  Operation *op = v.getDefiningOp();
  if (auto id = dyn_cast<IdOp>(op)) {
    switch (id.getKind()) {
    case IdKind::warpgroup:
    case IdKind::warp_in_warpgroup:
      return kOnWarp;
    case IdKind::cta_in_cluster:
    case IdKind::cta:
    case IdKind::cta_x:
    case IdKind::cta_y:
    case IdKind::cta_z:
      return kOnCta;
    default:
      return 0;
    }
  }
  unsigned bits = 0;
  for (Value x : op->getOperands())
    bits |= agentDependence(x, seen);
  return bits;
}

/// Whether every run computes `v` from what the trace fixes: what is known
/// at compile time (structuralKey's static values: constants, the ids an
/// agent knows), the counters of loops that start at a known value, and
/// values with the expression of a symbol's bound (collectLoopSymbols).
bool ProtocolChecker::fixedByTrace(Value v, DenseSet<Value> &seen) {
  if (!seen.insert(v).second)
    return true;
  auto [key, dynamic] = structuralKey(v);
  if (!dynamic || boundSymbols.count(key))
    return true;
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
    return loop && arg == loop.getInductionVar() &&
           fixedByTrace(loop.getLowerBound(), seen) &&
           fixedByTrace(loop.getStep(), seen);
  }
  Operation *op = v.getDefiningOp();
  if (!arithOps.contains(op))
    return false;
  return llvm::all_of(op->getOperands(),
                      [&](Value x) { return fixedByTrace(x, seen); });
}

/// The run-time conditions of the branches around barrier traffic, as
/// atoms (the leaves of their and / or / xor trees), and one trace bit per
/// atom, or per agent of its role for an atom that depends on the agent.
void ProtocolChecker::collectCondAtoms() {
  DenseMap<llvm::hash_code, int> byKey;
  std::function<void(Value)> decompose = [&](Value c) {
    Operation *def = c.getDefiningOp();
    if (def && isa<arith::AndIOp, arith::OrIOp, arith::XOrIOp>(def)) {
      for (Value operand : def->getOperands())
        decompose(operand);
      return;
    }
    auto [key, dynamic] = structuralKey(c);
    if (!dynamic || condAtomOf.count(c))
      return;
    // Each run fixes it: a function of loop counters and trip counts.
    DenseSet<Value> seenLeaves;
    if (fixedByTrace(c, seenLeaves))
      return;
    DenseSet<Value> seen;
    unsigned dependence = agentDependence(c, seen);
    bool perAgent = dependence & kOnWarp;
    RoleOp role = def ? def->getParentOfType<RoleOp>() : RoleOp();
    if (auto arg = dyn_cast<BlockArgument>(c))
      role = arg.getOwner()->getParentOp()->getParentOfType<RoleOp>();
    // An atom of one agent's role is its own: others never evaluate it.
    if (perAgent)
      key = llvm::hash_combine(key, role.getOperation());
    auto [it, inserted] = byKey.try_emplace(key, condAtoms.size());
    if (inserted)
      condAtoms.push_back({c, perAgent, bool(dependence & kOnCta), role});
    condAtomOf[c] = it->second;
  };
  kernel.walk([&](scf::IfOp branch) {
    if (relevant.contains(branch))
      decompose(branch.getCondition());
  });
  // A bit per distinct tag: the agents (or CTAs) that may see different
  // values of the atom.
  int slots = 0;
  for (int atom = 0, e = condAtoms.size(); atom < e; ++atom)
    for (int a = 0, n = agents.size(); a < n; ++a) {
      if (condAtoms[atom].perAgent && agents[a].role != condAtoms[atom].role)
        continue;
      if (condSlots.try_emplace({atom, condTag(atom, a)}, slots).second)
        ++slots;
    }
}

/// Which of the atom's values agent `a` sees: -1 the one value of all
/// agents; -2 - cta the value of its CTA; else the index of the agent whose
/// value it is -- itself, or, for an atom that does not depend on the CTA,
/// the agent of its role, warpgroup and warp in CTA 0 (the CTAs of a pair
/// walk the same tiles, so a wave's condition is the same in both).
int ProtocolChecker::condTag(int atom, int a) const {
  const CondAtom &c = condAtoms[atom];
  if (!c.perAgent)
    return c.perCta ? -2 - agents[a].cta : -1;
  if (c.perCta)
    return a;
  for (int b = 0, e = agents.size(); b < e; ++b)
    if (agents[b].cta == 0 && agents[b].role == agents[a].role &&
        agents[b].warpgroup == agents[a].warpgroup &&
        agents[b].warp == agents[a].warp)
      return b;
  return a;
}

int ProtocolChecker::condSlot(int atom, int a) const {
  auto it = condSlots.find({atom, condTag(atom, a)});
  return it == condSlots.end() ? -1 : it->second;
}

void ProtocolChecker::buildAgents() {
  clusterSize = kernel.getClusterSize();
  SmallVector<RoleOp> roles;
  for (Operation &op : kernel.getBody().front())
    if (auto role = dyn_cast<RoleOp>(op))
      roles.push_back(role);
  auto inCta = [&](int cta) {
    return clusterSize > 1 ? " in CTA " + std::to_string(cta) : std::string();
  };
  for (int cta = 0; cta < clusterSize; ++cta) {
    if (roles.empty()) {
      Agent agent;
      agent.cta = cta;
      agent.threads = kernel.getNumThreads();
      agent.name = "the kernel body" + inCta(cta);
      agents.push_back(std::move(agent));
      continue;
    }
    for (RoleOp role : roles) {
      SmallVector<int64_t> warps = role.getWarpList();
      std::string base = "role '" + role.getRoleName().str() + "'";
      for (int64_t wg : role.getWarpgroups()) {
        bool several = role.getWarpgroups().size() > 1;
        if (role.getSingleThread()) {
          for (int64_t w : warps) {
            Agent agent;
            agent.cta = cta;
            agent.role = role;
            agent.warpgroup = wg;
            agent.warp = w;
            agent.threads = 1;
            std::string where;
            if (several)
              where = "warpgroup " + std::to_string(wg);
            if (warps.size() > 1)
              where += (where.empty() ? "" : ", ") + std::string("warp ") +
                       std::to_string(w);
            agent.name =
                base + (where.empty() ? "" : " (" + where + ")") + inCta(cta);
            agents.push_back(std::move(agent));
          }
          continue;
        }
        Agent agent;
        agent.cta = cta;
        agent.role = role;
        agent.warpgroup = wg;
        agent.warp = warps.size() == 1 ? warps.front() : -1;
        agent.threads = 32 * warps.size();
        agent.name =
            base + (several ? " (warpgroup " + std::to_string(wg) + ")" : "") +
            inCta(cta);
        agents.push_back(std::move(agent));
      }
    }
  }
}

//===----------------------------------------------------------------------===//
// Evaluation
//===----------------------------------------------------------------------===//

AbsVal ProtocolChecker::eval(int a, Value v) {
  Agent &agent = agents[a];
  auto it = agent.env.find(v);
  if (it != agent.env.end())
    return it->second;
  auto &base = ctaEnv[agent.cta];
  auto bit = base.find(v);
  if (bit != base.end())
    return bit->second;
  // A run-time branch condition: its value in this trace.
  if (auto atom = condAtomOf.find(v); atom != condAtomOf.end())
    if (int slot = condSlot(atom->second, a); slot >= 0)
      return AbsVal::integer((currentConds >> slot) & 1);
  // The bound of a loop symbol: where the symbol's trip count ends.
  auto [key, dynamic] = structuralKey(v);
  if (dynamic)
    if (auto bound = boundSymbols.find(key); bound != boundSymbols.end())
      return AbsVal::integer(bound->second.lb +
                             currentTrips[bound->second.symbol] *
                                 bound->second.step);
  return {};
}

std::optional<int64_t> foldArith(Operation *op, ArrayRef<int64_t> x) {
  auto floorDiv = [](int64_t a, int64_t b) {
    int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
  };
  auto ceilDiv = [&](int64_t a, int64_t b) { return -floorDiv(-a, b); };
  if (auto cmp = dyn_cast<arith::CmpIOp>(op)) {
    int64_t l = x[0], r = x[1];
    uint64_t ul = l, ur = r;
    switch (cmp.getPredicate()) {
    case arith::CmpIPredicate::eq:
      return l == r;
    case arith::CmpIPredicate::ne:
      return l != r;
    case arith::CmpIPredicate::slt:
      return l < r;
    case arith::CmpIPredicate::sle:
      return l <= r;
    case arith::CmpIPredicate::sgt:
      return l > r;
    case arith::CmpIPredicate::sge:
      return l >= r;
    case arith::CmpIPredicate::ult:
      return ul < ur;
    case arith::CmpIPredicate::ule:
      return ul <= ur;
    case arith::CmpIPredicate::ugt:
      return ul > ur;
    case arith::CmpIPredicate::uge:
      return ul >= ur;
    }
  }
  bool divides = x.size() == 2 && x[1] != 0;
  return TypeSwitch<Operation *, std::optional<int64_t>>(op)
      .Case([&](arith::AddIOp) { return x[0] + x[1]; })
      .Case([&](arith::SubIOp) { return x[0] - x[1]; })
      .Case([&](arith::MulIOp) { return x[0] * x[1]; })
      .Case([&](arith::AndIOp) { return x[0] & x[1]; })
      .Case([&](arith::OrIOp) { return x[0] | x[1]; })
      .Case([&](arith::XOrIOp) { return x[0] ^ x[1]; })
      .Case([&](arith::MaxSIOp) { return std::max(x[0], x[1]); })
      .Case([&](arith::MinSIOp) { return std::min(x[0], x[1]); })
      .Case([&](arith::ShLIOp) { return x[0] << x[1]; })
      .Case([&](arith::ShRSIOp) { return x[0] >> x[1]; })
      .Case([&](arith::DivSIOp) -> std::optional<int64_t> {
        if (!divides)
          return std::nullopt;
        return x[0] / x[1];
      })
      .Case([&](arith::RemSIOp) -> std::optional<int64_t> {
        if (!divides)
          return std::nullopt;
        return x[0] % x[1];
      })
      .Case([&](arith::FloorDivSIOp) -> std::optional<int64_t> {
        if (!divides)
          return std::nullopt;
        return floorDiv(x[0], x[1]);
      })
      .Case([&](arith::CeilDivSIOp) -> std::optional<int64_t> {
        if (!divides)
          return std::nullopt;
        return ceilDiv(x[0], x[1]);
      })
      .Case([&](arith::SelectOp) { return x[0] ? x[1] : x[2]; })
      .Case<arith::ExtSIOp, arith::ExtUIOp, arith::TruncIOp,
            arith::IndexCastOp>([&](Operation *) { return x[0]; })
      .Default([](Operation *) { return std::nullopt; });
}

/// Computes the result of a side-effect-free op the model understands.
void ProtocolChecker::evalPure(int a, Operation *op) {
  Agent &agent = agents[a];
  auto set = [&](AbsVal v) { agent.env[op->getResult(0)] = v; };
  if (auto c = dyn_cast<arith::ConstantOp>(op)) {
    if (auto i = dyn_cast<IntegerAttr>(c.getValue()))
      set(AbsVal::integer(
          i.getType().isInteger(1)
              ? static_cast<int64_t>(i.getValue().getZExtValue())
              : i.getValue().getSExtValue()));
    return;
  }
  if (auto id = dyn_cast<IdOp>(op)) {
    switch (id.getKind()) {
    case IdKind::cta_in_cluster:
      set(AbsVal::integer(agent.cta));
      break;
    case IdKind::warpgroup:
      if (agent.warpgroup >= 0 && !evaluatingTopLevel)
        set(AbsVal::integer(agent.warpgroup));
      break;
    case IdKind::warp_in_warpgroup:
      if (agent.warp >= 0 && !evaluatingTopLevel)
        set(AbsVal::integer(agent.warp));
      break;
    default:
      break;
    }
    return;
  }
  if (auto init = dyn_cast<PipelineInitOp>(op)) {
    AbsVal v;
    v.kind = AbsVal::Pipe;
    v.depth = cast<PipelineType>(init.getType()).getDepth();
    v.phase = init.getPhase();
    v.init = op;
    set(v);
    return;
  }
  if (auto advance = dyn_cast<PipelineAdvanceOp>(op)) {
    AbsVal v = eval(a, advance.getState());
    if (v.kind == AbsVal::Pipe && ++v.stage == v.depth) {
      v.stage = 0;
      v.phase ^= 1;
    }
    set(v);
    return;
  }
  if (isa<PipelineStageOp, PipelinePhaseOp>(op)) {
    AbsVal v = eval(a, op->getOperand(0));
    if (v.kind == AbsVal::Pipe)
      set(AbsVal::integer(isa<PipelineStageOp>(op) ? v.stage : v.phase));
    return;
  }
  if (!arithOps.contains(op))
    return;
  // A select with a known condition needs only the chosen side.
  if (auto sel = dyn_cast<arith::SelectOp>(op)) {
    AbsVal cond = eval(a, sel.getCondition());
    AbsVal pick;
    if (cond.isInt())
      pick = eval(a, cond.value ? sel.getTrueValue() : sel.getFalseValue());
    if (pick.kind != AbsVal::Unknown)
      set(pick);
    else
      agent.env.erase(op->getResult(0));
    return;
  }
  SmallVector<int64_t, 3> x;
  for (Value operand : op->getOperands()) {
    AbsVal v = eval(a, operand);
    if (!v.isInt()) {
      agent.env.erase(op->getResult(0));
      return;
    }
    x.push_back(v.value);
  }
  if (std::optional<int64_t> r = foldArith(op, x)) {
    Type type = op->getResult(0).getType();
    if (type.isInteger(1))
      *r &= 1;
    else if (type.isInteger(32))
      *r = static_cast<int32_t>(*r);
    set(AbsVal::integer(*r));
  } else {
    agent.env.erase(op->getResult(0));
  }
}

/// The barrier array and CTA that `barrier` names for agent `a`.
std::optional<std::pair<int, int>>
ProtocolChecker::resolveBarrier(int a, Value barrier) {
  int cta = agents[a].cta;
  Operation *def = barrier.getDefiningOp();
  if (auto view = dyn_cast_or_null<BarrierRemoteViewOp>(def)) {
    cta = view.getCta();
    def = view.getBarrier().getDefiningOp();
  }
  auto alloc = dyn_cast_or_null<BarrierAllocOp>(def);
  if (!alloc)
    return std::nullopt;
  return std::make_pair(arrayOf.lookup(alloc), cta);
}

/// The barrier element `barrier[index]` in `targetCta`, or nothing after a
/// finding or when the index is not known.
std::optional<int64_t> ProtocolChecker::element(int a, Operation *op,
                                                Value barrier, Value index,
                                                int targetCta) {
  auto resolved = resolveBarrier(a, barrier);
  AbsVal idx = eval(a, index);
  if (!resolved || !idx.isInt()) {
    unsupported(op, resolved ? "its barrier index is not known at compile time"
                             : "it does not name a declared barrier");
    return std::nullopt;
  }
  const BarrierArray &array = arrays[resolved->first];
  if (idx.value < 0 || idx.value >= array.depth) {
    error(op) << "barrier index " << idx.value << " is out of range for '"
              << array.name << "', which has " << array.depth << " barriers";
    return std::nullopt;
  }
  if (targetCta < 0 || targetCta >= clusterSize) {
    error(op) << "CTA " << targetCta << " of '" << array.name
              << "' is outside the cluster of " << clusterSize << " CTAs";
    return std::nullopt;
  }
  return elementId(resolved->first, targetCta, idx.value);
}

std::string ProtocolChecker::elementName(int64_t elem) const {
  int64_t index = elem % maxDepth;
  int64_t rest = elem / maxDepth;
  int cta = rest % clusterSize;
  const BarrierArray &array = arrays[rest / clusterSize];
  std::string s = "'" + array.name + "[" + std::to_string(index) + "]'";
  if (clusterSize > 1)
    s += " of CTA " + std::to_string(cta);
  return s;
}

/// "which has completed N phases and has a of A arrivals (and b of B
/// expected bytes) in its current one".
std::string ProtocolChecker::describeState(int64_t elem) const {
  const BarrierState &b = barriers[elem];
  const BarrierArray &array = arrays[elem / maxDepth / clusterSize];
  std::string s = "which has completed " + std::to_string(b.completed) +
                  " phase" + (b.completed == 1 ? "" : "s") + " and has " +
                  std::to_string(b.arrivals) + " of " +
                  std::to_string(array.arrivals) + " arrival" +
                  (array.arrivals == 1 ? "" : "s");
  if (b.expected || b.delivered)
    s += " and " + std::to_string(b.delivered) + " of " +
         std::to_string(b.expected) + " expected bytes";
  return s + " in its current one";
}

//===----------------------------------------------------------------------===//
// Execution
//===----------------------------------------------------------------------===//

void ProtocolChecker::reset(ArrayRef<int64_t> trips) {
  currentTrips.assign(trips.begin(), trips.end());
  barriers.assign(arrays.size() * clusterSize * maxDepth, BarrierState());
  for (BarrierState &b : barriers) {
    b.clock.assign(agents.size(), 0);
    b.arrivedBy.assign(agents.size(), 0);
  }
  ctaEnv.assign(clusterSize, DenseMap<Value, AbsVal>());
  accesses.clear();
  readsOf.clear();
  for (int a = 0, e = agents.size(); a < e; ++a) {
    Agent &agent = agents[a];
    agent.env.clear();
    agent.observed.clear();
    agent.clock.assign(agents.size(), 0);
    agent.passedWaits = 0;
    agent.done = false;
    agent.uncommittedWgmmaReads.clear();
    agent.wgmmaGroups.clear();
    agent.tcgen05Reads.clear();
    agent.tmemReads.clear();
    agent.blockedElement = -1;
    agent.stack.clear();
    Block &body =
        agent.role ? agent.role.getBody().front() : kernel.getBody().front();
    agent.stack.push_back(
        {&body, body.begin(),
         agent.role ? agent.role.getOperation() : kernel.getOperation(),
         agent.threads});
  }
  // A run-time loop from a constant start by a constant step ends where its
  // trip count says: bind an upper bound that the kernel's top level
  // computes (`k_tiles`) to that value, for every expression over it.
  for (auto [loop, sym] : symbolOf) {
    auto forOp = cast<scf::ForOp>(loop);
    IntegerAttr lb, st;
    if (!isa<KernelOp>(forOp.getUpperBound().getParentBlock()->getParentOp()) ||
        !matchPattern(forOp.getLowerBound(), m_Constant(&lb)) ||
        !matchPattern(forOp.getStep(), m_Constant(&st)))
      continue;
    for (auto &env : ctaEnv)
      env[forOp.getUpperBound()] =
          AbsVal::integer(lb.getInt() + trips[sym] * st.getInt());
  }
  // The top level of a kernel with roles: its values, once per CTA.
  if (agents.empty() || !agents.front().role)
    return;
  evaluatingTopLevel = true;
  for (int cta = 0; cta < clusterSize; ++cta) {
    int a = llvm::find_if(agents, [&](Agent &x) { return x.cta == cta; }) -
            agents.begin();
    for (Operation &op : kernel.getBody().front()) {
      if (isa<RoleOp>(op))
        continue;
      if (relevant.contains(&op) && !isa<PipelineInitOp>(op)) {
        unsupported(&op, "barrier traffic outside the roles of a kernel with "
                         "roles is not modelled");
        continue;
      }
      if (evaluated.contains(&op) && !ctaEnv[cta].count(op.getResult(0))) {
        // A top-level value is the same for every agent of the CTA.
        evalPure(a, &op);
        auto it = agents[a].env.find(op.getResult(0));
        if (it != agents[a].env.end()) {
          ctaEnv[cta][op.getResult(0)] = it->second;
          agents[a].env.erase(it);
        }
      }
    }
  }
  evaluatingTopLevel = false;
}

/// The end of the innermost frame's block: loop back, or leave the region.
bool ProtocolChecker::finishBlock(int a) {
  Agent &agent = agents[a];
  Frame &frame = agent.stack.back();
  Operation *term = frame.block->empty() ? nullptr : &frame.block->back();
  SmallVector<AbsVal> yielded;
  if (term && isa<scf::YieldOp>(term))
    for (Value v : term->getOperands())
      yielded.push_back(eval(a, v));
  Operation *owner = frame.owner;
  if (auto loop = dyn_cast<scf::ForOp>(owner)) {
    if (++frame.iteration < frame.trips) {
      for (auto [arg, v] : llvm::zip(loop.getRegionIterArgs(), yielded))
        agent.env[arg] = v;
      AbsVal lb = eval(a, loop.getLowerBound()), st = eval(a, loop.getStep());
      if (lb.isInt() && st.isInt())
        agent.env[loop.getInductionVar()] =
            AbsVal::integer(lb.value + frame.iteration * st.value);
      frame.it = frame.block->begin();
      return true;
    }
  }
  agent.stack.pop_back();
  if (agent.stack.empty()) {
    agent.done = true;
    return false;
  }
  for (auto [res, v] : llvm::zip(owner->getResults(), yielded))
    agent.env[res] = v;
  ++agent.stack.back().it;
  return true;
}

ProtocolChecker::Exec ProtocolChecker::exec(int a, Operation *op) {
  Agent &agent = agents[a];
  int64_t threads = agent.stack.back().threads;
  auto enter = [&](Region &region, int64_t threads, int64_t trips = 0) {
    Block &block = region.front();
    agent.stack.push_back({&block, block.begin(), op, threads, 0, trips});
    return Exec::Entered;
  };

  if (!trackAccesses(a, op))
    return Exec::Stop;
  if (!relevant.contains(op)) {
    if (evaluated.contains(op))
      evalPure(a, op);
    return Exec::Next;
  }
  if (isa<PipelineInitOp, PipelineAdvanceOp>(op)) {
    evalPure(a, op);
    return Exec::Next;
  }
  if (auto single = dyn_cast<SingleThreadOp>(op)) {
    int64_t inner = 1;
    if (single.getScope() == ThreadScope::warp)
      inner = (threads + 31) / 32;
    else if (single.getScope() == ThreadScope::warpgroup)
      inner = (threads + 127) / 128;
    return enter(single.getBody(), inner);
  }
  if (auto loop = dyn_cast<scf::ForOp>(op)) {
    AbsVal lb = eval(a, loop.getLowerBound()),
           ub = eval(a, loop.getUpperBound()), st = eval(a, loop.getStep());
    int64_t trips;
    auto sym = symbolOf.find(loop);
    if (lb.isInt() && ub.isInt() && st.isInt() && st.value > 0) {
      trips = ub.value > lb.value
                  ? (ub.value - lb.value + st.value - 1) / st.value
                  : 0;
    } else if (sym != symbolOf.end()) {
      trips = currentTrips[sym->second];
      // From a known start by a known step: the bound is where it ends.
      if (lb.isInt() && st.isInt() && st.value > 0) {
        agent.env[loop.getUpperBound()] =
            AbsVal::integer(lb.value + trips * st.value);
      }
    } else {
      unsupported(op, "its trip count is not known and not shared with "
                      "another loop");
      return Exec::Stop;
    }
    for (auto [arg, init] :
         llvm::zip(loop.getRegionIterArgs(), loop.getInitArgs()))
      agent.env[arg] = eval(a, init);
    if (lb.isInt())
      agent.env[loop.getInductionVar()] = lb;
    else
      agent.env.erase(loop.getInductionVar());
    if (trips == 0) {
      for (auto [res, init] : llvm::zip(loop.getResults(), loop.getInitArgs()))
        agent.env[res] = eval(a, init);
      return Exec::Next;
    }
    return enter(loop.getRegion(), threads, trips);
  }
  if (auto branch = dyn_cast<scf::IfOp>(op)) {
    AbsVal cond = eval(a, branch.getCondition());
    if (!cond.isInt()) {
      unsupported(op, "the branch decides barrier traffic on a value known "
                      "only at run time");
      return Exec::Stop;
    }
    Region &region =
        cond.value ? branch.getThenRegion() : branch.getElseRegion();
    if (region.empty())
      return Exec::Next;
    return enter(region, threads);
  }
  if (auto wait = dyn_cast<BarrierWaitOp>(op)) {
    std::optional<int64_t> elem =
        element(a, op, wait.getBarrier(), wait.getIndex(), agent.cta);
    AbsVal phase = eval(a, wait.getPhase());
    if (!elem)
      return Exec::Stop;
    if (!phase.isInt()) {
      unsupported(op, "its phase is not known at compile time");
      return Exec::Stop;
    }
    BarrierState &b = barriers[*elem];
    int64_t seen = agent.observed.lookup(*elem);
    int64_t parity = phase.value & 1;
    // The first completion count at or after `seen` whose phase is done
    // when the barrier's phase bit differs from `parity`.
    int64_t target = (seen & 1) != parity ? seen : seen + 1;
    if (b.completed < target) {
      agent.blockedAt = wait;
      agent.blockedElement = *elem;
      agent.blockedTarget = target;
      agent.blockedPhase = parity;
      agent.blockedIndex = eval(a, wait.getIndex()).value;
      return Exec::Blocked;
    }
    agent.blockedElement = -1;
    if (target > 0) {
      join(agent.clock, b.completions[target - 1]);
      joinObserved(agent.observed, b.completionObserved[target - 1]);
    }
    uint32_t time = ++agent.clock[a];
    agent.observed[*elem] = target;
    ++agent.passedWaits;
    if (b.completed > target) {
      // Completion `target` happened already: it did not wait for this.
      missedPhase(op, a, *elem, target, parity, &b.completers[target]);
      return Exec::Stop;
    }
    b.waits.push_back({op, a, time, target, parity});
    return Exec::Next;
  }
  if (auto arriveOp = dyn_cast<BarrierArriveOp>(op)) {
    int64_t count = threads;
    if (Value pred = arriveOp.getPred()) {
      AbsVal p = eval(a, pred);
      if (!p.isInt()) {
        unsupported(op, "its predicate is not known at compile time");
        return Exec::Stop;
      }
      if (!p.value)
        return Exec::Next;
    }
    auto resolved = resolveBarrier(a, arriveOp.getBarrier());
    int cta = resolved ? resolved->second : agent.cta;
    std::optional<int64_t> elem =
        element(a, op, arriveOp.getBarrier(), arriveOp.getIndex(), cta);
    if (!elem)
      return Exec::Stop;
    const BarrierArray &array = arrays[resolved->first];
    if (count > array.arrivals) {
      InFlightDiagnostic diag = error(op);
      diag << count << " threads of " << agent.name << " arrive on "
           << elementName(*elem) << ", which expects " << array.arrivals
           << " arrival" << (array.arrivals == 1 ? "" : "s") << " per phase";
      diag.attachNote(plainLoc(array.op->getLoc()))
          << "'" << array.name << "' is declared here with " << array.arrivals
          << " arrival" << (array.arrivals == 1 ? "" : "s")
          << "; arrive from a single_thread block, or declare arrivals "
          << count;
      return Exec::Stop;
    }
    int64_t bytes = arriveOp.getExpectTx().value_or(0) * count;
    ++agent.clock[a];
    return arrive(a, op, resolved->first, cta, *elem % maxDepth, count, bytes,
                  false)
               ? Exec::Next
               : Exec::Stop;
  }
  if (auto copy = dyn_cast<CopyAsyncOp>(op)) {
    auto resolved = resolveBarrier(a, copy.getBarrier());
    if (!resolved) {
      unsupported(op, "it does not name a declared barrier");
      return Exec::Stop;
    }
    auto [rows, cols] = copy.getMovedExtent();
    int64_t bytes = rows * cols * copy.getSmemType().getElementBytes();
    SmallVector<int> dests;
    if (std::optional<int64_t> mask = copy.getMulticast()) {
      for (int c = 0; c < clusterSize; ++c)
        if (*mask & (1 << c))
          dests.push_back(c);
    } else {
      dests.push_back(agent.cta);
    }
    if (copy.isLoad())
      if (std::optional<int64_t> stage =
              stageOf(a, copy.getDst(), copy.getDstIndices()))
        for (int dest : dests)
          if (!checkOverwrite(a, op, dest, copy.getDst(), *stage, *stage + 1))
            return Exec::Stop;
    ++agent.clock[a];
    for (int dest : dests) {
      // The 2-CTA form signals the leader CTA's barrier; a remote view
      // names its CTA; otherwise each receiving CTA's own barrier.
      int cta = copy.getCtaGroup() == 2         ? (dest & ~1)
                : resolved->second != agent.cta ? resolved->second
                                                : dest;
      std::optional<int64_t> elem =
          element(a, op, copy.getBarrier(), copy.getBarrierIndex(), cta);
      if (!elem || !arrive(a, op, resolved->first, cta, *elem % maxDepth, 0,
                           bytes * threads, true))
        return Exec::Stop;
    }
    return Exec::Next;
  }
  if (auto commit = dyn_cast<GemmCommitOp>(op)) {
    auto resolved = resolveBarrier(a, commit.getBarrier());
    if (!resolved) {
      unsupported(op, "it does not name a declared barrier");
      return Exec::Stop;
    }
    SmallVector<int> dests;
    if (std::optional<int64_t> mask = commit.getCtaMask()) {
      for (int c = 0; c < clusterSize; ++c)
        if (*mask & (1 << c))
          dests.push_back(c);
    } else {
      dests.push_back(resolved->second);
    }
    ++agent.clock[a];
    // tcgen05.commit arrives once the MMAs before it, and their reads, are
    // done.
    markDone(a, agent.tcgen05Reads, op);
    for (int cta : dests) {
      std::optional<int64_t> elem =
          element(a, op, commit.getBarrier(), commit.getIndex(), cta);
      if (!elem ||
          !arrive(a, op, resolved->first, cta, *elem % maxDepth, 1, 0, false))
        return Exec::Stop;
    }
    return Exec::Next;
  }
  if (op->getNumRegions()) {
    unsupported(op, "'" + op->getName().getStringRef().str() +
                        "' around barrier traffic is not modelled");
    return Exec::Stop;
  }
  return Exec::Next;
}

/// Adds `count` arrivals and `bytes` (expected, or delivered by a copy) to
/// `array[index]` of `cta`, completing phases as they fill.
bool ProtocolChecker::arrive(int a, Operation *op, int array, int cta,
                             int64_t index, int64_t count, int64_t bytes,
                             bool delivered) {
  int64_t elem = elementId(array, cta, index);
  BarrierState &b = barriers[elem];
  int64_t needed = arrays[array].arrivals;
  join(b.clock, agents[a].clock);
  joinObserved(b.observed, agents[a].observed);
  if (delivered) {
    b.delivered += bytes;
    b.contributions.push_back({op, a, 0, bytes, true});
    return tryComplete(elem);
  }
  b.arrivedBy[a] += count;
  // Arrivals past a full phase start the next one once it completes.
  int64_t perThread = count ? bytes / count : 0;
  while (count > 0) {
    if (b.arrivals == needed) {
      InFlightDiagnostic diag = error(op);
      diag << agents[a].name << " arrives on " << elementName(elem)
           << " after its phase had all " << needed << " arrival"
           << (needed == 1 ? "" : "s") << " while it still waits for "
           << b.expected - b.delivered << " bytes";
      noteTrips(diag);
      return false;
    }
    int64_t take = std::min(count, needed - b.arrivals);
    b.arrivals += take;
    b.expected += take * perThread;
    b.contributions.push_back({op, a, take, take * perThread, false});
    count -= take;
    if (!tryComplete(elem))
      return false;
  }
  return true;
}

/// Completes the phase of `elem` when its arrivals and bytes are all in.
bool ProtocolChecker::tryComplete(int64_t elem) {
  BarrierState &b = barriers[elem];
  const BarrierArray &array = arrays[elem / maxDepth / clusterSize];
  if (b.arrivals < array.arrivals)
    return true;
  if (b.delivered > b.expected) {
    // Every arrival of the phase is in, so are its expect_tx bytes.
    Operation *at = nullptr;
    for (const Contribution &c : b.contributions)
      if (!c.delivered && c.bytes)
        at = c.op;
    if (!at)
      at = b.contributions.back().op;
    InFlightDiagnostic diag = error(at);
    if (b.expected)
      diag << "expect_tx of " << b.expected << " bytes on " << elementName(elem)
           << " is less than the " << b.delivered << " bytes its copies bring";
    else
      diag << "copies bring " << b.delivered << " bytes to "
           << elementName(elem) << ", but no arrive expects them";
    for (const Contribution &c : b.contributions)
      if (c.delivered)
        diag.attachNote(c.op->getLoc())
            << "this copy brings " << c.bytes << " bytes ("
            << agents[c.agent].name << ")";
    noteTrips(diag);
    return false;
  }
  if (b.delivered < b.expected)
    return true;
  // The phase completes. Waits that synchronised with the completion before
  // it must have happened before it.
  for (const PassedWait &w : b.waits) {
    if (w.target != b.completed || b.clock[w.agent] >= w.time)
      continue;
    const Contribution *completer = nullptr;
    for (const Contribution &c : b.contributions)
      if (c.agent != w.agent && !completer)
        completer = &c;
    missedPhase(w.op, w.agent, elem, w.target, w.phase, completer);
    return false;
  }
  llvm::erase_if(b.waits,
                 [&](const PassedWait &w) { return w.target <= b.completed; });
  b.completions.push_back(b.clock);
  b.completionObserved.push_back(std::move(b.observed));
  b.observed.clear();
  b.completers.push_back(b.contributions.back());
  ++b.completed;
  b.arrivals = b.expected = b.delivered = 0;
  b.contributions.clear();
  b.clock.assign(agents.size(), 0);
  return true;
}

/// Reports that completion `target` of `elem` need not wait for `waiter` to
/// pass `wait`, the wait that expects it to be the next one.
void ProtocolChecker::missedPhase(Operation *wait, int waiter, int64_t elem,
                                  int64_t target, int64_t parity,
                                  const Contribution *completer) {
  found = true;
  const Agent &agent = agents[waiter];
  InFlightDiagnostic diag = wait->emitError();
  if (target == 0)
    diag << "the wait of " << agent.name << " on " << elementName(elem)
         << " for phase " << parity
         << " passes at once on the fresh barrier, before any arrival";
  else
    diag << agent.name << " can miss phase " << parity << " of "
         << elementName(elem)
         << ": the barrier may complete it again before the wait";
  if (completer && completer->agent != waiter)
    diag.attachNote(completer->op->getLoc())
        << agents[completer->agent].name
        << (completer->delivered ? " copies" : " arrives")
        << " here without waiting for " << agent.name << " to pass that wait";
  if (target == 0 && parity == 1)
    diag.attachNote(wait->getLoc())
        << "a wait for phase 1 on a fresh barrier returns at once; a "
           "pipeline that waits for filled slots starts at phase 0";
  noteTrips(diag);
}

/// Runs agent `a` until it blocks or finishes; returns whether it moved.
bool ProtocolChecker::stepAgent(int a) {
  Agent &agent = agents[a];
  bool moved = false;
  while (!agent.done && !found && !skip) {
    Frame &frame = agent.stack.back();
    if (frame.it == frame.block->end() ||
        frame.it->hasTrait<OpTrait::IsTerminator>()) {
      finishBlock(a);
      moved = true;
      continue;
    }
    Operation *op = &*frame.it;
    Exec e = exec(a, op);
    if (e == Exec::Blocked || e == Exec::Stop)
      return moved;
    moved = true;
    if (e == Exec::Next)
      ++agents[a].stack.back().it;
  }
  return moved;
}

void ProtocolChecker::noteTrips(InFlightDiagnostic &diag) {
  for (auto [sym, trips] : llvm::zip(symbols, currentTrips))
    diag.attachNote(sym.first.getLoc())
        << "in this trace the loop here runs " << trips << " time"
        << (trips == 1 ? "" : "s");
  for (auto [key, slot] : condSlots) {
    auto [atom, tag] = key;
    bool value = (currentConds >> slot) & 1;
    std::string whose;
    if (tag >= 0)
      whose =
          " for " + agents[tag].name +
          (condAtoms[atom].perCta || clusterSize == 1 ? "" : " and its peers");
    else if (tag <= -2)
      whose = " in CTA " + std::to_string(-2 - tag);
    diag.attachNote(condAtoms[atom].first.getLoc())
        << "in this trace the condition here is " << (value ? "true" : "false")
        << whose;
  }
}

/// Notes on the agents that arrive on `elem`'s array and what they do now;
/// returns whether they all belong to the role of agent `waiter`.
bool ProtocolChecker::noteArrivers(InFlightDiagnostic &diag, int64_t elem,
                                   int waiter) {
  bool onlyItsRole = true, any = false;
  int array = elem / maxDepth / clusterSize;
  Operation *alloc = arrays[array].op;
  for (int a = 0, e = agents.size(); a < e; ++a) {
    Agent &agent = agents[a];
    Operation *body =
        agent.role ? agent.role.getOperation() : kernel.getOperation();
    Operation *arrivesAt = nullptr;
    body->walk([&](Operation *op) {
      Value barrier;
      if (auto x = dyn_cast<BarrierArriveOp>(op))
        barrier = x.getBarrier();
      else if (auto x = dyn_cast<CopyAsyncOp>(op))
        barrier = x.getBarrier();
      else if (auto x = dyn_cast<GemmCommitOp>(op))
        barrier = x.getBarrier();
      if (!barrier || arrivesAt)
        return;
      Operation *def = barrier.getDefiningOp();
      if (auto view = dyn_cast_or_null<BarrierRemoteViewOp>(def))
        def = view.getBarrier().getDefiningOp();
      if (def == alloc)
        arrivesAt = op;
    });
    if (!arrivesAt)
      continue;
    any = true;
    if (agent.role != agents[waiter].role)
      onlyItsRole = false;
    if (a == waiter)
      continue;
    int64_t times = barriers[elem].arrivedBy[a];
    std::string arrived = "has arrived on " + elementName(elem) + " " +
                          std::to_string(times) + " time" +
                          (times == 1 ? "" : "s");
    if (agent.done) {
      arriverFinished = true;
      diag.attachNote(arrivesAt->getLoc())
          << agent.name << ", which arrives here on '" << arrays[array].name
          << "', " << arrived << " and has finished";
    } else if (agent.blockedElement >= 0) {
      diag.attachNote(agent.blockedAt.getLoc())
          << agent.name << ", which arrives on '" << arrays[array].name << "'"
          << lineOf(arrivesAt) << ", " << arrived
          << " and waits here for phase " << agent.blockedPhase << " of "
          << elementName(agent.blockedElement) << ", "
          << describeState(agent.blockedElement);
    }
  }
  return any && onlyItsRole;
}

void ProtocolChecker::reportDeadlock() {
  // The blocked agent that got least far names the finding.
  int primary = -1;
  for (int a = 0, e = agents.size(); a < e; ++a)
    if (!agents[a].done &&
        (primary < 0 || agents[a].passedWaits < agents[primary].passedWaits))
      primary = a;
  Agent &agent = agents[primary];
  int64_t elem = agent.blockedElement;
  BarrierState &b = barriers[elem];
  const BarrierArray &array = arrays[elem / maxDepth / clusterSize];
  // A phase with all its arrivals that waits for bytes: expect_tx too big.
  if (b.arrivals == array.arrivals && b.expected > b.delivered) {
    Operation *at = nullptr;
    for (const Contribution &c : b.contributions)
      if (!c.delivered && c.bytes)
        at = c.op;
    InFlightDiagnostic diag = error(at ? at : agent.blockedAt.getOperation());
    diag << "expect_tx of " << b.expected << " bytes on " << elementName(elem)
         << " is more than the " << b.delivered << " bytes its copies bring";
    for (const Contribution &c : b.contributions)
      if (c.delivered)
        diag.attachNote(c.op->getLoc())
            << "this copy brings " << c.bytes << " bytes ("
            << agents[c.agent].name << ")";
    diag.attachNote(agent.blockedAt.getLoc())
        << agent.name << " waits here forever for the missing "
        << b.expected - b.delivered << " bytes";
    noteTrips(diag);
    return;
  }
  InFlightDiagnostic diag = error(agent.blockedAt);
  diag << agent.name << " waits forever for phase " << agent.blockedPhase
       << " of " << elementName(elem) << ", " << describeState(elem);
  // Who could still arrive, and what holds them.
  bool onlyItsRole = noteArrivers(diag, elem, primary);
  if (onlyItsRole) {
    diag.attachNote(agent.blockedAt.getLoc())
        << "only " << agent.name.substr(0, agent.name.find(" ("))
        << " arrives on '" << array.name
        << "': it waits for its own arrivals; is this the barrier it means "
           "to wait on?";
  } else if (!agent.observed.count(elem) && agent.blockedPhase == 0 &&
             !arriverFinished) {
    // The first wait for phase 0 blocks until a first completion.
    diag.attachNote(agent.blockedAt.getLoc())
        << "a wait for phase 0 blocks until the barrier completes its first "
           "phase; a pipeline that waits for free slots starts at phase 1 "
           "(a fresh barrier passes a wait for phase 1 at once)";
  }
  noteTrips(diag);
}

/// After every agent finished: phases left half-filled.
bool ProtocolChecker::checkTermination() {
  for (int64_t elem = 0, e = barriers.size(); elem < e; ++elem) {
    BarrierState &b = barriers[elem];
    const BarrierArray &array = arrays[elem / maxDepth / clusterSize];
    if (b.arrivals == 0 && b.delivered == 0)
      continue;
    if (b.arrivals == array.arrivals && b.expected > b.delivered) {
      Operation *at = nullptr;
      for (const Contribution &c : b.contributions)
        if (!c.delivered && c.bytes)
          at = c.op;
      InFlightDiagnostic diag = error(at);
      diag << "expect_tx of " << b.expected << " bytes on " << elementName(elem)
           << " is more than the " << b.delivered << " bytes its copies bring";
      for (const Contribution &c : b.contributions)
        if (c.delivered)
          diag.attachNote(c.op->getLoc())
              << "this copy brings " << c.bytes << " bytes ("
              << agents[c.agent].name << ")";
      noteTrips(diag);
      return false;
    }
    Operation *at = b.contributions.front().op;
    InFlightDiagnostic diag = error(at);
    if (b.arrivals == 0) {
      diag << "copies bring " << b.delivered << " bytes to "
           << elementName(elem) << ", but no arrive expects them";
    } else {
      diag << "a phase of " << elementName(elem) << " gets " << b.arrivals
           << " of its " << array.arrivals << " arrivals and never completes";
      for (const Contribution &c : b.contributions)
        if (!c.delivered)
          diag.attachNote(c.op->getLoc())
              << agents[c.agent].name << " arrives " << c.arrivals << " time"
              << (c.arrivals == 1 ? "" : "s") << " here";
      diag.attachNote(plainLoc(array.op->getLoc()))
          << "'" << array.name << "' is declared here with " << array.arrivals
          << " arrivals per phase";
    }
    noteTrips(diag);
    return false;
  }
  return true;
}

bool ProtocolChecker::simulate(ArrayRef<int64_t> trips) {
  reset(trips);
  bool moved = true;
  while (moved && !found && !skip) {
    moved = false;
    for (int a = 0, e = agents.size(); a < e && !found && !skip; ++a)
      moved |= stepAgent(a);
  }
  if (found || skip)
    return false;
  if (llvm::any_of(agents, [](Agent &x) { return !x.done; })) {
    reportDeadlock();
    return false;
  }
  return checkTermination();
}

LogicalResult ProtocolChecker::run() {
  collectBarriers();
  if (arrays.empty())
    return success();
  markRelevant();
  collectLoopSymbols();
  buildAgents();
  collectCondAtoms();
  // Each trace explores every value of the conditions' bits; few enough
  // that a kernel's check stays a few times its usual cost.
  constexpr int kMaxCondSlots = 4;
  if (condSlots.size() > kMaxCondSlots) {
    emitWarning(condAtoms.front().first.getLoc())
        << "the protocol check skips kernel '" << kernel.getSymName()
        << "': " << condSlots.size()
        << " branch conditions known only at run time decide barrier "
           "traffic, over the "
        << kMaxCondSlots << " it explores";
    return success();
  }
  uint64_t condValues = uint64_t(1) << condSlots.size();
  // Trip counts: every count up to two laps of each ring and one more for
  // innermost run-time loops, 0..3 for the loops around them; the smallest
  // traces first, so that a finding comes with the shortest trace.
  int64_t lcm = 1;
  kernel.walk([&](PipelineInitOp init) {
    lcm = std::lcm(lcm, cast<PipelineType>(init.getType()).getDepth());
  });
  lcm = std::min<int64_t>(lcm, 16);
  SmallVector<int64_t> bounds;
  for (const LoopSymbol &sym : symbols)
    bounds.push_back(sym.innermost ? 2 * lcm + 1 : 3);
  SmallVector<SmallVector<int64_t>> traces(1);
  for (int64_t bound : bounds) {
    SmallVector<SmallVector<int64_t>> next;
    for (const auto &t : traces)
      for (int64_t n = 0; n <= bound; ++n) {
        next.push_back(t);
        next.back().push_back(n);
      }
    traces = std::move(next);
  }
  llvm::stable_sort(traces, [](const auto &x, const auto &y) {
    return std::accumulate(x.begin(), x.end(), int64_t(0)) <
           std::accumulate(y.begin(), y.end(), int64_t(0));
  });
  // The conditions multiply the traces: beyond a budget the kernel is
  // skipped (a warning), not checked in part. 4096 takes in the M-grouped
  // FP8 kernel with a multicast pair (CLUSTER_M = 2: a wave's condition per
  // CTA, 2560 runs, ~0.5 s on the development VM).
  constexpr uint64_t kMaxRuns = 4096;
  if (condValues > 1 && traces.size() * condValues > kMaxRuns) {
    emitWarning(condAtoms.front().first.getLoc())
        << "the protocol check skips kernel '" << kernel.getSymName()
        << "': its " << condSlots.size() << " run-time branch conditions and "
        << traces.size() << " loop traces make " << traces.size() * condValues
        << " runs, over the " << kMaxRuns << " it explores";
    return success();
  }
  for (const auto &trips : traces) {
    for (currentConds = 0; currentConds < condValues; ++currentConds) {
      simulate(trips);
      if (found)
        return failure();
      if (skip) {
        emitWarning(skip->loc) << "the protocol check skips kernel '"
                               << kernel.getSymName() << "': " << skip->reason;
        return success();
      }
    }
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Asynchronous reads
//===----------------------------------------------------------------------===//

/// The stage of `buffer` that its leading `indices` select (0 for a buffer
/// of one tile), or nothing when an index is not known.
std::optional<int64_t> ProtocolChecker::stageOf(int a, Value buffer,
                                                OperandRange indices) {
  auto type = dyn_cast<SmemType>(buffer.getType());
  if (!type)
    return std::nullopt;
  int64_t leading = static_cast<int64_t>(type.getRank()) - 2;
  if (leading <= 0)
    return 0;
  if (static_cast<int64_t>(indices.size()) < leading)
    return std::nullopt;
  int64_t stage = 0;
  for (int64_t i = 0; i < leading; ++i) {
    AbsVal v = eval(a, indices[i]);
    if (!v.isInt())
      return std::nullopt;
    stage = stage * type.getShape()[i] + v.value;
  }
  return stage;
}

void ProtocolChecker::recordRead(int a, Operation *op, int cta, Value buffer,
                                 int64_t lo, int64_t hi, Access::Reader reader,
                                 SmallVector<int> &inFlight) {
  if (cta < 0 || cta >= clusterSize)
    return;
  int id = accesses.size();
  accesses.push_back({op, nullptr, a, UINT32_MAX, lo, hi, reader});
  readsOf[readKey(cta, buffer, lo)].push_back(id);
  inFlight.push_back(id);
}

/// The reads in `reads` are done at `at`, at agent `a`'s current time.
void ProtocolChecker::markDone(int a, SmallVector<int> &reads, Operation *at) {
  for (int id : reads) {
    accesses[id].done = agents[a].clock[a];
    accesses[id].doneAt = at;
  }
  reads.clear();
}

/// Agent `a` writes [lo, hi) of `buffer` in `cta` at `op` (a TMA copy into
/// a stage, an MMA into tensor memory): every read of it so far must be
/// done before, in the happens-before order of the barriers.
bool ProtocolChecker::checkOverwrite(int a, Operation *op, int cta,
                                     Value buffer, int64_t lo, int64_t hi) {
  auto it = readsOf.find(readKey(cta, buffer, lo));
  if (it == readsOf.end())
    return true;
  const Agent &writer = agents[a];
  for (int id : it->second) {
    const Access &read = accesses[id];
    if (read.hi <= lo || hi <= read.lo || writer.clock[read.agent] >= read.done)
      continue;
    bool tensorMemory = isa<TmemType>(buffer.getType());
    std::string name = "'" + nameOf(buffer.getLoc(), "buffer") + "'";
    std::string where = clusterSize > 1 ? " of CTA " + std::to_string(cta) : "";
    const std::string &reader = agents[read.agent].name;
    const char *writerKind = tensorMemory ? "MMA" : "copy";
    InFlightDiagnostic diag = error(op);
    if (tensorMemory)
      diag << "the MMA of " << writer.name << " overwrites columns [" << lo
           << ", " << hi << ") of tensor memory " << name << where << " while "
           << reader << " may still read them";
    else if (read.reader == Access::SharedLoad)
      diag << "the TMA copy of " << writer.name << " overwrites stage " << lo
           << " of " << name << where << " while " << reader
           << " may still load from it";
    else
      diag << "the TMA copy of " << writer.name << " overwrites stage " << lo
           << " of " << name << where << " while " << reader
           << " may still read it in "
           << (read.reader == Access::Wgmma ? "a wgmma" : "an MMA");
    if (read.reader == Access::SharedLoad) {
      diag.attachNote(read.op->getLoc())
          << reader
          << " loads from the stage here, after the arrival that released "
             "it to the copy: load before the release";
      noteTrips(diag);
      return false;
    }
    auto &readNote = diag.attachNote(read.op->getLoc());
    readNote << reader << " reads ";
    if (tensorMemory)
      readNote << "columns [" << read.lo << ", " << read.hi << ") here";
    else
      readNote << "the stage here";
    if (read.doneAt) {
      diag.attachNote(read.doneAt->getLoc())
          << "the read is done only here, and the " << writerKind
          << " does not wait for that";
    } else {
      const char *done[] = {"a gemm_wait for it", "its gemm_commit",
                            "a tmem_wait for it"};
      readNote << ", and nothing the " << writerKind
               << " waits for comes after " << done[read.reader];
    }
    noteTrips(diag);
    return false;
  }
  return true;
}

/// The effects of `op` on the reads in flight: MMAs and tensor-memory loads
/// start reads, commits and waits finish them, copies and MMAs into tensor
/// memory check what they overwrite. Returns false after a finding.
bool ProtocolChecker::trackAccesses(int a, Operation *op) {
  Agent &agent = agents[a];
  if (auto gemm = dyn_cast<GemmAsyncOp>(op)) {
    bool tcgen05 = isa<TmemType>(gemm.getAcc().getType());
    int64_t group = gemm.getCtaGroup();
    // The 2-CTA MMA reads the operands of both CTAs of the pair and writes
    // both CTAs' tensor memory.
    SmallVector<int, 2> ctas;
    if (group == 2)
      ctas = {agent.cta & ~1, agent.cta | 1};
    else
      ctas = {agent.cta};
    if (tcgen05) {
      auto bType = cast<SmemType>(gemm.getB().getType());
      ArrayRef<int64_t> shape = bType.getShape();
      int64_t n = (gemm.getBMajor() == MmaMajor::mn ? shape.back()
                                                    : shape[shape.size() - 2]) *
                  group;
      AbsVal column = gemm.getAccColumn() ? eval(a, gemm.getAccColumn())
                                          : AbsVal::integer(0);
      if (column.isInt())
        for (int cta : ctas)
          if (!checkOverwrite(a, op, cta, gemm.getAcc(), column.value,
                              column.value + n))
            return false;
    }
    SmallVector<int> &inFlight =
        tcgen05 ? agent.tcgen05Reads : agent.uncommittedWgmmaReads;
    for (auto [buffer, indices] :
         {std::make_pair(gemm.getA(), gemm.getAIndices()),
          std::make_pair(gemm.getB(), gemm.getBIndices())})
      if (std::optional<int64_t> stage = stageOf(a, buffer, indices))
        for (int cta : ctas)
          recordRead(a, op, cta, buffer, *stage, *stage + 1,
                     tcgen05 ? Access::Tcgen05Mma : Access::Wgmma, inFlight);
    return true;
  }
  if (auto commit = dyn_cast<GemmCommitOp>(op)) {
    // wgmma.commit_group; tcgen05.commit (with a barrier) is modelled with
    // its arrival.
    if (!commit.getBarrier())
      agent.commitWgmmaGroup();
    return true;
  }
  if (auto wait = dyn_cast<GemmWaitOp>(op)) {
    ++agent.clock[a];
    while (agent.wgmmaGroups.size() > wait.getPending()) {
      markDone(a, agent.wgmmaGroups.front(), op);
      agent.wgmmaGroups.pop_front();
    }
    return true;
  }
  if (auto load = dyn_cast<TmemLoadOp>(op)) {
    AbsVal column = eval(a, load.getColumn());
    if (column.isInt()) {
      int64_t n = cast<FragType>(load.getType()).getShape().back();
      recordRead(a, op, agent.cta, load.getTmem(), column.value,
                 column.value + n, Access::TmemLoad, agent.tmemReads);
    }
    return true;
  }
  if (isa<TmemWaitOp>(op)) {
    ++agent.clock[a];
    markDone(a, agent.tmemReads, op);
    return true;
  }
  // A load from a stage of shared memory (a fragment or a scalar) reads it
  // when it runs: done one tick after the agent's present, so that an
  // arrival before it (which ticks the clock and sends it) does not cover
  // it, while one after it does. A copy that refills the stage after
  // waiting only for an earlier release is a finding.
  Value source;
  OperandRange indices = op->getOperands();
  if (auto load = dyn_cast<FragLoadOp>(op)) {
    source = load.getSource();
    indices = load.getIndices();
  } else if (auto load = dyn_cast<LoadOp>(op)) {
    source = load.getSource();
    indices = load.getIndices();
  }
  if (source && isa<SmemType>(source.getType())) {
    if (std::optional<int64_t> stage = stageOf(a, source, indices)) {
      SmallVector<int> reads;
      recordRead(a, op, agent.cta, source, *stage, *stage + 1,
                 Access::SharedLoad, reads);
      for (int id : reads) {
        accesses[id].done = agent.clock[a] + 1;
        accesses[id].doneAt = op;
      }
    }
    return true;
  }
  // A region the model steps over (no barrier traffic inside): its reads
  // go unrecorded, and a commit or wait inside counts as done, so that the
  // check misses findings there rather than making them up.
  if (op->getNumRegions() && !relevant.contains(op)) {
    auto [it, inserted] = regionEffects.try_emplace(op, 0);
    if (inserted)
      op->walk([&](Operation *inner) {
        it->second |= (isa<GemmCommitOp>(inner) ? 1 : 0) |
                      (isa<GemmWaitOp>(inner) ? 2 : 0) |
                      (isa<TmemWaitOp>(inner) ? 4 : 0);
      });
    bool commits = it->second & 1, waitsGemm = it->second & 2,
         waitsTmem = it->second & 4;
    if (commits || waitsGemm || waitsTmem)
      ++agent.clock[a];
    if (commits)
      markDone(a, agent.tcgen05Reads, op);
    if (commits)
      agent.commitWgmmaGroup();
    if (waitsGemm) {
      for (SmallVector<int> &group : agent.wgmmaGroups)
        markDone(a, group, op);
      agent.wgmmaGroups.clear();
    }
    if (waitsTmem)
      markDone(a, agent.tmemReads, op);
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Proxy fences
//===----------------------------------------------------------------------===//

/// Whether `op` writes `buffer` through the generic proxy (st.shared).
bool writesGeneric(Operation *op, Value buffer) {
  if (auto store = dyn_cast<FragStoreOp>(op))
    return store.getDst() == buffer;
  if (auto store = dyn_cast<StoreOp>(op))
    return store.getDest() == buffer;
  return false;
}

bool isProxyFence(Operation *op) {
  auto fence = dyn_cast<FenceOp>(op);
  return fence && fence.getKind() == FenceKind::proxy_async;
}

/// Looks backwards from `from` (exclusive) in its block for the last write
/// of `buffer` or proxy fence; a region op counts by its last such op.
/// Returns the write, or null when a fence (or nothing) comes first.
Operation *lastUnfencedWrite(Block::iterator from, Block *block, Value buffer,
                             bool &fenced) {
  for (auto it = Block::reverse_iterator(from); it != block->rend(); ++it) {
    Operation &op = *it;
    if (isProxyFence(&op)) {
      fenced = true;
      return nullptr;
    }
    if (writesGeneric(&op, buffer))
      return &op;
    for (Region &region : op.getRegions())
      for (Block &inner : region) {
        Operation *w = lastUnfencedWrite(inner.end(), &inner, buffer, fenced);
        if (w || fenced)
          return w;
      }
  }
  return nullptr;
}

LogicalResult checkProxyFences(KernelOp kernel) {
  bool failed = false;
  kernel.walk([&](CopyAsyncOp copy) {
    if (copy.isLoad())
      return;
    Value buffer = copy.getSrc();
    bool fenced = false;
    Operation *write = nullptr;
    // Up through the enclosing blocks of the role; a loop's previous
    // iteration is its body after the copy.
    Operation *at = copy;
    while (true) {
      Block *block = at->getBlock();
      write = lastUnfencedWrite(Block::iterator(at), block, buffer, fenced);
      if (write || fenced)
        break;
      Operation *parent = block->getParentOp();
      if (isa<scf::ForOp>(parent)) {
        write = lastUnfencedWrite(block->end(), block, buffer, fenced);
        if (write || fenced)
          break;
      }
      if (isa<RoleOp, KernelOp>(parent))
        break;
      at = parent;
    }
    if (!write)
      return;
    failed = true;
    InFlightDiagnostic diag = copy.emitError();
    diag << "the TMA store reads '"
         << nameOf(buffer.getLoc(), "the shared buffer")
         << "' after threads wrote it with no fence(proxy_async) in between";
    diag.attachNote(write->getLoc())
        << "written here by st.shared: a fence(proxy_async) after the write, "
           "before the sync, makes it visible to TMA";
  });
  return failure(failed);
}

struct CheckProtocolPass
    : public tile::impl::TileCheckProtocolBase<CheckProtocolPass> {
  void runOnOperation() override {
    KernelOp kernel = getOperation();
    bool failed = ::mlir::failed(checkProxyFences(kernel));
    if (!failed)
      failed = ::mlir::failed(ProtocolChecker(kernel).run());
    if (failed)
      signalPassFailure();
  }
};

} // namespace

//===- TileOps.cpp - verifiers, folders and syntax of the tile ops -------===//

#include "dialects/Tile/TileDialect.h"
#include "dialects/Tile/VerifyHelpers.h"

#include "lib/Support/MmaTypes.h"
#include "lib/Support/Swizzle.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/FunctionImplementation.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::tile;

// tile.sched.coords: its block indices print no types, one i32 per extent.
static ParseResult parseOneI32PerExtent(
    OpAsmParser &parser,
    const SmallVectorImpl<OpAsmParser::UnresolvedOperand> &dims,
    SmallVectorImpl<Type> &types) {
  types.assign(dims.size(), parser.getBuilder().getI32Type());
  return success();
}

static void printOneI32PerExtent(OpAsmPrinter &, Operation *, OperandRange,
                                 TypeRange) {}

#define GET_OP_CLASSES
#include "dialects/Tile/TileOps.cpp.inc"

KernelOp mlir::tile::getKernel(Operation *op) {
  return op->getParentOfType<KernelOp>();
}

std::optional<int64_t> mlir::tile::getConstantIndex(Value v) {
  APInt value;
  if (v && matchPattern(v, m_ConstantInt(&value)))
    return value.getSExtValue();
  return std::nullopt;
}

LogicalResult mlir::tile::verifyCtaGroup(Operation *op, int64_t ctaGroup) {
  if (ctaGroup != 1 && ctaGroup != 2)
    return op->emitOpError("cta_group must be 1 or 2, got ") << ctaGroup;
  KernelOp kernel = getKernel(op);
  if (ctaGroup == 2 && kernel && kernel.getClusterSize() % 2 != 0)
    return op->emitOpError("cta_group 2 needs clusters of an even number of "
                           "CTAs, got ")
           << kernel.getClusterSize();
  return success();
}

LogicalResult mlir::tile::verifyTileIndices(Operation *op, StringRef name,
                                            SmemType type, ValueRange indices,
                                            std::optional<int64_t> rowsUsed) {
  ArrayRef<int64_t> shape = type.getShape();
  if (rowsUsed && indices.empty())
    return success(); // the op's verifier reports the missing row index
  size_t tileIndices = rowsUsed ? indices.size() - 1 : indices.size();
  for (size_t d = 0; d < tileIndices && d < shape.size(); ++d) {
    std::optional<int64_t> index = getConstantIndex(indices[d]);
    if (index && (*index < 0 || *index >= shape[d]))
      return op->emitOpError(name)
             << " index " << *index << " is out of range for dimension " << d
             << " of size " << shape[d] << " of " << type;
  }
  if (!rowsUsed || indices.empty() || shape.size() < 2)
    return success();
  int64_t rows = shape[shape.size() - 2];
  std::optional<int64_t> row = getConstantIndex(indices.back());
  if (row && (*row < 0 || *row + *rowsUsed > rows))
    return op->emitOpError(name)
           << " rows " << *row << " to " << *row + *rowsUsed - 1
           << " are outside the tile of " << rows << " rows of " << type;
  return success();
}

/// A constant barrier index names one of the array's barriers.
static LogicalResult verifyBarrierIndex(Operation *op, Value barrier,
                                        Value index) {
  if (!barrier)
    return success();
  int64_t depth = cast<BarrierType>(barrier.getType()).getDepth();
  std::optional<int64_t> value = getConstantIndex(index);
  if (value && (*value < 0 || *value >= depth))
    return op->emitOpError("barrier index ")
           << *value << " is out of range for an array of " << depth
           << " barriers";
  return success();
}

//===----------------------------------------------------------------------===//
// KernelOp
//===----------------------------------------------------------------------===//

ParseResult KernelOp::parse(OpAsmParser &parser, OperationState &result) {
  auto buildFuncType =
      [](Builder &builder, ArrayRef<Type> argTypes, ArrayRef<Type> results,
         function_interface_impl::VariadicFlag,
         std::string &) { return builder.getFunctionType(argTypes, results); };
  return function_interface_impl::parseFunctionOp(
      parser, result, /*allowVariadic=*/false,
      getFunctionTypeAttrName(result.name), buildFuncType,
      getArgAttrsAttrName(result.name), getResAttrsAttrName(result.name));
}

void KernelOp::print(OpAsmPrinter &p) {
  function_interface_impl::printFunctionOp(
      p, *this, /*isVariadic=*/false, getFunctionTypeAttrName(),
      getArgAttrsAttrName(), getResAttrsAttrName());
}

LogicalResult KernelOp::verify() {
  if (getWarpgroups() < 1 || getWarpgroups() > 8)
    return emitOpError("warpgroups must be 1 to 8 (128 to 1024 threads), got ")
           << getWarpgroups();
  ArrayRef<int64_t> cluster = getCluster();
  if (cluster.size() != 3 ||
      llvm::any_of(cluster, [](int64_t c) { return c < 1; }))
    return emitOpError("cluster must be three positive sizes, got [")
           << llvm::make_range(cluster.begin(), cluster.end()) << "]";
  if (getClusterSize() > 16)
    return emitOpError("cluster of ")
           << getClusterSize() << " CTAs is over the limit of 16";
  if (!getFunctionType().getResults().empty())
    return emitOpError("a kernel returns no values");
  if (auto names = getArgNames(); names && names->size() != getNumArguments())
    return emitOpError("has ") << names->size() << " argument names for "
                               << getNumArguments() << " arguments";
  for (auto [i, type] : llvm::enumerate(getArgumentTypes()))
    if (!isa<GlobalType>(type) && !type.isSignlessInteger(32) &&
        !type.isSignlessInteger(64) && !type.isF32())
      return emitOpError("argument ")
             << i << " has type " << type
             << "; kernel arguments are !tile.global tensors, i32, i64 or f32";
  if (getGrid() == GridPolicy::fixed) {
    auto axes = getGridAxes();
    if (!axes || axes->size() != 3)
      return emitOpError("a fixed grid needs three grid_axes");
    for (auto axis : axes->getAsRange<GridAxisAttr>()) {
      if (axis.isConstant())
        continue;
      if (axis.getArg() >= (int64_t)getNumArguments())
        return emitOpError("grid axis refers to argument ")
               << axis.getArg() << " but the kernel has " << getNumArguments();
      auto global = dyn_cast<GlobalType>(getArgumentTypes()[axis.getArg()]);
      if (!global || axis.getDim() < 0 ||
          axis.getDim() >= (int64_t)global.getRank())
        return emitOpError("grid axis refers to dim ")
               << axis.getDim() << " of argument " << axis.getArg()
               << ", which is not a global tensor with that dimension";
      if (global.isList() && axis.getDim() != 0)
        return emitOpError("grid axis refers to dim ")
               << axis.getDim() << " of tensor list argument " << axis.getArg()
               << ", whose tensors' dims differ; only its length (dim 0) can "
                  "size a grid";
    }
  }
  return success();
}

static_assert(static_cast<uint32_t>(Target::sm_90a) ==
                      static_cast<uint32_t>(tilec::vocab::Target::SM90a) &&
                  static_cast<uint32_t>(Target::sm_100a) ==
                      static_cast<uint32_t>(tilec::vocab::Target::SM100a),
              "the dialect's targets follow the vocabulary's");

tilec::vocab::Target KernelOp::getVocabTarget() {
  return static_cast<tilec::vocab::Target>(getTarget());
}

std::string KernelOp::getArgName(unsigned i) {
  if (auto names = getArgNames())
    if (i < names->size())
      return cast<StringAttr>((*names)[i]).str();
  return "arg" + std::to_string(i);
}

KernelAbiAttr KernelOp::getAbi() {
  MLIRContext *ctx = getContext();
  SmallVector<Attribute> params;
  // The distinct tensor maps of the copies, in the order the copies appear.
  llvm::SmallDenseSet<Attribute> maps;
  walk([&](CopyAsyncOp copy) {
    if (TensorMapParamAttr map = copy.getTensormapAttr())
      if (maps.insert(map).second)
        params.push_back(map);
  });
  ArrayRef<Type> argTypes = getArgumentTypes();
  // Tensors read or written directly (loads into registers, guarded stores,
  // atomics, bulk copies): a pointer aligned to the widest access, in
  // argument order.
  SmallVector<int64_t> pointerAlign(argTypes.size(), 0);
  auto access = [&](Value tensor, int64_t bytes) {
    int64_t arg = getRootKernelArg(tensor);
    if (arg >= 0)
      pointerAlign[arg] = std::max(pointerAlign[arg], bytes);
  };
  walk([&](Operation *op) {
    auto elementBytes = [](Value v) {
      return getElementBytes(cast<GlobalType>(v.getType()).getElementType());
    };
    if (auto load = dyn_cast<LoadOp>(op);
        load && isa<GlobalType>(load.getSource().getType()))
      access(load.getSource(), elementBytes(load.getSource()));
    if (auto load = dyn_cast<FragLoadOp>(op);
        load && isa<GlobalType>(load.getSource().getType()))
      access(load.getSource(),
             load.getVectorWidth() * elementBytes(load.getSource()));
    if (auto store = dyn_cast<FragStoreGlobalOp>(op))
      access(store.getDst(),
             store.getVectorWidth() * elementBytes(store.getDst()));
    if (auto atomic = dyn_cast<AtomicOp>(op))
      access(atomic.getDest(), elementBytes(atomic.getDest()));
    if (auto store = dyn_cast<StoreOp>(op);
        store && isa<GlobalType>(store.getDest().getType()))
      access(store.getDest(), elementBytes(store.getDest()));
    if (auto sync = dyn_cast<GridSyncOp>(op))
      access(sync.getCounter(), elementBytes(sync.getCounter()));
    // cp.async.bulk moves multiples of 16 bytes between 16-byte addresses.
    if (auto copy = dyn_cast<CopyAsyncOp>(op);
        copy && copy.getDispatch() == CopyDispatch::bulk)
      access(copy.getGlobal(), 16);
  });
  for (auto [i, align] : llvm::enumerate(pointerAlign))
    if (align)
      params.push_back(PointerParamAttr::get(ctx, i, align));
  // A tensor list passes its length only (its tensors' dims may differ).
  for (auto [i, type] : llvm::enumerate(argTypes))
    if (auto global = dyn_cast<GlobalType>(type))
      for (unsigned d = 0; d < (global.isList() ? 1 : global.getRank()); ++d)
        if (global.isDynamicDim(d))
          params.push_back(DimParamAttr::get(ctx, i, d));
  // The innermost dimension is contiguous; the others have a stride.
  for (auto [i, type] : llvm::enumerate(argTypes))
    if (pointerAlign[i])
      for (unsigned d = 0; d + 1 < cast<GlobalType>(type).getRank(); ++d)
        params.push_back(StrideParamAttr::get(ctx, i, d));
  for (auto [i, type] : llvm::enumerate(argTypes))
    if (!isa<GlobalType>(type))
      params.push_back(ScalarParamAttr::get(ctx, i));
  SmallVector<Attribute> names, types;
  for (auto [i, type] : llvm::enumerate(argTypes)) {
    names.push_back(StringAttr::get(ctx, getArgName(i)));
    types.push_back(TypeAttr::get(type));
  }
  return KernelAbiAttr::get(
      ctx, ArrayAttr::get(ctx, params), ArrayAttr::get(ctx, names),
      ArrayAttr::get(ctx, types), getNumThreads(), getClusterAttr(),
      getSmemBytes().value_or(0), getGrid(), getGridAxesAttr(), getTarget());
}

/// Roles partition the warps: no warp runs two roles, and the roles that
/// share a warpgroup agree on its register budget (setmaxnreg sets one
/// budget for the whole warpgroup).
LogicalResult KernelOp::verifyRegions() {
  SmallVector<RoleOp> roles(getBody().getOps<RoleOp>());
  for (auto [i, role] : llvm::enumerate(roles)) {
    for (RoleOp other : ArrayRef<RoleOp>(roles).take_front(i)) {
      if (other.getRoleName() == role.getRoleName())
        return role.emitOpError("role '")
                   .append(role.getRoleName(), "' is already declared")
                   .attachNote(other.getLoc())
               << "the first declaration is here";
      for (int64_t wg : role.getWarpgroups()) {
        if (!llvm::is_contained(other.getWarpgroups(), wg))
          continue;
        if (role.getMaxRegs() && other.getMaxRegs() &&
            *role.getMaxRegs() != *other.getMaxRegs())
          return role.emitOpError("role '")
                     .append(role.getRoleName(), "' gives warpgroup ", wg, " ",
                             *role.getMaxRegs(),
                             " registers per thread, but role '",
                             other.getRoleName(), "' gives it ",
                             *other.getMaxRegs(),
                             "; setmaxnreg sets one budget for a whole "
                             "warpgroup")
                     .attachNote(other.getLoc())
                 << "'" << other.getRoleName() << "' sets its budget here";
        for (int64_t warp : role.getWarpList()) {
          if (!llvm::is_contained(other.getWarpList(), warp))
            continue;
          return role.emitOpError("role '")
                     .append(role.getRoleName(), "' runs on warp ", warp,
                             " of warpgroup ", wg, ", which role '",
                             other.getRoleName(), "' already runs on")
                     .attachNote(other.getLoc())
                 << "'" << other.getRoleName() << "' is declared here";
        }
      }
    }
  }
  // A tensor list's tensors are reached through their tensor maps only:
  // the kernel has no pointer to them and no sizes but the list's length.
  for (auto [i, type] : llvm::enumerate(getArgumentTypes())) {
    auto global = dyn_cast<GlobalType>(type);
    if (!global || !global.isList())
      continue;
    for (Operation *user : getBody().getArgument(i).getUsers()) {
      auto copy = dyn_cast<CopyAsyncOp>(user);
      if (isa<DimOp>(user) ||
          (copy && copy.getGlobal() == getBody().getArgument(i)))
        continue;
      return user->emitOpError("reads tensor list '")
             << getArgName(i)
             << "', which only copy_async (through its tensor maps) and "
                "tile.dim (its length) can use";
    }
  }
  return success();
}

//===----------------------------------------------------------------------===//
// RoleOp
//===----------------------------------------------------------------------===//

SmallVector<int64_t> RoleOp::getWarpList() {
  if (auto warps = getWarps())
    return SmallVector<int64_t>(warps->begin(), warps->end());
  return {0, 1, 2, 3};
}

LogicalResult RoleOp::verify() {
  KernelOp kernel = getKernel(*this);
  if (getWarpgroups().empty())
    return emitOpError("role '") << getRoleName() << "' names no warpgroup";
  if (getWarps() && getWarps()->empty())
    return emitOpError("role '") << getRoleName() << "' names no warp";
  llvm::SmallDenseSet<int64_t> seen;
  for (int64_t wg : getWarpgroups()) {
    if (wg < 0 || wg >= static_cast<int64_t>(kernel.getWarpgroups()))
      return emitOpError("warpgroup ")
             << wg << " is out of range: the kernel has "
             << kernel.getWarpgroups() << " warpgroups";
    if (!seen.insert(wg).second)
      return emitOpError("warpgroup ") << wg << " is listed twice";
  }
  seen.clear();
  for (int64_t warp : getWarpList()) {
    if (warp < 0 || warp > 3)
      return emitOpError("warp ")
             << warp << " is out of range: a warpgroup has warps 0 to 3";
    if (!seen.insert(warp).second)
      return emitOpError("warp ") << warp << " is listed twice";
  }
  if (auto regs = getMaxRegs()) {
    if (*regs < 24 || *regs > 256 || *regs % 8 != 0)
      return emitOpError("register budget must be a multiple of 8 in 24..256, "
                         "got ")
             << *regs;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// DimOp
//===----------------------------------------------------------------------===//

LogicalResult DimOp::verify() {
  auto type = cast<GlobalType>(getTensor().getType());
  int64_t index = static_cast<int64_t>(getIndex());
  if (index < 0 || index >= (int64_t)type.getRank())
    return emitOpError("dimension ")
           << getIndex() << " is out of range for a rank-" << type.getRank()
           << " tensor";
  if (type.isList() && index != 0)
    return emitOpError("dimension ")
           << index
           << " of a tensor list differs between its tensors; only dimension "
              "0 (its length) can be read";
  return success();
}

OpFoldResult DimOp::fold(FoldAdaptor) {
  auto type = cast<GlobalType>(getTensor().getType());
  int64_t index = static_cast<int64_t>(getIndex());
  if (index < 0 || index >= (int64_t)type.getRank() || type.isDynamicDim(index))
    return {};
  return IntegerAttr::get(IntegerType::get(getContext(), 32),
                          type.getShape()[getIndex()]);
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

LogicalResult TmemAllocOp::verify() {
  if (!getKernel(*this).isBlackwell())
    return emitOpError("tensor memory needs sm_100a, the kernel targets ")
           << getKernel(*this).getTargetName();
  return verifyCtaGroup(*this, getCtaGroup());
}

LogicalResult BarrierAllocOp::verify() {
  if (getArrivals() < 1 || getArrivals() > (1 << 20) - 1)
    return emitOpError("arrivals must be 1 to 1048575, got ") << getArrivals();
  if (cast<BarrierType>(getType()).getRemote())
    return emitOpError("allocates local barriers; take a remote view with "
                       "tile.barrier.remote_view");
  return success();
}

LogicalResult BarrierRemoteViewOp::verify() {
  auto in = cast<BarrierType>(getBarrier().getType());
  auto out = cast<BarrierType>(getType());
  if (in.getRemote())
    return emitOpError("source is already a remote view");
  if (!out.getRemote() || out.getKind() != in.getKind() ||
      out.getDepth() != in.getDepth())
    return emitOpError("result must be the remote form of ") << in;
  int64_t clusterSize = getKernel(*this).getClusterSize();
  int64_t cta = static_cast<int64_t>(getCta());
  if (cta < 0 || cta >= clusterSize)
    return emitOpError("cta ") << getCta() << " is not in the cluster of "
                               << clusterSize << " CTAs";
  return success();
}

LogicalResult BarrierArriveOp::verify() {
  auto type = cast<BarrierType>(getBarrier().getType());
  if (getExpectTx() && type.getKind() != BarrierKind::tma)
    return emitOpError("expect_tx needs a tma barrier, got ")
           << stringifyBarrierKind(type.getKind());
  // The attribute stores an i64: a negative count reads as a huge unsigned.
  if (auto bytes = getExpectTxAttr();
      bytes && (bytes.getInt() < 0 || bytes.getInt() >= (1 << 20)))
    return emitOpError("expect_tx must be 0 to 1048575 bytes, got ")
           << bytes.getInt();
  return verifyBarrierIndex(*this, getBarrier(), getIndex());
}

LogicalResult BarrierWaitOp::verify() {
  if (cast<BarrierType>(getBarrier().getType()).getRemote())
    return emitOpError(
        "cannot wait on a remote barrier; wait on the local one");
  return verifyBarrierIndex(*this, getBarrier(), getIndex());
}

LogicalResult BarrierTestOp::verify() {
  if (cast<BarrierType>(getBarrier().getType()).getRemote())
    return emitOpError("cannot test a remote barrier; test the local one");
  return verifyBarrierIndex(*this, getBarrier(), getIndex());
}

//===----------------------------------------------------------------------===//
// Pipeline
//===----------------------------------------------------------------------===//

LogicalResult PipelineInitOp::verify() {
  if (getPhase() != 0 && getPhase() != 1)
    return emitOpError("phase must be 0 or 1, got ") << getPhase();
  return success();
}

//===----------------------------------------------------------------------===//
// CopyAsyncOp
//===----------------------------------------------------------------------===//

LogicalResult CopyAsyncOp::verify() {
  bool dstSmem = isa<SmemType>(getDst().getType());
  bool srcSmem = isa<SmemType>(getSrc().getType());
  if (dstSmem == srcSmem)
    return emitOpError("copies between global and shared memory: one side "
                       "must be !tile.smem and the other !tile.global");
  SmemType smem = getSmemType();
  GlobalType global = getGlobalType();
  if (smem.getElementType() != global.getElementType())
    return emitOpError("element types differ: shared ")
           << smem.getElementType() << ", global " << global.getElementType();
  // A rank-1 tensor copies a 1-D tile: the buffer's innermost dimension.
  bool vector = global.getRank() == 1;
  if (vector && smem.getSwizzle() != Swizzle::none)
    return emitOpError("a rank-1 global tensor copies a 1-D tile, which is "
                       "unswizzled; got ")
           << smem;
  size_t tileRank = vector ? 1 : 2;
  if (smem.getRank() < tileRank)
    return emitOpError("shared buffer must have a 2-D tile, got shape ")
           << formatShape(smem.getShape());
  size_t tileIndices = smem.getRank() - tileRank;
  if (getSmemIndices().size() != tileIndices)
    return emitOpError("shared buffer of rank ")
           << smem.getRank() << " takes " << tileIndices
           << " leading indices to select a tile, got "
           << getSmemIndices().size();
  if (getGlobalIndices().size() != global.getRank())
    return emitOpError("global tensor of rank ")
           << global.getRank() << " takes " << global.getRank()
           << " coordinates, got " << getGlobalIndices().size();
  if (isLoad()) {
    if (!getBarrier())
      return emitOpError(
          "a global->shared copy needs a barrier to complete on");
    auto bar = cast<BarrierType>(getBarrier().getType());
    if (bar.getKind() != BarrierKind::tma)
      return emitOpError("a global->shared copy completes on a tma barrier, "
                         "got ")
             << stringifyBarrierKind(bar.getKind());
    if (getReduceAdd())
      return emitOpError("reduce_add applies to shared->global copies only");
  } else {
    if (getBarrier())
      return emitOpError("a shared->global copy takes no barrier; use "
                         "tile.bulk_commit and tile.bulk_wait");
    if (getMulticast())
      return emitOpError("multicast applies to global->shared copies only");
  }
  if (failed(verifyCtaGroup(*this, getCtaGroup())))
    return failure();
  int64_t clusterSize = getKernel(*this).getClusterSize();
  if (auto mask = getMulticast()) {
    int64_t bits = static_cast<int64_t>(*mask);
    if (bits <= 0 || bits >= (int64_t(1) << clusterSize))
      return emitOpError("multicast mask ")
             << *mask << " names CTAs outside the cluster of " << clusterSize;
  }
  if (failed(verifyTileIndices(*this, "shared tile", smem, getSmemIndices(),
                               std::nullopt)))
    return failure();
  if (failed(verifyCopyExtent()))
    return failure();
  return verifyBarrierIndex(*this, getBarrier(), getBarrierIndex());
}

std::pair<int64_t, int64_t> CopyAsyncOp::getMovedExtent() {
  ArrayRef<int64_t> shape = getSmemType().getShape();
  if (std::optional<ArrayRef<int64_t>> extent = getExtent())
    return {(*extent)[0], (*extent)[1]};
  if (getGlobalType().getRank() == 1)
    return {1, shape.back()};
  return {shape[shape.size() - 2], shape.back()};
}

LogicalResult CopyAsyncOp::verifyCopyExtent() {
  std::optional<ArrayRef<int64_t>> extent = getExtent();
  if (!extent)
    return success();
  if (getGlobalType().getRank() == 1)
    return emitOpError("extent applies to 2-D tiles; a rank-1 tensor copies "
                       "the whole 1-D tile");
  if (extent->size() != 2)
    return emitOpError("extent is [rows, cols], got ")
           << extent->size() << " values";
  ArrayRef<int64_t> shape = getSmemType().getShape();
  int64_t rows = shape[shape.size() - 2], cols = shape.back();
  if ((*extent)[0] < 1 || (*extent)[0] > rows || (*extent)[1] < 1 ||
      (*extent)[1] > cols)
    return emitOpError("extent ")
           << (*extent)[0] << "x" << (*extent)[1]
           << " must lie within the tile of " << rows << "x" << cols;
  if ((*extent)[1] < cols && rows != 1)
    return emitOpError("a copy of part of each row needs a one-row tile, "
                       "got a tile of ")
           << rows << "x" << cols;
  return success();
}

//===----------------------------------------------------------------------===//
// GemmCommitOp (GemmAsyncOp: MmaOps.cpp)
//===----------------------------------------------------------------------===//

LogicalResult GemmCommitOp::verify() {
  if (getBarrier() && !getIndex())
    return emitOpError("a barrier needs an index");
  if (failed(verifyCtaGroup(*this, getCtaGroup())) ||
      failed(verifyBarrierIndex(*this, getBarrier(), getIndex())))
    return failure();
  KernelOp kernel = getKernel(*this);
  if (kernel && kernel.isBlackwell() && !getBarrier())
    return emitOpError("on sm_100a a commit signals a barrier");
  if (kernel && !kernel.isBlackwell() && getBarrier())
    return emitOpError("on sm_90a a commit closes a wgmma group and signals no "
                       "barrier; arrive on the barrier after tile.gemm_wait");
  if (getCtaMask() && getCtaGroup() != 2)
    return emitOpError("cta_mask needs cta_group 2");
  return success();
}

//===----------------------------------------------------------------------===//
// Tensor memory and fragments
//===----------------------------------------------------------------------===//

/// Whether `op` closes a wgmma group (a commit without a barrier).
static bool isWgmmaCommit(Operation &op) {
  auto commit = dyn_cast<GemmCommitOp>(op);
  return commit && !commit.getBarrier();
}

static int64_t countWgmmaCommits(Block::iterator from, Block::iterator to) {
  return static_cast<int64_t>(
      llvm::count_if(llvm::make_range(from, to), isWgmmaCommit));
}

/// The wgmma groups that are certainly committed after the group of `gemm`
/// when `wait` runs (a lower bound, possibly negative), counting only the
/// commits in the blocks that hold them. The first commit after `gemm`
/// closes its own group; the rest come after it. `backEdge` is the loop
/// round which `gemm`'s value reaches `wait` from an earlier iteration, or
/// null where it flows forward: then the commits on the way are those after
/// `gemm` in its block, and those before `wait` in the blocks around it up
/// to the loop's body; else those before `wait` up to the block that holds
/// `gemm` (or an op around it) before them.
static int64_t groupsCommittedAfter(GemmAsyncOp gemm, GemmWaitOp wait,
                                    Operation *backEdge) {
  int64_t afterGemm = countWgmmaCommits(std::next(gemm->getIterator()),
                                        gemm->getBlock()->end());
  int64_t commits = 0;
  for (Operation *at = wait;;) {
    Block *block = at->getBlock();
    if (!backEdge) {
      Operation *holder = block->findAncestorOpInBlock(*gemm);
      if (holder && holder->isBeforeInBlock(at)) {
        commits += countWgmmaCommits(std::next(holder->getIterator()),
                                     at->getIterator());
        return holder == gemm.getOperation() || afterGemm == 0 ? commits - 1
                                                               : commits;
      }
    }
    commits += countWgmmaCommits(block->begin(), at->getIterator());
    Operation *parent = block->getParentOp();
    if (parent == backEdge)
      return afterGemm > 0 ? afterGemm - 1 + commits : commits - 1;
    // Past a role or kernel body nothing more is counted.
    if (!parent ||
        !isa<scf::IfOp, scf::ForOp, scf::WhileOp, scf::IndexSwitchOp>(parent))
      return afterGemm > 0 ? commits : commits - 1;
    at = parent;
  }
}

namespace {
/// An op whose result may still be in flight where a value is read, and the
/// loop round which it comes from an earlier iteration (null if none).
struct InFlight {
  Operation *producer;
  Operation *backEdge;
};
} // namespace

/// Collects the asynchronous ops (a wgmma tile.gemm_async, a
/// tile.tmem_load) whose result may still be in flight when `value` is
/// read: the value flows from them, through loops and branches, without a
/// wait that settles it in between: a tile.tmem_wait, a tile.gemm_wait of
/// pending 0, or one of pending n where n groups are committed after the
/// group of each gemm_async the waited value comes from (two accumulators
/// in turn: the next K block's wgmma is committed, then the previous one is
/// waited for with pending 1).
static void collectInFlight(Value value, Operation *backEdge,
                            llvm::DenseSet<std::pair<Value, Operation *>> &seen,
                            llvm::SmallPtrSetImpl<Operation *> &openWaits,
                            SmallVectorImpl<InFlight> &found) {
  if (!seen.insert({value, backEdge}).second)
    return;
  auto fromYields = [&](Operation *parent, unsigned index, Operation *edge) {
    for (Region &region : parent->getRegions())
      for (Block &block : region)
        if (auto yield = dyn_cast<scf::YieldOp>(block.getTerminator()))
          if (index < yield.getNumOperands())
            collectInFlight(yield.getOperand(index), edge, seen, openWaits,
                            found);
  };
  // Round a loop's back edge: the outermost loop crossed, whose earlier
  // iteration ran the producer if the loop holds it.
  auto roundLoop = [&](Operation *loop) {
    return backEdge && !loop->isProperAncestor(backEdge) ? backEdge : loop;
  };
  if (auto result = dyn_cast<OpResult>(value)) {
    Operation *def = result.getOwner();
    if (isa<GemmAsyncOp, TmemLoadOp>(def)) {
      // A loop crossed that does not hold the producer brings nothing
      // from an earlier iteration of it.
      Operation *edge =
          backEdge && backEdge->isProperAncestor(def) ? backEdge : nullptr;
      found.push_back({def, edge});
      return;
    }
    if (auto wait = dyn_cast<GemmWaitOp>(def)) {
      // A wait met again round a loop adds nothing new: the producers it
      // waits for are found on the way into the loop.
      if (wait.getPending() == 0 || !openWaits.insert(wait).second)
        return;
      llvm::DenseSet<std::pair<Value, Operation *>> waitSeen;
      SmallVector<InFlight> waited;
      collectInFlight(wait.getAcc(), nullptr, waitSeen, openWaits, waited);
      openWaits.erase(wait);
      for (InFlight entry : waited) {
        auto gemm = dyn_cast<GemmAsyncOp>(entry.producer);
        if (!gemm || groupsCommittedAfter(gemm, wait, entry.backEdge) <
                         static_cast<int64_t>(wait.getPending()))
          found.push_back({entry.producer, backEdge});
      }
      return;
    }
    if (isa<scf::ForOp, scf::IfOp, scf::IndexSwitchOp>(def))
      return fromYields(def, result.getResultNumber(), backEdge);
    if (auto loop = dyn_cast<scf::WhileOp>(def))
      return collectInFlight(
          loop.getConditionOp().getArgs()[result.getResultNumber()], backEdge,
          seen, openWaits, found);
    return;
  }
  auto arg = cast<BlockArgument>(value);
  if (auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp())) {
    if (arg.getArgNumber() == 0)
      return;
    unsigned index = arg.getArgNumber() - 1;
    collectInFlight(loop.getInitArgs()[index], backEdge, seen, openWaits,
                    found);
    return fromYields(loop, index, roundLoop(loop));
  }
  if (auto loop = dyn_cast<scf::WhileOp>(arg.getOwner()->getParentOp())) {
    unsigned index = arg.getArgNumber();
    if (arg.getOwner() == &loop.getBefore().front()) {
      collectInFlight(loop.getInits()[index], backEdge, seen, openWaits, found);
      return fromYields(loop, index, roundLoop(loop));
    }
    return collectInFlight(loop.getConditionOp().getArgs()[index], backEdge,
                           seen, openWaits, found);
  }
}

/// The first op that may still be writing `value` when it is read, or null
/// when it is settled.
static Operation *findInFlightProducer(Value value) {
  llvm::DenseSet<std::pair<Value, Operation *>> seen;
  llvm::SmallPtrSet<Operation *, 4> openWaits;
  SmallVector<InFlight> found;
  collectInFlight(value, nullptr, seen, openWaits, found);
  return found.empty() ? nullptr : found.front().producer;
}

LogicalResult mlir::tile::verifySettled(Operation *op, Value fragment) {
  if (!isa<FragType>(fragment.getType()))
    return success();
  Operation *producer = findInFlightProducer(fragment);
  if (!producer)
    return success();
  if (isa<TmemLoadOp>(producer))
    return op->emitOpError("reads a fragment that a tile.tmem_load may still "
                           "be filling; wait for it with tile.tmem_wait first")
               .attachNote(producer->getLoc())
           << "the tmem_load is here";
  return op->emitOpError("reads an accumulator that a tile.gemm_async may "
                         "still be writing; wait for it with tile.gemm_wait "
                         "first (pending 0, or pending n after n later "
                         "commits)")
             .attachNote(producer->getLoc())
         << "the gemm_async is here";
}

LogicalResult TmemLoadOp::verify() {
  auto tmem = cast<TmemType>(getTmem().getType());
  auto frag = cast<FragType>(getType());
  if (frag.getLayout() != FragLayout::row_per_thread)
    return emitOpError("tensor memory loads into a row_per_thread fragment, "
                       "got ")
           << stringifyFragLayout(frag.getLayout());
  if (frag.isBroadcast())
    return emitOpError("tensor memory loads into a full fragment, got ")
           << frag;
  if (frag.getElementType() != tmem.getElementType())
    return emitOpError("fragment element type ")
           << frag.getElementType() << " differs from tensor memory's "
           << tmem.getElementType();
  int64_t cols = frag.getShape()[1];
  if (cols > tmem.getShape()[1] || !llvm::isPowerOf2_64(cols) || cols > 128)
    return emitOpError("loads a power-of-two number of columns up to 128 that "
                       "fits tensor memory, got ")
           << cols;
  std::optional<int64_t> column = getConstantIndex(getColumn());
  if (column && (*column < 0 || *column + cols > tmem.getShape()[1]))
    return emitOpError("columns ") << *column << " to " << *column + cols - 1
                                   << " are outside the tensor memory's "
                                   << tmem.getShape()[1] << " columns";
  return success();
}

LogicalResult FragStoreOp::verify() {
  auto frag = cast<FragType>(getValue().getType());
  auto smem = cast<SmemType>(getDst().getType());
  if (frag.getElementType() != smem.getElementType())
    return emitOpError("fragment element type ")
           << frag.getElementType() << " differs from the buffer's "
           << smem.getElementType();
  if (smem.getRank() < 2)
    return emitOpError("destination must be a 2-D tile or a stack of them");
  if (getIndices().size() != smem.getRank() - 1)
    return emitOpError("destination of rank ")
           << smem.getRank() << " takes " << smem.getRank() - 1
           << " indices (the tile, then its first row), got "
           << getIndices().size();
  if (frag.getLayout() == FragLayout::quad_spread)
    return emitOpError("a quad_spread fragment is stored to global memory "
                       "(tile.frag.store_global), not to a shared tile");
  int64_t cols = smem.getShape().back();
  if (frag.getShape()[1] != cols)
    return emitOpError("fragment has ")
           << frag.getShape()[1] << " columns, the tile has " << cols;
  // The threads address the tile as lib/Support lays it out (as the
  // lowering's getTileLayout does): rows of 16-byte chunks.
  llvm::Expected<tilec::SmemTileLayout> layout = tilec::makeSmemTileLayout(
      smem.getShape()[smem.getRank() - 2], cols, smem.getElementBytes(),
      toVocabSwizzle(smem.getSwizzle()), tilec::NoSwizzleLayout::RowMajor);
  if (!layout)
    return emitOpError("destination: ") << llvm::toString(layout.takeError());
  if (failed(verifyTileIndices(*this, "destination", smem, getIndices(),
                               frag.getShape()[0])))
    return failure();
  return verifySettled(*this, getValue());
}

LogicalResult GemmWaitOp::verify() {
  // wgmma.wait_group takes a pending count of 0 to 7.
  if (getPending() > 7)
    return emitOpError("pending is 0 to 7 wgmma groups, got ")
           << static_cast<int64_t>(getPending());
  return success();
}

LogicalResult BulkWaitOp::verify() {
  // cp.async.bulk.wait_group takes a pending count of 0 to 63.
  if (getPending() > 63)
    return emitOpError("pending is 0 to 63 copy groups, got ")
           << static_cast<int64_t>(getPending());
  return success();
}

//===----------------------------------------------------------------------===//
// Scheduler
//===----------------------------------------------------------------------===//

/// The extents and block sizes of a scheduler op: (m, n) or (batch, m, n),
/// one positive size each.
static LogicalResult verifyExtents(Operation *op, size_t numDims,
                                   ArrayRef<int64_t> block) {
  if (numDims != 2 && numDims != 3)
    return op->emitOpError("takes two extents (m, n) or three (batch, m, n), "
                           "got ")
           << numDims;
  if (block.size() != numDims ||
      llvm::any_of(block, [](int64_t size) { return size < 1; }))
    return op->emitOpError(numDims == 2
                               ? "block must be two positive sizes [m, n]"
                               : "block must be three positive sizes "
                                 "[batch, m, n]");
  return success();
}

LogicalResult SchedNumTilesOp::verify() {
  return verifyExtents(*this, getDims().size(), getBlock());
}

LogicalResult SchedCoordsOp::verify() {
  if (getGroup() < 1)
    return emitOpError("group must be positive, got ") << getGroup();
  if (failed(verifyExtents(*this, getDims().size(), getBlock())))
    return failure();
  if (getNumResults() != getDims().size())
    return emitOpError("gives one block index per extent: ")
           << getDims().size() << " extents, " << getNumResults() << " results";
  return success();
}

void SchedCoordsOp::build(OpBuilder &builder, OperationState &state, Value tile,
                          ValueRange dims, ArrayRef<int64_t> block,
                          uint64_t group) {
  SmallVector<Type, 3> types(dims.size(), builder.getI32Type());
  build(builder, state, types, tile, dims, block, group);
}

void SchedCoordsOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  static const char *const kNames[] = {"b_block", "m_block", "n_block"};
  size_t skip = 3 - std::min<size_t>(getNumResults(), 3);
  for (auto [result, name] :
       llvm::zip(getResults(), ArrayRef(kNames).drop_front(skip)))
    setNameFn(result, name);
}

int64_t mlir::tile::getRootKernelArg(Value global) {
  while (auto view = global.getDefiningOp<PeerViewOp>())
    global = view.getTensor();
  auto arg = dyn_cast<BlockArgument>(global);
  if (!arg || !isa<GlobalType>(global.getType()) ||
      !isa_and_nonnull<KernelOp>(arg.getOwner()->getParentOp()))
    return -1;
  return arg.getArgNumber();
}

//===- MmaOps.cpp - the gemm_async verifier: shapes, majors, scale-d -----===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//
//
// A gemm_async reads A and B tiles in shared memory, K-major ([M, K],
// [N, K]) or, for 16-bit wgmma, MN-major ([K, M], [K, N]), and accumulates
// into a wgmma register fragment or tcgen05 tensor memory. The verifier
// checks the operands against each other and the accumulator, and says how
// to read a tile whose K does not fit (an operand stored the other way).
//
//===----------------------------------------------------------------------===//

#include "dialects/Tile/TileDialect.h"
#include "dialects/Tile/VerifyHelpers.h"

#include "lib/Support/MmaTypes.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::tile;

static bool isMmaInputType(Type t) {
  return t.isF16() || t.isBF16() || isa<Float8E4M3FNType, Float8E5M2Type>(t);
}

namespace {
/// One operand tile of a gemm_async as the MMA reads it: K-major tiles are
/// [M or N, K], MN-major tiles [K, M or N].
struct MmaOperand {
  StringRef name; ///< "A" or "B"
  SmemType type;
  MmaMajor major;
  int64_t rows, cols;
  int64_t k() const { return major == MmaMajor::k ? cols : rows; }
  /// "128x64, K-major" for messages.
  std::string describe() const {
    return (llvm::Twine(rows) + "x" + llvm::Twine(cols) +
            (major == MmaMajor::k ? ", K-major" : ", MN-major"))
        .str();
  }
};
} // namespace

static MmaOperand getMmaOperand(StringRef name, Value tile, MmaMajor major) {
  auto type = cast<SmemType>(tile.getType());
  ArrayRef<int64_t> shape = type.getShape();
  int64_t rows = shape.size() >= 2 ? shape[shape.size() - 2] : 0;
  return {name, type, major, rows, shape.empty() ? 0 : shape.back()};
}

/// A and B agree on K; when they do not, says which operand the user may
/// have stored the other way round and how to say so.
static LogicalResult verifyMmaK(GemmAsyncOp op, const MmaOperand &a,
                                const MmaOperand &b) {
  if (a.k() == b.k())
    return success();
  InFlightDiagnostic diag = op.emitOpError("A and B tiles disagree on K: ")
                            << a.k() << " (A is " << a.describe() << ") and "
                            << b.k() << " (B is " << b.describe() << ")";
  // Only wgmma reads MN-major tiles, and only of 16-bit types.
  Type elem = a.type.getElementType();
  if (!isa<FragType>(op.getAcc().getType()))
    return diag;
  const MmaOperand *flipped = nullptr;
  if (b.major == MmaMajor::k && b.rows == a.k())
    flipped = &b;
  else if (a.major == MmaMajor::k && a.rows == b.k())
    flipped = &a;
  if (!flipped)
    return diag;
  const MmaOperand &other = flipped == &b ? a : b;
  char mn = flipped == &b ? 'N' : 'M';
  diag << "; " << flipped->name << "'s " << flipped->rows << " rows match "
       << other.name << "'s K";
  if (!elem.isF16() && !elem.isBF16())
    return diag << ", but " << getElementTypeName(elem)
                << " wgmma takes K-major operands only: store " << flipped->name
                << " as [" << mn << ", K]";
  return diag << ": for " << flipped->name << " stored as [K, " << mn << "] ("
              << mn << " contiguous) set "
              << (flipped == &b ? "b_major" : "a_major") << " = mn";
}

/// The M (or N) elements `used` of a wgmma operand fit the tile selected by
/// `indices`; for an MN-major tile the last index is the first column and
/// starts a swizzle atom.
static LogicalResult verifyWgmmaOperand(GemmAsyncOp op, const MmaOperand &t,
                                        ValueRange indices, int64_t used,
                                        StringRef accDim) {
  if (t.major == MmaMajor::k) {
    if (used > t.rows)
      return op.emitOpError("accumulator has ")
             << used << " " << accDim << " but the " << t.name
             << " tile has only " << t.rows << " rows";
    return verifyTileIndices(op, t.name, t.type, indices, used);
  }
  if (used > t.cols)
    return op.emitOpError("accumulator has ")
           << used << " " << accDim << " but the MN-major " << t.name
           << " tile has only " << t.cols << " columns";
  if (failed(verifyTileIndices(op, t.name, t.type, indices.drop_back(),
                               std::nullopt)))
    return failure();
  std::optional<int64_t> col = getConstantIndex(indices.back());
  if (!col)
    return success();
  if (*col < 0 || *col + used > t.cols)
    return op.emitOpError(t.name)
           << " columns " << *col << " to " << *col + used - 1
           << " are outside the MN-major tile of " << t.cols << " columns of "
           << t.type;
  int64_t atom = getSwizzleBytes(t.type.getSwizzle()) /
                 getElementBytes(t.type.getElementType());
  if (*col % atom != 0)
    return op.emitOpError(t.name)
           << " starts at column " << *col
           << " of its MN-major tile, which does not start a swizzle atom of "
           << atom << " columns; its descriptor cannot address it";
  return success();
}

/// Whether the op adds to a tile.frag.undef (which only an overwriting
/// gemm_async may take).
static bool addsToUndefined(GemmAsyncOp op) {
  if (!op.getAcc().getDefiningOp<FragUndefOp>())
    return false;
  return !op.getAccumulate() || matchPattern(op.getAccumulate(), m_One());
}

LogicalResult GemmAsyncOp::verify() {
  MmaOperand a = getMmaOperand("A", getA(), getAMajor());
  MmaOperand b = getMmaOperand("B", getB(), getBMajor());
  if (a.type.getElementType() != b.type.getElementType())
    return emitOpError("A and B element types differ: ")
           << a.type.getElementType() << " and " << b.type.getElementType();
  Type elem = a.type.getElementType();
  if (!isMmaInputType(elem))
    return emitOpError("MMA inputs must be f16, bf16, f8E4M3FN or f8E5M2, got ")
           << elem;
  for (auto [t, indices] :
       {std::make_pair(&a, getAIndices()), std::make_pair(&b, getBIndices())}) {
    StringRef name = t->name;
    SmemType type = t->type;
    if (type.getRank() < 2)
      return emitOpError(name) << " must be a 2-D tile or a stack of them";
    if (indices.size() != type.getRank() - 1)
      return emitOpError(name)
             << " of rank " << type.getRank() << " takes " << type.getRank() - 1
             << " indices (the tile, then its first "
             << (t->major == MmaMajor::k ? "row" : "column") << "), got "
             << indices.size();
    if (type.getSwizzle() == Swizzle::none)
      return emitOpError(name) << " must be swizzled (32B, 64B or 128B) for "
                                  "the MMA's shared-memory descriptor";
  }
  if (failed(verifyMmaK(*this, a, b)))
    return failure();
  // K is a multiple of the MMA's K step (16, or 32 for fp8) when it is the
  // contiguous dimension: a swizzled row is a multiple of 32 bytes, which
  // SmemType's verifier guarantees. An MN-major tile has K rows.
  int64_t kStep = getElementBytes(elem) == 1 ? 32 : 16;
  if (a.k() % kStep != 0)
    return emitOpError("K of ")
           << a.k() << " (the rows of the MN-major "
           << (a.major == MmaMajor::mn ? "A" : "B")
           << " tile) is not a multiple of the MMA's K step of " << kStep;

  KernelOp kernel = getKernel(*this);
  if (auto frag = dyn_cast<FragType>(getAcc().getType())) {
    if (getDispatch() == GemmDispatch::tcgen05)
      return emitOpError("tcgen05 accumulates in tensor memory, not in a "
                         "register fragment");
    if (kernel && kernel.isBlackwell() && getDispatch() == GemmDispatch::auto_)
      return emitOpError("sm_100a has no wgmma: accumulate in tensor memory "
                         "with dispatch tcgen05");
    if (frag.getLayout() != FragLayout::wgmma_acc)
      return emitOpError("wgmma accumulates into a wgmma_acc fragment, got ")
             << stringifyFragLayout(frag.getLayout());
    if (frag.isBroadcast())
      return emitOpError("wgmma accumulates into a full fragment, got ")
             << frag;
    if (!frag.getElementType().isF32())
      return emitOpError("accumulator must be f32, got ")
             << frag.getElementType();
    if (!getResult() || getResult().getType() != frag)
      return emitOpError("wgmma returns the new accumulator of type ") << frag;
    if (getAccColumn())
      return emitOpError("a register accumulator takes no column");
    if (auto vocab = getVocabElementType(elem))
      if (llvm::Error err = tilec::checkWgmmaMajor(
              *vocab, toSupportMajor(a.major), toSupportMajor(b.major)))
        return emitOpError(llvm::toString(std::move(err)));
    if (failed(verifyWgmmaOperand(*this, b, getBIndices(), frag.getShape()[1],
                                  "columns")) ||
        failed(verifyWgmmaOperand(*this, a, getAIndices(), frag.getShape()[0],
                                  "rows")))
      return failure();
    if (getCtaGroup() != 1)
      return emitOpError("wgmma has no cta_group; got ") << getCtaGroup();
    if (addsToUndefined(*this))
      return emitOpError("the accumulator is a tile.frag.undef and this wgmma "
                         "adds to it: overwrite it (accumulate false or a "
                         "predicate) or start from tile.frag.zero");
  } else {
    auto tmem = cast<TmemType>(getAcc().getType());
    if (getDispatch() == GemmDispatch::wgmma)
      return emitOpError("wgmma accumulates in registers, not tensor memory");
    if (kernel && !kernel.isBlackwell())
      return emitOpError("accumulating in tensor memory (tcgen05) needs "
                         "sm_100a, the kernel targets ")
             << kernel.getTargetName();
    if (getResult())
      return emitOpError("a tensor-memory accumulator gives no result");
    if (!getAccColumn())
      return emitOpError("a tensor-memory accumulator needs a column");
    if (!tmem.getElementType().isF32())
      return emitOpError("accumulator must be f32, got ")
             << tmem.getElementType();
    if (a.major != MmaMajor::k || b.major != MmaMajor::k)
      return emitOpError("tcgen05 takes K-major A and B tiles (MN-major "
                         "operands are implemented for wgmma only)");
    int64_t cg = getCtaGroup();
    if (failed(verifyCtaGroup(*this, cg)))
      return failure();
    int64_t m = a.rows * cg;
    int64_t n = b.rows * cg;
    if (llvm::Error err = tilec::checkTcgen05Shape(m, n, cg))
      return emitOpError(llvm::toString(std::move(err)));
    if (failed(verifyTileIndices(*this, "A", a.type, getAIndices(), a.rows)) ||
        failed(verifyTileIndices(*this, "B", b.type, getBIndices(), b.rows)))
      return failure();
    int64_t columns = tmem.getShape()[1];
    if (n > columns)
      return emitOpError("N of ") << n << " does not fit the " << columns
                                  << " tensor-memory columns";
    std::optional<int64_t> column = getConstantIndex(getAccColumn());
    if (column && (*column < 0 || *column + n > columns))
      return emitOpError("accumulator columns ")
             << *column << " to " << *column + n - 1
             << " are outside the tensor memory's " << columns << " columns";
  }
  return success();
}

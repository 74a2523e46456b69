//===- FragOps.cpp - verifiers of the register-fragment math ops ---------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//
//
// Fragment math (unary, binary, fma, cmp, select), reductions and casts. The
// rules every elementwise op shares are in verifyElementwise: f32 math,
// fragments of one shape and layout (broadcast or full), and the result type
// getElementwiseResultType computes.
//
//===----------------------------------------------------------------------===//

#include "dialects/Tile/TileDialect.h"

using namespace mlir;
using namespace mlir::tile;

FragType mlir::tile::getElementwiseResultType(TypeRange operands,
                                              Type elementType) {
  FragType first;
  bool sameBroadcast = true;
  for (Type type : operands) {
    auto frag = dyn_cast<FragType>(type);
    if (!frag)
      continue;
    if (!first)
      first = frag;
    else if (frag.getBroadcast() != first.getBroadcast())
      sameBroadcast = false;
  }
  if (!first)
    return {};
  return FragType::get(
      first.getContext(), first.getShape(), elementType, first.getLayout(),
      sameBroadcast ? first.getBroadcast() : FragBroadcast::none);
}

/// `values` are operands of elementwise math (fragments or f32 scalars;
/// ODS checks the kinds): at least one fragment, every fragment of f32 (or
/// i1 for a select's condition, which `condition` names) and of one shape
/// and layout, settled; the result is `resultElement` of their combined
/// broadcast.
static LogicalResult verifyElementwise(Operation *op, ValueRange values,
                                       Type resultElement,
                                       Value condition = {}) {
  SmallVector<Value> operands;
  if (condition)
    operands.push_back(condition);
  llvm::append_range(operands, values);
  FragType first;
  for (Value operand : operands) {
    auto frag = dyn_cast<FragType>(operand.getType());
    if (!frag)
      continue;
    if (operand == condition) {
      if (!frag.getElementType().isInteger(1))
        return op->emitOpError("condition must be an i1 fragment, got ")
               << frag;
    } else if (!frag.getElementType().isF32()) {
      return op->emitOpError("math on fragments is done in f32, got ")
             << frag.getElementType() << " (do the math before the cast)";
    }
    if (!first) {
      first = frag;
    } else if (frag.getShape() != first.getShape() ||
               frag.getLayout() != first.getLayout()) {
      return op->emitOpError("fragments of different shapes or layouts: ")
             << first << " and " << frag;
    }
    if (failed(verifySettled(op, operand)))
      return failure();
  }
  if (!first)
    return op->emitOpError("needs a fragment operand; got only scalars");
  FragType expected =
      getElementwiseResultType(TypeRange(ValueRange(operands)), resultElement);
  Type result = op->getResult(0).getType();
  if (result != expected)
    return op->emitOpError("result must be ")
           << expected << " (the operands' shape, layout and broadcast), got "
           << result;
  return success();
}

LogicalResult FragUnaryOp::verify() {
  auto frag = cast<FragType>(getOperand().getType());
  if (!frag.getElementType().isF32())
    return emitOpError("math on fragments is done in f32, got ")
           << frag.getElementType() << " (do the math before the cast)";
  return verifySettled(*this, getOperand());
}

LogicalResult FragBinaryOp::verify() {
  return verifyElementwise(*this, {getLhs(), getRhs()},
                           Float32Type::get(getContext()));
}

LogicalResult FragFmaOp::verify() {
  return verifyElementwise(*this, {getA(), getB(), getC()},
                           Float32Type::get(getContext()));
}

LogicalResult FragCmpOp::verify() {
  return verifyElementwise(*this, {getLhs(), getRhs()},
                           IntegerType::get(getContext(), 1));
}

LogicalResult FragSelectOp::verify() {
  return verifyElementwise(*this, {getTrueValue(), getFalseValue()},
                           Float32Type::get(getContext()), getCondition());
}

LogicalResult FragReduceOp::verify() {
  auto source = cast<FragType>(getSource().getType());
  if (!source.getElementType().isF32())
    return emitOpError("math on fragments is done in f32, got ")
           << source.getElementType() << " (do the math before the cast)";
  if (source.isBroadcast())
    return emitOpError("reduces a full fragment, got ") << source;
  if (getAxis() != 0 && getAxis() != 1)
    return emitOpError("axis is 0 (along columns) or 1 (along rows), got ")
           << static_cast<int64_t>(getAxis());
  bool alongRows = getAxis() == 1;
  if (getGroups() != 1) {
    int64_t groups = getGroups();
    if (groups != 2 && groups != 4 && groups != 8)
      return emitOpError("groups is 1, 2, 4 or 8, got ") << groups;
    if (source.getLayout() != FragLayout::wgmma_acc || !alongRows)
      return emitOpError("a grouped reduction runs along the rows (axis 1) "
                         "of a wgmma_acc fragment, got ")
             << source << " along axis " << static_cast<int64_t>(getAxis());
    int64_t cols = source.getShape()[1];
    if (cols % (8 * groups) != 0)
      return emitOpError("the ")
             << cols << " columns do not split into " << groups
             << " groups of whole 8-column register groups";
    auto expected =
        FragType::get(getContext(), {groups, source.getShape()[0]},
                      source.getElementType(), FragLayout::quad_spread);
    if (getType() != expected)
      return emitOpError("result must be ")
             << expected << ", got " << getType();
    return verifySettled(*this, getSource());
  }
  FragType expected = source.withBroadcast(alongRows ? FragBroadcast::rows
                                                     : FragBroadcast::cols);
  tilec::LineSharing sharing = tilec::fragmentLineSharing(
      source.getSupportShape(), expected.getSupportBroadcast());
  if (sharing.AcrossWarps)
    return emitOpError("reducing a ")
           << stringifyFragLayout(source.getLayout()) << " fragment along axis "
           << static_cast<int64_t>(getAxis())
           << " combines elements that different warps hold, which needs "
              "shared memory; not supported";
  if (getType() != expected)
    return emitOpError("result must be ") << expected << ", got " << getType();
  return verifySettled(*this, getSource());
}

/// The checks of a column slice `part` of `whole` at `col`, shared by
/// tile.frag.slice (part is the result) and tile.frag.insert (part is the
/// inserted fragment). `role` names the part in the messages, `wholeName`
/// the whole (the slice's source, the insert's destination).
static LogicalResult verifyColumnSlice(Operation *op, FragType whole,
                                       FragType part, int64_t col,
                                       StringRef role, StringRef wholeName) {
  ArrayRef<int64_t> shape = whole.getShape();
  int64_t width = part.getShape()[1];
  if (part.getShape()[0] != shape[0] || part.getLayout() != whole.getLayout() ||
      part.getBroadcast() != whole.getBroadcast() ||
      part.getElementType() != whole.getElementType())
    return op->emitOpError() << role << " must keep the " << wholeName
                             << "'s rows, layout, broadcast and element type ("
                             << whole << "), got " << part;
  if (col < 0 || col + width > shape[1])
    return op->emitOpError("columns [")
           << col << ", " << col + width << ") are outside the " << wholeName
           << "'s " << shape[1] << " columns";
  if (tilec::fragmentColumnSlice(
          whole.getSupportShape(), whole.getSupportBroadcast(),
          static_cast<uint32_t>(col), static_cast<uint32_t>(width))
          .empty())
    return op->emitOpError("columns [")
           << col << ", " << col + width << ") of a "
           << stringifyFragLayout(whole.getLayout())
           << " fragment are not whole register groups of every thread "
              "(wgmma_acc slices start and end on a multiple of 8)";
  return success();
}

LogicalResult FragSliceOp::verify() {
  if (failed(verifyColumnSlice(*this, cast<FragType>(getSource().getType()),
                               cast<FragType>(getType()), getCol(), "result",
                               "source")))
    return failure();
  return verifySettled(*this, getSource());
}

LogicalResult FragInsertOp::verify() {
  if (failed(verifyColumnSlice(*this, cast<FragType>(getDest().getType()),
                               cast<FragType>(getSource().getType()), getCol(),
                               "inserted fragment", "destination")) ||
      failed(verifySettled(*this, getSource())))
    return failure();
  return verifySettled(*this, getDest());
}

/// The conversions tile.frag.cast lowers: among f32, f16 and bf16, and from
/// f32 to the fp8 types (what an epilogue writes).
static bool isSupportedCast(Type from, Type to) {
  auto isWide = [](Type t) { return t.isF32() || t.isF16() || t.isBF16(); };
  if (from == to || (isWide(from) && isWide(to)))
    return true;
  return from.isF32() && isa<Float8E4M3FNType, Float8E5M2Type>(to);
}

LogicalResult FragIndexOp::verify() {
  auto type = cast<FragType>(getType());
  if (type.getBroadcast() == FragBroadcast::none ||
      !type.getElementType().isF32())
    return emitOpError("gives a rows or cols fragment of f32 (each row's or "
                       "column's index), got ")
           << type;
  if (getAlign() < 1)
    return emitOpError("align must be positive, got ") << getAlign();
  return success();
}

LogicalResult FragCastOp::verify() {
  auto in = cast<FragType>(getSource().getType());
  auto out = cast<FragType>(getType());
  if (in.withElementType(out.getElementType()) != out)
    return emitOpError("changes only the element type; got ")
           << in << " -> " << out;
  if (!isSupportedCast(in.getElementType(), out.getElementType()))
    return emitOpError("converts between f32, f16 and bf16, or from f32 to "
                       "e4m3 or e5m2; got ")
           << in.getElementType() << " to " << out.getElementType();
  return verifySettled(*this, getSource());
}

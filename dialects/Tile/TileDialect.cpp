//===- TileDialect.cpp - the tile dialect, its types and attributes ------===//

#include "dialects/Tile/TileDialect.h"

#include "lib/Support/MmaTypes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tile;

//===----------------------------------------------------------------------===//
// Shape lists: `128x64x` (with `?` for dynamic dimensions)
//===----------------------------------------------------------------------===//

static ParseResult parseShapeAndType(AsmParser &parser,
                                     SmallVectorImpl<int64_t> &shape,
                                     Type &elementType) {
  if (parser.parseDimensionList(shape, /*allowDynamic=*/true,
                                /*withTrailingX=*/true))
    return failure();
  return parser.parseType(elementType);
}

static void printShapeAndType(AsmPrinter &printer, ArrayRef<int64_t> shape,
                              Type elementType) {
  for (int64_t dim : shape) {
    if (ShapedType::isDynamic(dim))
      printer << '?';
    else
      printer << dim;
    printer << 'x';
  }
  printer.printType(elementType);
}

std::string mlir::tile::formatShape(ArrayRef<int64_t> shape) {
  std::string result;
  llvm::raw_string_ostream os(result);
  llvm::interleave(
      shape, os,
      [&](int64_t d) {
        if (ShapedType::isDynamic(d))
          os << '?';
        else
          os << d;
      },
      "x");
  return result;
}

#include "dialects/Tile/TileDialect.cpp.inc"
#include "dialects/Tile/TileEnums.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "dialects/Tile/TileTypes.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/Tile/TileAttrs.cpp.inc"

void TileDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialects/Tile/TileOps.cpp.inc"
      >();
  addTypes<
#define GET_TYPEDEF_LIST
#include "dialects/Tile/TileTypes.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialects/Tile/TileAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

int64_t mlir::tile::getElementBytes(Type type) {
  if (type.isIntOrFloat())
    return std::max<int64_t>(1, type.getIntOrFloatBitWidth() / 8);
  return 0;
}

tilec::vocab::Swizzle mlir::tile::toVocabSwizzle(Swizzle swizzle) {
  return static_cast<tilec::vocab::Swizzle>(swizzle);
}

tilec::MmaMajor mlir::tile::toSupportMajor(MmaMajor major) {
  return major == MmaMajor::mn ? tilec::MmaMajor::MN : tilec::MmaMajor::K;
}

int64_t mlir::tile::getSwizzleBytes(Swizzle swizzle) {
  return tilec::vocab::swizzleBytes(toVocabSwizzle(swizzle));
}

static_assert(static_cast<unsigned>(Swizzle::swizzle_32b) ==
                      tilec::vocab::swizzleBytes(tilec::vocab::Swizzle::B32) &&
                  static_cast<unsigned>(Swizzle::swizzle_64b) ==
                      tilec::vocab::swizzleBytes(tilec::vocab::Swizzle::B64) &&
                  static_cast<unsigned>(Swizzle::swizzle_128b) ==
                      tilec::vocab::swizzleBytes(tilec::vocab::Swizzle::B128) &&
                  static_cast<unsigned>(Swizzle::none) == 0,
              "the dialect's swizzles follow the vocabulary's");

Type mlir::tile::getMlirElementType(MLIRContext *context,
                                    tilec::vocab::ElementType type) {
  using tilec::vocab::ElementType;
  switch (type) {
  case ElementType::F16:
    return Float16Type::get(context);
  case ElementType::BF16:
    return BFloat16Type::get(context);
  case ElementType::F32:
    return Float32Type::get(context);
  case ElementType::F64:
    return Float64Type::get(context);
  case ElementType::TF32:
    return FloatTF32Type::get(context);
  case ElementType::E4M3:
    return Float8E4M3FNType::get(context);
  case ElementType::E5M2:
    return Float8E5M2Type::get(context);
  case ElementType::E8M0:
    return Float8E8M0FNUType::get(context);
  default:
    break;
  }
  // Integers: signless for the signed types (MLIR's arith convention),
  // unsigned for the unsigned ones.
  unsigned bits = 8 * tilec::vocab::byteSize(type);
  return IntegerType::get(context, bits,
                          tilec::vocab::isUnsignedInteger(type)
                              ? IntegerType::Unsigned
                              : IntegerType::Signless);
}

std::optional<tilec::vocab::ElementType>
mlir::tile::getVocabElementType(Type type) {
  for (const tilec::vocab::ElementTypeInfo &info : tilec::vocab::kElementTypes)
    if (getMlirElementType(type.getContext(), info.type) == type)
      return info.type;
  return std::nullopt;
}

std::string mlir::tile::getElementTypeName(Type type) {
  if (auto vocabType = getVocabElementType(type))
    return std::string(tilec::vocab::toString(*vocabType));
  std::string result;
  llvm::raw_string_ostream os(result);
  type.print(os);
  return result;
}

static LogicalResult
verifyElementType(function_ref<InFlightDiagnostic()> emitError,
                  Type elementType) {
  if (!getVocabElementType(elementType)) {
    std::string expected;
    llvm::raw_string_ostream os(expected);
    llvm::interleave(
        tilec::vocab::kElementTypes, os,
        [&](const tilec::vocab::ElementTypeInfo &info) {
          getMlirElementType(elementType.getContext(), info.type).print(os);
        },
        ", ");
    return emitError() << "unsupported element type " << elementType
                       << " (expected " << expected << ")";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// GlobalType
//===----------------------------------------------------------------------===//

LogicalResult GlobalType::verify(function_ref<InFlightDiagnostic()> emitError,
                                 ArrayRef<int64_t> shape, Type elementType,
                                 int64_t listCapacity) {
  if (shape.empty() || shape.size() > 5)
    return emitError() << "global tensor rank must be 1 to 5, got "
                       << shape.size();
  if (listCapacity < 0 ||
      listCapacity > int64_t(tilec::vocab::kMaxTensorListCapacity))
    return emitError() << "a tensor list holds 1 to "
                       << tilec::vocab::kMaxTensorListCapacity
                       << " tensors, got a capacity of " << listCapacity;
  if (listCapacity > 0 && shape.size() < 3)
    return emitError() << "a tensor list's tensors have rank 2 to 4 (the "
                          "list's rank is one more), got a rank-"
                       << shape.size() << " list";
  if (listCapacity > 0 && !ShapedType::isDynamic(shape[0]) &&
      shape[0] > listCapacity)
    return emitError() << "a tensor list of capacity " << listCapacity
                       << " cannot hold " << shape[0] << " tensors";
  for (int64_t dim : shape)
    if (!ShapedType::isDynamic(dim) && dim <= 0)
      return emitError() << "global tensor dimensions must be positive, got "
                         << formatShape(shape);
  return verifyElementType(emitError, elementType);
}

//===----------------------------------------------------------------------===//
// SmemType
//===----------------------------------------------------------------------===//

LogicalResult SmemType::verify(function_ref<InFlightDiagnostic()> emitError,
                               ArrayRef<int64_t> shape, Type elementType,
                               Swizzle swizzle) {
  if (failed(verifyElementType(emitError, elementType)))
    return failure();
  if (shape.empty())
    return emitError() << "shared-memory buffer needs at least one dimension";
  for (int64_t dim : shape)
    if (ShapedType::isDynamic(dim) || dim <= 0)
      return emitError()
             << "shared-memory dimensions must be static and positive, got "
             << formatShape(shape);
  int64_t elementBytes = ::mlir::tile::getElementBytes(elementType);
  int64_t rowBytes = shape.back() * elementBytes;
  int64_t span = getSwizzleBytes(swizzle);
  if (span == 0)
    return success();
  if (shape.size() < 2)
    return emitError() << "a swizzled shared-memory buffer needs at least two "
                          "dimensions, got "
                       << formatShape(shape);
  if (rowBytes % span != 0)
    return emitError() << "innermost dimension of " << shape.back() << " "
                       << getElementTypeName(elementType) << " elements ("
                       << rowBytes << " bytes) is not a multiple of the "
                       << span << "-byte swizzle span";
  int64_t rows = shape[shape.size() - 2];
  if (rows % 8 != 0)
    return emitError() << "a swizzled tile needs a multiple of 8 rows (one "
                          "swizzle atom), got "
                       << rows;
  return success();
}

int64_t SmemType::getElementBytes() const {
  return ::mlir::tile::getElementBytes(getElementType());
}

int64_t SmemType::getSizeInBytes() const {
  int64_t n = getElementBytes();
  for (int64_t d : getShape())
    n *= d;
  return n;
}

int64_t SmemType::getTileBytes() const {
  ArrayRef<int64_t> shape = getShape();
  int64_t n = getElementBytes() * shape.back();
  if (shape.size() >= 2)
    n *= shape[shape.size() - 2];
  return n;
}

int64_t SmemType::getAlignment() const {
  // A swizzle pattern repeats every 8 rows of the span; aligning the buffer to
  // that keeps the descriptors' base offset at 0.
  int64_t span = getSwizzleBytes(getSwizzle());
  return span ? 8 * span : 128;
}

//===----------------------------------------------------------------------===//
// TmemType
//===----------------------------------------------------------------------===//

LogicalResult TmemType::verify(function_ref<InFlightDiagnostic()> emitError,
                               ArrayRef<int64_t> shape, Type elementType) {
  if (shape.size() != 2)
    return emitError() << "tensor memory is two-dimensional (lanes x "
                          "columns), got shape "
                       << formatShape(shape);
  if (shape[0] != 128)
    return emitError() << "tensor memory has 128 lanes, got " << shape[0];
  if (shape[1] < 1 || shape[1] > 512)
    return emitError() << "tensor memory has 1 to 512 columns, got "
                       << shape[1];
  if (!elementType.isIntOrFloat() || elementType.getIntOrFloatBitWidth() != 32)
    return emitError() << "tensor-memory cells are 32-bit, got " << elementType;
  return success();
}

//===----------------------------------------------------------------------===//
// BarrierType, PipelineType
//===----------------------------------------------------------------------===//

// `<tma, 4>` or `<tma, 4, remote>`: the flag marks a view onto a peer CTA.
Type BarrierType::parse(AsmParser &parser) {
  std::string kindName;
  int64_t depth = 0;
  bool remote = false;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseLess() || parser.parseKeywordOrString(&kindName) ||
      parser.parseComma() || parser.parseInteger(depth))
    return {};
  if (succeeded(parser.parseOptionalComma())) {
    if (parser.parseKeyword("remote"))
      return {};
    remote = true;
  }
  if (parser.parseGreater())
    return {};
  std::optional<BarrierKind> kind = symbolizeBarrierKind(kindName);
  if (!kind) {
    parser.emitError(loc, "unknown barrier kind '")
        << kindName << "' (expected tma, mma or threads)";
    return {};
  }
  return parser.getChecked<BarrierType>(loc, parser.getContext(), *kind, depth,
                                        remote);
}

void BarrierType::print(AsmPrinter &printer) const {
  printer << '<' << stringifyBarrierKind(getKind()) << ", " << getDepth();
  if (getRemote())
    printer << ", remote";
  printer << '>';
}

LogicalResult BarrierType::verify(function_ref<InFlightDiagnostic()> emitError,
                                  BarrierKind kind, int64_t depth,
                                  bool remote) {
  if (depth < 1 || depth > 64)
    return emitError() << "barrier array depth must be 1 to 64, got " << depth;
  return success();
}

LogicalResult PipelineType::verify(function_ref<InFlightDiagnostic()> emitError,
                                   int64_t depth) {
  if (depth < 1 || depth > 64)
    return emitError() << "pipeline depth must be 1 to 64, got " << depth;
  return success();
}

//===----------------------------------------------------------------------===//
// FragType
//===----------------------------------------------------------------------===//

LogicalResult FragType::verify(function_ref<InFlightDiagnostic()> emitError,
                               ArrayRef<int64_t> shape, Type elementType,
                               FragLayout layout, FragBroadcast broadcast) {
  // i1: what a comparison gives; it lives in registers only.
  if (!elementType.isInteger(1) &&
      failed(verifyElementType(emitError, elementType)))
    return failure();
  if (shape.size() != 2)
    return emitError() << "a fragment is two-dimensional, got shape "
                       << formatShape(shape);
  if (ShapedType::isDynamic(shape[0]) || ShapedType::isDynamic(shape[1]) ||
      shape[0] <= 0 || shape[1] <= 0)
    return emitError() << "fragment dimensions must be static and positive, "
                          "got "
                       << formatShape(shape);
  switch (layout) {
  case FragLayout::wgmma_acc:
    if (shape[0] % 64 != 0)
      return emitError() << "a wgmma_acc fragment has a multiple of 64 rows, "
                            "got "
                         << shape[0];
    if (shape[1] % 8 != 0 || shape[1] > 256)
      return emitError() << "a wgmma_acc fragment has a multiple of 8 columns "
                            "up to 256, got "
                         << shape[1];
    break;
  case FragLayout::row_per_thread:
    if (shape[0] != 128)
      return emitError() << "a row_per_thread fragment has 128 rows (one per "
                            "thread of the warpgroup), got "
                         << shape[0];
    break;
  case FragLayout::quad_spread:
    if (shape[0] != 2 && shape[0] != 4 && shape[0] != 8)
      return emitError() << "a quad_spread fragment has 2, 4 or 8 rows (the "
                            "groups of a grouped reduction), got "
                         << shape[0];
    if (shape[1] % 64 != 0)
      return emitError() << "a quad_spread fragment has a multiple of 64 "
                            "columns (the reduced fragment's rows), got "
                         << shape[1];
    break;
  }
  return success();
}

tilec::FragmentShape FragType::getSupportShape() const {
  tilec::FragmentShape shape;
  switch (getLayout()) {
  case FragLayout::wgmma_acc:
    shape.Layout = tilec::FragmentLayout::WgmmaAccumulator;
    break;
  case FragLayout::row_per_thread:
    shape.Layout = tilec::FragmentLayout::RowPerThread;
    break;
  case FragLayout::quad_spread:
    shape.Layout = tilec::FragmentLayout::QuadSpread;
    break;
  }
  shape.Rows = getShape()[0];
  shape.Cols = getShape()[1];
  return shape;
}

tilec::FragmentBroadcast FragType::getSupportBroadcast() const {
  switch (getBroadcast()) {
  case FragBroadcast::none:
    return tilec::FragmentBroadcast::None;
  case FragBroadcast::rows:
    return tilec::FragmentBroadcast::Rows;
  case FragBroadcast::cols:
    return tilec::FragmentBroadcast::Cols;
  }
  return tilec::FragmentBroadcast::None;
}

int64_t FragType::getElementsPerThread() const {
  return tilec::fragmentRegs(getSupportShape(), getSupportBroadcast());
}

//===----------------------------------------------------------------------===//
// GridAxisAttr
//===----------------------------------------------------------------------===//

Attribute GridAxisAttr::parse(AsmParser &parser, Type) {
  int64_t arg = -1, dim = 0, tile = 1;
  if (parser.parseLess())
    return {};
  if (succeeded(parser.parseOptionalKeyword("ceildiv"))) {
    if (parser.parseLParen() || parser.parseKeyword("arg") ||
        parser.parseInteger(arg) || parser.parseComma() ||
        parser.parseKeyword("dim") || parser.parseInteger(dim) ||
        parser.parseComma() || parser.parseInteger(tile) ||
        parser.parseRParen())
      return {};
  } else if (parser.parseInteger(tile)) {
    return {};
  }
  if (parser.parseGreater())
    return {};
  if (tile < 1) {
    parser.emitError(parser.getNameLoc(), "grid axis must be positive, got ")
        << tile;
    return {};
  }
  return GridAxisAttr::get(parser.getContext(), arg, dim, tile);
}

void GridAxisAttr::print(AsmPrinter &printer) const {
  printer << '<';
  if (isConstant())
    printer << getTile();
  else
    printer << "ceildiv(arg " << getArg() << ", dim " << getDim() << ", "
            << getTile() << ")";
  printer << '>';
}

//===----------------------------------------------------------------------===//
// KernelAbiAttr
//===----------------------------------------------------------------------===//

int64_t KernelAbiAttr::getParamIndex(Attribute param) const {
  for (auto [i, attr] : llvm::enumerate(getParams()))
    if (attr == param)
      return i;
  return -1;
}

int64_t KernelAbiAttr::getDimParamIndex(int64_t arg, int64_t dim) const {
  return getParamIndex(DimParamAttr::get(getContext(), arg, dim));
}

int64_t KernelAbiAttr::getScalarParamIndex(int64_t arg) const {
  return getParamIndex(ScalarParamAttr::get(getContext(), arg));
}

int64_t KernelAbiAttr::getPointerParamIndex(int64_t arg) const {
  for (auto [i, attr] : llvm::enumerate(getParams()))
    if (auto pointer = dyn_cast<PointerParamAttr>(attr);
        pointer && pointer.getArg() == arg)
      return i;
  return -1;
}

int64_t KernelAbiAttr::getStrideParamIndex(int64_t arg, int64_t dim) const {
  return getParamIndex(StrideParamAttr::get(getContext(), arg, dim));
}

//===----------------------------------------------------------------------===//
// Discardable attributes
//===----------------------------------------------------------------------===//

LogicalResult TileDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  StringAttr name = attr.getName();
  if (name == getKernelAbiAttrHelper().getName()) {
    if (!isa<KernelAbiAttr>(attr.getValue()))
      return op->emitError("'")
             << name.getValue() << "' must be a #tile.kernel_abi, got "
             << attr.getValue();
    return success();
  }
  if (name == getArgAttrHelper().getName()) {
    if (!isa<IntegerAttr>(attr.getValue()))
      return op->emitError("'")
             << name.getValue() << "' must be an integer (the kernel argument "
             << "a value stands for), got " << attr.getValue();
    return success();
  }
  if (name == getUnrollAttrHelper().getName()) {
    auto factor = dyn_cast<IntegerAttr>(attr.getValue());
    if (!isa<scf::ForOp>(op) || !factor || factor.getInt() < 2)
      return op->emitError("'")
             << name.getValue()
             << "' must be an integer of at least 2 on an scf.for, got "
             << attr.getValue() << " on '" << op->getName() << "'";
    return success();
  }
  if (name == getTestAheadAttrHelper().getName()) {
    if (!isa<scf::ForOp>(op) || !isa<UnitAttr>(attr.getValue()))
      return op->emitError("'")
             << name.getValue() << "' must be a unit attribute on an scf.for, "
             << "got " << attr.getValue() << " on '" << op->getName() << "'";
    return success();
  }
  return op->emitError("unknown tile dialect attribute '")
         << name.getValue() << "'";
}

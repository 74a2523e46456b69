//===- Common.h - helpers shared by the tile -> NVVM patterns ---*- C++ -*-===//
//
// Private to lib/Conversion/TileToNVVM: the small builders, the kernel-ABI
// lookups and the fragment plumbing every op family uses, and one populate
// function per family (the public populateTileToNVVMConversionPatterns calls
// them all).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_CONVERSION_TILETONVVM_COMMON_H
#define TILEC_LIB_CONVERSION_TILETONVVM_COMMON_H

#include "lib/Conversion/Passes.h"
#include "lib/Support/MmaTypes.h"
#include "lib/Support/Swizzle.h"

#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Transforms/DialectConversion.h"

#include <type_traits>

namespace mlir::tile {

//===----------------------------------------------------------------------===//
// One populate function per op family
//===----------------------------------------------------------------------===//

/// tile.kernel -> llvm.func (KernelSignature.cpp).
void populateTileKernelSignatureToNVVMPatterns(LLVMTypeConverter &converter,
                                               RewritePatternSet &patterns);
/// Thread identity, tensor dims, tile scheduler (Ids.cpp).
void populateTileIdsToNVVMPatterns(LLVMTypeConverter &converter,
                                   RewritePatternSet &patterns);
/// Shared-memory declarations and mbarriers (Barriers.cpp).
void populateTileBarriersToNVVMPatterns(LLVMTypeConverter &converter,
                                        RewritePatternSet &patterns);
/// TMA copies and bulk groups (Copies.cpp).
void populateTileCopiesToNVVMPatterns(LLVMTypeConverter &converter,
                                      RewritePatternSet &patterns);
/// wgmma and its commit / wait (Wgmma.cpp).
void populateTileWgmmaToNVVMPatterns(LLVMTypeConverter &converter,
                                     RewritePatternSet &patterns);
/// Tensor memory and tcgen05.mma / commit (Tcgen05.cpp).
void populateTileTcgen05ToNVVMPatterns(LLVMTypeConverter &converter,
                                       RewritePatternSet &patterns);
/// Register fragments: zero, cast, store (Fragments.cpp).
void populateTileFragmentsToNVVMPatterns(LLVMTypeConverter &converter,
                                         RewritePatternSet &patterns);
/// Fragment math: unary, binary, fma, cmp, select, reduce (FragmentMath.cpp).
void populateTileFragmentMathToNVVMPatterns(LLVMTypeConverter &converter,
                                            RewritePatternSet &patterns);
/// CTA / cluster / warpgroup syncs and fences (Syncs.cpp).
void populateTileSyncsToNVVMPatterns(LLVMTypeConverter &converter,
                                     RewritePatternSet &patterns);
/// Loads into registers, guarded stores, 1-D copies (Loads.cpp).
void populateTileLoadsToNVVMPatterns(LLVMTypeConverter &converter,
                                     RewritePatternSet &patterns);

namespace lowering {

//===----------------------------------------------------------------------===//
// One lowering function per op
//===----------------------------------------------------------------------===//

/// The operands of `Op` after conversion when a value may become several
/// (a fragment becomes its per-thread scalars).
template <typename Op>
using OneToNAdaptor =
    typename Op::template GenericAdaptor<ArrayRef<ValueRange>>;

/// The pattern of one op whose lowering is the function `Lower`, called as
/// Lower(op, adaptor, rewriter) or, when it needs the type converter,
/// Lower(op, adaptor, rewriter, converter); the adaptor is `Op::Adaptor`, or
/// OneToNAdaptor<Op> for an op with fragment operands (the framework always
/// enters through the 1:N form, which falls back to the 1:1 one). Every
/// lowering here is stateless, so a function says all a pattern class would,
/// without the class's boilerplate.
template <typename Op, auto Lower>
struct OpLowering : ConvertOpToLLVMPattern<Op> {
  using Base = ConvertOpToLLVMPattern<Op>;
  using Base::Base;
  using OpAdaptor = typename Base::OpAdaptor;

  LogicalResult
  matchAndRewrite(Op op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if constexpr (std::is_invocable_v<decltype(Lower), Op, OpAdaptor,
                                      ConversionPatternRewriter &>)
      return Lower(op, adaptor, rewriter);
    else if constexpr (std::is_invocable_v<decltype(Lower), Op, OpAdaptor,
                                           ConversionPatternRewriter &,
                                           const LLVMTypeConverter &>)
      return Lower(op, adaptor, rewriter, *this->getTypeConverter());
    else
      llvm_unreachable("a 1:N lowering is called with OneToNAdaptor");
  }

  LogicalResult
  matchAndRewrite(Op op, OneToNAdaptor<Op> adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if constexpr (std::is_invocable_v<decltype(Lower), Op, OneToNAdaptor<Op>,
                                      ConversionPatternRewriter &>)
      return Lower(op, adaptor, rewriter);
    else if constexpr (std::is_invocable_v<decltype(Lower), Op,
                                           OneToNAdaptor<Op>,
                                           ConversionPatternRewriter &,
                                           const LLVMTypeConverter &>)
      return Lower(op, adaptor, rewriter, *this->getTypeConverter());
    else
      return Base::matchAndRewrite(op, adaptor, rewriter);
  }
};

constexpr StringLiteral kSmemSymbol = "__tile_smem";
/// Marks the allocas of --debug-hangs reports, which ConvertToNVVMPass moves
/// to their function's entry block.
constexpr StringLiteral kHangBufferAttr = "tile.hang_report_buffer";
constexpr unsigned kGlobalSpace = 1;
constexpr unsigned kSharedSpace = 3;
constexpr unsigned kTensorSpace = 6;
constexpr unsigned kSharedClusterSpace = 7;

//===----------------------------------------------------------------------===//
// Small builders
//===----------------------------------------------------------------------===//

Value i32Const(OpBuilder &b, Location loc, int64_t v);
Value i64Const(OpBuilder &b, Location loc, int64_t v);
/// `v` * `c`, or `v` itself for c == 1.
Value mulConst(OpBuilder &b, Location loc, Value v, int64_t c);
/// `x` + `y` where either may be null (then the other is returned).
Value addValues(OpBuilder &b, Location loc, Value x, Value y);
/// `x` and `y` (i1) where either may be null (then the other is returned).
Value andValues(OpBuilder &b, Location loc, Value x, Value y);

LLVM::LLVMPointerType sharedPtrType(MLIRContext *ctx);

/// The address of the kernel's dynamic shared-memory pool, declared once per
/// module as an external zero-length array aligned to 1024 bytes.
Value getSmemBase(OpBuilder &b, Location loc, Operation *from);

/// `base` + `offset` bytes (offset: i32 value).
Value byteGep(OpBuilder &b, Location loc, Value base, Value offset);
Value byteGep(OpBuilder &b, Location loc, Value base, int64_t offset);

/// The 32-bit shared address of a shared pointer.
Value sharedAddress(OpBuilder &b, Location loc, Value ptr);

/// The thread's index in the CTA (tid.x).
Value threadIdx(OpBuilder &b, Location loc);
/// The CTAs of the grid: nctaid.x * nctaid.y * nctaid.z.
Value numCtas(OpBuilder &b, Location loc);
/// The (row, column) of the first element thread `tid` (0-127 in its
/// warpgroup) holds in a fragment of type `frag`, relative to thread 0's:
/// wgmma_acc (16 warp + lane / 4, 2 (lane % 4)), as wgmmaAccumulatorCoord
/// says; row_per_thread (tid, 0); quad_spread ((lane % 4) / 2 * rows / 2,
/// 16 warp + lane / 4 + 8 (lane % 2)). Every other element of the thread is
/// at a constant offset from it (FragmentLayoutTest checks that).
std::pair<Value, Value> fragmentThreadCoord(OpBuilder &b, Location loc,
                                            FragType frag, Value tid);

/// The byte offset of the tile selected by `leading` indices in `type`, or
/// null when there are none.
Value tileOffset(OpBuilder &b, Location loc, SmemType type, ValueRange leading);

/// The shared address of `op`'s place in the pool (its `offset`); an error
/// saying `op` has no `what` when tile-allocate-smem did not place it.
FailureOr<Value> poolAddress(Operation *op, OpBuilder &b,
                             StringRef what = "offset");

/// The address of barrier `index` of an array.
Value barrierAt(OpBuilder &b, Location loc, Value base, Value index);

//===----------------------------------------------------------------------===//
// Inline PTX and structs
//===----------------------------------------------------------------------===//

/// Elements of an LLVM struct value.
SmallVector<Value> unpackStruct(OpBuilder &b, Location loc, Value s);
/// A struct of `type` holding `values`.
Value packStruct(OpBuilder &b, Location loc, Type type, ValueRange values);

/// One inline-PTX statement with side effects, for what LLVM 22's NVVM
/// dialect cannot express (each use says why).
SmallVector<Value> inlinePtx(OpBuilder &b, Location loc, TypeRange results,
                             ValueRange operands, StringRef ptx,
                             StringRef constraints);

/// One side-effecting empty asm that ties every value to itself, so that
/// neither LLVM nor ptxas moves their uses above the preceding wait (CUTLASS's
/// warpgroup_fence_operand, for a whole fragment at once).
/// Inline asm because it is no instruction: NVVM has no op for a register
/// fence.
SmallVector<Value> fenceRegisters(OpBuilder &b, Location loc,
                                  ValueRange values);

//===----------------------------------------------------------------------===//
// Fragments (one SSA value per element after conversion)
//===----------------------------------------------------------------------===//

/// Replaces a single-result op producing a fragment by its scalars.
void replaceWithFragment(ConversionPatternRewriter &rewriter, Operation *op,
                         ValueRange values);

/// The converted values of `operand` (a fragment of any broadcast, or a
/// scalar) lined up with the registers of a fragment of type `result`: a
/// scalar repeats; a broadcast fragment's register serves every register of
/// its row (column). `result` is the operand's own broadcast or a full one.
SmallVector<Value> alignToFragment(Type operandType, ValueRange values,
                                   FragType result);

/// The converted values of ODS operand group `index` of `op` (one fragment
/// operand is many values after conversion).
template <typename OpT>
SmallVector<Value> operandGroup(OpT op, ArrayRef<ValueRange> operands,
                                unsigned index) {
  auto [start, length] = op.getODSOperandIndexAndLength(index);
  SmallVector<Value> values;
  for (unsigned i = 0; i < length; ++i)
    llvm::append_range(values, operands[start + i]);
  return values;
}

//===----------------------------------------------------------------------===//
// The kernel ABI (KernelOp::getAbi, kept on the llvm.func)
//===----------------------------------------------------------------------===//

/// The llvm.func a converted op sits in.
LLVM::LLVMFuncOp getFunc(Operation *op);

/// The kernel's ABI, which the signature pattern put on the llvm.func; its
/// parameter list gives each tensor map, dim and scalar its argument.
KernelAbiAttr getKernelAbi(LLVM::LLVMFuncOp func);

/// The attribute marking the placeholder that stands for global tensor
/// argument k until its users are converted.
constexpr StringLiteral kGlobalArgAttr =
    TileDialect::ArgAttrHelper::getNameStr();

/// The attribute marking the cast that stands for a tile.peer_view: its
/// operands are the viewed tensor's value and the offset in bytes.
constexpr StringLiteral kPeerViewAttr = "peer_view";

/// The kernel argument number a global tensor value stands for, or views
/// on a peer, or -1.
int64_t getGlobalArg(Value v);

/// The bytes between a global tensor value and its kernel argument's memory
/// (the sum of its peer views' offsets, an i64), or null for the argument
/// itself.
Value getPeerOffset(OpBuilder &b, Location loc, Value v);

//===----------------------------------------------------------------------===//
// MMA operands (wgmma and tcgen05)
//===----------------------------------------------------------------------===//

/// The converted operands of a gemm_async.
struct GemmOperands {
  SmallVector<Value> acc; ///< fragment scalars, or the tensor-memory address
  Value accColumn;
  Value a, b;
  SmallVector<Value> aIndices, bIndices;
  Value accumulate;
};
GemmOperands getGemmOperands(GemmAsyncOp op, ArrayRef<ValueRange> operands);

/// The A and B operand tiles of a gemm_async: their types, layouts and the
/// constant fields of their shared-memory descriptors.
struct MmaTiles {
  SmemType aType, bType;
  tilec::SmemTileLayout aLayout, bLayout;
  uint64_t aDesc = 0, bDesc = 0;
};
/// wgmma's or tcgen05's descriptor encoder.
using SmemDescEncoder = llvm::Expected<uint64_t> (*)(
    const tilec::SmemTileLayout &, tilec::MmaMajor);
/// The tiles of `op` with descriptors from `encode` for the op's operand
/// majors; an error naming `unit` ("wgmma", "tcgen05") when a descriptor
/// cannot be built.
FailureOr<MmaTiles> getMmaTiles(GemmAsyncOp op, SmemDescEncoder encode,
                                StringRef unit);

/// An MMA operand in shared memory: its buffer's shared address (i32) and
/// the run-time offset of the operand's tile (its leading indices, then
/// the first row, or for an MN-major operand the first column), in 16-byte
/// units where every term of it is a multiple of 16 bytes (`inUnits`), else
/// in bytes; null when there is none.
struct MmaOperandRef {
  Value buffer;
  Value offset;
  bool inUnits = true;
};
MmaOperandRef mmaOperandRef(OpBuilder &b, Location loc, SmemType type,
                            Value base, ValueRange indices,
                            const tilec::SmemTileLayout &layout,
                            tilec::MmaMajor major = tilec::MmaMajor::K);

/// A shared-memory matrix descriptor for the operand `ref` plus the
/// constant `offset` bytes: the constant fields from TileSupport, the
/// address field computed at run time.
Value buildSmemDesc(OpBuilder &b, Location loc, uint64_t constant,
                    const MmaOperandRef &ref, int64_t offset);

} // namespace lowering
} // namespace mlir::tile

#endif // TILEC_LIB_CONVERSION_TILETONVVM_COMMON_H

//===- TileTypes.td - types and attributes of the tile dialect -*- tablegen -*-===//

#ifndef TILE_TYPES_TD
#define TILE_TYPES_TD

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinTypeInterfaces.td"
include "TileDialect.td"
include "TileEnums.td"

class Tile_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<Tile_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

def Tile_GlobalType : Tile_Type<"Global", "global"> {
  let summary = "a tensor in global memory, passed to the kernel";
  let description = [{
    A row-major tensor in global memory; dimensions are static or `?`
    (known at launch). Example: `!tile.global<?x4096xbf16>`.

    With `list = N`, a tensor list: up to N tensors of rank `rank - 1`, each
    a matrix of its own with its own sizes and strides (the groups of a
    grouped GEMM), read and written through one tensor map each. Dim 0 is
    the list's length and indexes the tensor in a copy_async; the other dims
    are each tensor's, which may differ between them, so only dim 0 can be
    read in the kernel. Example: `!tile.global<?x?x?xf8E4M3FN, list = 32>`.
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape,
                        "::mlir::Type":$elementType,
                        DefaultValuedParameter<"int64_t", "0">:$listCapacity);
  let assemblyFormat = [{
    `<` custom<ShapeAndType>($shape, $elementType)
        (`,` `list` `=` $listCapacity^)? `>`
  }];
  let extraClassDeclaration = [{
    unsigned getRank() const { return getShape().size(); }
    bool isDynamicDim(unsigned i) const {
      return ::mlir::ShapedType::isDynamic(getShape()[i]);
    }
    /// A tensor list (listCapacity > 0).
    bool isList() const { return getListCapacity() > 0; }
  }];
  let genVerifyDecl = 1;
}

def Tile_SmemType : Tile_Type<"Smem", "smem"> {
  let summary = "a buffer in shared memory with a swizzled layout";
  let description = [{
    A row-major buffer in shared memory. The two innermost dimensions form a
    tile; with a swizzle the tile is stored as column blocks of the swizzle
    span (128B swizzle: 64 bf16 columns), each block contiguous, rows of the
    span's width, 16-byte chunks XOR-permuted within each 8-row group, as TMA
    writes them and wgmma/tcgen05 descriptors expect.
    Example: `!tile.smem<4x128x64xbf16, swizzle_128b>`.
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape,
                        "::mlir::Type":$elementType,
                        "::mlir::tile::Swizzle":$swizzle);
  let assemblyFormat =
      "`<` custom<ShapeAndType>($shape, $elementType) `,` $swizzle `>`";
  let extraClassDeclaration = [{
    unsigned getRank() const { return getShape().size(); }
    /// Bytes of one element.
    int64_t getElementBytes() const;
    /// Bytes of the whole buffer.
    int64_t getSizeInBytes() const;
    /// Bytes of one innermost tile (the two innermost dimensions).
    int64_t getTileBytes() const;
    /// The alignment the swizzle needs (1024 for 128B) or 128.
    int64_t getAlignment() const;
  }];
  let genVerifyDecl = 1;
}

def Tile_TmemType : Tile_Type<"Tmem", "tmem"> {
  let summary = "a buffer in tensor memory (sm_100)";
  let description = [{
    Tensor memory: 128 lanes x up to 512 columns of 32-bit cells per SM.
    Example: `!tile.tmem<128x512xf32>`.
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape,
                        "::mlir::Type":$elementType);
  let assemblyFormat = "`<` custom<ShapeAndType>($shape, $elementType) `>`";
  let genVerifyDecl = 1;
}

def Tile_BarrierType : Tile_Type<"Barrier", "barrier"> {
  let summary = "an array of mbarriers";
  let description = [{
    `depth` mbarriers in shared memory, of one kind: `tma` (completed by an
    arrive with expected transaction bytes plus the TMA bytes), `mma`
    (completed by tcgen05.commit or the MMA consumers) or `threads` (n
    arrivals). A `remote` barrier is a view onto a peer CTA's barrier in the
    cluster. Example: `!tile.barrier<tma, 4>`.
  }];
  let parameters = (ins "::mlir::tile::BarrierKind":$kind,
                        "int64_t":$depth,
                        DefaultValuedParameter<"bool", "false">:$remote);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

def Tile_PipelineType : Tile_Type<"Pipeline", "pipeline"> {
  let summary = "the (stage, phase) state of a ring of `depth` buffers";
  let description = [{
    Advancing wraps the stage at `depth` and flips the phase.
    Example: `!tile.pipeline<4>`.
  }];
  let parameters = (ins "int64_t":$depth);
  let assemblyFormat = "`<` $depth `>`";
  let genVerifyDecl = 1;
}

def Tile_FragType : Tile_Type<"Frag", "frag"> {
  let summary = "a register fragment distributed over the threads of a warpgroup";
  let description = [{
    A `rows x cols` tile held in registers by the 128 threads of a warpgroup,
    laid out as `layout` says. Example: `!tile.frag<64x256xf32, wgmma_acc>`.
    A broadcast fragment (`rows` or `cols`) stands for the same tile with one
    value per row (or column): each thread holds only the distinct rows (or
    columns) its full fragment covers, 2 per 64-row block of a wgmma_acc
    fragment for `rows`. It is what per-row scales, per-column biases and
    reductions are. Example: `!tile.frag<64x256xf32, wgmma_acc, rows>`.
    Element types: the vocabulary's, and i1 (the result of a comparison).
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape,
                        "::mlir::Type":$elementType,
                        "::mlir::tile::FragLayout":$layout,
                        DefaultValuedParameter<"::mlir::tile::FragBroadcast",
                            "::mlir::tile::FragBroadcast::none">:$broadcast);
  let assemblyFormat = [{
    `<` custom<ShapeAndType>($shape, $elementType) `,` $layout
    (`,` $broadcast^)? `>`
  }];
  // A full fragment unless a broadcast is given.
  let builders = [
    TypeBuilder<(ins "::llvm::ArrayRef<int64_t>":$shape,
        "::mlir::Type":$elementType, "::mlir::tile::FragLayout":$layout,
        CArg<"::mlir::tile::FragBroadcast",
             "::mlir::tile::FragBroadcast::none">:$broadcast), [{
      return $_get($_ctxt, shape, elementType, layout, broadcast);
    }]>
  ];
  let skipDefaultBuilders = 1;
  let extraClassDeclaration = [{
    /// Elements each thread of the warpgroup holds.
    int64_t getElementsPerThread() const;
    /// The layout and shape in lib/Support's terms.
    ::tilec::FragmentShape getSupportShape() const;
    ::tilec::FragmentBroadcast getSupportBroadcast() const;
    bool isBroadcast() const {
      return getBroadcast() != ::mlir::tile::FragBroadcast::none;
    }
    /// The same fragment with another element type or broadcast.
    FragType withElementType(::mlir::Type elementType) const {
      return FragType::get(getContext(), getShape(), elementType, getLayout(),
                           getBroadcast());
    }
    FragType withBroadcast(::mlir::tile::FragBroadcast broadcast) const {
      return FragType::get(getContext(), getShape(), getElementType(),
                           getLayout(), broadcast);
    }
  }];
  let genVerifyDecl = 1;
}

class Tile_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Tile_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

def Tile_GridAxisAttr : Tile_Attr<"GridAxis", "grid_axis"> {
  let summary = "one axis of a fixed launch grid";
  let description = [{
    Either a constant (`#tile.grid_axis<4>`) or the number of tiles along a
    tensor dimension: `#tile.grid_axis<ceildiv(arg 0, dim 1, 128)>` is
    ceildiv(dim 1 of kernel argument 0, 128).
  }];
  let parameters = (ins "int64_t":$arg, "int64_t":$dim, "int64_t":$tile);
  let hasCustomAssemblyFormat = 1;
  let extraClassDeclaration = [{
    bool isConstant() const { return getArg() < 0; }
  }];
}

//===----------------------------------------------------------------------===//
// The kernel ABI: what the launcher passes, computed by KernelOp::getAbi()
//===----------------------------------------------------------------------===//

def Tile_TensorMapParamAttr : Tile_Attr<"TensorMapParam", "tensormap"> {
  let summary = "a TMA descriptor built from a tensor argument, passed by value";
  let description = [{
    The tensor map the runtime builds from kernel argument `arg` with the box
    `box` (outermost dimension first) and the swizzle of the shared tile it
    fills. tile-dispatch puts one on every copy_async; the kernel takes each
    distinct one once. `#tile.tensormap<arg = 0, box = [128, 64], swizzle = swizzle_128b>`
  }];
  let parameters = (ins "int64_t":$arg, ArrayRefParameter<"int64_t">:$box,
                        EnumParameter<Tile_Swizzle>:$swizzle);
  let assemblyFormat =
      "`<` `arg` `=` $arg `,` `box` `=` `[` $box `]` `,` `swizzle` `=` $swizzle `>`";
}

def Tile_DimParamAttr : Tile_Attr<"DimParam", "dim_param"> {
  let summary = "a dynamic dimension of a tensor argument, passed as i32";
  let description = [{ `#tile.dim_param<arg = 0, dim = 1>` }];
  let parameters = (ins "int64_t":$arg, "int64_t":$dim);
  let assemblyFormat = "`<` `arg` `=` $arg `,` `dim` `=` $dim `>`";
}

def Tile_ScalarParamAttr : Tile_Attr<"ScalarParam", "scalar_param"> {
  let summary = "a scalar argument, passed as itself";
  let description = [{ `#tile.scalar_param<arg = 2>` }];
  let parameters = (ins "int64_t":$arg);
  let assemblyFormat = "`<` `arg` `=` $arg `>`";
}

def Tile_PointerParamAttr : Tile_Attr<"PointerParam", "pointer_param"> {
  let summary = "the device address of a tensor argument the kernel reads or writes directly";
  let description = [{
    Loads into registers, guarded stores and 1-D bulk copies address the
    tensor from this pointer and its stride parameters. `align` is the widest
    access in bytes (an element, a pair, 16 for a bulk copy): the runtime
    checks that the address, the row strides and the innermost dimension's
    bytes are multiples of it. `#tile.pointer_param<arg = 3, align = 8>`
  }];
  let parameters = (ins "int64_t":$arg, "int64_t":$align);
  let assemblyFormat = "`<` `arg` `=` $arg `,` `align` `=` $align `>`";
}

def Tile_StrideParamAttr : Tile_Attr<"StrideParam", "stride_param"> {
  let summary = "the stride in elements of one dimension of a pointer-addressed tensor, as i64";
  let description = [{
    Every dimension but the innermost, which is contiguous (the runtime
    checks it). `#tile.stride_param<arg = 3, dim = 0>`
  }];
  let parameters = (ins "int64_t":$arg, "int64_t":$dim);
  let assemblyFormat = "`<` `arg` `=` $arg `,` `dim` `=` $dim `>`";
}

def Tile_KernelAbiAttr : Tile_Attr<"KernelAbi", "kernel_abi"> {
  let summary = "what a launcher needs to call a kernel, in one typed attribute";
  let description = [{
    The kernel's parameters in order (tensor maps, then pointers, then
    dynamic dimensions, then strides, then scalars), its arguments as the author named and typed them, the
    block size, cluster shape, dynamic shared memory, grid policy and target.
    KernelOp::getAbi() computes it; the conversion to NVVM keeps it on the
    llvm.func as `tile.kernel_abi`, where the bundle writer reads it.
  }];
  let parameters = (ins
    "::mlir::ArrayAttr":$params,
    "::mlir::ArrayAttr":$argNames,
    "::mlir::ArrayAttr":$argTypes,
    "int64_t":$threads,
    "::mlir::DenseI64ArrayAttr":$cluster,
    "int64_t":$smemBytes,
    EnumParameter<Tile_GridPolicy>:$grid,
    OptionalParameter<"::mlir::ArrayAttr">:$gridAxes,
    EnumParameter<Tile_Target>:$target);
  let assemblyFormat = "`<` struct(params) `>`";
  let extraClassDeclaration = [{
    /// The position of a parameter in the kernel's parameter list, or -1.
    int64_t getParamIndex(::mlir::Attribute param) const;
    int64_t getDimParamIndex(int64_t arg, int64_t dim) const;
    int64_t getScalarParamIndex(int64_t arg) const;
    /// The pointer parameter of tensor argument `arg` (whatever its align).
    int64_t getPointerParamIndex(int64_t arg) const;
    int64_t getStrideParamIndex(int64_t arg, int64_t dim) const;
  }];
}

#endif // TILE_TYPES_TD

//===- tilec.cpp - the tile kernel compiler driver -----------------------===//
//
// tilec reads a kernel spec (.tile, the tile DSL) or the tile dialect
// (.mlir), runs the tile passes, lowers to NVVM, prints PTX with LLVM's NVPTX
// back end, assembles it with ptxas, and writes what --emit asks for.
//
//===----------------------------------------------------------------------===//

#include "lib/CAPI/Compilation.h"
#include "lib/Target/KernelPicture.h"

#include "tilec/bundle/Bundle.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace {

enum class Emit { Mlir, Svg, Lowered, Llvm, Ptx, Cubin, Bundle };

cl::OptionCategory tilecCategory("tilec options");

cl::opt<std::string> inputFile(cl::Positional,
                               cl::desc("<input .tile or .mlir>"), cl::Required,
                               cl::cat(tilecCategory));

cl::opt<std::string>
    outputFile("o", cl::value_desc("file"),
               cl::desc("Write the output here (default: the input's name with "
                        "the output's extension; '-' for stdout)"),
               cl::cat(tilecCategory));

cl::opt<std::string>
    targetOpt("target", cl::value_desc("sm_90a|sm_100a"),
              cl::desc("GPU target (default: the kernel's own, else sm_90a)"),
              cl::cat(tilecCategory));

cl::opt<Emit> emitOpt(
    "emit", cl::desc("What to write:"), cl::init(Emit::Bundle),
    cl::values(
        clEnumValN(Emit::Mlir, "mlir",
                   "the tile dialect the input describes (before passes)"),
        clEnumValN(Emit::Svg, "svg",
                   "a picture of each kernel: roles on warps with register "
                   "budgets, barrier rings, the shared-memory map, tensor "
                   "memory (docs/pictures.md)"),
        clEnumValN(Emit::Lowered, "lowered",
                   "the LLVM and NVVM dialects after every tile pass"),
        clEnumValN(Emit::Llvm, "llvm", "optimised LLVM IR"),
        clEnumValN(Emit::Ptx, "ptx",
                   "PTX (and <output>.json, the kernel metadata)"),
        clEnumValN(Emit::Cubin, "cubin",
                   "a cubin from ptxas (and <output>.json)"),
        clEnumValN(Emit::Bundle, "bundle",
                   "a tilec bundle: cubin, PTX and metadata in one file "
                   "that the runtime loads (default)")),
    cl::cat(tilecCategory));

cl::opt<unsigned> optLevel("O", cl::desc("Optimisation level 0-3 (default 3)"),
                           cl::Prefix, cl::init(3), cl::cat(tilecCategory));

cl::opt<unsigned> llvmOptLevel(
    "llvm-opt",
    cl::desc("LLVM's IR optimisation pipeline 0-3 (default 0: MLIR has "
             "already folded and CSE'd the IR, the NVPTX back end runs its "
             "own IR passes and ptxas does the machine optimisation; a "
             "pipeline here only adds compile time)"),
    cl::init(0), cl::cat(tilecCategory));

cl::opt<std::string> llvmPasses(
    "llvm-passes", cl::value_desc("pipeline"),
    cl::desc("Run this LLVM pass pipeline (opt's -passes syntax) instead of "
             "--llvm-opt's"),
    cl::cat(tilecCategory));

cl::opt<unsigned> codegenOptLevel(
    "codegen-opt",
    cl::desc("Optimisation level 0-3 of LLVM's NVPTX back end (default: the "
             "-O level; 0 compiles faster but ptxas does not make up for it: "
             "7-10% slower GEMMs measured)"),
    cl::init(~0u), cl::cat(tilecCategory));

cl::opt<tilec::bundle::L2Promotion> l2Promotion(
    "l2-promotion",
    cl::desc("The L2 promotion of every TMA tensor map (default 256: "
             "DeepGEMM's; for A/B measurements)"),
    cl::values(
        clEnumValN(tilec::bundle::L2Promotion::None, "none", "no promotion"),
        clEnumValN(tilec::bundle::L2Promotion::B64, "64", "64 bytes"),
        clEnumValN(tilec::bundle::L2Promotion::B128, "128", "128 bytes"),
        clEnumValN(tilec::bundle::L2Promotion::B256, "256", "256 bytes")),
    cl::init(tilec::bundle::L2Promotion::B256), cl::cat(tilecCategory));

cl::list<std::string> defines("D", cl::value_desc("NAME=VALUE"),
                              cl::desc("Override `param NAME` of a .tile spec"),
                              cl::Prefix, cl::cat(tilecCategory));

cl::opt<bool> report("report",
                     cl::desc("Print each kernel's resources (registers, "
                              "shared memory, spills) and the outputs written"),
                     cl::cat(tilecCategory));

cl::opt<bool> allowSlow(
    "allow-slow-kernels",
    cl::desc("Turn ptxas's setmaxnreg-ignored (C7508/C7506) and serialised "
             "wgmma warnings into warnings instead of errors"),
    cl::cat(tilecCategory));

cl::opt<bool> noCheckProtocol(
    "no-check-protocol",
    cl::desc("Skip the barrier-protocol check (tile-check-protocol), which "
             "runs each role's barrier traffic abstractly and reports "
             "deadlocks, wrong phases, arrival counts and expect_tx bytes "
             "that do not match, stages or tensor memory overwritten while "
             "an MMA or load may still read them, and missing proxy fences "
             "(docs/protocol.md)"),
    cl::cat(tilecCategory));

cl::opt<bool> debugHangs(
    "debug-hangs",
    cl::desc("A hang-diagnosis build: every mbarrier wait becomes a bounded "
             "spin that, after 2^32 ns (~4.3 s) without its phase "
             "completing, prints the kernel, CTA, thread, role, barrier, "
             "stage and phase (vprintf) and traps. Off by default; the "
             "report's vprintf call makes ptxas ignore setmaxnreg and "
             "serialise wgmma, so such kernels are slow (docs/protocol.md)"),
    cl::cat(tilecCategory));

constexpr StringLiteral kOverview =
    "tilec: the tile kernel compiler\n\n"
    "Compiles a GPU tile kernel written in the tile DSL (.tile) or the tile\n"
    "MLIR dialect (.mlir) for Hopper (sm_90a) or Blackwell (sm_100a):\n"
    "  spec -> tile dialect -> tile passes (scopes, warp specialisation,\n"
    "  shared memory, named barriers, pipelines, TMA/wgmma/tcgen05 dispatch)\n"
    "  -> NVVM -> LLVM NVPTX -> PTX -> ptxas -> cubin -> bundle.\n\n"
    "Examples:\n"
    "  tilec examples/copy.tile                    # writes copy.tilec "
    "(bundle)\n"
    "  tilec gemm.tile -D BLK_N=128 --emit=ptx -o gemm.ptx\n"
    "  tilec gemm.tile --target=sm_100a --emit=cubin --report\n"
    "  tilec gemm.tile --emit=mlir                 # the tile dialect "
    "produced\n"
    "  tilec gemm.tile --emit=svg -o gemm.svg      # a picture of the "
    "kernel\n"
    "  tilec gemm.tile --mlir-print-ir-after-all   # IR after every pass\n\n"
    "On any error tilec prints file:line:col diagnostics, exits with 1 and\n"
    "leaves no output file behind. ptxas is taken from $TILEC_PTXAS, PATH,\n"
    "$CUDA_HOME/bin or /usr/local/cuda/bin.\n";

StringRef defaultExtension(Emit emit) {
  switch (emit) {
  case Emit::Mlir:
  case Emit::Lowered:
    return ".mlir";
  case Emit::Svg:
    return ".svg";
  case Emit::Llvm:
    return ".ll";
  case Emit::Ptx:
    return ".ptx";
  case Emit::Cubin:
    return ".cubin";
  case Emit::Bundle:
    return ".tilec";
  }
  return "";
}

/// Writes `bytes` to `path` atomically: a failed run leaves nothing.
bool writeOutput(StringRef path, StringRef bytes, bool binary) {
  std::error_code ec;
  ToolOutputFile out(path, ec, binary ? sys::fs::OF_None : sys::fs::OF_Text);
  if (ec) {
    WithColor::error(errs(), "tilec")
        << "cannot write '" << path << "': " << ec.message() << "\n";
    return false;
  }
  out.os() << bytes;
  out.os().flush();
  if (out.os().has_error()) {
    WithColor::error(errs(), "tilec") << "cannot write '" << path << "'\n";
    out.os().clear_error();
    return false;
  }
  out.keep();
  return true;
}

/// Writes the text of whatever `print` puts on a stream (MLIR or LLVM IR).
bool writeText(StringRef path, function_ref<void(raw_ostream &)> print) {
  std::string text;
  raw_string_ostream os(text);
  print(os);
  return writeOutput(path, text, false);
}

int run(int argc, char **argv) {
  mlir::registerAsmPrinterCLOptions();
  mlir::registerMLIRContextCLOptions();
  mlir::registerPassManagerCLOptions();
  mlir::registerDefaultTimingManagerCLOptions();
  cl::HideUnrelatedOptions({&tilecCategory});
  cl::ParseCommandLineOptions(argc, argv, kOverview);

  tilec::CompileOptions options;
  options.target = targetOpt;
  options.defines = defines;
  options.optLevel = optLevel;
  options.llvmOptLevel = llvmOptLevel;
  options.llvmPasses = llvmPasses;
  options.codegenOptLevel = codegenOptLevel;
  options.allowSlowKernels = allowSlow;
  options.checkProtocol = !noCheckProtocol;
  options.debugHangs = debugHangs;
  options.l2Promotion = l2Promotion;
  if (!tilec::checkCompileOptions(options, errs()))
    return 1;

  mlir::DefaultTimingManager tm;
  mlir::applyDefaultTimingManagerCLOptions(tm);
  mlir::TimingScope timing = tm.getRootScope();

  tilec::Compilation compilation(options, errs());
  std::string errorMessage;
  auto file = mlir::openInputFile(inputFile, &errorMessage);
  if (!file) {
    WithColor::error(errs(), "tilec") << errorMessage << "\n";
    return 1;
  }
  bool isSpec = StringRef(inputFile).ends_with(".tile");
  if (!compilation.parse(std::move(file), /*isMlir=*/!isSpec, timing))
    return 1;
  mlir::ModuleOp module = compilation.getModule();
  const std::string &target = compilation.getTarget();

  std::string output = outputFile;
  if (output.empty()) {
    SmallString<128> path(sys::path::filename(inputFile));
    sys::path::replace_extension(path, defaultExtension(emitOpt));
    output = std::string(path);
  }

  if (emitOpt == Emit::Mlir) {
    return writeText(output, [&](raw_ostream &os) { module.print(os); }) ? 0
                                                                         : 1;
  }
  if (emitOpt == Emit::Svg) {
    if (!compilation.lowerForPicture(timing, [](mlir::PassManager &pm) {
          return mlir::applyPassManagerCLOptions(pm);
        }))
      return 1;
    return writeText(
               output,
               [&](raw_ostream &os) { tilec::writeKernelPictures(module, os); })
               ? 0
               : 1;
  }
  if (!compilation.lower(timing, [](mlir::PassManager &pm) {
        return mlir::applyPassManagerCLOptions(pm);
      }))
    return 1;
  if (emitOpt == Emit::Lowered) {
    return writeText(output, [&](raw_ostream &os) { module.print(os); }) ? 0
                                                                         : 1;
  }
  if (!compilation.translate(timing))
    return 1;
  if (emitOpt == Emit::Llvm) {
    return writeText(output,
                     [&](raw_ostream &os) {
                       compilation.getLLVMModule().print(os, nullptr);
                     })
               ? 0
               : 1;
  }
  if (!compilation.emitPtx(timing))
    return 1;
  if (emitOpt != Emit::Ptx && !compilation.assemble(timing))
    return 1;
  if (!compilation.validate())
    return 1;
  const tilec::bundle::Bundle &bundle = compilation.getBundle();
  const std::optional<tilec::PtxasResult> &assembled =
      compilation.getPtxasResult();

  std::vector<std::string> written;
  bool ok = true;
  switch (emitOpt) {
  case Emit::Ptx:
  case Emit::Cubin: {
    StringRef bytes =
        emitOpt == Emit::Ptx
            ? StringRef(bundle.ptx)
            : StringRef(reinterpret_cast<const char *>(bundle.cubin.data()),
                        bundle.cubin.size());
    ok = writeOutput(output, bytes, emitOpt == Emit::Cubin);
    written.push_back(output);
    if (ok && output != "-") {
      SmallString<128> json(output);
      sys::path::replace_extension(json, ".json");
      ok = writeOutput(json, tilec::bundle::writeMetadataJson(bundle), false);
      written.push_back(std::string(json));
    }
    break;
  }
  case Emit::Bundle: {
    std::vector<uint8_t> bytes;
    std::string error;
    if (!tilec::bundle::serializeBundle(bundle, bytes, error)) {
      WithColor::error(errs(), "tilec") << error << "\n";
      return 1;
    }
    ok = writeOutput(
        output,
        StringRef(reinterpret_cast<const char *>(bytes.data()), bytes.size()),
        true);
    written.push_back(output);
    break;
  }
  default:
    break;
  }
  if (!ok)
    return 1;

  if (report) {
    raw_ostream &os = outs();
    for (const tilec::bundle::Kernel &k : bundle.kernels) {
      os << "kernel " << k.name << " (" << target << ")\n";
      os << "  threads:        " << k.block[0] << " (" << k.block[0] / 128
         << " warpgroups)";
      if (k.cluster[0] * k.cluster[1] * k.cluster[2] > 1)
        os << ", cluster " << k.cluster[0] << "x" << k.cluster[1] << "x"
           << k.cluster[2];
      os << "\n  grid:           "
         << (k.grid.kind == tilec::bundle::GridPolicy::Kind::Persistent
                 ? "persistent (one CTA per SM)"
                 : "fixed")
         << "\n  shared memory:  " << k.dynamicSharedBytes
         << " bytes dynamic\n";
      if (assembled) {
        for (const tilec::KernelResources &r : assembled->kernels) {
          if (r.name != k.name)
            continue;
          os << "  registers:      " << r.registers << " per thread\n";
          os << "  static smem:    " << r.sharedBytes << " bytes\n";
          os << "  stack frame:    " << r.stackFrameBytes << " bytes\n";
          os << "  spills:         " << r.spillStoreBytes << " bytes stored, "
             << r.spillLoadBytes << " bytes loaded\n";
        }
      }
    }
    for (const std::string &w : written)
      os << "wrote " << w << "\n";
  }
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  InitLLVM y(argc, argv);
  return run(argc, argv);
}

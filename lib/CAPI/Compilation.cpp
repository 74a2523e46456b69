//===- Compilation.cpp - one input's way from text to a bundle -----------===//

#include "lib/CAPI/Compilation.h"

#include "lib/Frontend/Frontend.h"
#include "lib/Registration.h"
#include "lib/Target/KernelMetadata.h"
#include "lib/Target/Pipeline.h"
#include "lib/Target/PtxEmitter.h"

#include "dialects/Tile/TileDialect.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/WithColor.h"

using namespace llvm;

namespace tilec {

bool checkCompileOptions(const CompileOptions &options, raw_ostream &diag) {
  if (options.optLevel > 3) {
    WithColor::error(diag, "tilec")
        << "-O" << options.optLevel << " is not a level; use -O0 to -O3\n";
    return false;
  }
  if (!options.target.empty() && !vocab::parseTarget(options.target)) {
    WithColor::error(diag, "tilec")
        << "unknown target '" << options.target << "'; use "
        << vocab::listSpellings(vocab::kAllTargets) << "\n";
    return false;
  }
  return true;
}

Compilation::Compilation(CompileOptions options, raw_ostream &diag)
    : options(std::move(options)), diag(diag) {
  mlir::DialectRegistry registry;
  registerAll(registry);
  // One kernel module gains nothing from a thread pool; starting one cost
  // ~15% of a compile on a 2-core machine.
  context = std::make_unique<mlir::MLIRContext>(
      registry, mlir::MLIRContext::Threading::DISABLED);
  context->loadAllAvailableDialects();
  // The diagnostics point into the user's file; the op dump is noise.
  context->printOpOnDiagnostic(false);
}

Compilation::~Compilation() = default;

bool Compilation::parse(std::unique_ptr<MemoryBuffer> input, bool isMlir,
                        mlir::TimingScope &timing) {
  inputName = input->getBufferIdentifier().str();
  sourceMgr.AddNewSourceBuffer(std::move(input), SMLoc());
  diagHandler = std::make_unique<mlir::SourceMgrDiagnosticHandler>(
      sourceMgr, context.get(), diag);
  {
    mlir::TimingScope parseTiming = timing.nest("parse");
    if (!isMlir) {
      FrontendOptions frontendOptions;
      frontendOptions.target = options.target;
      frontendOptions.diagnosticStream = &diag;
      for (const std::string &d : options.defines) {
        std::string error;
        if (!parseDefine(d, frontendOptions, error)) {
          WithColor::error(diag, "tilec") << error << "\n";
          return false;
        }
      }
      module = parseTileSpec(sourceMgr, *context, frontendOptions);
    } else {
      if (!options.defines.empty()) {
        WithColor::error(diag, "tilec")
            << "-D applies to .tile specs; '" << inputName << "' is MLIR\n";
        return false;
      }
      module = mlir::parseSourceFile<mlir::ModuleOp>(sourceMgr, context.get());
    }
  }
  if (!module)
    return false;

  target = resolveTarget();
  if (target.empty())
    return false;
  bool hasKernel = false;
  module->walk([&](mlir::tile::KernelOp) { hasKernel = true; });
  if (!hasKernel) {
    WithColor::error(diag, "tilec")
        << "'" << inputName << "' defines no kernel\n";
    return false;
  }
  return true;
}

/// The target the module's kernels ask for, checked against the option.
std::string Compilation::resolveTarget() {
  std::string found;
  bool conflict = false;
  module->walk([&](mlir::tile::KernelOp kernel) {
    std::string t = kernel.getTargetName().str();
    if (!options.target.empty() && t != options.target) {
      kernel.emitError("kernel '") << kernel.getSymName() << "' targets " << t
                                   << " but --target is " << options.target;
      conflict = true;
    }
    found = t;
  });
  if (conflict)
    return {};
  if (!options.target.empty())
    return options.target;
  return found.empty() ? std::string(vocab::toString(vocab::kDefaultTarget))
                       : found;
}

bool Compilation::lower(
    mlir::TimingScope &timing,
    function_ref<mlir::LogicalResult(mlir::PassManager &)> configure) {
  mlir::TimingScope passTiming = timing.nest("tile passes + lowering");
  mlir::PassManager pm(context.get());
  if (configure && failed(configure(pm)))
    return false;
  pm.enableTiming(passTiming);
  // Verifying after every one of the ~14 passes cost a tenth of the compile
  // time; the IR is verified once after the last pass instead, and an error
  // there is the compiler's (the spec was verified when it was parsed).
  pm.enableVerifier(false);
  buildTileToLLVMPipeline(pm, /*verifyConversion=*/false, options.checkProtocol,
                          options.debugHangs);
  return succeeded(pm.run(*module)) &&
         succeeded(verifyAsInternalError(module->getOperation()));
}

bool Compilation::lowerForPicture(
    mlir::TimingScope &timing,
    function_ref<mlir::LogicalResult(mlir::PassManager &)> configure) {
  mlir::TimingScope passTiming = timing.nest("tile passes for the picture");
  mlir::PassManager pm(context.get());
  if (configure && failed(configure(pm)))
    return false;
  pm.enableTiming(passTiming);
  buildTilePicturePipeline(pm, options.checkProtocol);
  return succeeded(pm.run(*module));
}

bool Compilation::translate(mlir::TimingScope &timing) {
  bundle.target = target;
  bundle.producer = kBundleProducer;
  // A debug build must not pass for a normal one where bundles are kept.
  if (options.debugHangs)
    bundle.producer += " --debug-hangs";
  if (failed(
          extractKernelMetadata(*module, bundle.kernels, options.l2Promotion)))
    return false;
  mlir::TimingScope t = timing.nest("LLVM IR + optimisation");
  llvmModule = translateToLLVMIR(
      *module, llvmContext, target,
      options.optLevel == 0 ? 0 : std::min<unsigned>(options.llvmOptLevel, 3),
      options.llvmPasses);
  return llvmModule != nullptr;
}

bool Compilation::emitPtx(mlir::TimingScope &timing) {
  mlir::TimingScope t = timing.nest("NVPTX back end");
  unsigned codegen = options.codegenOptLevel == CompileOptions::kFollowOptLevel
                         ? options.optLevel
                         : std::min(options.codegenOptLevel, 3u);
  bundle.ptx = emitPTX(*llvmModule, target, codegen, module->getLoc());
  return !bundle.ptx.empty();
}

bool Compilation::assemble(mlir::TimingScope &timing) {
  mlir::TimingScope t = timing.nest("ptxas");
  std::string error;
  assembled = runPtxas(bundle.ptx, target, options.optLevel, error);
  if (!assembled) {
    WithColor::error(diag, "tilec") << error << "\n";
    return false;
  }
  for (const std::string &w : assembled->warnings)
    WithColor::warning(diag, "tilec") << w << "\n";
  if (!assembled->fatalWarnings.empty()) {
    bool allowed = options.allowSlowKernels || options.debugHangs;
    for (const std::string &w : assembled->fatalWarnings)
      (allowed ? WithColor::warning(diag, "tilec")
               : WithColor::error(diag, "tilec"))
          << w << "\n";
    if (options.debugHangs)
      WithColor::note(diag, "tilec")
          << "expected with --debug-hangs: the hang reports call vprintf\n";
    if (!allowed) {
      WithColor::note(diag, "tilec")
          << "these ptxas warnings mean a slow kernel; fix the spec or pass "
             "--allow-slow-kernels\n";
      return false;
    }
  }
  bundle.cubin = assembled->cubin;
  return true;
}

bool Compilation::validate() {
  std::string metadataError = bundle::validate(bundle);
  if (metadataError.empty())
    return true;
  WithColor::error(diag, "tilec")
      << "kernel metadata: " << metadataError << "\n";
  return false;
}

bool compileToBundle(StringRef spec, StringRef name,
                     const CompileOptions &options,
                     std::vector<uint8_t> &bundleBytes, raw_ostream &diag) {
  if (!checkCompileOptions(options, diag))
    return false;
  mlir::TimingScope timing;
  Compilation compilation(options, diag);
  if (!compilation.parse(MemoryBuffer::getMemBufferCopy(spec, name),
                         /*isMlir=*/false, timing) ||
      !compilation.lower(timing) || !compilation.translate(timing) ||
      !compilation.emitPtx(timing) || !compilation.assemble(timing) ||
      !compilation.validate())
    return false;
  std::string error;
  if (!bundle::serializeBundle(compilation.getBundle(), bundleBytes, error)) {
    WithColor::error(diag, "tilec") << error << "\n";
    return false;
  }
  return true;
}

} // namespace tilec

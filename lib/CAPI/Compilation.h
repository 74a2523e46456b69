//===- Compilation.h - one input's way from text to a bundle ----*- C++ -*-===//
//
// The one implementation of "spec -> bundle". `tilec` walks the steps and
// writes what --emit asks for between them; the C API (tilec_compile) and the
// kernel caches call compileToBundle. Every message goes to the stream given
// to the constructor, in the clang style tilec prints; nothing is printed
// elsewhere and nothing exits. One Compilation owns its MLIRContext, so
// several may run at once on different threads.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_CAPI_COMPILATION_H
#define TILEC_LIB_CAPI_COMPILATION_H

#include "lib/Target/Ptxas.h"
#include "tilec/bundle/Bundle.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"
#include "llvm/ADT/FunctionExtras.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mlir {
class SourceMgrDiagnosticHandler;
} // namespace mlir

namespace tilec {

/// How to compile; tilec's command-line options map onto these one to one.
struct CompileOptions {
  /// "sm_90a" or "sm_100a"; empty: the kernels' own target (else sm_90a).
  std::string target;
  /// `-D NAME=VALUE` overrides of the spec's params (.tile input only).
  std::vector<std::string> defines;
  /// -O: the NVPTX back end's level (unless codegenOptLevel says otherwise)
  /// and ptxas's.
  unsigned optLevel = 3;
  /// LLVM's IR pipeline level (tilec --llvm-opt); 0 runs none.
  unsigned llvmOptLevel = 0;
  /// An LLVM pass pipeline run instead of llvmOptLevel's (--llvm-passes).
  std::string llvmPasses;
  /// The NVPTX back end's level; kFollowOptLevel: optLevel.
  static constexpr unsigned kFollowOptLevel = ~0u;
  unsigned codegenOptLevel = kFollowOptLevel;
  /// ptxas's slow-kernel warnings stay warnings (--allow-slow-kernels).
  bool allowSlowKernels = false;
  /// Run tile-check-protocol (tilec --no-check-protocol turns it off).
  bool checkProtocol = true;
  /// Every barrier wait reports a hang and traps after ~4.3 s
  /// (tilec --debug-hangs, docs/protocol.md). Implies allowSlowKernels: the
  /// report calls vprintf, so ptxas ignores setmaxnreg and serialises wgmma.
  bool debugHangs = false;
  /// The L2 promotion every tensor map asks for (tilec --l2-promotion):
  /// 256-byte lines by default, DeepGEMM's choice
  /// (bench/results/2026-12-06-mqa-spread.md has the measurements so far).
  bundle::L2Promotion l2Promotion = bundle::L2Promotion::B256;
};

/// Checks the options that need no input (the -O level and the target name)
/// and prints what is wrong to `diag`.
bool checkCompileOptions(const CompileOptions &options,
                         llvm::raw_ostream &diag);

/// The producer string written into every bundle.
constexpr const char *kBundleProducer = "tilec 0.1";

/// One compilation. Call the steps in order; each returns false after
/// printing its errors, and then no later step may be called.
class Compilation {
public:
  Compilation(CompileOptions options, llvm::raw_ostream &diag);
  ~Compilation();
  Compilation(const Compilation &) = delete;
  Compilation &operator=(const Compilation &) = delete;

  /// Parses `input` (its identifier names the file in diagnostics) as a
  /// .tile spec, or as the tile dialect when `isMlir`, then resolves the
  /// target and checks that there is a kernel.
  bool parse(std::unique_ptr<llvm::MemoryBuffer> input, bool isMlir,
             mlir::TimingScope &timing);
  /// The tile passes and the lowering to the LLVM and NVVM dialects.
  /// `configure` may add instrumentation (tilec's --mlir-print-ir-*).
  bool lower(mlir::TimingScope &timing,
             llvm::function_ref<mlir::LogicalResult(mlir::PassManager &)>
                 configure = nullptr);
  /// Instead of lower(): the passes tilec --emit=svg draws the kernels
  /// after (buildTilePicturePipeline).
  bool lowerForPicture(
      mlir::TimingScope &timing,
      llvm::function_ref<mlir::LogicalResult(mlir::PassManager &)> configure =
          nullptr);
  /// Kernel metadata into the bundle, then LLVM IR (optimised as asked).
  bool translate(mlir::TimingScope &timing);
  /// PTX from LLVM's NVPTX back end into the bundle.
  bool emitPtx(mlir::TimingScope &timing);
  /// ptxas: the cubin into the bundle; its warnings are printed.
  bool assemble(mlir::TimingScope &timing);
  /// Checks the bundle's metadata (bundle::validate).
  bool validate();

  mlir::ModuleOp getModule() { return *module; }
  llvm::Module &getLLVMModule() { return *llvmModule; }
  const std::string &getTarget() const { return target; }
  const bundle::Bundle &getBundle() const { return bundle; }
  /// What ptxas reported; set after assemble().
  const std::optional<PtxasResult> &getPtxasResult() const { return assembled; }

private:
  std::string resolveTarget();

  CompileOptions options;
  llvm::raw_ostream &diag;
  std::string inputName;
  llvm::SourceMgr sourceMgr;
  std::unique_ptr<mlir::MLIRContext> context;
  std::unique_ptr<mlir::SourceMgrDiagnosticHandler> diagHandler;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule;
  std::string target;
  bundle::Bundle bundle;
  std::optional<PtxasResult> assembled;
};

/// Compiles spec text (`name` is used in diagnostics' file:line:col) all the
/// way to serialised bundle bytes. Returns false after printing the errors to
/// `diag`; warnings are printed there too.
bool compileToBundle(llvm::StringRef spec, llvm::StringRef name,
                     const CompileOptions &options,
                     std::vector<uint8_t> &bundleBytes,
                     llvm::raw_ostream &diag);

} // namespace tilec

#endif // TILEC_LIB_CAPI_COMPILATION_H

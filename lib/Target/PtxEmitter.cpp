//===- PtxEmitter.cpp - LLVM dialect to PTX with LLVM's NVPTX back end ---===//

#include "lib/Target/PtxEmitter.h"

#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Triple.h"

using namespace llvm;

static constexpr StringLiteral kTriple = "nvptx64-nvidia-cuda";

StringRef tilec::getPtxFeature(StringRef target) {
  // PTX 8.8: tcgen05 (sm_100a) and everything sm_90a needs; CUDA 13.0's
  // ptxas reads up to 9.0.
  (void)target;
  return "+ptx88";
}

static std::unique_ptr<TargetMachine> createTargetMachine(StringRef target,
                                                          int optLevel,
                                                          std::string &error) {
  static bool initialized = [] {
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
    return true;
  }();
  (void)initialized;
  Triple triple(kTriple);
  const Target *t = TargetRegistry::lookupTarget(triple, error);
  if (!t)
    return nullptr;
  CodeGenOptLevel level = optLevel <= 0   ? CodeGenOptLevel::None
                          : optLevel == 1 ? CodeGenOptLevel::Less
                          : optLevel == 2 ? CodeGenOptLevel::Default
                                          : CodeGenOptLevel::Aggressive;
  return std::unique_ptr<TargetMachine>(t->createTargetMachine(
      triple, target, tilec::getPtxFeature(target), TargetOptions(),
      std::nullopt, std::nullopt, level));
}

std::unique_ptr<Module> tilec::translateToLLVMIR(mlir::ModuleOp module,
                                                 LLVMContext &context,
                                                 StringRef target,
                                                 int optLevel,
                                                 StringRef passes) {
  std::unique_ptr<Module> llvmModule =
      mlir::translateModuleToLLVMIR(module, context, "tilec");
  if (!llvmModule) {
    module.emitError("translation to LLVM IR failed");
    return nullptr;
  }
  std::string error;
  std::unique_ptr<TargetMachine> tm =
      createTargetMachine(target, optLevel, error);
  if (!tm) {
    module.emitError("cannot create the NVPTX target: ") << error;
    return nullptr;
  }
  llvmModule->setTargetTriple(Triple(kTriple));
  llvmModule->setDataLayout(tm->createDataLayout());
  if (optLevel <= 0 && passes.empty())
    return llvmModule;

  LoopAnalysisManager lam;
  FunctionAnalysisManager fam;
  CGSCCAnalysisManager cgam;
  ModuleAnalysisManager mam;
  PassBuilder pb(tm.get());
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  ModulePassManager mpm;
  if (!passes.empty()) {
    if (Error err = pb.parsePassPipeline(mpm, passes)) {
      module.emitError("bad LLVM pass pipeline '")
          << passes << "': " << toString(std::move(err));
      return nullptr;
    }
  } else {
    OptimizationLevel level = optLevel == 1   ? OptimizationLevel::O1
                              : optLevel == 2 ? OptimizationLevel::O2
                                              : OptimizationLevel::O3;
    mpm = pb.buildPerModuleDefaultPipeline(level);
  }
  mpm.run(*llvmModule, mam);
  return llvmModule;
}

std::string tilec::emitPTX(Module &module, StringRef target, int optLevel,
                           mlir::Location errorLoc) {
  std::string error;
  std::unique_ptr<TargetMachine> tm =
      createTargetMachine(target, optLevel, error);
  if (!tm) {
    mlir::emitError(errorLoc, "cannot create the NVPTX target: ") << error;
    return {};
  }
  std::string ptx;
  {
    raw_string_ostream os(ptx);
    buffer_ostream bos(os);
    legacy::PassManager pm;
    if (tm->addPassesToEmitFile(pm, bos, nullptr,
                                CodeGenFileType::AssemblyFile)) {
      mlir::emitError(errorLoc, "the NVPTX back end cannot emit PTX for ")
          << target;
      return {};
    }
    pm.run(module);
  }
  return ptx;
}

//===- PtxEmitter.h - LLVM dialect to PTX with LLVM's NVPTX back end -----===//

#ifndef TILEC_LIB_TARGET_PTXEMITTER_H
#define TILEC_LIB_TARGET_PTXEMITTER_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

#include <memory>
#include <string>

namespace tilec {

/// Translates a module in the LLVM and NVVM dialects to LLVM IR for the
/// NVPTX target `target` (sm_90a, sm_100a), optimised at `optLevel` (0-3).
/// Errors are reported on the module's diagnostics.
/// `passes`, when not empty, is an LLVM pass pipeline (opt's -passes syntax)
/// run instead of the default pipeline of `optLevel`.
std::unique_ptr<llvm::Module> translateToLLVMIR(mlir::ModuleOp module,
                                                llvm::LLVMContext &context,
                                                llvm::StringRef target,
                                                int optLevel,
                                                llvm::StringRef passes = "");

/// PTX text for `module` (the result of translateToLLVMIR), or an empty
/// string after reporting an error on `errorLoc`.
std::string emitPTX(llvm::Module &module, llvm::StringRef target,
                    int optLevel, mlir::Location errorLoc);

/// The PTX ISA version tilec emits for `target` (e.g. "ptx88").
llvm::StringRef getPtxFeature(llvm::StringRef target);

} // namespace tilec

#endif // TILEC_LIB_TARGET_PTXEMITTER_H

//===- TileDslFuzzer.cpp - libFuzzer target over the tile DSL front end --===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//
//
// Feeds arbitrary bytes to parseTileSpec and prints what it builds. The front
// end must report bad input, never crash, hang or trip a sanitizer. Lines
// that start with `#!D NAME=VALUE` set params, as -D does; `#!target X` sets
// the target, so the corpus reaches those paths too.
//
//===----------------------------------------------------------------------===//

#include "lib/Frontend/Frontend.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstddef>
#include <cstdint>
#include <memory>

/// LLVM's headers poison the slabs of a BumpPtrAllocator when they are
/// compiled with ASan, but the prebuilt LLVM/MLIR libraries that allocate
/// from those slabs are not instrumented and never unpoison them. Ignore
/// manual poisoning so that the two halves agree.
extern "C" const char *__asan_default_options() {
  return "allow_user_poisoning=0";
}

/// One context for many inputs (loading dialects is slow), renewed now and
/// then so that uniqued attributes do not pile up.
static mlir::MLIRContext &getContext() {
  static std::unique_ptr<mlir::MLIRContext> context;
  static unsigned uses = 0;
  if (!context || ++uses % 2000 == 0)
    context = std::make_unique<mlir::MLIRContext>(
        mlir::MLIRContext::Threading::DISABLED);
  return *context;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  tilec::FrontendOptions options;
  options.diagnosticStream = &llvm::nulls();
  for (llvm::StringRef rest = text; !rest.empty();) {
    auto [line, next] = rest.split('\n');
    rest = next;
    std::string error;
    if (line.consume_front("#!D "))
      tilec::parseDefine(line, options, error);
    else if (line.consume_front("#!target "))
      options.target = line.trim().str();
  }

  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(text, "fuzz.tile"), llvm::SMLoc());
  mlir::OwningOpRef<mlir::ModuleOp> module =
      tilec::parseTileSpec(sourceMgr, getContext(), options);
  if (module) {
    std::string printed;
    llvm::raw_string_ostream os(printed);
    module->print(os);
  }
  return 0;
}

//===- tile-dsl.cpp - .tile spec -> tile dialect, for tests --------------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//
//
// Reads a tile DSL spec and prints the tile dialect it becomes (verified).
// The test tool of lib/Frontend; `tilec file.tile` uses the same
// parseTileSpec.
//
//   tile-dsl gemm.tile -D BLK_N=128 --target=sm_90a
//   tile-dsl --split-input-file diagnostics.tile   (chunks split at '# -----')
//
// Several files may be given; each is parsed on its own. Exit status 1 when
// any file or chunk has an error; nothing is written then.
//
//===----------------------------------------------------------------------===//

#include "lib/Frontend/Frontend.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

namespace cl = llvm::cl;

static cl::list<std::string> inputFilenames(cl::Positional,
                                            cl::desc("<input .tile files>"));
static cl::opt<std::string> outputFilename("o", cl::desc("Output file"),
                                           cl::value_desc("filename"),
                                           cl::init("-"));
static cl::list<std::string> defines("D", cl::Prefix,
                                     cl::desc("Set a param of the spec"),
                                     cl::value_desc("NAME=VALUE"));
static cl::opt<std::string>
    target("target",
           cl::desc("GPU target: sm_90a or sm_100a (default: each kernel's "
                    "target clause, else sm_90a)"),
           cl::init(""));
static cl::opt<bool> splitInputFile(
    "split-input-file",
    cl::desc("Split the input at lines starting with '# -----' and process "
             "each chunk on its own"),
    cl::init(false));
static cl::opt<unsigned> errorLimit("error-limit",
                                    cl::desc("Stop after this many errors"),
                                    cl::init(20));

/// The chunks of `text` between `# -----` lines; each is padded with the
/// newlines before it so that line numbers stay those of the whole file.
static std::vector<std::string> splitChunks(llvm::StringRef text) {
  std::vector<std::string> chunks;
  std::string current;
  unsigned lineNumber = 0, chunkStartLine = 0;
  while (!text.empty()) {
    auto [line, rest] = text.split('\n');
    bool hadNewline = text.size() != line.size();
    text = rest;
    if (line.starts_with("# -----")) {
      chunks.push_back(std::string(chunkStartLine, '\n') + current);
      current.clear();
      chunkStartLine = lineNumber + 1;
    } else {
      current += line.str();
      if (hadNewline)
        current += '\n';
    }
    ++lineNumber;
  }
  chunks.push_back(std::string(chunkStartLine, '\n') + current);
  return chunks;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  mlir::registerAsmPrinterCLOptions();
  mlir::registerMLIRContextCLOptions();
  cl::ParseCommandLineOptions(argc, argv,
                              "tile DSL front end: .tile spec -> tile "
                              "dialect\n");

  tilec::FrontendOptions options;
  options.target = target;
  options.errorLimit = errorLimit;
  for (const std::string &define : defines) {
    std::string error;
    if (!tilec::parseDefine(define, options, error)) {
      llvm::errs() << "tile-dsl: error: " << error << "\n";
      return 1;
    }
  }

  if (inputFilenames.empty())
    inputFilenames.push_back("-");
  bool failed = false;
  bool first = true;
  std::string errorMessage;
  std::string output;
  llvm::raw_string_ostream os(output);
  for (const std::string &inputFilename : inputFilenames) {
    std::unique_ptr<llvm::MemoryBuffer> input =
        mlir::openInputFile(inputFilename, &errorMessage);
    if (!input) {
      llvm::errs() << "tile-dsl: error: " << errorMessage << "\n";
      failed = true;
      continue;
    }
    llvm::StringRef identifier = input->getBufferIdentifier();
    std::vector<std::string> chunks;
    if (splitInputFile)
      chunks = splitChunks(input->getBuffer());
    else
      chunks.push_back(input->getBuffer().str());
    for (const std::string &chunk : chunks) {
      llvm::SourceMgr sourceMgr;
      sourceMgr.AddNewSourceBuffer(
          llvm::MemoryBuffer::getMemBufferCopy(chunk, identifier),
          llvm::SMLoc());
      mlir::MLIRContext context;
      mlir::OwningOpRef<mlir::ModuleOp> module =
          tilec::parseTileSpec(sourceMgr, context, options);
      if (!module) {
        failed = true;
        continue;
      }
      if (!first)
        os << "// -----\n";
      first = false;
      module->print(os, mlir::OpPrintingFlags());
      os << "\n";
    }
  }
  if (failed)
    return 1;

  std::unique_ptr<llvm::ToolOutputFile> outputFile =
      mlir::openOutputFile(outputFilename, &errorMessage);
  if (!outputFile) {
    llvm::errs() << "tile-dsl: error: " << errorMessage << "\n";
    return 1;
  }
  outputFile->os() << output;
  outputFile->keep();
  return 0;
}

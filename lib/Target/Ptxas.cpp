//===- Ptxas.cpp - run ptxas and read its resource report ----------------===//

#include "lib/Target/Ptxas.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

std::string tilec::findPtxas() {
  if (const char *env = std::getenv("TILEC_PTXAS"))
    if (sys::fs::can_execute(env))
      return env;
  if (ErrorOr<std::string> found = sys::findProgramByName("ptxas"))
    return *found;
  SmallVector<std::string> dirs;
  if (const char *home = std::getenv("CUDA_HOME"))
    dirs.push_back(std::string(home) + "/bin");
  dirs.push_back("/usr/local/cuda/bin");
  for (const std::string &dir : dirs) {
    SmallString<256> path(dir);
    sys::path::append(path, "ptxas");
    if (sys::fs::can_execute(path))
      return std::string(path);
  }
  return {};
}

void tilec::parsePtxasLog(StringRef log, PtxasResult &result) {
  Regex entry("Compiling entry function '([^']+)'");
  Regex frame("([0-9]+) bytes stack frame, ([0-9]+) bytes spill stores, "
              "([0-9]+) bytes spill loads");
  Regex used("Used ([0-9]+) registers");
  Regex barriers("used ([0-9]+) barriers");
  Regex smem("([0-9]+) bytes smem");
  SmallVector<StringRef> lines;
  log.split(lines, '\n');
  KernelResources *current = nullptr;
  for (StringRef line : lines) {
    SmallVector<StringRef> m;
    if (entry.match(line, &m)) {
      result.kernels.push_back({});
      current = &result.kernels.back();
      current->name = m[1].str();
      continue;
    }
    // Both mean a slow kernel: setmaxnreg ignored (C7508, C7506 with
    // calls) or wgmma serialised, which ptxas reports as an info line
    // (C7514 and its kin, "Potential Performance Loss").
    if (line.contains("C7508") || line.contains("C7506") ||
        line.contains("wgmma.mma_async instructions are serialized")) {
      result.fatalWarnings.push_back(line.trim().str());
      continue;
    }
    if (line.contains("warning")) {
      result.warnings.push_back(line.trim().str());
      continue;
    }
    if (!current)
      continue;
    if (frame.match(line, &m)) {
      m[1].getAsInteger(10, current->stackFrameBytes);
      m[2].getAsInteger(10, current->spillStoreBytes);
      m[3].getAsInteger(10, current->spillLoadBytes);
    }
    if (used.match(line, &m))
      m[1].getAsInteger(10, current->registers);
    if (barriers.match(line, &m))
      m[1].getAsInteger(10, current->barriers);
    if (smem.match(line, &m))
      m[1].getAsInteger(10, current->sharedBytes);
  }
}

std::optional<tilec::PtxasResult>
tilec::runPtxas(StringRef ptx, StringRef target, int optLevel,
                std::string &error) {
  std::string ptxas = findPtxas();
  if (ptxas.empty()) {
    error = "ptxas not found: install the CUDA toolkit, put ptxas on PATH, "
            "or set TILEC_PTXAS or CUDA_HOME";
    return std::nullopt;
  }
  SmallString<128> ptxPath, cubinPath, logPath;
  int fd;
  if (sys::fs::createTemporaryFile("tilec", "ptx", fd, ptxPath) ||
      sys::fs::createTemporaryFile("tilec", "cubin", cubinPath) ||
      sys::fs::createTemporaryFile("tilec", "log", logPath)) {
    error = "cannot create temporary files for ptxas";
    return std::nullopt;
  }
  {
    raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << ptx;
  }
  scope_exit cleanup([&] {
    sys::fs::remove(ptxPath);
    sys::fs::remove(cubinPath);
    sys::fs::remove(logPath);
  });
  std::string arch = ("-arch=" + target).str();
  std::string opt = "-O" + std::to_string(std::clamp(optLevel, 0, 3));
  SmallVector<StringRef> args = {ptxas, arch, opt, "-v", "--warn-on-spills",
                                 ptxPath, "-o", cubinPath};
  std::optional<StringRef> redirects[] = {std::nullopt, StringRef(logPath),
                                          StringRef(logPath)};
  std::string execError;
  int rc = sys::ExecuteAndWait(ptxas, args, std::nullopt, redirects, 0, 0,
                               &execError);
  PtxasResult result;
  if (auto log = MemoryBuffer::getFile(logPath))
    result.log = (*log)->getBuffer().str();
  if (rc != 0) {
    error = "ptxas failed";
    if (!execError.empty())
      error += ": " + execError;
    if (!result.log.empty())
      error += ":\n" + result.log;
    return std::nullopt;
  }
  auto cubin = MemoryBuffer::getFile(cubinPath, /*IsText=*/false);
  if (!cubin) {
    error = "ptxas wrote no cubin";
    return std::nullopt;
  }
  StringRef bytes = (*cubin)->getBuffer();
  result.cubin.assign(bytes.begin(), bytes.end());
  parsePtxasLog(result.log, result);
  return result;
}

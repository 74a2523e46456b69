//===- CApi.cpp - the C API of libtilec_compiler.so ----------------------===//
//
// Argument checks and the translation between the C structs and the C++
// of Compilation, KernelConfigs and KernelCache. Every bad argument is named
// in the message (request.opt_level, problem.a_dtype, sm_count, ...).
//
//===----------------------------------------------------------------------===//

#include "tilec/tilec_compiler.h"

#include "lib/CAPI/Compilation.h"
#include "lib/CAPI/DiskCache.h"
#include "lib/CAPI/KernelCache.h"
#include "lib/Frontend/Frontend.h"
#include "lib/Kernels/KernelConfigs.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cstdlib>
#include <cstring>

using namespace llvm;
using namespace tilec;

// The structs are the ABI ctypes mirrors: a change of size means a new
// TILEC_COMPILER_API_VERSION (fields are only ever appended).
static_assert(sizeof(tilec_compile_request) == 64, "tilec_compile_request");
static_assert(sizeof(tilec_compile_result) == 40, "tilec_compile_result");
static_assert(sizeof(tilec_gemm_problem) == 72, "tilec_gemm_problem");
static_assert(sizeof(tilec_kernel_info) == 768, "tilec_kernel_info");

namespace {

thread_local std::string lastError;

tilec_compiler_status fail(tilec_compiler_status status, std::string message) {
  lastError = std::move(message);
  return status;
}

/// A malloc'ed, NUL-terminated copy (C callers free it through the API).
char *copyToMalloc(StringRef text) {
  char *out = static_cast<char *>(std::malloc(text.size() + 1));
  if (out) {
    std::memcpy(out, text.data(), text.size());
    out[text.size()] = 0;
  }
  return out;
}

template <size_t N> void copyString(char (&out)[N], StringRef text) {
  size_t n = std::min(text.size(), N - 1);
  std::memcpy(out, text.data(), n);
  out[n] = 0;
}

std::string familyList() {
  SmallVector<StringRef> names;
  for (const kernels::KernelFamily &family : kernels::kernelFamilies())
    names.push_back(family.name);
  return join(names, ", ");
}

tilec_compiler_status findFamily(const char *name,
                                 const kernels::KernelFamily *&family) {
  if (!name)
    return fail(TILEC_COMPILER_ERROR_INVALID_ARGUMENT,
                "family is NULL; use one of " + familyList());
  family = kernels::findKernelFamily(name);
  if (!family)
    return fail(TILEC_COMPILER_ERROR_INVALID_ARGUMENT,
                formatv("family '{0}' is not a kernel family; use one of {1}",
                        name, familyList()));
  return TILEC_COMPILER_OK;
}

tilec_compiler_status parseDtype(const char *field, const char *text,
                                 vocab::ElementType fallback,
                                 vocab::ElementType &type) {
  if (!text) {
    type = fallback;
    return TILEC_COMPILER_OK;
  }
  std::optional<vocab::ElementType> parsed = vocab::parseElementType(text);
  if (!parsed) {
    SmallVector<std::string> names;
    for (const vocab::ElementTypeInfo &info : vocab::kElementTypes)
      names.push_back(std::string(info.name));
    return fail(TILEC_COMPILER_ERROR_INVALID_ARGUMENT,
                formatv("problem.{0} '{1}' is not an element type; use {2}",
                        field, text, join(names, ", ")));
  }
  type = *parsed;
  return TILEC_COMPILER_OK;
}

/// The C problem as lib/Kernels sees it; dtypes the caller left NULL take
/// the family's defaults.
tilec_compiler_status readProblem(const kernels::KernelFamily &family,
                                  const tilec_gemm_problem *problem,
                                  kernels::GemmProblem &out) {
  if (!problem)
    return fail(TILEC_COMPILER_ERROR_INVALID_ARGUMENT, "problem is NULL");
  if (problem->reserved || problem->reserved2)
    return fail(TILEC_COMPILER_ERROR_INVALID_ARGUMENT,
                problem->reserved ? "problem.reserved must be 0"
                                  : "problem.reserved2 must be 0");
  out.numGroups = problem->num_groups;
  out.groupLayout = problem->group_layout;
  out.mkAlignment = problem->mk_alignment ? problem->mk_alignment : 128;
  out.m = problem->m;
  out.n = problem->n;
  out.k = problem->k;
  out.accumulate = problem->accumulate != 0;
  vocab::ElementType input = kernels::defaultInputType(family);
  if (tilec_compiler_status s =
          parseDtype("a_dtype", problem->a_dtype, input, out.a))
    return s;
  if (tilec_compiler_status s =
          parseDtype("b_dtype", problem->b_dtype, input, out.b))
    return s;
  return parseDtype("d_dtype", problem->d_dtype, vocab::ElementType::BF16,
                    out.d);
}

/// The family and problem arguments of the kernel-library calls.
tilec_compiler_status readRequest(const char *familyName,
                                  const tilec_gemm_problem *problem,
                                  const kernels::KernelFamily *&family,
                                  kernels::GemmProblem &gemm) {
  if (tilec_compiler_status s = findFamily(familyName, family))
    return s;
  return readProblem(*family, problem, gemm);
}

void fillInfo(const kernels::KernelConfig &config, StringRef key,
              StringRef params, tilec_kernel_info &info) {
  std::memset(&info, 0, sizeof(info));
  copyString(info.family, config.family->name);
  copyString(info.target, config.target);
  copyString(info.key, key);
  copyString(info.params, params);
  copyString(info.reason, config.reason);
  copyString(info.kernel_name, kernels::familyKernelName(*config.family));
  info.block_m = static_cast<int32_t>(config.blockM);
  info.block_n = static_cast<int32_t>(config.blockN);
  info.block_k = static_cast<int32_t>(config.blockK);
  info.stages = static_cast<int32_t>(config.stages);
  info.threads = config.threads;
  for (int i = 0; i < 3; ++i) {
    info.cluster[i] = config.cluster[i];
    info.grid[i] = config.grid[i];
  }
  info.num_tiles = static_cast<uint32_t>(config.numTiles);
  info.shared_bytes = static_cast<uint32_t>(config.sharedBytes);
}

} // namespace

extern "C" {

const char *tilec_compiler_version(void) { return compilerVersion(); }

const char *tilec_compiler_status_name(tilec_compiler_status status) {
  switch (status) {
  case TILEC_COMPILER_OK:
    return "TILEC_COMPILER_OK";
  case TILEC_COMPILER_ERROR_INVALID_ARGUMENT:
    return "TILEC_COMPILER_ERROR_INVALID_ARGUMENT";
  case TILEC_COMPILER_ERROR_COMPILE:
    return "TILEC_COMPILER_ERROR_COMPILE";
  case TILEC_COMPILER_ERROR_CACHE:
    return "TILEC_COMPILER_ERROR_CACHE";
  case TILEC_COMPILER_ERROR_INTERNAL:
    return "TILEC_COMPILER_ERROR_INTERNAL";
  case TILEC_COMPILER_NOT_CACHED:
    return "TILEC_COMPILER_NOT_CACHED";
  }
  return "unknown tilec_compiler_status";
}

const char *tilec_compiler_last_error(void) { return lastError.c_str(); }

tilec_compiler_status tilec_compile(const tilec_compile_request *request,
                                    tilec_compile_result *result) {
  if (!result)
    return fail(TILEC_COMPILER_ERROR_INVALID_ARGUMENT, "result is NULL");
  std::memset(result, 0, sizeof(*result));
  std::string diagnostics;
  auto finish = [&](tilec_compiler_status status, std::string message) {
    if (!message.empty())
      diagnostics += "tilec: error: " + message + "\n";
    result->diagnostics = copyToMalloc(diagnostics);
    result->diagnostics_size = diagnostics.size();
    if (status != TILEC_COMPILER_OK)
      lastError = message.empty() ? diagnostics : message;
    return status;
  };
  if (!request)
    return finish(TILEC_COMPILER_ERROR_INVALID_ARGUMENT, "request is NULL");
  if (!request->spec)
    return finish(TILEC_COMPILER_ERROR_INVALID_ARGUMENT,
                  "request.spec is NULL");
  if (request->opt_level < 0 || request->opt_level > 3)
    return finish(TILEC_COMPILER_ERROR_INVALID_ARGUMENT,
                  formatv("request.opt_level must be 0 to 3, got {0}",
                          request->opt_level));
  CompileOptions options;
  if (request->target && *request->target) {
    if (!vocab::parseTarget(request->target))
      return finish(TILEC_COMPILER_ERROR_INVALID_ARGUMENT,
                    formatv("request.target '{0}' is not a target; use {1}",
                            request->target,
                            vocab::listSpellings(vocab::kAllTargets)));
    options.target = request->target;
  }
  if (request->num_defines && !request->defines)
    return finish(TILEC_COMPILER_ERROR_INVALID_ARGUMENT,
                  formatv("request.defines is NULL with num_defines {0}",
                          request->num_defines));
  for (size_t i = 0; i < request->num_defines; ++i) {
    const char *define = request->defines[i];
    FrontendOptions scratch;
    std::string error;
    if (!define)
      return finish(TILEC_COMPILER_ERROR_INVALID_ARGUMENT,
                    formatv("request.defines[{0}] is NULL", i));
    if (!parseDefine(define, scratch, error))
      return finish(TILEC_COMPILER_ERROR_INVALID_ARGUMENT,
                    formatv("request.defines[{0}]: {1}", i, error));
    options.defines.push_back(define);
  }
  options.optLevel = static_cast<unsigned>(request->opt_level);
  options.allowSlowKernels = request->allow_slow_kernels != 0;
  options.debugHangs = request->debug_hangs != 0;

  StringRef spec = request->spec_size
                       ? StringRef(request->spec, request->spec_size)
                       : StringRef(request->spec);
  StringRef name = request->spec_name ? request->spec_name : "<spec>";
  std::vector<uint8_t> bytes;
  raw_string_ostream diag(diagnostics);
  auto start = std::chrono::steady_clock::now();
  bool ok = compileToBundle(spec, name, options, bytes, diag);
  result->compile_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  if (!ok)
    return finish(TILEC_COMPILER_ERROR_COMPILE, {});
  result->bundle = static_cast<uint8_t *>(std::malloc(bytes.size()));
  if (!result->bundle)
    return finish(TILEC_COMPILER_ERROR_INTERNAL, "out of memory");
  std::memcpy(result->bundle, bytes.data(), bytes.size());
  result->bundle_size = bytes.size();
  return finish(TILEC_COMPILER_OK, {});
}

void tilec_compile_result_free(tilec_compile_result *result) {
  if (!result)
    return;
  std::free(result->bundle);
  std::free(result->diagnostics);
  std::memset(result, 0, sizeof(*result));
}

size_t tilec_num_kernel_families(void) {
  return kernels::kernelFamilies().size();
}

const char *tilec_kernel_family_name(size_t index) {
  ArrayRef<kernels::KernelFamily> families = kernels::kernelFamilies();
  return index < families.size() ? families[index].name.data() : nullptr;
}

tilec_compiler_status
tilec_kernel_family_spec(const char *family, const char **text, size_t *size) {
  const kernels::KernelFamily *found = nullptr;
  if (tilec_compiler_status s = findFamily(family, found))
    return s;
  if (!text || !size)
    return fail(TILEC_COMPILER_ERROR_INVALID_ARGUMENT,
                !text ? "text is NULL" : "size is NULL");
  StringRef spec = kernels::familySpec(*found);
  *text = spec.data();
  *size = spec.size();
  return TILEC_COMPILER_OK;
}

tilec_compiler_status tilec_kernel_config(const char *family,
                                          const tilec_gemm_problem *problem,
                                          int32_t sm_count, const char *target,
                                          tilec_kernel_info *info) {
  const kernels::KernelFamily *found = nullptr;
  kernels::GemmProblem gemm;
  if (tilec_compiler_status s = readRequest(family, problem, found, gemm))
    return s;
  if (!info)
    return fail(TILEC_COMPILER_ERROR_INVALID_ARGUMENT, "info is NULL");
  kernels::KernelConfig config;
  std::string error = kernels::chooseConfig(*found, gemm, sm_count,
                                            target ? target : "", config);
  if (!error.empty())
    return fail(TILEC_COMPILER_ERROR_INVALID_ARGUMENT, error);
  fillInfo(config, kernels::kernelKey(config, compilerVersion()),
           kernels::configParamString(config), *info);
  return TILEC_COMPILER_OK;
}

tilec_compiler_status
tilec_get_kernel(const char *family, const tilec_gemm_problem *problem,
                 int32_t sm_count, const char *target, const uint8_t **bundle,
                 size_t *bundle_size, tilec_kernel_info *info) {
  return tilec_get_kernel_ex(family, problem, sm_count, target, 0, bundle,
                             bundle_size, info);
}

tilec_compiler_status tilec_get_kernel_ex(const char *family,
                                          const tilec_gemm_problem *problem,
                                          int32_t sm_count, const char *target,
                                          int32_t flags, const uint8_t **bundle,
                                          size_t *bundle_size,
                                          tilec_kernel_info *info) {
  if (flags & ~(TILEC_KERNEL_QUICK | TILEC_KERNEL_CACHED_ONLY))
    return fail(
        TILEC_COMPILER_ERROR_INVALID_ARGUMENT,
        formatv("flags {0:x} has bits that are no tilec_kernel_flags", flags)
            .str());
  const kernels::KernelFamily *found = nullptr;
  kernels::GemmProblem gemm;
  if (tilec_compiler_status s = readRequest(family, problem, found, gemm))
    return s;
  if (!bundle || !bundle_size)
    return fail(TILEC_COMPILER_ERROR_INVALID_ARGUMENT,
                !bundle ? "bundle is NULL" : "bundle_size is NULL");
  KernelLookup lookup;
  std::string error;
  if (tilec_compiler_status s = KernelCache::instance().get(
          *found, gemm, sm_count, target ? target : "", flags, lookup, error))
    return s == TILEC_COMPILER_NOT_CACHED ? s : fail(s, error);
  const CachedKernel &kernel = *lookup.kernel;
  *bundle = kernel.bundle.data();
  *bundle_size = kernel.bundle.size();
  if (info) {
    const ProblemEntry &entry = *lookup.problem;
    fillInfo(entry.config, entry.key, entry.params, *info);
    // The compiled kernel's own facts win over the config's.
    copyString(info->kernel_name, kernel.kernelName);
    info->threads = kernel.threads;
    for (int i = 0; i < 3; ++i)
      info->cluster[i] = kernel.cluster[i];
    info->shared_bytes = static_cast<uint32_t>(kernel.sharedBytes);
    info->source = lookup.source;
    info->seconds = lookup.seconds;
  }
  return TILEC_COMPILER_OK;
}

const char *tilec_cache_dir(void) {
  thread_local std::string dir;
  std::string error;
  dir = cacheDirFromEnvironment(error);
  return dir.c_str();
}

void tilec_clear_memory_cache(void) { KernelCache::instance().clearMemory(); }

} // extern "C"

//===- tilec-precompile.cpp - a model's kernels, compiled ahead of time --===//
//
// Reads lists of GEMMs (family, N, K, dtypes, an M range), works out every
// distinct kernel configuration over the M ranges with the kernel library's
// config functions, and compiles them in parallel into the disk cache that
// tilec_get_kernel (and so the Python package) reads. It uses only the C
// API of libtilec_compiler.so. docs/capi.md describes the list format.
//
//===----------------------------------------------------------------------===//

#include "tilec/tilec_compiler.h"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr const char *kUsage =
    "usage: tilec-precompile [options] LIST...\n"
    "\n"
    "Compiles every kernel the GEMMs in LIST need, for every M of their\n"
    "ranges, into the kernel cache ($TILEC_CACHE_DIR, else ~/.cache/tilec).\n"
    "A LIST line is  FAMILY N K DTYPES M [OPTION...]  with DTYPES 'A,B,D'\n"
    "(or '-' for the family's), M a number or a range LO-HI and each OPTION\n"
    "'accumulate' or, for the M-grouped families, 'groups=G',\n"
    "'layout=contiguous|psum|masked' or 'alignment=N' (M is then the rows\n"
    "over all groups); '#' starts a comment.\n"
    "\n"
    "options:\n"
    "  -j N, --jobs N     compile N kernels at once (default: the cores)\n"
    "  --cache-dir DIR    the cache to fill (sets TILEC_CACHE_DIR)\n"
    "  --sm-count N       the GPU's SM count (default 132, an H100/H200)\n"
    "  --target TARGET    sm_90a (the default)\n"
    "  --list             print the distinct kernels; compile nothing\n"
    "  -v                 print each kernel as it is done\n"
    "\n"
    "One bundle holds one module (one cubin), so the kernels go to the cache\n"
    "directory, one file each; copy that directory to ship them.\n";

struct Gemm {
  std::string where; ///< "file:line" for messages
  std::string family;
  int64_t n = 0, k = 0, mLow = 0, mHigh = 0;
  std::string a, b, d; ///< empty: the family's default
  bool accumulate = false;
  int32_t groups = 0, groupLayout = 0, alignment = 0; ///< M-grouped only
};

/// A distinct kernel and the first problem that needs it.
struct Kernel {
  std::string family;
  std::string a, b, d;
  tilec_gemm_problem problem{};
  tilec_kernel_info config{};
  std::string firstUse;
  tilec_compiler_status status = TILEC_COMPILER_OK;
  std::string error;
  tilec_kernel_info done{};
};

bool parseInt(const std::string &text, int64_t &value) {
  if (text.empty())
    return false;
  char *end = nullptr;
  long long v = std::strtoll(text.c_str(), &end, 10);
  value = v;
  return *end == 0;
}

bool fail(const std::string &message) {
  std::fprintf(stderr, "tilec-precompile: error: %s\n", message.c_str());
  return false;
}

/// One OPTION word of a list line into `g`; false if it is none.
bool parseOption(const std::string &word, Gemm &g) {
  if (word == "accumulate") {
    g.accumulate = true;
    return true;
  }
  size_t equals = word.find('=');
  if (equals == std::string::npos)
    return false;
  std::string name = word.substr(0, equals), value = word.substr(equals + 1);
  int64_t number = 0;
  if (name == "layout") {
    static const char *const kLayouts[] = {"contiguous", "psum", "masked"};
    for (int32_t i = 0; i < 3; ++i)
      if (value == kLayouts[i]) {
        g.groupLayout = i;
        return true;
      }
    return false;
  }
  if (!parseInt(value, number) || number <= 0 || number > INT32_MAX)
    return false;
  if (name == "groups")
    g.groups = static_cast<int32_t>(number);
  else if (name == "alignment")
    g.alignment = static_cast<int32_t>(number);
  else
    return false;
  return true;
}

/// Reads one list file into `gemms`.
bool readList(const std::string &path, std::vector<Gemm> &gemms) {
  std::ifstream in(path);
  if (!in)
    return fail("cannot read '" + path + "'");
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    line = line.substr(0, line.find('#'));
    std::istringstream words(line);
    std::vector<std::string> w;
    for (std::string word; words >> word;)
      w.push_back(word);
    if (w.empty())
      continue;
    Gemm g;
    g.where = path + ":" + std::to_string(number);
    if (w.size() < 5)
      return fail(g.where +
                  ": expected 'FAMILY N K DTYPES M [OPTION...]', "
                  "got " +
                  std::to_string(w.size()) + " words");
    g.family = w[0];
    if (!parseInt(w[1], g.n) || !parseInt(w[2], g.k))
      return fail(g.where + ": N and K must be integers, got '" + w[1] +
                  "' and '" + w[2] + "'");
    if (w[3] != "-") {
      std::stringstream types(w[3]);
      std::getline(types, g.a, ',');
      std::getline(types, g.b, ',');
      std::getline(types, g.d, ',');
      if (g.a.empty() || g.b.empty() || g.d.empty())
        return fail(g.where +
                    ": DTYPES must be 'A,B,D' (e.g. "
                    "e4m3,e4m3,bf16) or '-', got '" +
                    w[3] + "'");
    }
    size_t dash = w[4].find('-');
    if (dash == std::string::npos
            ? !parseInt(w[4], g.mLow)
            : !parseInt(w[4].substr(0, dash), g.mLow) ||
                  !parseInt(w[4].substr(dash + 1), g.mHigh))
      return fail(g.where + ": M must be a number or LO-HI, got '" + w[4] +
                  "'");
    if (dash == std::string::npos)
      g.mHigh = g.mLow;
    if (g.mLow <= 0 || g.mHigh < g.mLow)
      return fail(g.where + ": the M range '" + w[4] + "' is empty");
    for (size_t i = 5; i < w.size(); ++i)
      if (!parseOption(w[i], g))
        return fail(g.where +
                    ": an option is 'accumulate', 'groups=G', "
                    "'layout=contiguous|psum|masked' or 'alignment=N', got '" +
                    w[i] + "'");
    gemms.push_back(g);
  }
  return true;
}

/// Every distinct kernel the GEMMs need over their M ranges, by key.
bool collectKernels(const std::vector<Gemm> &gemms, int32_t smCount,
                    const char *target, std::map<std::string, Kernel> &out) {
  for (const Gemm &g : gemms) {
    Kernel proto;
    proto.family = g.family;
    proto.a = g.a;
    proto.b = g.b;
    proto.d = g.d;
    for (int64_t m = g.mLow; m <= g.mHigh; ++m) {
      tilec_gemm_problem problem{};
      problem.m = m;
      problem.n = g.n;
      problem.k = g.k;
      problem.accumulate = g.accumulate;
      problem.num_groups = g.groups;
      problem.group_layout = g.groupLayout;
      problem.mk_alignment = g.alignment;
      problem.a_dtype = g.a.empty() ? nullptr : g.a.c_str();
      problem.b_dtype = g.b.empty() ? nullptr : g.b.c_str();
      problem.d_dtype = g.d.empty() ? nullptr : g.d.c_str();
      // A GEMM that splits K needs splitk_reduce for the same problem too,
      // which follows the GEMM its input dtype names (bf16: bf16_gemm_nt).
      for (const char *family : {g.family.c_str(), "splitk_reduce"}) {
        if (family != g.family.c_str() && g.a.empty() &&
            g.family.rfind("bf16_", 0) == 0)
          problem.a_dtype = problem.b_dtype = "bf16";
        tilec_kernel_info info;
        if (tilec_compiler_status s =
                tilec_kernel_config(family, &problem, smCount, target, &info))
          return fail(g.where + ": " + tilec_compiler_status_name(s) + ": " +
                      tilec_compiler_last_error());
        std::string key = info.key;
        if (!out.count(key)) {
          Kernel &kernel = out.emplace(key, proto).first->second;
          kernel.family = family;
          kernel.problem = problem;
          kernel.config = info;
          kernel.firstUse = g.where + " (M=" + std::to_string(m) + ")";
        }
        if (!std::strstr(info.params, "SPLIT_K="))
          break;
      }
    }
  }
  // The problems point into the Gemm strings; repoint them at the copies.
  for (auto &[key, kernel] : out) {
    kernel.problem.a_dtype = kernel.a.empty() ? nullptr : kernel.a.c_str();
    kernel.problem.b_dtype = kernel.b.empty() ? nullptr : kernel.b.c_str();
    kernel.problem.d_dtype = kernel.d.empty() ? nullptr : kernel.d.c_str();
  }
  return true;
}

const char *sourceName(int32_t source) {
  switch (source) {
  case TILEC_KERNEL_SOURCE_MEMORY:
  case TILEC_KERNEL_SOURCE_DISK:
    return "cached";
  case TILEC_KERNEL_SOURCE_COMPILED:
    return "compiled";
  default:
    return "?";
  }
}

} // namespace

int main(int argc, char **argv) {
  std::vector<std::string> lists;
  unsigned jobs = std::max(1u, std::thread::hardware_concurrency());
  int32_t smCount = 132;
  std::string target = "sm_90a";
  bool listOnly = false, verbose = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](const char *name) -> const char * {
      if (i + 1 >= argc) {
        fail(std::string(name) + " needs a value");
        std::exit(2);
      }
      return argv[++i];
    };
    int64_t number = 0;
    if (arg == "-h" || arg == "--help") {
      std::fputs(kUsage, stdout);
      return 0;
    } else if (arg == "-j" || arg == "--jobs") {
      if (!parseInt(value("-j"), number) || number <= 0)
        return fail("-j takes a positive number"), 2;
      jobs = static_cast<unsigned>(number);
    } else if (arg.rfind("-j", 0) == 0 && parseInt(arg.substr(2), number) &&
               number > 0) {
      jobs = static_cast<unsigned>(number);
    } else if (arg == "--cache-dir") {
      ::setenv("TILEC_CACHE_DIR", value("--cache-dir"), 1);
    } else if (arg == "--sm-count") {
      if (!parseInt(value("--sm-count"), number) || number <= 0)
        return fail("--sm-count takes a positive number"), 2;
      smCount = static_cast<int32_t>(number);
    } else if (arg == "--target") {
      target = value("--target");
    } else if (arg == "--list") {
      listOnly = true;
    } else if (arg == "-v") {
      verbose = true;
    } else if (arg == "--output" || arg == "-o") {
      return fail("--output: a bundle holds one module (one cubin), so "
                  "several kernels cannot share one; they go to the cache "
                  "directory (--cache-dir), one file each"),
             2;
    } else if (!arg.empty() && arg[0] == '-') {
      return fail("unknown option '" + arg + "' (see --help)"), 2;
    } else {
      lists.push_back(arg);
    }
  }
  if (lists.empty())
    return std::fputs(kUsage, stderr), 2;

  auto start = std::chrono::steady_clock::now();
  std::vector<Gemm> gemms;
  for (const std::string &list : lists)
    if (!readList(list, gemms))
      return 1;
  std::map<std::string, Kernel> byKey;
  if (!collectKernels(gemms, smCount, target.c_str(), byKey))
    return 1;
  std::vector<Kernel *> kernels;
  for (auto &entry : byKey)
    kernels.push_back(&entry.second);

  if (listOnly) {
    for (const Kernel *k : kernels)
      std::printf("%s [%s] %.16s  first needed by %s\n", k->family.c_str(),
                  k->config.params, k->config.key, k->firstUse.c_str());
    std::printf("tilec-precompile: %zu kernels for %zu GEMMs\n", kernels.size(),
                gemms.size());
    return 0;
  }

  std::atomic<size_t> next{0};
  std::mutex printMutex;
  auto worker = [&] {
    for (size_t i; (i = next++) < kernels.size();) {
      Kernel &k = *kernels[i];
      const uint8_t *bundle = nullptr;
      size_t size = 0;
      k.status = tilec_get_kernel(k.family.c_str(), &k.problem, smCount,
                                  target.c_str(), &bundle, &size, &k.done);
      if (k.status)
        k.error = tilec_compiler_last_error();
      if (verbose && !k.status) {
        std::lock_guard<std::mutex> lock(printMutex);
        std::printf("  %s [%s] %s in %.2f s\n", k.family.c_str(), k.done.params,
                    sourceName(k.done.source), k.done.seconds);
      }
    }
  };
  std::vector<std::thread> threads;
  for (unsigned j = 0; j < std::min<size_t>(jobs, kernels.size()); ++j)
    threads.emplace_back(worker);
  for (std::thread &t : threads)
    t.join();

  size_t compiled = 0, cached = 0, failed = 0;
  for (const Kernel *k : kernels) {
    if (k->status) {
      ++failed;
      std::fprintf(stderr, "tilec-precompile: error: %s [%s] (%s): %s\n",
                   k->family.c_str(), k->config.params, k->firstUse.c_str(),
                   k->error.c_str());
    } else if (k->done.source == TILEC_KERNEL_SOURCE_COMPILED) {
      ++compiled;
    } else {
      ++cached;
    }
  }
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  std::string cache = tilec_cache_dir();
  std::printf("tilec-precompile: %zu kernels for %zu GEMMs: %zu compiled, "
              "%zu already cached, %zu failed, in %.2f s with %u jobs "
              "(cache: %s)\n",
              kernels.size(), gemms.size(), compiled, cached, failed, seconds,
              std::min<unsigned>(jobs, std::max<size_t>(1, kernels.size())),
              cache.empty() ? "disabled" : cache.c_str());
  return failed ? 1 : 0;
}

//===- CApiTest.cpp - libtilec_compiler.so through its C API -------------===//
//
// Links the shared library only (as Python does): compiling spec text,
// diagnostics, defines, threads, the kernel library's configs and keys, the
// caches and every argument error. Tests that run ptxas skip without one.
//
//===----------------------------------------------------------------------===//

#include "tilec/tilec_compiler.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

std::string readSource(const std::string &relative) {
  std::ifstream in(std::string(TILEC_SOURCE_DIR) + "/" + relative);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

bool havePtxas() { return TILEC_TEST_PTXAS[0] != 0; }

#define REQUIRE_PTXAS()                                                        \
  do {                                                                         \
    if (!havePtxas())                                                          \
      GTEST_SKIP() << "no ptxas in this build";                                \
  } while (0)

/// Compiles `spec` with `defines`; the result is released by the caller.
tilec_compiler_status compile(const std::string &spec,
                              const std::vector<const char *> &defines,
                              tilec_compile_result &result,
                              const char *name = "copy.tile") {
  tilec_compile_request request{};
  request.spec = spec.c_str();
  request.spec_name = name;
  request.defines = defines.data();
  request.num_defines = defines.size();
  request.opt_level = 3;
  return tilec_compile(&request, &result);
}

std::vector<uint8_t> bytesOf(const tilec_compile_result &result) {
  return std::vector<uint8_t>(result.bundle,
                              result.bundle + result.bundle_size);
}

/// Each test gets its own cache directory and an empty memory cache.
class CompilerApi : public ::testing::Test {
protected:
  void SetUp() override {
    char dir[] = "/tmp/tilec-capi-XXXXXX";
    ASSERT_NE(::mkdtemp(dir), nullptr);
    cacheDir = dir;
    ::setenv("TILEC_CACHE_DIR", dir, 1);
    ::unsetenv("TILEC_DISABLE_CACHE");
    ::unsetenv("TILEC_PRINT_CONFIGS");
    ::unsetenv("TILEC_PRINT_COMPILES");
    if (havePtxas())
      ::setenv("TILEC_PTXAS", TILEC_TEST_PTXAS, 1);
    tilec_clear_memory_cache();
  }
  void TearDown() override {
    std::string command = "rm -rf '" + cacheDir + "'";
    ASSERT_EQ(std::system(command.c_str()), 0);
  }

  tilec_compiler_status get(const char *family, const tilec_gemm_problem &p,
                            tilec_kernel_info &info,
                            const char *target = nullptr) {
    const uint8_t *bundle = nullptr;
    size_t size = 0;
    tilec_compiler_status status =
        tilec_get_kernel(family, &p, 132, target, &bundle, &size, &info);
    if (status == TILEC_COMPILER_OK) {
      EXPECT_NE(bundle, nullptr);
      EXPECT_GT(size, 0u);
    }
    return status;
  }

  /// Where tilec_get_kernel finds the kernel, after forgetting the memory
  /// cache when `fromDisk`.
  tilec_kernel_source sourceOf(const char *family, const tilec_gemm_problem &p,
                               bool fromDisk) {
    if (fromDisk)
      tilec_clear_memory_cache();
    tilec_kernel_info info;
    EXPECT_EQ(get(family, p, info), TILEC_COMPILER_OK)
        << tilec_compiler_last_error();
    return static_cast<tilec_kernel_source>(info.source);
  }

  std::string entryPath(const tilec_kernel_info &info) {
    return cacheDir + "/kernels/" + info.key + ".kernel";
  }

  std::string cacheDir;
};

tilec_gemm_problem gemm(int64_t m, int64_t n, int64_t k,
                        const char *d = nullptr) {
  tilec_gemm_problem p{};
  p.m = m;
  p.n = n;
  p.k = k;
  p.d_dtype = d;
  return p;
}

//===----------------------------------------------------------------------===//
// Version and compiling spec text
//===----------------------------------------------------------------------===//

TEST_F(CompilerApi, VersionNamesTheReleaseAndIsStable) {
  std::string version = tilec_compiler_version();
  EXPECT_EQ(version.rfind("0.1.0", 0), 0u) << version;
  EXPECT_EQ(version, tilec_compiler_version());
  EXPECT_STREQ(tilec_compiler_status_name(TILEC_COMPILER_ERROR_COMPILE),
               "TILEC_COMPILER_ERROR_COMPILE");
}

TEST_F(CompilerApi, CompilesSpecTextToABundle) {
  REQUIRE_PTXAS();
  tilec_compile_result result;
  ASSERT_EQ(compile(readSource("examples/copy.tile"), {}, result),
            TILEC_COMPILER_OK)
      << result.diagnostics;
  EXPECT_GT(result.bundle_size, 1000u);
  EXPECT_EQ(std::memcmp(result.bundle, "TILECBND", 8), 0);
  EXPECT_STREQ(result.diagnostics, "");
  EXPECT_GT(result.compile_seconds, 0.0);
  tilec_compile_result_free(&result);
  EXPECT_EQ(result.bundle, nullptr);
  tilec_compile_result_free(nullptr);
}

TEST_F(CompilerApi, BrokenSpecGivesClangStyleDiagnostics) {
  std::string spec = "kernel k(A: global bf16[M, K])\n"
                     "    warpgroups 1, grid fixed(1, 1, 1) {\n"
                     "  let x = nosuch(3)\n"
                     "}\n";
  tilec_compile_result result;
  EXPECT_EQ(compile(spec, {}, result, "broken.tile"),
            TILEC_COMPILER_ERROR_COMPILE);
  EXPECT_EQ(result.bundle, nullptr);
  std::string diagnostics = result.diagnostics;
  EXPECT_NE(diagnostics.find("broken.tile:3:11: error: unknown function "
                             "'nosuch'\n  let x = nosuch(3)\n          ^~~~~~"),
            std::string::npos)
      << diagnostics;
  EXPECT_EQ(diagnostics.size(), result.diagnostics_size);
  EXPECT_NE(std::string(tilec_compiler_last_error()).find("broken.tile:3:11"),
            std::string::npos);
  tilec_compile_result_free(&result);
}

TEST_F(CompilerApi, DefinesSetParams) {
  REQUIRE_PTXAS();
  std::string spec = readSource("examples/copy.tile");
  tilec_compile_result plain, wide;
  ASSERT_EQ(compile(spec, {}, plain), TILEC_COMPILER_OK);
  ASSERT_EQ(compile(spec, {"BN=128"}, wide), TILEC_COMPILER_OK);
  EXPECT_NE(bytesOf(plain), bytesOf(wide));
  tilec_compile_result_free(&plain);
  tilec_compile_result_free(&wide);

  // A define naming no param is the front end's error, at the spec.
  tilec_compile_result unknown;
  EXPECT_EQ(compile(spec, {"NO_SUCH=1"}, unknown),
            TILEC_COMPILER_ERROR_COMPILE);
  EXPECT_NE(std::string(unknown.diagnostics).find("NO_SUCH"), std::string::npos)
      << unknown.diagnostics;
  tilec_compile_result_free(&unknown);
}

TEST_F(CompilerApi, FourThreadsCompileAtOnce) {
  REQUIRE_PTXAS();
  std::string spec = readSource("examples/copy.tile");
  const char *widths[] = {"BN=64", "BN=128", "BN=192", "BN=256"};
  std::vector<std::vector<uint8_t>> serial(4), parallel(4);
  for (int i = 0; i < 4; ++i) {
    tilec_compile_result result;
    ASSERT_EQ(compile(spec, {widths[i]}, result), TILEC_COMPILER_OK);
    serial[i] = bytesOf(result);
    tilec_compile_result_free(&result);
  }
  std::vector<std::thread> threads;
  std::vector<tilec_compiler_status> status(4);
  for (int i = 0; i < 4; ++i)
    threads.emplace_back([&, i] {
      tilec_compile_result result;
      status[i] = compile(spec, {widths[i]}, result);
      parallel[i] = bytesOf(result);
      tilec_compile_result_free(&result);
    });
  for (std::thread &t : threads)
    t.join();
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(status[i], TILEC_COMPILER_OK) << widths[i];
    EXPECT_EQ(parallel[i], serial[i]) << widths[i];
  }
}

TEST_F(CompilerApi, BadRequestsNameTheArgument) {
  tilec_compile_result result;
  EXPECT_EQ(tilec_compile(nullptr, &result),
            TILEC_COMPILER_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(tilec_compiler_last_error(), "request is NULL");
  tilec_compile_result_free(&result);
  EXPECT_EQ(tilec_compile(nullptr, nullptr),
            TILEC_COMPILER_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(tilec_compiler_last_error(), "result is NULL");

  tilec_compile_request request{};
  EXPECT_EQ(tilec_compile(&request, &result),
            TILEC_COMPILER_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(tilec_compiler_last_error(), "request.spec is NULL");
  EXPECT_STREQ(result.diagnostics, "tilec: error: request.spec is NULL\n");
  tilec_compile_result_free(&result);

  std::string spec = readSource("examples/copy.tile");
  request.spec = spec.c_str();
  request.opt_level = 7;
  EXPECT_EQ(tilec_compile(&request, &result),
            TILEC_COMPILER_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(tilec_compiler_last_error(),
               "request.opt_level must be 0 to 3, got 7");
  tilec_compile_result_free(&result);

  request.opt_level = 3;
  request.target = "sm_80";
  EXPECT_EQ(tilec_compile(&request, &result),
            TILEC_COMPILER_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(tilec_compiler_last_error(),
               "request.target 'sm_80' is not a target; use sm_90a or "
               "sm_100a");
  tilec_compile_result_free(&result);

  request.target = nullptr;
  const char *defines[] = {"BN=64", "BM"};
  request.defines = defines;
  request.num_defines = 2;
  EXPECT_EQ(tilec_compile(&request, &result),
            TILEC_COMPILER_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(tilec_compiler_last_error(),
               "request.defines[1]: -D BM needs a value, as in -D BM=128");
  tilec_compile_result_free(&result);

  request.defines = nullptr;
  EXPECT_EQ(tilec_compile(&request, &result),
            TILEC_COMPILER_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(tilec_compiler_last_error(),
               "request.defines is NULL with num_defines 2");
  tilec_compile_result_free(&result);
}

//===----------------------------------------------------------------------===//
// The kernel library: families, configs, keys
//===----------------------------------------------------------------------===//

TEST_F(CompilerApi, FamiliesCarryTheirSpecs) {
  ASSERT_EQ(tilec_num_kernel_families(), 10u);
  EXPECT_STREQ(tilec_kernel_family_name(0), "bf16_gemm_nt");
  EXPECT_STREQ(tilec_kernel_family_name(6), "splitk_reduce");
  EXPECT_STREQ(tilec_kernel_family_name(7), "m_grouped_bf16_gemm_nt");
  EXPECT_STREQ(tilec_kernel_family_name(8), "m_grouped_bf16_gemm_nn");
  EXPECT_STREQ(tilec_kernel_family_name(9), "m_grouped_fp8_gemm_1d2d");
  EXPECT_EQ(tilec_kernel_family_name(10), nullptr);
  const char *text = nullptr;
  size_t size = 0;
  ASSERT_EQ(tilec_kernel_family_spec("fp8_gemm_1d2d", &text, &size),
            TILEC_COMPILER_OK);
  EXPECT_EQ(std::string(text, size),
            readSource("lib/Kernels/fp8_gemm_1d2d.tile"));
  for (size_t i = 0; i < tilec_num_kernel_families(); ++i) {
    ASSERT_EQ(
        tilec_kernel_family_spec(tilec_kernel_family_name(i), &text, &size),
        TILEC_COMPILER_OK);
    // m_grouped_bf16_gemm_nn runs m_grouped_bf16_gemm_nt's kernel, B_MN = 1.
    std::string name = tilec_kernel_family_name(i);
    std::string kernel =
        name == "m_grouped_bf16_gemm_nn" ? "m_grouped_bf16_gemm_nt" : name;
    EXPECT_NE(std::string(text, size).find("kernel " + kernel + "("),
              std::string::npos)
        << name;
  }
}

struct ConfigCase {
  const char *family;
  int64_t m, n, k;
  const char *d;
  int32_t blockM, blockN, stages;
};

TEST_F(CompilerApi, LargeFp8TilesRunTwoWavesWithMulticast) {
  tilec_gemm_problem p = gemm(4096, 7168, 16384, nullptr);
  tilec_kernel_info info;
  ASSERT_EQ(tilec_kernel_config("fp8_gemm_1d2d", &p, 132, nullptr, &info),
            TILEC_COMPILER_OK)
      << tilec_compiler_last_error();
  EXPECT_STREQ(info.params, "ACCUMULATE=0 BLK_M=256 BLK_N=128 CLUSTER_N=2 "
                            "MAX_KB=128 OUT=bf16 STAGES=3 UNROLL=8 WAVES=2");
  EXPECT_EQ(info.threads, 384u); // two consumer warpgroups of 128 rows
  EXPECT_EQ(info.cluster[0], 2u);
  // The 1D1D spec has neither param: 128x128.
  ASSERT_EQ(tilec_kernel_config("fp8_gemm_1d1d", &p, 132, nullptr, &info),
            TILEC_COMPILER_OK);
  EXPECT_EQ(info.block_m, 128);
  EXPECT_EQ(info.cluster[0], 1u);
}

TEST_F(CompilerApi, ConfigTablePicksTheMeasuredWinners) {
  const ConfigCase cases[] = {
      // BF16: 16-row tiles for M <= 16 (NT), 64-row tiles (one consumer)
      // for M <= 64 and for M <= 128 and
      // N <= 4096, 128x64 for the other M <= 128 (wider where K is small),
      // else the 128-row width of the least time by waves.
      {"bf16_gemm_nt", 4096, 4096, 4096, nullptr, 128, 256, 3},
      {"bf16_gemm_nn", 8192, 8192, 8192, nullptr, 128, 256, 3},
      {"bf16_gemm_nt", 4096, 2112, 7168, nullptr, 128, 144, 5},
      // 128x144 is bf16_gemm_nt's only (run 44): the others keep 128x192.
      {"bf16_gemm_tt", 4096, 2112, 7168, nullptr, 128, 192, 4},
      // BLK_K 128 (run 49): 64-row tiles of 128 K elements a stage.
      {"bf16_gemm_nt", 128, 4096, 7168, nullptr, 64, 64, 6},
      {"bf16_gemm_nt", 128, 7168, 16384, nullptr, 64, 112, 4},
      {"bf16_gemm_nn", 128, 4096, 7168, nullptr, 64, 64, 12},
      {"bf16_gemm_nt", 128, 32768, 512, nullptr, 128, 128, 6},
      {"bf16_gemm_nt", 333, 520, 72, nullptr, 64, 32, 12},
      {"bf16_gemm_tn", 128, 24576, 1536, nullptr, 128, 64, 8},
      {"bf16_gemm_tt", 128, 7168, 2048, nullptr, 128, 64, 8},
      {"bf16_gemm_nt", 1, 2112, 7168, nullptr, 16, 64, 6}, // BLK_K 128
      {"bf16_gemm_nt", 1, 576, 7168, nullptr, 16, 64, 12},
      // The other layouts have no 16-row tiles: 64x64 there.
      {"bf16_gemm_nn", 1, 2112, 7168, nullptr, 64, 64, 12},
      {"bf16_gemm_nn", 64, 32768, 512, nullptr, 64, 192, 6},
      // f32 output: 128x256 leaves too little room for stages, and 128x192's
      // 6 waves at 4096^3 take longer than 128x128's 8.
      {"bf16_gemm_nt", 4096, 4096, 4096, "f32", 128, 128, 5},
      // FP8: for M <= 16 (1D2D) 16x64 with K split 4 ways up to N = 2112
      // and 2 ways up to N = 4096 where K >= 4096 (below: 16x32 at
      // 1024 < N <= 4096), 16x64 up to N = 8192, 16x128 past it; 64x32 for M <=
      // 64 and N <= 1024 and for
      // M <= 128 and N <= 2112, 64x64 (1D2D) for M <= 64 and N <= 8192 and
      // for M <= 128 and N <= 4096, 64x128 for small M (1D2D at 64 < M <=
      // 128: up to N = 8192, 128x192 up to 24576, 128x128 past it),
      // past M = 128 (1D2D) 64x64 where its tiles (split 4 or 2 ways for
      // K >= 4096) are one wave, else the tile of the least time by waves
      // (256x128 in two waves with A multicast, 128x192, 128x160, 128x128,
      // 128x64); 1D1D: 128x128, 128x64 for N <= 2112 and few tiles.
      {"fp8_gemm_1d2d", 128, 2112, 7168, nullptr, 64, 32, 12},
      {"fp8_gemm_1d2d", 1, 576, 7168, nullptr, 16, 64, 12},
      {"fp8_gemm_1d2d", 1, 576, 2048, nullptr, 64, 32, 12},
      {"fp8_gemm_1d2d", 1, 2112, 2048, nullptr, 16, 32, 12},
      {"fp8_gemm_1d2d", 16, 1024, 7168, nullptr, 16, 64, 12},
      {"fp8_gemm_1d2d", 32, 1024, 7168, nullptr, 64, 32, 12},
      {"fp8_gemm_1d2d", 1, 2112, 7168, nullptr, 16, 64, 12},
      {"fp8_gemm_1d1d", 1, 2112, 7168, "f32", 64, 32, 12}, // 1D2D only
      {"fp8_gemm_1d2d", 17, 2112, 7168, nullptr, 64, 64, 12},
      {"fp8_gemm_1d2d", 128, 7168, 16384, nullptr, 64, 128, 8},
      {"fp8_gemm_1d2d", 1, 4096, 7168, nullptr, 16, 64, 12},
      {"fp8_gemm_1d2d", 128, 4096, 7168, nullptr, 64, 64, 12},
      {"fp8_gemm_1d2d", 1, 7168, 16384, nullptr, 16, 64, 12},
      {"fp8_gemm_1d2d", 16, 8192, 2048, nullptr, 16, 64, 12},
      // M <= 16 past N = 8192: 16x128, or 16x192 where it takes fewer
      // waves (one of 128 tiles at N = 24576; two either way at 32768).
      {"fp8_gemm_1d2d", 1, 24576, 1536, nullptr, 16, 192, 6},
      {"fp8_gemm_1d2d", 1, 32768, 512, nullptr, 16, 128, 8},
      {"fp8_gemm_1d2d", 1, 16384, 1536, nullptr, 16, 128, 8},
      {"fp8_gemm_1d2d", 17, 24576, 1536, nullptr, 64, 128, 8},
      {"fp8_gemm_1d2d", 128, 24576, 1536, nullptr, 128, 192, 4},
      {"fp8_gemm_1d2d", 128, 32768, 512, nullptr, 128, 128, 5},
      {"fp8_gemm_1d1d", 128, 32768, 512, "f32", 64, 128, 7}, // not 128x128
      {"fp8_gemm_1d1d", 128, 4096, 7168, "f32", 64, 128, 7}, // not 64x64
      // Three consumer warpgroups of 64 rows where K >= 4096 and the waves
      // allow (bench/results/2026-12-06-fp8-three-consumers.md).
      {"fp8_gemm_1d2d", 4096, 2112, 7168, nullptr, 192, 128, 4},
      {"fp8_gemm_1d2d", 8192, 8192, 8192, nullptr, 192, 128, 4},
      {"fp8_gemm_1d2d", 6144, 7168, 4096, nullptr, 192, 128, 4},
      {"fp8_gemm_1d2d", 4096, 576, 7168, nullptr, 128, 160, 5},
      {"fp8_gemm_1d2d", 256, 2112, 7168, nullptr, 64, 64, 12}, // one wave
      {"fp8_gemm_1d1d", 256, 2112, 7168, "f32", 128, 64, 7},
      {"fp8_gemm_1d2d", 4096, 4096, 4096, nullptr, 256, 128, 3},
      // f32 out: 256x128 does not fit; 128x192's 21 waves by the model.
      {"fp8_gemm_1d2d", 8192, 8192, 8192, "f32", 128, 192, 3},
      // Few tiles of a large K: 64x64 split 4 ways (24 tiles, 96 CTAs); 128
      // tiles of 256x128 in one wave where 128x160 took two.
      {"fp8_gemm_1d2d", 256, 384, 20480, nullptr, 64, 64, 12},
      {"fp8_gemm_1d2d", 4096, 1024, 24576, nullptr, 256, 128, 3},
      {"fp8_gemm_1d1d", 4096, 7168, 4096, "f32", 128, 128, 4},
      // Run 34 (bench/results/2026-12-02-fp8-gemm.md): 64x32 split 3 ways
      // at 128x576x7168, 64x32 for short K and small N past M = 128, and
      // 128x192 in one wave where 256x128 has too few tiles (1D2D; 1D1D
      // keeps 128x128).
      {"fp8_gemm_1d2d", 128, 576, 7168, nullptr, 64, 32, 12},
      {"fp8_gemm_1d2d", 333, 520, 72, nullptr, 64, 32, 12},
      {"fp8_gemm_1d2d", 1000, 3000, 4160, nullptr, 128, 192, 4},
      {"fp8_gemm_1d1d", 1000, 3000, 4160, nullptr, 128, 128, 5},
  };
  for (const ConfigCase &c : cases) {
    tilec_gemm_problem p = gemm(c.m, c.n, c.k, c.d);
    tilec_kernel_info info;
    SCOPED_TRACE(std::string(c.family) + " " + std::to_string(c.m) + "x" +
                 std::to_string(c.n) + "x" + std::to_string(c.k));
    ASSERT_EQ(tilec_kernel_config(c.family, &p, 132, nullptr, &info),
              TILEC_COMPILER_OK)
        << tilec_compiler_last_error();
    EXPECT_EQ(info.block_m, c.blockM);
    EXPECT_EQ(info.block_n, c.blockN);
    EXPECT_EQ(info.stages, c.stages);
    EXPECT_STREQ(info.family, c.family);
    EXPECT_STREQ(info.target, "sm_90a");
    EXPECT_EQ(info.grid[0], 132u);
    EXPECT_EQ(info.num_tiles, ((c.m + c.blockM - 1) / c.blockM) *
                                  ((c.n + c.blockN - 1) / c.blockN));
    EXPECT_LE(info.shared_bytes, 232448u);
    EXPECT_NE(std::string(info.reason), "");
    EXPECT_EQ(info.source, TILEC_KERNEL_SOURCE_NONE);
  }
}

/// A tile a benchmark run timed: BLK_M x BLK_N, split K ways, BLK_K K
/// elements a stage, with one K block's wgmmas in flight or not.
struct TimedTile {
  int32_t blockM, blockN, splits = 1, blockK = 64;
  bool inflight = false;
};

/// One shape's times of a run's tiles, in the order of its tile list.
struct TimedShape {
  int64_t m, n, k;
  std::vector<double> microseconds;
};

/// `family`'s pick for each shape is one of the builds `run` timed
/// (`isBuild(i, info)`: build i is the pick), measured within 3% of the
/// fastest of them. Returns the picks' infos for further checks.
std::vector<tilec_kernel_info> expectPicksNearFastest(
    const char *family, size_t builds, const std::vector<TimedShape> &shapes,
    const char *run,
    const std::function<bool(size_t, const tilec_kernel_info &)> &isBuild) {
  std::vector<tilec_kernel_info> picks;
  for (const TimedShape &shape : shapes) {
    tilec_gemm_problem p = gemm(shape.m, shape.n, shape.k, nullptr);
    tilec_kernel_info info;
    SCOPED_TRACE(std::to_string(shape.m) + "x" + std::to_string(shape.n) + "x" +
                 std::to_string(shape.k));
    EXPECT_EQ(shape.microseconds.size(), builds);
    if (shape.microseconds.size() != builds)
      continue;
    EXPECT_EQ(tilec_kernel_config(family, &p, 132, nullptr, &info),
              TILEC_COMPILER_OK)
        << tilec_compiler_last_error();
    size_t picked = 0;
    while (picked < builds && !isBuild(picked, info))
      ++picked;
    EXPECT_LT(picked, builds)
        << "picked " << info.params << ", a build " << run << " did not time";
    if (picked == builds)
      continue;
    const double fastest =
        *std::min_element(shape.microseconds.begin(), shape.microseconds.end());
    EXPECT_LE(shape.microseconds[picked], 1.03 * fastest)
        << "picked " << info.params;
    picks.push_back(info);
  }
  return picks;
}

/// fp8_gemm_1d2d's pick for each shape is one of `builds` (its -D params as
/// the config reports them), measured within 3% of the fastest of them.
void expectFp8PicksNearFastest(const std::vector<const char *> &builds,
                               const std::vector<TimedShape> &shapes,
                               const char *run) {
  expectPicksNearFastest("fp8_gemm_1d2d", builds.size(), shapes, run,
                         [&](size_t i, const tilec_kernel_info &info) {
                           return std::string(builds[i]) == info.params;
                         });
}

/// bf16_gemm_nt's picks among the tiles `run` timed, one consumer
/// warpgroup per 64 rows (one for 16 and 32).
void expectBf16PicksNearFastest(const std::vector<TimedTile> &tiles,
                                const std::vector<TimedShape> &shapes,
                                const char *run) {
  auto param = [](const tilec_kernel_info &info, const char *name,
                  int32_t otherwise) {
    const char *at = std::strstr(info.params, name);
    return at ? std::atoi(at + std::strlen(name)) : otherwise;
  };
  auto isTile = [&](size_t i, const tilec_kernel_info &info) {
    return tiles[i].blockM == info.block_m && tiles[i].blockN == info.block_n &&
           tiles[i].splits == param(info, "SPLIT_K=", 1) &&
           tiles[i].blockK == param(info, "BLK_K=", 64) &&
           tiles[i].inflight == (param(info, "MMA_INFLIGHT=", 0) == 1);
  };
  for (const tilec_kernel_info &info : expectPicksNearFastest(
           "bf16_gemm_nt", tiles.size(), shapes, run, isTile))
    EXPECT_EQ(info.threads, (std::max(info.block_m / 64, 1) + 1) * 128u);
}

/// `tiles` without one K block's wgmmas in flight, then the same with it
/// (runs 49 and 51 timed both forms of each tile, in that order).
std::vector<TimedTile> withAndWithoutInflight(std::vector<TimedTile> tiles) {
  size_t count = tiles.size();
  for (size_t i = 0; i < count; ++i) {
    TimedTile tile = tiles[i];
    tile.inflight = true;
    tiles.push_back(tile);
  }
  return tiles;
}

// The BF16 rows against the times they were chosen from: run 26 of
// bench/results/2026-12-02-bf16-tiles.md timed eight tiles (as many stages
// as fit) on 13 shapes; the table's pick must be measured within 3% of the
// fastest of them on each. M = 1, where bf16_gemm_nt now takes run 42's
// 16-row and split tiles, is checked against run 42 below; 128x32768x512
// and 4096x2112x7168 against run 44, which re-timed them with CUDA graphs
// (run 26's back-to-back launches carried the launch cost at the small
// shapes); the other M = 128 shapes against run 49 (BLK_K 128).
TEST_F(CompilerApi, Bf16PicksAreWithinThreePercentOfTheMeasuredFastest) {
  expectBf16PicksNearFastest(
      {{64, 64},
       {64, 128},
       {64, 192},
       {64, 256},
       {128, 64},
       {128, 128},
       {128, 192},
       {128, 256}},
      {
          {128, 24576, 1536, {32, 31, 31, 31, 27, 31, 31, 30}},
      },
      "run 26");
}

// bf16_gemm_nt's 16- and 32-row tiles and split K against run 42 of
// bench/results/2026-12-03-vs-deepgemm.md (raw:
// 2026-12-03-raw/run42-bf16-small-m.md): thirteen tiles, each with as many
// stages as fit (at most 16), on the shapes those rows still serve (runs
// 49 and 51 re-timed the others with BLK_K 128).
TEST_F(CompilerApi, Bf16SmallMPicksAreWithinThreePercentOfRun42) {
  expectBf16PicksNearFastest({{16, 128},
                              {16, 256},
                              {16, 32},
                              {16, 64},
                              {32, 128},
                              {32, 64},
                              {64, 64},
                              {16, 64, 2},
                              {16, 64, 4},
                              {16, 128, 2},
                              {16, 128, 4},
                              {64, 64, 2},
                              {64, 64, 4}},
                             {
                                 {1,
                                  576,
                                  7168,
                                  {29.3, 45.3, 18.9, 21.1, 29.3, 21.1, 21.1,
                                   14.4, 10.3, 18.5, 12.5, 15.2, 13.4}},
                                 {1,
                                  24576,
                                  1536,
                                  {22.7, 21.3, 26.9, 21.4, 22.9, 23.0, 28.8,
                                   29.3, 31.9, 28.2, 31.0, 38.2, 44.3}},
                                 {1,
                                  32768,
                                  512,
                                  {8.2, 7.3, 14.5, 10.1, 8.7, 11.6, 13.2, 17.7,
                                   25.0, 15.7, 21.4, 23.3, 33.9}},
                             },
                             "run 42");
}

// Run 44 of bench/results/2026-12-03-vs-deepgemm.md (raw:
// 2026-12-03-raw/run44-bf16-m128.md): twenty bf16_gemm_nt tiles and splits
// timed with CUDA graphs at M = 128, the wide-N M = 4096 shapes and a
// partial tile.
TEST_F(CompilerApi, Bf16PicksAreWithinThreePercentOfRun44) {
  expectBf16PicksNearFastest(
      {{128, 128},   {128, 144},  {128, 192},   {128, 32},    {128, 64},
       {128, 96},    {32, 128},   {32, 64},     {64, 128},    {64, 32},
       {64, 64},     {64, 96},    {64, 64, 2},  {64, 64, 4},  {64, 128, 2},
       {128, 64, 2}, {32, 64, 2}, {128, 32, 2}, {128, 48, 2}, {128, 32, 4}},
      {
          {128, 24576, 1536, {26.9, 29.2, 25.2, 29.5, 24.0, 24.0, 42.3,
                              57.6, 24.8, 50.8, 31.2, 26.3, 50.7, 65.5,
                              45.3, 44.6, 83.7, 49.8, 45.3, 62.5}},
          {128, 32768, 512, {9.4,  10.5, 12.2, 15.5, 10.8, 10.8, 22.8,
                             30.8, 13.0, 27.5, 17.0, 15.6, 42.0, 61.2,
                             37.7, 37.5, 63.1, 39.9, 38.3, 57.6}},
          {4096, 576, 7168, {84.2,  46.6, 54.9,  136.4, 88.0,  71.1,  150.3,
                             187.1, 92.0, 165.0, 105.2, 77.1,  111.2, 123.8,
                             93.5,  95.4, 206.0, 144.5, 113.2, 151.3}},
          {4096, 2112, 7168, {194.2, 173.4, 176.8, 368.2, 270.0, 233.1, 578.6,
                              694.4, 269.3, 566.7, 321.4, 271.3, 396.9, 430.7,
                              302.9, 322.2, 746.1, 521.6, 390.8, 544.1}},
          {333, 520, 72, {4.4, 5.0, 5.1, 3.5, 3.8, 4.1, 3.7, 3.3, 4.0, 3.2,
                          3.4, 3.7, 6.4, 7.6, 6.9, 7.0, 6.9, 6.6, 6.7, 7.8}},
      },
      "run 44");
}

// Run 49 of bench/results/2026-12-03-vs-deepgemm.md (raw:
// 2026-12-03-raw/run49-bf16-wide-k.md): bf16_gemm_nt's 64-row tiles with
// BLK_K 64, 128 and 192, split K, the large tiles, each without and with one
// K block's wgmmas in flight (MMA_INFLIGHT), timed with CUDA graphs at
// M = 128 and four large shapes.
TEST_F(CompilerApi, Bf16PicksAreWithinThreePercentOfRun49) {
  expectBf16PicksNearFastest(
      withAndWithoutInflight({{64, 32},
                              {64, 32, 1, 192},
                              {64, 64, 1, 128},
                              {64, 112, 1, 128},
                              {128, 64},
                              {128, 144},
                              {128, 256},
                              {64, 32, 2, 192},
                              {64, 32, 4, 192},
                              {64, 64, 2, 128},
                              {64, 64, 4, 128},
                              {64, 64, 2},
                              {64, 64, 4}}),
      {
          {128, 2112, 7168, {19.3, 13.7, 16.9, 23.0, 22.9, 40.2, 68.5,
                             16.8, 18.7, 13.0, 14.5, 15.6, 17.2, 16.9,
                             12.5, 14.9, 21.4, 22.0, 40.2, 68.7, 16.2,
                             18.1, 12.2, 14.4, 13.6, 15.2}},
          {128, 7168, 16384, {180.5, 118.6, 81.5, 64.7, 70.8,  104.3, 175.4,
                              104.9, 111.0, 88.8, 85.3, 107.2, 101.6, 154.3,
                              115.0, 80.4,  67.0, 71.4, 102.7, 166.7, 112.7,
                              119.3, 91.4,  87.5, 92.9, 88.6}},
          {128, 4096, 7168, {36.9, 25.7, 19.4, 25.0, 26.3, 42.1, 69.0,
                             30.0, 33.4, 24.1, 26.9, 27.2, 29.8, 32.4,
                             26.1, 19.9, 27.1, 26.6, 42.3, 69.4, 30.9,
                             34.0, 24.6, 27.1, 24.1, 26.9}},
          {128, 576, 7168, {19.1, 13.2, 16.6, 22.7, 22.6, 39.1, 67.5,
                            10.5, 11.4, 12.6, 9.7,  15.0, 10.9, 16.7,
                            12.2, 14.1, 17.6, 19.1, 39.1, 67.6, 10.2,
                            11.1, 11.8, 9.4,  13.1, 10.1}},
          {128, 24576, 1536, {50.8, 35.6, 26.4, 27.6, 23.9, 29.2, 26.3,
                              55.7, 74.6, 43.9, 57.8, 49.8, 64.7, 45.5,
                              35.3, 26.7, 28.5, 23.8, 29.3, 27.4, 55.6,
                              72.6, 43.8, 56.1, 45.2, 60.4}},
          {128, 7168, 2048, {22.6, 16.1, 11.3, 9.0,  9.4,  13.9, 22.7,
                             21.7, 28.3, 18.5, 22.0, 21.0, 24.6, 20.2,
                             15.1, 10.1, 8.2,  9.2,  13.9, 22.8, 21.5,
                             27.6, 17.2, 21.2, 19.1, 23.0}},
          {4096, 2112, 7168, {642.8, 546.6, 253.5, 236.7, 270.2, 186.4, 261.4,
                              592.6, 557.4, 301.2, 341.3, 402.0, 429.8, 591.2,
                              586.7, 285.7, 233.3, 253.8, 187.7, 263.7, 618.6,
                              634.6, 348.2, 358.6, 325.2, 375.6}},
          {4096, 4096, 4096, {740.6, 610.8, 298.3, 251.5, 314.7, 223.9, 195.0,
                              757.8, 716.9, 425.0, 438.2, 475.5, 533.2, 659.0,
                              675.7, 335.6, 241.2, 293.6, 222.8, 196.8, 762.5,
                              736.9, 445.1, 436.1, 432.6, 489.9}},
          {4096, 7168, 16384, {4220.9, 4563.8, 2420.1, 2003.0, 2515.7, 1567.8,
                               1395.1, 4898.8, 5085.1, 2573.6, 2698.8, 2949.2,
                               2964.2, 3880.1, 4659.3, 2677.2, 1894.7, 2445.0,
                               1560.2, 1417.1, 4821.9, 5049.5, 2834.3, 2867.9,
                               2736.4, 3016.7}},
          {8192, 8192, 8192, {4801.3, 5563.2, 2759.2, 2298.3, 2805.6, 1673.2,
                              1681.5, 6053.3, 6266.2, 3211.9, 3925.4, 3418.8,
                              3759.1, 4382.2, 5549.0, 3216.3, 2184.2, 2738.1,
                              1658.2, 1634.4, 6029.4, 6266.6, 3772.8, 3992.9,
                              3764.1, 4029.6}},
      },
      "run 49");
}

// Run 51 of bench/results/2026-12-03-vs-deepgemm.md (raw:
// 2026-12-03-raw/run51-bf16-m1.md): bf16_gemm_nt's 16-row tiles at M = 1
// with BLK_K 64 and 128, unsplit and split, each without and with one K
// block's wgmmas in flight, timed with CUDA graphs.
TEST_F(CompilerApi, Bf16PicksAreWithinThreePercentOfRun51) {
  expectBf16PicksNearFastest(withAndWithoutInflight({{16, 64},
                                                     {16, 64, 1, 128},
                                                     {16, 64, 2},
                                                     {16, 64, 2, 128},
                                                     {16, 64, 4, 128},
                                                     {16, 32, 2, 128}}),
                             {
                                 {1,
                                  4096,
                                  7168,
                                  {22.7, 18.8, 20.6, 19.8, 20.7, 21.0, 19.7,
                                   18.9, 20.3, 19.3, 20.1, 20.9}},
                                 {1,
                                  7168,
                                  2048,
                                  {8.9, 8.8, 11.4, 10.8, 11.8, 13.3, 8.7, 8.7,
                                   10.9, 10.6, 11.6, 13.2}},
                                 {1,
                                  2112,
                                  7168,
                                  {21.5, 17.3, 14.2, 12.4, 10.4, 11.4, 18.4,
                                   16.9, 12.8, 12.2, 10.1, 11.2}},
                                 {1,
                                  7168,
                                  16384,
                                  {61.9, 60.4, 63.1, 61.5, 64.4, 70.5, 61.2,
                                   58.8, 62.0, 61.0, 64.2, 69.4}},
                             },
                             "run 51");
}

// The two-wave 256x128 tile's K loop unrolled, against run 5 of
// bench/results/2026-12-06-fp8-unroll.md (an H100: the bundles interleaved
// with DeepGEMM in one process, 20 rounds of CUDA graphs); run 4 had the
// loop not unrolled 3-10% slower than 8 times at these shapes.
TEST_F(CompilerApi, Fp8TwoWavePicksAreWithinThreePercentOfTheUnrollRun) {
  const std::vector<const char *> builds = {
      "ACCUMULATE=0 BLK_M=256 BLK_N=128 CLUSTER_N=2 MAX_KB=128 OUT=bf16 "
      "STAGES=3 UNROLL=2 WAVES=2",
      "ACCUMULATE=0 BLK_M=256 BLK_N=128 CLUSTER_N=2 MAX_KB=128 OUT=bf16 "
      "STAGES=3 UNROLL=4 WAVES=2",
      "ACCUMULATE=0 BLK_M=256 BLK_N=128 CLUSTER_N=2 MAX_KB=128 OUT=bf16 "
      "STAGES=3 UNROLL=8 WAVES=2",
      "ACCUMULATE=0 BLK_M=128 BLK_N=192 MAX_KB=128 OUT=bf16 STAGES=4 UNROLL=2",
      "ACCUMULATE=0 BLK_M=128 BLK_N=192 MAX_KB=128 OUT=bf16 STAGES=4 UNROLL=4",
  };
  const std::vector<TimedShape> shapes = {
      {4096, 7168, 16384, {853.5, 822.1, 803.2, 873.4, 861.6}},
      {4096, 4096, 7168, {209.8, 208.9, 207.8, 237.2, 236.0}},
  };
  expectFp8PicksNearFastest(builds, shapes, "the unroll run");
}

// The three-consumer 192x128 tile against the 256x128 two-wave tile (B
// scales staged and from global memory), 128x192 and itself with global B
// scales: run 2 of bench/results/2026-12-06-fp8-three-consumers.md (an
// H100; the bundles interleaved with DeepGEMM in one process, 8 rounds of
// CUDA graphs). It replaces run 44 (2026-12-03) at 4096x2112x7168, where
// 128x192 was the fastest of the tiles then timed, and the unroll run at
// 8192^3.
TEST_F(CompilerApi, Fp8ThreeConsumerPicksAreWithinThreePercentOfTheirRun) {
  const std::vector<const char *> builds = {
      "ACCUMULATE=0 BLK_M=256 BLK_N=128 CLUSTER_N=2 MAX_KB=128 OUT=bf16 "
      "STAGES=3 UNROLL=8 WAVES=2",
      "ACCUMULATE=0 BLK_M=256 BLK_N=128 CLUSTER_N=2 MAX_KB=0 OUT=bf16 "
      "STAGES=3 UNROLL=8 WAVES=2",
      "ACCUMULATE=0 BLK_M=128 BLK_N=192 MAX_KB=128 OUT=bf16 STAGES=4",
      "ACCUMULATE=0 BLK_M=192 BLK_N=128 MAX_KB=128 OUT=bf16 STAGES=4",
      "ACCUMULATE=0 BLK_M=192 BLK_N=128 MAX_KB=0 OUT=bf16 STAGES=4",
  };
  const std::vector<TimedShape> shapes = {
      {8192, 8192, 8192, {923.0, 933.0, 928.0, 862.9, 1011.2}},
      {4096, 2112, 7168, {154.9, 157.1, 117.7, 112.4, 121.8}},
      {2048, 7168, 7168, {203.4, 209.4, 197.7, 184.9, 191.3}},
      {6144, 7168, 4096, {326.9, 328.2, 312.8, 288.8, 304.7}},
      {16384, 7168, 7168, {1407.0, 1433.8, 1442.4, 1384.5, 1564.8}},
      {4096, 24576, 1536, {290.7, 282.4, 295.1, 281.6, 285.9}},
  };
  expectFp8PicksNearFastest(builds, shapes, "the three-consumer run");
}

// The small-M rows' B scales staged whatever K, against the builds timed
// on 2026-12-04 (bench/results/2026-12-04-vs-deepgemm.md: one device call
// per shape's list, CUDA-graph rounds, the base build timed twice).
TEST_F(CompilerApi, Fp8SmallMPicksAreWithinThreePercentOfTheStagedScalesRuns) {
  struct Timed {
    int64_t m, n, k;
    std::vector<const char *> builds;
    std::vector<double> microseconds;
  };
  const std::vector<Timed> runs = {
      {1,
       7168,
       2048,
       {"ACCUMULATE=0 BLK_M=16 BLK_N=64 MAX_KB=0 OUT=bf16 STAGES=12 UNROLL=4",
        "ACCUMULATE=0 BLK_M=16 BLK_N=64 MAX_KB=128 OUT=bf16 STAGES=12 UNROLL=4",
        "ACCUMULATE=0 BLK_M=16 BLK_N=64 MAX_KB=0 OUT=bf16 OVERLAP=1 STAGES=12 "
        "UNROLL=4",
        "ACCUMULATE=0 BLK_M=16 BLK_N=64 MAX_KB=128 OUT=bf16 OVERLAP=1 "
        "STAGES=12 UNROLL=4"},
       {8.2, 7.0, 7.4, 6.8}},
      {1,
       32768,
       512,
       {"ACCUMULATE=0 BLK_M=16 BLK_N=128 MAX_KB=0 OUT=bf16 STAGES=8 UNROLL=4",
        "ACCUMULATE=0 BLK_M=16 BLK_N=128 MAX_KB=128 OUT=bf16 STAGES=8 UNROLL=4",
        "ACCUMULATE=0 BLK_M=16 BLK_N=128 MAX_KB=0 OUT=bf16 OVERLAP=1 STAGES=8 "
        "UNROLL=4",
        "ACCUMULATE=0 BLK_M=16 BLK_N=128 MAX_KB=128 OUT=bf16 OVERLAP=1 "
        "STAGES=8 UNROLL=4"},
       {9.1, 8.5, 8.6, 8.3}},
      {1,
       24576,
       1536,
       {"ACCUMULATE=0 BLK_M=16 BLK_N=192 MAX_KB=0 OUT=bf16 STAGES=6 UNROLL=4",
        "ACCUMULATE=0 BLK_M=16 BLK_N=192 MAX_KB=128 OUT=bf16 STAGES=6 UNROLL=4",
        "ACCUMULATE=0 BLK_M=16 BLK_N=192 MAX_KB=0 OUT=bf16 OVERLAP=1 STAGES=6 "
        "UNROLL=4",
        "ACCUMULATE=0 BLK_M=16 BLK_N=192 MAX_KB=128 OUT=bf16 OVERLAP=1 "
        "STAGES=6 UNROLL=4"},
       {13.6, 13.0, 27.0, 24.5}},
      {128,
       7168,
       2048,
       {"ACCUMULATE=0 BLK_M=64 BLK_N=128 MAX_KB=0 OUT=bf16 OVERLAP=1 STAGES=8",
        "ACCUMULATE=0 BLK_M=64 BLK_N=128 MAX_KB=128 OUT=bf16 OVERLAP=1 "
        "STAGES=8"},
       {8.7, 7.9}},
  };
  for (const Timed &run : runs)
    expectFp8PicksNearFastest(
        run.builds, {{run.m, run.n, run.k, run.microseconds}}, "2026-12-04");
}

// Split K: the GEMM writes f32 partial sums (OUT=f32, SPLIT_K) whatever D
// is, and never when it accumulates into D.
TEST_F(CompilerApi, SplitKRowsSetTheSplitAndAnF32Workspace) {
  tilec_gemm_problem p = gemm(1, 2112, 7168);
  tilec_kernel_info info;
  ASSERT_EQ(tilec_kernel_config("fp8_gemm_1d2d", &p, 132, nullptr, &info),
            TILEC_COMPILER_OK);
  EXPECT_STREQ(info.params, "ACCUMULATE=0 BLK_M=16 BLK_N=64 MAX_KB=128 "
                            "OUT=f32 OVERLAP=1 SPLIT_K=4 STAGES=12");
  p = gemm(1, 4096, 7168);
  ASSERT_EQ(tilec_kernel_config("fp8_gemm_1d2d", &p, 132, nullptr, &info),
            TILEC_COMPILER_OK);
  EXPECT_NE(std::string(info.params).find("SPLIT_K=2"), std::string::npos);
  p = gemm(1, 2112, 7168, "f32");
  p.accumulate = 1;
  ASSERT_EQ(tilec_kernel_config("fp8_gemm_1d2d", &p, 132, nullptr, &info),
            TILEC_COMPILER_OK);
  EXPECT_EQ(std::string(info.params).find("SPLIT_K"), std::string::npos);
  p = gemm(1, 2112, 7168);
  ASSERT_EQ(tilec_kernel_config("fp8_gemm_1d1d", &p, 132, nullptr, &info),
            TILEC_COMPILER_OK);
  EXPECT_EQ(std::string(info.params).find("SPLIT_K"), std::string::npos);
}

// The reduce kernel's config follows the GEMM's: its BLK_M and SPLIT_K, D's
// dtype.
TEST_F(CompilerApi, SplitKReduceTakesTheGemmsSplit) {
  tilec_gemm_problem p = gemm(1, 2112, 7168);
  p.a_dtype = p.b_dtype = "e4m3";
  tilec_kernel_info info;
  ASSERT_EQ(tilec_kernel_config("splitk_reduce", &p, 132, nullptr, &info),
            TILEC_COMPILER_OK)
      << tilec_compiler_last_error();
  EXPECT_STREQ(info.params, "BLK_M=16 BLK_N=64 OUT=bf16 SPLIT_K=4");
  EXPECT_STREQ(info.family, "splitk_reduce");
  // bf16 inputs: bf16_gemm_nt's split (16x64 in 4 slices at 1x2112x7168).
  p.a_dtype = p.b_dtype = "bf16";
  ASSERT_EQ(tilec_kernel_config("splitk_reduce", &p, 132, nullptr, &info),
            TILEC_COMPILER_OK)
      << tilec_compiler_last_error();
  EXPECT_STREQ(info.params, "BLK_M=16 BLK_N=64 OUT=bf16 SPLIT_K=4");
  EXPECT_NE(std::string(info.reason).find("bf16_gemm_nt"), std::string::npos);
  p.a_dtype = p.b_dtype = "e4m3";
  p.d_dtype = "f32";
  p.k = 4096;
  p.n = 4096;
  ASSERT_EQ(tilec_kernel_config("splitk_reduce", &p, 132, nullptr, &info),
            TILEC_COMPILER_OK);
  EXPECT_STREQ(info.params, "BLK_M=16 BLK_N=64 OUT=f32 SPLIT_K=2");
}

TEST_F(CompilerApi, KernelKeysAreStableHexAndFollowTheParams) {
  tilec_gemm_problem p = gemm(4096, 4096, 4096);
  tilec_kernel_info a, b, c, d;
  ASSERT_EQ(tilec_kernel_config("fp8_gemm_1d2d", &p, 132, nullptr, &a), 0);
  ASSERT_EQ(tilec_kernel_config("fp8_gemm_1d2d", &p, 132, "sm_90a", &b), 0);
  EXPECT_STREQ(a.key, b.key);
  EXPECT_EQ(std::strlen(a.key), 64u);
  EXPECT_EQ(std::string(a.key).find_first_not_of("0123456789abcdef"),
            std::string::npos);
  EXPECT_STREQ(a.params, "ACCUMULATE=0 BLK_M=256 BLK_N=128 CLUSTER_N=2 "
                         "MAX_KB=0 OUT=bf16 STAGES=3 UNROLL=8 WAVES=2");
  // Another shape with the same params shares the kernel and its key.
  tilec_gemm_problem q = gemm(8192, 7168, 2048);
  ASSERT_EQ(tilec_kernel_config("fp8_gemm_1d2d", &q, 132, nullptr, &c), 0);
  EXPECT_STREQ(a.key, c.key);
  // Other params, or another family's spec, give another key.
  tilec_gemm_problem r = gemm(128, 4096, 4096);
  ASSERT_EQ(tilec_kernel_config("fp8_gemm_1d2d", &r, 132, nullptr, &d), 0);
  EXPECT_STRNE(a.key, d.key);
  tilec_gemm_problem h = gemm(4096, 4096, 4096);
  ASSERT_EQ(tilec_kernel_config("bf16_gemm_nt", &h, 132, nullptr, &c), 0);
  ASSERT_EQ(tilec_kernel_config("bf16_gemm_nn", &h, 132, nullptr, &d), 0);
  EXPECT_STREQ(c.params, d.params);
  EXPECT_STRNE(c.key, d.key);
}

TEST_F(CompilerApi, BadProblemsNameTheArgument) {
  tilec_kernel_info info;
  auto expectError = [&](const char *family, tilec_gemm_problem p, int32_t sms,
                         const char *target, const std::string &message) {
    EXPECT_EQ(tilec_kernel_config(family, &p, sms, target, &info),
              TILEC_COMPILER_ERROR_INVALID_ARGUMENT)
        << message;
    EXPECT_EQ(tilec_compiler_last_error(), message);
    const uint8_t *bundle;
    size_t size;
    EXPECT_EQ(
        tilec_get_kernel(family, &p, sms, target, &bundle, &size, nullptr),
        TILEC_COMPILER_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(tilec_compiler_last_error(), message);
  };
  tilec_gemm_problem ok = gemm(128, 256, 512);
  expectError(
      "bf16_gemm_xx", ok, 132, nullptr,
      "family 'bf16_gemm_xx' is not a kernel family; use one of "
      "bf16_gemm_nt, bf16_gemm_nn, bf16_gemm_tn, bf16_gemm_tt, "
      "fp8_gemm_1d2d, fp8_gemm_1d1d, splitk_reduce, m_grouped_bf16_gemm_nt, "
      "m_grouped_bf16_gemm_nn, m_grouped_fp8_gemm_1d2d");
  expectError(nullptr, ok, 132, nullptr,
              "family is NULL; use one of bf16_gemm_nt, bf16_gemm_nn, "
              "bf16_gemm_tn, bf16_gemm_tt, fp8_gemm_1d2d, fp8_gemm_1d1d, "
              "splitk_reduce, m_grouped_bf16_gemm_nt, m_grouped_bf16_gemm_nn, "
              "m_grouped_fp8_gemm_1d2d");
  // The reduce kernel exists only for problems whose GEMM splits K.
  tilec_gemm_problem unsplit = gemm(4096, 4096, 4096);
  unsplit.a_dtype = unsplit.b_dtype = "e4m3";
  expectError("splitk_reduce", unsplit, 132, nullptr,
              "problem 4096x4096x4096 does not split K (fp8_gemm_1d2d runs "
              "256x128 tiles unsplit): it has no splitk_reduce kernel");
  expectError("bf16_gemm_nt", gemm(0, 256, 512), 132, nullptr,
              "problem.m must be positive, got 0");
  expectError("bf16_gemm_nt", gemm(128, -4, 512), 132, nullptr,
              "problem.n must be positive, got -4");
  expectError("bf16_gemm_nt", gemm(128, 256, 1LL << 32), 132, nullptr,
              "problem.k = 4294967296 does not fit the kernels' 32-bit "
              "dimensions");
  tilec_gemm_problem p = ok;
  p.a_dtype = "fp9";
  expectError("bf16_gemm_nt", p, 132, nullptr,
              "problem.a_dtype 'fp9' is not an element type; use f16, bf16, "
              "f32, f64, tf32, i8, u8, i16, u16, i32, u32, i64, u64, e4m3, "
              "e5m2, e8m0");
  p.a_dtype = "e4m3";
  expectError("bf16_gemm_nt", p, 132, nullptr,
              "problem.a_dtype must be bf16 for bf16_gemm_nt, got e4m3");
  p = ok;
  p.b_dtype = "bf16";
  expectError("fp8_gemm_1d2d", p, 132, nullptr,
              "problem.b_dtype must be e4m3 for fp8_gemm_1d2d, got bf16");
  p = ok;
  p.d_dtype = "f16";
  expectError("bf16_gemm_nn", p, 132, nullptr,
              "problem.d_dtype must be bf16 or f32 for bf16_gemm_nn, got f16");
  p = ok;
  p.accumulate = 1;
  expectError("fp8_gemm_1d1d", p, 132, nullptr,
              "problem.accumulate needs d_dtype f32 for fp8_gemm_1d1d (D += "
              "A B^T adds in f32), got bf16");
  p = ok;
  p.reserved = 1;
  expectError("bf16_gemm_nt", p, 132, nullptr, "problem.reserved must be 0");
  p = ok;
  p.reserved2 = 1;
  expectError("bf16_gemm_nt", p, 132, nullptr, "problem.reserved2 must be 0");
  p = ok;
  p.num_groups = 4;
  expectError("fp8_gemm_1d2d", p, 132, nullptr,
              "problem.num_groups must be 0 for fp8_gemm_1d2d (it is not an "
              "M-grouped family), got 4");
  p = ok;
  expectError("m_grouped_fp8_gemm_1d2d", p, 132, nullptr,
              "problem.num_groups must be positive for m_grouped_fp8_gemm_1d2d "
              "(B is [G, N, K]), got 0");
  p.num_groups = 4;
  p.group_layout = 3;
  expectError("m_grouped_fp8_gemm_1d2d", p, 132, nullptr,
              "problem.group_layout must be 0 (contiguous), 1 (psum) or 2 "
              "(masked), got 3");
  p.group_layout = TILEC_GROUP_LAYOUT_PSUM;
  p.mk_alignment = 96;
  expectError("m_grouped_bf16_gemm_nt", p, 132, nullptr,
              "problem.mk_alignment must be a positive multiple of 64 for "
              "m_grouped_bf16_gemm_nt's contiguous layouts (its tiles of 64 or "
              "128 rows must not span two groups), got 96");
  p.mk_alignment = 0;
  p.d_dtype = "f32";
  expectError("m_grouped_bf16_gemm_nt", p, 132, nullptr,
              "problem.d_dtype must be bf16 for m_grouped_bf16_gemm_nt "
              "(DeepGEMM's grouped GEMMs write bf16), got f32");
  p.d_dtype = nullptr;
  p.accumulate = 1;
  expectError("m_grouped_bf16_gemm_nt", p, 132, nullptr,
              "problem.accumulate must be 0 for m_grouped_bf16_gemm_nt");
  expectError("bf16_gemm_nt", ok, 0, nullptr,
              "sm_count must be positive, got 0");
  expectError("bf16_gemm_nt", ok, 132, "sm_89",
              "unknown target 'sm_89'; use sm_90a or sm_100a");
  expectError("bf16_gemm_nt", ok, 132, "sm_100a",
              "target sm_100a: bf16_gemm_nt has sm_90a kernels only (its "
              "spec uses wgmma)");

  EXPECT_EQ(tilec_kernel_config("bf16_gemm_nt", nullptr, 132, nullptr, &info),
            TILEC_COMPILER_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(tilec_compiler_last_error(), "problem is NULL");
  EXPECT_EQ(tilec_kernel_config("bf16_gemm_nt", &ok, 132, nullptr, nullptr),
            TILEC_COMPILER_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(tilec_compiler_last_error(), "info is NULL");
  size_t size;
  EXPECT_EQ(tilec_get_kernel("bf16_gemm_nt", &ok, 132, nullptr, nullptr, &size,
                             nullptr),
            TILEC_COMPILER_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(tilec_compiler_last_error(), "bundle is NULL");
}

/// An M-grouped problem: `m` rows over `groups` groups in `layout`.
tilec_gemm_problem grouped(int64_t m, int64_t n, int64_t k, int32_t groups,
                           int32_t layout) {
  tilec_gemm_problem p = gemm(m, n, k);
  p.num_groups = groups;
  p.group_layout = layout;
  return p;
}

TEST_F(CompilerApi, GroupedConfigsFollowDeepGemmsBlockM) {
  struct Case {
    const char *family;
    tilec_gemm_problem problem;
    const char *params;
  };
  const Case cases[] = {
      // Contiguous (DeepGEMM's 8 x 4096 rows): tiles of the 128-row
      // alignment, the widest N with a tile for every SM (FP8: 192, two B
      // scale blocks).
      {"m_grouped_fp8_gemm_1d2d",
       grouped(8 * 4096, 4096, 7168, 8, TILEC_GROUP_LAYOUT_CONTIGUOUS),
       "BLK_M=128 BLK_N=192 GROUP=16 LAYOUT=0 MAX_KB=128 STAGES=4"},
      {"m_grouped_fp8_gemm_1d2d",
       grouped(4 * 8192, 7168, 3072, 4, TILEC_GROUP_LAYOUT_PSUM),
       "ALIGN=128 BLK_M=128 BLK_N=192 GROUP=16 LAYOUT=1 MAX_KB=0 STAGES=4"},
      // Masked, 20 expected rows per group: 64-row tiles.
      {"m_grouped_fp8_gemm_1d2d",
       grouped(32 * 24, 4096, 7168, 32, TILEC_GROUP_LAYOUT_MASKED),
       "BLK_M=64 BLK_N=192 GROUP=16 LAYOUT=2 MAX_KB=128 STAGES=6"},
      {"m_grouped_bf16_gemm_nt",
       grouped(4 * 8192, 4096, 7168, 4, TILEC_GROUP_LAYOUT_CONTIGUOUS),
       "BLK_M=128 BLK_N=256 GROUP=16 LAYOUT=0 STAGES=3"},
      // 6 groups of 20 rows: 256 columns would leave SMs idle, 128 not.
      // Masked BF16 tiles keep a K block's wgmmas in flight.
      {"m_grouped_bf16_gemm_nt",
       grouped(6 * 24, 4096, 2048, 6, TILEC_GROUP_LAYOUT_MASKED),
       "BLK_M=64 BLK_N=128 GROUP=16 LAYOUT=2 MMA_INFLIGHT=1 STAGES=8"},
      // At N = 6144, 64x256 is 144 tiles: a second wave of 12 on 132 SMs
      // (55% full over two waves); 64x128 fills 73% of three.
      {"m_grouped_bf16_gemm_nt",
       grouped(6 * 24, 6144, 7168, 6, TILEC_GROUP_LAYOUT_MASKED),
       "BLK_M=64 BLK_N=128 GROUP=16 LAYOUT=2 MMA_INFLIGHT=1 STAGES=8"},
      // 32 groups of 192 rows: 128x256 fills 97% of its waves.
      {"m_grouped_bf16_gemm_nt",
       grouped(32 * 192, 6144, 7168, 32, TILEC_GROUP_LAYOUT_MASKED),
       "BLK_M=128 BLK_N=256 GROUP=16 LAYOUT=2 MMA_INFLIGHT=1 STAGES=3"},
      // B [G, K, N]: the nt spec with B_MN = 1.
      {"m_grouped_bf16_gemm_nn",
       grouped(4 * 8192, 4096, 7168, 4, TILEC_GROUP_LAYOUT_CONTIGUOUS),
       "BLK_M=128 BLK_N=256 B_MN=1 GROUP=16 LAYOUT=0 STAGES=3"},
      // Fewer tiles than SMs whatever the width: the narrowest.
      {"m_grouped_bf16_gemm_nt",
       grouped(6 * 24, 512, 2048, 6, TILEC_GROUP_LAYOUT_MASKED),
       "BLK_M=64 BLK_N=64 GROUP=8 LAYOUT=2 MMA_INFLIGHT=1 STAGES=12"},
  };
  for (const Case &c : cases) {
    tilec_kernel_info config;
    ASSERT_EQ(tilec_kernel_config(c.family, &c.problem, 132, nullptr, &config),
              TILEC_COMPILER_OK)
        << tilec_compiler_last_error();
    EXPECT_STREQ(config.params, c.params) << c.family;
    EXPECT_STREQ(config.kernel_name,
                 std::string(c.family) == "m_grouped_bf16_gemm_nn"
                     ? "m_grouped_bf16_gemm_nt"
                     : c.family);
    if (!havePtxas())
      continue;
    // The predicted shared memory is what the compiled kernel asks for.
    tilec_kernel_info info;
    ASSERT_EQ(get(c.family, c.problem, info), TILEC_COMPILER_OK)
        << tilec_compiler_last_error();
    EXPECT_EQ(config.shared_bytes, info.shared_bytes) << c.params;
    EXPECT_EQ(config.threads, info.threads) << c.params;
  }
  // The memory cache keys a grouped problem by its groups and layout too.
  REQUIRE_PTXAS();
  tilec_kernel_info contiguous, psum;
  ASSERT_EQ(get("m_grouped_bf16_gemm_nt",
                grouped(1024, 512, 256, 4, TILEC_GROUP_LAYOUT_CONTIGUOUS),
                contiguous),
            TILEC_COMPILER_OK);
  ASSERT_EQ(get("m_grouped_bf16_gemm_nt",
                grouped(1024, 512, 256, 4, TILEC_GROUP_LAYOUT_PSUM), psum),
            TILEC_COMPILER_OK);
  EXPECT_NE(std::string(contiguous.params).find("LAYOUT=0"), std::string::npos);
  EXPECT_NE(std::string(psum.params).find("LAYOUT=1"), std::string::npos);
}

//===----------------------------------------------------------------------===//
// The caches
//===----------------------------------------------------------------------===//

TEST_F(CompilerApi, GetKernelCompilesThenHitsMemoryThenDisk) {
  REQUIRE_PTXAS();
  tilec_gemm_problem p = gemm(128, 2112, 7168);
  tilec_kernel_info info;
  ASSERT_EQ(get("fp8_gemm_1d2d", p, info), TILEC_COMPILER_OK)
      << tilec_compiler_last_error();
  EXPECT_EQ(info.source, TILEC_KERNEL_SOURCE_COMPILED);
  EXPECT_GT(info.seconds, 0.0);
  EXPECT_STREQ(info.kernel_name, "fp8_gemm_1d2d");
  EXPECT_EQ(info.threads, 256u);
  // The config's shared memory is what the compiled kernel asks for.
  tilec_kernel_info config;
  ASSERT_EQ(tilec_kernel_config("fp8_gemm_1d2d", &p, 132, nullptr, &config), 0);
  EXPECT_EQ(config.shared_bytes, info.shared_bytes);
  EXPECT_STREQ(config.key, info.key);
  struct stat entry;
  ASSERT_EQ(::stat(entryPath(info).c_str(), &entry), 0) << entryPath(info);

  ASSERT_EQ(get("fp8_gemm_1d2d", p, info), TILEC_COMPILER_OK);
  EXPECT_EQ(info.source, TILEC_KERNEL_SOURCE_MEMORY);
  EXPECT_EQ(info.seconds, 0.0);
  // Another shape with the same configuration is the same kernel (64 < M
  // <= 128, N <= 2112: the 64x32 row, whatever K).
  EXPECT_EQ(sourceOf("fp8_gemm_1d2d", gemm(100, 2000, 5120), false),
            TILEC_KERNEL_SOURCE_MEMORY);
  EXPECT_EQ(sourceOf("fp8_gemm_1d2d", p, true), TILEC_KERNEL_SOURCE_DISK);
}

TEST_F(CompilerApi, QuickBuildDropsUnrollAndPairsAndCachedOnlyNeverCompiles) {
  REQUIRE_PTXAS();
  tilec_gemm_problem p = gemm(128, 2112, 7168);
  const uint8_t *bundle = nullptr;
  size_t size = 0;
  tilec_kernel_info info;
  // Nothing cached yet: cached-only says so and compiles nothing.
  EXPECT_EQ(tilec_get_kernel_ex("fp8_gemm_1d2d", &p, 132, nullptr,
                                TILEC_KERNEL_CACHED_ONLY, &bundle, &size,
                                &info),
            TILEC_COMPILER_NOT_CACHED);
  ASSERT_EQ(tilec_get_kernel_ex("fp8_gemm_1d2d", &p, 132, nullptr,
                                TILEC_KERNEL_QUICK, &bundle, &size, &info),
            TILEC_COMPILER_OK)
      << tilec_compiler_last_error();
  EXPECT_STREQ(info.params,
               "ACCUMULATE=0 BLK_M=64 BLK_N=32 MAX_KB=0 OUT=bf16 STAGES=12");
  EXPECT_EQ(info.source, TILEC_KERNEL_SOURCE_COMPILED);
  tilec_kernel_info tuned;
  ASSERT_EQ(tilec_kernel_config("fp8_gemm_1d2d", &p, 132, nullptr, &tuned), 0);
  EXPECT_STREQ(tuned.params, "ACCUMULATE=0 BLK_M=64 BLK_N=32 MAX_KB=0 "
                             "OUT=bf16 OVERLAP=1 STAGES=12 UNROLL=4");
  EXPECT_EQ(info.shared_bytes, tuned.shared_bytes);
  EXPECT_STRNE(info.key, tuned.key);
  // The quick build is no hit for the configuration itself.
  EXPECT_EQ(tilec_get_kernel_ex("fp8_gemm_1d2d", &p, 132, nullptr,
                                TILEC_KERNEL_CACHED_ONLY, &bundle, &size,
                                &info),
            TILEC_COMPILER_NOT_CACHED);
  // Two waves with A multicast: the quick build is one wave of 128 rows,
  // unclustered, with the stages that fit.
  tilec_gemm_problem waves = gemm(4096, 7168, 2048);
  ASSERT_EQ(tilec_kernel_config("fp8_gemm_1d2d", &waves, 132, nullptr, &tuned),
            0);
  EXPECT_STREQ(tuned.params, "ACCUMULATE=0 BLK_M=256 BLK_N=128 CLUSTER_N=2 "
                             "MAX_KB=0 OUT=bf16 STAGES=3 UNROLL=8 WAVES=2");
  ASSERT_EQ(tilec_get_kernel_ex("fp8_gemm_1d2d", &waves, 132, nullptr,
                                TILEC_KERNEL_QUICK, &bundle, &size, &info),
            TILEC_COMPILER_OK)
      << tilec_compiler_last_error();
  EXPECT_STREQ(info.params,
               "ACCUMULATE=0 BLK_M=128 BLK_N=128 MAX_KB=0 OUT=bf16 STAGES=5");
  EXPECT_EQ(info.block_m, 128);
  EXPECT_EQ(info.threads, 384u);
  EXPECT_EQ(info.cluster[0], 1u);
  EXPECT_EQ(info.num_tiles, 32 * 56);
  // A configuration with nothing to drop is its own quick build.
  tilec_gemm_problem large = gemm(128, 24576, 1536);
  tilec_kernel_info plain;
  ASSERT_EQ(tilec_kernel_config("fp8_gemm_1d2d", &large, 132, nullptr, &plain),
            0);
  ASSERT_EQ(tilec_get_kernel_ex("fp8_gemm_1d2d", &large, 132, nullptr,
                                TILEC_KERNEL_QUICK, &bundle, &size, &info),
            TILEC_COMPILER_OK);
  EXPECT_STREQ(info.key, plain.key);
  ASSERT_EQ(tilec_get_kernel_ex("fp8_gemm_1d2d", &large, 132, nullptr,
                                TILEC_KERNEL_CACHED_ONLY, &bundle, &size,
                                &info),
            TILEC_COMPILER_OK);
  EXPECT_EQ(info.source, TILEC_KERNEL_SOURCE_MEMORY);
  EXPECT_EQ(tilec_get_kernel_ex("fp8_gemm_1d2d", &large, 132, nullptr, 8,
                                &bundle, &size, &info),
            TILEC_COMPILER_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(tilec_compiler_last_error(),
               "flags 0x8 has bits that are no tilec_kernel_flags");
}

TEST_F(CompilerApi, CorruptOrTruncatedEntryIsAMissAndReplaced) {
  REQUIRE_PTXAS();
  tilec_gemm_problem p = gemm(1, 576, 7168);
  tilec_kernel_info info;
  ASSERT_EQ(get("fp8_gemm_1d2d", p, info), TILEC_COMPILER_OK)
      << tilec_compiler_last_error();
  std::string path = entryPath(info);
  struct stat whole;
  ASSERT_EQ(::stat(path.c_str(), &whole), 0);

  ASSERT_EQ(::truncate(path.c_str(), whole.st_size / 2), 0);
  EXPECT_EQ(sourceOf("fp8_gemm_1d2d", p, true), TILEC_KERNEL_SOURCE_COMPILED);
  struct stat replaced;
  ASSERT_EQ(::stat(path.c_str(), &replaced), 0);
  EXPECT_EQ(replaced.st_size, whole.st_size);

  {
    // One flipped byte in the cubin: the checksum catches it.
    std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
    file.seekg(whole.st_size - 100);
    char byte = static_cast<char>(file.get());
    file.seekp(whole.st_size - 100);
    file.put(static_cast<char>(byte ^ 0xff));
  }
  EXPECT_EQ(sourceOf("fp8_gemm_1d2d", p, true), TILEC_KERNEL_SOURCE_COMPILED);
  EXPECT_EQ(sourceOf("fp8_gemm_1d2d", p, true), TILEC_KERNEL_SOURCE_DISK);
}

TEST_F(CompilerApi, TwoProcessesRacingOnOneKeyBothSucceed) {
  REQUIRE_PTXAS();
  tilec_gemm_problem p = gemm(128, 7168, 2048, "f32");
  pid_t children[2];
  for (pid_t &child : children) {
    child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      tilec_kernel_info info;
      const uint8_t *bundle;
      size_t size;
      tilec_compiler_status s = tilec_get_kernel(
          "bf16_gemm_nt", &p, 132, nullptr, &bundle, &size, &info);
      ::_exit(s == TILEC_COMPILER_OK && size > 0 ? 0 : 1);
    }
  }
  for (pid_t child : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  EXPECT_EQ(sourceOf("bf16_gemm_nt", p, true), TILEC_KERNEL_SOURCE_DISK)
      << "the entry is whole";
  // No temporary file is left behind.
  std::string command = "test $(ls -A '" + cacheDir + "/kernels' | wc -l) = 1";
  EXPECT_EQ(std::system(command.c_str()), 0);
}

TEST_F(CompilerApi, DisabledCacheWritesNothing) {
  REQUIRE_PTXAS();
  ::setenv("TILEC_DISABLE_CACHE", "1", 1);
  EXPECT_STREQ(tilec_cache_dir(), "");
  tilec_kernel_info info;
  ASSERT_EQ(get("bf16_gemm_nt", gemm(128, 24576, 1536), info),
            TILEC_COMPILER_OK)
      << tilec_compiler_last_error();
  EXPECT_EQ(info.source, TILEC_KERNEL_SOURCE_COMPILED);
  struct stat entry;
  EXPECT_NE(::stat((cacheDir + "/kernels").c_str(), &entry), 0);
}

TEST_F(CompilerApi, UnwritableCacheDirectoryIsAnError) {
  std::string file = cacheDir + "/plain-file";
  std::ofstream(file) << "not a directory";
  std::string dir = file + "/cache";
  ::setenv("TILEC_CACHE_DIR", dir.c_str(), 1);
  EXPECT_EQ(tilec_cache_dir(), dir);
  tilec_kernel_info info;
  EXPECT_EQ(get("bf16_gemm_nt", gemm(4096, 4096, 4096), info),
            TILEC_COMPILER_ERROR_CACHE);
  EXPECT_EQ(tilec_compiler_last_error(),
            "cache directory '" + dir +
                "/kernels' cannot be created: Not a directory (set "
                "TILEC_CACHE_DIR to a writable directory, or "
                "TILEC_DISABLE_CACHE=1)");
}

TEST_F(CompilerApi, PrintSwitchesReportConfigsAndCompiles) {
  REQUIRE_PTXAS();
  ::setenv("TILEC_PRINT_CONFIGS", "1", 1);
  ::setenv("TILEC_PRINT_COMPILES", "1", 1);
  testing::internal::CaptureStderr();
  tilec_kernel_info info;
  ASSERT_EQ(get("bf16_gemm_tt", gemm(300, 6000, 1000), info),
            TILEC_COMPILER_OK);
  ASSERT_EQ(get("bf16_gemm_tt", gemm(300, 6000, 1000), info),
            TILEC_COMPILER_OK);
  std::string printed = testing::internal::GetCapturedStderr();
  EXPECT_NE(printed.find("tilec: bf16_gemm_tt M=300 N=6000 K=1000 (bf16 x "
                         "bf16 -> bf16) on 132 SMs, sm_90a: ACCUMULATE=0 "
                         "BLK_K=64 BLK_M=128 BLK_N=192 OUT=bf16 STAGES=4; "
                         "96 tiles, 384 threads"),
            std::string::npos)
      << printed;
  EXPECT_NE(printed.find("tilec: compiled bf16_gemm_tt [ACCUMULATE=0 "
                         "BLK_K=64 BLK_M=128 BLK_N=192 OUT=bf16 STAGES=4] "
                         "for sm_90a in "),
            std::string::npos)
      << printed;
  // The second call, a memory hit, prints nothing.
  EXPECT_EQ(std::count(printed.begin(), printed.end(), '\n'), 2) << printed;
}

} // namespace

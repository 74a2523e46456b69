//===- KernelLibraryTest.cpp - configs, keys and the disk cache in C++ ---===//
//
// What the C API cannot reach: the key's derivation, the shared-memory model
// against the allocator's rule, and the disk cache under processes that
// race on one key. Needs no ptxas.
//
//===----------------------------------------------------------------------===//

#include "lib/CAPI/DiskCache.h"
#include "lib/Kernels/KernelConfigs.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/SHA256.h"

#include "gtest/gtest.h"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

using namespace tilec;
using namespace tilec::kernels;

namespace {

std::string sha256(llvm::StringRef text) {
  return llvm::toHex(llvm::SHA256::hash(llvm::arrayRefFromStringRef(text)),
                     /*LowerCase=*/true);
}

std::string readSource(const std::string &relative) {
  std::ifstream in(std::string(TILEC_SOURCE_DIR) + "/" + relative);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(KernelLibrary, SpecHashIsTheEmbeddedFilesHash) {
  for (const KernelFamily &family : kernelFamilies()) {
    std::string file = readSource("lib/Kernels/" + family.specFile.str());
    EXPECT_EQ(familySpec(family), file) << family.name.str();
    EXPECT_EQ(familySpecHash(family), sha256(file)) << family.name.str();
  }
}

TEST(KernelLibrary, EachFamilysKernelIsInItsSpec) {
  for (const KernelFamily &family : kernelFamilies())
    EXPECT_NE(familySpec(family).find(
                  ("kernel " + familyKernelName(family) + "(").str()),
              llvm::StringRef::npos)
        << family.name.str();
  const KernelFamily *nn = findKernelFamily("m_grouped_bf16_gemm_nn");
  ASSERT_NE(nn, nullptr);
  EXPECT_EQ(familyKernelName(*nn), "m_grouped_bf16_gemm_nt");
}

TEST(KernelLibrary, KeyIsTheHashOfItsDocumentedText) {
  const KernelFamily *family = findKernelFamily("bf16_gemm_nt");
  ASSERT_NE(family, nullptr);
  GemmProblem problem;
  problem.m = problem.n = problem.k = 4096;
  KernelConfig config;
  ASSERT_EQ(chooseConfig(*family, problem, 132, "", config), "");
  std::string text = "tilec kernel key 1\nfamily=bf16_gemm_nt\nspec=" +
                     familySpecHash(*family) +
                     "\nparams=ACCUMULATE=0 BLK_K=64 BLK_M=128 BLK_N=256 "
                     "OUT=bf16 STAGES=3\ntarget=sm_90a\ncompiler=9.9\n";
  EXPECT_EQ(kernelKey(config, "9.9"), sha256(text));
  // A newer compiler never shares a key with an older one.
  EXPECT_NE(kernelKey(config, "9.9"), kernelKey(config, "9.10"));
}

TEST(KernelLibrary, SharedMemoryFollowsTheAllocator) {
  // Largest alignment first, then the barriers 8-byte aligned.
  EXPECT_EQ(layoutSharedMemory({{100, 128}, {2048, 1024}}, 2), 2048 + 104 + 16);
  EXPECT_EQ(layoutSharedMemory({{4, 128}, {4, 128}}, 0), 136);
  // docs/kernels.md's figures for the FP8 specs at their default stages.
  const KernelFamily *fp8 = findKernelFamily("fp8_gemm_1d2d");
  GemmProblem problem;
  // 1024 x 2048: 128 tiles of 128 x 128 are one wave (256 x 128 would
  // leave half the SMs idle), at 5 stages.
  problem.m = 1024;
  problem.n = 2048;
  problem.k = 4096;
  problem.a = problem.b = vocab::ElementType::E4M3;
  KernelConfig config;
  ASSERT_EQ(chooseConfig(*fp8, problem, 132, "", config), "");
  EXPECT_EQ(config.sharedBytes, 199256);
  problem.m = problem.n = 4096;
  problem.d = vocab::ElementType::F32;
  ASSERT_EQ(chooseConfig(*fp8, problem, 132, "", config), "");
  EXPECT_EQ(config.sharedBytes, 232024);
  const KernelFamily *fp8Wgrad = findKernelFamily("fp8_gemm_1d1d");
  problem.d = vocab::ElementType::BF16;
  ASSERT_EQ(chooseConfig(*fp8Wgrad, problem, 132, "", config), "");
  EXPECT_EQ(config.sharedBytes, 201808);
}

class DiskCacheTest : public ::testing::Test {
protected:
  void SetUp() override {
    char dir[] = "/tmp/tilec-disk-XXXXXX";
    ASSERT_NE(::mkdtemp(dir), nullptr);
    root = dir;
  }
  void TearDown() override {
    ASSERT_EQ(std::system(("rm -rf '" + root + "'").c_str()), 0);
  }
  std::string root;
};

TEST_F(DiskCacheTest, StoresAndLoadsByKeyAndVersion) {
  DiskCache cache(root);
  ASSERT_EQ(cache.prepare(), "");
  std::vector<uint8_t> payload = {1, 2, 3, 0, 255};
  EXPECT_FALSE(cache.load("k1", "v1"));
  ASSERT_EQ(cache.store("k1", "v1", payload), "");
  EXPECT_EQ(cache.load("k1", "v1"), payload);
  // Another compiler's entry, or another key's, is a miss.
  EXPECT_FALSE(cache.load("k1", "v2"));
  EXPECT_FALSE(cache.load("k2", "v1"));
  EXPECT_EQ(cache.entryPath("k1"), root + "/kernels/k1.kernel");
}

TEST_F(DiskCacheTest, GarbageIsAMiss) {
  DiskCache cache(root);
  ASSERT_EQ(cache.prepare(), "");
  for (const char *garbage :
       {"", "tilec kernel cache 1\n", "tilec kernel cache 1\nkey=k\n\nxx",
        "something else entirely\n\n"}) {
    std::ofstream(cache.entryPath("k"), std::ios::binary) << garbage;
    EXPECT_FALSE(cache.load("k", "v")) << garbage;
  }
}

TEST_F(DiskCacheTest, RacingProcessesNeverLeaveAPartialEntry) {
  DiskCache cache(root);
  ASSERT_EQ(cache.prepare(), "");
  // Two writers store different payloads under one key again and again
  // while a reader loads it: every load is a miss or one whole payload.
  std::vector<uint8_t> small(1000, 'a'), large(300000, 'b');
  pid_t writers[2];
  for (int w = 0; w < 2; ++w) {
    writers[w] = ::fork();
    ASSERT_GE(writers[w], 0);
    if (writers[w] == 0) {
      for (int i = 0; i < 50; ++i)
        if (!cache.store("key", "v", w ? large : small).empty())
          ::_exit(1);
      ::_exit(0);
    }
  }
  int loads = 0, hits = 0;
  for (;; ++loads) {
    if (std::optional<std::vector<uint8_t>> got = cache.load("key", "v")) {
      ++hits;
      ASSERT_TRUE(*got == small || *got == large) << got->size();
    }
    int status = 0;
    if (::waitpid(writers[0], &status, WNOHANG) == writers[0]) {
      ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
      ASSERT_EQ(::waitpid(writers[1], &status, 0), writers[1]);
      ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
      break;
    }
  }
  std::optional<std::vector<uint8_t>> last = cache.load("key", "v");
  ASSERT_TRUE(last);
  EXPECT_TRUE(*last == small || *last == large);
  // Only the entry is left: no temporary file.
  EXPECT_EQ(
      std::system(("test $(ls -A '" + root + "/kernels' | wc -l) = 1").c_str()),
      0);
}

TEST_F(DiskCacheTest, EnvironmentPicksTheDirectory) {
  std::string error;
  ::setenv("TILEC_CACHE_DIR", root.c_str(), 1);
  ::unsetenv("TILEC_DISABLE_CACHE");
  EXPECT_EQ(cacheDirFromEnvironment(error), root);
  ::unsetenv("TILEC_CACHE_DIR");
  ::setenv("HOME", "/home/someone", 1);
  EXPECT_EQ(cacheDirFromEnvironment(error), "/home/someone/.cache/tilec");
  ::setenv("TILEC_DISABLE_CACHE", "1", 1);
  EXPECT_EQ(cacheDirFromEnvironment(error), "");
  EXPECT_EQ(error, "");
  ::setenv("TILEC_DISABLE_CACHE", "0", 1);
  EXPECT_FALSE(envFlag("TILEC_DISABLE_CACHE"));
  ::unsetenv("TILEC_DISABLE_CACHE");
}

} // namespace

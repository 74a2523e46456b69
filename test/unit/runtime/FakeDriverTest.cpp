//===- FakeDriverTest.cpp - The runtime's driver path, on a fake driver ---===//
//
// CTest runs this with TILEC_CUDA_DRIVER naming libfakecuda.so, which records
// every driver call. The tests check what a GPU would be asked to do: the
// symbol versions, contexts, module load and unload, function attributes,
// tensor maps (and their cache) and the exact launch parameter array.
//
//===----------------------------------------------------------------------===//

#include "FakeCuda.h"
#include "SampleBundle.h"

#include "tilec/Runtime.h"
#include "tilec/tilec_runtime.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <thread>

using namespace tilec;
using bundle::DType;
using rt::Arg;

namespace {

constexpr uint64_t kX = 0x7f0000010000, kY = 0x7f0000800000;

fakecuda::State &fake() {
  static fakecuda::State *state = [] {
    // The same library the runtime loads: dlopen returns the same instance.
    void *library = dlopen(std::getenv("TILEC_CUDA_DRIVER"), RTLD_NOW);
    auto get = reinterpret_cast<fakecuda::State *(*)()>(
        library ? dlsym(library, "fakecuda_state") : nullptr);
    return get ? get() : nullptr;
  }();
  if (!state)
    std::abort(); // run through CTest, which sets TILEC_CUDA_DRIVER
  return *state;
}

class FakeDriver : public ::testing::Test {
protected:
  void SetUp() override {
    fake().reset();
    fake().functions = {"copy", "gemm"};
    fake().paramSizes["copy"] = {128, 128};
    fake().paramSizes["gemm"] = {128, 128, 4, 4, 8, 8, 2};
  }

  std::unique_ptr<rt::Module> load() {
    rt::Error error;
    auto module = rt::Module::load(test::makeSampleBundle(), error);
    EXPECT_TRUE(module) << error.message;
    return module;
  }

  std::vector<Arg> copyArgs(int64_t rows, int64_t columns) {
    return {Arg::tensor(kX, DType::F32, {rows, columns}),
            Arg::tensor(kY, DType::F32, {rows, columns})};
  }
};

uint64_t word(const std::vector<uint8_t> &bytes) {
  uint64_t value = 0;
  std::memcpy(&value, bytes.data(), std::min<size_t>(8, bytes.size()));
  return value;
}

TEST_F(FakeDriver, AsksForTheVersionedSymbols) {
  ASSERT_FALSE(rt::driverStatus()) << rt::driverStatus().message;
  std::lock_guard<std::mutex> lock(fake().mutex);
  auto &versions = fake().requestedVersions;
  // Base names with the version whose ABI cuda.h declares.
  EXPECT_EQ(versions["cuMemAlloc"], 3020);
  EXPECT_EQ(versions["cuCtxPushCurrent"], 4000);
  EXPECT_EQ(versions["cuDevicePrimaryCtxRelease"], 11000);
  EXPECT_EQ(versions["cuLaunchKernelEx"], 11060);
  EXPECT_EQ(versions["cuTensorMapEncodeTiled"], 12000);
  EXPECT_EQ(versions["cuOccupancyMaxActiveClusters"], 11080);
  EXPECT_EQ(versions.count("cuMemAlloc_v2"), 0u);
  EXPECT_EQ(versions.size(), 26u);
}

TEST_F(FakeDriver, LoadsIntoThePrimaryContextAndUnloads) {
  {
    auto module = load();
    ASSERT_TRUE(module);
    std::lock_guard<std::mutex> lock(fake().mutex);
    EXPECT_EQ(fake().moduleLoads, 1);
    // The cubin, not the PTX, is loaded when both are present.
    EXPECT_EQ(fake().lastImage[0], 0x7f);
    EXPECT_EQ(fake().lastImage[1], 'E');
  }
  std::lock_guard<std::mutex> lock(fake().mutex);
  EXPECT_EQ(fake().moduleUnloads, 1);
  EXPECT_EQ(fake().pushes, fake().pops); // the caller's context is restored
}

TEST_F(FakeDriver, ReportsLoadFailures) {
  fake().functions = {"copy"};
  rt::Error error;
  EXPECT_EQ(rt::Module::load(test::makeSampleBundle(), error), nullptr);
  EXPECT_EQ(error.status, rt::Status::CudaError);
  EXPECT_EQ(error.message, "kernel 'gemm' is in the metadata but not in the "
                           "code: CUDA_ERROR_UNKNOWN (fake failure)");
  EXPECT_EQ(fake().moduleUnloads, 1); // the half-loaded module is unloaded

  bundle::Bundle badPtx = test::makeSampleBundle();
  badPtx.cubin.clear();
  badPtx.ptx = "BAD ptx";
  EXPECT_EQ(rt::Module::load(badPtx, error), nullptr);
  EXPECT_EQ(error.message,
            "cannot load the PTX for target sm_90a on a device of compute "
            "capability 9.0: CUDA_ERROR_INVALID_PTX (fake failure)\nptxas "
            "fatal: fake");
}

TEST_F(FakeDriver, LaunchesCopyWithTensorMapsClusterAndSharedMemory) {
  auto module = load();
  rt::Error error;
  rt::Kernel *copy = module->kernel("copy", error);
  ASSERT_TRUE(copy) << error.message;
  std::vector<Arg> args = copyArgs(1000, 1000);
  auto stream = reinterpret_cast<void *>(0xabc);
  ASSERT_FALSE(copy->launch(args.data(), 2, stream));

  std::lock_guard<std::mutex> lock(fake().mutex);
  ASSERT_EQ(fake().encodes.size(), 2u);
  const fakecuda::EncodeCall &x = fake().encodes[0];
  EXPECT_EQ(x.dtype, CU_TENSOR_MAP_DATA_TYPE_FLOAT32);
  EXPECT_EQ(x.rank, 2u);
  EXPECT_EQ(x.address, kX);
  EXPECT_EQ(x.dims, (std::vector<uint64_t>{1000, 1000}));
  EXPECT_EQ(x.strides, (std::vector<uint64_t>{4000}));
  EXPECT_EQ(x.box, (std::vector<uint32_t>{32, 64})); // innermost first
  EXPECT_EQ(x.elementStrides, (std::vector<uint32_t>{1, 1}));
  EXPECT_EQ(x.swizzle, CU_TENSOR_MAP_SWIZZLE_128B);
  EXPECT_EQ(x.oobFill, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  EXPECT_EQ(fake().encodes[1].address, kY);

  ASSERT_EQ(fake().functionAttributes.size(), 1u);
  EXPECT_EQ(fake().functionAttributes[0].first,
            CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES);
  EXPECT_EQ(fake().functionAttributes[0].second, 8192);

  ASSERT_EQ(fake().launches.size(), 1u);
  const fakecuda::LaunchCall &launch = fake().launches[0];
  EXPECT_EQ(launch.function, "copy");
  EXPECT_EQ(launch.grid[0], 32u); // ceil(1000 / 32) = 32, whole clusters
  EXPECT_EQ(launch.grid[1], 16u); // ceil(1000 / 64)
  EXPECT_EQ(launch.grid[2], 1u);
  EXPECT_EQ(launch.block[0], 128u);
  EXPECT_EQ(launch.sharedBytes, 8192u);
  EXPECT_EQ(launch.stream, stream);
  ASSERT_TRUE(launch.hasCluster);
  EXPECT_EQ(launch.cluster[0], 2u);
  EXPECT_EQ(launch.cluster[1], 1u);
  EXPECT_NE(launch.context, nullptr);
  // Each map is passed by value: a 64-byte-aligned 128-byte copy.
  ASSERT_EQ(launch.params.size(), 2u);
  EXPECT_TRUE(launch.aligned64[0]);
  EXPECT_TRUE(launch.aligned64[1]);
  EXPECT_EQ(word(launch.params[0]), kX);
  EXPECT_EQ(word(launch.params[1]), kY);
}

TEST_F(FakeDriver, CachesTensorMapsPerSignature) {
  auto module = load();
  rt::Error error;
  rt::Kernel *copy = module->kernel("copy", error);
  std::vector<Arg> args = copyArgs(256, 256);
  ASSERT_FALSE(copy->launch(args.data(), 2));
  ASSERT_FALSE(copy->launch(args.data(), 2));
  EXPECT_EQ(fake().encodes.size(), 2u); // the second launch hit the cache
  args[0].data += 1024;
  ASSERT_FALSE(copy->launch(args.data(), 2));
  EXPECT_EQ(fake().encodes.size(), 3u);            // only X changed
  EXPECT_EQ(fake().functionAttributes.size(), 1u); // set once per kernel
  ASSERT_EQ(fake().launches.size(), 3u);
  EXPECT_EQ(word(fake().launches[1].params[0]), kX);
  EXPECT_EQ(word(fake().launches[2].params[0]), kX + 1024);
}

// Arguments for the sample bundle's gemm kernel (every parameter kind).
std::vector<Arg> gemmArgs() {
  return {Arg::tensor(kX, DType::BF16, {384, 4096}),
          Arg::tensor(kY, DType::BF16, {8192, 4096}),
          Arg::tensor(kY + 0x10000000, DType::F32, {384, 8192}, {8200, 1}),
          Arg::floating(DType::F32, 0.5), Arg::integer(DType::I16, 300)};
}

/// Loads the sample bundle and launches its gemm once with gemmArgs(); true
/// if exactly one launch reached the driver.
bool launchGemmOnce() {
  rt::Error error;
  auto module = rt::Module::load(test::makeSampleBundle(), error);
  rt::Kernel *gemm = module ? module->kernel("gemm", error) : nullptr;
  if (!gemm) {
    ADD_FAILURE() << error.message;
    return false;
  }
  std::vector<Arg> args = gemmArgs();
  if (gemm->launch(args.data(), args.size()))
    return false;
  std::lock_guard<std::mutex> lock(fake().mutex);
  return fake().launches.size() == 1;
}

TEST_F(FakeDriver, GemmPassesEveryParameterKindAndPersistentGrid) {
  fake().smCount = 133;
  ASSERT_TRUE(launchGemmOnce());
  std::lock_guard<std::mutex> lock(fake().mutex);
  const fakecuda::LaunchCall &launch = fake().launches[0];
  EXPECT_EQ(launch.grid[0], 132u); // 133 SMs, rounded down to clusters of 2
  EXPECT_EQ(launch.sharedBytes, 200704u);
  EXPECT_EQ(fake().encodes[0].dtype, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16);
  EXPECT_EQ(fake().encodes[1].oobFill,
            CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA);
  EXPECT_EQ(fake().encodes[1].l2Promotion, CU_TENSOR_MAP_L2_PROMOTION_L2_256B);
  EXPECT_EQ(word(launch.params[2]) & 0xffffffff, 384u); // dim A[0], i32
  float alpha;
  std::memcpy(&alpha, launch.params[3].data(), 4);
  EXPECT_EQ(alpha, 0.5f);
  EXPECT_EQ(word(launch.params[4]), kY + 0x10000000); // pointer D
  EXPECT_EQ(word(launch.params[5]), 8200u);           // stride D[0]
  EXPECT_EQ(word(launch.params[6]) & 0xffff, 300u);   // i16 n
}

// A cluster's CTAs must share a GPC, so fewer clusters than SMs / 2 may fit
// at once; the persistent grid takes only those (no second, idle wave).
TEST_F(FakeDriver, PersistentGridHoldsOnlyClustersThatFitAtOnce) {
  fake().maxActiveClusters = 60;
  ASSERT_TRUE(launchGemmOnce());
  std::lock_guard<std::mutex> lock(fake().mutex);
  EXPECT_EQ(fake().launches[0].grid[0], 120u); // 60 clusters of 2
}

// DeepGEMM's set_num_sms: a persistent grid bounded below the SMs, in whole
// clusters (the sample GEMM has clusters of 2), at least one; 0 lifts it.
TEST_F(FakeDriver, PersistentLimitBoundsTheGridInWholeClusters) {
  rt::Error error;
  auto module = rt::Module::load(test::makeSampleBundle(), error);
  ASSERT_TRUE(module) << error.message;
  rt::Kernel *gemm = module->kernel("gemm", error);
  ASSERT_TRUE(gemm) << error.message;
  std::vector<Arg> args = gemmArgs();
  for (uint32_t limit : {101u, 1u, 0u}) {
    gemm->setPersistentLimit(limit);
    ASSERT_FALSE(gemm->launch(args.data(), args.size()));
    uint32_t grid[3];
    ASSERT_FALSE(gemm->computeGrid(args.data(), args.size(), grid));
    std::lock_guard<std::mutex> lock(fake().mutex);
    uint32_t expected = limit == 101 ? 100 : limit == 1 ? 2 : 132;
    EXPECT_EQ(fake().launches.back().grid[0], expected) << limit;
    EXPECT_EQ(grid[0], expected) << limit;
  }
}

TEST_F(FakeDriver, LargeClustersAreOptedIn) {
  bundle::Bundle big = test::makeSampleBundle();
  big.kernels[0].cluster = {16, 1, 1};
  rt::Error error;
  auto module = rt::Module::load(big, error);
  ASSERT_TRUE(module) << error.message;
  rt::Kernel *copy = module->kernel("copy", error);
  std::vector<Arg> args = copyArgs(64, 64);
  ASSERT_FALSE(copy->launch(args.data(), 2));
  ASSERT_EQ(fake().functionAttributes.size(), 2u);
  EXPECT_EQ(fake().functionAttributes[1].first,
            CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED);
  EXPECT_EQ(fake().launches[0].grid[0], 16u);
}

TEST_F(FakeDriver, EncodeFailuresNameTheArgument) {
  auto module = load();
  rt::Error error;
  rt::Kernel *copy = module->kernel("copy", error);
  fake().failEncodeAddress = kY;
  std::vector<Arg> args = copyArgs(100, 60);
  error = copy->launch(args.data(), 2);
  EXPECT_EQ(error.status, rt::Status::CudaError);
  EXPECT_EQ(error.message,
            "argument 'Y' (index 1): cuTensorMapEncodeTiled failed for param 1 "
            "(dims [60, 100], byte strides [240], innermost first): "
            "CUDA_ERROR_INVALID_VALUE (invalid argument)");
  EXPECT_TRUE(fake().launches.empty());
}

TEST_F(FakeDriver, EmptyGridLaunchesNothing) {
  bundle::Bundle pointers = test::makeSampleBundle();
  pointers.kernels[0].params.clear(); // no TMA: empty tensors are allowed
  fake().paramSizes["copy"] = {};
  rt::Error error;
  auto module = rt::Module::load(pointers, error);
  rt::Kernel *copy = module->kernel("copy", error);
  std::vector<Arg> args = {Arg::tensor(0, DType::F32, {0, 8}),
                           Arg::tensor(0, DType::F32, {0, 8})};
  EXPECT_FALSE(copy->launch(args.data(), 2));
  EXPECT_TRUE(fake().launches.empty());
}

// A tensor list's maps travel as one by-value array: map i in slot i, zero
// for an empty tensor and past the list's end.
TEST_F(FakeDriver, TensorListMapsTravelAsOneArray) {
  fake().functions.insert("grouped");
  fake().paramSizes["grouped"] = {4 * 128, 4, 128};
  bundle::Bundle contents = test::makeSampleBundle();
  contents.kernels.push_back(test::makeGroupedKernel());
  rt::Error error;
  auto module = rt::Module::load(contents, error);
  rt::Kernel *grouped = module ? module->kernel("grouped", error) : nullptr;
  ASSERT_TRUE(grouped) << error.message;
  Arg tensors[3] = {Arg::tensor(kX, DType::E4M3, {256, 512}),
                    Arg::tensor(kX + 0x40000, DType::E4M3, {256, 0}),
                    Arg::tensor(kX + 0x80000, DType::E4M3, {256, 384})};
  Arg args[2] = {Arg::tensorList(tensors, 3),
                 Arg::tensor(kY, DType::F32, {3, 256, 256})};
  ASSERT_FALSE(grouped->launch(args, 2)) << error.message;
  std::lock_guard<std::mutex> lock(fake().mutex);
  ASSERT_EQ(fake().encodes.size(), 3u);
  EXPECT_EQ(fake().encodes[0].dims, (std::vector<uint64_t>{512, 256}));
  EXPECT_EQ(fake().encodes[1].address, kX + 0x80000);
  EXPECT_EQ(fake().encodes[1].box, (std::vector<uint32_t>{128, 128}));
  ASSERT_EQ(fake().launches.size(), 1u);
  const fakecuda::LaunchCall &launch = fake().launches[0];
  ASSERT_EQ(launch.params.size(), 3u);
  EXPECT_TRUE(launch.aligned64[0]);
  const std::vector<uint8_t> &maps = launch.params[0];
  auto slot = [&](size_t i) {
    return std::vector<uint8_t>(maps.begin() + 128 * i,
                                maps.begin() + 128 * (i + 1));
  };
  EXPECT_EQ(word(slot(0)), kX);
  EXPECT_EQ(slot(1), std::vector<uint8_t>(128, 0)); // the empty tensor
  EXPECT_EQ(word(slot(2)), kX + 0x80000);
  EXPECT_EQ(slot(3), std::vector<uint8_t>(128, 0));   // past the end
  EXPECT_EQ(word(launch.params[1]) & 0xffffffff, 3u); // the list's length
  EXPECT_EQ(word(launch.params[2]), kY);
}

TEST_F(FakeDriver, CApiRoundTrip) {
  std::vector<uint8_t> bytes;
  std::string message;
  ASSERT_TRUE(
      bundle::serializeBundle(test::makeSampleBundle(), bytes, message));
  tilec_module *module = nullptr;
  ASSERT_EQ(tilec_module_load_data(bytes.data(), bytes.size(), &module),
            TILEC_SUCCESS)
      << tilec_last_error();
  EXPECT_EQ(tilec_module_num_kernels(module), 2u);
  EXPECT_STREQ(tilec_module_kernel_name(module, 1), "gemm");
  tilec_kernel *kernel = nullptr;
  EXPECT_EQ(tilec_module_get_kernel(module, nullptr, &kernel),
            TILEC_ERROR_NOT_FOUND);
  EXPECT_STREQ(tilec_last_error(), "the module has 2 kernels; name one");
  EXPECT_EQ(tilec_module_get_kernel(module, "gem", &kernel),
            TILEC_ERROR_NOT_FOUND);
  EXPECT_STREQ(tilec_last_error(),
               "no kernel named 'gem' (the module has: copy, gemm)");
  ASSERT_EQ(tilec_module_get_kernel(module, "copy", &kernel), TILEC_SUCCESS);
  EXPECT_STREQ(tilec_kernel_name(kernel), "copy");
  ASSERT_EQ(tilec_kernel_num_args(kernel), 2u);
  tilec_arg_info info;
  ASSERT_EQ(tilec_kernel_arg_info(kernel, 1, &info), TILEC_SUCCESS);
  EXPECT_STREQ(info.name, "Y");
  EXPECT_EQ(info.dtype, TILEC_DTYPE_F32);
  EXPECT_EQ(info.rank, 2);
  EXPECT_EQ(info.shape[0], -1);
  EXPECT_EQ(tilec_kernel_arg_info(kernel, 2, &info), TILEC_ERROR_INVALID_VALUE);

  tilec_arg args[2] = {};
  for (tilec_arg &arg : args) {
    arg.kind = TILEC_ARG_TENSOR;
    arg.dtype = TILEC_DTYPE_F32;
    arg.rank = 2;
    arg.shape[0] = 64;
    arg.shape[1] = 64;
    arg.strides[0] = 64;
    arg.strides[1] = 1;
  }
  args[0].data = kX;
  args[1].data = kY + 8;
  EXPECT_EQ(tilec_check(kernel, args, 2), TILEC_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(tilec_last_error(),
               "argument 'Y' (index 1): data pointer 0x7f0000800008 is not "
               "16-byte aligned, TMA needs 16-byte alignment");
  // A wild count is reported, never allocated for (which would throw).
  EXPECT_EQ(tilec_check(kernel, args, SIZE_MAX), TILEC_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(tilec_last_error()),
            "kernel 'copy' takes 2 arguments (X, Y), got " +
                std::to_string(SIZE_MAX));
  EXPECT_EQ(tilec_launch(kernel, args, SIZE_MAX, nullptr),
            TILEC_ERROR_INVALID_ARGUMENT);
  args[1].data = kY;
  EXPECT_EQ(tilec_launch(kernel, args, 2, nullptr), TILEC_SUCCESS)
      << tilec_last_error();
  EXPECT_STREQ(tilec_last_error(), "");
  EXPECT_EQ(fake().launches.size(), 1u);
  EXPECT_EQ(tilec_module_unload(module), TILEC_SUCCESS);
  EXPECT_EQ(fake().moduleUnloads, 1);
}

// The C API passes a tensor list as an array of tensor arguments.
TEST_F(FakeDriver, CApiTensorLists) {
  fake().functions.insert("grouped");
  fake().paramSizes["grouped"] = {4 * 128, 4, 128};
  bundle::Bundle contents = test::makeSampleBundle();
  contents.kernels.push_back(test::makeGroupedKernel());
  std::vector<uint8_t> bytes;
  std::string message;
  ASSERT_TRUE(bundle::serializeBundle(contents, bytes, message)) << message;
  tilec_module *module = nullptr;
  ASSERT_EQ(tilec_module_load_data(bytes.data(), bytes.size(), &module),
            TILEC_SUCCESS)
      << tilec_last_error();
  tilec_kernel *kernel = nullptr;
  ASSERT_EQ(tilec_module_get_kernel(module, "grouped", &kernel), TILEC_SUCCESS);
  tilec_arg_info info;
  ASSERT_EQ(tilec_kernel_arg_info(kernel, 0, &info), TILEC_SUCCESS);
  EXPECT_EQ(info.kind, TILEC_ARG_TENSOR_LIST);
  EXPECT_EQ(info.capacity, 4);
  EXPECT_EQ(info.rank, 3);
  ASSERT_EQ(tilec_kernel_arg_info(kernel, 1, &info), TILEC_SUCCESS);
  EXPECT_EQ(info.capacity, 0);

  tilec_arg tensors[2] = {};
  for (int e = 0; e < 2; ++e) {
    tensors[e].kind = TILEC_ARG_TENSOR;
    tensors[e].dtype = TILEC_DTYPE_E4M3;
    tensors[e].rank = 2;
    tensors[e].data = kX + 0x100000 * e;
    tensors[e].shape[0] = 256;
    tensors[e].shape[1] = 128 * (e + 1);
    tensors[e].strides[0] = 128 * (e + 1);
    tensors[e].strides[1] = 1;
  }
  tilec_arg args[2] = {};
  args[0].kind = TILEC_ARG_TENSOR_LIST;
  args[0].rank = 2;
  args[0].data = uint64_t(uintptr_t(tensors));
  args[1].kind = TILEC_ARG_TENSOR;
  args[1].dtype = TILEC_DTYPE_F32;
  args[1].rank = 3;
  args[1].data = kY;
  args[1].shape[0] = 2;
  args[1].shape[1] = args[1].shape[2] = 256;
  args[1].strides[0] = 256 * 256;
  args[1].strides[1] = 256;
  args[1].strides[2] = 1;
  ASSERT_EQ(tilec_launch(kernel, args, 2, nullptr), TILEC_SUCCESS)
      << tilec_last_error();
  ASSERT_EQ(fake().launches.size(), 1u);
  EXPECT_EQ(word(fake().launches[0].params[0]), kX);
  EXPECT_EQ(fake().encodes[1].dims, (std::vector<uint64_t>{256, 256}));
  tensors[1].dtype = TILEC_DTYPE_F16;
  EXPECT_EQ(tilec_check(kernel, args, 2), TILEC_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(tilec_last_error(), "argument 'A' (index 0), tensor 1: "
                                   "expected dtype e4m3, got f16");
  // A length past any capacity is reported without reading the array.
  args[0].rank = 1 << 30;
  EXPECT_EQ(tilec_check(kernel, args, 2), TILEC_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(tilec_last_error(), "argument 'A' (index 0): holds 1073741824 "
                                   "tensors, the kernel takes at most 4");
  EXPECT_EQ(tilec_module_unload(module), TILEC_SUCCESS);
}

TEST_F(FakeDriver, DeviceHelpers) {
  uint64_t pointer = 0;
  ASSERT_EQ(tilec_device_alloc(64, &pointer), TILEC_SUCCESS);
  const char text[] = "tilec runtime";
  ASSERT_EQ(tilec_copy_to_device(pointer, text, sizeof(text)), TILEC_SUCCESS);
  char back[sizeof(text)] = {};
  ASSERT_EQ(tilec_copy_to_host(back, pointer, sizeof(text)), TILEC_SUCCESS);
  EXPECT_STREQ(back, text);
  EXPECT_EQ(tilec_synchronize(nullptr), TILEC_SUCCESS);
  EXPECT_EQ(tilec_device_free(pointer), TILEC_SUCCESS);
  EXPECT_EQ(tilec_device_free(pointer), TILEC_ERROR_CUDA);
  EXPECT_STREQ(tilec_last_error(),
               "cuMemFree failed: CUDA_ERROR_INVALID_VALUE (invalid argument)");
}

// Concurrent launches share the kernel and its cache safely; every launch
// gets the tensor maps of its own arguments.
TEST_F(FakeDriver, ConcurrentLaunches) {
  auto module = load();
  rt::Error error;
  rt::Kernel *copy = module->kernel("copy", error);
  constexpr int kThreads = 8, kLaunches = 200;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([copy, t] {
      for (int i = 0; i < kLaunches; ++i) {
        // 16 distinct X addresses per thread: cache hits and misses.
        std::vector<Arg> args = {Arg::tensor(kX + 0x100000 * t + 256 * (i % 16),
                                             DType::F32, {64, 64}),
                                 Arg::tensor(kY, DType::F32, {64, 64})};
        EXPECT_FALSE(copy->launch(args.data(), 2));
      }
    });
  for (std::thread &thread : threads)
    thread.join();
  std::lock_guard<std::mutex> lock(fake().mutex);
  ASSERT_EQ(fake().launches.size(), size_t(kThreads * kLaunches));
  for (const fakecuda::LaunchCall &launch : fake().launches) {
    uint64_t x = word(launch.params[0]);
    EXPECT_EQ((x - kX) % 256, 0u);
    EXPECT_EQ(word(launch.params[1]), kY);
  }
  // One encode per distinct X (8 x 16) and one for Y: lookup, encode and
  // insert happen under the kernel's lock.
  EXPECT_EQ(fake().encodes.size(), size_t(kThreads * 16 + 1));
  EXPECT_EQ(fake().pushes, fake().pops);
}

} // namespace

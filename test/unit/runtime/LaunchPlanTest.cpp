//===- LaunchPlanTest.cpp - Tests of argument checks and launch plans -----===//

#include "LaunchPlan.h"
#include "LruCache.h"
#include "SampleBundle.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

using namespace tilec;
using bundle::DType;
using rt::Arg;
using rt::Error;
using rt::LaunchPlan;
using rt::Status;

namespace {

constexpr uint64_t kBase = 0x7f0000010000; // 16-byte aligned device address

/// X and Y for the copy kernel: contiguous f32 matrices.
std::vector<Arg> copyArgs(int64_t rows, int64_t cols) {
  return {Arg::tensor(kBase, DType::F32, {rows, cols}),
          Arg::tensor(kBase + 0x1000000, DType::F32, {rows, cols})};
}

/// Valid arguments for the gemm kernel with M = 512.
std::vector<Arg> gemmArgs() {
  return {Arg::tensor(kBase, DType::BF16, {512, 4096}),
          Arg::tensor(kBase + 0x1000000, DType::BF16, {8192, 4096}),
          Arg::tensor(kBase + 0x8000000, DType::F32, {512, 8192}),
          Arg::floating(DType::F32, 1.5), Arg::integer(DType::I16, -7)};
}

Error plan(const bundle::Kernel &kernel, const std::vector<Arg> &args,
           LaunchPlan &out, uint32_t smCount = 132) {
  return rt::buildLaunchPlan(kernel, args.data(), args.size(), smCount, out);
}

/// The message of a failing check, or "" (with a test failure) if it passed.
std::string checkError(const bundle::Kernel &kernel,
                       const std::vector<Arg> &args,
                       Status status = Status::InvalidArgument) {
  LaunchPlan out;
  Error error = plan(kernel, args, out);
  EXPECT_EQ(error.status, status) << error.message;
  return error.message;
}

//===----------------------------------------------------------------------===//
// Valid launches
//===----------------------------------------------------------------------===//

TEST(LaunchPlan, CopyBuildsTensorMapsInnermostFirst) {
  bundle::Kernel kernel = test::makeCopyKernel();
  std::vector<Arg> args = {
      Arg::tensor(kBase, DType::F32, {300, 500}, {512, 1}),
      Arg::tensor(kBase + 0x100000, DType::F32, {300, 500})};
  LaunchPlan out;
  ASSERT_FALSE(plan(kernel, args, out));
  ASSERT_EQ(out.tensorMaps.size(), 2u);
  ASSERT_EQ(out.params.size(), 2u);
  EXPECT_TRUE(out.params[1].isTensorMap);
  EXPECT_EQ(out.params[1].tensorMap, 1u);
  const rt::TensorMapRequest &x = out.tensorMaps[0];
  EXPECT_EQ(x.rank, 2u);
  EXPECT_EQ(x.address, kBase);
  EXPECT_EQ(x.globalDim[0], 500u);
  EXPECT_EQ(x.globalDim[1], 300u);
  EXPECT_EQ(x.globalStrides[0], 512u * 4); // the padded row, in bytes
  EXPECT_EQ(x.box[0], 32u);
  EXPECT_EQ(x.box[1], 64u);
  EXPECT_EQ(x.elementStrides[0], 1u);
  EXPECT_EQ(x.swizzle, bundle::Swizzle::B128);
  EXPECT_EQ(out.tensorMaps[1].globalStrides[0], 500u * 4);
  EXPECT_EQ(out.tensorMaps[1].param, 1u);
  EXPECT_EQ(out.tensorMaps[1].arg, 1u);
  // Grid: x = ceil(500 / 32) = 16, y = ceil(300 / 64) = 5, already whole
  // clusters of 2 along x.
  EXPECT_EQ(out.grid, (std::array<uint32_t, 3>{16, 5, 1}));
}

// A tensor list's parameter takes a map slot per tensor it can hold: a map
// for each non-empty tensor, zero for an empty one and past the list's end.
TEST(LaunchPlan, TensorListTakesASlotPerTensor) {
  bundle::Kernel kernel = test::makeGroupedKernel();
  Arg tensors[3] = {Arg::tensor(kBase, DType::E4M3, {256, 512}),
                    Arg::tensor(kBase + 0x100000, DType::E4M3, {256, 0}),
                    Arg::tensor(kBase + 0x200000, DType::E4M3, {256, 384})};
  std::vector<Arg> args = {
      Arg::tensorList(tensors, 3),
      Arg::tensor(kBase + 0x1000000, DType::F32, {3, 256, 256})};
  LaunchPlan out;
  ASSERT_FALSE(plan(kernel, args, out));
  EXPECT_EQ(out.mapSlots, 5u); // 4 for A's maps, 1 for D's
  ASSERT_EQ(out.tensorMaps.size(), 3u);
  EXPECT_EQ(out.tensorMaps[0].slot, 0u);
  EXPECT_EQ(out.tensorMaps[0].globalDim[0], 512u);
  EXPECT_EQ(out.tensorMaps[0].globalStrides[0], 512u);
  EXPECT_EQ(out.tensorMaps[0].box[0], 128u);
  EXPECT_EQ(out.tensorMaps[1].slot, 2u); // the empty tensor 1 has none
  EXPECT_EQ(out.tensorMaps[1].address, kBase + 0x200000);
  EXPECT_EQ(out.tensorMaps[1].globalDim[0], 384u);
  EXPECT_EQ(out.tensorMaps[2].slot, 4u);
  EXPECT_EQ(out.tensorMaps[2].rank, 3u);
  EXPECT_EQ(out.params[0].tensorMap, 0u);
  EXPECT_EQ(out.params[2].tensorMap, 4u);
  int32_t length = 0;
  std::memcpy(&length, out.params[1].bytes, 4);
  EXPECT_EQ(length, 3); // dim 0 of a list: its length

  // An empty list: no maps, every slot zero.
  args[0] = Arg::tensorList(nullptr, 0);
  ASSERT_FALSE(plan(kernel, args, out));
  EXPECT_EQ(out.mapSlots, 5u);
  EXPECT_EQ(out.tensorMaps.size(), 1u);
}

// Fixed grids are rounded up to whole clusters.
TEST(LaunchPlan, FixedGridRoundsUpToClusters) {
  bundle::Kernel kernel = test::makeCopyKernel();
  LaunchPlan out;
  ASSERT_FALSE(plan(kernel, copyArgs(1000, 1000), out));
  EXPECT_EQ(out.grid, (std::array<uint32_t, 3>{32, 16, 1}));
  ASSERT_FALSE(plan(kernel, copyArgs(64, 992), out)); // ceil(992/32) = 31
  EXPECT_EQ(out.grid, (std::array<uint32_t, 3>{32, 1, 1}));
  kernel.cluster = {1, 4, 1};
  ASSERT_FALSE(plan(kernel, copyArgs(65, 32), out)); // y: ceil(65/64) = 2
  EXPECT_EQ(out.grid, (std::array<uint32_t, 3>{1, 4, 1}));
}

TEST(LaunchPlan, PersistentGridUsesWholeClustersOfSms) {
  bundle::Kernel kernel = test::makeGemmKernel();
  LaunchPlan out;
  ASSERT_FALSE(plan(kernel, gemmArgs(), out, 132));
  EXPECT_EQ(out.grid, (std::array<uint32_t, 3>{132, 1, 1}));
  ASSERT_FALSE(plan(kernel, gemmArgs(), out, 133));
  EXPECT_EQ(out.grid, (std::array<uint32_t, 3>{132, 1, 1}));
  kernel.cluster = {2, 2, 1};
  ASSERT_FALSE(plan(kernel, gemmArgs(), out, 133)); // 33 clusters of 4
  EXPECT_EQ(out.grid, (std::array<uint32_t, 3>{66, 2, 1}));
  // CPU-only checks have no SM count and leave the grid empty.
  ASSERT_FALSE(plan(kernel, gemmArgs(), out, 0));
  EXPECT_EQ(out.grid, (std::array<uint32_t, 3>{0, 0, 0}));
  kernel.cluster = {8, 2, 1};
  std::vector<Arg> args = gemmArgs();
  Error error = plan(kernel, args, out, 8);
  EXPECT_EQ(error.message, "kernel 'gemm': the device has 8 SMs, fewer than "
                           "one cluster of 16 CTAs");
}

// Every parameter kind gets the bytes the PTX signature expects.
TEST(LaunchPlan, GemmEncodesEveryParameterKind) {
  bundle::Kernel kernel = test::makeGemmKernel();
  LaunchPlan out;
  ASSERT_FALSE(plan(kernel, gemmArgs(), out));
  ASSERT_EQ(out.params.size(), 7u);
  EXPECT_EQ(out.tensorMaps[1].oobFill, bundle::OobFill::NaN);
  EXPECT_EQ(out.tensorMaps[1].l2Promotion, bundle::L2Promotion::B256);
  int32_t dim;
  ASSERT_EQ(out.params[2].size, 4u);
  std::memcpy(&dim, out.params[2].bytes, 4);
  EXPECT_EQ(dim, 512);
  float alpha;
  ASSERT_EQ(out.params[3].size, 4u);
  std::memcpy(&alpha, out.params[3].bytes, 4);
  EXPECT_EQ(alpha, 1.5f);
  uint64_t pointer;
  ASSERT_EQ(out.params[4].size, 8u);
  std::memcpy(&pointer, out.params[4].bytes, 8);
  EXPECT_EQ(pointer, kBase + 0x8000000);
  int64_t stride;
  ASSERT_EQ(out.params[5].size, 8u);
  std::memcpy(&stride, out.params[5].bytes, 8);
  EXPECT_EQ(stride, 8192);
  int16_t n;
  ASSERT_EQ(out.params[6].size, 2u);
  std::memcpy(&n, out.params[6].bytes, 2);
  EXPECT_EQ(n, -7);
}

// The stride of a size-1 dim is never used, so any value is accepted (torch
// reports odd strides there) and a valid one is passed to the driver.
TEST(LaunchPlan, IgnoresStridesOfSizeOneDims) {
  bundle::Kernel kernel = test::makeCopyKernel();
  std::vector<Arg> args = {Arg::tensor(kBase, DType::F32, {1, 1000}, {7, 1}),
                           Arg::tensor(kBase, DType::F32, {1, 1000})};
  LaunchPlan out;
  ASSERT_FALSE(plan(kernel, args, out));
  EXPECT_EQ(out.tensorMaps[0].globalStrides[0], 4000u);
  args[0] = Arg::tensor(kBase, DType::F32, {5, 1}, {4, 3});
  args[1] = Arg::tensor(kBase, DType::F32, {5, 1}, {4, 1});
  ASSERT_FALSE(plan(kernel, args, out));
  EXPECT_EQ(out.tensorMaps[0].globalStrides[0], 16u);
}

// A tensor with no elements needs no pointer when no TMA map is built.
TEST(LaunchPlan, EmptyTensorsGiveAnEmptyGrid) {
  bundle::Kernel kernel = test::makeCopyKernel();
  kernel.params.clear();
  LaunchPlan out;
  std::vector<Arg> args = {Arg::tensor(0, DType::F32, {0, 16}),
                           Arg::tensor(0, DType::F32, {0, 16})};
  ASSERT_FALSE(plan(kernel, args, out));
  EXPECT_EQ(out.grid[1], 0u);
}

TEST(LaunchPlan, CheckArgsMatchesLaunchChecks) {
  bundle::Kernel kernel = test::makeCopyKernel();
  std::vector<Arg> args = copyArgs(64, 64);
  EXPECT_FALSE(rt::checkArgs(kernel, args.data(), args.size()));
  args[1].dtype = DType::F16;
  EXPECT_EQ(rt::checkArgs(kernel, args.data(), args.size()).message,
            "argument 'Y' (index 1): expected dtype f32, got f16");
}

//===----------------------------------------------------------------------===//
// Every error message
//===----------------------------------------------------------------------===//

TEST(ArgumentErrors, CountKindDtypeRank) {
  bundle::Kernel copy = test::makeCopyKernel();
  std::vector<Arg> args = copyArgs(64, 64);
  args.pop_back();
  EXPECT_EQ(checkError(copy, args),
            "kernel 'copy' takes 2 arguments (X, Y), got 1");
  LaunchPlan out;
  EXPECT_EQ(rt::buildLaunchPlan(copy, nullptr, 2, 0, out).status,
            Status::InvalidValue);

  args = copyArgs(64, 64);
  args[0] = Arg::floating(DType::F32, 1);
  EXPECT_EQ(checkError(copy, args),
            "argument 'X' (index 0): expected a tensor, got a scalar");
  args = copyArgs(64, 64);
  args[0].dtype = DType::F16;
  EXPECT_EQ(checkError(copy, args),
            "argument 'X' (index 0): expected dtype f32, got f16");
  args = copyArgs(64, 64);
  args[0] = Arg::tensor(kBase, DType::F32, {2, 64, 64});
  EXPECT_EQ(checkError(copy, args),
            "argument 'X' (index 0): expected rank 2, got 3");
}

TEST(ArgumentErrors, TensorLists) {
  bundle::Kernel kernel = test::makeGroupedKernel();
  Arg tensors[5];
  for (Arg &tensor : tensors)
    tensor = Arg::tensor(kBase, DType::E4M3, {256, 512});
  Arg d = Arg::tensor(kBase + 0x1000000, DType::F32, {3, 256, 256});
  auto error = [&](Arg list, Arg output) {
    return checkError(kernel, {list, output});
  };
  EXPECT_EQ(error(tensors[0], d), "argument 'A' (index 0): expected a list of "
                                  "up to 4 tensors, got a tensor");
  EXPECT_EQ(error(Arg::integer(DType::I32, 3), d),
            "argument 'A' (index 0): expected a list of up to 4 tensors, got "
            "a scalar");
  EXPECT_EQ(error(Arg::tensorList(tensors, 5), d),
            "argument 'A' (index 0): holds 5 tensors, the kernel takes at "
            "most 4");
  EXPECT_EQ(error(Arg::tensorList(nullptr, 2), d),
            "argument 'A' (index 0): the array of its tensors is null");
  EXPECT_EQ(error(Arg::tensorList(tensors, 2), Arg::tensorList(tensors, 2)),
            "argument 'D' (index 1): expected a tensor, got a tensor list");
  // Tensor 1 of a list of two, the others valid.
  auto secondTensorError = [&](Arg second) {
    Arg pair[2] = {tensors[0], second};
    return error(Arg::tensorList(pair, 2), d);
  };
  EXPECT_EQ(secondTensorError(Arg::tensor(kBase, DType::F32, {256, 512})),
            "argument 'A' (index 0), tensor 1: expected dtype e4m3, got f32");
  EXPECT_EQ(secondTensorError(Arg::tensor(kBase, DType::E4M3, {128, 512})),
            "argument 'A' (index 0), tensor 1: dim 0 is 128 but the kernel "
            "was compiled for 256");
  EXPECT_EQ(secondTensorError(Arg::tensor(kBase, DType::E4M3, {256, 512, 1})),
            "argument 'A' (index 0), tensor 1: expected rank 2, got 3");
  EXPECT_EQ(secondTensorError(Arg::tensor(kBase, DType::E4M3, {256, 520})),
            "argument 'A' (index 0), tensor 1: stride of dim 0 is 520 "
            "elements (520 bytes), TMA needs a multiple of 16 bytes");
  EXPECT_EQ(secondTensorError(Arg::floating(DType::E4M3, 1)),
            "argument 'A' (index 0), tensor 1: expected a tensor, got a "
            "scalar");
  EXPECT_EQ(checkError(test::makeCopyKernel(),
                       {Arg::tensorList(tensors, 1),
                        Arg::tensor(kBase, DType::F32, {64, 64})}),
            "argument 'X' (index 0): expected a tensor, got a tensor list");
  EXPECT_EQ(
      checkError(test::makeGemmKernel(),
                 {Arg::tensor(kBase, DType::BF16, {512, 4096}),
                  Arg::tensor(kBase, DType::BF16, {8192, 4096}),
                  Arg::tensor(kBase, DType::F32, {512, 8192}),
                  Arg::tensorList(tensors, 1), Arg::integer(DType::I16, 1)}),
      "argument 'alpha' (index 3): expected a scalar, got a tensor list");
}

// Values from the C API can be anything.
TEST(ArgumentErrors, OutOfRangeEnums) {
  bundle::Kernel copy = test::makeCopyKernel();
  std::vector<Arg> args = copyArgs(64, 64);
  args[0].kind = static_cast<Arg::Kind>(7);
  EXPECT_EQ(checkError(copy, args),
            "argument 'X' (index 0): unknown argument kind 7");
  args = copyArgs(64, 64);
  args[0].dtype = static_cast<DType>(99);
  EXPECT_EQ(checkError(copy, args), "argument 'X' (index 0): unknown dtype 99");
  args = copyArgs(64, 64);
  args[0].rank = 9;
  EXPECT_EQ(checkError(copy, args),
            "argument 'X' (index 0): rank 9 exceeds the maximum of 8");
}

TEST(ArgumentErrors, ShapesAndPointers) {
  bundle::Kernel gemm = test::makeGemmKernel();
  std::vector<Arg> args = gemmArgs();
  args[1] = Arg::tensor(kBase, DType::BF16, {8192, 4000});
  EXPECT_EQ(checkError(gemm, args),
            "argument 'B' (index 1): dim 1 is 4000 but the kernel was compiled "
            "for 4096");
  args = gemmArgs();
  args[0].shape[0] = -5;
  EXPECT_EQ(checkError(gemm, args),
            "argument 'A' (index 0): dim 0 is -5; sizes cannot be negative");
  args = gemmArgs();
  args[2].strides[0] = -8192;
  EXPECT_EQ(checkError(gemm, args),
            "argument 'D' (index 2): stride of dim 0 is -8192 elements; "
            "strides cannot be negative");
  args = gemmArgs();
  args[2].data = 0;
  EXPECT_EQ(checkError(gemm, args), "argument 'D' (index 2): data pointer is "
                                    "null");
  args = gemmArgs();
  args[2].data = kBase + 2;
  EXPECT_EQ(checkError(gemm, args),
            "argument 'D' (index 2): data pointer 0x7f0000010002 is not "
            "aligned to its 4-byte elements");
  args = gemmArgs();
  args[0] = Arg::tensor(kBase, DType::BF16, {3000000000, 4096});
  EXPECT_EQ(checkError(gemm, args),
            "argument 'A' (index 0): dim 0 is 3000000000, too large for the "
            "kernel's 32-bit dim parameter");
}

// D is read or written directly, in f32 pairs (its pointer's align is 8).
TEST(ArgumentErrors, PointerAccessRules) {
  bundle::Kernel gemm = test::makeGemmKernel();
  std::vector<Arg> args = gemmArgs();
  args[2].data = kBase + 4;
  EXPECT_EQ(checkError(gemm, args),
            "argument 'D' (index 2): data pointer 0x7f0000010004 is not "
            "aligned to 8 bytes; the kernel accesses it 8 bytes at a time");
  args = gemmArgs();
  args[2] = Arg::tensor(kBase, DType::F32, {512, 8192}, {1, 512});
  EXPECT_EQ(checkError(gemm, args),
            "argument 'D' (index 2): stride of dim 1 is 512 elements; the "
            "kernel addresses it with a contiguous innermost dim (stride 1)");
  args = gemmArgs();
  args[2] = Arg::tensor(kBase, DType::F32, {512, 8192}, {8193, 1});
  EXPECT_EQ(checkError(gemm, args),
            "argument 'D' (index 2): stride of dim 0 is 8193 elements (32772 "
            "bytes), not a multiple of the kernel's 8-byte accesses");
  // A padded row is fine: the kernel reads the strides it is given.
  args = gemmArgs();
  args[2] = Arg::tensor(kBase, DType::F32, {512, 8192}, {8194, 1});
  LaunchPlan out;
  ASSERT_FALSE(plan(gemm, args, out));
  int64_t stride = 0;
  std::memcpy(&stride, out.params[5].bytes, 8);
  EXPECT_EQ(stride, 8194);
  // The innermost dim's bytes must be a multiple of the access too (dim 1
  // of D is static here, so take a kernel with a dynamic one).
  gemm.args[2].shape = {-1, -1};
  args = gemmArgs();
  args[2] = Arg::tensor(kBase, DType::F32, {512, 8191}, {8192, 1});
  EXPECT_EQ(checkError(gemm, args),
            "argument 'D' (index 2): dim 1 is 8191 (32764 bytes), not a "
            "multiple of the kernel's 8-byte accesses");
  // A stride parameter of the innermost dim lets it be strided.
  gemm.params.push_back(gemm.params[5]);
  gemm.params.back().dim = 1;
  args = gemmArgs();
  args[2] = Arg::tensor(kBase, DType::F32, {512, 8192}, {1, 512});
  EXPECT_EQ(checkError(gemm, args),
            "argument 'D' (index 2): stride of dim 0 is 1 elements (4 bytes), "
            "not a multiple of the kernel's 8-byte accesses");
}

TEST(ArgumentErrors, TmaRules) {
  bundle::Kernel copy = test::makeCopyKernel();
  bundle::Kernel gemm = test::makeGemmKernel();
  std::vector<Arg> args = copyArgs(64, 64);
  args[0].data = kBase + 8;
  EXPECT_EQ(checkError(copy, args),
            "argument 'X' (index 0): data pointer 0x7f0000010008 is not "
            "16-byte aligned, TMA needs 16-byte alignment");
  args = copyArgs(0, 64);
  EXPECT_EQ(checkError(copy, args),
            "argument 'X' (index 0): dim 0 is 0; TMA cannot describe an empty "
            "tensor");
  args = copyArgs(64, 64);
  args[0] = Arg::tensor(kBase, DType::F32, {(int64_t(1) << 32) + 1, 4});
  EXPECT_EQ(checkError(copy, args),
            "argument 'X' (index 0): dim 0 is 4294967297, TMA supports at "
            "most 2^32");
  args = copyArgs(64, 64);
  args[0] = Arg::tensor(kBase, DType::F32, {64, 64}, {128, 2});
  EXPECT_EQ(checkError(copy, args),
            "argument 'X' (index 0): stride of dim 1 is 2 elements, TMA needs "
            "the innermost dim to be contiguous (stride 1)");
  args = gemmArgs();
  args[0] = Arg::tensor(kBase, DType::BF16, {512, 4096}, {1001, 1});
  EXPECT_EQ(checkError(gemm, args),
            "argument 'A' (index 0): stride of dim 0 is 1001 elements (2002 "
            "bytes), TMA needs a multiple of 16 bytes");
  args = copyArgs(64, 64);
  args[0] = Arg::tensor(kBase, DType::F32, {64, 64}, {0, 1});
  EXPECT_EQ(checkError(copy, args),
            "argument 'X' (index 0): stride of dim 0 is 0 elements (0 bytes), "
            "TMA needs a nonzero stride");
  args = copyArgs(64, 64);
  args[0] = Arg::tensor(kBase, DType::F32, {64, 64}, {int64_t(1) << 38, 1});
  EXPECT_EQ(checkError(copy, args),
            "argument 'X' (index 0): stride of dim 0 is 274877906944 elements, "
            "TMA needs less than 2^40 bytes");
}

TEST(ArgumentErrors, Scalars) {
  bundle::Kernel gemm = test::makeGemmKernel();
  std::vector<Arg> args = gemmArgs();
  args[3] = Arg::tensor(kBase, DType::F32, {1});
  EXPECT_EQ(checkError(gemm, args),
            "argument 'alpha' (index 3): expected a scalar, got a tensor");
  args = gemmArgs();
  args[3] = Arg::floating(DType::F64, 1.5);
  EXPECT_EQ(checkError(gemm, args),
            "argument 'alpha' (index 3): expected dtype f32, got f64");
  args = gemmArgs();
  args[4] = Arg::integer(DType::I16, 40000);
  EXPECT_EQ(checkError(gemm, args),
            "argument 'n' (index 4): value 40000 does not fit in i16");
  args[4] = Arg::integer(DType::I16, -32769);
  EXPECT_EQ(checkError(gemm, args),
            "argument 'n' (index 4): value -32769 does not fit in i16");

  bundle::Kernel fp8;
  fp8.name = "fp8";
  fp8.args = {test::scalarArg("s", DType::E4M3)};
  fp8.params = {test::simpleParam(bundle::Param::Kind::Scalar, 0)};
  EXPECT_EQ(checkError(fp8, {Arg::floating(DType::E4M3, 1)}),
            "argument 's' (index 0): scalars of dtype e4m3 are not supported");
}

TEST(ArgumentErrors, GridLimits) {
  bundle::Kernel copy = test::makeCopyKernel();
  EXPECT_EQ(checkError(copy, copyArgs(64 * 70000, 32)),
            "kernel 'copy': grid y is 70000 CTAs, CUDA allows at most 65535");
}

//===----------------------------------------------------------------------===//
// Scalars, keys and the cache
//===----------------------------------------------------------------------===//

TEST(Scalars, IntegerRangesAndUnsigned64) {
  bundle::Kernel kernel;
  kernel.name = "k";
  kernel.args = {test::scalarArg("a", DType::U8),
                 test::scalarArg("b", DType::U64)};
  kernel.params = {test::simpleParam(bundle::Param::Kind::Scalar, 0),
                   test::simpleParam(bundle::Param::Kind::Scalar, 1)};
  LaunchPlan out;
  ASSERT_FALSE(
      plan(kernel, {Arg::integer(DType::U8, 255), Arg::integer(DType::U64, -1)},
           out));
  EXPECT_EQ(out.params[0].size, 1u);
  EXPECT_EQ(out.params[0].bytes[0], 255);
  uint64_t big;
  std::memcpy(&big, out.params[1].bytes, 8);
  EXPECT_EQ(big, UINT64_MAX); // u64 takes the bits as they are
  EXPECT_EQ(checkError(kernel, {Arg::integer(DType::U8, -1),
                                Arg::integer(DType::U64, 0)}),
            "argument 'a' (index 0): value -1 does not fit in u8");
}

TEST(Scalars, HalfConversionRoundsToNearestEven) {
  EXPECT_EQ(rt::toHalfBits(1.0), 0x3c00);
  EXPECT_EQ(rt::toHalfBits(-2.0), 0xc000);
  EXPECT_EQ(rt::toHalfBits(0.1), 0x2e66);
  EXPECT_EQ(rt::toHalfBits(65504.0), 0x7bff);
  EXPECT_EQ(rt::toHalfBits(65520.0), 0x7c00); // rounds up to infinity
  EXPECT_EQ(rt::toHalfBits(1e6), 0x7c00);
  EXPECT_EQ(rt::toHalfBits(std::ldexp(1.0, -14)), 0x0400); // smallest normal
  EXPECT_EQ(rt::toHalfBits(std::ldexp(1.0, -24)), 0x0001); // smallest subnormal
  EXPECT_EQ(rt::toHalfBits(1e-9), 0x0000);
  EXPECT_EQ(rt::toHalfBits(-0.0), 0x8000);
  EXPECT_EQ(rt::toHalfBits(2049.0), 0x6800); // tie -> even (2048)
  EXPECT_EQ(rt::toHalfBits(2051.0), 0x6802); // tie -> even (2052)
  EXPECT_EQ(rt::toHalfBits(std::numeric_limits<double>::infinity()), 0x7c00);
  EXPECT_EQ(rt::toHalfBits(std::nan("")) & 0x7e00, 0x7e00);
}

TEST(Scalars, BFloat16ConversionRoundsToNearestEven) {
  EXPECT_EQ(rt::toBFloat16Bits(1.0), 0x3f80);
  EXPECT_EQ(rt::toBFloat16Bits(3.0), 0x4040);
  EXPECT_EQ(rt::toBFloat16Bits(-1.5), 0xbfc0);
  EXPECT_EQ(rt::toBFloat16Bits(1.0 + std::ldexp(1.0, -8)), 0x3f80);
  EXPECT_EQ(rt::toBFloat16Bits(1.0 + 3 * std::ldexp(1.0, -8)), 0x3f82);
  EXPECT_EQ(rt::toBFloat16Bits(std::nan("")) & 0x7fc0, 0x7fc0);
}

// Launches with the same pointer, shape and strides share a cache key.
TEST(TensorMapKey, DependsOnSignatureOnly) {
  bundle::Kernel kernel = test::makeCopyKernel();
  LaunchPlan first, second, moved, padded;
  ASSERT_FALSE(plan(kernel, copyArgs(64, 64), first));
  ASSERT_FALSE(plan(kernel, copyArgs(64, 64), second));
  std::vector<Arg> args = copyArgs(64, 64);
  args[0].data += 256;
  ASSERT_FALSE(plan(kernel, args, moved));
  args = copyArgs(64, 64);
  args[0].strides[0] = 68;
  ASSERT_FALSE(plan(kernel, args, padded));
  auto key = [](const LaunchPlan &p, int i) { return p.tensorMaps[i].key(); };
  EXPECT_EQ(key(first, 0), key(second, 0));
  EXPECT_NE(key(first, 0), key(first, 1)); // another parameter
  EXPECT_NE(key(first, 0), key(moved, 0));
  EXPECT_NE(key(first, 0), key(padded, 0));
  rt::TensorMapKeyHash hash;
  EXPECT_EQ(hash(key(first, 0)), hash(key(second, 0)));
  EXPECT_NE(hash(key(first, 0)), hash(key(moved, 0)));
}

struct IntHash {
  size_t operator()(int value) const { return static_cast<size_t>(value); }
};

TEST(LruCache, EvictsLeastRecentlyUsed) {
  rt::LruCache<int, std::string, IntHash> cache(2);
  cache.insert(1, "one");
  cache.insert(2, "two");
  ASSERT_NE(cache.find(1), nullptr); // 1 is now the most recent
  cache.insert(3, "three");          // evicts 2
  EXPECT_EQ(cache.size(), 2u);
  EXPECT_EQ(cache.find(2), nullptr);
  EXPECT_EQ(*cache.find(1), "one");
  EXPECT_EQ(*cache.find(3), "three");
  cache.insert(1, "uno"); // replaces in place
  EXPECT_EQ(cache.size(), 2u);
  EXPECT_EQ(*cache.find(1), "uno");
  for (int i = 10; i < 1000; ++i)
    cache.insert(i, "many");
  EXPECT_EQ(cache.size(), 2u); // bounded
}

} // namespace

//===- BundleTest.cpp - Tests of bundle metadata and the container --------===//

#include "SampleBundle.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>

using namespace tilec;
using bundle::Bundle;

namespace {

void expectSameMetadata(const Bundle &a, const Bundle &b) {
  // The writer is deterministic, so equal text means equal metadata.
  EXPECT_EQ(bundle::writeMetadataJson(a), bundle::writeMetadataJson(b));
}

//===----------------------------------------------------------------------===//
// DType
//===----------------------------------------------------------------------===//

TEST(DType, NamesAndSizesRoundTrip) {
  for (unsigned i = 0; i < bundle::kNumDTypes; ++i) {
    auto dtype = static_cast<bundle::DType>(i);
    EXPECT_EQ(bundle::parseDType(bundle::toString(dtype)), dtype);
  }
  EXPECT_EQ(bundle::byteSize(bundle::DType::BF16), 2u);
  EXPECT_EQ(bundle::byteSize(bundle::DType::E4M3), 1u);
  EXPECT_EQ(bundle::byteSize(bundle::DType::U64), 8u);
  EXPECT_TRUE(bundle::isFloat(bundle::DType::E5M2));
  EXPECT_TRUE(bundle::isSignedInteger(bundle::DType::I16));
  EXPECT_FALSE(bundle::isSignedInteger(bundle::DType::U16));
  EXPECT_FALSE(bundle::parseDType("float32").has_value());
}

//===----------------------------------------------------------------------===//
// Metadata JSON
//===----------------------------------------------------------------------===//

TEST(Metadata, RoundTripsEveryField) {
  Bundle original = test::makeSampleBundle();
  std::string text = bundle::writeMetadataJson(original);
  Bundle parsed;
  std::string error;
  ASSERT_TRUE(bundle::parseMetadataJson(text, parsed, error)) << error;
  expectSameMetadata(original, parsed);
  EXPECT_TRUE(parsed.cubin.empty());
  const bundle::Kernel *gemm = parsed.findKernel("gemm");
  ASSERT_NE(gemm, nullptr);
  EXPECT_EQ(gemm->args[1].shape, (std::vector<int64_t>{8192, 4096}));
  EXPECT_EQ(gemm->params[1].tensorMap.oobFill, bundle::OobFill::NaN);
  EXPECT_EQ(gemm->params[1].tensorMap.l2Promotion, bundle::L2Promotion::B256);
  EXPECT_EQ(gemm->params[5].kind, bundle::Param::Kind::Stride);
  EXPECT_EQ(gemm->params[4].align, 8u);
  EXPECT_EQ(parsed.findKernel("copy")->params[0].align, 0u);
  EXPECT_EQ(gemm->grid.kind, bundle::GridPolicy::Kind::Persistent);
  EXPECT_EQ(gemm->dynamicSharedBytes, 200704u);
  EXPECT_EQ(parsed.findKernel("copy")->grid.axes[1].tile, 64u);
  EXPECT_EQ(parsed.findKernel("nope"), nullptr);
}

TEST(Metadata, RoundTripsTensorLists) {
  Bundle original = test::makeSampleBundle();
  original.kernels.push_back(test::makeGroupedKernel());
  EXPECT_EQ(bundle::validate(original), "");
  std::string text = bundle::writeMetadataJson(original);
  EXPECT_NE(text.find("\"kind\": \"tensor_list\""), std::string::npos) << text;
  Bundle parsed;
  std::string error;
  ASSERT_TRUE(bundle::parseMetadataJson(text, parsed, error)) << error;
  expectSameMetadata(original, parsed);
  const bundle::Kernel *grouped = parsed.findKernel("grouped");
  ASSERT_NE(grouped, nullptr);
  EXPECT_TRUE(grouped->args[0].isTensorList());
  EXPECT_EQ(grouped->args[0].capacity, 4u);
  EXPECT_EQ(grouped->args[0].shape, (std::vector<int64_t>{-1, 256, -1}));
  EXPECT_EQ(grouped->args[1].capacity, 0u);
  EXPECT_EQ(grouped->params[0].tensorMap.box,
            (std::vector<uint32_t>{128, 128}));
}

// A tensor list is read through its maps only; its tensors' dims may differ.
TEST(Metadata, ValidateChecksTensorLists) {
  struct Case {
    std::function<void(bundle::Kernel &)> edit;
    std::string message;
  };
  using Kind = bundle::Param::Kind;
  std::vector<Case> cases = {
      {[](bundle::Kernel &k) { k.args[0].capacity = 0; },
       "argument 0 ('A') is a tensor list of capacity 0, expected 1..128"},
      {[](bundle::Kernel &k) { k.args[0].capacity = 129; },
       "argument 0 ('A') is a tensor list of capacity 129, expected 1..128"},
      {[](bundle::Kernel &k) { k.args[1].capacity = 2; },
       "argument 1 ('D') is a tensor but has a capacity (only tensor lists "
       "have one)"},
      {[](bundle::Kernel &k) {
         k.args[0].shape = {5, 256, -1};
       },
       "argument 0 ('A') is a tensor list of capacity 4 but of length 5"},
      {[](bundle::Kernel &k) { k.args[0].shape = {-1}; },
       "argument 0 ('A') has rank 1, tensor lists need 2..8"},
      {[](bundle::Kernel &k) {
         k.params[0].tensorMap.box = {1, 128, 128};
       },
       "param 0 (tensor_map of 'A'): box has 3 dims but the tensor has rank "
       "2"},
      {[](bundle::Kernel &k) { k.params[1].dim = 2; },
       "param 1 (dim of 'A'): dim 2 of a tensor list differs between its "
       "tensors; only dim 0 (its length) can be a parameter"},
      {[](bundle::Kernel &k) { k.params[1].kind = Kind::Pointer; },
       "param 1 (pointer of 'A'): a pointer parameter cannot refer to a "
       "tensor list"},
      {[](bundle::Kernel &k) {
         k.grid.kind = bundle::GridPolicy::Kind::Fixed;
         k.grid.axes = {bundle::GridAxis::ceilDiv(0, 1, 128),
                        bundle::GridAxis::constant(1),
                        bundle::GridAxis::constant(1)};
       },
       "grid x: dim 1 of tensor list 'A' differs between its tensors; only "
       "its length (dim 0) can size a grid"},
  };
  for (const Case &c : cases) {
    Bundle edited = test::makeSampleBundle();
    edited.kernels.push_back(test::makeGroupedKernel());
    c.edit(edited.kernels.back());
    EXPECT_EQ(bundle::validate(edited), "kernel 'grouped': " + c.message);
  }
}

// Optional keys take their documented defaults.
TEST(Metadata, AppliesDefaults) {
  const char *text = R"({
    "format": "tilec-metadata", "version": 1, "target": "sm_100a",
    "kernels": [{
      "name": "k",
      "args": [{"name": "X", "kind": "tensor", "dtype": "bf16",
                "shape": [-1, 64]}],
      "params": [{"kind": "tensor_map", "arg": "X", "box": [8, 64]}],
      "block": [128, 1, 1],
      "grid": {"policy": "fixed", "axes": [3, 1, 1]}
    }]})";
  Bundle parsed;
  std::string error;
  ASSERT_TRUE(bundle::parseMetadataJson(text, parsed, error)) << error;
  const bundle::Kernel &kernel = parsed.kernels[0];
  EXPECT_EQ(parsed.producer, "");
  EXPECT_EQ(kernel.cluster, (std::array<uint32_t, 3>{1, 1, 1}));
  EXPECT_EQ(kernel.dynamicSharedBytes, 0u);
  EXPECT_EQ(kernel.params[0].tensorMap.swizzle, bundle::Swizzle::None);
  EXPECT_EQ(kernel.params[0].tensorMap.oobFill, bundle::OobFill::Zero);
  EXPECT_TRUE(kernel.params[0].tensorMap.elementStrides.empty());
  EXPECT_EQ(kernel.grid.axes[0].value, 3u);
}

/// Replaces the first \p from in the sample's JSON by \p to and returns the
/// parse error.
std::string errorAfterEdit(const std::string &from, const std::string &to) {
  std::string text = bundle::writeMetadataJson(test::makeSampleBundle());
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << "test bug: no '" << from << "'";
  if (at != std::string::npos)
    text.replace(at, from.size(), to);
  Bundle parsed;
  std::string error;
  EXPECT_FALSE(bundle::parseMetadataJson(text, parsed, error)) << text;
  return error;
}

TEST(Metadata, SchemaErrorsNameThePath) {
  EXPECT_EQ(errorAfterEdit("\"tilec-metadata\"", "\"other\""),
            "metadata.format: expected \"tilec-metadata\", got \"other\"");
  EXPECT_EQ(errorAfterEdit("\"version\": 1", "\"version\": 2"),
            "metadata.version: metadata version 2 is not supported (this "
            "build reads version 1)");
  EXPECT_EQ(errorAfterEdit("\"version\": 1", "\"version\": \"1\""),
            "metadata.version: expected an integer in 0..4294967295");
  EXPECT_EQ(errorAfterEdit("\"target\": \"sm_90a\",", ""),
            "metadata: missing key \"target\"");
  EXPECT_EQ(errorAfterEdit("\"producer\"", "\"produced\""),
            "metadata: unknown key \"produced\"");
  EXPECT_EQ(errorAfterEdit("\"dtype\": \"f32\"", "\"dtype\": \"f31\""),
            "metadata.kernels[0].args[0].dtype: unknown dtype \"f31\"");
  EXPECT_EQ(errorAfterEdit("\"kind\": \"tensor\"", "\"kind\": \"matrix\""),
            "metadata.kernels[0].args[0].kind: expected \"tensor\", "
            "\"scalar\" or \"tensor_list\", got \"matrix\"");
  EXPECT_EQ(errorAfterEdit("\"kind\": \"tensor\"",
                           "\"capacity\": 2, \"kind\": \"tensor\""),
            "metadata.kernels[0].args[0]: only a tensor list has a "
            "\"capacity\"");
  EXPECT_EQ(errorAfterEdit("\"kind\": \"tensor\"", "\"kind\": \"tensor_list\""),
            "metadata.kernels[0].args[0]: missing key \"capacity\"");
  EXPECT_EQ(errorAfterEdit("\"shape\": [-1, -1]", "\"shape\": [-1, 1.5]"),
            "metadata.kernels[0].args[0].shape: expected integers");
  EXPECT_EQ(errorAfterEdit("\"kind\": \"tensor_map\"", "\"kind\": \"map\""),
            "metadata.kernels[0].params[0].kind: unknown parameter kind "
            "\"map\"");
  EXPECT_EQ(errorAfterEdit("\"arg\": \"X\"", "\"arg\": \"Z\""),
            "metadata.kernels[0].params[0].arg: no argument named 'Z'");
  EXPECT_EQ(errorAfterEdit("\"box\": [64, 32]", "\"box\": [64, -32]"),
            "metadata.kernels[0].params[0].box: expected an integer in "
            "0..4294967295");
  EXPECT_EQ(errorAfterEdit("\"box\": [64, 32]", "\"box\": [1, 1, 1, 1, 1, 1]"),
            "metadata.kernels[0].params[0].box: expected an array of at most "
            "5 integers");
  EXPECT_EQ(errorAfterEdit("\"swizzle\": 128", "\"swizzle\": 96"),
            "metadata.kernels[0].params[0].swizzle: expected 0, 32, 64 or "
            "128, got 96");
  EXPECT_EQ(errorAfterEdit("\"oob_fill\": \"zero\"", "\"oob_fill\": \"one\""),
            "metadata.kernels[0].params[0].oob_fill: expected \"zero\" or "
            "\"nan\", got \"one\"");
  EXPECT_EQ(
      errorAfterEdit("\"l2_promotion\": \"none\"", "\"l2_promotion\": \"32B\""),
      "metadata.kernels[0].params[0].l2_promotion: expected \"none\", "
      "\"64B\", \"128B\" or \"256B\", got \"32B\"");
  EXPECT_EQ(errorAfterEdit("\"block\": [128, 1, 1]", "\"block\": [128, 1]"),
            "metadata.kernels[0].block: expected 3 integers (x, y, z)");
  EXPECT_EQ(errorAfterEdit("\"policy\": \"fixed\"", "\"policy\": \"dynamic\""),
            "metadata.kernels[0].grid.policy: expected \"fixed\" or "
            "\"persistent\", got \"dynamic\"");
  EXPECT_EQ(
      errorAfterEdit("{\"arg\": \"X\", \"dim\": 1, \"tile\": 32}", "\"x\""),
      "metadata.kernels[0].grid.axes[0]: expected an integer or "
      "{\"arg\", \"dim\", \"tile\"}");
  EXPECT_EQ(errorAfterEdit("\"policy\": \"persistent\"",
                           "\"policy\": \"persistent\", \"axes\": []"),
            "metadata.kernels[1].grid: a persistent grid has no \"axes\"");
  EXPECT_EQ(errorAfterEdit("\"kind\": \"dim\", \"arg\": \"A\", \"dim\": 0",
                           "\"kind\": \"dim\", \"arg\": \"A\", \"dim\": 0, "
                           "\"box\": [1]"),
            "metadata.kernels[1].params[2]: unknown key \"box\"");
  EXPECT_EQ(errorAfterEdit("\"dtype\": \"f32\"}",
                           "\"dtype\": \"f32\", \"shape\": [1]}"),
            "metadata.kernels[1].args[3]: a scalar has no \"shape\"");
  EXPECT_EQ(
      errorAfterEdit("\"target\": \"sm_90a\",", "\"target\": \"sm_90a\",,"),
      "metadata is not valid JSON: line 4, column 22: expected a string "
      "key in object");
}

// Semantic errors found after parsing are reported by validate().
TEST(Metadata, ValidationErrorsAreReportedAtParse) {
  EXPECT_EQ(errorAfterEdit("\"shape\": [-1, -1]", "\"shape\": [0, -1]"),
            "invalid metadata: kernel 'copy': argument 0 ('X') dim 0 is 0, "
            "expected a size >= 1 or -1");
  EXPECT_EQ(errorAfterEdit("\"box\": [64, 32]", "\"box\": [64, 64]"),
            "invalid metadata: kernel 'copy': param 0 (tensor_map of 'X'): box "
            "inner dimension is 256 bytes, more than the 128-byte swizzle "
            "span");
}

TEST(Metadata, ValidateCatchesEveryInconsistency) {
  using bundle::Param;
  struct Case {
    std::function<void(Bundle &)> edit;
    std::string message;
  };
  std::vector<Case> cases = {
      {[](Bundle &b) { b.target = "gfx90a"; },
       "target 'gfx90a' is not of the form sm_XX"},
      {[](Bundle &b) { b.kernels.clear(); }, "the bundle has no kernels"},
      {[](Bundle &b) { b.kernels[1].name = "copy"; },
       "kernel name 'copy' is used twice"},
      {[](Bundle &b) { b.kernels[0].name = ""; },
       "kernel '': has an empty name"},
      {[](Bundle &b) { b.kernels[0].args[1].name = "X"; },
       "kernel 'copy': argument name 'X' is used twice"},
      {[](Bundle &b) { b.kernels[0].args[0].shape.clear(); },
       "kernel 'copy': argument 0 ('X') has rank 0, tensors need 1..8"},
      {[](Bundle &b) { b.kernels[1].args[3].shape = {1}; },
       "kernel 'gemm': argument 3 ('alpha') is a scalar but has a shape"},
      {[](Bundle &b) { b.kernels[0].params[0].arg = 7; },
       "kernel 'copy': param 0 (tensor_map): refers to argument 7 but the "
       "kernel has 2"},
      {[](Bundle &b) { b.kernels[1].params[3].arg = 0; },
       "kernel 'gemm': param 3 (scalar of 'A'): a scalar parameter needs a "
       "scalar argument"},
      {[](Bundle &b) { b.kernels[1].params[4].arg = 3; },
       "kernel 'gemm': param 4 (pointer of 'alpha'): a pointer parameter "
       "needs a tensor argument"},
      {[](Bundle &b) { b.kernels[1].params[4].align = 12; },
       "kernel 'gemm': param 4 (pointer of 'D'): align is 12 bytes; expected "
       "a power of two from the element size to 16"},
      {[](Bundle &b) { b.kernels[1].params[4].align = 2; },
       "kernel 'gemm': param 4 (pointer of 'D'): align is 2 bytes; expected "
       "a power of two from the element size to 16"},
      {[](Bundle &b) { b.kernels[1].params[2].dim = 2; },
       "kernel 'gemm': param 2 (dim of 'A'): dim 2 is out of range for rank "
       "2"},
      {[](Bundle &b) { b.kernels[0].params[0].tensorMap.box = {64}; },
       "kernel 'copy': param 0 (tensor_map of 'X'): box has 1 dims but the "
       "tensor has rank 2"},
      {[](Bundle &b) {
         b.kernels[0].params[0].tensorMap.box = {300, 32};
       },
       "kernel 'copy': param 0 (tensor_map of 'X'): box dim 0 is 300, TMA "
       "needs 1..256"},
      {[](Bundle &b) {
         b.kernels[0].params[0].tensorMap.box = {64, 2};
       },
       "kernel 'copy': param 0 (tensor_map of 'X'): box inner dimension is 8 "
       "bytes, TMA needs a multiple of 16"},
      {[](Bundle &b) {
         b.kernels[0].params[0].tensorMap.swizzle = bundle::Swizzle::B64;
       },
       "kernel 'copy': param 0 (tensor_map of 'X'): box inner dimension is "
       "128 bytes, more than the 64-byte swizzle span"},
      {[](Bundle &b) { b.kernels[0].params[0].tensorMap.elementStrides = {1}; },
       "kernel 'copy': param 0 (tensor_map of 'X'): element_strides has 1 "
       "entries but the tensor has rank 2"},
      {[](Bundle &b) {
         b.kernels[0].params[0].tensorMap.elementStrides = {9, 1};
       },
       "kernel 'copy': param 0 (tensor_map of 'X'): element stride 0 is 9, "
       "TMA needs 1..8"},
      {[](Bundle &b) {
         b.kernels[0].args[0].dtype = bundle::DType::U32;
         b.kernels[0].params[0].tensorMap.oobFill = bundle::OobFill::NaN;
       },
       "kernel 'copy': param 0 (tensor_map of 'X'): NaN out-of-bounds fill "
       "needs a floating-point dtype, not u32"},
      {[](Bundle &b) {
         b.kernels[0].args[0].shape = {1, 1, 1, 1, 1, 1};
         b.kernels[0].grid.axes[0].dim = 0;
       },
       "kernel 'copy': param 0 (tensor_map of 'X'): tensor maps support at "
       "most rank 5, the tensor has rank 6"},
      {[](Bundle &b) {
         b.kernels[0].block = {1024, 2, 1};
       },
       "kernel 'copy': block has 2048 threads, CUDA allows at most 1024"},
      {[](Bundle &b) {
         b.kernels[0].block = {0, 1, 1};
       },
       "kernel 'copy': block and cluster dims must be >= 1"},
      {[](Bundle &b) {
         b.kernels[0].cluster = {4, 4, 2};
       },
       "kernel 'copy': cluster has 32 CTAs, the hardware allows at most 16"},
      {[](Bundle &b) { b.kernels[1].dynamicSharedBytes = 232449; },
       "kernel 'gemm': uses 232449 bytes of dynamic shared memory, sm_90a "
       "allows at most 232448 per block"},
      {[](Bundle &b) { b.kernels[0].grid.axes[2].value = 0; },
       "kernel 'copy': grid z: constant must be >= 1"},
      {[](Bundle &b) { b.kernels[0].grid.axes[0].dim = 2; },
       "kernel 'copy': grid x: dim 2 is out of range for 'X'"},
      {[](Bundle &b) { b.kernels[0].grid.axes[0].tile = 0; },
       "kernel 'copy': grid x: tile must be >= 1"},
      {[](Bundle &b) { b.kernels[0].grid.axes[1].arg = 5; },
       "kernel 'copy': grid y: argument 5 is not a tensor argument"},
      {[](Bundle &b) { b.version = 0; },
       "metadata version 0 is not supported (this build reads version 1)"},
  };
  EXPECT_EQ(bundle::validate(test::makeSampleBundle()), "");
  // A target this build does not know keeps its limits to the driver.
  Bundle future = test::makeSampleBundle();
  future.target = "sm_120a";
  future.kernels[1].dynamicSharedBytes = 232449;
  EXPECT_EQ(bundle::validate(future), "");
  for (const Case &c : cases) {
    Bundle edited = test::makeSampleBundle();
    c.edit(edited);
    EXPECT_EQ(bundle::validate(edited), c.message);
  }
}

// The example in docs/bundle.md is valid metadata (the doc cannot rot).
TEST(Metadata, DocumentedExampleParses) {
  std::ifstream doc(TILEC_DOCS_DIR "/bundle.md");
  if (!doc)
    GTEST_SKIP() << "docs/bundle.md not found";
  std::stringstream text;
  text << doc.rdbuf();
  std::string markdown = text.str();
  const std::string begin = "<!-- example-metadata -->\n```json\n";
  size_t start = markdown.find(begin);
  ASSERT_NE(start, std::string::npos) << "example marker missing";
  start += begin.size();
  size_t end = markdown.find("```", start);
  Bundle parsed;
  std::string error;
  ASSERT_TRUE(bundle::parseMetadataJson(markdown.substr(start, end - start),
                                        parsed, error))
      << error;
  EXPECT_FALSE(parsed.kernels.empty());
}

//===----------------------------------------------------------------------===//
// Container
//===----------------------------------------------------------------------===//

std::vector<uint8_t> serialize(const Bundle &value) {
  std::vector<uint8_t> bytes;
  std::string error;
  EXPECT_TRUE(bundle::serializeBundle(value, bytes, error)) << error;
  return bytes;
}

std::string parseBytesError(const std::vector<uint8_t> &bytes) {
  Bundle parsed;
  std::string error;
  EXPECT_FALSE(bundle::parseBundle(bytes.data(), bytes.size(), parsed, error));
  return error;
}

void putU32(std::vector<uint8_t> &bytes, size_t at, uint32_t value) {
  for (int i = 0; i < 4; ++i)
    bytes[at + i] = static_cast<uint8_t>(value >> (8 * i));
}

TEST(Container, RoundTripsCodeAndMetadata) {
  Bundle original = test::makeSampleBundle();
  std::vector<uint8_t> bytes = serialize(original);
  ASSERT_TRUE(bundle::looksLikeBundle(bytes.data(), bytes.size()));
  EXPECT_EQ(std::string(bytes.begin(), bytes.begin() + 8), "TILECBND");
  Bundle parsed;
  std::string error;
  ASSERT_TRUE(bundle::parseBundle(bytes.data(), bytes.size(), parsed, error))
      << error;
  expectSameMetadata(original, parsed);
  EXPECT_EQ(parsed.cubin, original.cubin);
  EXPECT_EQ(parsed.ptx, original.ptx);

  // PTX is optional.
  Bundle cubinOnly = original;
  cubinOnly.ptx.clear();
  std::vector<uint8_t> smaller = serialize(cubinOnly);
  ASSERT_TRUE(
      bundle::parseBundle(smaller.data(), smaller.size(), parsed, error))
      << error;
  EXPECT_TRUE(parsed.ptx.empty());
  EXPECT_EQ(parsed.cubin, original.cubin);
}

TEST(Container, WriterRefusesBadBundles) {
  Bundle noCode = test::makeSampleBundle();
  noCode.cubin.clear();
  noCode.ptx.clear();
  std::vector<uint8_t> bytes;
  std::string error;
  EXPECT_FALSE(bundle::serializeBundle(noCode, bytes, error));
  EXPECT_EQ(error, "the bundle has neither a cubin nor PTX");
  Bundle invalid = test::makeSampleBundle();
  invalid.kernels[0].block = {0, 1, 1};
  EXPECT_FALSE(bundle::serializeBundle(invalid, bytes, error));
  EXPECT_EQ(error, "invalid metadata: kernel 'copy': block and cluster dims "
                   "must be >= 1");
}

// Every truncation is an error, never a crash.
TEST(Container, RejectsEveryTruncation) {
  std::vector<uint8_t> bytes = serialize(test::makeSampleBundle());
  for (size_t size = 0; size < bytes.size(); ++size) {
    Bundle parsed;
    std::string error;
    EXPECT_FALSE(bundle::parseBundle(bytes.data(), size, parsed, error))
        << "size " << size;
    EXPECT_FALSE(error.empty());
  }
  EXPECT_EQ(parseBytesError({bytes.begin(), bytes.begin() + 12}),
            "bundle truncated: 12 bytes, the header alone needs 16");
  EXPECT_EQ(parseBytesError({bytes.begin(), bytes.begin() + 20}),
            "bundle truncated: the section table runs past the end");
  std::vector<uint8_t> cut(bytes.begin(), bytes.end() - 1);
  EXPECT_EQ(parseBytesError(cut).rfind("bundle truncated: section 2", 0), 0u)
      << parseBytesError(cut);
}

TEST(Container, RejectsBadHeaders) {
  std::vector<uint8_t> good = serialize(test::makeSampleBundle());
  std::vector<uint8_t> bytes = good;
  bytes[0] = 'X';
  EXPECT_EQ(parseBytesError(bytes), "not a tilec bundle (bad magic)");
  bytes = good;
  putU32(bytes, 8, 2);
  EXPECT_EQ(parseBytesError(bytes), "bundle container version 2 is not "
                                    "supported (this build reads version 1)");
  bytes = good;
  putU32(bytes, 12, 1000);
  EXPECT_EQ(parseBytesError(bytes), "bundle claims 1000 sections (at most "
                                    "64)");
  bytes = good;
  putU32(bytes, 16 + 24, 1); // the cubin section now claims to be metadata
  EXPECT_EQ(parseBytesError(bytes), "bundle has two sections of kind 1");
  bytes = good;
  putU32(bytes, 16, 99); // metadata becomes an unknown (skipped) section
  EXPECT_EQ(parseBytesError(bytes), "bundle has no metadata section");
  // An offset near 2^64 must not wrap around the bounds check.
  bytes = good;
  putU32(bytes, 16 + 8, 0xffffffff);
  putU32(bytes, 16 + 12, 0xffffffff);
  EXPECT_EQ(parseBytesError(bytes).rfind("bundle truncated: section 0", 0), 0u);
}

// Readers skip sections of kinds they do not know.
TEST(Container, SkipsUnknownSections) {
  Bundle original = test::makeSampleBundle();
  std::vector<uint8_t> bytes = serialize(original);
  putU32(bytes, 16 + 2 * 24, 42); // the PTX section becomes kind 42
  Bundle parsed;
  std::string error;
  ASSERT_TRUE(bundle::parseBundle(bytes.data(), bytes.size(), parsed, error))
      << error;
  EXPECT_TRUE(parsed.ptx.empty());
  EXPECT_EQ(parsed.cubin, original.cubin);
}

// Random corruption gives errors or valid bundles, never a crash (run under
// ASan/UBSan to make this a fuzz smoke test).
TEST(Container, SurvivesRandomCorruption) {
  std::vector<uint8_t> good = serialize(test::makeSampleBundle());
  std::mt19937 random(1234);
  int rejected = 0;
  for (int round = 0; round < 3000; ++round) {
    std::vector<uint8_t> bytes = good;
    int flips = 1 + random() % 4;
    for (int i = 0; i < flips; ++i)
      bytes[random() % bytes.size()] = static_cast<uint8_t>(random());
    Bundle parsed;
    std::string error;
    if (!bundle::parseBundle(bytes.data(), bytes.size(), parsed, error)) {
      EXPECT_FALSE(error.empty());
      ++rejected;
    }
  }
  EXPECT_GT(rejected, 0);
}

TEST(Container, ReadsAndWritesFiles) {
  std::string path = ::testing::TempDir() + "tilec_bundle_test.tilec";
  Bundle original = test::makeSampleBundle();
  std::string error;
  ASSERT_TRUE(bundle::writeBundleFile(original, path, error)) << error;
  Bundle parsed;
  ASSERT_TRUE(bundle::readBundleFile(path, parsed, error)) << error;
  expectSameMetadata(original, parsed);
  EXPECT_EQ(parsed.cubin, original.cubin);
  std::remove(path.c_str());

  EXPECT_FALSE(bundle::readBundleFile(path, parsed, error));
  EXPECT_EQ(error, "cannot open '" + path + "': No such file or directory");
  std::ofstream(path) << "not a bundle";
  EXPECT_FALSE(bundle::readBundleFile(path, parsed, error));
  EXPECT_EQ(error, "'" + path + "': not a tilec bundle (bad magic)");
  std::remove(path.c_str());
}

// Each bad path is an error that names it, never an exception (a directory
// used to throw std::ios_base::failure out of the reader).
TEST(Container, BadFilesAreErrorsThatNameThePath) {
  test::BadBundleFiles files("tilec_bundle_test", ::testing::TempDir());
  struct Case {
    std::string path;
    std::string message;
  };
  const Case cases[] = {
      {files.directory,
       "cannot read '" + files.directory + "': Is a directory"},
      {files.missing,
       "cannot open '" + files.missing + "': No such file or directory"},
      {files.empty, "'" + files.empty +
                        "': empty (0 bytes), not a tilec "
                        "bundle"},
      {files.truncated, "'" + files.truncated + "': bundle truncated: "},
      {files.garbage, "'" + files.garbage +
                          "': not a tilec bundle (bad "
                          "magic)"},
  };
  for (const Case &c : cases) {
    Bundle parsed;
    std::string error;
    bool ok = true;
    EXPECT_NO_THROW(ok = bundle::readBundleFile(c.path, parsed, error));
    EXPECT_FALSE(ok) << c.path;
    EXPECT_EQ(error.substr(0, c.message.size()), c.message);
  }
  std::vector<uint8_t> bytes;
  std::string error;
  for (const std::string &path : {files.directory, files.missing}) {
    bool ok = true;
    EXPECT_NO_THROW(ok = bundle::readFile(path, bytes, error));
    EXPECT_FALSE(ok) << path;
  }
  EXPECT_EQ(error,
            "cannot open '" + files.missing + "': No such file or directory");
}

TEST(Container, WriterReportsAnUnwritablePath) {
  std::string error;
  std::string directory = ::testing::TempDir();
  EXPECT_FALSE(
      bundle::writeBundleFile(test::makeSampleBundle(), directory, error));
  EXPECT_EQ(error, "cannot create '" + directory + "': Is a directory");
}

} // namespace

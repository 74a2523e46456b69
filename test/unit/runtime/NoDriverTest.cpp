//===- NoDriverTest.cpp - The runtime without a CUDA driver ---------------===//
//
// CTest runs this with TILEC_CUDA_DRIVER pointing at a missing library, so
// the driver is absent even on a GPU machine. Every call that needs the
// driver must fail with the one clear message; everything that does not
// (parsing, misuse checks) must still work.
//
//===----------------------------------------------------------------------===//

#include "tilec/Runtime.h"
#include "tilec/tilec_runtime.h"

#include "SampleBundle.h"

#include <gtest/gtest.h>

#include <thread>

using namespace tilec;

namespace {

const char *const kDriverMessage =
    "CUDA driver not available: cannot load /nonexistent/libcuda.so.1";

bool isDriverError(const std::string &message) {
  return message.rfind(kDriverMessage, 0) == 0 &&
         message.find("needs the NVIDIA driver") != std::string::npos;
}

std::vector<uint8_t> sampleBundleBytes() {
  std::vector<uint8_t> bytes;
  std::string error;
  EXPECT_TRUE(bundle::serializeBundle(test::makeSampleBundle(), bytes, error))
      << error;
  return bytes;
}

TEST(NoDriver, DriverStatusSaysWhy) {
  rt::Error error = rt::driverStatus();
  EXPECT_EQ(error.status, rt::Status::DriverNotAvailable);
  EXPECT_TRUE(isDriverError(error.message)) << error.message;
  EXPECT_EQ(tilec_driver_status(), TILEC_ERROR_DRIVER_NOT_AVAILABLE);
  EXPECT_TRUE(isDriverError(tilec_last_error())) << tilec_last_error();
}

// A valid bundle parses, then loading stops at the driver.
TEST(NoDriver, LoadingAValidBundleNeedsTheDriver) {
  std::vector<uint8_t> bytes = sampleBundleBytes();
  tilec_module *module = nullptr;
  EXPECT_EQ(tilec_module_load_data(bytes.data(), bytes.size(), &module),
            TILEC_ERROR_DRIVER_NOT_AVAILABLE);
  EXPECT_EQ(module, nullptr);
  EXPECT_TRUE(isDriverError(tilec_last_error())) << tilec_last_error();

  std::string metadata = bundle::writeMetadataJson(test::makeSampleBundle());
  const char cubin[] = "\x7f"
                       "ELF fake";
  EXPECT_EQ(tilec_module_load_image(cubin, sizeof(cubin), metadata.data(),
                                    metadata.size(), &module),
            TILEC_ERROR_DRIVER_NOT_AVAILABLE);
  EXPECT_TRUE(isDriverError(tilec_last_error()));

  rt::Error error;
  EXPECT_EQ(rt::Module::load(test::makeSampleBundle(), error), nullptr);
  EXPECT_EQ(error.status, rt::Status::DriverNotAvailable);
}

// Bad input is reported as such, driver or not.
TEST(NoDriver, MalformedInputIsReportedFirst) {
  std::vector<uint8_t> bytes = sampleBundleBytes();
  tilec_module *module = nullptr;
  EXPECT_EQ(tilec_module_load_data(bytes.data(), 20, &module),
            TILEC_ERROR_INVALID_BUNDLE);
  EXPECT_STREQ(tilec_last_error(),
               "bundle truncated: the section table runs past the end");
  const char metadata[] = "{\"format\": \"tilec-metadata\"";
  EXPECT_EQ(
      tilec_module_load_image("x", 1, metadata, sizeof(metadata) - 1, &module),
      TILEC_ERROR_INVALID_BUNDLE);
  EXPECT_STREQ(tilec_last_error(), "metadata is not valid JSON: line 1, "
                                   "column 28: expected ',' or '}' in object");
  EXPECT_EQ(tilec_module_load_file("/nonexistent/k.tilec", &module),
            TILEC_ERROR_INVALID_BUNDLE);
  EXPECT_STREQ(tilec_last_error(),
               "cannot open '/nonexistent/k.tilec': No such file or directory");

  rt::Error error;
  bundle::Bundle noCode = test::makeSampleBundle();
  noCode.cubin.clear();
  noCode.ptx.clear();
  EXPECT_EQ(rt::Module::load(noCode, error), nullptr);
  EXPECT_EQ(error.status, rt::Status::InvalidBundle);
  EXPECT_EQ(error.message, "invalid bundle: the module has neither a cubin nor "
                           "PTX");
}

// As a new user would try it: each bad path is an InvalidBundle error that
// names the path, through the C++ and the C API, and nothing throws (a
// directory used to abort the process with std::ios_base::failure).
TEST(NoDriver, BadFilesAreErrorsThatNameThePath) {
  test::BadBundleFiles files("tilec_nodriver", ::testing::TempDir());
  const std::pair<std::string, std::string> cases[] = {
      {files.directory,
       "cannot read '" + files.directory + "': Is a directory"},
      {files.missing,
       "cannot open '" + files.missing + "': No such file or directory"},
      {files.empty, "'" + files.empty + "' is empty (0 bytes)"},
      {files.truncated, "'" + files.truncated + "': bundle truncated: "},
      {files.garbage, "'" + files.garbage +
                          "' is not a tilec bundle, and no metadata was "
                          "found beside it"},
  };
  for (const auto &[path, message] : cases) {
    rt::Error error;
    std::unique_ptr<rt::Module> module;
    EXPECT_NO_THROW(module = rt::Module::loadFile(path, error));
    EXPECT_EQ(module, nullptr);
    EXPECT_EQ(error.status, rt::Status::InvalidBundle);
    EXPECT_EQ(error.message.substr(0, message.size()), message);

    tilec_module *handle = nullptr;
    tilec_status status = TILEC_SUCCESS;
    EXPECT_NO_THROW(status = tilec_module_load_file(path.c_str(), &handle));
    EXPECT_EQ(status, TILEC_ERROR_INVALID_BUNDLE);
    EXPECT_EQ(handle, nullptr);
    EXPECT_EQ(std::string(tilec_last_error()), error.message);
  }

  // A raw image whose metadata path is a directory.
  tilec_module *handle = nullptr;
  EXPECT_EQ(tilec_module_load_image_file(files.garbage.c_str(),
                                         files.directory.c_str(), &handle),
            TILEC_ERROR_INVALID_BUNDLE);
  EXPECT_EQ(std::string(tilec_last_error()),
            "cannot read '" + files.directory + "': Is a directory");
}

// A raw cubin needs its metadata beside it.
TEST(NoDriver, RawImageWithoutMetadataIsExplained) {
  std::string path = ::testing::TempDir() + "tilec_nodriver_kernel.cubin";
  FILE *file = std::fopen(path.c_str(), "wb");
  ASSERT_NE(file, nullptr);
  std::fputs("\x7f"
             "ELF",
             file);
  std::fclose(file);
  tilec_module *module = nullptr;
  EXPECT_EQ(tilec_module_load_file(path.c_str(), &module),
            TILEC_ERROR_INVALID_BUNDLE);
  std::string stem = path.substr(0, path.size() - 6);
  EXPECT_EQ(std::string(tilec_last_error()),
            "'" + path +
                "' is not a tilec bundle, and no metadata was found "
                "beside it (looked for '" +
                stem + ".json' or '" + path + ".json')");

  // With metadata beside it, loading gets as far as the driver.
  std::string metadata = bundle::writeMetadataJson(test::makeSampleBundle());
  file = std::fopen((stem + ".json").c_str(), "wb");
  ASSERT_NE(file, nullptr);
  std::fputs(metadata.c_str(), file);
  std::fclose(file);
  EXPECT_EQ(tilec_module_load_file(path.c_str(), &module),
            TILEC_ERROR_DRIVER_NOT_AVAILABLE);
  std::remove(path.c_str());
  std::remove((stem + ".json").c_str());
}

TEST(NoDriver, DeviceHelpersNeedTheDriver) {
  uint64_t pointer = 0;
  EXPECT_EQ(tilec_device_alloc(256, &pointer),
            TILEC_ERROR_DRIVER_NOT_AVAILABLE);
  EXPECT_TRUE(isDriverError(tilec_last_error()));
  char host[16] = {};
  EXPECT_EQ(tilec_copy_to_device(pointer, host, 16),
            TILEC_ERROR_DRIVER_NOT_AVAILABLE);
  EXPECT_EQ(tilec_copy_to_host(host, pointer, 16),
            TILEC_ERROR_DRIVER_NOT_AVAILABLE);
  EXPECT_EQ(tilec_device_free(pointer), TILEC_ERROR_DRIVER_NOT_AVAILABLE);
  EXPECT_EQ(tilec_synchronize(nullptr), TILEC_ERROR_DRIVER_NOT_AVAILABLE);
  EXPECT_TRUE(isDriverError(tilec_last_error()));
}

TEST(NoDriver, MisuseIsInvalidValue) {
  tilec_module *module = nullptr;
  EXPECT_EQ(tilec_module_load_file(nullptr, &module),
            TILEC_ERROR_INVALID_VALUE);
  EXPECT_STREQ(tilec_last_error(), "tilec_module_load_file: path and module "
                                   "must not be null");
  EXPECT_EQ(tilec_module_get_kernel(nullptr, "k", nullptr),
            TILEC_ERROR_INVALID_VALUE);
  EXPECT_EQ(tilec_launch(nullptr, nullptr, 0, nullptr),
            TILEC_ERROR_INVALID_VALUE);
  EXPECT_EQ(tilec_check(nullptr, nullptr, 0), TILEC_ERROR_INVALID_VALUE);
  EXPECT_EQ(tilec_kernel_arg_info(nullptr, 0, nullptr),
            TILEC_ERROR_INVALID_VALUE);
  EXPECT_EQ(tilec_device_alloc(16, nullptr), TILEC_ERROR_INVALID_VALUE);
  EXPECT_EQ(tilec_module_unload(nullptr), TILEC_SUCCESS);
  EXPECT_EQ(tilec_module_num_kernels(nullptr), 0u);
  EXPECT_EQ(tilec_module_kernel_name(nullptr, 0), nullptr);
  EXPECT_EQ(tilec_kernel_name(nullptr), nullptr);
  EXPECT_STREQ(tilec_status_name(TILEC_ERROR_INVALID_ARGUMENT),
               "TILEC_ERROR_INVALID_ARGUMENT");
  EXPECT_STREQ(tilec_status_name(static_cast<tilec_status>(42)),
               "TILEC_ERROR_UNKNOWN");
}

// The last error belongs to the thread that made the call.
TEST(NoDriver, LastErrorIsPerThread) {
  EXPECT_EQ(tilec_driver_status(), TILEC_ERROR_DRIVER_NOT_AVAILABLE);
  std::string other = "unset";
  std::thread([&] { other = tilec_last_error(); }).join();
  EXPECT_EQ(other, "");
  EXPECT_TRUE(isDriverError(tilec_last_error()));
}

} // namespace

//===- TmaCopyTest.cpp - GPU tests of the runtime with TMA kernels --------===//
//
// Runs the reference kernels of tma_copy.cu through the runtime, from a
// bundle and from a raw cubin with its metadata, and checks every byte.
// A plain executable (no gtest) so that it builds on the GPU machine; exits
// 77 (CTest's skip) when there is no driver, no GPU or no sm_90a device.
//
//   tilec_gpu_tests <tma_copy.tilec> <tma_copy.cubin>
//
//===----------------------------------------------------------------------===//

#include "tilec/Runtime.h"

#include <algorithm>
#include <atomic>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <thread>
#include <vector>

using namespace tilec;
using rt::Arg;
using rt::Error;

namespace {

constexpr int kSkip = 77;
constexpr uint8_t kPoison = 0xCD;

std::atomic<int> failures{0};

void report(bool passed, const std::string &name, const std::string &detail) {
  std::printf("%s  %s%s%s\n", passed ? "PASS" : "FAIL", name.c_str(),
              detail.empty() ? "" : ": ", detail.c_str());
  if (!passed)
    ++failures;
}

bool ok(const Error &error, const std::string &what) {
  if (error)
    report(false, what, error.message);
  return !error;
}

/// Device memory that frees itself.
class DeviceBuffer {
public:
  explicit DeviceBuffer(size_t bytes) : bytes(bytes) {
    ok(rt::deviceAlloc(bytes, pointer), "allocate " + std::to_string(bytes));
  }
  ~DeviceBuffer() {
    if (pointer)
      rt::deviceFree(pointer);
  }
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;

  uint64_t address() const { return pointer; }
  bool upload(const std::vector<uint8_t> &host) const {
    return ok(rt::copyToDevice(pointer, host.data(), host.size()), "upload");
  }
  std::vector<uint8_t> download() const {
    std::vector<uint8_t> host(bytes);
    ok(rt::copyToHost(host.data(), pointer, bytes), "download");
    return host;
  }

private:
  size_t bytes;
  uint64_t pointer = 0;
};

std::vector<uint8_t> randomBytes(size_t count, uint32_t seed) {
  std::mt19937 random(seed);
  std::vector<uint8_t> bytes(count);
  for (uint8_t &byte : bytes)
    byte = static_cast<uint8_t>(random());
  return bytes;
}

/// Copies a rows x columns matrix of \p elementBytes elements from X to a Y
/// whose rows are \p padding elements longer, then checks every byte: the
/// copied ones equal X, the padding still holds the poison.
void checkCopy(rt::Kernel &kernel, bundle::DType dtype, int64_t rows,
               int64_t columns, int64_t padding, const std::string &name) {
  size_t elementBytes = bundle::byteSize(dtype);
  int64_t yStride = columns + padding;
  size_t xBytes = rows * columns * elementBytes;
  size_t yBytes = rows * yStride * elementBytes;
  DeviceBuffer x(xBytes), y(yBytes);
  std::vector<uint8_t> input = randomBytes(xBytes, 42 + rows);
  if (!x.upload(input) || !y.upload(std::vector<uint8_t>(yBytes, kPoison)))
    return;
  Arg args[] = {Arg::tensor(x.address(), dtype, {rows, columns}),
                Arg::tensor(y.address(), dtype, {rows, columns}, {yStride, 1})};
  uint32_t grid[3];
  if (!ok(kernel.computeGrid(args, 2, grid), name) ||
      !ok(kernel.launch(args, 2, nullptr), name) ||
      !ok(rt::synchronize(nullptr), name + " (synchronize)"))
    return;
  std::vector<uint8_t> output = y.download();
  size_t wrong = 0, firstWrong = SIZE_MAX;
  size_t rowBytes = columns * elementBytes;
  for (int64_t r = 0; r < rows; ++r) {
    for (size_t b = 0; b < yStride * elementBytes; ++b) {
      uint8_t expected = b < rowBytes ? input[r * rowBytes + b] : kPoison;
      size_t at = r * yStride * elementBytes + b;
      if (output[at] != expected) {
        ++wrong;
        firstWrong = std::min(firstWrong, at);
      }
    }
  }
  char detail[200];
  std::snprintf(
      detail, sizeof(detail),
      "%" PRId64 "x%" PRId64 " %s, grid %ux%ux%u, %zu of %zu bytes "
      "wrong%s",
      rows, columns, std::string(bundle::toString(dtype)).c_str(), grid[0],
      grid[1], grid[2], wrong, yBytes,
      wrong ? (", first at byte " + std::to_string(firstWrong)).c_str() : "");
  report(wrong == 0, name, detail);
}

void checkScale(rt::Kernel &kernel) {
  const int64_t n = 100003;
  std::vector<float> input(n), expected(n);
  std::mt19937 random(7);
  std::uniform_real_distribution<float> values(-1000.0f, 1000.0f);
  const float alpha = 0.75f;
  for (int64_t i = 0; i < n; ++i) {
    input[i] = values(random);
    expected[i] = alpha * input[i];
  }
  size_t bytes = n * sizeof(float);
  DeviceBuffer x(bytes), y(bytes);
  std::vector<uint8_t> raw(bytes);
  std::memcpy(raw.data(), input.data(), bytes);
  if (!x.upload(raw) || !y.upload(std::vector<uint8_t>(bytes, kPoison)))
    return;
  Arg args[] = {Arg::tensor(x.address(), bundle::DType::F32, {n}),
                Arg::tensor(y.address(), bundle::DType::F32, {n}),
                Arg::floating(bundle::DType::F32, alpha)};
  if (!ok(kernel.launch(args, 3), "scale") ||
      !ok(rt::synchronize(nullptr), "scale (synchronize)"))
    return;
  std::vector<uint8_t> output = y.download();
  bool same = std::memcmp(output.data(), expected.data(), bytes) == 0;
  report(same, "scale: pointer, dim and f32 scalar params",
         std::to_string(n) + " floats, alpha " + std::to_string(alpha));
}

/// A wrong call is an error message, never a fault on the GPU.
void checkErrors(rt::Kernel &kernel) {
  DeviceBuffer x(1 << 16), y(1 << 16);
  Arg args[] = {Arg::tensor(x.address() + 4, bundle::DType::F32, {64, 64}),
                Arg::tensor(y.address(), bundle::DType::F32, {64, 64})};
  Error error = kernel.launch(args, 2);
  report(error.status == rt::Status::InvalidArgument &&
             error.message.find("argument 'X' (index 0): data pointer") == 0,
         "misaligned X is refused before launch", error.message);
  args[0] = Arg::tensor(x.address(), bundle::DType::F16, {64, 64});
  error = kernel.launch(args, 2);
  report(error.message == "argument 'X' (index 0): expected dtype f32, got f16",
         "wrong dtype is refused before launch", error.message);
  report(!rt::synchronize(nullptr), "context healthy after refused launches",
         "");
}

/// Launches from several threads at once, each with its own buffers (and so
/// its own tensor maps), sharing the kernel and its cache.
void checkThreads(rt::Kernel &kernel) {
  constexpr int kThreads = 8;
  std::vector<std::thread> threads;
  int failedBefore = failures;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&kernel, t] {
      for (int round = 0; round < 3; ++round)
        checkCopy(kernel, bundle::DType::F32, 300 + 64 * t, 512, 4,
                  "  thread " + std::to_string(t) + " round " +
                      std::to_string(round));
    });
  for (std::thread &thread : threads)
    thread.join();
  report(failures == failedBefore, "concurrent launches from 8 threads", "");
}

int run(const char *bundlePath, const char *cubinPath) {
  Error error = rt::driverStatus();
  if (error.status == rt::Status::DriverNotAvailable) {
    std::printf("SKIP: %s\n", error.message.c_str());
    return kSkip;
  }
  std::unique_ptr<rt::Module> module = rt::Module::loadFile(bundlePath, error);
  if (!module &&
      error.message.find("CUDA_ERROR_NO_BINARY_FOR_GPU") != std::string::npos) {
    std::printf("SKIP: this GPU cannot run sm_90a code: %s\n",
                error.message.c_str());
    return kSkip;
  }
  if (!ok(error, std::string("load bundle ") + bundlePath))
    return 1;
  report(true, "load bundle", bundlePath);

  rt::Kernel *copy = module->kernel("tma_copy", error);
  rt::Kernel *persistent = module->kernel("tma_copy_persistent", error);
  rt::Kernel *scale = module->kernel("scale", error);
  if (!copy || !persistent || !scale) {
    report(false, "find kernels", error.message);
    return 1;
  }

  // Partial tiles on both axes; padded output rows must stay untouched.
  checkCopy(*copy, bundle::DType::F32, 1000, 1000, 4,
            "tma_copy: 128B swizzle, cluster 2, 65 KiB smem");
  checkCopy(*copy, bundle::DType::F32, 1000, 1000, 4,
            "tma_copy again (tensor maps from the cache)");
  checkCopy(*copy, bundle::DType::F32, 4096, 4096, 0, "tma_copy: whole tiles");
  checkCopy(*copy, bundle::DType::F32, 1, 4, 0, "tma_copy: one row");
  checkCopy(*persistent, bundle::DType::BF16, 777, 520, 8,
            "tma_copy_persistent: bf16, 64B swizzle, i32 dims");
  checkScale(*scale);
  checkErrors(*copy);
  checkThreads(*copy);

  // The raw cubin with <stem>.json beside it loads the same kernels.
  std::unique_ptr<rt::Module> raw = rt::Module::loadFile(cubinPath, error);
  if (ok(error, std::string("load raw cubin ") + cubinPath)) {
    rt::Kernel *rawCopy = raw->kernel("tma_copy", error);
    if (ok(error, "find tma_copy in the raw cubin"))
      checkCopy(*rawCopy, bundle::DType::F32, 513, 260, 0,
                "tma_copy from the raw cubin + metadata JSON");
  }
  raw.reset();

  // Loading and unloading repeatedly must not leak modules.
  bool reloads = true;
  for (int i = 0; i < 50 && reloads; ++i)
    reloads = rt::Module::loadFile(bundlePath, error) != nullptr;
  report(reloads, "load and unload the bundle 50 times", error.message);

  std::printf("%s: %d failure(s)\n", failures ? "FAILED" : "PASSED",
              failures.load());
  return failures ? 1 : 0;
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s <tma_copy.tilec> <tma_copy.cubin>\n",
                 argv[0]);
    return 2;
  }
  return run(argv[1], argv[2]);
}

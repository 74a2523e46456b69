//===- main.cpp - Example app: run a tilec copy kernel from a bundle ------===//
//
// Loads a bundle produced by tilec, finds a copy kernel (two tensor arguments
// of one dtype and rank 2: input X, output Y), runs it on random data and
// checks every byte of Y.
//
//   tilec-copy-app <bundle> [kernel] [rows] [columns]
//
// Exit codes: 0 copied correctly, 1 wrong result or error, 77 no GPU/driver.
// Needs only the runtime: it loads the CUDA driver itself at run time, so the
// app also builds on a machine without one.
//
//===----------------------------------------------------------------------===//

#include <tilec/Runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

using namespace tilec;

namespace {

int fail(const std::string &what, const rt::Error &error) {
  std::fprintf(stderr, "error: %s: %s\n", what.c_str(), error.message.c_str());
  return error.status == rt::Status::DriverNotAvailable ? 77 : 1;
}

/// A kernel the app knows how to drive: copy(X, Y) over rank-2 tensors.
bool isCopyKernel(const bundle::Kernel &kernel) {
  const auto &args = kernel.args;
  return args.size() == 2 && args[0].isTensor() && args[1].isTensor() &&
         args[0].shape.size() == 2 && args[1].shape.size() == 2 &&
         args[0].dtype == args[1].dtype;
}

/// The size of dim \p d: the one the kernel was compiled for, else \p wanted.
int64_t pickSize(const bundle::Argument &arg, size_t d, int64_t wanted) {
  return arg.shape[d] == bundle::kDynamic ? wanted : arg.shape[d];
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2 || argc > 5) {
    std::fprintf(stderr, "usage: %s <bundle> [kernel] [rows] [columns]\n",
                 argv[0]);
    return 2;
  }
  std::string kernelName = argc > 2 ? argv[2] : "";
  int64_t wantedRows = argc > 3 ? std::atoll(argv[3]) : 2048;
  int64_t wantedColumns = argc > 4 ? std::atoll(argv[4]) : 2048;

  rt::Error error;
  std::unique_ptr<rt::Module> module = rt::Module::loadFile(argv[1], error);
  if (!module)
    return fail(std::string("cannot load ") + argv[1], error);
  if (kernelName.empty())
    for (const bundle::Kernel &candidate : module->bundle().kernels)
      if (isCopyKernel(candidate)) {
        kernelName = candidate.name;
        break;
      }
  rt::Kernel *kernel = module->kernel(kernelName, error);
  if (!kernel)
    return fail("no copy kernel", error);
  const bundle::Kernel &meta = kernel->metadata();
  if (!isCopyKernel(meta)) {
    std::fprintf(stderr, "error: kernel '%s' is not a copy(X, Y) kernel\n",
                 meta.name.c_str());
    return 1;
  }

  bundle::DType dtype = meta.args[0].dtype;
  int64_t rows = pickSize(meta.args[0], 0, wantedRows);
  int64_t columns = pickSize(meta.args[0], 1, wantedColumns);
  size_t bytes = rows * columns * bundle::byteSize(dtype);

  // Random input; the output is poisoned so that a skipped store shows.
  std::vector<uint8_t> input(bytes), output(bytes, 0xCD);
  std::mt19937 random(2024);
  for (uint8_t &byte : input)
    byte = static_cast<uint8_t>(random());
  uint64_t x = 0, y = 0;
  if ((error = rt::deviceAlloc(bytes, x)) ||
      (error = rt::deviceAlloc(bytes, y)) ||
      (error = rt::copyToDevice(x, input.data(), bytes)) ||
      (error = rt::copyToDevice(y, output.data(), bytes)))
    return fail("cannot prepare device memory", error);

  rt::Arg args[] = {rt::Arg::tensor(x, dtype, {rows, columns}),
                    rt::Arg::tensor(y, dtype, {rows, columns})};
  auto start = std::chrono::steady_clock::now();
  if ((error = kernel->launch(args, 2, /*stream=*/nullptr)) ||
      (error = rt::synchronize(nullptr)))
    return fail("launch of '" + meta.name + "' failed", error);
  double micros = std::chrono::duration<double, std::micro>(
                      std::chrono::steady_clock::now() - start)
                      .count();
  if ((error = rt::copyToHost(output.data(), y, bytes)))
    return fail("cannot read the result", error);
  rt::deviceFree(x);
  rt::deviceFree(y);

  size_t wrong = 0;
  for (size_t i = 0; i < bytes; ++i)
    wrong += output[i] != input[i];
  std::printf("%s: kernel '%s' copied %lldx%lld %s (%zu bytes) in %.1f us "
              "(first launch, includes setup): %zu wrong bytes\n",
              wrong ? "FAIL" : "OK", meta.name.c_str(),
              static_cast<long long>(rows), static_cast<long long>(columns),
              std::string(bundle::toString(dtype)).c_str(), bytes, micros,
              wrong);
  return wrong ? 1 : 0;
}

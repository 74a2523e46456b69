//===- Runtime.h - tilec runtime C++ API ------------------------*- C++ -*-===//
//
// Loads tilec output (a bundle, or a raw cubin/PTX with its metadata JSON)
// and launches its kernels: checks the user's arguments against the kernel's
// metadata, builds and caches TMA tensor maps, sets the dynamic shared memory
// limit, picks the grid and launches with the cluster shape on the caller's
// stream. The CUDA driver is loaded at run time; this header needs no CUDA
// header. Everything here is thread-safe. The C API is tilec_runtime.h.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_RUNTIME_H
#define TILEC_RUNTIME_H

#include "tilec/bundle/Bundle.h"

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>

#if defined(_WIN32)
#define TILEC_RT_EXPORT
#else
#define TILEC_RT_EXPORT __attribute__((visibility("default")))
#endif

namespace tilec::rt {

using bundle::DType;

/// Outcome classes; the values match tilec_status in the C API.
enum class Status : int {
  Success = 0,
  /// No libcuda, no GPU, or cuInit failed.
  DriverNotAvailable = 1,
  /// Misuse of the API: null handle, too many arguments, ...
  InvalidValue = 2,
  /// The bundle or metadata is malformed, or the file cannot be read.
  InvalidBundle = 3,
  /// No kernel of that name.
  NotFound = 4,
  /// A launch argument does not match the kernel (dtype, shape, TMA rules).
  InvalidArgument = 5,
  /// The driver returned an error (module load, tensor map, launch, ...).
  CudaError = 6,
};

/// A status and the message that explains it; empty on success.
struct Error {
  Status status = Status::Success;
  std::string message;

  explicit operator bool() const { return status != Status::Success; }
  static Error make(Status status, std::string message) {
    return Error{status, std::move(message)};
  }
};

/// One launch argument: a tensor in device memory, a scalar, or a tensor
/// list. Plain data so that building one costs nothing; use the factory
/// functions.
struct TILEC_RT_EXPORT Arg {
  enum class Kind : int { Tensor = 0, Scalar = 1, TensorList = 2 };
  Kind kind = Kind::Tensor;
  DType dtype = DType::F32;
  /// Tensors: number of dims (<= bundle::kMaxRank). Tensor lists: number of
  /// tensors.
  uint32_t rank = 0;
  /// Tensors: device address. Tensor lists: the host address of `rank`
  /// tensor Args, read during the call only.
  uint64_t data = 0;
  /// Tensors: sizes and strides in elements, outermost first.
  int64_t shape[bundle::kMaxRank] = {};
  int64_t strides[bundle::kMaxRank] = {};
  /// Scalars: the value, in intValue for integer dtypes and in floatValue for
  /// floating-point dtypes (converted to the dtype at launch).
  int64_t intValue = 0;
  double floatValue = 0;

  /// A tensor; empty \p strides means contiguous row-major.
  static Arg tensor(uint64_t data, DType dtype,
                    std::initializer_list<int64_t> shape,
                    std::initializer_list<int64_t> strides = {});
  static Arg tensor(uint64_t data, DType dtype, uint32_t rank,
                    const int64_t *shape, const int64_t *strides);
  /// A list of \p count tensors (each made by Arg::tensor); \p tensors must
  /// outlive the check or launch call, not the kernel.
  static Arg tensorList(const Arg *tensors, uint32_t count);
  static Arg integer(DType dtype, int64_t value);
  static Arg floating(DType dtype, double value);
};

class Module;

/// A kernel of a loaded module. Owned by its Module; valid while it lives.
class TILEC_RT_EXPORT Kernel {
public:
  ~Kernel();
  Kernel(const Kernel &) = delete;
  Kernel &operator=(const Kernel &) = delete;

  const bundle::Kernel &metadata() const { return meta; }
  const std::string &name() const { return meta.name; }

  /// Checks \p args against the metadata without touching the GPU. Launch
  /// runs the same checks first.
  Error check(const Arg *args, size_t count) const;

  /// Checks the arguments, then launches on \p stream (a CUstream; null is
  /// the legacy default stream). Asynchronous like any CUDA launch. A grid
  /// with no CTAs (an empty tensor) launches nothing and succeeds.
  Error launch(const Arg *args, size_t count, void *stream = nullptr);

  /// The grid this launch would use, for tests and logs.
  Error computeGrid(const Arg *args, size_t count, uint32_t grid[3]) const;

  /// At most \p ctas CTAs for a persistent grid (0: no limit, every SM that
  /// can hold the kernel), rounded down to whole clusters and at least one
  /// cluster: DeepGEMM's set_num_sms, which leaves SMs to other work.
  /// Fixed grids are not affected.
  void setPersistentLimit(uint32_t ctas);

private:
  friend class Module;
  struct State;
  Kernel(Module &module, const bundle::Kernel &meta, void *function);
  Error prepare(uint32_t smCount);

  Module &module;
  const bundle::Kernel &meta;
  std::unique_ptr<State> state;
};

/// A module loaded into a CUDA context: the context current on the loading
/// thread, or else device 0's primary context (retained). Unloaded (and the
/// primary context released) when destroyed.
class TILEC_RT_EXPORT Module {
public:
  /// A bundle file, or a raw .cubin / .ptx file whose metadata sits beside
  /// it as <stem>.json or <file>.json.
  static std::unique_ptr<Module> loadFile(const std::string &path,
                                          Error &error);
  /// Bundle bytes.
  static std::unique_ptr<Module> loadData(const void *data, size_t size,
                                          Error &error);
  /// A raw cubin (ELF), fatbin or PTX image with its metadata JSON.
  static std::unique_ptr<Module> loadImage(const void *image, size_t size,
                                           std::string_view metadataJson,
                                           Error &error);
  static std::unique_ptr<Module> loadImageFile(const std::string &imagePath,
                                               const std::string &metadataPath,
                                               Error &error);
  /// An already parsed bundle (code included).
  static std::unique_ptr<Module> load(bundle::Bundle bundle, Error &error);

  ~Module();
  Module(const Module &) = delete;
  Module &operator=(const Module &) = delete;

  const bundle::Bundle &bundle() const { return contents; }

  /// The kernel named \p name; an empty name picks the only kernel.
  Kernel *kernel(std::string_view name, Error &error);

private:
  friend class Kernel;
  struct State;
  explicit Module(bundle::Bundle contents);
  /// Loads the code into the context and finds every kernel.
  Error open();

  bundle::Bundle contents;
  std::unique_ptr<State> state;
};

/// Loads the driver if needed; an error when it is not available.
TILEC_RT_EXPORT Error driverStatus();

/// Checks \p args against \p kernel's metadata on the CPU (no driver needed).
TILEC_RT_EXPORT Error checkArgs(const bundle::Kernel &kernel, const Arg *args,
                                size_t count);

/// Device memory helpers for tests and small apps: the runtime's driver, in
/// the context a module loaded now would use. \p stream null in synchronize
/// waits for the whole context.
TILEC_RT_EXPORT Error deviceAlloc(size_t bytes, uint64_t &devicePtr);
TILEC_RT_EXPORT Error deviceFree(uint64_t devicePtr);
TILEC_RT_EXPORT Error copyToDevice(uint64_t devicePtr, const void *host,
                                   size_t bytes);
TILEC_RT_EXPORT Error copyToHost(void *host, uint64_t devicePtr, size_t bytes);
TILEC_RT_EXPORT Error synchronize(void *stream);

} // namespace tilec::rt

#endif // TILEC_RUNTIME_H

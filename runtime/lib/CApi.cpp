//===- CApi.cpp - tilec runtime C API -------------------------------------===//
//
// The C API of tilec_runtime.h over the C++ API: handle casts, argument
// conversion and the thread-local last-error message. No entry point catches
// anything: nothing below throws (bad_alloc aside); readers and the driver
// calls return errors, and counts from C are checked before they size a
// vector.
//
//===----------------------------------------------------------------------===//

#include "tilec/tilec_runtime.h"

#include "tilec/Runtime.h"

#include "LaunchPlan.h"

#include <vector>

using tilec::rt::Arg;
using tilec::rt::checkArgCount;
using tilec::rt::Error;
using tilec::rt::Kernel;
using tilec::rt::Module;
using tilec::rt::Status;

static_assert(TILEC_MAX_RANK == tilec::bundle::kMaxRank,
              "C and C++ rank limits agree");
static_assert(TILEC_DTYPE_E8M0 + 1 == tilec::bundle::kNumDTypes,
              "C and C++ dtypes agree");

namespace {

thread_local std::string lastError;

tilec_status report(const Error &error) {
  lastError = error.message;
  return static_cast<tilec_status>(error.status);
}

tilec_status invalidValue(const std::string &message) {
  return report(Error::make(Status::InvalidValue, message));
}

Module *unwrap(tilec_module *module) {
  return reinterpret_cast<Module *>(module);
}
const Module *unwrap(const tilec_module *module) {
  return reinterpret_cast<const Module *>(module);
}
Kernel *unwrap(tilec_kernel *kernel) {
  return reinterpret_cast<Kernel *>(kernel);
}
const Kernel *unwrap(const tilec_kernel *kernel) {
  return reinterpret_cast<const Kernel *>(kernel);
}

/// Hands a loaded module to the caller or reports why there is none.
tilec_status finishLoad(std::unique_ptr<Module> loaded, const Error &error,
                        tilec_module **module) {
  if (!loaded)
    return report(error);
  *module = reinterpret_cast<tilec_module *>(loaded.release());
  lastError.clear();
  return TILEC_SUCCESS;
}

/// C arguments as C++ ones, with the tensors of their tensor lists.
struct ConvertedArgs {
  std::vector<Arg> args;
  /// Each list's tensors, consecutive; the list Args point into it.
  std::vector<Arg> listTensors;
};

Arg convertArg(const tilec_arg &in) {
  Arg out;
  out.kind = static_cast<Arg::Kind>(in.kind);
  out.dtype = static_cast<tilec::bundle::DType>(in.dtype);
  out.rank = static_cast<uint32_t>(in.rank);
  out.data = in.data;
  for (unsigned d = 0; d < TILEC_MAX_RANK; ++d) {
    out.shape[d] = in.shape[d];
    out.strides[d] = in.strides[d];
  }
  out.intValue = in.int_value;
  out.floatValue = in.float_value;
  return out;
}

/// Copies C arguments into C++ ones; the values are checked by the launch
/// plan, so out-of-range kinds and dtypes are carried over as they are.
/// \p nargs has been checked against the kernel, so that a wild count cannot
/// make the vector throw; a list longer than any kernel takes is not read
/// (its length alone fails the check).
ConvertedArgs convertArgs(const tilec_arg *args, size_t nargs) {
  ConvertedArgs converted;
  converted.args.resize(nargs);
  size_t listed = 0;
  auto readable = [](const tilec_arg &in) {
    return in.kind == TILEC_ARG_TENSOR_LIST && in.data != 0 && in.rank > 0 &&
           uint32_t(in.rank) <= tilec::bundle::kMaxListCapacity;
  };
  for (size_t i = 0; i < nargs; ++i)
    if (readable(args[i]))
      listed += uint32_t(args[i].rank);
  // Reserved first: the lists point into it.
  converted.listTensors.reserve(listed);
  for (size_t i = 0; i < nargs; ++i) {
    converted.args[i] = convertArg(args[i]);
    if (!readable(args[i]))
      continue;
    const auto *tensors =
        reinterpret_cast<const tilec_arg *>(uintptr_t(args[i].data));
    size_t first = converted.listTensors.size();
    for (int32_t e = 0; e < args[i].rank; ++e)
      converted.listTensors.push_back(convertArg(tensors[e]));
    converted.args[i].data =
        uint64_t(uintptr_t(converted.listTensors.data() + first));
  }
  return converted;
}

} // namespace

extern "C" {

const char *tilec_last_error(void) { return lastError.c_str(); }

const char *tilec_status_name(tilec_status status) {
  switch (status) {
  case TILEC_SUCCESS:
    return "TILEC_SUCCESS";
  case TILEC_ERROR_DRIVER_NOT_AVAILABLE:
    return "TILEC_ERROR_DRIVER_NOT_AVAILABLE";
  case TILEC_ERROR_INVALID_VALUE:
    return "TILEC_ERROR_INVALID_VALUE";
  case TILEC_ERROR_INVALID_BUNDLE:
    return "TILEC_ERROR_INVALID_BUNDLE";
  case TILEC_ERROR_NOT_FOUND:
    return "TILEC_ERROR_NOT_FOUND";
  case TILEC_ERROR_INVALID_ARGUMENT:
    return "TILEC_ERROR_INVALID_ARGUMENT";
  case TILEC_ERROR_CUDA:
    return "TILEC_ERROR_CUDA";
  }
  return "TILEC_ERROR_UNKNOWN";
}

tilec_status tilec_driver_status(void) {
  return report(tilec::rt::driverStatus());
}

tilec_status tilec_module_load_file(const char *path, tilec_module **module) {
  if (!path || !module)
    return invalidValue("tilec_module_load_file: path and module must not be "
                        "null");
  Error error;
  auto loaded = Module::loadFile(path, error);
  return finishLoad(std::move(loaded), error, module);
}

tilec_status tilec_module_load_data(const void *data, size_t size,
                                    tilec_module **module) {
  if (!data || !module)
    return invalidValue("tilec_module_load_data: data and module must not be "
                        "null");
  Error error;
  auto loaded = Module::loadData(data, size, error);
  return finishLoad(std::move(loaded), error, module);
}

tilec_status tilec_module_load_image(const void *image, size_t size,
                                     const char *metadata_json,
                                     size_t metadata_size,
                                     tilec_module **module) {
  if (!image || !metadata_json || !module)
    return invalidValue("tilec_module_load_image: image, metadata_json and "
                        "module must not be null");
  Error error;
  auto loaded = Module::loadImage(
      image, size, std::string_view(metadata_json, metadata_size), error);
  return finishLoad(std::move(loaded), error, module);
}

tilec_status tilec_module_load_image_file(const char *image_path,
                                          const char *metadata_path,
                                          tilec_module **module) {
  if (!image_path || !metadata_path || !module)
    return invalidValue("tilec_module_load_image_file: paths and module must "
                        "not be null");
  Error error;
  auto loaded = Module::loadImageFile(image_path, metadata_path, error);
  return finishLoad(std::move(loaded), error, module);
}

tilec_status tilec_module_unload(tilec_module *module) {
  delete unwrap(module);
  lastError.clear();
  return TILEC_SUCCESS;
}

size_t tilec_module_num_kernels(const tilec_module *module) {
  return module ? unwrap(module)->bundle().kernels.size() : 0;
}

const char *tilec_module_kernel_name(const tilec_module *module, size_t index) {
  if (!module || index >= unwrap(module)->bundle().kernels.size())
    return nullptr;
  return unwrap(module)->bundle().kernels[index].name.c_str();
}

tilec_status tilec_module_get_kernel(tilec_module *module, const char *name,
                                     tilec_kernel **kernel) {
  if (!module || !kernel)
    return invalidValue("tilec_module_get_kernel: module and kernel must not "
                        "be null");
  Error error;
  Kernel *found = unwrap(module)->kernel(name ? name : "", error);
  if (!found)
    return report(error);
  *kernel = reinterpret_cast<tilec_kernel *>(found);
  lastError.clear();
  return TILEC_SUCCESS;
}

const char *tilec_kernel_name(const tilec_kernel *kernel) {
  return kernel ? unwrap(kernel)->name().c_str() : nullptr;
}

size_t tilec_kernel_num_args(const tilec_kernel *kernel) {
  return kernel ? unwrap(kernel)->metadata().args.size() : 0;
}

tilec_status tilec_kernel_arg_info(const tilec_kernel *kernel, size_t index,
                                   tilec_arg_info *info) {
  if (!kernel || !info)
    return invalidValue("tilec_kernel_arg_info: kernel and info must not be "
                        "null");
  const auto &args = unwrap(kernel)->metadata().args;
  if (index >= args.size())
    return invalidValue("tilec_kernel_arg_info: kernel '" +
                        unwrap(kernel)->name() + "' has " +
                        std::to_string(args.size()) + " arguments, not " +
                        std::to_string(index + 1));
  const tilec::bundle::Argument &arg = args[index];
  *info = tilec_arg_info();
  info->name = arg.name.c_str();
  info->kind = arg.isTensorList() ? TILEC_ARG_TENSOR_LIST
               : arg.isTensor()   ? TILEC_ARG_TENSOR
                                  : TILEC_ARG_SCALAR;
  info->capacity = static_cast<int32_t>(arg.capacity);
  info->dtype = static_cast<int32_t>(arg.dtype);
  info->rank = static_cast<int32_t>(arg.shape.size());
  for (size_t d = 0; d < arg.shape.size(); ++d)
    info->shape[d] = arg.shape[d];
  lastError.clear();
  return TILEC_SUCCESS;
}

tilec_status tilec_check(const tilec_kernel *kernel, const tilec_arg *args,
                         size_t nargs) {
  if (!kernel || (nargs && !args))
    return invalidValue("tilec_check: kernel and args must not be null");
  if (Error error = checkArgCount(unwrap(kernel)->metadata(), nargs))
    return report(error);
  ConvertedArgs converted = convertArgs(args, nargs);
  return report(
      unwrap(kernel)->check(converted.args.data(), converted.args.size()));
}

tilec_status tilec_launch(tilec_kernel *kernel, const tilec_arg *args,
                          size_t nargs, void *stream) {
  if (!kernel || (nargs && !args))
    return invalidValue("tilec_launch: kernel and args must not be null");
  if (Error error = checkArgCount(unwrap(kernel)->metadata(), nargs))
    return report(error);
  ConvertedArgs converted = convertArgs(args, nargs);
  return report(unwrap(kernel)->launch(converted.args.data(),
                                       converted.args.size(), stream));
}

tilec_status tilec_kernel_set_persistent_limit(tilec_kernel *kernel,
                                               uint32_t ctas) {
  if (!kernel)
    return invalidValue(
        "tilec_kernel_set_persistent_limit: kernel must not be null");
  unwrap(kernel)->setPersistentLimit(ctas);
  return TILEC_SUCCESS;
}

tilec_status tilec_device_alloc(size_t bytes, uint64_t *device_ptr) {
  if (!device_ptr)
    return invalidValue("tilec_device_alloc: device_ptr must not be null");
  return report(tilec::rt::deviceAlloc(bytes, *device_ptr));
}

tilec_status tilec_device_free(uint64_t device_ptr) {
  return report(tilec::rt::deviceFree(device_ptr));
}

tilec_status tilec_copy_to_device(uint64_t device_ptr, const void *host,
                                  size_t bytes) {
  return report(tilec::rt::copyToDevice(device_ptr, host, bytes));
}

tilec_status tilec_copy_to_host(void *host, uint64_t device_ptr, size_t bytes) {
  return report(tilec::rt::copyToHost(host, device_ptr, bytes));
}

tilec_status tilec_synchronize(void *stream) {
  return report(tilec::rt::synchronize(stream));
}

} // extern "C"

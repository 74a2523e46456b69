//===- Runtime.cpp - tilec runtime: modules, kernels, launches ------------===//
//
// Module loading into a CUDA context, tensor-map encoding with a bounded
// per-kernel cache, function attributes and cuLaunchKernelEx.
//
//===----------------------------------------------------------------------===//

#include "tilec/Runtime.h"

#include "Driver.h"
#include "LaunchPlan.h"
#include "LruCache.h"

#include <cstring>
#include <map>
#include <mutex>

namespace tilec::rt {

namespace {

/// Tensor maps kept per kernel: enough for every shape a typical process
/// launches, small enough (~40 KiB) never to matter.
constexpr size_t kTensorMapCacheEntries = 256;

/// Room for the JIT's error log when loading PTX.
constexpr size_t kJitLogBytes = 8192;

using EncodedTensorMap = std::array<uint64_t, 16>;
static_assert(sizeof(EncodedTensorMap) == sizeof(CUtensorMap),
              "a tensor map is 128 bytes");

Error cudaError(const DriverApi &driver, CUresult result,
                const std::string &what) {
  return Error::make(Status::CudaError, what + ": " + describe(driver, result));
}

/// Makes the enclosing function return a CudaError when the driver call
/// \p call fails. \p what says what was being done; it is built only on
/// failure, so a launch pays nothing for its message.
#define TILEC_RETURN_IF_DRIVER_ERROR(driver, call, what)                       \
  do {                                                                         \
    CUresult tilecDriverResult = (call);                                       \
    if (tilecDriverResult != CUDA_SUCCESS)                                     \
      return cudaError(driver, tilecDriverResult, what);                       \
  } while (false)

Error loadDriver(const DriverApi *&driver) {
  std::string message;
  driver = getDriver(message);
  if (!driver)
    return Error::make(Status::DriverNotAvailable, message);
  return Error();
}

/// The context to load into: the caller's current one, else device 0's
/// primary context, retained once for the life of the process (as the CUDA
/// runtime does) so that memory and modules in it stay valid.
Error defaultContext(const DriverApi &driver, CUcontext &context) {
  TILEC_RETURN_IF_DRIVER_ERROR(driver, driver.cuCtxGetCurrent(&context),
                               "cuCtxGetCurrent failed");
  if (context)
    return Error();
  static std::mutex mutex;
  static CUcontext primary = nullptr;
  std::lock_guard<std::mutex> lock(mutex);
  if (!primary) {
    CUdevice device;
    TILEC_RETURN_IF_DRIVER_ERROR(driver, driver.cuDeviceGet(&device, 0),
                                 "cuDeviceGet(0) failed");
    TILEC_RETURN_IF_DRIVER_ERROR(
        driver, driver.cuDevicePrimaryCtxRetain(&primary, device),
        "cuDevicePrimaryCtxRetain failed");
  }
  context = primary;
  return Error();
}

/// Makes a context current for a scope, restoring the caller's after.
class ScopedContext {
public:
  explicit ScopedContext(const DriverApi &driver) : driver(driver) {}
  ScopedContext(const ScopedContext &) = delete;

  /// Makes \p context current until this object dies.
  Error enter(CUcontext context) {
    const char *what = "cannot make the module's context current";
    CUcontext current = nullptr;
    TILEC_RETURN_IF_DRIVER_ERROR(driver, driver.cuCtxGetCurrent(&current),
                                 what);
    if (current == context)
      return Error();
    TILEC_RETURN_IF_DRIVER_ERROR(driver, driver.cuCtxPushCurrent(context),
                                 what);
    pushed = true;
    return Error();
  }
  ~ScopedContext() {
    CUcontext ignored;
    if (pushed)
      driver.cuCtxPopCurrent(&ignored);
  }

private:
  const DriverApi &driver;
  bool pushed = false;
};

CUtensorMapDataType tensorMapDataType(DType dtype) {
  switch (dtype) {
  case DType::F16:
    return CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  case DType::BF16:
    return CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  case DType::F32:
    return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
  case DType::F64:
    return CU_TENSOR_MAP_DATA_TYPE_FLOAT64;
  case DType::TF32:
    return CU_TENSOR_MAP_DATA_TYPE_TFLOAT32;
  case DType::I16:
  case DType::U16:
    return CU_TENSOR_MAP_DATA_TYPE_UINT16;
  case DType::I32:
    return CU_TENSOR_MAP_DATA_TYPE_INT32;
  case DType::U32:
    return CU_TENSOR_MAP_DATA_TYPE_UINT32;
  case DType::I64:
    return CU_TENSOR_MAP_DATA_TYPE_INT64;
  case DType::U64:
    return CU_TENSOR_MAP_DATA_TYPE_UINT64;
  case DType::I8:
  case DType::U8:
  case DType::E4M3:
  case DType::E5M2:
  case DType::E8M0:
    // TMA moves bytes; 8-bit floats travel as UINT8.
    return CU_TENSOR_MAP_DATA_TYPE_UINT8;
  }
  return CU_TENSOR_MAP_DATA_TYPE_UINT8;
}

CUtensorMapSwizzle tensorMapSwizzle(bundle::Swizzle swizzle) {
  switch (swizzle) {
  case bundle::Swizzle::None:
    return CU_TENSOR_MAP_SWIZZLE_NONE;
  case bundle::Swizzle::B32:
    return CU_TENSOR_MAP_SWIZZLE_32B;
  case bundle::Swizzle::B64:
    return CU_TENSOR_MAP_SWIZZLE_64B;
  case bundle::Swizzle::B128:
    return CU_TENSOR_MAP_SWIZZLE_128B;
  }
  return CU_TENSOR_MAP_SWIZZLE_NONE;
}

CUtensorMapL2promotion tensorMapL2Promotion(bundle::L2Promotion promotion) {
  switch (promotion) {
  case bundle::L2Promotion::None:
    return CU_TENSOR_MAP_L2_PROMOTION_NONE;
  case bundle::L2Promotion::B64:
    return CU_TENSOR_MAP_L2_PROMOTION_L2_64B;
  case bundle::L2Promotion::B128:
    return CU_TENSOR_MAP_L2_PROMOTION_L2_128B;
  case bundle::L2Promotion::B256:
    return CU_TENSOR_MAP_L2_PROMOTION_L2_256B;
  }
  return CU_TENSOR_MAP_L2_PROMOTION_NONE;
}

std::string joinNumbers(const uint64_t *values, uint32_t count) {
  std::string out = "[";
  for (uint32_t i = 0; i < count; ++i)
    out += (i ? ", " : "") + std::to_string(values[i]);
  return out + "]";
}

} // namespace

//===----------------------------------------------------------------------===//
// Module
//===----------------------------------------------------------------------===//

struct Module::State {
  const DriverApi *driver = nullptr;
  CUcontext context = nullptr;
  CUmodule module = nullptr;
  uint32_t smCount = 0;
  /// Built at load and never changed after, so lookups need no lock.
  std::map<std::string, std::unique_ptr<Kernel>, std::less<>> kernels;
};

Module::Module(bundle::Bundle contents)
    : contents(std::move(contents)), state(std::make_unique<State>()) {}

Module::~Module() {
  if (!state->module)
    return;
  state->kernels.clear();
  ScopedContext scope(*state->driver);
  // Unload even if the context cannot be made current: there is no one to
  // report to, and the driver refuses a module of another context anyway.
  (void)scope.enter(state->context);
  state->driver->cuModuleUnload(state->module);
}

std::unique_ptr<Module> Module::load(bundle::Bundle contents, Error &error) {
  error = Error();
  std::string problem = bundle::validate(contents);
  if (problem.empty() && contents.cubin.empty() && contents.ptx.empty())
    problem = "the module has neither a cubin nor PTX";
  if (!problem.empty()) {
    error = Error::make(Status::InvalidBundle, "invalid bundle: " + problem);
    return nullptr;
  }
  std::unique_ptr<Module> module(new Module(std::move(contents)));
  if ((error = module->open()))
    return nullptr; // the destructor unloads what was loaded
  return module;
}

Error Module::open() {
  if (Error error = loadDriver(state->driver))
    return error;
  const DriverApi &driver = *state->driver;
  if (Error error = defaultContext(driver, state->context))
    return error;
  ScopedContext scope(driver);
  if (Error error = scope.enter(state->context))
    return error;

  CUdevice device;
  int smCount = 0, major = 0, minor = 0;
  const char *query = "cannot query the device";
  TILEC_RETURN_IF_DRIVER_ERROR(driver, driver.cuCtxGetDevice(&device), query);
  TILEC_RETURN_IF_DRIVER_ERROR(
      driver,
      driver.cuDeviceGetAttribute(
          &smCount, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device),
      query);
  TILEC_RETURN_IF_DRIVER_ERROR(
      driver,
      driver.cuDeviceGetAttribute(
          &major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device),
      query);
  TILEC_RETURN_IF_DRIVER_ERROR(
      driver,
      driver.cuDeviceGetAttribute(
          &minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device),
      query);
  state->smCount = static_cast<uint32_t>(smCount);

  bool isCubin = !contents.cubin.empty();
  const void *image = isCubin ? static_cast<const void *>(contents.cubin.data())
                              : static_cast<const void *>(contents.ptx.c_str());
  // The JIT log explains PTX that fails to compile.
  std::string log(kJitLogBytes, '\0');
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER,
                            CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {log.data(), reinterpret_cast<void *>(kJitLogBytes)};
  CUresult result =
      driver.cuModuleLoadDataEx(&state->module, image, 2, options, values);
  if (result != CUDA_SUCCESS) {
    // Not the macro: the JIT log follows the driver's message.
    state->module = nullptr;
    log.resize(std::strlen(log.c_str()));
    Error error =
        cudaError(driver, result,
                  std::string("cannot load the ") +
                      (isCubin ? "cubin" : "PTX") + " for target " +
                      contents.target + " on a device of compute capability " +
                      std::to_string(major) + "." + std::to_string(minor));
    if (!log.empty())
      error.message += "\n" + log;
    return error;
  }
  for (const bundle::Kernel &meta : contents.kernels) {
    CUfunction function;
    TILEC_RETURN_IF_DRIVER_ERROR(
        driver,
        driver.cuModuleGetFunction(&function, state->module, meta.name.c_str()),
        "kernel '" + meta.name + "' is in the metadata but not in the code");
    state->kernels.emplace(
        meta.name, std::unique_ptr<Kernel>(new Kernel(*this, meta, function)));
  }
  return Error();
}

std::unique_ptr<Module> Module::loadData(const void *data, size_t size,
                                         Error &error) {
  bundle::Bundle contents;
  std::string message;
  if (!bundle::parseBundle(data, size, contents, message)) {
    error = Error::make(Status::InvalidBundle, message);
    return nullptr;
  }
  return load(std::move(contents), error);
}

std::unique_ptr<Module> Module::loadImage(const void *image, size_t size,
                                          std::string_view metadataJson,
                                          Error &error) {
  bundle::Bundle contents;
  std::string message;
  if (!bundle::parseMetadataJson(metadataJson, contents, message)) {
    error = Error::make(Status::InvalidBundle, message);
    return nullptr;
  }
  if (!image || size == 0) {
    error = Error::make(Status::InvalidValue, "the code image is empty");
    return nullptr;
  }
  const auto *bytes = static_cast<const uint8_t *>(image);
  // ELF (cubin) and fatbin images are binary; anything else is PTX text.
  static const uint8_t kElfMagic[4] = {0x7f, 'E', 'L', 'F'};
  static const uint8_t kFatbinMagic[4] = {0x50, 0xed, 0x55, 0xba};
  if (size >= 4 && (std::memcmp(bytes, kElfMagic, 4) == 0 ||
                    std::memcmp(bytes, kFatbinMagic, 4) == 0))
    contents.cubin.assign(bytes, bytes + size);
  else
    contents.ptx.assign(reinterpret_cast<const char *>(bytes), size);
  return load(std::move(contents), error);
}

std::unique_ptr<Module> Module::loadImageFile(const std::string &imagePath,
                                              const std::string &metadataPath,
                                              Error &error) {
  std::vector<uint8_t> image, metadata;
  std::string message;
  if (!bundle::readFile(imagePath, image, message) ||
      !bundle::readFile(metadataPath, metadata, message)) {
    error = Error::make(Status::InvalidBundle, message);
    return nullptr;
  }
  std::unique_ptr<Module> module = loadImage(
      image.data(), image.size(),
      std::string_view(reinterpret_cast<const char *>(metadata.data()),
                       metadata.size()),
      error);
  if (error.status == Status::InvalidBundle)
    error.message = "'" + metadataPath + "': " + error.message;
  return module;
}

std::unique_ptr<Module> Module::loadFile(const std::string &path,
                                         Error &error) {
  std::vector<uint8_t> bytes;
  std::string message;
  if (!bundle::readFile(path, bytes, message)) {
    error = Error::make(Status::InvalidBundle, message);
    return nullptr;
  }
  if (bytes.empty()) {
    error = Error::make(Status::InvalidBundle,
                        "'" + path +
                            "' is empty (0 bytes), not a tilec bundle, "
                            "cubin or PTX file");
    return nullptr;
  }
  if (bundle::looksLikeBundle(bytes.data(), bytes.size())) {
    std::unique_ptr<Module> module =
        loadData(bytes.data(), bytes.size(), error);
    if (error.status == Status::InvalidBundle)
      error.message = "'" + path + "': " + error.message;
    return module;
  }
  // A raw cubin or PTX: its metadata is <stem>.json or <path>.json.
  size_t slash = path.find_last_of('/');
  size_t dot = path.find_last_of('.');
  std::vector<std::string> candidates;
  if (dot != std::string::npos && (slash == std::string::npos || dot > slash))
    candidates.push_back(path.substr(0, dot) + ".json");
  candidates.push_back(path + ".json");
  for (const std::string &candidate : candidates) {
    std::vector<uint8_t> probe;
    if (bundle::readFile(candidate, probe, message))
      return loadImageFile(path, candidate, error);
  }
  std::string tried;
  for (const std::string &candidate : candidates)
    tried += (tried.empty() ? "'" : " or '") + candidate + "'";
  error = Error::make(Status::InvalidBundle,
                      "'" + path +
                          "' is not a tilec bundle, and no metadata "
                          "was found beside it (looked for " +
                          tried + ")");
  return nullptr;
}

Kernel *Module::kernel(std::string_view name, Error &error) {
  error = Error();
  if (name.empty()) {
    if (state->kernels.size() == 1)
      return state->kernels.begin()->second.get();
    error =
        Error::make(Status::NotFound,
                    "the module has " + std::to_string(state->kernels.size()) +
                        " kernels; name one");
    return nullptr;
  }
  auto it = state->kernels.find(name);
  if (it != state->kernels.end())
    return it->second.get();
  std::string names;
  for (const auto &entry : state->kernels)
    names += (names.empty() ? "" : ", ") + entry.first;
  error =
      Error::make(Status::NotFound, "no kernel named '" + std::string(name) +
                                        "' (the module has: " + names + ")");
  return nullptr;
}

//===----------------------------------------------------------------------===//
// Kernel
//===----------------------------------------------------------------------===//

struct Kernel::State {
  CUfunction function = nullptr;
  std::mutex mutex;
  /// Set once the function attributes are in place.
  bool attributesSet = false;
  /// CTAs of a persistent grid: the SMs that can hold a cluster at once.
  uint32_t persistentCtas = 0;
  /// setPersistentLimit's bound (0: none).
  uint32_t persistentLimit = 0;
  LruCache<TensorMapRequest::Key, EncodedTensorMap, TensorMapKeyHash> maps{
      kTensorMapCacheEntries};
  /// A launch's buffers, kept with their capacity so that a launch allocates
  /// nothing (allocations were a third of the runtime's cost per launch,
  /// measured with callgrind over a stub driver). Guarded by `mutex`.
  LaunchPlan plan;
  std::vector<CUtensorMap> encoded;
  std::vector<void *> params;
};

Kernel::Kernel(Module &module, const bundle::Kernel &meta, void *function)
    : module(module), meta(meta), state(std::make_unique<State>()) {
  state->function = static_cast<CUfunction>(function);
}

Kernel::~Kernel() = default;

Error Kernel::check(const Arg *args, size_t count) const {
  LaunchPlan plan;
  return buildLaunchPlan(meta, args, count, 0, plan);
}

/// `ctas` bounded by `limit` (0: none), in whole clusters of `clusterSize`,
/// at least one.
static uint32_t limitedCtas(uint32_t ctas, uint32_t limit,
                            uint32_t clusterSize) {
  if (limit == 0 || limit >= ctas)
    return ctas;
  return std::max(clusterSize, limit / clusterSize * clusterSize);
}

void Kernel::setPersistentLimit(uint32_t ctas) {
  std::lock_guard<std::mutex> lock(state->mutex);
  state->persistentLimit = ctas;
}

Error Kernel::computeGrid(const Arg *args, size_t count,
                          uint32_t grid[3]) const {
  // The grid launch uses: once prepared, only the clusters that fit at once.
  uint32_t ctas = module.state->smCount;
  {
    std::lock_guard<std::mutex> lock(state->mutex);
    if (state->attributesSet)
      ctas = state->persistentCtas;
    ctas = limitedCtas(ctas, state->persistentLimit, meta.clusterSize());
  }
  LaunchPlan plan;
  Error error = buildLaunchPlan(meta, args, count, ctas, plan);
  for (unsigned i = 0; i < 3; ++i)
    grid[i] = plan.grid[i];
  return error;
}

/// Sets the function attributes once (dynamic shared memory, large
/// clusters) and works out how many CTAs a persistent grid gets. Called with
/// the kernel's mutex held and its context current.
Error Kernel::prepare(uint32_t smCount) {
  const DriverApi &driver = *module.state->driver;
  if (state->attributesSet)
    return Error();
  TILEC_RETURN_IF_DRIVER_ERROR(
      driver,
      driver.cuFuncSetAttribute(state->function,
                                CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                static_cast<int>(meta.dynamicSharedBytes)),
      "kernel '" + meta.name +
          "': cannot raise the dynamic shared memory limit to " +
          std::to_string(meta.dynamicSharedBytes) + " bytes");
  uint32_t clusterSize = meta.clusterSize();
  // Clusters above 8 CTAs are "non-portable" and must be opted into.
  if (clusterSize > 8)
    TILEC_RETURN_IF_DRIVER_ERROR(
        driver,
        driver.cuFuncSetAttribute(
            state->function,
            CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1),
        "kernel '" + meta.name + "': cannot allow a cluster of " +
            std::to_string(clusterSize) + " CTAs");
  state->persistentCtas = smCount;
  if (clusterSize > 1) {
    // A cluster needs its CTAs on SMs of one GPC, so fewer clusters than
    // SMs / cluster size may fit at once; a persistent grid larger than that
    // runs a second, mostly idle wave.
    CUlaunchAttribute attr = {};
    attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attr.value.clusterDim.x = meta.cluster[0];
    attr.value.clusterDim.y = meta.cluster[1];
    attr.value.clusterDim.z = meta.cluster[2];
    CUlaunchConfig config = {};
    config.gridDimX = smCount / clusterSize * meta.cluster[0];
    config.gridDimY = meta.cluster[1];
    config.gridDimZ = meta.cluster[2];
    config.blockDimX = meta.block[0];
    config.blockDimY = meta.block[1];
    config.blockDimZ = meta.block[2];
    config.sharedMemBytes = meta.dynamicSharedBytes;
    config.attrs = &attr;
    config.numAttrs = 1;
    int clusters = 0;
    CUresult result = driver.cuOccupancyMaxActiveClusters(
        &clusters, state->function, &config);
    if (result == CUDA_SUCCESS && clusters > 0)
      state->persistentCtas =
          std::min<uint32_t>(smCount, uint32_t(clusters) * clusterSize);
  }
  state->attributesSet = true;
  return Error();
}

Error Kernel::launch(const Arg *args, size_t count, void *stream) {
  const Module::State &owner = *module.state;
  const DriverApi &driver = *owner.driver;
  ScopedContext scope(driver);
  if (Error error = scope.enter(owner.context))
    return error;
  // One lock over the launch: it guards the attributes, the tensor-map
  // cache and the scratch buffers, which must live until cuLaunchKernelEx
  // has copied the parameters. Launches of one kernel from several threads
  // take turns; the driver orders them anyway.
  std::lock_guard<std::mutex> lock(state->mutex);
  if (Error error = prepare(owner.smCount))
    return error;
  uint32_t persistentCtas = limitedCtas(
      state->persistentCtas, state->persistentLimit, meta.clusterSize());
  LaunchPlan &plan = state->plan;
  if (Error error = buildLaunchPlan(meta, args, count, persistentCtas, plan))
    return error;
  if (plan.grid[0] == 0 || plan.grid[1] == 0 || plan.grid[2] == 0)
    return Error(); // nothing to do for an empty problem

  // 64-byte aligned copies (CUtensorMap is over-aligned) that the parameter
  // array points at; the driver copies them at launch.
  std::vector<CUtensorMap> &maps = state->encoded;
  maps.assign(plan.mapSlots, CUtensorMap{});
  for (const TensorMapRequest &request : plan.tensorMaps) {
    CUtensorMap &map = maps[request.slot];
    TensorMapRequest::Key key = request.key();
    if (const EncodedTensorMap *cached = state->maps.find(key)) {
      std::memcpy(&map, cached->data(), sizeof(CUtensorMap));
      continue;
    }
    cuuint64_t globalDim[bundle::kMaxTensorMapRank];
    cuuint64_t globalStrides[bundle::kMaxTensorMapRank];
    cuuint32_t box[bundle::kMaxTensorMapRank];
    cuuint32_t elementStrides[bundle::kMaxTensorMapRank];
    for (uint32_t d = 0; d < request.rank; ++d) {
      globalDim[d] = request.globalDim[d];
      globalStrides[d] = d + 1 < request.rank ? request.globalStrides[d] : 0;
      box[d] = request.box[d];
      elementStrides[d] = request.elementStrides[d];
    }
    TILEC_RETURN_IF_DRIVER_ERROR(
        driver,
        driver.cuTensorMapEncodeTiled(
            &map, tensorMapDataType(request.dtype), request.rank,
            reinterpret_cast<void *>(request.address), globalDim, globalStrides,
            box, elementStrides, CU_TENSOR_MAP_INTERLEAVE_NONE,
            tensorMapSwizzle(request.swizzle),
            tensorMapL2Promotion(request.l2Promotion),
            request.oobFill == bundle::OobFill::NaN
                ? CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA
                : CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
        describeArg(meta, request.arg) +
            ": cuTensorMapEncodeTiled failed for param " +
            std::to_string(request.param) + " (dims " +
            joinNumbers(request.globalDim, request.rank) + ", byte strides " +
            joinNumbers(request.globalStrides, request.rank - 1) +
            ", innermost first)");
    EncodedTensorMap encoded;
    std::memcpy(encoded.data(), &map, sizeof(CUtensorMap));
    state->maps.insert(key, encoded);
  }

  std::vector<void *> &params = state->params;
  params.resize(plan.params.size());
  for (size_t p = 0; p < plan.params.size(); ++p)
    params[p] = plan.params[p].isTensorMap
                    ? static_cast<void *>(&maps[plan.params[p].tensorMap])
                    : static_cast<void *>(plan.params[p].bytes);

  CUlaunchConfig config = {};
  config.gridDimX = plan.grid[0];
  config.gridDimY = plan.grid[1];
  config.gridDimZ = plan.grid[2];
  config.blockDimX = meta.block[0];
  config.blockDimY = meta.block[1];
  config.blockDimZ = meta.block[2];
  config.sharedMemBytes = meta.dynamicSharedBytes;
  config.hStream = static_cast<CUstream>(stream);
  CUlaunchAttribute cluster = {};
  if (meta.clusterSize() > 1) {
    cluster.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    cluster.value.clusterDim.x = meta.cluster[0];
    cluster.value.clusterDim.y = meta.cluster[1];
    cluster.value.clusterDim.z = meta.cluster[2];
    config.attrs = &cluster;
    config.numAttrs = 1;
  }
  TILEC_RETURN_IF_DRIVER_ERROR(
      driver,
      driver.cuLaunchKernelEx(&config, state->function, params.data(), nullptr),
      "cuLaunchKernelEx failed for kernel '" + meta.name + "' (grid " +
          std::to_string(plan.grid[0]) + "x" + std::to_string(plan.grid[1]) +
          "x" + std::to_string(plan.grid[2]) + ", block " +
          std::to_string(meta.block[0]) + "x" + std::to_string(meta.block[1]) +
          "x" + std::to_string(meta.block[2]) + ", " +
          std::to_string(meta.dynamicSharedBytes) +
          " bytes of dynamic shared memory)");
  return Error();
}

//===----------------------------------------------------------------------===//
// Free functions
//===----------------------------------------------------------------------===//

Error driverStatus() {
  const DriverApi *driver;
  return loadDriver(driver);
}

namespace {
/// Runs \p body with the default context current; it returns the CUresult
/// of the driver call that \p what names.
template <typename Body> Error withDefaultContext(const char *what, Body body) {
  const DriverApi *driver;
  if (Error error = loadDriver(driver))
    return error;
  CUcontext context;
  if (Error error = defaultContext(*driver, context))
    return error;
  ScopedContext scope(*driver);
  if (Error error = scope.enter(context))
    return error;
  TILEC_RETURN_IF_DRIVER_ERROR(*driver, body(*driver),
                               std::string(what) + " failed");
  return Error();
}
} // namespace

Error deviceAlloc(size_t bytes, uint64_t &devicePtr) {
  return withDefaultContext("cuMemAlloc", [&](const DriverApi &driver) {
    CUdeviceptr pointer = 0;
    CUresult result = driver.cuMemAlloc(&pointer, bytes);
    devicePtr = pointer;
    return result;
  });
}

Error deviceFree(uint64_t devicePtr) {
  return withDefaultContext("cuMemFree", [&](const DriverApi &driver) {
    return driver.cuMemFree(static_cast<CUdeviceptr>(devicePtr));
  });
}

Error copyToDevice(uint64_t devicePtr, const void *host, size_t bytes) {
  return withDefaultContext("cuMemcpyHtoD", [&](const DriverApi &driver) {
    return driver.cuMemcpyHtoD(static_cast<CUdeviceptr>(devicePtr), host,
                               bytes);
  });
}

Error copyToHost(void *host, uint64_t devicePtr, size_t bytes) {
  return withDefaultContext("cuMemcpyDtoH", [&](const DriverApi &driver) {
    return driver.cuMemcpyDtoH(host, static_cast<CUdeviceptr>(devicePtr),
                               bytes);
  });
}

Error synchronize(void *stream) {
  return withDefaultContext("synchronize", [&](const DriverApi &driver) {
    return stream ? driver.cuStreamSynchronize(static_cast<CUstream>(stream))
                  : driver.cuCtxSynchronize();
  });
}

} // namespace tilec::rt

//===- Module.cpp - tilec._C: the runtime for Python (nanobind) -----------===//
//
// Bundle (parsed metadata, no driver), Module (loaded code), Kernel (launch
// or CPU-only check), Dispatcher (the per-call fast path), the torch bridge
// and tilec._C.TilecError. See docs/python.md.
//
//===----------------------------------------------------------------------===//

#include "Dispatcher.h"
#include "Extension.h"
#include "TorchDirect.h"
#include "TorchTensor.h"

#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <memory>
#include <optional>
#include <string>

namespace nb = nanobind;
using namespace nb::literals;

namespace tilec::python {

namespace {

PyObject *errorType = nullptr;

const char *statusName(rt::Status status) {
  switch (status) {
  case rt::Status::Success:
    return "SUCCESS";
  case rt::Status::DriverNotAvailable:
    return "DRIVER_NOT_AVAILABLE";
  case rt::Status::InvalidValue:
    return "INVALID_VALUE";
  case rt::Status::InvalidBundle:
    return "INVALID_BUNDLE";
  case rt::Status::NotFound:
    return "NOT_FOUND";
  case rt::Status::InvalidArgument:
    return "INVALID_ARGUMENT";
  case rt::Status::CudaError:
    return "CUDA";
  }
  return "UNKNOWN";
}

/// A parsed bundle: metadata (and code) without the driver.
struct PyBundle {
  bundle::Bundle contents;
};

/// A bundle loaded into a CUDA context.
struct PyModule {
  std::unique_ptr<rt::Module> module;
};

std::vector<std::string> kernelNames(const bundle::Bundle &contents) {
  std::vector<std::string> names;
  for (const bundle::Kernel &kernel : contents.kernels)
    names.push_back(kernel.name);
  return names;
}

/// The only kernel (empty \p name) or the one named.
const bundle::Kernel *findMeta(const bundle::Bundle &contents,
                               const std::string &name) {
  if (name.empty())
    return contents.kernels.size() == 1 ? &contents.kernels[0] : nullptr;
  return contents.findKernel(name);
}

[[noreturn]] void raiseNotFound(const bundle::Bundle &contents,
                                const std::string &name) {
  std::string names;
  for (const std::string &known : kernelNames(contents))
    names += (names.empty() ? "" : ", ") + known;
  raiseError(rt::Error::make(
      rt::Status::NotFound,
      name.empty()
          ? "the bundle has " + std::to_string(contents.kernels.size()) +
                " kernels (" + names + "); name one"
          : "no kernel named '" + name + "' (the bundle has: " + names + ")"));
}

/// A torch tensor as an argument; \p where names it in messages.
rt::Arg toTensorArg(const std::string &where, nb::handle value,
                    int32_t &device) {
  TensorInfo info;
  if (!TorchBridge::get().read(value.ptr(), info))
    throw nb::value_error(
        (where + ": expected a torch tensor of a dtype tilec knows (at most " +
         std::to_string(bundle::kMaxRank) + " dims) or a number, got " +
         nb::type_name(value.type()).c_str())
            .c_str());
  if (device == -2)
    device = info.device;
  else if (info.device != device)
    throw nb::value_error(
        (where + ": is on device " + std::to_string(info.device) +
         ", an earlier tensor on device " + std::to_string(device))
            .c_str());
  return info.toArg();
}

/// A Python list or tuple of torch tensors as a tensor-list argument; its
/// tensors go to the end of \p listTensors (reserved by the caller for them,
/// so that the list can point there).
rt::Arg toListArg(const bundle::Argument &decl, const std::string &where,
                  nb::handle value, int32_t &device,
                  std::vector<rt::Arg> &listTensors) {
  if (!PyList_Check(value.ptr()) && !PyTuple_Check(value.ptr()))
    throw nb::value_error((where + ": expected a list of up to " +
                           std::to_string(decl.capacity) + " tensors, got " +
                           nb::type_name(value.type()).c_str())
                              .c_str());
  nb::sequence tensors = nb::borrow<nb::sequence>(value);
  size_t count = nb::len(tensors);
  size_t first = listTensors.size();
  for (size_t e = 0; e < count; ++e)
    listTensors.push_back(toTensorArg(where + ", tensor " + std::to_string(e),
                                      tensors[e], device));
  return rt::Arg::tensorList(listTensors.data() + first, uint32_t(count));
}

/// How many tensors the tensor-list arguments among \p values hold.
size_t listedTensors(const bundle::Kernel &meta, nb::sequence values) {
  size_t listed = 0;
  for (size_t i = 0; i < meta.args.size() && i < nb::len(values); ++i)
    if (meta.args[i].isTensorList() &&
        (PyList_Check(values[i].ptr()) || PyTuple_Check(values[i].ptr())))
      listed += nb::len(nb::handle(values[i]));
  return listed;
}

/// One Python value as argument \p index of \p meta: a torch tensor, a
/// number for a scalar (converted to the scalar's declared dtype), or a
/// list of tensors for a tensor list (its tensors appended to
/// \p listTensors).
rt::Arg toArg(const bundle::Kernel &meta, size_t index, nb::handle value,
              int32_t &device, std::vector<rt::Arg> &listTensors) {
  const bundle::Argument &decl = meta.args[index];
  std::string where =
      "argument '" + decl.name + "' (index " + std::to_string(index) + ")";
  if (decl.isTensorList())
    return toListArg(decl, where, value, device, listTensors);
  if (PyBool_Check(value.ptr()) || PyLong_Check(value.ptr()) ||
      PyFloat_Check(value.ptr())) {
    if (decl.isTensor())
      throw nb::value_error(
          (where + ": expected a tensor, got a number").c_str());
    if (bundle::isFloat(decl.dtype))
      return rt::Arg::floating(decl.dtype, nb::cast<double>(value));
    long long integer = PyLong_AsLongLong(value.ptr());
    if (integer == -1 && PyErr_Occurred()) {
      PyErr_Clear();
      throw nb::value_error(
          (where + ": expected an integer that fits in 64 bits").c_str());
    }
    return rt::Arg::integer(decl.dtype, integer);
  }
  return toTensorArg(where, value, device);
}

/// Converts \p values for \p kernel and launches (or checks) it.
void launchValues(const KernelRef &kernel, nb::sequence values,
                  nb::object stream) {
  size_t count = nb::len(values);
  if (count > kMaxLaunchArgs || count != kernel.meta->args.size()) {
    std::string names;
    for (const bundle::Argument &arg : kernel.meta->args)
      names += (names.empty() ? "" : ", ") + arg.name;
    throw nb::value_error(("kernel '" + kernel.meta->name + "' takes " +
                           std::to_string(kernel.meta->args.size()) +
                           " arguments (" + names + "), got " +
                           std::to_string(count))
                              .c_str());
  }
  rt::Arg args[kMaxLaunchArgs];
  std::vector<rt::Arg> listTensors;
  listTensors.reserve(listedTensors(*kernel.meta, values));
  int32_t device = -2; // not seen yet
  for (size_t i = 0; i < count; ++i)
    args[i] = toArg(*kernel.meta, i, values[i], device, listTensors);
  if (stream.is_none()) {
    launchOrCheck(kernel, args, count, device < -1 ? -1 : device);
    return;
  }
  launchOn(kernel, args, count,
           reinterpret_cast<void *>(
               static_cast<uintptr_t>(nb::cast<uint64_t>(stream))));
}

/// A plan argument (input, "view", dtype, sizes, strides, byte offset): the
/// input seen as that view, its address moved by the offset.
Dispatcher::PlanArg toViewArg(size_t position, nb::tuple entry) {
  auto fail = [&](const std::string &what) {
    return nb::value_error(
        ("plan argument " + std::to_string(position) + ": " + what).c_str());
  };
  if (!nb::isinstance<nb::str>(entry[1]) ||
      nb::cast<std::string>(entry[1]) != "view")
    throw fail("a 6-tuple is (input, 'view', dtype, sizes, strides, byte "
               "offset)");
  std::string name = nb::cast<std::string>(entry[2]);
  std::optional<bundle::DType> dtype = bundle::parseDType(name);
  if (!dtype)
    throw fail("unknown tilec dtype '" + name + "'");
  auto shape = nb::cast<std::vector<int64_t>>(entry[3]);
  auto strides = nb::cast<std::vector<int64_t>>(entry[4]);
  int64_t offset = nb::cast<int64_t>(entry[5]);
  if (shape.size() != strides.size() || shape.empty() ||
      shape.size() > bundle::kMaxRank)
    throw fail("a view has 1 to " + std::to_string(bundle::kMaxRank) +
               " dims, as many strides as sizes");
  if (offset < 0)
    throw fail("a view's byte offset must not be negative, got " +
               std::to_string(offset));
  Dispatcher::PlanArg arg;
  arg.input = nb::cast<int>(entry[0]);
  arg.view = true;
  arg.fixed = rt::Arg::tensor(uint64_t(offset), *dtype, uint32_t(shape.size()),
                              shape.data(), strides.data());
  return arg;
}

std::vector<Dispatcher::PlanArg> toPlanArgs(const bundle::Kernel &meta,
                                            nb::list argMap) {
  std::vector<Dispatcher::PlanArg> args;
  for (size_t i = 0; i < nb::len(argMap); ++i) {
    nb::handle entry = argMap[i];
    Dispatcher::PlanArg arg;
    if (nb::isinstance<nb::str>(entry)) {
      if (nb::cast<std::string>(entry) != "workspace")
        throw nb::value_error(("plan argument " + std::to_string(i) +
                               ": the only named source is 'workspace'")
                                  .c_str());
      arg.input = Dispatcher::kWorkspace;
    } else if (nb::isinstance<nb::tuple>(entry) && nb::len(entry) == 6) {
      arg = toViewArg(i, nb::cast<nb::tuple>(entry));
    } else if (nb::isinstance<nb::tuple>(entry) && nb::len(entry) == 3) {
      auto triple = nb::cast<std::tuple<int, bool, unsigned>>(entry);
      arg.input = std::get<0>(triple);
      arg.transpose = std::get<1>(triple);
      arg.leadingOnes = std::get<2>(triple);
    } else if (nb::isinstance<nb::tuple>(entry)) {
      auto pair = nb::cast<std::pair<int, bool>>(entry);
      arg.input = pair.first;
      arg.transpose = pair.second;
    } else {
      if (i >= meta.args.size() || meta.args[i].isTensorLike())
        throw nb::value_error(("plan argument " + std::to_string(i) +
                               " is a constant but kernel '" + meta.name +
                               "' takes a tensor there")
                                  .c_str());
      int32_t unusedDevice = -2;
      std::vector<rt::Arg> noLists;
      arg.fixed = toArg(meta, i, entry, unusedDevice, noLists);
    }
    args.push_back(arg);
  }
  if (args.size() > kMaxLaunchArgs)
    throw nb::value_error("too many kernel arguments");
  return args;
}

nb::list argInfo(const bundle::Kernel &meta) {
  nb::list out;
  for (const bundle::Argument &arg : meta.args)
    out.append(nb::make_tuple(arg.name,
                              arg.isTensorList() ? "tensor_list"
                              : arg.isTensor()   ? "tensor"
                                                 : "scalar",
                              std::string(bundle::toString(arg.dtype)),
                              nb::tuple(nb::cast(arg.shape))));
  return out;
}

} // namespace

PyObject *tilecErrorType() { return errorType; }

void createTilecErrorType(nb::module_ &module) {
  errorType = PyErr_NewExceptionWithDoc(
      "tilec._C.TilecError",
      "A failed runtime call; `status` names the tilec_status "
      "(DRIVER_NOT_AVAILABLE, INVALID_BUNDLE, NOT_FOUND, CUDA, ...).",
      PyExc_RuntimeError, nullptr);
  module.attr("TilecError") = nb::handle(errorType);
}

void raiseError(const rt::Error &error) {
  if (error.status == rt::Status::InvalidArgument)
    throw nb::value_error(error.message.c_str());
  nb::object exception = nb::handle(errorType)(nb::str(error.message.c_str()));
  exception.attr("status") = nb::str(statusName(error.status));
  PyErr_SetObject(errorType, exception.ptr());
  throw nb::python_error();
}

void *currentStreamFor(const KernelRef &kernel, int32_t device) {
  void *stream = nullptr;
  if (!kernel.dry() && !TorchBridge::get().currentStream(device, stream))
    throw nb::python_error();
  return stream;
}

void launchOn(const KernelRef &kernel, const rt::Arg *args, size_t count,
              void *stream) {
  rt::Error error = kernel.dry() ? rt::checkArgs(*kernel.meta, args, count)
                                 : kernel.kernel->launch(args, count, stream);
  if (error)
    raiseError(error);
}

/// Dispatcher.launch and launch_recorded: the call's positional tensors.
static bool launchPlan(Dispatcher &dispatcher, nb::args tensors,
                       bool evenIfRetired) {
  PyObject *tuple = tensors.ptr();
  return dispatcher.launch(&PyTuple_GET_ITEM(tuple, 0),
                           size_t(PyTuple_GET_SIZE(tuple)), evenIfRetired);
}

void launchOrCheck(const KernelRef &kernel, const rt::Arg *args, size_t count,
                   int32_t device) {
  launchOn(kernel, args, count, currentStreamFor(kernel, device));
}

} // namespace tilec::python

using namespace tilec;
using namespace tilec::python;

NB_MODULE(_C, m) {
  m.doc() = "tilec's runtime for Python: bundles, kernels, the launch fast "
            "path (docs/python.md)";
  createTilecErrorType(m);

  m.def(
      "configure_torch",
      [](nb::list tensorTypes, nb::dict dtypes, nb::handle currentStream,
         nb::handle directApi) {
        std::vector<PyObject *> types;
        for (nb::handle type : tensorTypes)
          types.push_back(type.ptr());
        std::vector<std::pair<PyObject *, bundle::DType>> table;
        for (auto [torchDtype, name] : dtypes) {
          auto parsed = bundle::parseDType(nb::cast<std::string>(name));
          if (!parsed)
            throw nb::value_error(
                ("unknown tilec dtype '" + nb::cast<std::string>(name) + "'")
                    .c_str());
          table.emplace_back(torchDtype.ptr(), *parsed);
        }
        const direct::Api *api = nullptr;
        if (!directApi.is_none()) {
          api = static_cast<const direct::Api *>(
              PyCapsule_GetPointer(directApi.ptr(), direct::kCapsuleName));
          if (!api)
            throw nb::python_error();
          if (api->version != direct::kApiVersion)
            throw nb::value_error(("tilec._torch_direct speaks version " +
                                   std::to_string(api->version) +
                                   " of the reader's interface, "
                                   "tilec._C version " +
                                   std::to_string(direct::kApiVersion) +
                                   ": rebuild the package")
                                      .c_str());
        }
        TorchBridge::get().configure(std::move(types), std::move(table),
                                     currentStream.ptr(), api);
      },
      "tensor_types"_a, "dtypes"_a, "current_stream"_a,
      "direct_api"_a = nb::none(),
      "Hands over [torch.Tensor, torch.nn.Parameter], {torch dtype: tilec "
      "dtype name} and callable(device) -> raw CUDA stream (once); "
      "direct_api: tilec._torch_direct.api, to read tensors through torch's "
      "headers (only for the torch it was built for), or None.");
  m.def(
      "reads_tensors_directly",
      []() { return TorchBridge::get().readsDirectly(); },
      "Whether the launch path reads tensors through torch's headers.");

  m.def(
      "tensor_info",
      [](nb::handle tensor) -> nb::object {
        TensorInfo info;
        if (!TorchBridge::get().read(tensor.ptr(), info))
          return nb::none();
        std::vector<int64_t> shape(info.shape, info.shape + info.rank);
        std::vector<int64_t> strides(info.strides, info.strides + info.rank);
        return nb::make_tuple(info.data, std::string(toString(info.dtype)),
                              info.device, nb::tuple(nb::cast(shape)),
                              nb::tuple(nb::cast(strides)));
      },
      "tensor"_a,
      "(data_ptr, tilec dtype, device, shape, strides) as the launch path "
      "reads them, or None.");

  m.def("driver_status", []() {
    if (rt::Error error = rt::driverStatus())
      raiseError(error);
  });

  nb::class_<KernelRef>(m, "Kernel")
      .def_prop_ro("name", [](const KernelRef &k) { return k.meta->name; })
      .def_prop_ro("dry", &KernelRef::dry,
                   "True for a kernel of a parsed Bundle: launches only check")
      .def_prop_ro(
          "args", [](const KernelRef &k) { return argInfo(*k.meta); },
          "[(name, 'tensor'|'scalar', dtype, shape)], -1 = dynamic")
      .def_prop_ro("block",
                   [](const KernelRef &k) {
                     return std::vector<uint32_t>(k.meta->block.begin(),
                                                  k.meta->block.end());
                   })
      .def_prop_ro("cluster",
                   [](const KernelRef &k) {
                     return std::vector<uint32_t>(k.meta->cluster.begin(),
                                                  k.meta->cluster.end());
                   })
      .def_prop_ro(
          "shared_bytes",
          [](const KernelRef &k) { return k.meta->dynamicSharedBytes; })
      .def(
          "set_persistent_limit",
          [](KernelRef &k, uint32_t ctas) {
            if (k.kernel)
              k.kernel->setPersistentLimit(ctas);
          },
          "ctas"_a,
          "At most `ctas` CTAs for a persistent grid (0: every SM), in whole "
          "clusters: deep_gemm.set_num_sms.")
      .def("launch", &launchValues, "args"_a, "stream"_a = nb::none(),
           "Launches on `stream` (a raw CUstream int; None: torch's current "
           "stream of the tensors' device). Dry kernels only check.")
      .def(
          "check",
          [](const KernelRef &k, nb::sequence values) {
            KernelRef dry = k;
            dry.kernel = nullptr;
            launchValues(dry, values, nb::none());
          },
          "args"_a, "Runs the runtime's CPU checks without launching.");

  nb::class_<PyBundle>(m, "Bundle")
      .def(
          "__init__",
          [](PyBundle *self, nb::bytes data) {
            new (self) PyBundle();
            std::string message;
            if (!bundle::parseBundle(data.c_str(), data.size(), self->contents,
                                     message))
              raiseError(rt::Error::make(rt::Status::InvalidBundle, message));
          },
          "data"_a)
      .def_prop_ro("target",
                   [](const PyBundle &b) { return b.contents.target; })
      .def_prop_ro("producer",
                   [](const PyBundle &b) { return b.contents.producer; })
      .def_prop_ro("kernel_names",
                   [](const PyBundle &b) { return kernelNames(b.contents); })
      .def(
          "kernel",
          [](nb::object self, const std::string &name) {
            const bundle::Bundle &contents =
                nb::cast<PyBundle &>(self).contents;
            const bundle::Kernel *meta = findMeta(contents, name);
            if (!meta)
              raiseNotFound(contents, name);
            return KernelRef{nullptr, meta, self};
          },
          "name"_a = "", "A dry kernel (checks only); '' picks the only one.");

  nb::class_<PyModule>(m, "Module")
      .def(
          "__init__",
          [](PyModule *self, nb::bytes data) {
            new (self) PyModule();
            rt::Error error;
            {
              nb::gil_scoped_release release;
              self->module =
                  rt::Module::loadData(data.c_str(), data.size(), error);
            }
            if (error)
              raiseError(error);
          },
          "data"_a,
          "Loads bundle bytes into the current CUDA context (else device "
          "0's primary context).")
      .def_prop_ro("target",
                   [](const PyModule &m) { return m.module->bundle().target; })
      .def_prop_ro(
          "kernel_names",
          [](const PyModule &m) { return kernelNames(m.module->bundle()); })
      .def(
          "kernel",
          [](nb::object self, const std::string &name) {
            rt::Module &module = *nb::cast<PyModule &>(self).module;
            rt::Error error;
            rt::Kernel *kernel = module.kernel(name, error);
            if (!kernel)
              raiseError(error);
            return KernelRef{kernel, &kernel->metadata(), self};
          },
          "name"_a = "");

  nb::class_<RetireFlag>(m, "RetireFlag",
                         "Set once when a provisional plan's better kernel "
                         "is ready; the plans recorded with it then miss.")
      .def(nb::init<>())
      .def("set", &RetireFlag::set)
      .def_prop_ro("is_set", &RetireFlag::isSet);

  nb::class_<Dispatcher>(m, "Dispatcher")
      .def(nb::init<size_t, size_t>(), "inputs"_a, "keyed"_a = 0,
           "A dispatcher of calls of `inputs` tensors whose first `keyed` "
           "(0: all) make the signature that finds a plan.")
      .def(
          "launch",
          [](Dispatcher &d, nb::args tensors) {
            return launchPlan(d, tensors, /*evenIfRetired=*/false);
          },
          "Launches the plan of these tensors' signature: False when there "
          "is none (the caller takes the slow path).")
      .def(
          "launch_recorded",
          [](Dispatcher &d, nb::args tensors) {
            return launchPlan(d, tensors, /*evenIfRetired=*/true);
          },
          "The slow path's launch of the plan it just recorded: as launch, "
          "but a plan whose retire flag was set meanwhile (its better "
          "kernel became ready) still runs this once.")
      .def(
          "add",
          [](Dispatcher &d, nb::tuple tensors, const KernelRef &kernel,
             nb::list argMap, nb::list then, nb::object workspace,
             const RetireFlag *retire) {
            std::vector<Dispatcher::Step> steps;
            steps.push_back({kernel, toPlanArgs(*kernel.meta, argMap)});
            for (nb::handle next : then) {
              auto [nextKernel, nextMap] =
                  nb::cast<std::pair<KernelRef, nb::list>>(next);
              steps.push_back(
                  {nextKernel, toPlanArgs(*nextKernel.meta, nextMap)});
            }
            d.add(&PyTuple_GET_ITEM(tensors.ptr(), 0),
                  size_t(PyTuple_GET_SIZE(tensors.ptr())), std::move(steps),
                  workspace.is_none() ? nullptr : workspace.ptr(), retire);
          },
          "tensors"_a, "kernel"_a, "arg_map"_a, "then"_a = nb::list(),
          "workspace"_a = nb::none(), "retire"_a = nb::none(),
          "Records `kernel` for the signature of `tensors`; arg_map has one "
          "entry per kernel argument: (input index, transposed), (input "
          "index, transposed, leading dims of 1 to add), (input index, "
          "'view', tilec dtype, sizes, strides, byte offset) for a view of "
          "the input that its signature fixes, a constant "
          "number, or 'workspace'. `then`: (kernel, arg_map) pairs launched "
          "after it, in order. `workspace`: the tensor 'workspace' names, "
          "for calls on torch's current stream (a plan keeps one per "
          "stream; a stream without one takes the slow path). `retire`: "
          "a RetireFlag; once it is set the plan's calls miss.")
      .def(
          "first_args",
          [](Dispatcher &d, nb::args tensors) -> nb::object {
            std::vector<rt::Arg> args;
            if (!d.firstArgs(&PyTuple_GET_ITEM(tensors.ptr(), 0),
                             size_t(PyTuple_GET_SIZE(tensors.ptr())), args))
              return nb::none();
            nb::list out;
            for (const rt::Arg &arg : args) {
              if (arg.kind != rt::Arg::Kind::Tensor) {
                out.append(nb::none());
                continue;
              }
              std::vector<int64_t> shape(arg.shape, arg.shape + arg.rank);
              std::vector<int64_t> strides(arg.strides, arg.strides + arg.rank);
              out.append(nb::make_tuple(
                  arg.data, std::string(toString(arg.dtype)),
                  nb::tuple(nb::cast(shape)), nb::tuple(nb::cast(strides))));
            }
            return out;
          },
          "The first kernel's arguments for a call of these tensors, as "
          "(address, tilec dtype, shape, strides) per tensor argument (None "
          "for a scalar), or None when no plan has their signature.")
      .def("clear", &Dispatcher::clear)
      .def("__len__", &Dispatcher::size)
      .def_prop_ro("inputs", &Dispatcher::inputs);
}

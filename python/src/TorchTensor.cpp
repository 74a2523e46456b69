//===- TorchTensor.cpp - torch tensors read through the Python C API ------===//
//
// Five attribute reads per tensor (dtype, shape, stride(), data_ptr(),
// get_device()) with interned names and vectorcall: the cheapest way to see
// a tensor without torch's headers.
//
//===----------------------------------------------------------------------===//

#include "TorchTensor.h"

#include "TorchDirect.h"

#include <algorithm>

namespace tilec::python {

namespace {

/// Interned attribute names, made once under the GIL.
struct Names {
  PyObject *dtype = PyUnicode_InternFromString("dtype");
  PyObject *shape = PyUnicode_InternFromString("shape");
  PyObject *stride = PyUnicode_InternFromString("stride");
  PyObject *dataPtr = PyUnicode_InternFromString("data_ptr");
  PyObject *getDevice = PyUnicode_InternFromString("get_device");
};

const Names &names() {
  static const Names *interned = new Names();
  return *interned;
}

/// Reads a tuple of ints (torch.Size or a stride tuple) into \p out.
bool readInts(PyObject *tuple, int64_t *out, uint32_t expected) {
  if (!tuple || !PyTuple_Check(tuple) ||
      PyTuple_GET_SIZE(tuple) != static_cast<Py_ssize_t>(expected))
    return false;
  for (uint32_t i = 0; i < expected; ++i) {
    long long value = PyLong_AsLongLong(PyTuple_GET_ITEM(tuple, i));
    if (value == -1 && PyErr_Occurred())
      return false;
    out[i] = value;
  }
  return true;
}

/// Owns a new reference for a scope.
struct Ref {
  PyObject *object;
  explicit Ref(PyObject *object) : object(object) {}
  ~Ref() { Py_XDECREF(object); }
  Ref(const Ref &) = delete;
  Ref &operator=(const Ref &) = delete;
};

} // namespace

void TensorInfo::transposeLastTwo() {
  if (rank < 2)
    return;
  std::swap(shape[rank - 1], shape[rank - 2]);
  std::swap(strides[rank - 1], strides[rank - 2]);
}

rt::Arg TensorInfo::toArg() const {
  return rt::Arg::tensor(data, dtype, rank, shape, strides);
}

TorchBridge &TorchBridge::get() {
  static TorchBridge *bridge = new TorchBridge();
  return *bridge;
}

void TorchBridge::configure(
    std::vector<PyObject *> newTensorTypes,
    std::vector<std::pair<PyObject *, bundle::DType>> newDtypes,
    PyObject *currentStream, const direct::Api *directApi) {
  // Kept for the life of the process, like the torch module they belong to.
  for (PyObject *type : newTensorTypes)
    Py_XINCREF(type);
  Py_XINCREF(currentStream);
  for (auto &entry : newDtypes)
    Py_XINCREF(entry.first);
  tensorTypes = std::move(newTensorTypes);
  dtypes = std::move(newDtypes);
  streamFunction = currentStream;
  scalarTypes.fill(0);
  direct = directApi;
  if (!direct)
    return;
  for (const auto &entry : dtypes) {
    int scalarType = direct->scalarTypeOf(entry.first);
    if (scalarType >= 0 && scalarType < int(scalarTypes.size()))
      scalarTypes[scalarType] = static_cast<uint8_t>(entry.second) + 1;
  }
}

bool TorchBridge::dtypeOf(PyObject *torchDtype, bundle::DType &dtype) const {
  for (const auto &entry : dtypes)
    if (entry.first == torchDtype) {
      dtype = entry.second;
      return true;
    }
  return false;
}

bool TorchBridge::read(PyObject *object, TensorInfo &info) const {
  PyObject *type = reinterpret_cast<PyObject *>(Py_TYPE(object));
  if (std::find(tensorTypes.begin(), tensorTypes.end(), type) ==
      tensorTypes.end())
    return false;
  if (direct && direct->read(object, scalarTypes, info))
    return true;
  const Names &name = names();
  bool ok = false;
  {
    Ref dtype(PyObject_GetAttr(object, name.dtype));
    ok = dtype.object && dtypeOf(dtype.object, info.dtype);
  }
  if (ok) {
    Ref shape(PyObject_GetAttr(object, name.shape));
    ok = shape.object && PyTuple_Check(shape.object) &&
         PyTuple_GET_SIZE(shape.object) <= Py_ssize_t(bundle::kMaxRank);
    if (ok) {
      info.rank = static_cast<uint32_t>(PyTuple_GET_SIZE(shape.object));
      ok = readInts(shape.object, info.shape, info.rank);
    }
  }
  if (ok) {
    Ref strides(PyObject_CallMethodNoArgs(object, name.stride));
    ok = readInts(strides.object, info.strides, info.rank);
  }
  if (ok) {
    Ref pointer(PyObject_CallMethodNoArgs(object, name.dataPtr));
    ok = pointer.object && PyLong_Check(pointer.object);
    if (ok)
      info.data = PyLong_AsUnsignedLongLongMask(pointer.object);
  }
  if (ok) {
    Ref device(PyObject_CallMethodNoArgs(object, name.getDevice));
    ok = device.object && PyLong_Check(device.object);
    if (ok)
      info.device = static_cast<int32_t>(PyLong_AsLong(device.object));
  }
  if (!ok)
    PyErr_Clear(); // the caller falls back to the checks in Python
  return ok;
}

bool TorchBridge::currentStream(int32_t device, void *&stream) const {
  stream = nullptr;
  if (device < 0 || !streamFunction)
    return true; // CPU tensors (dry runs) have no stream
  Ref index(PyLong_FromLong(device));
  if (!index.object)
    return false;
  PyObject *args[] = {index.object};
  Ref result(PyObject_Vectorcall(streamFunction, args, 1, nullptr));
  if (!result.object)
    return false;
  stream = reinterpret_cast<void *>(
      static_cast<uintptr_t>(PyLong_AsUnsignedLongLongMask(result.object)));
  return !PyErr_Occurred();
}

} // namespace tilec::python

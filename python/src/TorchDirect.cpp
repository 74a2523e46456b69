//===- TorchDirect.cpp - tilec._torch_direct: tensors via torch's headers -===//
//
// The launch path's fast tensor reader: a torch tensor's address, dtype,
// device, sizes and strides straight from its TensorImpl (tens of ns per
// tensor) where the five Python attribute reads of TorchTensor.cpp take
// about 800 ns (measured on the H200 machine: 2.4 us for a GEMM's three
// tensors, beside a bare cuLaunchKernelEx of 3.8 us).
//
// A module of its own, built only where torch's headers are found and linked
// to torch's libraries, so that tilec._C never depends on torch: Python
// imports it after torch and hands its Api (TorchDirect.h) to _C only when
// the torch running is the one it was built for (tilec/_runtime.py), since
// another torch's C++ layout may differ. Plain CPython, not nanobind:
// torch's headers bring pybind11.
//
//===----------------------------------------------------------------------===//

#include "TorchDirect.h"

#include <torch/csrc/Dtype.h>
#include <torch/csrc/autograd/python_variable.h>

namespace {

using namespace tilec;
using namespace tilec::python;

int scalarTypeOf(PyObject *torchDtype) {
  if (!torchDtype || !THPDtype_Check(torchDtype))
    return -1;
  return static_cast<int>(
      reinterpret_cast<THPDtype *>(torchDtype)->scalar_type);
}

bool read(PyObject *object, const direct::DTypeTable &dtypes,
          TensorInfo &info) {
  try {
    const at::Tensor &tensor = THPVariable_Unpack(object);
    if (!tensor.defined() || tensor.layout() != c10::kStrided)
      return false;
    const c10::Device device = tensor.device();
    // CPU tensors too, so that the tests without a GPU cover this reader;
    // meta and other devices take the attribute reader.
    if (device.is_cuda())
      info.device = device.index();
    else if (device.is_cpu())
      info.device = -1;
    else
      return false;
    int scalarType = static_cast<int>(tensor.scalar_type());
    if (scalarType < 0 || scalarType >= int(dtypes.size()) ||
        dtypes[scalarType] == 0)
      return false;
    info.dtype = static_cast<bundle::DType>(dtypes[scalarType] - 1);
    int64_t rank = tensor.dim();
    if (rank > int64_t(bundle::kMaxRank))
      return false;
    info.rank = static_cast<uint32_t>(rank);
    c10::IntArrayRef sizes = tensor.sizes();
    c10::IntArrayRef strides = tensor.strides();
    for (int64_t d = 0; d < rank; ++d) {
      info.shape[d] = sizes[d];
      info.strides[d] = strides[d];
    }
    info.data = reinterpret_cast<uintptr_t>(tensor.const_data_ptr());
    return true;
  } catch (...) { // e.g. a tensor without storage: the attribute reader decides
    return false;
  }
}

const direct::Api kApi = {direct::kApiVersion, TILEC_TORCH_DIRECT, scalarTypeOf,
                          read};

PyModuleDef moduleDef = {
    PyModuleDef_HEAD_INIT, "_torch_direct",
    "tilec's direct torch tensor reader (built for one torch version)", -1,
    nullptr};

} // namespace

PyMODINIT_FUNC PyInit__torch_direct() {
  PyObject *module = PyModule_Create(&moduleDef);
  if (!module)
    return nullptr;
  PyObject *capsule = PyCapsule_New(const_cast<direct::Api *>(&kApi),
                                    direct::kCapsuleName, nullptr);
  if (!capsule) {
    Py_DECREF(module);
    return nullptr;
  }
  if (PyModule_AddObject(module, "api", capsule) < 0) { // steals on success
    Py_DECREF(capsule);
    Py_DECREF(module);
    return nullptr;
  }
  if (PyModule_AddStringConstant(module, "torch_version", TILEC_TORCH_DIRECT) <
      0) {
    Py_DECREF(module);
    return nullptr;
  }
  return module;
}

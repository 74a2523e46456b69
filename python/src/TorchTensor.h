//===- TorchTensor.h - torch tensors read through the Python C API -*- C++
//-*-=//
//
// The extension reads a torch tensor's address, dtype, device, sizes and
// strides with a handful of Python C API calls, without linking torch (so
// the wheel does not depend on one torch version's C++ ABI); when the
// extension was built with the headers of the torch that runs it, the
// direct reader of TorchDirect.cpp comes first (TorchBridge::configure's
// `direct`). Python hands
// over torch's tensor type, its dtype objects and the function that returns
// the current CUDA stream once, at import (tilec/_runtime.py).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_PYTHON_TORCHTENSOR_H
#define TILEC_PYTHON_TORCHTENSOR_H

#include "tilec/Runtime.h"

#include <Python.h>

#include <array>
#include <cstdint>
#include <utility>
#include <vector>

namespace tilec::python {

namespace direct {
struct Api;
} // namespace direct

/// What a launch needs of one tensor.
struct TensorInfo {
  uint64_t data = 0;
  bundle::DType dtype = bundle::DType::F32;
  /// CUDA device index; -1 for CPU and meta tensors.
  int32_t device = -1;
  uint32_t rank = 0;
  /// The first `rank` entries are set (no zeroing: this is the hot path).
  int64_t shape[bundle::kMaxRank];
  int64_t strides[bundle::kMaxRank];

  /// The view with its last two dims swapped (t.mT), for operands that the
  /// kernel takes transposed.
  void transposeLastTwo();
  rt::Arg toArg() const;
};

/// The torch objects the reader compares against and calls. One per process.
class TorchBridge {
public:
  static TorchBridge &get();

  /// \p tensorTypes are the exact types read (torch.Tensor and
  /// torch.nn.Parameter: subclasses such as fake tensors take Python's
  /// path), \p dtypes pairs torch dtype objects with tilec dtypes,
  /// \p currentStream is callable(device index) -> CUstream as an int
  /// (torch._C._cuda_getCurrentRawStream). Takes references. \p direct
  /// is tilec._torch_direct's reader (the caller has checked that the
  /// torch imported is the one it was built for); null: Python attributes.
  void configure(std::vector<PyObject *> tensorTypes,
                 std::vector<std::pair<PyObject *, bundle::DType>> dtypes,
                 PyObject *currentStream, const direct::Api *direct);
  /// Whether tensors are read through torch's headers (TorchDirect.cpp).
  bool readsDirectly() const { return direct != nullptr; }
  bool configured() const { return !tensorTypes.empty(); }

  /// Fills \p info from \p object. False, with no Python error left set,
  /// when \p object is not of a tensor type read, has a dtype tilec does
  /// not know, more than kMaxRank dims, or no readable address.
  bool read(PyObject *object, TensorInfo &info) const;

  /// The tilec dtype of a torch dtype object, or false.
  bool dtypeOf(PyObject *torchDtype, bundle::DType &dtype) const;

  /// torch's current stream on \p device; sets a Python error and returns
  /// false when the call fails.
  bool currentStream(int32_t device, void *&stream) const;

private:
  std::vector<PyObject *> tensorTypes;
  std::vector<std::pair<PyObject *, bundle::DType>> dtypes;
  PyObject *streamFunction = nullptr;
  const direct::Api *direct = nullptr;
  /// tilec dtype + 1 per c10::ScalarType value, for the direct reader.
  std::array<uint8_t, 64> scalarTypes = {};
};

} // namespace tilec::python

#endif // TILEC_PYTHON_TORCHTENSOR_H

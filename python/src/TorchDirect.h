//===- TorchDirect.h - the direct torch tensor reader's interface -*- C++
//-*-===//
//
// tilec._torch_direct (TorchDirect.cpp) reads torch tensors through torch's
// own headers; tilec._C calls it through this table of function pointers,
// handed over in a capsule, so that _C itself never links torch. The struct
// has no torch, nanobind or std::string types: both modules see one layout.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_PYTHON_TORCHDIRECT_H
#define TILEC_PYTHON_TORCHDIRECT_H

#include "TorchTensor.h"

#include <array>
#include <cstdint>

namespace tilec::python::direct {

/// tilec dtype + 1 per c10::ScalarType value; 0: not a dtype tilec knows.
using DTypeTable = std::array<uint8_t, 64>;

/// What tilec._torch_direct exports (capsule kCapsuleName, attribute "api").
struct Api {
  /// Bumped when this struct changes.
  uint32_t version;
  /// torch.__version__ of the headers it was built with.
  const char *torchVersion;
  /// The c10::ScalarType value of a torch dtype object, or -1.
  int (*scalarTypeOf)(PyObject *torchDtype);
  /// Fills \p info from a tensor of an exact torch tensor type (the caller
  /// has checked the type). False, with no Python error set, for what it does
  /// not handle (meta tensors, sparse layouts, unknown dtypes): the attribute
  /// reader of TorchTensor.cpp then decides.
  bool (*read)(PyObject *object, const DTypeTable &dtypes, TensorInfo &info);
};

constexpr uint32_t kApiVersion = 1;
constexpr const char *kCapsuleName = "tilec._torch_direct.api";

} // namespace tilec::python::direct

#endif // TILEC_PYTHON_TORCHDIRECT_H

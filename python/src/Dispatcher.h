//===- Dispatcher.h - The per-call fast path: a plan per signature -*- C++ -*-//
//
// A Dispatcher serves one Python entry point (say bf16_gemm_nt without c).
// Its first call for a tensor signature -- dtypes, devices, sizes and
// strides of the inputs -- misses; Python then runs its checks, picks and
// loads the kernel and records a plan for that signature: the kernel and
// which input (transposed or not) each kernel argument is. Every later call
// with the same signature reads the tensors once, finds the plan and
// launches, with no Python in between. Addresses are not part of the
// signature: the runtime checks their alignment at every launch.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_PYTHON_DISPATCHER_H
#define TILEC_PYTHON_DISPATCHER_H

#include "Extension.h"
#include "TorchTensor.h"

#include <array>
#include <unordered_map>
#include <vector>

namespace tilec::python {

class Dispatcher {
public:
  /// Most tensors one entry point takes.
  static constexpr size_t kMaxInputs = 6;
  /// Plans kept before the table starts over (a bound, never reached by a
  /// model's fixed set of shapes).
  static constexpr size_t kMaxPlans = 8192;

  /// One kernel argument: input \p input (its last two dims swapped when
  /// \p transpose), or, when input < 0, the constant scalar \p scalar.
  struct PlanArg {
    int32_t input = -1;
    bool transpose = false;
    rt::Arg scalar;
  };

  explicit Dispatcher(size_t inputs);

  size_t inputs() const { return numInputs; }
  size_t size() const { return plans.size(); }
  void clear() { plans.clear(); }

  /// Launches the plan of these tensors' signature and returns true; false
  /// (nothing launched, no error) when there is none yet or an input is not
  /// a tensor tilec reads. Throws when the launch itself fails.
  bool launch(PyObject *const *tensors, size_t count);

  /// Records \p kernel with \p args for the signature of \p tensors.
  void add(PyObject *const *tensors, size_t count, KernelRef kernel,
           std::vector<PlanArg> args);

private:
  static constexpr size_t kMaxWords = kMaxInputs * (1 + 2 * bundle::kMaxRank);
  struct Key {
    uint32_t length = 0;
    std::array<int64_t, kMaxWords> words;
    bool operator==(const Key &other) const;
  };
  struct KeyHash {
    size_t operator()(const Key &key) const;
  };
  struct Plan {
    KernelRef kernel;
    std::vector<PlanArg> args;
    /// The launch's argument array, reused (calls hold the GIL): the
    /// constants are in place, tensors are written per call.
    std::vector<rt::Arg> scratch;
  };

  /// Reads the inputs and their signature; false if one is not readable.
  bool readInputs(PyObject *const *tensors, size_t count, TensorInfo *infos,
                  Key &key) const;

  size_t numInputs;
  std::unordered_map<Key, Plan, KeyHash> plans;
};

} // namespace tilec::python

#endif // TILEC_PYTHON_DISPATCHER_H

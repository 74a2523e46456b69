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
// A plan may be provisional (the tiered JIT's quick build, docs/python.md):
// it names a RetireFlag, and once that is set its calls miss, so that the
// slow path replaces it with the tuned kernel.
//
// A plan may run a second kernel after the first (split K: the GEMM's
// partial sums, then their reduction) through a workspace tensor that
// Python allocates. Kernels on two streams must not share one, so a plan
// keeps a workspace per stream; a call on a stream without one misses, and
// the slow path adds one.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_PYTHON_DISPATCHER_H
#define TILEC_PYTHON_DISPATCHER_H

#include "Extension.h"
#include "TorchTensor.h"

#include <array>
#include <atomic>
#include <memory>
#include <unordered_map>
#include <vector>

namespace tilec::python {

/// Set once (from any thread) when a provisional plan's better kernel is
/// ready; shared by the plans it retires.
class RetireFlag {
public:
  void set() { value->store(true, std::memory_order_release); }
  bool isSet() const { return value->load(std::memory_order_acquire); }
  std::shared_ptr<const std::atomic<bool>> shared() const { return value; }

private:
  std::shared_ptr<std::atomic<bool>> value =
      std::make_shared<std::atomic<bool>>(false);
};

class Dispatcher {
public:
  /// Most tensors one entry point takes.
  static constexpr size_t kMaxInputs = 8;
  /// Plans kept before the table starts over (a bound, never reached by a
  /// model's fixed set of shapes).
  static constexpr size_t kMaxPlans = 8192;

  /// One kernel argument: input \p input (its last two dims swapped when
  /// \p transpose, then \p leadingOnes dims of size 1 put in front: a
  /// [M, K] tensor for a kernel's [1, M, K] argument; or, with \p view, the
  /// view that \p fixed holds: its dtype, rank, sizes and strides, and in
  /// its data a byte offset from the input's address -- a reshape or a
  /// reinterpretation that the signature fixes, such as the paged MQA
  /// cache's keys and scales), the plan's workspace (input == kWorkspace),
  /// or, when input < 0 otherwise, the constant scalar \p fixed.
  struct PlanArg {
    int32_t input = -1;
    bool transpose = false;
    bool view = false;
    uint32_t leadingOnes = 0;
    rt::Arg fixed; ///< what the plan fixes: a scalar, or a view
  };
  static constexpr int32_t kWorkspace = -2;

  /// One kernel of a plan and where its arguments come from.
  struct Step {
    KernelRef kernel;
    std::vector<PlanArg> args;
  };

  /// \p inputs tensors a call; the first \p keyed of them (0: all) make
  /// the signature, the others (an output the caller allocates to a size
  /// that the keyed ones and a number fix, such as the paged MQA logits
  /// for a growing max_context_len) are read per call and never keyed.
  explicit Dispatcher(size_t inputs, size_t keyed = 0);

  size_t inputs() const { return numInputs; }
  size_t size() const { return plans.size(); }
  void clear() { plans.clear(); }

  /// Launches the plan of these tensors' signature and returns true; false
  /// (nothing launched, no error) when there is none yet or an input is not
  /// a tensor tilec reads. Throws when the launch itself fails. A retired
  /// plan misses unless \p evenIfRetired: the slow path launches the plan it
  /// just recorded, whose better kernel may have become ready meanwhile.
  bool launch(PyObject *const *tensors, size_t count,
              bool evenIfRetired = false);

  /// The arguments that the first kernel of the plan of these tensors'
  /// signature would take (a workspace argument left unset), for tests and
  /// tools; false when there is no plan.
  bool firstArgs(PyObject *const *tensors, size_t count,
                 std::vector<rt::Arg> &args);

  /// Records \p steps (run in order) for the signature of \p tensors.
  /// With \p workspace (a tensor the steps' kWorkspace arguments name), the
  /// workspace serves calls on torch's current stream; a plan of the same
  /// kernels already there keeps its other streams' workspaces.
  /// With \p retire, the plan serves calls until that flag is set.
  void add(PyObject *const *tensors, size_t count, std::vector<Step> steps,
           PyObject *workspace = nullptr, const RetireFlag *retire = nullptr);

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
  struct PlannedStep {
    Step step;
    /// The launch's argument array, reused (calls hold the GIL): the
    /// constants are in place, tensors are written per call.
    std::vector<rt::Arg> scratch;
  };
  struct Workspace {
    void *stream = nullptr;
    rt::Arg arg;
    nb::object tensor; ///< kept alive while the plan is
  };
  struct Plan {
    std::vector<PlannedStep> steps;
    bool needsWorkspace = false;
    std::vector<Workspace> workspaces; ///< one per stream
    /// Set: the plan misses (a provisional plan's kernel was superseded).
    std::shared_ptr<const std::atomic<bool>> retired;
  };

  /// Reads the inputs into \p infos and finds their signature's plan;
  /// null when there is none or an input is not readable.
  Plan *findPlan(PyObject *const *tensors, size_t count, TensorInfo *infos);

  /// Writes the call's tensors into \p planned's argument array.
  static void fillArgs(PlannedStep &planned, const TensorInfo *infos,
                       const rt::Arg *workspace);

  /// Whether two plans run the same kernels in the same order.
  static bool sameKernels(const Plan &a, const Plan &b);

  /// Reads the inputs and their signature; false if one is not readable.
  bool readInputs(PyObject *const *tensors, size_t count, TensorInfo *infos,
                  Key &key) const;

  size_t numInputs;
  size_t numKeyed;
  std::unordered_map<Key, Plan, KeyHash> plans;
};

} // namespace tilec::python

#endif // TILEC_PYTHON_DISPATCHER_H

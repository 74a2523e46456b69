//===- Dispatcher.cpp - The per-call fast path: a plan per signature ------===//

#include "Dispatcher.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace tilec::python {

Dispatcher::Dispatcher(size_t inputs, size_t keyed)
    : numInputs(inputs), numKeyed(keyed == 0 ? inputs : keyed) {
  if (inputs == 0 || inputs > kMaxInputs)
    throw std::invalid_argument("a dispatcher takes 1 to " +
                                std::to_string(kMaxInputs) + " tensors");
  if (numKeyed > inputs)
    throw std::invalid_argument("a dispatcher's signature covers at most its " +
                                std::to_string(inputs) + " tensors, got " +
                                std::to_string(keyed));
}

bool Dispatcher::Key::operator==(const Key &other) const {
  return length == other.length && std::memcmp(words.data(), other.words.data(),
                                               length * sizeof(int64_t)) == 0;
}

size_t Dispatcher::KeyHash::operator()(const Key &key) const {
  uint64_t hash = 1469598103934665603ull; // FNV-1a over whole words
  for (uint32_t i = 0; i < key.length; ++i) {
    hash ^= static_cast<uint64_t>(key.words[i]);
    hash *= 1099511628211ull;
  }
  return static_cast<size_t>(hash);
}

bool Dispatcher::readInputs(PyObject *const *tensors, size_t count,
                            TensorInfo *infos, Key &key) const {
  if (count != numInputs)
    return false;
  const TorchBridge &bridge = TorchBridge::get();
  key.length = 0;
  for (size_t i = 0; i < count; ++i) {
    TensorInfo &info = infos[i];
    if (!bridge.read(tensors[i], info))
      return false;
    if (i >= numKeyed)
      continue;
    // dtype, device and rank in one word, then the sizes and strides.
    key.words[key.length++] = int64_t(info.dtype) |
                              (int64_t(info.device + 1) << 8) |
                              (int64_t(info.rank) << 40);
    for (uint32_t d = 0; d < info.rank; ++d)
      key.words[key.length++] = info.shape[d];
    for (uint32_t d = 0; d < info.rank; ++d)
      key.words[key.length++] = info.strides[d];
  }
  return true;
}

namespace {

/// Writes tensor \p info into \p arg as \p source says: transposed, with
/// leading dims of size 1 (whose strides span the whole tensor), or as the
/// view the plan recorded at an offset from its address.
void setTensorArg(rt::Arg &arg, const TensorInfo &info,
                  const Dispatcher::PlanArg &source) {
  if (source.view) {
    arg = source.fixed;
    arg.data = info.data + source.fixed.data;
    return;
  }
  const uint32_t ones = source.leadingOnes;
  arg.data = info.data;
  arg.dtype = info.dtype;
  arg.rank = info.rank + ones;
  std::copy(info.shape, info.shape + info.rank, arg.shape + ones);
  std::copy(info.strides, info.strides + info.rank, arg.strides + ones);
  uint32_t last = info.rank + ones;
  if (source.transpose && info.rank >= 2) {
    std::swap(arg.shape[last - 1], arg.shape[last - 2]);
    std::swap(arg.strides[last - 1], arg.strides[last - 2]);
  }
  const int64_t span = info.rank ? info.shape[0] * info.strides[0] : int64_t(1);
  for (uint32_t d = 0; d < ones; ++d) {
    arg.shape[d] = 1;
    arg.strides[d] = span;
  }
}

} // namespace

bool Dispatcher::sameKernels(const Plan &a, const Plan &b) {
  if (a.steps.size() != b.steps.size())
    return false;
  for (size_t i = 0; i < a.steps.size(); ++i) {
    const KernelRef &x = a.steps[i].step.kernel, &y = b.steps[i].step.kernel;
    if (x.kernel != y.kernel || x.meta != y.meta)
      return false;
  }
  return true;
}

Dispatcher::Plan *Dispatcher::findPlan(PyObject *const *tensors, size_t count,
                                       TensorInfo *infos) {
  Key key;
  if (!readInputs(tensors, count, infos, key))
    return nullptr;
  auto found = plans.find(key);
  return found == plans.end() ? nullptr : &found->second;
}

bool Dispatcher::launch(PyObject *const *tensors, size_t count,
                        bool evenIfRetired) {
  TensorInfo infos[kMaxInputs];
  Plan *found = findPlan(tensors, count, infos);
  if (!found)
    return false;
  Plan &plan = *found;
  if (!evenIfRetired && plan.retired &&
      plan.retired->load(std::memory_order_acquire))
    return false;
  const KernelRef &first = plan.steps.front().step.kernel;
  void *stream = currentStreamFor(first, infos[0].device);
  const rt::Arg *workspace = nullptr;
  if (plan.needsWorkspace) {
    for (const Workspace &candidate : plan.workspaces)
      if (candidate.stream == stream)
        workspace = &candidate.arg;
    if (!workspace)
      return false; // a new stream: the slow path adds its workspace
  }
  for (PlannedStep &planned : plan.steps) {
    fillArgs(planned, infos, workspace);
    launchOn(planned.step.kernel, planned.scratch.data(),
             planned.step.args.size(), stream);
  }
  return true;
}

void Dispatcher::fillArgs(PlannedStep &planned, const TensorInfo *infos,
                          const rt::Arg *workspace) {
  const Step &step = planned.step;
  for (size_t i = 0, e = step.args.size(); i < e; ++i) {
    const PlanArg &source = step.args[i];
    if (source.input == kWorkspace && workspace)
      planned.scratch[i] = *workspace;
    else if (source.input >= 0)
      setTensorArg(planned.scratch[i], infos[source.input], source);
  }
}

bool Dispatcher::firstArgs(PyObject *const *tensors, size_t count,
                           std::vector<rt::Arg> &args) {
  TensorInfo infos[kMaxInputs];
  Plan *found = findPlan(tensors, count, infos);
  if (!found)
    return false;
  PlannedStep &first = found->steps.front();
  fillArgs(first, infos, nullptr);
  args = first.scratch;
  return true;
}

void Dispatcher::add(PyObject *const *tensors, size_t count,
                     std::vector<Step> steps, PyObject *workspace,
                     const RetireFlag *retire) {
  TensorInfo infos[kMaxInputs];
  Key key;
  if (!readInputs(tensors, count, infos, key))
    throw std::invalid_argument(
        "a plan needs " + std::to_string(numInputs) +
        " torch tensors of dtypes tilec knows, with at most " +
        std::to_string(bundle::kMaxRank) + " dims each");
  if (steps.empty())
    throw std::invalid_argument("a plan runs at least one kernel");
  TensorInfo workspaceInfo;
  if (workspace && !TorchBridge::get().read(workspace, workspaceInfo))
    throw std::invalid_argument("the workspace must be a torch tensor of a "
                                "dtype tilec knows");
  Plan plan;
  plan.needsWorkspace = workspace != nullptr;
  if (retire)
    plan.retired = retire->shared();
  for (Step &step : steps) {
    const std::vector<PlanArg> &args = step.args;
    if (args.size() != step.kernel.meta->args.size())
      throw std::invalid_argument(
          "kernel '" + step.kernel.meta->name + "' takes " +
          std::to_string(step.kernel.meta->args.size()) +
          " arguments, the plan has " + std::to_string(args.size()));
    std::vector<rt::Arg> scratch(args.size());
    for (size_t i = 0; i < args.size(); ++i) {
      const PlanArg &arg = args[i];
      if (arg.input >= static_cast<int32_t>(numInputs))
        throw std::invalid_argument("a plan argument names input " +
                                    std::to_string(arg.input) + " of " +
                                    std::to_string(numInputs));
      if (arg.input == kWorkspace && !workspace)
        throw std::invalid_argument("a plan argument names the workspace, "
                                    "but none is given");
      if (arg.input >= 0 &&
          infos[arg.input].rank + arg.leadingOnes > bundle::kMaxRank)
        throw std::invalid_argument("plan argument " + std::to_string(i) +
                                    ": input " + std::to_string(arg.input) +
                                    " with " + std::to_string(arg.leadingOnes) +
                                    " leading dims of 1 has more than " +
                                    std::to_string(bundle::kMaxRank) + " dims");
      scratch[i] = arg.input == kWorkspace ? workspaceInfo.toArg()
                   : arg.input < 0         ? arg.fixed
                                           : infos[arg.input].toArg();
    }
    plan.steps.push_back({std::move(step), std::move(scratch)});
  }
  if (workspace) {
    void *stream =
        currentStreamFor(plan.steps.front().step.kernel, infos[0].device);
    auto existing = plans.find(key);
    if (existing != plans.end() && existing->second.needsWorkspace &&
        sameKernels(existing->second, plan))
      for (Workspace &kept : existing->second.workspaces)
        if (kept.stream != stream)
          plan.workspaces.push_back(std::move(kept));
    plan.workspaces.push_back(
        {stream, workspaceInfo.toArg(), nb::borrow(workspace)});
  }
  if (plans.size() >= kMaxPlans)
    plans.clear();
  plans[key] = std::move(plan);
}

} // namespace tilec::python

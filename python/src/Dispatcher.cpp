//===- Dispatcher.cpp - The per-call fast path: a plan per signature ------===//

#include "Dispatcher.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace tilec::python {

Dispatcher::Dispatcher(size_t inputs) : numInputs(inputs) {
  if (inputs == 0 || inputs > kMaxInputs)
    throw std::invalid_argument("a dispatcher takes 1 to " +
                                std::to_string(kMaxInputs) + " tensors");
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

bool Dispatcher::launch(PyObject *const *tensors, size_t count) {
  TensorInfo infos[kMaxInputs];
  Key key;
  if (!readInputs(tensors, count, infos, key))
    return false;
  auto found = plans.find(key);
  if (found == plans.end())
    return false;
  Plan &plan = found->second;
  size_t numArgs = plan.args.size();
  for (size_t i = 0; i < numArgs; ++i) {
    const PlanArg &source = plan.args[i];
    if (source.input < 0)
      continue;
    const TensorInfo &info = infos[source.input];
    rt::Arg &arg = plan.scratch[i];
    arg.data = info.data;
    arg.dtype = info.dtype;
    arg.rank = info.rank;
    std::copy(info.shape, info.shape + info.rank, arg.shape);
    std::copy(info.strides, info.strides + info.rank, arg.strides);
    if (source.transpose && info.rank >= 2) {
      std::swap(arg.shape[info.rank - 1], arg.shape[info.rank - 2]);
      std::swap(arg.strides[info.rank - 1], arg.strides[info.rank - 2]);
    }
  }
  launchOrCheck(plan.kernel, plan.scratch.data(), numArgs, infos[0].device);
  return true;
}

void Dispatcher::add(PyObject *const *tensors, size_t count, KernelRef kernel,
                     std::vector<PlanArg> args) {
  TensorInfo infos[kMaxInputs];
  Key key;
  if (!readInputs(tensors, count, infos, key))
    throw std::invalid_argument(
        "a plan needs " + std::to_string(numInputs) +
        " torch tensors of dtypes tilec knows, with at most " +
        std::to_string(bundle::kMaxRank) + " dims each");
  if (args.size() != kernel.meta->args.size())
    throw std::invalid_argument("kernel '" + kernel.meta->name + "' takes " +
                                std::to_string(kernel.meta->args.size()) +
                                " arguments, the plan has " +
                                std::to_string(args.size()));
  for (const PlanArg &arg : args)
    if (arg.input >= static_cast<int32_t>(numInputs))
      throw std::invalid_argument("a plan argument names input " +
                                  std::to_string(arg.input) + " of " +
                                  std::to_string(numInputs));
  if (plans.size() >= kMaxPlans)
    plans.clear();
  std::vector<rt::Arg> scratch(args.size());
  for (size_t i = 0; i < args.size(); ++i)
    scratch[i] =
        args[i].input < 0 ? args[i].scalar : infos[args[i].input].toArg();
  plans[key] = Plan{std::move(kernel), std::move(args), std::move(scratch)};
}

} // namespace tilec::python

//===- LaunchPlan.h - Argument checks and launch parameters -----*- C++ -*-===//
//
// Turns a kernel's metadata and the user's arguments into everything a
// launch needs, on the CPU and without CUDA: the checked parameter values,
// the tensor-map requests (in the innermost-first order that
// cuTensorMapEncodeTiled takes) and the grid. Every failure names the
// argument and says why, so a wrong call never reaches the GPU.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_RUNTIME_LAUNCHPLAN_H
#define TILEC_RUNTIME_LAUNCHPLAN_H

#include "tilec/Runtime.h"

#include <array>
#include <cstdint>
#include <vector>

namespace tilec::rt {

/// The inputs of one cuTensorMapEncodeTiled call, innermost dimension first.
struct TensorMapRequest {
  uint32_t param = 0;
  /// Where the encoded map goes among the launch's maps (a tensor list's
  /// parameter takes `capacity` consecutive slots).
  uint32_t slot = 0;
  uint32_t arg = 0;
  DType dtype = DType::F32;
  uint32_t rank = 0;
  uint64_t address = 0;
  uint64_t globalDim[bundle::kMaxTensorMapRank] = {};
  /// Bytes; rank - 1 entries (dimension 0 is contiguous).
  uint64_t globalStrides[bundle::kMaxTensorMapRank - 1] = {};
  uint32_t box[bundle::kMaxTensorMapRank] = {};
  uint32_t elementStrides[bundle::kMaxTensorMapRank] = {};
  bundle::Swizzle swizzle = bundle::Swizzle::None;
  bundle::OobFill oobFill = bundle::OobFill::Zero;
  bundle::L2Promotion l2Promotion = bundle::L2Promotion::None;

  /// What varies between launches of one parameter: the cache key.
  using Key = std::array<uint64_t, 2 + 2 * bundle::kMaxTensorMapRank>;
  Key key() const;
};

struct TensorMapKeyHash {
  size_t operator()(const TensorMapRequest::Key &key) const;
};

/// The value of one kernel parameter: a tensor map to encode, or up to 8
/// bytes copied as they are.
struct ParamValue {
  bool isTensorMap = false;
  /// The first map slot of a tensor-map parameter (TensorMapRequest::slot).
  uint32_t tensorMap = 0;
  uint32_t size = 0;
  alignas(8) unsigned char bytes[8] = {};
};

struct LaunchPlan {
  std::vector<ParamValue> params;
  std::vector<TensorMapRequest> tensorMaps;
  /// Map slots in all: a map per tensor-map parameter, `capacity` per one
  /// of a tensor list; the slots no request fills are zero.
  uint32_t mapSlots = 0;
  /// CTAs per axis; a zero axis means there is nothing to launch.
  std::array<uint32_t, 3> grid = {0, 0, 0};
};

/// Checks that \p count arguments is what \p kernel takes; the first check
/// of buildLaunchPlan.
Error checkArgCount(const bundle::Kernel &kernel, size_t count);

/// Checks \p args against \p kernel and fills \p plan. \p smCount is the
/// device's SM count for persistent grids; 0 leaves a persistent grid at
/// {0, 0, 0} (checks on the CPU only).
Error buildLaunchPlan(const bundle::Kernel &kernel, const Arg *args,
                      size_t count, uint32_t smCount, LaunchPlan &plan);

/// "argument 'A' (index 0)": how every argument error begins.
std::string describeArg(const bundle::Kernel &kernel, size_t index);

/// IEEE binary16 / bfloat16 bits of \p value, rounded to nearest even.
uint16_t toHalfBits(double value);
uint16_t toBFloat16Bits(double value);

} // namespace tilec::rt

#endif // TILEC_RUNTIME_LAUNCHPLAN_H

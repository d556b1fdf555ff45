#include "predictor/simulation/parallel_plan.h"

#include "core/common/error.h"
#include "profile/hardware_profile.h"

namespace dnnperf {

void ParallelPlan::validate(const HardwareProfile& hw) const {
  if (nodes <= 0) throw InputError("nodes must be positive, is " + std::to_string(nodes));
  if (devices_per_node <= 0) throw InputError("devices per node must be positive, is " + std::to_string(devices_per_node));
  if (devices_per_node > hw.node.devices)
    throw InputError("a " + hw.name + " node has " + std::to_string(hw.node.devices) + " devices; the plan asks for " +
                     std::to_string(devices_per_node) + " per node");
  if (static_cast<std::int64_t>(nodes) * devices_per_node > kMaxRanks)
    throw InputError(std::to_string(nodes) + " nodes of " + std::to_string(devices_per_node) + " devices are " +
                     std::to_string(static_cast<std::int64_t>(nodes) * devices_per_node) + " devices, beyond the " + std::to_string(kMaxRanks) +
                     " dnnperf prices");
  if (!hw.cluster.torus_dims.empty()) {
    std::int64_t places = 1;
    for (int d : hw.cluster.torus_dims) places *= d;
    if (nodes > places)
      throw InputError(hw.path + ": cluster.torus_dims: the torus holds " + std::to_string(places) + " nodes; the plan asks for " + std::to_string(nodes));
  }
  if (!(bucket_bytes > 0)) throw InputError("the gradient bucket size must be positive");
  if (!(first_bucket_bytes > 0)) throw InputError("the first gradient bucket size must be positive");
}

}  // namespace dnnperf

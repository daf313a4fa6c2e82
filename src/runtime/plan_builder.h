// Builds the plan of a graph no sync has seen: partition, generate each region's kernel, compile
// them, load them on the device, and work out which intermediates to free after which kernel.
#pragma once

#include <memory>
#include <vector>

#include "ir/trace.h"
#include "runtime/device.h"
#include "runtime/plan.h"

namespace lazy::runtime {

// `device` is null when computing on the host: kernels are then generated and compiled for
// `arch` but not loaded.
std::shared_ptr<const Plan> build_plan(const ir::Trace& trace, const std::vector<bool>& live,
                                       bool fusion, bool fast, Device* device, int arch);

}  // namespace lazy::runtime

// The plan step of a matrix product's region: one cuBLASLt call (runtime/matmul_call.h) in place
// of a generated kernel, reading its inputs where they sit in memory.
#pragma once

#include "fuse/partition.h"
#include "runtime/device.h"
#include "runtime/plan.h"
#include "runtime/plan_indices.h"

namespace lazy::runtime {

// `device` null (computing on the host): the step is planned without a call.
PlannedKernel plan_matmul(const fuse::Region& region, const fuse::Graph& graph,
                          const PlanIndices& index, Device* device);

}  // namespace lazy::runtime

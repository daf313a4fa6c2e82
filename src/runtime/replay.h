// Launches a plan's kernels on the GPU for one sync and hands back the data of each held node.
#pragma once

#include <optional>
#include <vector>

#include "ir/trace.h"
#include "runtime/device.h"
#include "runtime/plan.h"

namespace lazy::runtime {

// The data of each held pending node (by pending index): kernel outputs, views of them or of
// inputs, and scalars.
std::vector<std::optional<ir::TensorData>> replay(const Plan& plan, const ir::Trace& trace,
                                                  Device& device);

// Fills every kernel output with 0xff bytes (NaN for floats) before the kernel runs, so an
// element a kernel fails to write shows. On in tests; LAZY_POISON_OUTPUTS turns it on.
void set_poison_outputs(bool enabled);

}  // namespace lazy::runtime

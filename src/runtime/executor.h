// Runs a thread's pending graph: looks its plan up (or builds it: partition, generate, compile,
// load), then launches the plan's kernels on the GPU, or, without one, computes the graph on the
// host with the reference evaluator.
#pragma once

#include <memory>
#include <utility>
#include <vector>

#include "ir/trace.h"
#include "runtime/plan.h"

namespace lazy::runtime {

// A live pending node's data, by pending index.
using HeldResults = std::vector<std::pair<std::uint32_t, ir::TensorData>>;

// The data of each live pending node; the trace is left as it was. `plan_run`, when given, gets
// the plan the GPU ran (it stays null on the host).
HeldResults execute(const ir::Trace& trace, const ir::LiveBits& live,
                    std::shared_ptr<const Plan>* plan_run = nullptr);

// While set, the calling thread's syncs compute with the reference evaluator even when a GPU is
// present: the oracle GPU tests compare against.
void set_reference_execution(bool enabled);

}  // namespace lazy::runtime

// The reference evaluator: computes a recorded graph on the host, in double precision with
// exact integers, rounding each result to its dtype. It is the oracle every backend is tested
// against, and the executor when there is no GPU.
#pragma once

#include <optional>
#include <span>
#include <vector>

#include "ir/node.h"

namespace lazy::ref {

// Evaluates the pending nodes (in recording order; inputs come first or are computed
// already) and returns the data of each node marked live. Nodes nothing live needs are skipped.
std::vector<std::optional<ir::TensorData>> evaluate(std::span<const ir::NodePtr> pending,
                                                    const std::vector<bool>& live);

}  // namespace lazy::ref

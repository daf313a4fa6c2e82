// Which elements of its storage each input of a sync is read at, so that the host evaluator
// converts those and not the whole storage (a loop slicing one row of a large computed tensor
// per sync converted all of it each time).
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "ir/node.h"

namespace lazy::ref {

// The elements [first, end) of a storage; first == end for none.
using ElementRange = std::pair<std::int64_t, std::int64_t>;

// Per input (a computed node) that the needed nodes of `pending` read: the elements of its
// storage they reach, directly or through views over it.
absl::flat_hash_map<const ir::Node*, ElementRange> input_reach(std::span<const ir::NodePtr> pending,
                                                               const std::vector<bool>& needed,
                                                               const std::vector<bool>& live);

}  // namespace lazy::ref

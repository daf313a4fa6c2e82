// LAZY_DEBUG: what the library tells stderr. 1: a line per sync and the source of every kernel
// when it is generated; 2: also the graph and the partition with the reason for each cut;
// 3: also each kernel's device time and bandwidth.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ir/node.h"

namespace lazy::ir {

int debug_level();
void debug_print(std::string_view text);

// The pending graph, one node a line: %index = op(inputs) dtype[shape], and who holds it.
std::string describe_graph(std::span<const ir::NodePtr> pending, const std::vector<bool>& live);

}  // namespace lazy::ir

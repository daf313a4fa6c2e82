// The reference math of every pointwise op, in double precision or exact int64.
#pragma once

#include "ir/node.h"
#include "ref/value.h"

namespace lazy::ref {

// Computes a pointwise node (inputs already evaluated, in order) into a dense buffer of the
// node's dtype, rounded to it.
Value evaluate_pointwise(const ir::Node& node, std::span<const Value> inputs);

}  // namespace lazy::ref

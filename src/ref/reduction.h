// The reference math of reductions: double accumulators for floating inputs, exact int64 for
// integers, NaN propagating through max and min.
#pragma once

#include "ir/node.h"
#include "ref/value.h"

namespace lazy::ref {

Value evaluate_reduction(const ir::Node& node, const Value& input);

}  // namespace lazy::ref

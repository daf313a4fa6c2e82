// The reference meaning of a scatter (ir/scatter.h): x, with each src element folded into the
// element of x its index names along the axis, in order of position: summed (ScatterAdd) or
// the last one taken (ScatterLast). An index outside the axis is reported and skipped.
#pragma once

#include <span>

#include "ir/node.h"
#include "ref/value.h"

namespace lazy::ref {

Value evaluate_scatter(const ir::Node& node, std::span<const Value> inputs);

}  // namespace lazy::ref

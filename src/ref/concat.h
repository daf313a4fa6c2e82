// The reference meaning of a concatenation: the inputs' elements, in order, along the axis.
#pragma once

#include <span>

#include "ir/node.h"
#include "ref/value.h"

namespace lazy::ref {

Value evaluate_concat(const ir::Node& node, std::span<const Value> inputs);

}  // namespace lazy::ref

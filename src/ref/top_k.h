// The reference meaning of top-k: each row's k best values along the last axis (NaN above every
// number), best first, equal values in order of position; or those positions.
#pragma once

#include "ir/node.h"
#include "ref/value.h"

namespace lazy::ref {

Value evaluate_top_k(const ir::Node& node, const Value& input);

}  // namespace lazy::ref

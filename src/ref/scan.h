// The reference meaning of a scan: element j of each row of the last axis folds elements 0..j, in
// order (cummax and cummin keep the first NaN, else the later of equal values).
#pragma once

#include "ir/node.h"
#include "ref/value.h"

namespace lazy::ref {

Value evaluate_scan(const ir::Node& node, const Value& input);

}  // namespace lazy::ref

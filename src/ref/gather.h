// The reference meaning of a gather: out[c] = source[c with c[axis] = index[c]]. An index outside
// [0, source extent) reads 0 and is reported (ir/index_faults.h), as a kernel does.
#pragma once

#include "ir/node.h"
#include "ref/value.h"

namespace lazy::ref {

Value evaluate_gather(const ir::Node& node, const Value& source, const Value& index);

}  // namespace lazy::ref

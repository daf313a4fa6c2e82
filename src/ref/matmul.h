// The reference meaning of a MatMul node (ir/matmul.h): each product in double precision, then
// its epilogue (bias, residual, activation), rounded once to the node's dtype. A TF32 node is
// computed exactly as well: tests compare it with a TF32 tolerance.
#pragma once

#include <span>

#include "ir/node.h"
#include "ref/value.h"

namespace lazy::ref {

Value evaluate_matmul(const ir::Node& node, std::span<const Value> inputs);

}  // namespace lazy::ref

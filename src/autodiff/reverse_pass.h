// The backward walk: from cotangents of a function's outputs, through the recorded nodes in
// reverse order, to the cotangents of its inputs (autodiff/vjp_rules.h gives each step).
#pragma once

#include <source_location>
#include <span>
#include <vector>

#include "ir/node.h"
#include "lazy/tensor.h"

namespace lazy::autodiff {

// The cotangent of each of `inputs` (pending nodes of this thread's trace, each the input of the
// function whose `outputs` are given), accumulated over every path from the outputs; undefined
// where no path carries one. `cotangents` match the outputs' shapes. Records the backward ops;
// `call` is the grad or vjp call, where an op without a rule is reported.
std::vector<Tensor> backpropagate(std::span<const Tensor> outputs,
                                  std::span<const Tensor> cotangents,
                                  std::span<ir::Node* const> inputs, std::source_location call);

}  // namespace lazy::autodiff

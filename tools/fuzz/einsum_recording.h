// Records an einsum step of one or more operands through lazy::einsum and follows it as the
// library computes it (api/einsum.cpp): a sum out of one operand is a product with 1 rounded to
// the dtype, then the operands pair up left to right, each pair a product over the indices it
// sums (a pointwise product where it sums none).
#pragma once

#include <source_location>
#include <string>
#include <vector>

#include "tools/fuzz/builder.h"

namespace lazy::fuzz {

// `earlier` holds the program's steps before `step`. Throws lazy::Error when the API refuses the
// step and StepRejected when its shape or values cannot be followed symbolically or bounded.
RecordedStep record_einsum(const Program& program, const Step& step, const Builder& earlier,
                           std::source_location loc);

// An einsum equation's operands' indices (no spaces, as the generator writes them).
std::vector<std::string> einsum_inputs(const std::string& equation);
// An einsum equation's output indices: after "->", else NumPy's implicit ones (the indices seen
// once, in alphabetical order), as lazy::einsum reads it.
std::string einsum_output(const std::string& equation);

}  // namespace lazy::fuzz

// Value rules of torch.nn.functional's activations at their default parameters (generation 8):
// leaky_relu, elu, selu, celu, hardtanh, relu6, hardsigmoid, hardswish, mish, log_sigmoid,
// softsign, tanhshrink, softshrink and hardshrink.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tools/fuzz/bounds.h"

namespace lazy::fuzz {

// Their names, as the API and the generator spell them.
const std::vector<std::string>& activation_names();
bool is_activation(std::string_view op);
// Whether the API takes an integer x (converting it, or clamping it as integers).
bool activation_takes_integers(std::string_view op);

// x already in the result's dtype.
Bounds activation_rule(std::string_view op, const Bounds& x, DType result);

}  // namespace lazy::fuzz

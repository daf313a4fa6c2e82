// Value rules of the bitwise ops (and, or, xor, not, the shifts) of integers, and of bool where
// and, or and xor are logic. Exact operands give exact results; a left shift that could leave the
// dtype's range may hold any of its values (the wrapped bits agree everywhere).
#pragma once

#include <string_view>

#include "tools/fuzz/value_rules.h"

namespace lazy::fuzz {

// Operands already converted to the dtype the op computes in, which is its result's.
Bounds bitwise_rule(std::string_view op, const Bounds& a, const Bounds& b, DType result);
// ~x of an integer: -x - 1.
Bounds bitwise_not_rule(const Bounds& x);

}  // namespace lazy::fuzz

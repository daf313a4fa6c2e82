// Value rules of the rounded divisions: floor_divide, remainder and fmod. Each jumps where the
// quotient crosses an integer, so an inexact operand leaves the result unchecked; exact operands
// give exact results (fmod is exact in IEEE arithmetic, the quotient an exact integer while it is
// small), and a divisor that may be zero is refused.
#pragma once

#include <string_view>

#include "tools/fuzz/value_rules.h"

namespace lazy::fuzz {

// Operands already converted to the dtype the op computes in.
Bounds division_rule(std::string_view op, const Bounds& a, const Bounds& b, DType result);

}  // namespace lazy::fuzz

// Value rules of the smooth floating functions of several arguments: atan2, hypot, logaddexp and
// lerp. Each range comes from the arguments' box; each error from a bound on the function's
// gradient over that box widened by the arguments' errors, plus the f32 arithmetic's ulps.
#pragma once

#include "tools/fuzz/value_rules.h"

namespace lazy::fuzz {

// Operands already converted to the dtype the op computes in.
Bounds atan2_rule(const Bounds& y, const Bounds& x, DType result);
Bounds hypot_rule(const Bounds& a, const Bounds& b, DType result);
Bounds logaddexp_rule(const Bounds& a, const Bounds& b, DType result);

// start + weight * (end - start) in PyTorch's two-sided form; operands as they enter the op.
Bounds lerp_rule(const Operand& start, const Operand& end, const Operand& weight, DType result);

}  // namespace lazy::fuzz

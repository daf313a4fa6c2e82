// How each op transforms what the fuzzer knows about values (tools/fuzz/bounds.h). Every rule
// throws StepRejected where the op's values could not be bounded usefully (a log of a range that
// reaches zero, a sum that could overflow).
#pragma once

#include <cstdint>
#include <string_view>

#include "tools/fuzz/bounds.h"

namespace lazy::fuzz {

// A tensor or number operand: its bounds and dtype as they enter the op.
struct Operand {
  Bounds bounds;
  DType dtype;
};

// Bounds of a number written in a program (exact when it is a short dyadic fraction).
Bounds number_bounds(double value, DType as);
// A number as an operand of `dtype`.
inline Operand number_operand(double value, DType dtype) {
  return Operand{number_bounds(value, dtype), dtype};
}

Bounds unary_rule(std::string_view op, const Operand& x, DType result);
// `compute` is the promoted dtype the operands meet in (for comparisons, not the result's).
Bounds binary_rule(std::string_view op, const Operand& a, const Operand& b, DType compute,
                   DType result);
Bounds select_rule(const Bounds& cond, const Operand& a, const Operand& b, DType result);
Bounds cast_rule(const Operand& x, DType to);

}  // namespace lazy::fuzz

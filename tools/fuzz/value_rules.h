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

Bounds unary_rule(std::string_view op, const Operand& x, DType result);
// `compute` is the promoted dtype the operands meet in (for comparisons, not the result's).
Bounds binary_rule(std::string_view op, const Operand& a, const Operand& b, DType compute,
                   DType result);
Bounds select_rule(const Bounds& cond, const Operand& a, const Operand& b, DType result);
Bounds cast_rule(const Operand& x, DType to);

// A reduction folding `n` elements per result.
Bounds reduce_rule(std::string_view op, const Operand& x, DType result, std::int64_t n);
Bounds arg_reduce_rule(const Operand& x, std::int64_t n);
// A running sum ("sum") or product ("prod") over n elements: every prefix's bounds.
Bounds scan_rule(std::string_view op, const Operand& x, DType result, std::int64_t n);
Bounds variance_rule(const Operand& x, DType result, std::int64_t n, double correction,
                     bool standard_deviation);
Bounds softmax_rule(const Operand& x, DType result, std::int64_t n, bool log);
// layer_norm (bias given) or rms_norm over rows of `n`.
Bounds norm_rule(const Operand& x, const Operand& weight, const Operand* bias, DType result,
                 std::int64_t n, double eps);

}  // namespace lazy::fuzz

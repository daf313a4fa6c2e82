// How reductions, scans and the row ops built on them (variance, softmax, norms) transform what
// the fuzzer knows about values: tools/fuzz/value_rules.h for the pointwise ops.
#pragma once

#include <cstdint>

#include "tools/fuzz/value_rules.h"

namespace lazy::fuzz {

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

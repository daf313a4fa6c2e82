// Records a statistic step (statistic_steps.h) through the public API, with its shape and
// bounds: nansum's are sum's over x with NaN as 0, nanmean's a mean's over the numbers, a norm's
// from its order (a norm is 1-Lipschitz in its own norm, and its root shrinks the sum's error).
#pragma once

#include <source_location>

#include "tools/fuzz/builder.h"
#include "tools/fuzz/value_rules.h"

namespace lazy::fuzz {

// vector_norm of order `ord` over n elements of `x`, the result of dtype `result`.
Bounds vector_norm_rule(const Operand& x, double ord, DType result, std::int64_t n);

// `folded` holds the axes the step folds (all of x's when it names none).
RecordedStep record_statistic(const Step& step, const Builder& earlier,
                              const std::vector<int>& folded, std::source_location loc);

}  // namespace lazy::fuzz

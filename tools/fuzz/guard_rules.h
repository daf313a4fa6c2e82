// Value rules of the pointwise ops that guard a domain (generation 10): logit with eps 1e-3 (its
// clamp), nan_to_num with PyTorch's defaults (NaN and the infinities replaced) and
// threshold(x, 0.5, -2) (a cut).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tools/fuzz/bounds.h"

namespace lazy::fuzz {

// Their names as unary steps: "logit", "nan_to_num", "threshold".
const std::vector<std::string>& domain_guard_names();
bool is_domain_guard(std::string_view op);

// x already in the result's dtype; `specials_may_differ` from x's bounds.
Bounds domain_guard_rule(std::string_view op, const Bounds& x, DType result);

// The parameters the steps use, for the API's and PyTorch's calls.
inline constexpr double kLogitEps = 1e-3;
inline constexpr double kThreshold = 0.5;
inline constexpr double kThresholdValue = -2;

}  // namespace lazy::fuzz

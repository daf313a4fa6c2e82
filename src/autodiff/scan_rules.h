// The gradient rules of the running sum and product (autodiff/vjp_rules.h's table names them).
// Scans run along the last axis of what they record.
#pragma once

#include "autodiff/vjp_rules.h"

namespace lazy::autodiff {

InputCotangents cumsum_vjp(const VjpArgs& a);
InputCotangents cumprod_vjp(const VjpArgs& a);

}  // namespace lazy::autodiff

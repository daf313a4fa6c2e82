// The gradient rules of the folding reductions: sum, max and min, and prod
// (autodiff/vjp_rules.h's table names them).
#pragma once

#include "autodiff/vjp_rules.h"

namespace lazy::autodiff {

InputCotangents sum_vjp(const VjpArgs& a);
InputCotangents extreme_vjp(const VjpArgs& a);
InputCotangents prod_vjp(const VjpArgs& a);

}  // namespace lazy::autodiff

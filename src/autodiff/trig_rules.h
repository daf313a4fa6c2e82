// The gradient rules of tan, the inverse trigonometric functions, the hyperbolic ones and their
// inverses, and log10 (autodiff/vjp_rules.h's table names them): PyTorch's formulas, so that the
// edges (asin' at ±1 is inf, atanh' past 1 negative) agree with its.
#pragma once

#include "autodiff/vjp_rules.h"

namespace lazy::autodiff {

InputCotangents tan_vjp(const VjpArgs& a);
InputCotangents asin_vjp(const VjpArgs& a);
InputCotangents acos_vjp(const VjpArgs& a);
InputCotangents atan_vjp(const VjpArgs& a);
InputCotangents sinh_vjp(const VjpArgs& a);
InputCotangents cosh_vjp(const VjpArgs& a);
InputCotangents asinh_vjp(const VjpArgs& a);
InputCotangents acosh_vjp(const VjpArgs& a);
InputCotangents atanh_vjp(const VjpArgs& a);
InputCotangents log10_vjp(const VjpArgs& a);

}  // namespace lazy::autodiff

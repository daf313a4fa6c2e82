// The gradient rules of gathers and scatters, which are each other's (autodiff/vjp_rules.h's table
// names them).
#pragma once

#include "autodiff/vjp_rules.h"

namespace lazy::autodiff {

InputCotangents gather_vjp(const VjpArgs& a);
InputCotangents scatter_add_vjp(const VjpArgs& a);
InputCotangents scatter_last_vjp(const VjpArgs& a);

}  // namespace lazy::autodiff

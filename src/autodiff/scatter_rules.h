// The gradient rules of the scatters (autodiff/vjp_rules.h's table names them).
#pragma once

#include "autodiff/vjp_rules.h"

namespace lazy::autodiff {

InputCotangents scatter_add_vjp(const VjpArgs& a);
InputCotangents scatter_last_vjp(const VjpArgs& a);

}  // namespace lazy::autodiff

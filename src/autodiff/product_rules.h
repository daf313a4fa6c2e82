// The gradient rule of a matrix product (autodiff/vjp_rules.h's table names it).
#pragma once

#include "autodiff/vjp_rules.h"

namespace lazy::autodiff {

InputCotangents matmul_vjp(const VjpArgs& a);

}  // namespace lazy::autodiff

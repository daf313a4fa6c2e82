// The generator's order-statistic steps (generation 7): median, nanmedian and kthvalue along an
// axis (values or positions), median and nanmedian of every element, quantile and nanquantile
// in each interpolation (along an axis or of every element), and cdist of x with itself.
#pragma once

#include "tools/fuzz/growing_program.h"

namespace lazy::fuzz {

void add_order_statistic(GrowingProgram& g, int x);

}  // namespace lazy::fuzz

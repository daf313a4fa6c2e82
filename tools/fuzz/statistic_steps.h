// The generator's NaN-skipping and norm reductions (generation 9): nansum, nanmean, count_nonzero
// and vector_norm (of order 2, 1, 3, 0, infinity or -infinity) over some axes.
#pragma once

#include "tools/fuzz/growing_program.h"

namespace lazy::fuzz {

void add_statistic(GrowingProgram& g, int x);

}  // namespace lazy::fuzz

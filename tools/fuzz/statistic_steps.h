// The generator's NaN-skipping and norm reductions (generation 9): nansum, nanmean, count_nonzero
// and vector_norm (of order 2, 1, 3, 0, infinity or -infinity) over some axes; trace of a 2-d x
// (generation 11).
#pragma once

#include "tools/fuzz/growing_program.h"

namespace lazy::fuzz {

void add_statistic(GrowingProgram& g, int x);

}  // namespace lazy::fuzz

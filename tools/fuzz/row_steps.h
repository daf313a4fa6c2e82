// The generator's row ops (generation 10): glu halving an axis of even size, normalize and
// cosine_similarity (against a new leaf of x's shape and dtype) along an axis.
#pragma once

#include "tools/fuzz/growing_program.h"

namespace lazy::fuzz {

void add_row_op(GrowingProgram& g, int x);

}  // namespace lazy::fuzz

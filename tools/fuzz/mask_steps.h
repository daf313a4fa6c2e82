// The generator's mask steps (generation 4): tril or triu of a tensor of rank 2 or more, or
// masked_fill with a bool mask that broadcasts with x and a number of x's kind.
#pragma once

#include "tools/fuzz/growing_program.h"

namespace lazy::fuzz {

void add_mask(GrowingProgram& g, int x);

}  // namespace lazy::fuzz

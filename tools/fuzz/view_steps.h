// The generator's strided views (generation 9): flip along some axes (negative strides),
// diagonal of two axes (their strides summed), narrow, and one piece of chunk, split or unbind
// (an offset into the axis).
#pragma once

#include "tools/fuzz/growing_program.h"

namespace lazy::fuzz {

void add_strided_view(GrowingProgram& g, int x);

}  // namespace lazy::fuzz

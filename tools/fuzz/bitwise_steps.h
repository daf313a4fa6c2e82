// The generator's bitwise steps (generation 5): and, or, xor, not and the shifts of an integer
// or bool tensor (a floating one is cast to an integer dtype first), with an integer or bool
// partner or a number; shift counts reach past the dtype's width and below 0.
#pragma once

#include "tools/fuzz/growing_program.h"

namespace lazy::fuzz {

void add_bitwise(GrowingProgram& g, int x);

}  // namespace lazy::fuzz

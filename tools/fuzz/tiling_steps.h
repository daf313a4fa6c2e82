// The generator's tiling steps (generation 6): roll (along axes, or flattened), repeat and tile
// (counts of 0 to 3, extra leading axes), and pad in its four modes with negative padding among
// them; padding changes the last axis's size, and a second pair, when drawn, keeps its axis's.
#pragma once

#include "tools/fuzz/growing_program.h"

namespace lazy::fuzz {

void add_tiling(GrowingProgram& g, int x);

}  // namespace lazy::fuzz

// What a data leaf's values may be, from how they are drawn (program.h's DataSpec).
#pragma once

#include "tools/fuzz/bounds.h"
#include "tools/fuzz/program.h"

namespace lazy::fuzz {

// The range (holding 0 when specials may give -0), the grid, and whether NaN or infinities may
// occur.
Bounds data_bounds(const DataSpec& data, DType dtype);

}  // namespace lazy::fuzz

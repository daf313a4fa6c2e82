// The generator's indexing and ordering steps: cat and stack, the four gathers, scans, sort and
// top-k, and the scatters, their index tensors new leaves whose values stay inside the axis.
#pragma once

#include "tools/fuzz/growing_program.h"

namespace lazy::fuzz {

void add_ordering(GrowingProgram& g, int x);
void add_join(GrowingProgram& g, int x);
void add_gather(GrowingProgram& g, int x);
void add_scatter(GrowingProgram& g, int x);

}  // namespace lazy::fuzz

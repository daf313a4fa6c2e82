// The generator's indexing and ordering steps: cat and stack, the four gathers, scans, sort and
// top-k, and the scatters, their index tensors new leaves whose values stay inside the axis.
#pragma once

#include "tools/fuzz/growing_program.h"

namespace lazy::fuzz {

void add_ordering(GrowingProgram& g, int x);
void add_join(GrowingProgram& g, int x);
void add_gather(GrowingProgram& g, int x);
void add_scatter(GrowingProgram& g, int x);

// A new leaf of i32 or i64 indices whose values stay inside `bound` (Step::index_bound) however
// the sizes shrink; its shape is the caller's to set.
Step index_leaf(GrowingProgram& g, const Dim& bound);

}  // namespace lazy::fuzz

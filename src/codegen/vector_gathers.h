// Gathers read as one vector load per group of a pointwise kernel: where every element of a group
// picks the same index (an embedding's row) and reads consecutive, aligned elements from there,
// the group reads them with one 16-byte load instead of one load per element.
#pragma once

#include <span>
#include <vector>

#include "codegen/iteration_space.h"
#include "fuse/partition.h"

namespace lazy::codegen {

struct VectorGathers {
  std::vector<bool> gathers;  // by term: a gather read as one vector per group
  // By term: computed once per group before its elements, as a vector gather's index needs it
  // (every such term has the same value for the whole group).
  std::vector<bool> hoisted;
};

// For a pointwise region walked in groups of space.vector_width; `access_of_term` indexes
// space.accesses by term (-1: none); `uniform` marks terms computed once per kernel.
VectorGathers plan_vector_gathers(const fuse::Region& region, const IterationSpace& space,
                                  std::span<const int> access_of_term,
                                  const std::vector<bool>& uniform);

}  // namespace lazy::codegen

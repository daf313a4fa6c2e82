// Which terms of a pointwise or reduction kernel hold the same value for every element, so the
// kernel computes them once before its loop, and which terms each part of a concatenation needs.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include "codegen/iteration_space.h"
#include "fuse/partition.h"

namespace lazy::codegen {

struct UniformTerms {
  std::vector<bool> uniform;  // by term
  // By part of the concatenation (one entry where there is none): the terms its elements need.
  std::vector<std::vector<bool>> computed;
};

// `access_of_term`: by term, its access in `space`, or -1; `concat`: the concatenation's term;
// `select`: the region has several, each branching where it is read (select_statements).
UniformTerms plan_uniform_terms(const fuse::Region& region, const IterationSpace& space,
                                std::span<const int> access_of_term,
                                std::optional<std::size_t> concat, bool select);

}  // namespace lazy::codegen

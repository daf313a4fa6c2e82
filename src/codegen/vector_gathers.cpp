#include "codegen/vector_gathers.h"

#include "codegen/concat_parts.h"

namespace lazy::codegen {

namespace {

// By term: the same value for every element of a group (uniform terms included).
std::vector<bool> same_across_group(const fuse::Region& region, const IterationSpace& space,
                                    std::span<const int> access_of_term,
                                    const std::vector<bool>& uniform) {
  using fuse::Term;
  std::vector<bool> same(region.terms.size(), false);
  for (std::size_t t = 0; t < region.terms.size(); ++t) {
    const Term& term = region.terms[t];
    if (uniform[t] || term.kind == Term::Kind::scalar) {
      same[t] = true;
      continue;
    }
    if (term.concat || term.gather) continue;
    bool operands_same = true;
    for (int i = 0; i < term.n_operands; ++i)
      operands_same = operands_same && same[term.operands[i]];
    if (term.kind == Term::Kind::op) {
      same[t] = operands_same;
    } else if (term.kind == Term::Kind::load || term.kind == Term::Kind::generator) {
      const AccessPlan& plan = space.accesses[access_of_term[t]];
      same[t] = operands_same && plan.mode == AccessMode::strided && plan.strides.back() == 0;
    }
  }
  return same;
}

// Whether gather t's group reads `width` consecutive elements from an address aligned to them.
bool reads_aligned_run(const fuse::Term& term, const AccessPlan& plan, int width) {
  return term.gather->stride % width == 0 && reads_aligned_groups(plan, width);
}

}  // namespace

VectorGathers plan_vector_gathers(const fuse::Region& region, const IterationSpace& space,
                                  std::span<const int> access_of_term,
                                  const std::vector<bool>& uniform) {
  const std::size_t n = region.terms.size();
  VectorGathers out{std::vector<bool>(n, false), std::vector<bool>(n, false)};
  // A kernel of several concatenations gathers element by element (select_kernel.h).
  if (space.vector_width == 1 || region.reduction || region.row || several_concatenations(region))
    return out;
  const std::vector<bool> same = same_across_group(region, space, access_of_term, uniform);
  for (std::size_t t = 0; t < n; ++t) {
    const fuse::Term& term = region.terms[t];
    if (!term.gather || uniform[t] || !same[term.gather->index]) continue;
    if (!reads_aligned_run(term, space.accesses[access_of_term[t]], space.vector_width)) continue;
    out.gathers[t] = true;
    out.hoisted[term.gather->index] = !uniform[term.gather->index];
  }
  // What a hoisted term reads is hoisted too (terms come after their operands).
  for (std::size_t t = n; t-- > 0;) {
    if (!out.hoisted[t]) continue;
    const fuse::Term& term = region.terms[t];
    for (int i = 0; i < term.n_operands; ++i)
      if (!uniform[term.operands[i]]) out.hoisted[term.operands[i]] = true;
  }
  return out;
}

}  // namespace lazy::codegen

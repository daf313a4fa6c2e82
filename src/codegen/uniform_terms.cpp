#include "codegen/uniform_terms.h"

#include "codegen/concat_parts.h"

namespace lazy::codegen {

UniformTerms plan_uniform_terms(const fuse::Region& region, const IterationSpace& space,
                                std::span<const int> access_of_term,
                                std::optional<std::size_t> concat, bool select) {
  using fuse::Term;
  UniformTerms out;
  std::vector<bool>& uniform = out.uniform;
  uniform.assign(region.terms.size(), false);
  auto uniform_access = [&](std::size_t t) {
    return space.accesses[access_of_term[t]].mode == AccessMode::uniform;
  };
  for (std::size_t t = 0; t < region.terms.size(); ++t) {
    const Term& term = region.terms[t];
    switch (term.kind) {
      case Term::Kind::scalar:
        uniform[t] = true;
        break;
      case Term::Kind::load:
      case Term::Kind::generator:
        uniform[t] = uniform_access(t) && (!term.gather || uniform[term.gather->index]);
        break;
      case Term::Kind::reduced:  // only in row regions, which plan their own
        break;
      case Term::Kind::op:
        uniform[t] = !term.concat;
        for (int i = 0; i < term.n_operands; ++i)
          uniform[t] = uniform[t] && uniform[term.operands[i]];
        break;
    }
    if (term.kind == Term::Kind::generator) {
      for (int i = 0; i < term.n_operands; ++i)
        uniform[t] = uniform[t] && uniform[term.operands[i]];
    }
  }
  out.computed.assign(1, terms_of_part(region, -1));
  if (select) {
    // Only what is read outside every concatenation's parts is computed before the loop.
    const std::vector<bool> outside = terms_outside_parts(region, region.root_terms);
    for (std::size_t t = 0; t < region.terms.size(); ++t)
      if (region.terms[t].kind != Term::Kind::scalar) uniform[t] = uniform[t] && outside[t];
  }
  if (!concat) return out;
  // Computed once before the loop only where every part needs it: a part's own loads may read
  // outside their tensor where another part's elements lie.
  const std::size_t parts = region.terms[*concat].concat->parts.size();
  out.computed.clear();
  for (std::size_t k = 0; k < parts; ++k) out.computed.push_back(terms_of_part(region, int(k)));
  for (std::size_t t = 0; t < region.terms.size(); ++t) {
    if (region.terms[t].kind == Term::Kind::scalar) continue;  // an argument, read anywhere
    for (std::size_t k = 0; k < parts; ++k) uniform[t] = uniform[t] && out.computed[k][t];
  }
  return out;
}

}  // namespace lazy::codegen

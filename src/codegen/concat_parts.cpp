#include "codegen/concat_parts.h"

namespace lazy::codegen {

bool groups_stay_in_one_part(const AccessPlan& plan, const fuse::Term::Concat& concat, int width) {
  if (plan.mode == AccessMode::uniform) return true;
  if (plan.mode == AccessMode::strided && plan.strides.back() == 0) return true;
  bool aligned = plan.offset % width == 0 && concat.period % width == 0;
  if (plan.mode == AccessMode::strided) {
    aligned = aligned && plan.strides.back() == 1;
    for (std::size_t d = 0; d + 1 < plan.strides.size(); ++d)
      aligned = aligned && plan.strides[d] % width == 0;
  }
  for (std::int64_t end : concat.ends) aligned = aligned && end % width == 0;
  return aligned;
}

std::vector<bool> terms_of_part(const fuse::Region& region, int part) {
  std::vector<bool> needed(region.terms.size(), false);
  for (std::int32_t t : region.root_terms) needed[t] = true;
  for (std::size_t t = region.terms.size(); t-- > 0;) {
    if (!needed[t]) continue;
    const fuse::Term& term = region.terms[t];
    for (int i = 0; i < term.n_operands; ++i) needed[term.operands[i]] = true;
    if (term.gather) needed[term.gather->index] = true;
    if (!term.concat) continue;
    for (std::size_t k = 0; k < term.concat->parts.size(); ++k)
      if (part < 0 || int(k) == part) needed[term.concat->parts[k]] = true;
  }
  return needed;
}

}  // namespace lazy::codegen

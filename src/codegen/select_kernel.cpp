#include "codegen/select_kernel.h"

#include "codegen/element_access.h"
#include "codegen/generated_names.h"
#include "codegen/text.h"

namespace lazy::codegen {

using fuse::Term;

SelectKernel::SelectKernel(const fuse::Region& region, const IterationSpace& space,
                           std::span<const int> access_of_term, std::vector<bool> read_everywhere,
                           std::vector<bool> uniform, const KernelBuilder& builder,
                           bool sizes_compiled,
                           std::function<std::string(std::size_t, bool)> term_statement)
    : region_(region),
      space_(space),
      access_of_term_(access_of_term),
      uniform_(std::move(uniform)),
      builder_(builder),
      sizes_compiled_(sizes_compiled),
      term_statement_(std::move(term_statement)),
      group_vectors_(region.terms.size(), false) {
  if (space.vector_width == 1) return;
  for (std::size_t t = 0; t < region.terms.size(); ++t) {
    group_vectors_[t] = region.terms[t].concat
                            ? reads_part_vectors(region, t, space, access_of_term, builder)
                            : read_everywhere[t] && !uniform_[t];
  }
}

std::vector<bool> SelectKernel::loads_read_everywhere(const fuse::Region& region) {
  std::vector<bool> loads = terms_outside_parts(region, region.root_terms);
  for (std::size_t t = 0; t < region.terms.size(); ++t)
    loads[t] = loads[t] && region.terms[t].kind == Term::Kind::load && !region.terms[t].gather;
  return loads;
}

const AccessPlan& SelectKernel::access(std::size_t t) const {
  return space_.accesses[access_of_term_[t]];
}

SelectWriter SelectKernel::writer(bool element) const {
  if (!element) {
    return {[this](std::size_t t) { return term_statement_(t, false); },
            [this](std::size_t t) { return generator_index(access(t), t, false); },
            [this](std::size_t t) { return raw_element(access(t), t, false); },
            builder_,
            space_.index_32bit,
            sizes_compiled_};
  }
  // A load no vector holds reads its element alone: a part's loads may lie outside their tensor
  // where the group's other elements are.
  return {[this](std::size_t t) {
            const Term& term = region_.terms[t];
            return term.kind == Term::Kind::load && !term.gather && !group_vectors_[t]
                       ? builder_.load_statement(t, lone_element(access(t), t))
                       : term_statement_(t, true);
          },
          [this](std::size_t t) { return generator_index(access(t), t, true); },
          [this](std::size_t t) { return lone_element(access(t), t); },
          builder_,
          space_.index_32bit,
          sizes_compiled_};
}

std::string SelectKernel::element_statements() const {
  return select_statements(region_, region_.root_terms, uniform_, writer(false));
}

std::string SelectKernel::group_loads() const {
  std::string out;
  for (std::size_t t = 0; t < region_.terms.size(); ++t) {
    if (!group_vectors_[t]) continue;
    append(out, region_.terms[t].concat
                    ? part_vector_load(region_, t, space_.vector_width, writer(false))
                    : vector_load(access(t), t, space_.vector_width, "    "));
  }
  return out;
}

std::string SelectKernel::group_element() const {
  std::string out;
  std::vector<bool> done = uniform_;
  for (std::size_t t = 0; t < region_.terms.size(); ++t) {
    if (!group_vectors_[t] || !region_.terms[t].concat) continue;
    append(out, "      ", builder_.concat_declaration(t), "      ",
           builder_.concat_loaded_assignment(t, cat(vector_load_name(t), ".v[e]")));
    done[t] = true;
  }
  return out + select_statements(region_, region_.root_terms, done, writer(true));
}

}  // namespace lazy::codegen

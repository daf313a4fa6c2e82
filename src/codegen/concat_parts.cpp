#include "codegen/concat_parts.h"

#include <algorithm>
#include <limits>

#include "codegen/generated_names.h"
#include "codegen/text.h"

namespace lazy::codegen {
namespace {

constexpr std::int64_t kPositionCap = std::int64_t(1) << 31;

// Whether r<t> lies before where part k ends.
std::string before_end(std::size_t t, std::size_t k, bool index_32bit) {
  return cat("r", t, " < ", index_32bit ? "(unsigned int)" : "", "a.ce", t, "_", k);
}

// p<t>, the element's position in the concatenation, and r<t>, its place in a period.
std::string part_position(std::size_t t, const std::string& position, bool index_32bit,
                          bool sizes_compiled) {
  // With the period compiled in, the compiler divides by it best.
  if (sizes_compiled && index_32bit) {
    return cat("    const unsigned int p", t, " = (unsigned int)(", position, ");\n",
               "    const unsigned int r", t, " = p", t, " % (unsigned int)a.cp", t, ";\n");
  }
  // Most concatenations join their outermost axis: one period, no division.
  if (index_32bit) {
    return cat("    const unsigned int p", t, " = (unsigned int)(", position, ");\n",
               "    const unsigned int r", t, " = p", t, " < (unsigned int)a.cp", t, " ? p", t,
               " : p", t, " - lz_fast_div(p", t, ", a.cpd", t, ") * (unsigned int)a.cp", t, ";\n");
  }
  return cat("    const long long p", t, " = ", position, ";\n", "    const long long r", t, " = p",
             t, " < a.cp", t, " ? p", t, " : p", t, " - p", t, " / a.cp", t, " * a.cp", t, ";\n");
}

// The address of part k's element, picked by r<t>: one load follows, which the compiler issues
// with the others rather than behind a branch. Empty unless every part is a plain load of the
// concatenation's dtype (a roll, a pad's copy, a cat of tensors).
std::string part_address(const fuse::Region& region, std::size_t t, const SelectWriter& writer) {
  const fuse::Term::Concat& concat = *region.terms[t].concat;
  std::string chain;
  for (std::size_t k = 0; k < concat.parts.size(); ++k) {
    const auto value = std::size_t(concat.parts[k]);
    const fuse::Term& part = region.terms[value];
    if (part.kind != fuse::Term::Kind::load || part.gather ||
        writer.builder.term_dtype(value) != writer.builder.term_dtype(t))
      return {};
    append(chain, k + 1 < concat.parts.size() ? before_end(t, k, writer.index_32bit) + " ? " : "",
           "&", writer.element(value), k + 1 < concat.parts.size() ? " : " : "");
  }
  return chain;
}

}  // namespace

bool several_concatenations(const fuse::Region& region) {
  return std::count_if(region.terms.begin(), region.terms.end(),
                       [](const fuse::Term& term) { return term.concat.has_value(); }) > 1;
}

bool groups_stay_in_one_part(const AccessPlan& plan, const fuse::Term::Concat& concat, int width) {
  if (plan.mode == AccessMode::uniform) return true;
  if (plan.mode == AccessMode::strided && plan.strides.back() == 0) return true;
  bool aligned = reads_aligned_groups(plan, width) && concat.period % width == 0;
  for (std::int64_t end : concat.ends) aligned = aligned && end % width == 0;
  return aligned;
}

void declare_concat_args(std::size_t t, const fuse::Term::Concat& concat, bool index_32bit,
                         bool sizes_compiled, KernelBuilder& builder) {
  // Positions of a 32-bit kernel stay below 2^31 (iteration_space.h), so it compares them in 32
  // bits with a period and ends capped at 2^31: no position reaches a longer one.
  const auto capped = [&](std::int64_t size) {
    return std::uint64_t(index_32bit ? std::min<std::int64_t>(size, kPositionCap) : size);
  };
  // A period of 0 (no element) reads as 1: a compiled-in modulo must not divide by 0.
  builder.constant(cat("cp", t), std::max<std::uint64_t>(capped(concat.period), 1));
  if (index_32bit && !sizes_compiled) {
    const std::int64_t divisor = std::clamp<std::int64_t>(concat.period, 1, kPositionCap - 1);
    builder.constant(cat("cpd", t), fast_div_constants(std::uint32_t(divisor)),
                     "unsigned long long");
  }
  for (std::size_t k = 0; k < concat.ends.size(); ++k)
    builder.constant(cat("ce", t, "_", k), capped(concat.ends[k]));
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

std::vector<bool> terms_outside_parts(const fuse::Region& region,
                                      std::span<const std::int32_t> roots) {
  std::vector<bool> needed(region.terms.size(), false);
  for (std::int32_t t : roots) needed[t] = true;
  for (std::size_t t = region.terms.size(); t-- > 0;) {
    if (!needed[t]) continue;
    const fuse::Term& term = region.terms[t];
    for (int i = 0; i < term.n_operands; ++i) needed[term.operands[i]] = true;
    if (term.gather) needed[term.gather->index] = true;
  }
  return needed;
}

std::string select_statements(const fuse::Region& region, std::span<const std::int32_t> roots,
                              std::vector<bool> done, const SelectWriter& writer) {
  const std::vector<bool> needed = terms_outside_parts(region, roots);
  std::string out;
  // Operands come before the terms that read them.
  for (std::size_t t = 0; t < region.terms.size(); ++t) {
    if (!needed[t] || done[t]) continue;
    done[t] = true;
    const fuse::Term& term = region.terms[t];
    if (!term.concat) {
      append(out, "    ", writer.statement(t));
      continue;
    }
    append(out, "    ", writer.builder.concat_declaration(t));
    if (const std::string address = part_address(region, t, writer); !address.empty()) {
      append(out, part_position(t, writer.position(t), writer.index_32bit, writer.sizes_compiled),
             "    {\n", "      const auto* q", t, " = ", address, ";\n", "      ",
             writer.builder.concat_loaded_assignment(t, cat("*q", t)), "    }\n");
      continue;
    }
    const auto part = [&](int k) {
      const std::int32_t value = term.concat->parts[std::size_t(k)];
      return select_statements(region, {&value, 1}, done, writer) + "    " +
             writer.builder.concat_assignment(t, k);
    };
    append(out, parts_by_position(t, writer.position(t), term.concat->parts.size(),
                                  writer.index_32bit, writer.sizes_compiled, part));
  }
  return out;
}

std::string parts_by_position(std::size_t t, const std::string& position, std::size_t parts,
                              bool index_32bit, bool sizes_compiled,
                              const std::function<std::string(int)>& body) {
  std::string out = part_position(t, position, index_32bit, sizes_compiled);
  for (std::size_t k = 0; k < parts; ++k) {
    if (k + 1 < parts) {
      append(out, k == 0 ? "    if" : "    } else if", " (", before_end(t, k, index_32bit),
             ") {\n");
    } else {
      append(out, parts == 1 ? "    {\n" : "    } else {\n");
    }
    append(out, body(int(k)));
  }
  append(out, "    }\n");
  return out;
}

bool reads_part_vectors(const fuse::Region& region, std::size_t t, const IterationSpace& space,
                        std::span<const int> access_of_term, const KernelBuilder& builder) {
  const int width = space.vector_width;
  const fuse::Term::Concat& concat = *region.terms[t].concat;
  if (width == 1 || !groups_stay_in_one_part(space.accesses[access_of_term[t]], concat, width))
    return false;
  for (const std::int32_t value : concat.parts) {
    const fuse::Term& part = region.terms[std::size_t(value)];
    if (part.kind != fuse::Term::Kind::load || part.gather ||
        builder.term_dtype(std::size_t(value)) != builder.term_dtype(t))
      return false;
    if (!reads_aligned_groups(space.accesses[access_of_term[value]], width)) return false;
  }
  return true;
}

std::string part_vector_load(const fuse::Region& region, std::size_t t, int width,
                             const SelectWriter& writer) {
  return cat(part_position(t, writer.position(t), writer.index_32bit, writer.sizes_compiled),
             "    const auto* q", t, " = ", part_address(region, t, writer), ";\n",
             "    const auto ", vector_load_name(t), " = lz_load_vec<", width, ">(q", t, ");\n");
}

}  // namespace lazy::codegen

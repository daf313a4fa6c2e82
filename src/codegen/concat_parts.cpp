#include "codegen/concat_parts.h"

#include <algorithm>
#include <limits>

#include "codegen/text.h"

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

void declare_concat_args(std::size_t t, const fuse::Term::Concat& concat, bool index_32bit,
                         KernelBuilder& builder) {
  builder.constant(cat("cp", t), std::uint64_t(concat.period));
  if (index_32bit) {
    // Positions of a 32-bit kernel stay below 2^31: a longer period is never divided by.
    const std::int64_t divisor =
        std::clamp<std::int64_t>(concat.period, 1, std::numeric_limits<std::int32_t>::max());
    builder.constant(cat("cpd", t), fast_div_constants(std::uint32_t(divisor)),
                     "unsigned long long");
  }
  for (std::size_t k = 0; k < concat.ends.size(); ++k)
    builder.constant(cat("ce", t, "_", k), std::uint64_t(concat.ends[k]));
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
    append(out, "    ", writer.declaration(t));
    const auto part = [&](int k) {
      const std::int32_t value = term.concat->parts[std::size_t(k)];
      return select_statements(region, {&value, 1}, done, writer) + "    " +
             writer.assignment(t, k);
    };
    append(out, parts_by_position(t, writer.position(t), term.concat->parts.size(),
                                  writer.index_32bit, part));
  }
  return out;
}

std::string parts_by_position(std::size_t t, const std::string& position, std::size_t parts,
                              bool index_32bit, const std::function<std::string(int)>& body) {
  // Most concatenations join their outermost axis: one period, no division. Where a 32-bit
  // kernel divides, the period is at most the position, below 2^31: its product is 32-bit too.
  const std::string multiple = index_32bit ? cat("(long long)(lz_fast_div((unsigned int)p", t,
                                                 ", a.cpd", t, ") * (unsigned int)a.cp", t, ")")
                                           : cat("p", t, " / a.cp", t, " * a.cp", t);
  std::string out = cat("    const long long p", t, " = ", position, ";\n", "    const long long r",
                        t, " = p", t, " < a.cp", t, " ? p", t, " : p", t, " - ", multiple, ";\n");
  for (std::size_t k = 0; k < parts; ++k) {
    if (k + 1 < parts) {
      append(out, k == 0 ? "    if" : "    } else if", " (r", t, " < a.ce", t, "_", k, ") {\n");
    } else {
      append(out, parts == 1 ? "    {\n" : "    } else {\n");
    }
    append(out, body(int(k)));
  }
  append(out, "    }\n");
  return out;
}

}  // namespace lazy::codegen

#include "codegen/element_access.h"

#include "codegen/generated_names.h"

namespace lazy::codegen {

std::string raw_element(const AccessPlan& plan, std::size_t t, bool vector) {
  if (vector && plan.unaligned) return lone_element(plan, t);
  switch (plan.mode) {
    case AccessMode::uniform:
      return cat(input_name(t), "[a.off", t, "]");
    case AccessMode::dense:
      return vector ? cat(vector_load_name(t), ".v[e]")
                    : cat(input_name(t), "[(Offset)a.off", t, " + (Offset)i]");
    case AccessMode::strided:
      if (!vector) return cat(input_name(t), "[o", t, "]");
      if (plan.strides.back() == 1) return cat(vector_load_name(t), ".v[e]");
      if (plan.strides.back() == 0) return vector_load_name(t);
      return cat(input_name(t), "[o", t, " + (Offset)e * (Offset)a.st", t, "_",
                 plan.strides.size() - 1, "]");
  }
  return {};
}

std::string lone_element(const AccessPlan& plan, std::size_t t) {
  switch (plan.mode) {
    case AccessMode::uniform:
      return cat(input_name(t), "[a.off", t, "]");
    case AccessMode::dense:
      return cat(input_name(t), "[(Offset)a.off", t, " + (Offset)i + (Offset)e]");
    case AccessMode::strided:
      return cat(input_name(t), "[o", t, " + (Offset)e * (Offset)a.st", t, "_",
                 plan.strides.size() - 1, "]");
  }
  return {};
}

std::string gather_base(const AccessPlan& plan, std::size_t t, bool vector) {
  const std::string e = vector ? " + (long long)e" : "";
  switch (plan.mode) {
    case AccessMode::uniform:
      return cat("(long long)a.off", t);
    case AccessMode::dense:
      return cat("((long long)a.off", t, " + (long long)i", e, ")");
    case AccessMode::strided:
      if (!vector || plan.strides.back() == 0) return cat("(long long)o", t);
      if (plan.strides.back() == 1) return cat("((long long)o", t, e, ")");
      return cat("((long long)o", t, " + (long long)e * a.st", t, "_", plan.strides.size() - 1,
                 ")");
  }
  return {};
}

std::string generator_index(const AccessPlan& plan, std::size_t t, bool vector) {
  std::string e = vector ? " + e" : "";
  switch (plan.mode) {
    case AccessMode::uniform:
      return cat("a.off", t);
    case AccessMode::dense:
      return cat("a.off", t, " + (long long)i", e);
    case AccessMode::strided:
      if (!vector) return cat("(long long)o", t);
      return cat("(long long)o", t, " + (long long)e * a.st", t, "_", plan.strides.size() - 1);
  }
  return {};
}

std::string vector_load(const AccessPlan& plan, std::size_t t, int width, std::string_view indent) {
  const bool strided = plan.mode == AccessMode::strided;
  const bool unit = strided && (plan.strides.back() == 0 || plan.strides.back() == 1);
  if ((plan.mode != AccessMode::dense && !unit) || plan.unaligned) return {};
  if (strided && plan.strides.back() == 0)
    return cat(indent, "const auto ", vector_load_name(t), " = ", input_name(t), "[o", t, "];\n");
  const std::string at = strided ? cat(" + o", t) : cat(" + (Offset)a.off", t, " + (Offset)i");
  return cat(indent, "const auto ", vector_load_name(t), " = lz_load_vec<", width, ">(",
             input_name(t), at, ");\n");
}

void declare_multi_index_args(const IterationSpace& space, KernelBuilder& builder) {
  if (!space.needs_multi_index()) return;
  for (std::size_t d = 1; d < space.dims.size(); ++d) {
    builder.constant(cat("size", d), std::uint64_t(space.dims[d]));
    // Only 32-bit kernels divide through these, and only there do the sizes fit 32 bits (a
    // merged size of 2^32 made a divisor of 0).
    if (space.index_32bit) {
      builder.constant(cat("div", d), fast_div_constants(std::uint32_t(space.dims[d])),
                       "unsigned long long");
    }
  }
}

std::string group_offsets(const IterationSpace& space, std::span<const int> access_of_term,
                          std::string_view offset_name, std::string_view indent) {
  if (!space.needs_multi_index()) return {};
  const int rank = int(space.dims.size());
  std::string out = cat(indent, "Index rest = i;\n");
  for (int d = rank - 1; d >= 1; --d) {
    std::string quotient =
        space.index_32bit ? cat("lz_fast_div(rest, a.div", d, ")") : cat("rest / (Index)a.size", d);
    append(out, indent, "const Index q", d, " = ", quotient, ";\n", indent, "const Index c", d,
           " = rest - q", d, " * (Index)a.size", d, ";\n", indent, "rest = q", d, ";\n");
  }
  append(out, indent, "const Index c0 = rest;\n");
  for (std::size_t t = 0; t < access_of_term.size(); ++t) {
    if (access_of_term[t] < 0 || space.accesses[access_of_term[t]].mode != AccessMode::strided)
      continue;
    append(out, indent, "const Offset ", offset_name, t, " = (Offset)a.off", t);
    for (int d = 0; d < rank; ++d) append(out, " + (Offset)c", d, " * (Offset)a.st", t, "_", d);
    append(out, ";\n");
  }
  return out;
}

}  // namespace lazy::codegen

#include "codegen/element_access.h"

#include "codegen/generated_names.h"

namespace lazy::codegen {

std::string raw_element(const AccessPlan& plan, std::size_t t, bool vector) {
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

}  // namespace lazy::codegen

#include "tools/fuzz/data_leaf.h"

namespace lazy::fuzz {

Tensor data_leaf(const DataSpec& data, DType dtype, const Shape& shape, std::source_location loc) {
  const std::int64_t n = shape.numel();
  const auto leaf = [&](const auto& values) {
    return leaf_of(values, shape, dtype, data.external, loc);
  };
  if (is_floating(dtype))
    return leaf(fz_floats(data.key, n, data.lo, data.hi, data.quantum, data.special));
  if (dtype == DType::bool_) return leaf(fz_bools(data.key, n, data.bool_percent));
  return leaf(fz_ints(data.key, n, std::int64_t(data.lo), std::int64_t(data.hi)));
}

}  // namespace lazy::fuzz

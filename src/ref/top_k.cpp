#include "ref/top_k.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "ref/fold_values.h"

namespace lazy::ref {

namespace {

// Each row's first k positions in the order `largest` asks for, stably.
template <class T>
std::vector<std::int64_t> best_positions(const std::vector<T>& values, std::int64_t extent,
                                         std::int64_t k, bool largest) {
  auto before = [largest](T a, T b) {
    if (is_nan(a) || is_nan(b)) return largest ? !is_nan(b) : !is_nan(a);
    return largest ? a > b : a < b;
  };
  std::vector<std::int64_t> out;
  std::vector<std::int64_t> order(std::size_t(extent), 0);
  for (std::size_t start = 0; start < values.size(); start += std::size_t(extent)) {
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
      return before(values[start + std::size_t(a)], values[start + std::size_t(b)]);
    });
    out.insert(out.end(), order.begin(), order.begin() + k);
  }
  return out;
}

}  // namespace

Value evaluate_top_k(const ir::Node& node, const Value& input) {
  const Shape& in = node.inputs[0]->shape;
  const std::int64_t extent = in[in.rank() - 1], k = node.attrs[0];
  const bool largest = node.attrs[1] != 0;
  auto out = std::make_shared<Buffer>(node.dtype, node.shape.numel());
  const DType dtype = node.inputs[0]->dtype;
  const bool indices = node.op == ir::Op::TopKIndex;
  if (extent > 0 && is_floating(dtype)) {
    const std::vector<double> values = gather_floats(input, in, dtype);
    const std::vector<std::int64_t> at = best_positions(values, extent, k, largest);
    for (std::size_t i = 0; i < at.size(); ++i) {
      const std::size_t row_start = i / std::size_t(k) * std::size_t(extent);
      if (indices) {
        out->ints[i] = at[i];
      } else {
        out->floats[i] = values[row_start + std::size_t(at[i])];
      }
    }
  } else if (extent > 0) {
    const std::vector<std::int64_t> values = gather_ints(input, in, dtype);
    const std::vector<std::int64_t> at = best_positions(values, extent, k, largest);
    for (std::size_t i = 0; i < at.size(); ++i) {
      const std::size_t row_start = i / std::size_t(k) * std::size_t(extent);
      out->ints[i] = indices ? at[i] : values[row_start + std::size_t(at[i])];
    }
  }
  return {std::move(out), ir::Layout::contiguous(node.shape)};
}

}  // namespace lazy::ref

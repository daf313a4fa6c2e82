// Ops the IR defines over the last axis only (scans, top-k), recorded for any axis: the input's
// axis moved last, and the result's last axis moved back (permutes: views, no copy).
#pragma once

#include <source_location>
#include <vector>

#include "lazy/tensor.h"

namespace lazy::api {

inline std::vector<int> axis_last_order(int rank, int axis) {
  std::vector<int> order;
  for (int a = 0; a < rank; ++a)
    if (a != axis) order.push_back(a);
  order.push_back(axis);
  return order;
}

// x with `axis` moved last (x itself when it is).
inline Tensor axis_to_last(const Tensor& x, int axis, std::source_location loc) {
  const int rank = x.rank(loc);
  return axis == rank - 1 ? x : x.permute(axis_last_order(rank, axis), loc);
}

// The inverse of axis_to_last: t's last axis moved back to `axis`.
inline Tensor last_to_axis(const Tensor& t, int axis, std::source_location loc) {
  const int rank = t.rank(loc);
  if (axis == rank - 1) return t;
  const std::vector<int> order = axis_last_order(rank, axis);
  std::vector<int> back(order.size(), 0);
  for (int a = 0; a < rank; ++a) back[std::size_t(order[std::size_t(a)])] = a;
  return t.permute(back, loc);
}

}  // namespace lazy::api

// median, nanmedian and kthvalue: the element at one position of the stable sort along an axis,
// read with take_along_axis so that its gradient reaches that element.
#include <cstdint>
#include <limits>

#include "api/composites.h"
#include "lazy/autodiff.h"
#include "lazy/factories.h"
#include "lazy/indexing.h"
#include "lazy/ordering.h"

namespace lazy {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

void refuse_bool(const ir::Node* node, const char* op, std::source_location loc) {
  if (node->dtype == DType::bool_) {
    api::fail<DTypeError>(loc, op, "does not take bool tensors, as PyTorch's; cast to i32 first");
  }
}

// Refuses what PyTorch's median and kthvalue refuse: bool, and an empty axis (which has no
// element to pick); returns the axis normalized, 0 for a 0-d x.
int checked_axis(const ir::Node* node, int axis, const char* op, std::source_location loc) {
  refuse_bool(node, op, loc);
  const int rank = node->shape.rank();
  axis = api::normalize_axis(axis, rank > 0 ? rank : 1, op, loc);
  if (rank > 0 && node->shape[axis] == 0) {
    api::fail<ShapeError>(loc, op, "axis ", axis, " of ", node->shape.to_string(),
                          " is empty: there is no element to pick");
  }
  return axis;
}

// The element at sorted position `position` (i64, x's shape with the axis as 1) along `axis`,
// and where it was. The value is read from x, not from the sort, whose GPU kernel returns -0 as 0.
ValuesAndIndices at_sorted_position(const Tensor& x, const Tensor& position, int axis, bool keepdim,
                                    std::source_location loc) {
  if (x.shape().rank() == 0) return {x, zeros({}, DType::i64, loc)};
  Tensor indices = take_along_axis(argsort(x, axis, false, loc), position, axis, loc);
  Tensor values = take_along_axis(x, indices, axis, loc);
  if (!keepdim) return {values.squeeze(axis, loc), indices.squeeze(axis, loc)};
  return {values, indices};
}

// x's shape with `axis` as 1 (a 0-d x's own).
Shape kept_shape(const Tensor& x, int axis) {
  Shape shape = x.shape();
  if (shape.rank() > 0) shape[axis] = 1;
  return shape;
}

// The sorted position of the median along `axis`: (n - 1) / 2 of the n elements counted (those
// not NaN, with skip_nan), or where NaN starts when median meets one.
Tensor median_position(const Tensor& x, int axis, bool skip_nan, std::source_location loc) {
  const std::int64_t n = x.shape().rank() > 0 ? x.shape()[axis] : 1;
  if (!is_floating(x.dtype())) return full(kept_shape(x, axis), (n - 1) / 2, DType::i64, loc);
  const Tensor nan_count = sum(isnan(x, loc), axis, true, loc);
  if (skip_nan) {
    const Tensor counted = sub(n, nan_count, loc);
    // A row of only NaN reads position 0, its first NaN.
    return where(gt(counted, 0, loc), floor_divide(sub(counted, 1, loc), 2, loc), 0, loc);
  }
  return where(gt(nan_count, 0, loc), sub(n, nan_count, loc), (n - 1) / 2, loc);
}

ValuesAndIndices median_along(const Tensor& x, int axis, bool keepdim, bool skip_nan,
                              const char* op, std::source_location loc) {
  api::sync_if_trace_full();
  axis = checked_axis(api::node_of(x, op, loc), axis, op, loc);
  return at_sorted_position(x, median_position(x, axis, skip_nan, loc), axis, keepdim, loc);
}

// The median of every element. Its value is the sort's; its gradient is shared by the elements
// equal to it, as PyTorch's: a max over the elements at most the median (a min over those at
// least it, for -inf, where the max's filler would tie) shares its gradient that way, and a
// NaN median shares it among the NaNs.
Tensor median_of_all(const Tensor& x, bool skip_nan, const char* op, std::source_location loc) {
  api::sync_if_trace_full();
  const ir::Node* node = api::node_of(x, op, loc);
  refuse_bool(node, op, loc);
  if (node->shape.numel() == 0) {
    if (!is_floating(node->dtype)) {
      api::fail<ValueError>(loc, op, "of an empty integer tensor has no value to give");
    }
    return full({}, std::numeric_limits<double>::quiet_NaN(), node->dtype, loc);
  }
  const Tensor flat = x.reshape({-1}, loc);
  const Tensor median =
      at_sorted_position(flat, median_position(flat, 0, skip_nan, loc), 0, false, loc).values;
  if (!is_floating(node->dtype)) return median;
  const Tensor picked = stop_gradient(median, loc);
  const Tensor below = max(where(le(x, picked, loc), x, -kInfinity, loc), {}, false, loc);
  const Tensor above = min(where(ge(x, picked, loc), x, kInfinity, loc), {}, false, loc);
  const Tensor nan = isnan(x, loc);
  const Tensor nan_count = sum(nan, {}, false, loc);
  const Tensor nan_share =
      div(sum(where(nan, x, 0.0, loc), {}, false, loc), maximum(nan_count, 1, loc), loc);
  const Tensor finite_share = where(eq(picked, -kInfinity, loc), above, below, loc);
  const Tensor share = where(isnan(picked, loc), nan_share, finite_share, loc);
  // The share is the pick but for the sign of a zero (the max of 0 and -0 may be either): there
  // the pick with the share's gradient, picked - (share - share) keeping the pick's sign.
  const Tensor kept_sign = sub(picked, sub(stop_gradient(share, loc), share, loc), loc);
  return where(eq(picked, 0.0, loc), kept_sign, share, loc);
}

}  // namespace

ValuesAndIndices median(const Tensor& x, int axis, bool keepdim, std::source_location loc) {
  return median_along(x, axis, keepdim, false, "median", loc);
}

Tensor median(const Tensor& x, std::source_location loc) {
  return median_of_all(x, false, "median", loc);
}

ValuesAndIndices nanmedian(const Tensor& x, int axis, bool keepdim, std::source_location loc) {
  return median_along(x, axis, keepdim, true, "nanmedian", loc);
}

Tensor nanmedian(const Tensor& x, std::source_location loc) {
  return median_of_all(x, true, "nanmedian", loc);
}

ValuesAndIndices kthvalue(const Tensor& x, std::int64_t k, int axis, bool keepdim,
                          std::source_location loc) {
  api::sync_if_trace_full();
  const ir::Node* node = api::node_of(x, "kthvalue", loc);
  axis = checked_axis(node, axis, "kthvalue", loc);
  const std::int64_t n = node->shape.rank() > 0 ? node->shape[axis] : 1;
  if (k < 1 || k > n) {
    api::fail<ValueError>(loc, "kthvalue", "k = ", k, " is outside [1, ", n, "], the size of axis ",
                          axis, " of ", node->shape.to_string());
  }
  return at_sorted_position(x, full(kept_shape(x, axis), k - 1, DType::i64, loc), axis, keepdim,
                            loc);
}

}  // namespace lazy

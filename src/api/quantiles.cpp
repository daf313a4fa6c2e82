// quantile and nanquantile, as PyTorch computes them: x sorted along the axis, each quantile's
// rank q * (n - 1) in f32 (n counting the elements that are not NaN, for nanquantile), and the
// elements around the rank read with take_along_axis, so gradients reach them.
#include <cstdint>
#include <optional>
#include <vector>

#include "api/composites.h"
#include "lazy/factories.h"
#include "lazy/indexing.h"
#include "lazy/ordering.h"

namespace lazy {

namespace {

// The elements of x at sorted positions `position` along `axis`, `order` being x's argsort: read
// from x, as PyTorch's sort returns them (the GPU sort's values give -0 as 0).
Tensor sorted_at(const Tensor& x, const Tensor& order, const Tensor& position, int axis,
                 std::source_location loc) {
  return take_along_axis(x, take_along_axis(order, position, axis, loc), axis, loc);
}

// The quantile at `rank` (f32, the axis kept as 1) of x along `axis`, `order` its argsort.
Tensor at_rank(const Tensor& x, const Tensor& order, Tensor rank, int axis,
               QuantileInterpolation interpolation, std::source_location loc) {
  using enum QuantileInterpolation;
  if (interpolation == lower) rank = floor(rank, loc);
  if (interpolation == higher) rank = ceil(rank, loc);
  if (interpolation == nearest) rank = round(rank, loc);
  const Tensor below = rank.to(DType::i64, loc);  // the rank is at least 0: truncation floors it
  const Tensor at_below = sorted_at(x, order, below, axis, loc);
  if (interpolation != linear && interpolation != midpoint) return at_below;
  const Tensor at_above = sorted_at(x, order, ceil(rank, loc).to(DType::i64, loc), axis, loc);
  if (interpolation == midpoint) return lerp(at_below, at_above, 0.5, loc);
  return lerp(at_below, at_above, sub(rank, below, loc), loc);
}

Tensor quantiles(const Tensor& x, const std::vector<double>& qs, bool one_q,
                 std::optional<int> axis, bool keepdim, QuantileInterpolation interpolation,
                 bool skip_nan, const char* op, std::source_location loc) {
  api::sync_if_trace_full();
  const ir::Node* node = api::node_of(x, op, loc);
  if (node->dtype != DType::f32) {
    api::fail<DTypeError>(loc, op, "takes f32 tensors (PyTorch's takes float and double), got ",
                          dtype_name(node->dtype), "; cast it with .to(lazy::f32) first");
  }
  if (node->shape.numel() == 0) {
    api::fail<ValueError>(loc, op, "of an empty tensor (shape ", node->shape.to_string(),
                          ") has no value");
  }
  for (double q : qs) {
    if (!(q >= 0 && q <= 1)) {
      api::fail<ValueError>(loc, op, "q = ", api::number_text(q), " is outside [0, 1]");
    }
  }
  const int rank = node->shape.rank();
  // Each quantile's shape, and the tensor and axis the sort runs over.
  Shape shape;
  Tensor folded = x.reshape({-1}, loc);
  int along = 0;
  if (!axis) {
    if (keepdim)
      for (int i = 0; i < rank; ++i) shape.push_back(1, loc);
  } else {
    along = api::normalize_axis(*axis, rank > 0 ? rank : 1, op, loc);
    if (rank > 0) {
      folded = x;
      for (int i = 0; i < rank; ++i)
        if (i != along || keepdim) shape.push_back(i == along ? 1 : node->shape[i], loc);
    }
  }
  const std::int64_t n = folded.shape()[along];
  // Ranks are f32, as PyTorch's, which refuses the sizes whose positions f32 cannot hold.
  if (n > (std::int64_t(1) << 24)) {
    api::fail<ShapeError>(loc, op, "over ", n, " elements: f32 ranks hold positions up to 2^24, ",
                          "as PyTorch's quantile; use kthvalue, or split the axis");
  }
  const Tensor order = argsort(folded, along, false, loc);
  // PyTorch's ranks: q * (count - 1) in f32, clamped at 0, over the numbers (nanquantile); else
  // q * (n - 1), or n - 1, a NaN's place at the end, where a row holds one.
  const Tensor nan = isnan(folded, loc);
  const Tensor numbers_less_one =
      skip_nan ? sub(sum(logical_not(nan, loc), along, true, loc), 1, loc).to(DType::f32, loc)
               : Tensor();
  const Tensor nan_rows = skip_nan ? Tensor() : any(nan, along, true, loc);
  std::vector<Tensor> results;
  for (double q : qs) {
    const float q_f32 = float(q);
    Tensor at;
    if (skip_nan) {
      const Tensor ranks = mul(numbers_less_one, q_f32, loc);
      at = where(lt(ranks, 0, loc), 0.0, ranks, loc);
    } else {
      const float last = float(n - 1);
      at = where(nan_rows, last, q_f32 * last, loc).to(DType::f32, loc);
    }
    results.push_back(at_rank(folded, order, at, along, interpolation, loc).reshape(shape, loc));
  }
  if (one_q) return results[0];
  if (results.empty()) {
    Shape none{0};
    for (std::int64_t dim : shape) none.push_back(dim, loc);
    return zeros(none, DType::f32, loc);
  }
  return stack(results, 0, loc);
}

}  // namespace

Tensor quantile(const Tensor& x, double q, std::optional<int> axis, bool keepdim,
                QuantileInterpolation interpolation, std::source_location loc) {
  return quantiles(x, {q}, true, axis, keepdim, interpolation, false, "quantile", loc);
}

Tensor quantile(const Tensor& x, const std::vector<double>& q, std::optional<int> axis,
                bool keepdim, QuantileInterpolation interpolation, std::source_location loc) {
  return quantiles(x, q, false, axis, keepdim, interpolation, false, "quantile", loc);
}

Tensor nanquantile(const Tensor& x, double q, std::optional<int> axis, bool keepdim,
                   QuantileInterpolation interpolation, std::source_location loc) {
  return quantiles(x, {q}, true, axis, keepdim, interpolation, true, "nanquantile", loc);
}

Tensor nanquantile(const Tensor& x, const std::vector<double>& q, std::optional<int> axis,
                   bool keepdim, QuantileInterpolation interpolation, std::source_location loc) {
  return quantiles(x, q, false, axis, keepdim, interpolation, true, "nanquantile", loc);
}

}  // namespace lazy

// Reductions, and the composites written from them (mean, var, std, logsumexp, softmax, the
// norms). Each records what it computes, one node per reduction; how a long reduction is run
// (in chunks, in stages) is the partitioner's choice (fuse/split_reductions.h).
#include <cmath>
#include <limits>

#include "api/composite_marks.h"
#include "api/composites.h"
#include "api/recording.h"
#include "api/reduced_shape.h"
#include "ir/type_promotion.h"
#include "lazy/factories.h"
#include "lazy/reductions.h"

namespace lazy {

namespace {

using ir::Op;

using api::reduced_shape;
using api::ReducedShape;

Tensor reduce(Op op, std::string_view name, const Tensor& x, const Axes& axes, bool keepdim,
              DType dtype, DType compute_dtype, std::source_location loc) {
  api::sync_if_trace_full();
  ir::Node* in = api::node_of(x, name, loc);
  ReducedShape reduced = reduced_shape(in->shape, axes, keepdim, name, loc);
  bool needs_elements =
      op == Op::ReduceMax || op == Op::ReduceMin || op == Op::ArgMax || op == Op::ArgMin;
  // Refused even when the result is empty too ([0, 3, 0] over axis 0), as PyTorch and NumPy do.
  if (needs_elements && reduced.extent == 0) {
    api::fail<ValueError>(loc, name, "cannot reduce over an axis of size 0 of ",
                          in->shape.to_string(), ": there is no element to return");
  }
  ir::NodePtr node = ir::make_node(op, dtype, reduced.shape, loc);
  node->compute_dtype = compute_dtype;
  node->attrs.push(std::int64_t(reduced.mask));
  node->attrs.push(keepdim ? 1 : 0);
  node->inputs.push_back(in);
  return api::record(std::move(node));
}

// Integers and bools sum to i64; floating dtypes keep theirs and accumulate in f32.
DType summed_dtype(DType d) {
  return is_floating(d) ? d : DType::i64;
}

// The norms fold the last axis, which a 0-d tensor lacks (its axis 0 or -1 serves reductions
// only, as in PyTorch, where layer_norm's normalized shape must be trailing axes of the input).
void require_last_axis(const Tensor& x, std::string_view name, std::source_location loc) {
  if (x.rank(loc) == 0)
    api::fail<AxisError>(loc, name, "needs a tensor of at least one axis (it normalizes the last)");
}

// A norm's weight or bias holds one value per element of the last axis, as PyTorch's
// normalized_shape: broadcast any other way it would scale across rows or grow the result.
void require_per_feature(const Tensor& x, const Tensor& param, std::string_view what,
                         std::string_view name, std::source_location loc) {
  const Shape& shape = api::node_of(param, name, loc)->shape;
  const std::int64_t features = x.shape()[x.rank() - 1];
  if (shape.rank() != 1 || shape[0] != features) {
    api::fail<ShapeError>(loc, name, what, " has shape ", shape.to_string(), "; it must be [",
                          features, "], one value per element of the last axis of x ",
                          x.shape().to_string());
  }
}

// The number of elements each result folds, as a scalar for dividing by.
std::int64_t folded_count(const Tensor& x, const Axes& axes, std::string_view name,
                          std::source_location loc) {
  return reduced_shape(x.shape(), axes, false, name, loc).extent;
}

// The softmax family's fold over `axes` of v (kept as axes of 1): the shift, which is the max
// (or, with zero_infinite_shift, 0 where that max is infinite), and the sum of exp(v - shift).
// Over long rows the partitioner folds both in chunks (fuse/exp_sum_chunks.h).
struct ExpSum {
  Tensor shift;
  Tensor total;
};

ExpSum exp_sum(const Tensor& v, const Axes& axes, bool zero_infinite_shift,
               std::source_location loc) {
  Tensor largest = max(v, axes, true, loc);
  Tensor shift = zero_infinite_shift ? where(isinf(largest, loc), 0.0, largest, loc) : largest;
  return {shift, sum(exp(sub(v, shift, loc), loc), axes, true, loc)};
}

}  // namespace

Tensor sum(const Tensor& x, const Axes& axes, bool keepdim, std::source_location loc) {
  DType in = api::node_of(x, "sum", loc)->dtype;
  DType dtype = summed_dtype(in);
  return reduce(Op::ReduceSum, "sum", x, axes, keepdim, dtype, ir::compute_type_of(dtype), loc);
}

Tensor prod(const Tensor& x, const Axes& axes, bool keepdim, std::source_location loc) {
  DType in = api::node_of(x, "prod", loc)->dtype;
  DType dtype = summed_dtype(in);
  return reduce(Op::ReduceProd, "prod", x, axes, keepdim, dtype, ir::compute_type_of(dtype), loc);
}

Tensor max(const Tensor& x, const Axes& axes, bool keepdim, std::source_location loc) {
  DType in = api::node_of(x, "max", loc)->dtype;
  return reduce(Op::ReduceMax, "max", x, axes, keepdim, in, ir::compute_type_of(in), loc);
}

Tensor min(const Tensor& x, const Axes& axes, bool keepdim, std::source_location loc) {
  DType in = api::node_of(x, "min", loc)->dtype;
  return reduce(Op::ReduceMin, "min", x, axes, keepdim, in, ir::compute_type_of(in), loc);
}

Tensor any(const Tensor& x, const Axes& axes, bool keepdim, std::source_location loc) {
  return reduce(Op::ReduceAny, "any", x, axes, keepdim, DType::bool_, DType::bool_, loc);
}

Tensor all(const Tensor& x, const Axes& axes, bool keepdim, std::source_location loc) {
  return reduce(Op::ReduceAll, "all", x, axes, keepdim, DType::bool_, DType::bool_, loc);
}

Tensor argmax(const Tensor& x, std::optional<int> axis, bool keepdim, std::source_location loc) {
  DType in = api::node_of(x, "argmax", loc)->dtype;
  Axes axes = axis ? Axes(*axis) : Axes();
  return reduce(Op::ArgMax, "argmax", x, axes, keepdim, DType::i64, ir::compute_type_of(in), loc);
}

Tensor argmin(const Tensor& x, std::optional<int> axis, bool keepdim, std::source_location loc) {
  DType in = api::node_of(x, "argmin", loc)->dtype;
  Axes axes = axis ? Axes(*axis) : Axes();
  return reduce(Op::ArgMin, "argmin", x, axes, keepdim, DType::i64, ir::compute_type_of(in), loc);
}

Tensor mean(const Tensor& x, const Axes& axes, bool keepdim, std::source_location loc) {
  api::require_floating(x, "mean", loc);
  // A quotient, not the sum times 1 / n (as PyTorch's CPU kernel): a row of equal elements has
  // their value as its mean (three 1.1f times 1 / 3 make 1.1000001).
  const double n = double(folded_count(x, axes, "mean", loc));
  return api::in_compute_type(
      x, loc, [&](const Tensor& v) { return div(sum(v, axes, keepdim, loc), n, loc); });
}

namespace {

// The first element of each row of `axes` (kept as axes of 1), as a shift; 0 where rows are
// empty, or where that element is inf or NaN: shifted by it, every difference of the row would be
// NaN, where PyTorch's x - mean keeps -inf for the finite elements (and so does var's gradient).
Tensor row_element(const Tensor& x, const Axes& axes, std::string_view op,
                   std::source_location loc) {
  const ReducedShape reduced = reduced_shape(x.shape(), axes, true, op, loc);
  if (reduced.extent == 0) return zeros({}, x.dtype(), loc);
  Tensor first = x;
  for (int a = 0; a < x.rank(); ++a)
    if ((reduced.mask >> a & 1) != 0 && x.shape()[a] != 1) first = first.slice(a, 0, 1, 1, loc);
  return where(isfinite(first, loc), first, 0.0, loc);
}

}  // namespace

Tensor var(const Tensor& x, const Axes& axes, double correction, bool keepdim,
           std::source_location loc) {
  api::require_floating(x, "var", loc);
  const double n = double(folded_count(x, axes, "var", loc));
  // max(0, n - correction), as PyTorch: fewer elements than the correction gives inf or NaN.
  const double divisor = std::max(0.0, n - correction);
  return api::in_compute_type(x, loc, [&](const Tensor& v) {
    // Moments of x - (one element of its row), which is exactly 0 for a row of equal elements:
    // their variance is then 0, not a rounded mean's residue (PyTorch's Welford gives 0 too).
    // Centred by the shifted mean itself: the mean at x's magnitude would round back in
    // ([1e8, 1e8 + 8] had variance 64, not 32). The differences are taken of halves, exactly,
    // so that none of finite elements overflows (std([3e38, -3e38]) is inf, not NaN), and
    // doubled back before squaring (squared halves reach f32's subnormals sooner). The mean of
    // the halves sums each over n, which cannot overflow either; an error in the mean moves the
    // squares only to second order.
    const Tensor shift = row_element(v, axes, "var", loc);
    const Tensor halves = sub(mul(v, 0.5, loc), mul(shift, 0.5, loc), loc);
    const Tensor half_mean = sum(mul(halves, 1.0 / n, loc), axes, true, loc);
    const Tensor centered = mul(sub(halves, half_mean, loc), 2.0, loc);
    const Tensor squares = sum(mul(centered, centered, loc), axes, true, loc);
    // A divisor past f32's range (a large negative correction) scales by its reciprocal, which
    // is 0 or nearly, as PyTorch's quotient is.
    Tensor result = divisor <= double(std::numeric_limits<float>::max())
                        ? div(squares, divisor, loc)
                        : mul(squares, 1.0 / divisor, loc);
    api::mark_composite(result, {api::CompositeKind::variance, v, centered, axes, n - correction});
    return keepdim ? result
                   : result.reshape(reduced_shape(v.shape(), axes, false, "var", loc).shape, loc);
  });
}

Tensor std(const Tensor& x, const Axes& axes, double correction, bool keepdim,
           std::source_location loc) {
  api::require_floating(x, "std", loc);
  reduced_shape(x.shape(), axes, keepdim, "std", loc);  // a bad axis names std, not var
  return api::in_compute_type(x, loc, [&](const Tensor& v) {
    const Tensor variance = var(v, axes, correction, keepdim, loc);
    Tensor result = sqrt(variance, loc);
    api::mark_composite(result, {api::CompositeKind::std_root, variance, {}, {}});
    return result;
  });
}

Tensor logsumexp(const Tensor& x, const Axes& axes, bool keepdim, std::source_location loc) {
  Tensor v = is_floating(api::node_of(x, "logsumexp", loc)->dtype) ? x : cast(x, DType::f32, loc);
  return api::in_compute_type(v, loc, [&](const Tensor& f) {
    const ReducedShape reduced = reduced_shape(f.shape(), axes, keepdim, "logsumexp", loc);
    // The log of an empty sum, as PyTorch (max has no element to shift by).
    if (reduced.extent == 0) {
      return full(reduced.shape, -std::numeric_limits<double>::infinity(), DType::f32, loc);
    }
    // Shift by the largest element; an infinite one (all -inf, or +inf) shifts by 0 instead.
    ExpSum folded = exp_sum(f, axes, true, loc);
    Tensor result = add(log(folded.total, loc), folded.shift, loc);
    api::mark_composite(result, {api::CompositeKind::logsumexp, f, {}, axes});
    return keepdim ? result : result.reshape(reduced.shape, loc);
  });
}

Tensor softmax(const Tensor& x, int axis, std::source_location loc) {
  api::require_floating(x, "softmax", loc);
  reduced_shape(x.shape(), axis, false, "softmax", loc);  // a bad axis names softmax, not max
  // Nothing to normalize (and an axis of size 0 has no max to shift by).
  if (x.numel() == 0) return x;
  return api::in_compute_type(x, loc, [&](const Tensor& v) {
    ExpSum folded = exp_sum(v, axis, false, loc);
    Tensor result = div(exp(sub(v, folded.shift, loc), loc), folded.total, loc);
    api::mark_composite(result, {api::CompositeKind::softmax, v, {}, axis});
    return result;
  });
}

Tensor log_softmax(const Tensor& x, int axis, std::source_location loc) {
  api::require_floating(x, "log_softmax", loc);
  reduced_shape(x.shape(), axis, false, "log_softmax", loc);
  if (x.numel() == 0) return x;
  return api::in_compute_type(x, loc, [&](const Tensor& v) {
    ExpSum folded = exp_sum(v, axis, false, loc);
    Tensor result = sub(sub(v, folded.shift, loc), log(folded.total, loc), loc);
    api::mark_composite(result, {api::CompositeKind::log_softmax, v, {}, axis});
    return result;
  });
}

Tensor layer_norm(const Tensor& x, const Tensor& weight, const Tensor& bias, double eps,
                  std::source_location loc) {
  api::require_floating(x, "layer_norm", loc);
  require_last_axis(x, "layer_norm", loc);
  if (weight.defined()) require_per_feature(x, weight, "the weight", "layer_norm", loc);
  if (bias.defined()) require_per_feature(x, bias, "the bias", "layer_norm", loc);
  return api::in_compute_type(x, loc, [&](const Tensor& v) {
    const Tensor shifted = sub(v, row_element(v, -1, "layer_norm", loc), loc);  // as var's
    Tensor centered = sub(shifted, mean(shifted, -1, true, loc), loc);
    Tensor variance = mean(mul(centered, centered, loc), -1, true, loc);
    Tensor scale = rsqrt(add(variance, eps, loc), loc);
    Tensor normed = mul(centered, scale, loc);
    api::mark_composite(normed, {api::CompositeKind::normalize, v, scale, -1});
    const Tensor scaled = weight.defined() ? mul(normed, weight, loc) : normed;
    return bias.defined() ? add(scaled, bias, loc) : scaled;
  });
}

Tensor rms_norm(const Tensor& x, const Tensor& weight, double eps, std::source_location loc) {
  api::require_floating(x, "rms_norm", loc);
  require_last_axis(x, "rms_norm", loc);
  if (weight.defined()) require_per_feature(x, weight, "the weight", "rms_norm", loc);
  return api::in_compute_type(x, loc, [&](const Tensor& v) {
    Tensor scale = rsqrt(add(mean(mul(v, v, loc), -1, true, loc), eps, loc), loc);
    Tensor normed = mul(v, scale, loc);
    api::mark_composite(normed, {api::CompositeKind::rms_scale, v, scale, -1});
    return weight.defined() ? mul(normed, weight, loc) : normed;
  });
}

}  // namespace lazy

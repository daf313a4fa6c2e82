#include "tools/fuzz/statistic_recording.h"

#include <algorithm>
#include <cmath>

#include "tools/fuzz/reduction_rules.h"
#include "tools/fuzz/rule_helpers.h"
#include "tools/fuzz/value_rules.h"

namespace lazy::fuzz {

namespace {

// x with NaN read as 0: 0 joins its range.
Bounds nan_as_zero(Bounds x) {
  if (x.special) x.lo = std::min(x.lo, 0.0), x.hi = std::max(x.hi, 0.0);
  return x;
}

// |x|: its range folded at 0, its error and grid kept.
Bounds magnitude_of(Bounds x) {
  const double nearest = distance_from_zero(x.lo, x.hi);
  x.hi = x.magnitude();
  x.lo = nearest;
  return x;
}

// (sum |x|^p)^(1/p) over n elements for a finite order p >= 1, in f32, rounded once to `result`.
Bounds power_norm_rule(const Bounds& x, double p, DType result, std::int64_t n) {
  const Bounds m = magnitude_of(x);
  const double nd = double(n), root_n = std::pow(nd, 1 / p);
  const double largest_sum = nd * std::pow(m.hi + m.err, p);
  if (!(largest_sum < largest(DType::f32) / 16)) reject("vector_norm", "the powers may overflow");
  // The sum of n powers is off by about (log2 n + 8) n ulps of its largest term (and pow's few
  // ulps each); the root moves that by at most its p-th root, or by the root's slope at the
  // least sum where that is smaller.
  // Powers below f32's normal range are lost (squares are not rescaled): 2^-126 each at most.
  const double sum_error =
      (std::log2(std::max(nd, 1.0)) + 12) * nd * std::pow(m.hi + m.err, p) * std::ldexp(1.0, -24) +
      nd * std::ldexp(1.0, -126);
  const double least_sum = nd * std::pow(m.lo, p);
  double rounding = std::pow(sum_error, 1 / p);
  if (least_sum > 0)
    rounding = std::min(rounding, sum_error / (p * std::pow(least_sum, (p - 1) / p)));
  // The root's exponent is 1/p held in f32: S^(1/p) |ln S| times its error, whose largest over
  // (0, S] is p / e below S = 1 and grows past it (the library corrects for it; the term
  // stays, an allowance a backend without the correction would need).
  const double exponent_error = std::abs(1 / p - double(float(1 / p)));
  const double root_of_largest = std::pow(largest_sum, 1 / p);
  rounding += exponent_error *
              std::max(p / std::exp(1.0), root_of_largest * std::abs(std::log(largest_sum)));
  Bounds b = inexact_result(result, root_n * m.lo, root_n * m.hi, root_n * x.err + rounding, 2);
  b.special = x.special;
  b.unchecked = x.unchecked;
  return b;
}

}  // namespace

Bounds vector_norm_rule(const Operand& in, double ord, DType result, std::int64_t n) {
  const Bounds x = converted(in.bounds, in.dtype, result);
  if (std::isinf(ord)) return magnitude_of(x);  // a largest or least |x|: an element, exactly
  if (ord == 0) {
    Bounds b = exact_result(result, 0, double(n), 0);
    b.unchecked = x.unchecked || ambiguous_zero(x);
    return b;
  }
  if (ord == 1) return reduce_rule("sum", Operand{magnitude_of(x), result}, result, n);
  return power_norm_rule(x, ord, result, n);
}

RecordedStep record_statistic(const Step& step, const Builder& earlier,
                              const std::vector<int>& folded, std::source_location loc) {
  const int xi = step.args[0].step;
  const Tensor& x = earlier.tensor(xi);
  const Bounds& xb = earlier.bounds(xi);
  const Axes axes{std::span<const int>(step.axes)};
  std::int64_t n = 1;
  for (int a : folded) n *= x.shape()[a];
  RecordedStep out;
  if (step.name == "trace") {  // the sum of the main diagonal's min(rows, columns) elements
    out.out = trace(x, loc);
    const std::int64_t diagonal = std::min(x.shape()[0], x.shape()[1]);
    out.bounds = reduce_rule("sum", Operand{xb, x.dtype()}, out.out.dtype(), diagonal);
    return out;
  }
  out.shape = reduced_shape(earlier.shape(xi), folded, step.keepdim);
  if (step.name == "count_nonzero") {
    out.out = count_nonzero(x, axes, loc);
    out.bounds = Bounds{0, double(n), 0, 0};
    out.bounds.unchecked = xb.unchecked || ambiguous_zero(xb);
    return out;
  }
  if (step.name == "vector_norm") {
    out.out = vector_norm(x, step.q, axes, step.keepdim, loc);
    out.bounds = vector_norm_rule(Operand{xb, x.dtype()}, step.q, out.out.dtype(), n);
    return out;
  }
  const bool mean = step.name == "nanmean";
  out.out = mean ? nanmean(x, axes, step.keepdim, loc) : nansum(x, axes, step.keepdim, loc);
  const DType dtype = out.out.dtype();
  const Operand numbers{nan_as_zero(xb), x.dtype()};
  out.bounds = reduce_rule("sum", numbers, dtype, n);
  if (mean && (xb.special || dtype != DType::f32)) {
    // nansum's sum rounded to the dtype (the sum rule refuses one that may overflow it) over the
    // count of the numbers converted to the dtype: within x's range, off by the sum's error over
    // the least count, the count's rounding and the division's; a row of only NaN is NaN.
    if (!(double(n) < largest(dtype))) reject("nanmean", "the count may not fit the dtype");
    const Bounds sum = out.bounds;
    const double least_count = xb.special ? 1.0 : std::max(double(n), 1.0);
    out.bounds = inexact_result(dtype, xb.lo, xb.hi,
                                sum.err / least_count + 2 * ulp(dtype, xb.magnitude()), 1);
    out.bounds.special = xb.special || n == 0;
    out.bounds.unchecked = sum.unchecked;
  } else if (mean) {
    out.bounds = reduce_rule("mean", Operand{xb, x.dtype()}, dtype, n);
  }
  return out;
}

}  // namespace lazy::fuzz

#include "autodiff/scan_rules.h"

#include "lazy/factories.h"
#include "lazy/ops.h"
#include "lazy/reductions.h"
#include "lazy/scans.h"

namespace lazy::autodiff {

namespace {

// Element j is the sum of elements j.. along the last axis: a running sum of the reversed axis.
Tensor suffix_sum(const Tensor& t, std::source_location loc) {
  return lazy::cumsum(t.slice(-1, {}, {}, -1, loc), -1, loc).slice(-1, {}, {}, -1, loc);
}

}  // namespace

InputCotangents cumsum_vjp(const VjpArgs& a) {
  // Element i feeds every later one: the suffix sum of the cotangent, summed from the end, as
  // PyTorch's. total - cumsum + g cancelled: cotangents [1e8, 3, 3] gave 11 for the middle, not 6.
  return only(suffix_sum(a.cotangent, a.loc));
}

namespace {

// The cotangent of x for y = cumprod(x) along the last axis. d y_i / d x_j (i >= j) is the
// product of x_0..x_i without x_j. Before a line's first zero z that is y_i / x_j; at z, the
// running product with x_z taken as 1; after z, x_z times the same products with x_z taken as 1
// (`after_zero`, found by this function one level down): 0, but with the slope in x_z a second
// derivative needs. One level down, positions past the next zero take 0 instead: their slope
// in x_z is still right, since their products hold that next zero.
Tensor cumprod_gradient(const Tensor& x, const Tensor& y, const Tensor& g, bool after_zero,
                        std::source_location loc) {
  const Tensor is_zero = lazy::eq(x, 0, loc);
  const Tensor zeros_so_far = lazy::cumsum(is_zero.to(DType::i32, loc), -1, loc);
  const Tensor before = lazy::eq(zeros_so_far, 0, loc);
  const Tensor first_zero = lazy::logical_and(is_zero, lazy::eq(zeros_so_far, 1, loc), loc);
  // Where it is not used, x is read as 1, so no division by zero makes a NaN that a where hides
  // from the values but not from a second derivative.
  const Tensor nonzero_x = lazy::where(before, x, 1.0, loc);
  const Tensor zero_as_one = lazy::where(first_zero, 1.0, x, loc);
  const Tensor without_first_zero = lazy::cumprod(zero_as_one, -1, loc);
  // Terms past a zero are worth 0 (they hold it) and stay only for their slopes: one that is not
  // finite there (0 * inf in the forward, or an overflow) is dropped, as PyTorch masks them.
  const auto kept_past = [&](const Tensor& zero_held, const Tensor& term) {
    const Tensor not_finite = lazy::logical_or(lazy::isnan(term, loc), lazy::isinf(term, loc), loc);
    return lazy::where(lazy::logical_and(zero_held, not_finite, loc), 0.0, term, loc);
  };
  const Tensor ahead =
      lazy::div(suffix_sum(kept_past(lazy::logical_not(before, loc), lazy::mul(g, y, loc)), loc),
                nonzero_x, loc);
  // At the zero: the product before it times the suffix sum of g times the running product from
  // the zero on (the zero as 1), as PyTorch factors it, so that an infinite product before the
  // zero stays a factor instead of entering terms of both signs (inf - inf: torch_check seed
  // 17959 program 182).
  const Tensor before_zero = lazy::prod(lazy::where(before, x, 1.0, loc), -1, true, loc);
  const Tensor from_zero_on =
      lazy::cumprod(lazy::where(lazy::logical_or(before, first_zero, loc), 1.0, x, loc), -1, loc);
  const Tensor at_zero = lazy::mul(
      before_zero,
      suffix_sum(kept_past(lazy::ge(zeros_so_far, 2, loc), lazy::mul(g, from_zero_on, loc)), loc),
      loc);
  Tensor from_zero = lazy::where(first_zero, at_zero, 0.0, loc);
  if (after_zero) {
    const Tensor zero_value = lazy::sum(lazy::where(first_zero, x, 0.0, loc), -1, true, loc);
    // 0 times what one level down gives; 0 where that is not finite (products that overflowed).
    const Tensor slope = cumprod_gradient(zero_as_one, without_first_zero, g, false, loc);
    const Tensor past_zero =
        kept_past(lazy::logical_not(before, loc), lazy::mul(zero_value, slope, loc));
    from_zero = lazy::where(first_zero, at_zero, past_zero, loc);
  }
  return lazy::where(before, ahead, from_zero, loc);
}

}  // namespace

InputCotangents cumprod_vjp(const VjpArgs& a) {
  const Tensor& g = a.cotangent;
  // Along an axis of one, each output is its input: g, whatever x is (inf / inf was NaN).
  const Shape& in = a.node.inputs[0]->shape;
  if (in.rank() == 0 || in[-1] <= 1) return only(g);
  return only(cumprod_gradient(a.inputs[0].to(g.dtype(), a.loc), a.output.to(g.dtype(), a.loc), g,
                               true, a.loc));
}

}  // namespace lazy::autodiff

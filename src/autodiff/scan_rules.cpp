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

InputCotangents cumprod_vjp(const VjpArgs& a) {
  // d y_i / d x_j (i >= j) is the product of x_0..x_i without x_j. Before a line's first zero
  // that is y_i / x_j; at the first zero z, the running product with x_z taken as 1; after it,
  // every such product holds that zero.
  const Tensor& g = a.cotangent;
  const Tensor x = a.inputs[0].to(g.dtype(), a.loc);
  const Tensor y = a.output.to(g.dtype(), a.loc);
  const Tensor is_zero = lazy::eq(x, 0, a.loc);
  const Tensor zeros_so_far = lazy::cumsum(is_zero.to(DType::i32, a.loc), -1, a.loc);
  const Tensor before = lazy::eq(zeros_so_far, 0, a.loc);
  const Tensor first_zero = lazy::logical_and(is_zero, lazy::eq(zeros_so_far, 1, a.loc), a.loc);
  // Where it is not used, x is read as 1, so no division by zero makes a NaN that a where hides
  // from the values but not from a second derivative.
  const Tensor nonzero_x = lazy::where(before, x, 1.0, a.loc);
  const Tensor without_first_zero =
      lazy::cumprod(lazy::where(first_zero, 1.0, x, a.loc), -1, a.loc);
  const Tensor ahead = lazy::div(suffix_sum(lazy::mul(g, y, a.loc), a.loc), nonzero_x, a.loc);
  const Tensor at_zero = suffix_sum(lazy::mul(g, without_first_zero, a.loc), a.loc);
  return only(lazy::where(before, ahead, lazy::where(first_zero, at_zero, 0.0, a.loc), a.loc));
}

}  // namespace lazy::autodiff

#include "autodiff/reduction_rules.h"

#include <limits>
#include <vector>

#include "lazy/ops.h"
#include "lazy/reductions.h"

namespace lazy::autodiff {

namespace {

// The axes a reduction folded (attrs[0], a bit mask), and the reduced tensor's shape with those
// axes kept as 1.
std::vector<int> reduced_axes(const ir::Node& node) {
  std::vector<int> axes;
  const Shape& in = node.inputs[0]->shape;
  for (int axis = 0; axis < in.rank(); ++axis)
    if ((node.attrs[0] >> axis) & 1) axes.push_back(axis);
  return axes;
}
Shape kept_shape(const ir::Node& node) {
  Shape shape = node.inputs[0]->shape;
  for (int axis : reduced_axes(node)) shape[axis] = 1;
  return shape;
}

// A reduction's output or cotangent with its folded axes back, as 1.
Tensor with_kept_axes(const Tensor& t, const ir::Node& node, std::source_location loc) {
  return t.reshape(kept_shape(node), loc);
}

}  // namespace

InputCotangents sum_vjp(const VjpArgs& a) {
  const Shape& in = a.node.inputs[0]->shape;
  return only(with_kept_axes(a.cotangent, a.node, a.loc).expand(in, a.loc));
}
// max and min: shared evenly between the elements equal to the result (PyTorch's amax).
InputCotangents extreme_vjp(const VjpArgs& a) {
  const Shape& in = a.node.inputs[0]->shape;
  const Tensor chosen =
      lazy::eq(a.inputs[0], with_kept_axes(a.output, a.node, a.loc).expand(in, a.loc), a.loc);
  // Counted in f32: an f16 count of more than 65504 ties is inf, and each share 0.
  const Tensor count =
      lazy::sum(chosen.to(DType::f32, a.loc), Axes(reduced_axes(a.node)), true, a.loc);
  const Tensor share = lazy::div(with_kept_axes(a.cotangent, a.node, a.loc), count, a.loc);
  return only(
      lazy::mul(chosen.to(share.dtype(), a.loc), share, a.loc).to(a.cotangent.dtype(), a.loc));
}
InputCotangents prod_vjp(const VjpArgs& a) {
  // The product of the other elements: out / x without zeros; with one zero, the product of the
  // rest at the zero and elsewhere 0, or NaN where the others hold an infinity or NaN (PyTorch's
  // exclusive products); with more, 0. Zeros are written as products with them, so that the
  // gradient's own gradient (a Hessian) has their slopes.
  const Tensor& x = a.inputs[0];
  const Shape& in = a.node.inputs[0]->shape;
  std::int64_t folded = 1;
  for (int axis : reduced_axes(a.node)) folded *= in[axis];
  // A product of one element: the product of no others is 1, whatever x is (inf / inf was NaN).
  if (folded == 1) return sum_vjp(a);
  const Axes axes(reduced_axes(a.node));
  const Tensor is_zero = lazy::eq(x, 0, a.loc);
  const Tensor zeros =
      lazy::sum(is_zero.to(DType::i64, a.loc), axes, true, a.loc).expand(in, a.loc);
  const Tensor rest = lazy::prod(lazy::where(is_zero, 1, x, a.loc), axes, true, a.loc)
                          .to(a.cotangent.dtype(), a.loc)
                          .expand(in, a.loc);
  const Tensor non_finite =
      lazy::logical_or(lazy::isnan(x, a.loc), lazy::isinf(x, a.loc), a.loc).to(DType::i64, a.loc);
  const Tensor others_non_finite =
      lazy::sub(lazy::sum(non_finite, axes, true, a.loc).expand(in, a.loc), non_finite, a.loc);
  // x read as 1 at a zero: a division by 0 there, hidden from the values by a where, would
  // still make every second derivative NaN.
  const Tensor nonzero_x = lazy::where(is_zero, 1, x, a.loc);
  // Beside the zero, the zero's value times the product of the rest: 0, with the slope in the
  // zero that a second derivative needs (a finite x only; others give 0 and keep their value).
  const Tensor zero_value =
      lazy::sum(lazy::where(is_zero, x, 0, a.loc), axes, true, a.loc).expand(in, a.loc);
  const Tensor slope_in_the_zero =
      lazy::where(lazy::eq(non_finite, 0, a.loc), lazy::div(rest, nonzero_x, a.loc), 0, a.loc);
  // Finite others whose product overflows leave the value 0 there, not 0 * inf (PyTorch's
  // exclusive products give 0).
  const Tensor zero_times_slope =
      lazy::where(lazy::isinf(slope_in_the_zero, a.loc), 0,
                  lazy::mul(zero_value, slope_in_the_zero, a.loc), a.loc);
  const Tensor beside_the_zero =
      lazy::where(lazy::gt(others_non_finite, 0, a.loc), std::numeric_limits<double>::quiet_NaN(),
                  zero_times_slope, a.loc)
          .to(a.cotangent.dtype(), a.loc);
  const Tensor one_zero = lazy::where(is_zero, rest, beside_the_zero, a.loc);
  // With two, each zero's is the other's value times the rest: 0 (NaN beside an infinity), with
  // the slope in the other zero; 0 too where the finite rest overflowed.
  const Tensor rest_overflowed =
      lazy::logical_and(lazy::isinf(rest, a.loc), lazy::eq(others_non_finite, 0, a.loc), a.loc);
  const Tensor two_zeros =
      lazy::where(lazy::logical_and(is_zero, lazy::logical_not(rest_overflowed, a.loc), a.loc),
                  lazy::mul(lazy::sub(zero_value, x, a.loc), rest, a.loc), 0, a.loc)
          .to(a.cotangent.dtype(), a.loc);
  const Tensor others =
      lazy::where(lazy::eq(zeros, 0, a.loc), lazy::div(rest, nonzero_x, a.loc),
                  lazy::where(lazy::eq(zeros, 1, a.loc), one_zero,
                              lazy::where(lazy::eq(zeros, 2, a.loc), two_zeros, 0, a.loc), a.loc),
                  a.loc);
  return only(
      lazy::mul(with_kept_axes(a.cotangent, a.node, a.loc).expand(in, a.loc), others, a.loc));
}

}  // namespace lazy::autodiff

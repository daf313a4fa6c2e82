#include "autodiff/trig_rules.h"

#include <numbers>

#include "lazy/ops.h"

namespace lazy::autodiff {

namespace {

// sign * x^2 + offset: 1 - x^2 as -x * x + 1, as PyTorch writes it.
Tensor square_plus(const VjpArgs& a, double sign, double offset) {
  const Tensor& x = a.inputs[0];
  return lazy::add(lazy::mul(lazy::square(x, a.loc), sign, a.loc), offset, a.loc);
}

}  // namespace

InputCotangents tan_vjp(const VjpArgs& a) {
  const Tensor slope = lazy::add(lazy::square(a.output, a.loc), 1, a.loc);
  return only(lazy::mul(a.cotangent, slope, a.loc));
}
InputCotangents asin_vjp(const VjpArgs& a) {
  return only(lazy::mul(a.cotangent, lazy::rsqrt(square_plus(a, -1, 1), a.loc), a.loc));
}
InputCotangents acos_vjp(const VjpArgs& a) {
  const Tensor slope = lazy::neg(lazy::rsqrt(square_plus(a, -1, 1), a.loc), a.loc);
  return only(lazy::mul(a.cotangent, slope, a.loc));
}
InputCotangents atan_vjp(const VjpArgs& a) {
  return only(lazy::div(a.cotangent, square_plus(a, 1, 1), a.loc));
}
InputCotangents sinh_vjp(const VjpArgs& a) {
  return only(lazy::mul(a.cotangent, lazy::cosh(a.inputs[0], a.loc), a.loc));
}
InputCotangents cosh_vjp(const VjpArgs& a) {
  return only(lazy::mul(a.cotangent, lazy::sinh(a.inputs[0], a.loc), a.loc));
}
InputCotangents asinh_vjp(const VjpArgs& a) {
  return only(lazy::mul(a.cotangent, lazy::rsqrt(square_plus(a, 1, 1), a.loc), a.loc));
}
InputCotangents acosh_vjp(const VjpArgs& a) {
  return only(lazy::mul(a.cotangent, lazy::rsqrt(square_plus(a, 1, -1), a.loc), a.loc));
}
InputCotangents atanh_vjp(const VjpArgs& a) {
  return only(lazy::div(a.cotangent, square_plus(a, -1, 1), a.loc));
}
InputCotangents log10_vjp(const VjpArgs& a) {
  return only(lazy::div(a.cotangent, lazy::mul(a.inputs[0], std::numbers::ln10, a.loc), a.loc));
}

}  // namespace lazy::autodiff

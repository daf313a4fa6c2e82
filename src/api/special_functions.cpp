// torch.special's xlogy and logit, arranged so that a branch not taken never meets an infinity
// in the gradient (its zero cotangent times inf would be NaN).
#include <array>
#include <cmath>
#include <optional>

#include "api/composite_marks.h"
#include "api/composites.h"
#include "lazy/factories.h"
#include "lazy/ops.h"

namespace lazy {

namespace {

Tensor as_tensor(const Operand& x, std::source_location loc) {
  return x.is_tensor() ? x.tensor() : full({}, x.scalar(), {}, loc);
}

}  // namespace

// As PyTorch's kernel: NaN for a NaN y, else 0 for x == 0, else x * log(y). Where x is 0 the log
// reads 1 for y <= 0 and is taken as 0 for an infinite y, so the value is 0; the gradient is
// PyTorch's rule through the composite's mark (autodiff/composite_rules.cpp).
Tensor xlogy(const Operand& x, const Operand& y, std::source_location loc) {
  api::sync_if_trace_full();
  if (!x.is_tensor() && !y.is_tensor()) {
    api::fail<ValueError>(loc, "xlogy",
                          "needs at least one tensor; compute two numbers on the host");
  }
  // PyTorch's binary float op: both operands converted to their promoted dtype (a number or a
  // 0-d tensor weighs less), integers to f32; computed in f32 and rounded once.
  const std::array operands = {api::promotion_operand(x, "xlogy", loc),
                               api::promotion_operand(y, "xlogy", loc)};
  DType dtype = ir::result_type(operands);
  if (!is_floating(dtype)) dtype = DType::f32;
  const Tensor a = as_tensor(x, loc), b = as_tensor(y, loc);
  const Tensor a32 = a.to(dtype, loc).to(DType::f32, loc);
  const Tensor b32 = b.to(dtype, loc).to(DType::f32, loc);
  const Tensor at_zero = eq(a32, 0, loc);
  const Tensor log_b = log(where(logical_and(at_zero, le(b32, 0, loc), loc), 1, b32, loc), loc);
  const Tensor product =
      mul(a32, where(logical_and(at_zero, isinf(log_b, loc), loc), 0.0, log_b, loc), loc);
  // + 0 makes a -0 x give PyTorch's +0.
  const Tensor result = where(at_zero, add(product, 0.0, loc), product, loc).to(dtype, loc);
  api::mark_composite(result, {api::CompositeKind::xlogy, a, {}, {}, 0, b});
  return result;
}

Tensor logit(const Tensor& x, std::optional<double> eps, std::source_location loc) {
  api::sync_if_trace_full();
  const DType dtype = api::node_of(x, "logit", loc)->dtype;
  const Tensor floating = is_floating(dtype) ? x : x.to(DType::f32, loc);
  return api::in_compute_type(floating, loc, [&](const Tensor& given) {
    // PyTorch clamps by eps first, its gradient 0 outside [eps, 1 - eps] and NaN at NaN (its
    // logit_backward tests the bounds itself, where clamp's gradient would be 0 at NaN).
    const Tensor v = eps ? where(lt(given, *eps, loc), *eps,
                                 where(gt(given, 1 - *eps, loc), 1 - *eps, given, loc), loc)
                         : given;
    // log(v / (1 - v)) inside (0, 1); log(v) at 0 (value -inf, gradient inf, where the
    // quotient's gradient would be inf * 0); inf with an infinite gradient at 1 and NaN with a
    // NaN one outside, as PyTorch's logit_backward. Those ends scale v by a constant that is 0
    // elsewhere, so no zero cotangent meets inf or NaN.
    const Tensor open = logical_and(gt(v, 0, loc), lt(v, 1, loc), loc);
    const Tensor at_zero = eq(v, 0, loc);
    const Tensor safe = where(open, v, 0.5, loc);
    const Tensor odds = log(div(safe, sub(1, safe, loc), loc), loc);
    const Tensor at_zero_log = log(where(at_zero, v, 1, loc), loc);
    const Tensor scale =
        where(eq(v, 1, loc), INFINITY, where(logical_or(open, at_zero, loc), 0.0, NAN, loc), loc);
    return where(open, odds, where(at_zero, at_zero_log, mul(v, scale, loc), loc), loc);
  });
}

}  // namespace lazy

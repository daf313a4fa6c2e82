// l1_loss, smooth_l1_loss and huber_loss, written from the difference as PyTorch's kernels
// compute them (aten/src/ATen/native/Loss.cpp): the branch a difference does not take is fed a
// constant, so that its gradient never meets an infinity.
#include <string_view>

#include "api/composites.h"
#include "api/loss_reduction.h"
#include "ir/type_promotion.h"
#include "lazy/losses.h"

namespace lazy {

namespace {

// input - target in f32 (PyTorch's kernels compute in float, rounding once at the end), and the
// dtype the loss is returned in: the two's promoted floating dtype.
struct Difference {
  Tensor value;
  DType dtype;
};

Difference difference(const Tensor& input, const Tensor& target, std::string_view name,
                      std::source_location loc) {
  api::require_a_floating_operand(input, target, name, loc);
  const auto [x, y] = api::broadcast_pair(input, target, name, loc);
  return {sub(x.to(DType::f32, loc), y.to(DType::f32, loc), loc),
          ir::promote_types(x.dtype(), y.dtype())};
}

// 0.5 d^2 * scale where |d| < bound, else the linear part, fed only the differences it takes.
// A NaN difference takes the quadratic part, whose gradient is NaN, as PyTorch's backward.
Tensor quadratic_then_linear(const Tensor& d, double bound, double scale, double slope,
                             double offset, std::source_location loc) {
  const Tensor magnitude = abs(d, loc);
  const Tensor far = ge(magnitude, bound, loc);
  const Tensor small = where(far, 0.0, magnitude, loc);
  const Tensor large = where(far, magnitude, bound, loc);
  return where(far, mul(sub(large, offset, loc), slope, loc),
               mul(mul(small, small, loc), 0.5 * scale, loc), loc);
}

}  // namespace

Tensor l1_loss(const Tensor& input, const Tensor& target, Reduction reduction,
               std::source_location loc) {
  api::sync_if_trace_full();
  api::require_a_floating_operand(input, target, "l1_loss", loc);
  const auto [x, y] = api::broadcast_pair(input, target, "l1_loss", loc);
  return api::reduce_loss(abs(sub(x, y, loc), loc), reduction, Tensor(), "l1_loss", loc);
}

Tensor smooth_l1_loss(const Tensor& input, const Tensor& target, Reduction reduction, double beta,
                      std::source_location loc) {
  api::sync_if_trace_full();
  if (!(beta >= 0)) {
    api::fail<ValueError>(loc, "smooth_l1_loss", "beta must be at least 0, got ",
                          api::number_text(beta));
  }
  if (beta == 0) return l1_loss(input, target, reduction, loc);  // as PyTorch's
  const Difference d = difference(input, target, "smooth_l1_loss", loc);
  const Tensor losses = quadratic_then_linear(d.value, beta, 1 / beta, 1.0, 0.5 * beta, loc);
  return api::reduce_loss(losses.to(d.dtype, loc), reduction, Tensor(), "smooth_l1_loss", loc);
}

Tensor huber_loss(const Tensor& input, const Tensor& target, Reduction reduction, double delta,
                  std::source_location loc) {
  api::sync_if_trace_full();
  if (!(delta > 0)) {
    api::fail<ValueError>(loc, "huber_loss", "delta must be greater than 0, got ",
                          api::number_text(delta));
  }
  // PyTorch's huber_loss writes into a tensor like the input: its dtype, which must hold a
  // floating result.
  const DType dtype = api::node_of(input, "huber_loss", loc)->dtype;
  if (!is_floating(dtype)) {
    api::fail<DTypeError>(loc, "huber_loss", "gives its result in the input's dtype, got ",
                          dtype_name(dtype), "; cast the input to a floating dtype first");
  }
  const Difference d = difference(input, target, "huber_loss", loc);
  const Tensor losses = quadratic_then_linear(d.value, delta, 1.0, delta, 0.5 * delta, loc);
  return api::reduce_loss(losses.to(dtype, loc), reduction, Tensor(), "huber_loss", loc);
}

}  // namespace lazy

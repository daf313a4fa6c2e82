// binary_cross_entropy, binary_cross_entropy_with_logits and kl_div, written as PyTorch writes
// them (aten/src/ATen/native/Loss.cpp); the binary cross entropies mark their results so that
// their gradients are PyTorch's rules (autodiff/composite_rules.cpp).
#include <array>
#include <string_view>

#include "api/broadcast.h"
#include "api/composite_marks.h"
#include "api/composites.h"
#include "api/loss_reduction.h"
#include "lazy/losses.h"

namespace lazy {

namespace {

// Both floating and of one shape, as PyTorch's binary cross entropies ask.
void check_same_shape(const Tensor& input, const Tensor& target, std::string_view name,
                      std::source_location loc) {
  api::require_floating(input, name, loc);
  api::require_floating(target, name, loc);
  const Shape& a = api::node_of(input, name, loc)->shape;
  const Shape& b = api::node_of(target, name, loc)->shape;
  if (a != b) {
    api::fail<ShapeError>(loc, name, "needs a target of the input's shape ", a.to_string(),
                          ", got ", b.to_string());
  }
}

// A weight PyTorch multiplies into the losses in place: it must broadcast to their shape, and
// they keep their dtype.
Tensor scaled_in_place(const Tensor& losses, const Tensor& weight, std::string_view what,
                       std::string_view name, std::source_location loc) {
  const Shape& shape = api::node_of(losses, name, loc)->shape;
  const Shape& given = api::node_of(weight, name, loc)->shape;
  const std::array shapes = {shape, given};
  if (api::broadcast_shapes(shapes, name, loc) != shape) {
    api::fail<ShapeError>(loc, name, what, " of shape ", given.to_string(),
                          " does not broadcast to the input's ", shape.to_string());
  }
  return mul(losses, weight, loc).to(losses.dtype(), loc);
}

Tensor weighted(const Tensor& losses, const Tensor& weight, std::string_view name,
                std::source_location loc) {
  return weight.defined() ? scaled_in_place(losses, weight, "the weight", name, loc) : losses;
}

}  // namespace

Tensor binary_cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight,
                            Reduction reduction, std::source_location loc) {
  api::sync_if_trace_full();
  check_same_shape(input, target, "binary_cross_entropy", loc);
  const DType dtype = input.dtype();
  if (target.dtype() != dtype) {
    api::fail<DTypeError>(loc, "binary_cross_entropy", "needs a target of the input's dtype ",
                          dtype_name(dtype), ", got ", dtype_name(target.dtype()),
                          ", as PyTorch's; cast it first");
  }
  const Tensor x = input.to(DType::f32, loc), t = target.to(DType::f32, loc);
  // (t - 1) max(log(1 - x), -100) - t max(log(x), -100): PyTorch's order, whose signs of zero
  // this keeps.
  const Tensor log_miss = maximum(log1p(neg(x, loc), loc), -100.0, loc);
  const Tensor log_hit = maximum(log(x, loc), -100.0, loc);
  const Tensor losses = sub(mul(sub(t, 1.0, loc), log_miss, loc), mul(t, log_hit, loc), loc);
  api::mark_composite(losses, {api::CompositeKind::binary_cross_entropy, x, {}, {}, 0, t});
  const Tensor per_element = weighted(losses.to(dtype, loc), weight, "binary_cross_entropy", loc);
  return api::reduce_loss(per_element, reduction, Tensor(), "binary_cross_entropy", loc);
}

Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target,
                                        const Tensor& weight, Reduction reduction,
                                        const Tensor& pos_weight, std::source_location loc) {
  api::sync_if_trace_full();
  constexpr std::string_view name = "binary_cross_entropy_with_logits";
  check_same_shape(input, target, name, loc);
  Tensor log_sigmoid_x = log_sigmoid(input, loc);
  if (pos_weight.defined()) {
    const Tensor log_weight = add(mul(sub(pos_weight, 1.0, loc), target, loc), 1.0, loc);
    log_sigmoid_x = scaled_in_place(log_sigmoid_x, log_weight, "pos_weight", name, loc);
  }
  const Tensor losses = sub(mul(sub(1.0, target, loc), input, loc), log_sigmoid_x, loc);
  api::mark_composite(
      losses, {api::CompositeKind::logits_cross_entropy, input, {}, {}, 0, target, pos_weight});
  // In the target's dtype, as PyTorch's (1 - target).mul_(input).sub_(...) writes in place.
  return api::reduce_loss(weighted(losses.to(target.dtype(), loc), weight, name, loc), reduction,
                          Tensor(), name, loc);
}

Tensor kl_div(const Tensor& input, const Tensor& target, Reduction reduction, bool log_target,
              std::source_location loc) {
  api::sync_if_trace_full();
  for (const Tensor* t : {&input, &target}) {
    const DType dtype = api::node_of(*t, "kl_div", loc)->dtype;
    if (!is_floating(dtype)) {
      api::fail<DTypeError>(loc, "kl_div", "takes floating tensors, as PyTorch's, got ",
                            dtype_name(dtype), "; cast it with .to(lazy::f32) first");
    }
  }
  const Tensor losses = log_target ? mul(exp(target, loc), sub(target, input, loc), loc)
                                   : sub(xlogy(target, target, loc), mul(target, input, loc), loc);
  if (reduction != Reduction::batchmean) {
    return api::reduce_loss(losses, reduction, Tensor(), "kl_div", loc);
  }
  // PyTorch's F.kl_div: the sum (rounded to the dtype) over the input's first axis, whatever the
  // target broadcast it to.
  const Shape& in = input.shape();
  return div(sum(losses, {}, false, loc), in.rank() > 0 ? in[0] : 1, loc);
}

}  // namespace lazy

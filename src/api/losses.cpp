// Loss functions (lazy/losses.h), written as PyTorch's are from log_softmax, gathers, pointwise
// ops and sums (aten/src/ATen/native/LossNLL.cpp), so their values and gradients agree with its.
#include "lazy/losses.h"

#include <array>
#include <cmath>
#include <cstdint>
#include <string_view>

#include "api/broadcast.h"
#include "api/composites.h"
#include "api/index_arguments.h"
#include "api/loss_reduction.h"
#include "api/recording.h"
#include "lazy/factories.h"
#include "lazy/indexing.h"
#include "lazy/reductions.h"

namespace lazy {

namespace {

// The class axis of a floating input of rank 1 or more: 1, or 0 for a 1-d input.
int class_axis_of(const Tensor& input, std::string_view name, std::source_location loc) {
  api::require_floating(input, name, loc);
  const int rank = api::node_of(input, name, loc)->shape.rank();
  if (rank == 0) {
    api::fail<ShapeError>(loc, name,
                          "needs an input with a class axis ([C], [N, C] or [N, C, ...]), "
                          "got a 0-d tensor");
  }
  return rank == 1 ? 0 : 1;
}

// The class weights, checked to be one per class: in the input's dtype for nll_loss's gathers,
// which PyTorch runs in the input's dtype; as they are for class probabilities, which PyTorch
// multiplies in the promoted dtype.
Tensor class_weights(const Tensor& weight, const Tensor& input, int axis, std::string_view name,
                     std::source_location loc, bool in_input_dtype = true) {
  const Shape& in = api::node_of(input, name, loc)->shape;
  const Shape& shape = api::node_of(weight, name, loc)->shape;
  api::require_floating(weight, name, loc);
  if (shape.rank() != 1 || shape[0] != in[axis]) {
    api::fail<ShapeError>(loc, name, "needs one weight per class: a [", in[axis],
                          "] tensor for input ", in.to_string(), ", got ", shape.to_string());
  }
  return in_input_dtype ? weight.to(input.dtype(), loc) : weight;
}

// The class weights shaped to multiply an input of shape `in` along its class axis.
Tensor along_class_axis(const Tensor& weights, const Shape& in, int axis,
                        std::source_location loc) {
  Shape along_axis;
  for (int i = 0; i < in.rank(); ++i) along_axis.push_back(i == axis ? in[axis] : 1, loc);
  return weights.reshape(along_axis, loc);
}

// nll_loss of log probabilities against class indices: -weight[t] * log_probs[t] per element,
// 0 where t is ignore_index; the mean divides by the weights taken. With label smoothing e, e / C
// times the sum over classes of -weight[c] * log_probs[c] joins it, as PyTorch's cross_entropy.
Tensor indexed_loss(const Tensor& log_probs, const Tensor& target, int axis,
                    const CrossEntropyOptions& options, double smoothing, ir::GatherCaller caller,
                    std::source_location loc) {
  const std::string_view name = ir::gather_caller_name_of(caller);
  const Shape& in = api::node_of(log_probs, name, loc)->shape;
  const Shape& targets = api::node_of(target, name, loc)->shape;
  Shape want;
  for (int i = 0; i < in.rank(); ++i)
    if (i != axis) want.push_back(in[i], loc);
  if (targets != want) {
    api::fail<ShapeError>(loc, name, "needs class indices of shape ", want.to_string(),
                          " (the input's ", in.to_string(), " without its class axis ", axis,
                          "), got ", targets.to_string());
  }
  // An i32 target never equals an ignore_index past i32's range.
  const bool can_equal = target.dtype() == DType::i64 ||
                         (options.ignore_index >= INT32_MIN && options.ignore_index <= INT32_MAX);
  const Tensor ignored =
      can_equal ? eq(target, options.ignore_index, loc) : full(targets, false, DType::bool_, loc);
  const Tensor safe = where(ignored, 0, target, loc);
  const Tensor picked =
      api::named_gather(log_probs, axis, safe.unsqueeze(axis, loc), caller, loc).squeeze(axis, loc);
  const Tensor weights = options.weight.defined()
                             ? class_weights(options.weight, log_probs, axis, name, loc)
                             : Tensor();
  const Tensor taken =
      weights.defined() ? where(ignored, 0,
                                api::named_gather(weights, 0, safe.flatten(0, -1, loc), caller, loc)
                                    .reshape(targets, loc),
                                loc)
                        : where(ignored, 0, 1, loc).to(log_probs.dtype(), loc);
  const Tensor nll = where(ignored, 0, neg(mul(picked, taken, loc), loc), loc);
  const Tensor divisor = sum(taken.to(DType::f32, loc), {}, false, loc);
  const Tensor loss = api::reduce_loss(nll, options.reduction, divisor, name, loc);
  if (smoothing == 0) return loss;
  const Tensor weighted =
      weights.defined() ? mul(log_probs, along_class_axis(weights, in, axis, loc), loc) : log_probs;
  const Tensor smooth = where(ignored, 0, neg(sum(weighted, axis, false, loc), loc), loc);
  const double classes = double(in[axis]);
  return add(mul(loss, 1 - smoothing, loc),
             mul(api::reduce_loss(smooth, options.reduction, divisor, name, loc),
                 smoothing / classes, loc),
             loc);
}

// Against class probabilities: -sum over classes of weight[c] * target[c] * log_probs[c]; the
// mean is over the elements without the class axis.
Tensor probability_loss(const Tensor& log_probs, const Tensor& target, int axis,
                        const CrossEntropyOptions& options, std::source_location loc) {
  const Shape& in = api::node_of(log_probs, "cross_entropy", loc)->shape;
  const Shape& targets = api::node_of(target, "cross_entropy", loc)->shape;
  if (targets != in) {
    api::fail<ShapeError>(loc, "cross_entropy", "needs class probabilities of the input's shape ",
                          in.to_string(), ", got ", targets.to_string());
  }
  if (options.ignore_index >= 0) {
    api::fail<ValueError>(loc, "cross_entropy",
                          "ignore_index is not supported for class probabilities (as PyTorch)");
  }
  const double classes = double(in[axis]);
  const double smoothing = options.label_smoothing;
  const Tensor mixed =
      smoothing > 0 ? add(mul(target, 1 - smoothing, loc), smoothing / classes, loc) : target;
  Tensor terms = mul(log_probs, mixed, loc);
  if (options.weight.defined())
    terms = mul(terms,
                along_class_axis(
                    class_weights(options.weight, log_probs, axis, "cross_entropy", loc, false), in,
                    axis, loc),
                loc);
  const Tensor per_element = neg(sum(terms, axis, false, loc), loc);
  // PyTorch's mean over no element, or over elements of no class, is NaN.
  if (options.reduction == Reduction::mean && in.numel() == 0)
    return full(Shape{}, NAN, per_element.dtype(), loc);
  return api::reduce_loss(per_element, options.reduction, Tensor(), "cross_entropy", loc);
}

void check_smoothing(double smoothing, std::source_location loc) {
  if (!(smoothing >= 0 && smoothing <= 1)) {
    api::fail<ValueError>(loc, "cross_entropy", "label_smoothing must be in [0, 1], got ",
                          smoothing);
  }
}

void require_indices(const Tensor& target, std::string_view name, std::source_location loc) {
  const DType dtype = api::node_of(target, name, loc)->dtype;
  if (dtype != DType::i32 && dtype != DType::i64) {
    api::fail<DTypeError>(loc, name, "needs i32 or i64 class indices",
                          name == "cross_entropy" ? " or floating class probabilities" : "",
                          ", got ", dtype_name(dtype));
  }
}

}  // namespace

namespace api {

Tensor reduce_loss(const Tensor& losses, Reduction reduction, const Tensor& divisor,
                   std::string_view name, std::source_location loc) {
  switch (reduction) {
    case Reduction::none:
      return losses;
    case Reduction::sum:
      return sum(losses, {}, false, loc);
    case Reduction::batchmean:
      fail<ValueError>(loc, name, "takes Reduction::batchmean only for kl_div; use mean or sum");
    case Reduction::mean:
      break;
  }
  if (!divisor.defined()) return mean(losses, {}, false, loc);
  const Tensor total = sum(losses.to(DType::f32, loc), {}, false, loc);
  return div(total, divisor, loc).to(losses.dtype(), loc);
}

void require_a_floating_operand(const Tensor& input, const Tensor& target, std::string_view name,
                                std::source_location loc) {
  const DType a = node_of(input, name, loc)->dtype;
  const DType b = node_of(target, name, loc)->dtype;
  if (!is_floating(a) && !is_floating(b)) {
    fail<DTypeError>(loc, name, "needs a floating input or target, got ", dtype_name(a), " and ",
                     dtype_name(b), "; cast one to a floating dtype first");
  }
}

std::pair<Tensor, Tensor> broadcast_pair(const Tensor& input, const Tensor& target,
                                         std::string_view name, std::source_location loc) {
  const std::array shapes = {node_of(input, name, loc)->shape, node_of(target, name, loc)->shape};
  const Shape common = broadcast_shapes(shapes, name, loc);
  return {input.expand(common, loc), target.expand(common, loc)};
}

}  // namespace api

Tensor cross_entropy(const Tensor& input, const Tensor& target, const CrossEntropyOptions& options,
                     std::source_location loc) {
  api::sync_if_trace_full();
  const int axis = class_axis_of(input, "cross_entropy", loc);
  check_smoothing(options.label_smoothing, loc);
  const Tensor log_probs = log_softmax(input, axis, loc);
  if (is_floating(api::node_of(target, "cross_entropy", loc)->dtype))
    return probability_loss(log_probs, target, axis, options, loc);
  require_indices(target, "cross_entropy", loc);
  return indexed_loss(log_probs, target, axis, options, options.label_smoothing,
                      ir::GatherCaller::cross_entropy, loc);
}

Tensor nll_loss(const Tensor& log_probs, const Tensor& target, const CrossEntropyOptions& options,
                std::source_location loc) {
  api::sync_if_trace_full();
  const int axis = class_axis_of(log_probs, "nll_loss", loc);
  require_indices(target, "nll_loss", loc);
  if (options.label_smoothing != 0) {
    api::fail<ValueError>(loc, "nll_loss", "takes no label_smoothing; use cross_entropy");
  }
  return indexed_loss(log_probs, target, axis, options, 0, ir::GatherCaller::nll_loss, loc);
}

Tensor mse_loss(const Tensor& input, const Tensor& target, Reduction reduction,
                std::source_location loc) {
  api::sync_if_trace_full();
  api::require_a_floating_operand(input, target, "mse_loss", loc);
  const auto [x, y] = api::broadcast_pair(input, target, "mse_loss", loc);
  const Tensor squares = square(sub(x, y, loc), loc);
  return api::reduce_loss(squares, reduction, Tensor(), "mse_loss", loc);
}

}  // namespace lazy

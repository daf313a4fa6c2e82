// Shared by the composite ops (gelu, softmax, the norms, ...), which are written from primitives.
#pragma once

#include <source_location>
#include <string_view>

#include "api/recording.h"
#include "ir/type_promotion.h"
#include "lazy/ops.h"
#include "lazy/reductions.h"

namespace lazy::api {

// Throws DTypeError unless x is f32, f16 or bf16.
inline void require_floating(const Tensor& x, std::string_view name, std::source_location loc) {
  DType dtype = node_of(x, name, loc)->dtype;
  if (!is_floating(dtype)) {
    fail<DTypeError>(loc, name, "needs a floating tensor (f32, f16 or bf16), got ",
                     dtype_name(dtype), "; cast it with .to(lazy::f32) first");
  }
}

// AxisError for a bad axis named as `name`, the user's call, before a composite's reductions
// would name themselves. A 0-d tensor takes axis 0 or -1. Returns how many elements each result
// folds (every element where no axis is given).
inline std::int64_t check_axes(const Shape& shape, const Axes& axes, std::string_view name,
                               std::source_location loc) {
  const int rank = shape.rank();
  std::int64_t folded = 1;
  for (int axis : axes.list()) {
    const int normalized = normalize_axis(axis, rank > 0 ? rank : 1, name, loc);
    if (rank > 0) folded *= shape[normalized];
  }
  return axes.list().empty() ? shape.numel() : folded;
}

// How `x` takes part in type promotion: its dtype and tier (a number, a 0-d or a dimensioned
// tensor), as PyTorch's result_type weighs it.
ir::PromotionOperand promotion_operand(const Operand& x, std::string_view name,
                                       std::source_location loc);

// g * gelu_tanh'(x), one node (Op::GeluTanhGrad): gelu_tanh's gradient rule records it.
Tensor gelu_tanh_grad(const Tensor& g, const Tensor& x, std::source_location loc);

// Composites compute f16 and bf16 in f32 and round once at the end, as PyTorch's kernels do.
template <class Body>
Tensor in_compute_type(const Tensor& x, std::source_location loc, Body body) {
  DType dtype = x.dtype();
  if (dtype == DType::f32) return body(x);
  return cast(body(cast(x, DType::f32, loc)), dtype, loc);
}

// Ops built of views whose gradient adds copies of the cotangent (pad's borders, repeat's copies)
// run in f32 while a gradient is traced, so that f16 and bf16 add the copies in f32 and round
// once, as PyTorch's backward kernels do; the forward copies the same values either way.
template <class Body>
Tensor adding_copies_in_f32(const Tensor& x, std::source_location loc, Body body) {
  const DType dtype = x.dtype();
  if (!differentiating() || (dtype != DType::f16 && dtype != DType::bf16)) return body(x);
  return in_compute_type(x, loc, body);
}

}  // namespace lazy::api

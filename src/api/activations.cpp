// torch.nn.functional's activations as composites of where, comparisons and the transcendental
// primitives, arranged so that their gradients are PyTorch's at the kinks (a branch's value at a
// corner comes from the side whose derivative PyTorch takes) and so that a branch not taken never
// feeds an infinity into the gradient (0 * inf).
#include <cmath>
#include <cstdint>
#include <string_view>
#include <vector>

#include "api/composites.h"
#include "ir/dtype_codec.h"
#include "lazy/autodiff.h"
#include "lazy/indexing.h"
#include "lazy/ops.h"
#include "lazy/reductions.h"

namespace lazy {

namespace {

// `body` on floating x in f32, rounded once to x's dtype.
template <class Body>
Tensor activation(const Tensor& x, std::string_view name, std::source_location loc, Body body) {
  api::sync_if_trace_full();
  api::require_floating(x, name, loc);
  return api::in_compute_type(x, loc, body);
}

// A threshold as PyTorch's kernels take it: converted to x's dtype (f16's 0.3 is 0.300049).
double in_dtype_of(const Tensor& x, double value, std::string_view name, std::source_location loc) {
  const DType dtype = api::node_of(x, name, loc)->dtype;
  return is_floating(dtype) ? ir::double_to_float_dtype(value, dtype) : value;
}

// PyTorch's elu kernel: x > 0 ? x * scale : expm1(x * input_scale) * alpha * scale, the branch
// chosen as its backward chooses it (x <= 0), so NaN takes the linear one's gradient. The expm1
// reads 0 where x > 0, so a large x never makes exp overflow into the gradient.
Tensor scaled_elu(const Tensor& x, double alpha, double scale, double input_scale,
                  std::string_view name, std::source_location loc) {
  return activation(x, name, loc, [&](const Tensor& v) {
    const Tensor below = le(v, 0, loc);
    const Tensor safe = where(below, v, 0.0, loc);
    return where(below, mul(expm1(mul(safe, input_scale, loc), loc), alpha * scale, loc),
                 mul(v, scale, loc), loc);
  });
}

// x as PyTorch's composites written in Python see it: integers become f32 (true division, tanh).
Tensor as_floating(const Tensor& x, std::string_view name, std::source_location loc) {
  const DType dtype = api::node_of(x, name, loc)->dtype;
  if (dtype == DType::bool_) {
    api::fail<DTypeError>(loc, name, "is not defined for bool tensors; cast to a numeric dtype");
  }
  return is_floating(dtype) ? x : x.to(DType::f32, loc);
}

// A bound for an integer x: PyTorch converts it to i64 checked.
std::int64_t integer_bound(double bound, std::string_view name, std::source_location loc) {
  if (!(bound >= -0x1p63 && bound < 0x1p63)) {
    api::fail<ValueError>(loc, name, "the bound ", bound,
                          " does not fit an integer tensor's i64; cast x to a floating dtype");
  }
  return std::int64_t(bound);
}

}  // namespace

Tensor leaky_relu(const Tensor& x, double negative_slope, std::source_location loc) {
  return activation(x, "leaky_relu", loc, [&](const Tensor& v) {
    return where(gt(v, 0, loc), v, mul(v, negative_slope, loc), loc);
  });
}

Tensor elu(const Tensor& x, double alpha, std::source_location loc) {
  return scaled_elu(x, alpha, 1, 1, "elu", loc);
}

Tensor selu(const Tensor& x, std::source_location loc) {
  return scaled_elu(x, 1.6732632423543772848170429916717, 1.0507009873554804934193349852946, 1,
                    "selu", loc);
}

Tensor celu(const Tensor& x, double alpha, std::source_location loc) {
  if (alpha == 0) api::fail<ValueError>(loc, "celu", "alpha must not be 0");
  return scaled_elu(x, alpha, 1, 1 / alpha, "celu", loc);
}

Tensor hardtanh(const Tensor& x, double min_val, double max_val, std::source_location loc) {
  if (!(min_val <= max_val)) {
    api::fail<ValueError>(loc, "hardtanh", "min_val ", min_val, " is above max_val ", max_val);
  }
  const DType dtype = api::node_of(x, "hardtanh", loc)->dtype;
  if (is_integer(dtype)) {  // as PyTorch's: a clamp by the bounds as integers
    return clamp(x, integer_bound(min_val, "hardtanh", loc),
                 integer_bound(max_val, "hardtanh", loc), loc);
  }
  return activation(x, "hardtanh", loc, [&](const Tensor& v) {
    // clamp's value; a gradient inside only, as PyTorch's hardtanh_backward (NaN is inside).
    const Tensor outside = logical_or(le(v, min_val, loc), ge(v, max_val, loc), loc);
    return where(outside, stop_gradient(clamp(v, min_val, max_val, loc), loc), v, loc);
  });
}

Tensor relu6(const Tensor& x, std::source_location loc) {
  return hardtanh(x, 0, 6, loc);
}

Tensor hardsigmoid(const Tensor& x, std::source_location loc) {
  return activation(x, "hardsigmoid", loc, [&](const Tensor& v) {
    // PyTorch multiplies by 1/6 in f32 rather than dividing by 6; its gradient flows strictly
    // inside (-3, 3), so NaN passes none.
    const Tensor ramp = mul(add(v, 3, loc), 1.0f / 6.0f, loc);
    const Tensor inside = logical_and(gt(v, -3, loc), lt(v, 3, loc), loc);
    const Tensor ends = where(le(v, -3, loc), 0.0, where(ge(v, 3, loc), 1.0, ramp, loc), loc);
    return where(inside, ramp, stop_gradient(ends, loc), loc);
  });
}

Tensor hardswish(const Tensor& x, std::source_location loc) {
  return activation(x, "hardswish", loc, [&](const Tensor& v) {
    // x * clamp(x + 3, 0, 6) * (1/6) in PyTorch's order (x at or below -3 gives -0); the gate is
    // chosen as PyTorch's backward chooses (0 at -3, 1 from 3 on and for NaN).
    const Tensor gate =
        where(le(v, -3, loc), 0.0, where(lt(v, 3, loc), add(v, 3, loc), 6.0, loc), loc);
    return mul(mul(v, gate, loc), 1.0f / 6.0f, loc);
  });
}

Tensor mish(const Tensor& x, std::source_location loc) {
  return activation(x, "mish", loc,
                    [&](const Tensor& v) { return mul(v, tanh(softplus(v, loc), loc), loc); });
}

Tensor log_sigmoid(const Tensor& x, std::source_location loc) {
  // 0 - softplus(-x): +0 for a large x, as PyTorch's min(x, 0) - log1p(exp(-|x|)); the
  // gradient is softplus's sigmoid, finite everywhere.
  return activation(x, "log_sigmoid", loc,
                    [&](const Tensor& v) { return sub(0.0, softplus(neg(v, loc), loc), loc); });
}

// PyTorch writes these two in Python from tensor ops, each rounding to the dtype: so are they.
Tensor softsign(const Tensor& x, std::source_location loc) {
  api::sync_if_trace_full();
  const Tensor v = as_floating(x, "softsign", loc);
  return div(v, add(abs(v, loc), 1, loc), loc);
}

Tensor tanhshrink(const Tensor& x, std::source_location loc) {
  api::sync_if_trace_full();
  const Tensor v = as_floating(x, "tanhshrink", loc);
  return sub(v, tanh(v, loc), loc);
}

Tensor softshrink(const Tensor& x, double lambd, std::source_location loc) {
  if (!(lambd >= 0)) api::fail<ValueError>(loc, "softshrink", "lambd must be >= 0, got ", lambd);
  const double l = in_dtype_of(x, lambd, "softshrink", loc);
  return activation(x, "softshrink", loc, [&](const Tensor& v) {
    // NaN fails the test and stays NaN, as PyTorch's.
    return where(le(abs(v, loc), l, loc), 0.0, sub(v, mul(sign(v, loc), l, loc), loc), loc);
  });
}

Tensor hardshrink(const Tensor& x, double lambd, std::source_location loc) {
  const double l = in_dtype_of(x, lambd, "hardshrink", loc);
  return activation(x, "hardshrink", loc, [&](const Tensor& v) {
    return where(logical_and(ge(v, -l, loc), le(v, l, loc), loc), 0.0, v, loc);
  });
}

Tensor threshold(const Tensor& x, double threshold, double value, std::source_location loc) {
  api::sync_if_trace_full();
  const DType dtype = api::node_of(x, "threshold", loc)->dtype;
  if (dtype == DType::bool_) {
    api::fail<DTypeError>(loc, "threshold", "is not defined for bool tensors");
  }
  if (!is_floating(dtype)) {  // PyTorch's kernel takes both numbers as x's integer dtype
    api::check_fill_fits(value, dtype, "threshold", loc);
    return where(le(x, integer_bound(threshold, "threshold", loc), loc),
                 Scalar(std::int64_t(value)), x, loc);
  }
  const double bound = in_dtype_of(x, threshold, "threshold", loc);
  return activation(x, "threshold", loc,
                    [&](const Tensor& v) { return where(le(v, bound, loc), value, v, loc); });
}

Tensor glu(const Tensor& x, int axis, std::source_location loc) {
  api::sync_if_trace_full();
  const Shape& shape = api::node_of(x, "glu", loc)->shape;
  if (shape.rank() == 0) api::fail<ShapeError>(loc, "glu", "cannot halve a 0-d tensor");
  const int a = api::normalize_axis(axis, shape.rank(), "glu", loc);
  if (shape[a] % 2 != 0) {
    api::fail<ShapeError>(loc, "glu", "halves axis ", a, " of shape ", shape.to_string(),
                          ", whose size must be even");
  }
  return activation(x, "glu", loc, [&](const Tensor& v) {
    const std::vector<Tensor> halves = chunk(v, 2, a, loc);
    return mul(halves[0], sigmoid(halves[1], loc), loc);
  });
}

}  // namespace lazy

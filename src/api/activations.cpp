// torch.nn.functional's activations as composites of where, comparisons and the transcendental
// primitives, arranged so that their gradients are PyTorch's at the kinks (a branch's value at a
// corner comes from the side whose derivative PyTorch takes) and so that a branch not taken never
// feeds an infinity into the gradient (0 * inf).
#include <cmath>
#include <vector>

#include "api/composites.h"
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

// PyTorch's elu kernel: x > 0 ? x * scale : expm1(x * input_scale) * alpha * scale. The expm1
// reads 0 where x > 0, so a large x never makes exp overflow into the gradient.
Tensor scaled_elu(const Tensor& x, double alpha, double scale, double input_scale,
                  std::string_view name, std::source_location loc) {
  return activation(x, name, loc, [&](const Tensor& v) {
    const Tensor positive = gt(v, 0, loc);
    const Tensor below = where(positive, 0.0, v, loc);
    return where(positive, mul(v, scale, loc),
                 mul(expm1(mul(below, input_scale, loc), loc), alpha * scale, loc), loc);
  });
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
  if (is_integer(dtype)) {  // as PyTorch's: a clamp, the bounds truncated to integers
    return clamp(x, std::int64_t(min_val), std::int64_t(max_val), loc);
  }
  return activation(x, "hardtanh", loc, [&](const Tensor& v) {
    // clamp's value; a gradient only strictly inside, as PyTorch's hardtanh_backward.
    const Tensor inside = logical_and(gt(v, min_val, loc), lt(v, max_val, loc), loc);
    return where(inside, v, stop_gradient(clamp(v, min_val, max_val, loc), loc), loc);
  });
}

Tensor relu6(const Tensor& x, std::source_location loc) {
  return hardtanh(x, 0, 6, loc);
}

Tensor hardsigmoid(const Tensor& x, std::source_location loc) {
  return activation(x, "hardsigmoid", loc, [&](const Tensor& v) {
    // PyTorch multiplies by 1/6 in f32 rather than dividing by 6.
    const Tensor ramp = mul(add(v, 3, loc), 1.0f / 6.0f, loc);
    return where(le(v, -3, loc), 0.0, where(ge(v, 3, loc), 1.0, ramp, loc), loc);
  });
}

Tensor hardswish(const Tensor& x, std::source_location loc) {
  return activation(x, "hardswish", loc, [&](const Tensor& v) {
    // x * clamp(x + 3, 0, 6) * (1/6) in PyTorch's order (x at or below -3 gives -0); the corners
    // take the constant sides, as PyTorch's backward does (0 at -3, 1 at 3).
    const Tensor gate =
        where(le(v, -3, loc), 0.0, where(ge(v, 3, loc), 6.0, add(v, 3, loc), loc), loc);
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

Tensor softsign(const Tensor& x, std::source_location loc) {
  return activation(x, "softsign", loc,
                    [&](const Tensor& v) { return div(v, add(abs(v, loc), 1, loc), loc); });
}

Tensor tanhshrink(const Tensor& x, std::source_location loc) {
  return activation(x, "tanhshrink", loc,
                    [&](const Tensor& v) { return sub(v, tanh(v, loc), loc); });
}

Tensor softshrink(const Tensor& x, double lambd, std::source_location loc) {
  if (!(lambd >= 0)) api::fail<ValueError>(loc, "softshrink", "lambd must be >= 0, got ", lambd);
  return activation(x, "softshrink", loc, [&](const Tensor& v) {
    // NaN fails the test and stays NaN, as PyTorch's.
    return where(le(abs(v, loc), lambd, loc), 0.0, sub(v, mul(sign(v, loc), lambd, loc), loc), loc);
  });
}

Tensor hardshrink(const Tensor& x, double lambd, std::source_location loc) {
  return activation(x, "hardshrink", loc, [&](const Tensor& v) {
    return where(logical_and(ge(v, -lambd, loc), le(v, lambd, loc), loc), 0.0, v, loc);
  });
}

Tensor threshold(const Tensor& x, double threshold, double value, std::source_location loc) {
  return activation(x, "threshold", loc,
                    [&](const Tensor& v) { return where(le(v, threshold, loc), value, v, loc); });
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

Tensor isclose(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan,
               std::source_location loc) {
  api::sync_if_trace_full();
  const DType dtype = api::node_of(a, "isclose", loc)->dtype;
  const DType other = api::node_of(b, "isclose", loc)->dtype;
  if (dtype != other) {
    api::fail<DTypeError>(loc, "isclose", "compares tensors of one dtype, got ", dtype_name(dtype),
                          " and ", dtype_name(other), "; cast one first");
  }
  if (!(rtol >= 0) || !(atol >= 0)) {
    api::fail<ValueError>(loc, "isclose", "rtol and atol must be >= 0, got ", rtol, " and ", atol);
  }
  // PyTorch's order of tensor ops, each rounding to the dtype: equal, or both NaN, or a finite
  // error within atol + |rtol * b|.
  Tensor close = eq(a, b, loc);
  if (equal_nan && is_floating(dtype)) {
    close = logical_or(close, logical_and(isnan(a, loc), isnan(b, loc), loc), loc);
  }
  if (rtol == 0 && atol == 0) return close;
  // Bools as f32; integers subtract in their own dtype and compare with the f32 bound.
  const Tensor x = dtype == DType::bool_ ? a.to(DType::f32, loc) : a;
  const Tensor y = dtype == DType::bool_ ? b.to(DType::f32, loc) : b;
  const Tensor error = abs(sub(x, y, loc), loc);
  const Tensor bound = add(abs(mul(y, rtol, loc), loc), atol, loc);
  return logical_or(close, logical_and(isfinite(error, loc), le(error, bound, loc), loc), loc);
}

bool allclose(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan,
              std::source_location loc) {
  return all(isclose(a, b, rtol, atol, equal_nan, loc), {}, false, loc).item<bool>(loc);
}

}  // namespace lazy

// Vector norms and normalize, from abs, pow and the reductions, as PyTorch's linalg.vector_norm
// computes them (sums in f32 for f16 and bf16); the 2-norm marks its root so its gradient at a
// zero norm is PyTorch's: 0, or NaN for a NaN or infinite cotangent (autodiff/composite_rules.cpp).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <string_view>

#include "api/broadcast.h"
#include "api/composite_marks.h"
#include "api/composites.h"
#include "api/reduced_shape.h"
#include "ir/type_promotion.h"
#include "lazy/autodiff.h"
#include "lazy/reductions.h"

namespace lazy {

namespace {

// s^(1/ord) for s >= 0: the exponent as f32 holds it, times the power of what that misses, so that
// f32's rounding of 1/3 (1e-8) does not move the root by ln(s) times it (4 ulps at s = 2e11, 12
// for the -3-norm of 3e10). The correction moves the value only: the gradient is the power's.
Tensor root(const Tensor& s, double ord, std::source_location loc) {
  const double exponent = 1.0 / ord;
  const double held = double(float(exponent));
  const Tensor rounded = pow(s, held, loc);
  if (held == exponent) return rounded;
  // rounded * (1 + d) as rounded + rounded * d: d is a few parts in 2^24 of ln(s), which 1 + d
  // would round away.
  const Tensor correction =
      stop_gradient(mul(rounded, mul(log(s, loc), exponent - held, loc), loc), loc);
  // An infinite s or root (0 times inf, or inf plus inf times a negative d) takes none.
  return where(isfinite(correction, loc), add(rounded, correction, loc), rounded, loc);
}

// sqrt(sum(v * v)) over `axes`, its root marked `kind`: the gradients at a zero norm differ
// (vector_norm's passes a NaN cotangent on, cdist's does not).
Tensor two_norm(const Tensor& v, const Axes& axes, bool keepdim, api::CompositeKind kind,
                std::source_location loc) {
  const Tensor squares = sum(mul(v, v, loc), axes, keepdim, loc);
  Tensor result = sqrt(squares, loc);
  api::mark_composite(result, {kind, squares, {}, {}});
  return result;
}

}  // namespace

Tensor vector_norm(const Tensor& x, double ord, const Axes& axes, bool keepdim,
                   std::source_location loc) {
  api::sync_if_trace_full();
  api::require_floating(x, "vector_norm", loc);
  const std::int64_t folded = api::check_axes(x.shape(), axes, "vector_norm", loc);
  if (std::isnan(ord)) api::fail<ValueError>(loc, "vector_norm", "ord must not be NaN");
  const bool no_identity = ord < 0;  // -inf and negative powers: a minimum over nothing
  if ((no_identity || ord == INFINITY) && folded == 0) {
    api::fail<ValueError>(loc, "vector_norm", "cannot take the ", api::number_text(ord),
                          "-norm over no element: it has no identity");
  }
  return api::in_compute_type(x, loc, [&](const Tensor& v) {
    const Tensor magnitude = abs(v, loc);
    if (ord == INFINITY) return max(magnitude, axes, keepdim, loc);
    if (ord == -INFINITY) return min(magnitude, axes, keepdim, loc);
    if (ord == 0) return sum(ne(v, 0.0, loc).to(DType::f32, loc), axes, keepdim, loc);
    if (ord == 1) return sum(magnitude, axes, keepdim, loc);
    if (ord == 2) return two_norm(v, axes, keepdim, api::CompositeKind::two_norm_root, loc);
    // Above order 1 the gradient is PyTorch's rule (autodiff/composite_rules.cpp). Below it zero
    // elements pass none (PyTorch's backward masks them): their power is put in as |x| * 0, whose
    // slope 0 still turns a NaN norm's NaN into NaN there, as PyTorch's (torch_check seed 17919),
    // or (a negative ord) inf. A zero norm reads its root at 1 for the same reason.
    const Tensor zero_element = eq(magnitude, 0.0, loc);
    const Tensor powers_of_nonzero = pow(where(zero_element, 1.0, magnitude, loc), ord, loc);
    const Tensor terms = ord > 0
                             ? where(zero_element, mul(magnitude, 0.0, loc), powers_of_nonzero, loc)
                             : where(zero_element, INFINITY, powers_of_nonzero, loc);
    if (ord < 0) return root(sum(terms, axes, keepdim, loc), ord, loc);
    const Tensor powers = sum(terms, axes, true, loc);
    const Tensor zero = eq(powers, 0.0, loc);
    const Tensor norm = where(zero, 0.0, root(where(zero, 1.0, powers, loc), ord, loc), loc);
    if (ord > 1) api::mark_composite(norm, {api::CompositeKind::power_norm, v, {}, axes, ord});
    return keepdim ? norm
                   : norm.reshape(
                         api::reduced_shape(v.shape(), axes, false, "vector_norm", loc).shape, loc);
  });
}

Tensor cdist(const Tensor& x1, const Tensor& x2, double p, std::source_location loc) {
  api::sync_if_trace_full();
  const ir::Node* a = api::node_of(x1, "cdist", loc);
  const ir::Node* b = api::node_of(x2, "cdist", loc);
  if (!(p >= 0))
    api::fail<ValueError>(loc, "cdist", "p must be at least 0, got ", api::number_text(p));
  for (const ir::Node* x : {a, b}) {
    if (x->dtype != DType::f32) {
      api::fail<DTypeError>(loc, "cdist", "takes f32 tensors, as PyTorch's CUDA kernel, got ",
                            dtype_name(x->dtype), "; cast it with .to(lazy::f32) first");
    }
    if (x->shape.rank() < 2) {
      api::fail<ShapeError>(loc, "cdist",
                            "takes tensors of at least 2 axes (rows by coordinates), got ",
                            x->shape.to_string());
    }
  }
  const std::int64_t coordinates = a->shape[a->shape.rank() - 1];
  if (coordinates != b->shape[b->shape.rank() - 1]) {
    api::fail<ShapeError>(loc, "cdist", "x1 ", a->shape.to_string(), " and x2 ",
                          b->shape.to_string(), " have rows of different lengths");
  }
  // The batch axes broadcast as the difference's would, named as cdist's.
  const Shape batch1(std::span(a->shape.begin(), a->shape.rank() - 2));
  const Shape batch2(std::span(b->shape.begin(), b->shape.rank() - 2));
  api::broadcast_shapes(std::array{batch1, batch2}, "cdist", loc);
  const Tensor differences = sub(x1.unsqueeze(-2, loc), x2.unsqueeze(-3, loc), loc);
  // PyTorch's _cdist_backward gives 0 at a zero distance whatever the cotangent.
  if (p == 2 && coordinates > 0)
    return two_norm(differences, -1, false, api::CompositeKind::std_root, loc);
  // Over no coordinate every distance is 0, infinity's largest difference included.
  return vector_norm(differences, coordinates == 0 ? 1 : p, -1, false, loc);
}

Tensor normalize(const Tensor& x, double p, int axis, double eps, std::source_location loc) {
  api::sync_if_trace_full();
  api::require_floating(x, "normalize", loc);
  api::check_axes(x.shape(), axis, "normalize", loc);
  // In f32 for f16 and bf16, rounded once: f16 rounds eps = 1e-12 to 0, and a zero row would be
  // 0 / 0 (PyTorch's NaN) or 0 as fusion kept the clamp in f32 or not.
  return api::in_compute_type(x, loc, [&](const Tensor& v) {
    const Tensor norm = vector_norm(v, p, axis, true, loc);
    return div(v, maximum(norm, eps, loc), loc);  // clamp_min: NaN stays NaN
  });
}

Tensor cosine_similarity(const Tensor& x1, const Tensor& x2, int axis, double eps,
                         std::source_location loc) {
  api::sync_if_trace_full();
  const ir::Node* a = api::node_of(x1, "cosine_similarity", loc);
  const ir::Node* b = api::node_of(x2, "cosine_similarity", loc);
  const std::array shapes = {a->shape, b->shape};
  const Shape common = api::broadcast_shapes(shapes, "cosine_similarity", loc);
  api::check_axes(common, axis, "cosine_similarity", loc);
  const std::array operands = {api::promotion_operand(x1, "cosine_similarity", loc),
                               api::promotion_operand(x2, "cosine_similarity", loc)};
  const DType common_dtype = ir::result_type(operands);
  if (!is_floating(common_dtype)) {
    api::fail<DTypeError>(loc, "cosine_similarity", "needs operands that promote to a floating ",
                          "dtype, got ", dtype_name(a->dtype), " and ", dtype_name(b->dtype));
  }
  // Each operand in the common dtype and shape, over its own norm; below eps the clamp adds a
  // constant to the norm, so the norm's gradient flows as in PyTorch's no-grad clamp_min_.
  // In f32, rounded once to the common dtype: f16 rounds eps = 1e-8 to 0 (see normalize).
  const auto unit = [&](const Tensor& x) {
    const Tensor v = x.to(common_dtype, loc).to(DType::f32, loc).expand(common, loc);
    const Tensor norm = vector_norm(v, 2, axis, true, loc);
    const Tensor clamped = where(
        lt(norm, eps, loc), add(norm, stop_gradient(sub(eps, norm, loc), loc), loc), norm, loc);
    return div(v, clamped, loc);
  };
  return sum(mul(unit(x1), unit(x2), loc), axis, false, loc).to(common_dtype, loc);
}

Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, double p, double eps, bool keepdim,
                         std::source_location loc) {
  api::sync_if_trace_full();
  const Tensor difference = add(sub(x1, x2, loc), eps, loc);
  return vector_norm(difference, p, -1, keepdim, loc);
}

}  // namespace lazy

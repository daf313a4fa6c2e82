#include "autodiff/composite_rules.h"

#include <limits>

#include "lazy/ops.h"
#include "lazy/reductions.h"

namespace lazy::autodiff {

Tensor composite_vjp(const api::CompositeMark& mark, const Tensor& result, const Tensor& cotangent,
                     std::source_location loc) {
  const Tensor& g = cotangent;
  const Tensor& y = result;
  const auto row_sum = [&](const Tensor& t) { return sum(t, mark.axes, true, loc); };
  const auto row_mean = [&](const Tensor& t) { return mean(t, mark.axes, true, loc); };
  switch (mark.kind) {
    case api::CompositeKind::softmax:
      return mul(y, sub(g, row_sum(mul(g, y, loc)), loc), loc);
    case api::CompositeKind::log_softmax:
      return sub(g, mul(exp(y, loc), row_sum(g), loc), loc);
    case api::CompositeKind::logsumexp:
      // d logsumexp / dx is softmax(x), exp(x - result) with the result broadcast back.
      return mul(g, exp(sub(mark.input, y, loc), loc), loc);
    case api::CompositeKind::normalize: {
      // y = (x - mean) * s: dx = s * (g - mean(g) - y * mean(g * y)).
      const Tensor centered_g = sub(g, row_mean(g), loc);
      return mul(mark.saved, sub(centered_g, mul(y, row_mean(mul(g, y, loc)), loc), loc), loc);
    }
    case api::CompositeKind::rms_scale:
      // y = x * s with s = rsqrt(mean(x^2) + eps): dx = s * (g - y * mean(g * y)).
      return mul(mark.saved, sub(g, mul(y, row_mean(mul(g, y, loc)), loc), loc), loc);
    case api::CompositeKind::softplus:
      return mul(g, sigmoid(mark.input, loc), loc);
    case api::CompositeKind::std_root:
      // A zero std (all elements equal) takes none, as PyTorch's std_backward masks it.
      return where(eq(y, 0.0, loc), 0.0, div(g, mul(y, 2.0, loc), loc), loc);
    case api::CompositeKind::two_norm_root:
      // PyTorch's norm_backward masks x / norm at a zero norm, not the cotangent: there a NaN or
      // infinite one still gives NaN (torch_check seed 18034, through cosine_similarity).
      return mul(g, where(eq(y, 0.0, loc), 0.0, div(0.5, y, loc), loc), loc);
    case api::CompositeKind::variance: {
      // PyTorch's var_backward: 2 / (n - correction) * g * (x - mean), the divisor not clamped
      // at 0; over all elements with none left, inf where x is off the mean and NaN on it.
      // x - mean as the forward centred it, without rounding the mean at x's magnitude.
      const Tensor& centered = mark.saved;
      // A 0-d x reduces over all of its one element too, whatever axis named it (PyTorch).
      const bool all_elements = mark.axes.list().empty() || mark.input.rank() == 0;
      if (all_elements && mark.number <= 0) {
        const double inf = std::numeric_limits<double>::infinity();
        const double nan = std::numeric_limits<double>::quiet_NaN();
        return mul(g, where(eq(centered, 0, loc), nan, inf, loc), loc);
      }
      return mul(mul(g, 2.0 / mark.number, loc), centered, loc);
    }
    case api::CompositeKind::binary_cross_entropy: {
      // PyTorch's binary_cross_entropy_backward: the denominator clamped at 1e-12, so that an
      // input of 0 or 1 gets a finite gradient (the clamped logs' would be 1 - t or 0).
      const Tensor& x = mark.input;
      const Tensor spread = maximum(mul(sub(1.0, x, loc), x, loc), 1e-12, loc);
      return div(mul(g, sub(x, mark.second, loc), loc), spread, loc);
    }
    case api::CompositeKind::power_norm: {
      // PyTorch's norm_backward, x |x|^(p - 2) / norm^(p - 1), as g sign(x) (|x| / norm)^(p - 1):
      // 0 where the norm is 0, NaN everywhere where it is NaN (and 0, not PyTorch's NaN, where
      // |x|^(p - 1) alone would overflow).
      const Tensor& x = mark.input;
      const Tensor slope =
          mul(sign(x, loc), pow(div(abs(x, loc), y, loc), mark.number - 1, loc), loc);
      return where(eq(y, 0.0, loc), 0.0, mul(g, slope, loc), loc);
    }
    case api::CompositeKind::logits_cross_entropy: {
      // PyTorch's binary_cross_entropy_with_logits_backward: (pw t + 1 - t) sigmoid(x) - pw t,
      // sigmoid(x) - t without pos_weight.
      const Tensor& x = mark.input;
      const Tensor& t = mark.second;
      if (!mark.third.defined()) return mul(g, sub(sigmoid(x, loc), t, loc), loc);
      const Tensor weighted_t = mul(mark.third, t, loc);
      const Tensor slope =
          sub(mul(sub(add(weighted_t, 1.0, loc), t, loc), sigmoid(x, loc), loc), weighted_t, loc);
      return mul(g, slope, loc);
    }
    case api::CompositeKind::xlogy: {
      // PyTorch's: xlogy(g, y), 0 where x is 0 and y <= 0 (its masked_fill).
      const Tensor& y = mark.second;
      const Tensor masked = logical_and(eq(mark.input, 0, loc), le(y, 0, loc), loc);
      return where(masked, 0.0, xlogy(g, y, loc), loc);
    }
  }
  return {};
}

Tensor composite_vjp_of_second(const api::CompositeMark& mark, const Tensor& cotangent,
                               std::source_location loc) {
  const Tensor& x = mark.input;
  if (mark.kind == api::CompositeKind::xlogy) {
    return div(mul(cotangent, x, loc), mark.second, loc);  // g * x / y: NaN at x = y = 0
  }
  if (mark.kind == api::CompositeKind::logits_cross_entropy) {
    // PyTorch's target rule: -x, or log_sigmoid(-x) - pw log_sigmoid(x), whose terms an
    // infinite logit leaves 0 and an infinity (the forward's two infinite terms made NaN).
    if (!mark.third.defined()) return mul(cotangent, neg(x, loc), loc);
    const Tensor slope =
        sub(log_sigmoid(neg(x, loc), loc), mul(mark.third, log_sigmoid(x, loc), loc), loc);
    return mul(cotangent, slope, loc);
  }
  // binary_cross_entropy's target: log(1 - x) - log(x), unclamped, as PyTorch's.
  return mul(cotangent, sub(log1p(neg(x, loc), loc), log(x, loc), loc), loc);
}

Tensor composite_vjp_of_third(const api::CompositeMark& mark, const Tensor& cotangent,
                              std::source_location loc) {
  // logits_cross_entropy's pos_weight: -t log_sigmoid(x) (PyTorch has none).
  return mul(cotangent, neg(mul(mark.second, log_sigmoid(mark.input, loc), loc), loc), loc);
}

}  // namespace lazy::autodiff

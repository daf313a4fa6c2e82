#include "tools/fuzz/loss_recording.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "tools/fuzz/class_loss_recording.h"
#include "tools/fuzz/reduction_rules.h"
#include "tools/fuzz/rule_helpers.h"
#include "tools/fuzz/value_rules.h"

namespace lazy::fuzz {

namespace {

Reduction reduction_of(const std::string& name) {
  if (name == "none") return Reduction::none;
  if (name == "sum") return Reduction::sum;
  if (name == "batchmean") return Reduction::batchmean;
  return Reduction::mean;
}

// |d| < 1 ? 0.5 d^2 : |d| - 0.5 (smooth_l1_loss at beta 1, huber_loss at delta 1) of a difference
// in f32, rounded once to `result`: even, rising in |d|, with a slope of at most 1.
Bounds huber_rule(const Bounds& d, DType result) {
  const auto g = [](double v) { return v < 1 ? 0.5 * v * v : v - 0.5; };
  const double nearest = distance_from_zero(d.lo, d.hi);
  const double farthest = d.magnitude();
  // The linear branch subtracts 0.5 at the difference's magnitude; the quadratic rounds twice.
  const double arithmetic = ulp(DType::f32, farthest);
  return with_flags(inexact_result(result, g(nearest), g(farthest), d.err + arithmetic, 2), d);
}

// The per-element losses of x against t (both of dtype `dtype`), as the API computes them.
Bounds elementwise_rule(const std::string& loss, const Operand& x, const Operand& t, DType dtype) {
  if (loss == "mse_loss" || loss == "l1_loss") {
    const Operand d{binary_rule("sub", x, t, dtype, dtype), dtype};
    return unary_rule(loss == "mse_loss" ? "square" : "abs", d, dtype);
  }
  if (loss == "smooth_l1_loss" || loss == "huber_loss")
    return huber_rule(binary_rule("sub", x, t, DType::f32, DType::f32), dtype);
  if (loss == "binary_cross_entropy_with_logits") {
    // (1 - t) x - log_sigmoid(x)
    const Operand rest{binary_rule("sub", number_operand(1, dtype), t, dtype, dtype), dtype};
    const Operand linear{binary_rule("mul", rest, x, dtype, dtype), dtype};
    const Operand log_sigmoid{unary_rule("log_sigmoid", x, dtype), dtype};
    return binary_rule("sub", linear, log_sigmoid, dtype, dtype);
  }
  if (loss == "binary_cross_entropy") {
    // (t - 1) max(log1p(-x), -100) - t max(log(x), -100) in f32, rounded once to the dtype.
    constexpr DType f32 = DType::f32;
    const auto in_f32 = [](const Operand& v) {
      return Operand{converted(v.bounds, v.dtype, f32), f32};
    };
    const auto clamped_log = [&](std::string_view fn, const Operand& v) {
      const Operand log_v{unary_rule(fn, v, f32), f32};
      return Operand{binary_rule("maximum", log_v, number_operand(-100, f32), f32, f32), f32};
    };
    const Operand xf = in_f32(x), tf = in_f32(t);
    const Operand log_miss = clamped_log("log1p", Operand{unary_rule("neg", xf, f32), f32});
    const Operand log_hit = clamped_log("log", xf);
    const Operand t_less_one{binary_rule("sub", tf, number_operand(1, f32), f32, f32), f32};
    const Operand miss{binary_rule("mul", t_less_one, log_miss, f32, f32), f32};
    const Operand hit{binary_rule("mul", tf, log_hit, f32, f32), f32};
    return cast_rule(Operand{binary_rule("sub", miss, hit, f32, f32), f32}, dtype);
  }
  if (loss == "kl_div_log_target") {
    // exp(t) (t - x)
    const Operand weight{unary_rule("exp", t, dtype), dtype};
    const Operand gap{binary_rule("sub", t, x, dtype, dtype), dtype};
    return binary_rule("mul", weight, gap, dtype, dtype);
  }
  // kl_div: xlogy(t, t) - t x
  const Operand entropy{self_xlogy_rule(converted(t.bounds, t.dtype, dtype), dtype), dtype};
  const Operand cross{binary_rule("mul", t, x, dtype, dtype), dtype};
  return binary_rule("sub", entropy, cross, dtype, dtype);
}

// `weight` and `pos_weight` undefined where the step gives none.
Tensor call_loss(const std::string& loss, const Tensor& x, const Tensor& t, const Tensor& weight,
                 const Tensor& pos_weight, Reduction reduction, std::source_location loc) {
  if (loss == "mse_loss") return mse_loss(x, t, reduction, loc);
  if (loss == "l1_loss") return l1_loss(x, t, reduction, loc);
  if (loss == "smooth_l1_loss") return smooth_l1_loss(x, t, reduction, 1.0, loc);
  if (loss == "huber_loss") return huber_loss(x, t, reduction, 1.0, loc);
  if (loss == "binary_cross_entropy") return binary_cross_entropy(x, t, weight, reduction, loc);
  if (loss == "binary_cross_entropy_with_logits")
    return binary_cross_entropy_with_logits(x, t, weight, reduction, pos_weight, loc);
  return kl_div(x, t, reduction, loss == "kl_div_log_target", loc);
}

// (1 - t) x - (1 + (pos_weight - 1) t) log_sigmoid(x), each op in the dtype: the pos_weight form
// of binary_cross_entropy_with_logits.
Bounds pos_weighted_logits_rule(const Operand& x, const Operand& t, const Operand& pos_weight,
                                DType dtype) {
  const Operand less_one{binary_rule("sub", pos_weight, number_operand(1, dtype), dtype, dtype),
                         dtype};
  const Operand scaled{binary_rule("mul", less_one, t, dtype, dtype), dtype};
  const Operand log_weight{binary_rule("add", scaled, number_operand(1, dtype), dtype, dtype),
                           dtype};
  const Operand log_sigmoid{unary_rule("log_sigmoid", x, dtype), dtype};
  const Operand weighted{binary_rule("mul", log_sigmoid, log_weight, dtype, dtype), dtype};
  const Operand rest{binary_rule("sub", number_operand(1, dtype), t, dtype, dtype), dtype};
  const Operand linear{binary_rule("mul", rest, x, dtype, dtype), dtype};
  return binary_rule("sub", linear, weighted, dtype, dtype);
}

}  // namespace

Bounds self_xlogy_rule(const Bounds& t, DType result) {
  if (t.lo < 0) reject("xlogy", "a negative t gives NaN");
  const auto f = [](double v) { return v == 0 ? 0.0 : v * std::log(v); };
  double lo = std::min(f(t.lo), f(t.hi)), hi = std::max(f(t.lo), f(t.hi));
  constexpr double kTurn = 0.36787944117144233;  // 1 / e, where t log t is least
  if (t.lo < kTurn && t.hi > kTurn) lo = f(kTurn);
  double inherited = 0;
  if (t.err > 0) {
    // The slope log t + 1 grows without bound toward 0: an inexact t must stay clear of it.
    const double near = t.lo - t.err, far = t.hi + t.err;
    if (near < 1.0 / 64)
      reject("xlogy", "an inexact t may be near 0, where its slope is unbounded");
    inherited = t.err * std::max(std::abs(std::log(near) + 1), std::abs(std::log(far) + 1));
  }
  if (!(std::max(std::abs(lo), std::abs(hi)) < largest(result) / 4))
    reject("xlogy", "the result may overflow");
  // logf's ulps scaled by t, and the product's rounding: at most a few ulps of t log t away from
  // t = 1, and of t near it, where log t is small and exact to its own ulps.
  const double arithmetic = 4 * ulp(DType::f32, t.magnitude());
  return with_flags(inexact_result(result, lo, hi, inherited + arithmetic, 4), t);
}

RecordedStep record_loss(const Step& step, const Builder& earlier, std::source_location loc) {
  const std::size_t dot = step.name.find('.');
  const std::string loss = step.name.substr(0, dot);
  const Reduction reduction = reduction_of(step.name.substr(dot + 1));
  if (loss.starts_with("cross_entropy") || loss == "nll_loss")
    return record_class_loss(step, loss, reduction, earlier, loc);
  const int xi = step.args[0].step, ti = step.args[1].step;
  const Tensor& x = earlier.tensor(xi);
  const Tensor& t = earlier.tensor(ti);
  const auto given = [&](int arg) {
    return arg >= 0 ? earlier.tensor(step.args[std::size_t(arg)].step) : Tensor();
  };
  const auto operand = [&](int arg, DType dtype) {
    const int i = step.args[std::size_t(arg)].step;
    return Operand{converted(earlier.bounds(i), earlier.tensor(i).dtype(), dtype), dtype};
  };
  RecordedStep out;
  out.out =
      call_loss(loss, x, t, given(step.weight_arg), given(step.pos_weight_arg), reduction, loc);
  const DType dtype = out.out.dtype();
  const Operand xo{earlier.bounds(xi), x.dtype()}, to{earlier.bounds(ti), t.dtype()};
  Bounds each = step.pos_weight_arg >= 0
                    ? pos_weighted_logits_rule(xo, to, operand(step.pos_weight_arg, dtype), dtype)
                    : elementwise_rule(loss, xo, to, dtype);
  // A weight multiplies each loss, which keeps its dtype.
  if (step.weight_arg >= 0)
    each = binary_rule("mul", Operand{each, dtype}, operand(step.weight_arg, dtype), dtype, dtype);
  if (reduction == Reduction::none) {
    out.bounds = each;
    out.shape = earlier.shape(xi);
    return out;
  }
  const std::int64_t n = x.numel();
  const Operand losses{each, dtype};
  if (reduction == Reduction::batchmean) {
    // The sum divided by the input's first axis (1 for a 0-d input).
    const Operand total{reduce_rule("sum", losses, dtype, n), dtype};
    const double rows = x.rank() > 0 ? double(x.shape()[0]) : 1.0;
    out.bounds = binary_rule("div", total, number_operand(rows, dtype), dtype, dtype);
  } else {
    out.bounds = reduce_rule(reduction == Reduction::sum ? "sum" : "mean", losses, dtype, n);
  }
  return out;
}

}  // namespace lazy::fuzz

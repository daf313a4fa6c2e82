#include "tools/fuzz/class_loss_recording.h"

#include <algorithm>
#include <cmath>

#include "tools/fuzz/reduction_rules.h"
#include "tools/fuzz/rule_helpers.h"
#include "tools/fuzz/value_rules.h"

namespace lazy::fuzz {

namespace {

Bounds negated(Bounds b) {
  const double lo = -b.hi;
  b.hi = -b.lo;
  b.lo = lo;
  return b;
}

// Per-element losses `each` (0 where ignored, when `ignorable`) over `n` elements, reduced.
Bounds reduced(Bounds each, bool ignorable, Reduction reduction, DType dtype, std::int64_t n) {
  Bounds taken = each;  // the elements counted
  if (ignorable) each.lo = std::min(each.lo, 0.0), each.hi = std::max(each.hi, 0.0);
  if (reduction == Reduction::none) return each;
  if (reduction == Reduction::sum) return reduce_rule("sum", Operand{each, dtype}, dtype, n);
  // The sum in f32 over the count of elements taken (a float), rounded once: a mean of those
  // taken, off by at most the sum's error; NaN when none is taken.
  const Bounds total = reduce_rule("sum", Operand{each, dtype}, DType::f32, n);
  Bounds b = inexact_result(dtype, taken.lo, taken.hi, total.err, 2);
  b = with_flags(b, total);
  b.special = b.special || ignorable || n == 0;
  return b;
}

// A weighted mean: sum(a_i) / sum(w_i) over the elements taken, in f32, rounded once, the
// weights w at least w.lo > 0. Each a_i / w_i lies in [lo, hi], so the quotient does too; it is
// off by the sums' errors over the least sum of the weights taken (one weight when some may be
// ignored), and NaN when none is taken.
Bounds weighted_mean(Bounds a, const Bounds& w, double lo, double hi, bool ignorable, DType dtype,
                     std::int64_t n) {
  if (ignorable) a.lo = std::min(a.lo, 0.0), a.hi = std::max(a.hi, 0.0);
  const Bounds total = reduce_rule("sum", Operand{a, dtype}, DType::f32, n);
  const Bounds weights = reduce_rule("sum", Operand{w, dtype}, DType::f32, n);
  const double least_weight = w.lo * (ignorable ? 1.0 : double(std::max<std::int64_t>(n, 1)));
  const double largest_ratio = std::max(std::abs(lo), std::abs(hi));
  const double err = (total.err + largest_ratio * weights.err) / least_weight;
  Bounds b = with_flags(inexact_result(dtype, lo, hi, err, 2), total, weights);
  b.special = b.special || ignorable || n == 0;
  return b;
}

// The range of a / w for a in [a.lo, a.hi] and w in [w.lo, w.hi], w > 0.
std::pair<double, double> quotient_range(const Bounds& a, const Bounds& w) {
  return corners(a.lo, a.hi, w.lo, w.hi, [](double x, double y) { return x / y; });
}

}  // namespace

RecordedStep record_class_loss(const Step& step, const std::string& loss, Reduction reduction,
                               const Builder& earlier, std::source_location loc) {
  const int xi = step.args[0].step, ti = step.args[1].step;
  const Tensor& x = earlier.tensor(xi);
  const Tensor& t = earlier.tensor(ti);
  CrossEntropyOptions options;
  options.ignore_index = step.k;
  options.reduction = reduction;
  options.label_smoothing = step.q;
  const bool weighted = step.weight_arg >= 0;
  const int wi = weighted ? step.args[std::size_t(step.weight_arg)].step : -1;
  if (weighted) options.weight = earlier.tensor(wi);
  RecordedStep out;
  out.out = loss == "nll_loss" ? nll_loss(x, t, options, loc) : cross_entropy(x, t, options, loc);
  const DType dtype = out.out.dtype();
  const int axis = x.rank() == 1 ? 0 : 1;
  const std::int64_t classes = x.shape()[axis];
  const Operand in{earlier.bounds(xi), x.dtype()};
  const Bounds log_probs = loss == "nll_loss" ? converted(in.bounds, in.dtype, dtype)
                                              : softmax_rule(in, dtype, classes, true);
  const Operand lp{log_probs, dtype};
  // The class weights as the loss multiplies them (in the input's dtype), else 1.
  const Operand w{weighted ? converted(earlier.bounds(wi), earlier.tensor(wi).dtype(), dtype)
                           : Bounds{1, 1, 0, 0},
                  dtype};
  if (weighted && !(w.bounds.lo > 0)) reject(loss, "the class weights may not be positive");
  std::vector<Dim> each_shape = earlier.shape(xi);
  each_shape.erase(each_shape.begin() + axis);
  out.shape = reduction == Reduction::none ? each_shape : std::vector<Dim>{};
  const std::int64_t n = classes > 0 ? x.numel() / classes : 0;
  const double e = step.q;
  if (loss == "cross_entropy_probabilities") {
    // -sum over classes of weight * log_probs * target, the target mixed with 1 / C by e.
    Operand target{earlier.bounds(ti), t.dtype()};
    if (e > 0) {
      const Operand kept{binary_rule("mul", target, number_operand(1 - e, dtype), dtype, dtype),
                         dtype};
      target = Operand{
          binary_rule("add", kept, number_operand(e / double(classes), dtype), dtype, dtype),
          dtype};
    }
    Operand terms{binary_rule("mul", lp, target, dtype, dtype), dtype};
    if (weighted) terms = Operand{binary_rule("mul", terms, w, dtype, dtype), dtype};
    out.bounds =
        reduced(negated(reduce_rule("sum", terms, dtype, classes)), false, reduction, dtype, n);
    if (reduction == Reduction::mean) out.bounds.special = out.bounds.special || n == 0;
    return out;
  }
  const bool ignorable = step.k >= 0 && step.k < classes;
  // Each element's weighted loss -w[t] lp[t], and the same reduction of a per-element term.
  const auto reduce = [&](const Bounds& each, double lo, double hi) {
    if (!weighted || reduction != Reduction::mean) {
      return reduced(each, ignorable, reduction, dtype, n);
    }
    return weighted_mean(each, w.bounds, lo, hi, ignorable, dtype, n);
  };
  const Bounds lost = negated(log_probs);
  const Bounds picked_each = weighted ? negated(binary_rule("mul", lp, w, dtype, dtype)) : lost;
  const Bounds picked = reduce(picked_each, lost.lo, lost.hi);
  if (e == 0) {
    out.bounds = picked;
    return out;
  }
  // (1 - e) times that, plus e / C times the same reduction of -sum over classes of w log_probs.
  const Operand terms{weighted ? binary_rule("mul", lp, w, dtype, dtype) : log_probs, dtype};
  const Bounds spread_each = negated(reduce_rule("sum", terms, dtype, classes));
  const auto [spread_lo, spread_hi] = quotient_range(spread_each, w.bounds);
  const Bounds spread = reduce(spread_each, spread_lo, spread_hi);
  const Operand first{
      binary_rule("mul", Operand{picked, dtype}, number_operand(1 - e, dtype), dtype, dtype),
      dtype};
  const Operand second{binary_rule("mul", Operand{spread, dtype},
                                   number_operand(e / double(classes), dtype), dtype, dtype),
                       dtype};
  out.bounds = binary_rule("add", first, second, dtype, dtype);
  return out;
}

}  // namespace lazy::fuzz

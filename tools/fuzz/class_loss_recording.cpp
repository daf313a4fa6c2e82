#include "tools/fuzz/class_loss_recording.h"

#include <algorithm>

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
  RecordedStep out;
  out.out = loss == "nll_loss" ? nll_loss(x, t, options, loc) : cross_entropy(x, t, options, loc);
  const DType dtype = out.out.dtype();
  const int axis = x.rank() == 1 ? 0 : 1;
  const std::int64_t classes = x.shape()[axis];
  const Operand in{earlier.bounds(xi), x.dtype()};
  const Bounds log_probs = loss == "nll_loss" ? converted(in.bounds, in.dtype, dtype)
                                              : softmax_rule(in, dtype, classes, true);
  const Operand lp{log_probs, dtype};
  std::vector<Dim> each_shape = earlier.shape(xi);
  each_shape.erase(each_shape.begin() + axis);
  out.shape = reduction == Reduction::none ? each_shape : std::vector<Dim>{};
  const std::int64_t n = classes > 0 ? x.numel() / classes : 0;
  const double e = step.q;
  if (loss == "cross_entropy_probabilities") {
    // -sum over classes of log_probs * target, the target mixed with 1 / C by e.
    Operand target{earlier.bounds(ti), t.dtype()};
    if (e > 0) {
      const Operand kept{binary_rule("mul", target, number_operand(1 - e, dtype), dtype, dtype),
                         dtype};
      target = Operand{
          binary_rule("add", kept, number_operand(e / double(classes), dtype), dtype, dtype),
          dtype};
    }
    const Operand terms{binary_rule("mul", lp, target, dtype, dtype), dtype};
    out.bounds =
        reduced(negated(reduce_rule("sum", terms, dtype, classes)), false, reduction, dtype, n);
    if (reduction == Reduction::mean) out.bounds.special = out.bounds.special || n == 0;
    return out;
  }
  const bool ignorable = step.k >= 0 && step.k < classes;
  const Bounds picked = reduced(negated(log_probs), ignorable, reduction, dtype, n);
  if (e == 0) {
    out.bounds = picked;
    return out;
  }
  // (1 - e) times that, plus e / C times the same reduction of -sum over classes of log_probs.
  const Bounds spread =
      reduced(negated(reduce_rule("sum", lp, dtype, classes)), ignorable, reduction, dtype, n);
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

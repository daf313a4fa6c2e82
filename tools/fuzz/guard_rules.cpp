#include "tools/fuzz/guard_rules.h"

#include <algorithm>
#include <cmath>

#include "tools/fuzz/rule_helpers.h"

namespace lazy::fuzz {

namespace {

double logit(double v) {
  const double z = std::clamp(v, kLogitEps, 1 - kLogitEps);
  return std::log(z / (1 - z));
}

// log(z / (1 - z)) of x clamped to [eps, 1 - eps], in f32: the clamp passes x's error, the slope
// 1 / (z (1 - z)) scales it, and 1 - z's rounding is amplified by 1 / (1 - z).
Bounds logit_rule(const Bounds& x, DType result) {
  const double near_lo = std::clamp(x.lo - x.err, kLogitEps, 1 - kLogitEps);
  const double near_hi = std::clamp(x.hi + x.err, kLogitEps, 1 - kLogitEps);
  const auto slope = [](double z) { return 1 / (z * (1 - z)); };
  // Convex slope with its least at 1/2: the largest is at an end.
  const double steepest = std::max(slope(near_lo), slope(near_hi));
  const double lo = logit(x.lo), hi = logit(x.hi);
  const double arithmetic =
      4 * std::ldexp(1.0, -24) * (2 + 1 / (1 - near_hi)) + 4 * ulp(DType::f32, std::max(-lo, hi));
  return with_flags(inexact_result(result, lo, hi, steepest * x.err + arithmetic, 2), x);
}

// NaN to 0 and the infinities to the dtype's largest values: a finite result, the others kept.
Bounds nan_to_num_rule(const Bounds& x, DType result) {
  if (!is_floating(result) || !x.special) return x;
  Bounds b = x;
  b.lo = -largest(result);
  b.hi = largest(result);
  b.special = false;
  // An element NaN on one side and a number on the other becomes 0 against the number.
  b.unchecked = x.unchecked || x.specials_may_differ;
  return b;
}

// x where x > 0.5, else -2: a jump at 0.5, so an inexact x may not come near it.
Bounds threshold_rule(const Bounds& x) {
  if (x.err > 0 && x.lo - x.err <= kThreshold && x.hi + x.err >= kThreshold)
    reject("threshold", "an inexact x may jump at the threshold");
  Bounds b = x;
  b.lo = x.lo <= kThreshold ? kThresholdValue : x.lo;
  b.hi = x.hi > kThreshold ? x.hi : kThresholdValue;
  if (b.quantum != kNoQuantum) b.quantum = std::max(b.quantum, -1);  // -2 on the grid
  return b;
}

}  // namespace

const std::vector<std::string>& domain_guard_names() {
  static const std::vector<std::string> names = {"logit", "nan_to_num", "threshold"};
  return names;
}

bool is_domain_guard(std::string_view op) {
  const std::vector<std::string>& names = domain_guard_names();
  return std::find(names.begin(), names.end(), op) != names.end();
}

Bounds domain_guard_rule(std::string_view op, const Bounds& x, DType result) {
  if (op == "logit") return logit_rule(x, result);
  if (op == "nan_to_num") return nan_to_num_rule(x, result);
  return threshold_rule(x);
}

}  // namespace lazy::fuzz

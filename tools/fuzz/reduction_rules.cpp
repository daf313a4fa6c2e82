#include "tools/fuzz/reduction_rules.h"

#include <algorithm>
#include <cmath>

#include "tools/fuzz/rule_helpers.h"

namespace lazy::fuzz {

namespace {

double log2_of(std::int64_t n) {
  return n > 1 ? std::log2(double(n)) : 0;
}

bool is_power_of_two(std::int64_t n) {
  return n > 0 && (n & (n - 1)) == 0;
}

}  // namespace

Bounds reduce_rule(std::string_view op, const Operand& in, DType result, std::int64_t n) {
  const Bounds x = in.bounds;
  const double nd = double(n);
  const double mag = x.magnitude();
  const double fold_error = (log2_of(n) + 8) * nd * mag * std::ldexp(1.0, -24);
  if (op == "max" || op == "min") return x;
  if (op == "any" || op == "all") {
    Bounds b = converted(x, in.dtype, DType::bool_);
    return bool_result(b.unchecked);
  }
  if (op == "sum") {
    double lo = nd * std::min(x.lo, 0.0), hi = nd * std::max(x.hi, 0.0);
    if (n > 0 && x.lo > 0) lo = x.lo;
    if (n > 0 && x.hi < 0) hi = x.hi;
    if (!is_floating(result)) {
      check_integer_range(op, nd * x.lo, nd * x.hi, result);
      return with_flags(Bounds{std::min(lo, nd * x.lo), std::max(hi, nd * x.hi), 0, 0}, x);
    }
    lo = std::min(lo, nd * x.lo), hi = std::max(hi, nd * x.hi);
    if (!(std::max(std::abs(lo), std::abs(hi)) < largest(result) / 4))
      throw StepRejected("sum: may overflow");
    // Exact in the f32 accumulator, then rounded once to the result, which may take an end
    // past the exact range (found by lazyfuse-fuzz, seed 17211 program 1003: 375 is 376 in bf16).
    if (x.exact() && fits(DType::f32, lo, hi, x.quantum))
      return with_flags(converted(Bounds{lo, hi, 0, x.quantum}, DType::f32, result), x);
    return with_flags(inexact_result(result, lo, hi, nd * x.err + fold_error, 1), x);
  }
  if (op == "mean") {
    if (n == 0) return Bounds{0, 0, 0, kNoQuantum, true, x.unchecked};
    int shift = int(log2_of(n));
    if (x.exact() && is_power_of_two(n) && fits(DType::f32, nd * x.lo, nd * x.hi, x.quantum) &&
        fits(result, x.lo, x.hi, x.quantum + shift))
      return with_flags(Bounds{x.lo, x.hi, 0, x.quantum + shift}, x);
    return with_flags(inexact_result(result, x.lo, x.hi, x.err + fold_error / nd, 2), x);
  }
  if (op == "prod") {
    if (n == 0) return Bounds{1, 1, 0, 0};
    if (n > 24) throw StepRejected("prod: too many factors to bound");
    double big = std::pow(std::max(mag, 1.0), nd);
    if (!(big < largest(result) / 16)) throw StepRejected("prod: may overflow");
    double lo = -big, hi = big;
    if (x.lo >= 0) lo = std::pow(x.lo, nd), hi = std::pow(x.hi, nd);
    if (!is_floating(result)) return with_flags(Bounds{lo, hi, 0, 0}, x);
    int quantum = x.quantum == kNoQuantum ? kNoQuantum : x.quantum * int(n);
    if (x.exact() && fits(DType::f32, lo, hi, quantum))
      return with_flags(exact_result(result, lo, hi, quantum), x);
    double inherited = nd * std::pow(std::max(mag + x.err, 1.0), nd - 1) * x.err;
    return with_flags(inexact_result(result, lo, hi, inherited, 2 * nd), x);
  }
  if (op == "logsumexp") {
    if (n == 0) return Bounds{0, 0, 0, kNoQuantum, true, x.unchecked};
    Bounds b = inexact_result(result, x.lo, x.hi + std::log(nd), x.err, 8);
    b.err += 8 * ulp(DType::f32, std::max(mag, 1.0)) + ulp(result, std::max(mag, 1.0));
    return with_flags(b, x);
  }
  throw StepRejected(std::string(op) + ": no value rule");
}

Bounds scan_rule(std::string_view op, const Operand& in, DType result, std::int64_t n) {
  // The sum's bounds hold every shorter prefix; a product's extremes come from the first factor
  // or from all n (found by lazyfuse-fuzz, seed 15102 program 84: 0.5 * 0.73 lies below 0.5).
  const Bounds whole = reduce_rule(op, in, result, n);
  if (op == "sum" || n <= 1) return whole;
  const Bounds first = reduce_rule(op, in, result, 1);
  Bounds b = whole;
  b.lo = std::min(whole.lo, first.lo);
  b.hi = std::max(whole.hi, first.hi);
  b.err = std::max(whole.err, first.err);
  b.quantum = whole.quantum == kNoQuantum || first.quantum == kNoQuantum
                  ? kNoQuantum
                  : std::max(whole.quantum, first.quantum);
  b.special = whole.special || first.special;
  b.unchecked = whole.unchecked || first.unchecked;
  return b;
}

Bounds arg_reduce_rule(const Operand& x, std::int64_t n) {
  Bounds b{0, double(std::max<std::int64_t>(n - 1, 0)), 0, 0};
  b.unchecked = !x.bounds.exact();
  return b;
}

Bounds variance_rule(const Operand& in, DType result, std::int64_t n, double correction,
                     bool standard_deviation) {
  const Bounds& x = in.bounds;
  double nd = double(n), d = std::max(nd - correction, 1.0);
  double width = x.hi - x.lo;
  double var_hi = nd * width * width / (4 * d);
  double mag = x.magnitude() + x.err;
  // The squared deviations and their sum are held in f32 (f16 and bf16 compute in it): found by
  // lazyfuse-fuzz (seed 5206 program 933), a spread of 1e30 overflowed to inf and std to NaN.
  if (!(nd * (width + 2 * x.err) * (width + 2 * x.err) < largest(DType::f32) / 4))
    reject(standard_deviation ? "std" : "var", "the squared deviations may overflow f32");
  double var_err =
      nd / d * ((width + 2 * x.err) * 2 * x.err + (log2_of(n) + 16) * mag * mag * 1.2e-7);
  Bounds b = standard_deviation
                 ? inexact_result(result, 0, std::sqrt(var_hi), std::sqrt(var_err), 4)
                 : inexact_result(result, 0, var_hi, var_err, 4);
  b = with_flags(b, x);
  if (nd - correction <= 0) b.special = true;  // 0/0 or x/0
  return b;
}

Bounds softmax_rule(const Operand& in, DType result, std::int64_t n, bool log) {
  const Bounds& x = in.bounds;
  if (!log) return with_flags(inexact_result(result, 0, 1, 2.2 * x.err, 16), x);
  double log_n = n > 0 ? std::log(double(n)) : 0;
  Bounds b = inexact_result(result, x.lo - x.hi - log_n, 0, 2 * x.err, 16);
  b.err += 16 * ulp(DType::f32, x.magnitude() + log_n);
  return with_flags(b, x);
}

Bounds norm_rule(const Operand& in, const Operand& weight, const Operand* bias, DType result,
                 std::int64_t n, double eps) {
  const Bounds& x = in.bounds;
  const Bounds& w = weight.bounds;
  double amplify = 2 / std::sqrt(eps);  // d(normalized)/dx when a row's spread is near zero
  double spread = bias != nullptr ? x.hi - x.lo : x.magnitude();
  double z_max = std::min(std::sqrt(std::max(double(n), 1.0)), spread / std::sqrt(eps) + 1e-30);
  double z_err = amplify * (2 * x.err + 64 * ulp(DType::f32, x.magnitude() + x.err)) +
                 8 * ulp(DType::f32, z_max);
  double out_mag = z_max * w.magnitude() + (bias != nullptr ? bias->bounds.magnitude() : 0);
  // Found by lazyfuse-fuzz (seed 13402 program 1636): an f16 rms_norm with weights up to 6e4.
  if (!(out_mag < largest(result) / 4))
    reject(bias != nullptr ? "layer_norm" : "rms_norm", "the result may overflow");
  double inherited =
      z_err * (w.magnitude() + w.err) + z_max * w.err + (bias != nullptr ? bias->bounds.err : 0);
  Bounds b = inexact_result(result, -out_mag, out_mag, inherited, 8);
  b = with_flags(b, x, w);
  if (bias != nullptr) b = with_flags(b, bias->bounds);
  return b;
}

}  // namespace lazy::fuzz

#include "tools/fuzz/value_rules.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "tools/fuzz/activation_rules.h"
#include "tools/fuzz/bitwise_rules.h"
#include "tools/fuzz/division_rules.h"
#include "tools/fuzz/float_function.h"
#include "tools/fuzz/guard_rules.h"
#include "tools/fuzz/rule_helpers.h"
#include "tools/fuzz/smooth_function_rules.h"

namespace lazy::fuzz {

namespace {

constexpr double kPi = 3.14159265358979323846;

// Smallest and largest of f over [lo, hi], from the ends and the points where f turns.
std::pair<double, double> range_of(const std::function<double(double)>& f, double lo, double hi,
                                   const std::vector<double>& turning_points) {
  double a = f(lo), b = f(hi);
  double mn = std::min(a, b), mx = std::max(a, b);
  for (double t : turning_points) {
    if (t > lo && t < hi) {
      mn = std::min(mn, f(t));
      mx = std::max(mx, f(t));
    }
  }
  return {mn, mx};
}

double gelu(double x) {
  return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
}
double gelu_tanh(double x) {
  return 0.5 * x * (1 + std::tanh(std::sqrt(2 / kPi) * (x + 0.044715 * x * x * x)));
}
double silu(double x) {
  return x / (1 + std::exp(-x));
}
double softplus(double x) {
  return x > 20 ? x : std::log1p(std::exp(x));
}

const FloatFunction* float_function(std::string_view op) {
  constexpr double inf = INFINITY;
  static const auto constant = [](double c) { return [c](double, double) { return c; }; };
  // asin' and acos' in magnitude: 1 / sqrt(1 - x^2), largest at the end nearer to ±1.
  static const auto steep_at_one = [](double lo, double hi) {
    return 1 / std::sqrt(1 - std::pow(std::max(-lo, hi), 2));
  };
  static const std::vector<std::pair<std::string_view, FloatFunction>> table = {
      {"exp",
       {[](double x) { return std::exp(x); },
        -inf,
        80,
        [](double, double hi) { return std::exp(hi); },
        4,
        {}}},
      {"exp2",
       {[](double x) { return std::exp2(x); },
        -inf,
        120,
        [](double, double hi) { return std::exp2(hi) * 0.7; },
        4,
        {}}},
      {"expm1",
       {[](double x) { return std::expm1(x); },
        -inf,
        80,
        [](double, double hi) { return std::exp(hi); },
        4,
        {}}},
      {"log",
       {[](double x) { return std::log(x); },
        1.0 / 1024,
        inf,
        [](double lo, double) { return 1 / lo; },
        4,
        {}}},
      {"log2",
       {[](double x) { return std::log2(x); },
        1.0 / 1024,
        inf,
        [](double lo, double) { return 1.5 / lo; },
        4,
        {}}},
      {"log1p",
       {[](double x) { return std::log1p(x); },
        -1 + 1.0 / 64,
        inf,
        [](double lo, double) { return 1 / (1 + lo); },
        4,
        {}}},
      {"sqrt",
       {[](double x) { return std::sqrt(x); },
        1.0 / 1024,
        inf,
        [](double lo, double) { return 0.5 / std::sqrt(lo); },
        2,
        {}}},
      {"rsqrt",
       {[](double x) { return 1 / std::sqrt(x); },
        1.0 / 1024,
        inf,
        [](double lo, double) { return 0.5 * std::pow(lo, -1.5); },
        4,
        {}}},
      {"sin", {[](double x) { return std::sin(x); }, -1e4, 1e4, constant(1), 4, {}}},
      {"cos", {[](double x) { return std::cos(x); }, -1e4, 1e4, constant(1), 4, {}}},
      {"tanh", {[](double x) { return std::tanh(x); }, -inf, inf, constant(1), 4, {}}},
      // Away from tan's poles and the ends where asin, acos, acosh and atanh are steep.
      {"tan",
       {[](double x) { return std::tan(x); },
        -1.4,
        1.4,
        [](double lo, double hi) { return 1 + std::pow(std::tan(std::max(-lo, hi)), 2); },
        6,
        {}}},
      {"asin", {[](double x) { return std::asin(x); }, -0.98, 0.98, steep_at_one, 4, {}}},
      {"acos", {[](double x) { return std::acos(x); }, -0.98, 0.98, steep_at_one, 4, {}}},
      {"atan", {[](double x) { return std::atan(x); }, -inf, inf, constant(1), 4, {}}},
      {"sinh",
       {[](double x) { return std::sinh(x); },
        -80,
        80,
        [](double lo, double hi) { return std::cosh(std::max(-lo, hi)); },
        4,
        {}}},
      {"cosh",
       {[](double x) { return std::cosh(x); },
        -80,
        80,
        [](double lo, double hi) { return std::cosh(std::max(-lo, hi)); },
        4,
        {0}}},
      {"asinh", {[](double x) { return std::asinh(x); }, -inf, inf, constant(1), 4, {}}},
      {"acosh",
       {[](double x) { return std::acosh(x); },
        1.0625,
        inf,
        [](double lo, double) { return 1 / std::sqrt(lo * lo - 1); },
        4,
        {}}},
      {"atanh",
       {[](double x) { return std::atanh(x); },
        -0.98,
        0.98,
        [](double lo, double hi) { return 1 / (1 - std::pow(std::max(-lo, hi), 2)); },
        4,
        {}}},
      {"log10",
       {[](double x) { return std::log10(x); },
        1.0 / 1024,
        inf,
        [](double lo, double) { return 0.44 / lo; },
        4,
        {}}},
      {"erf", {[](double x) { return std::erf(x); }, -inf, inf, constant(1.13), 4, {}}},
      {"sigmoid",
       {[](double x) { return 1 / (1 + std::exp(-x)); }, -inf, inf, constant(0.25), 4, {}}},
      {"gelu", {gelu, -inf, inf, constant(1.13), 16, {-0.7518}, true}},
      {"gelu_tanh", {gelu_tanh, -inf, inf, constant(1.13), 16, {-0.7522}, true}},
      {"silu", {silu, -inf, inf, constant(1.1), 16, {-1.2785}, true}},
      {"softplus", {softplus, -inf, inf, constant(1), 16, {}, true}},
  };
  for (const auto& [name, fn] : table)
    if (name == op) return &fn;
  return nullptr;
}

// An exact op of one exact value (neg, abs, relu): the same error, the same grid.
Bounds exact_map(const Bounds& x, double lo, double hi) {
  Bounds b = x;
  b.lo = std::min(lo, hi);
  b.hi = std::max(lo, hi);
  return b;
}

// An operand an op selects (where, maximum, minimum) as the result dtype holds it: a fused
// kernel keeps a narrow intermediate in f32 while the reference rounds it, so a value the dtype
// cannot hold exactly may differ by a rounding.
Bounds as_selected(Bounds b, DType result) {
  if (is_floating(result) && !(b.exact() && fits(result, b.lo, b.hi, b.quantum)) &&
      !(b.exact() && b.quantum == kNoQuantum)) {
    b.err += ulp(result, b.magnitude());
    b.quantum = kNoQuantum;
  }
  return b;
}

}  // namespace

Bounds float_function_rule(std::string_view op, const FloatFunction& fn, const Bounds& x,
                           DType result) {
  const double lo = x.lo - x.err, hi = x.hi + x.err;
  if (lo < fn.domain_lo || hi > fn.domain_hi) reject(op, "argument range outside the domain");
  double out_lo, out_hi;
  if ((op == "sin" || op == "cos") && x.hi - x.lo > 1) {
    out_lo = -1, out_hi = 1;
  } else if (op == "sin" || op == "cos") {
    // Dense samples: f moves at most (step) between them.
    out_lo = INFINITY, out_hi = -INFINITY;
    for (int i = 0; i <= 64; ++i) {
      double v = fn.f(x.lo + (x.hi - x.lo) * i / 64);
      out_lo = std::min(out_lo, v), out_hi = std::max(out_hi, v);
    }
    double pad = (x.hi - x.lo) / 64;
    out_lo = std::max(-1.0, out_lo - pad), out_hi = std::min(1.0, out_hi + pad);
  } else {
    std::tie(out_lo, out_hi) = range_of(fn.f, x.lo, x.hi, fn.turning_points);
  }
  double mag = std::max(std::abs(out_lo), std::abs(out_hi));
  if (!(mag < largest(result) / 4)) reject(op, "the result may overflow");
  double inherited = x.err > 0 ? fn.slope(lo, hi) * x.err : 0;
  if (fn.composite) inherited += fn.ulps * ulp(DType::f32, x.magnitude());
  return with_flags(inexact_result(result, out_lo, out_hi, inherited, fn.ulps), x);
}

Bounds number_bounds(double value, DType as) {
  // Numbers in floating ops keep f32 precision (docs/semantics.md): exact when f32 holds them.
  DType held = is_floating(as) ? DType::f32 : as;
  for (int q = 0; q <= 30; ++q) {
    double scaled = std::ldexp(value, q);
    if (scaled == std::trunc(scaled) && fits(held, value, value, q))
      return Bounds{value, value, 0, q, false, false};
  }
  return Bounds{value, value, ulp(DType::f32, std::abs(value)), kNoQuantum, false, false};
}

Bounds unary_rule(std::string_view op, const Operand& in, DType result) {
  const Bounds x = converted(in.bounds, in.dtype, is_floating(result) ? result : in.dtype);
  // Integers wrap: neg and abs of the dtype's least value give it back (seed 17314 program 3118:
  // abs of an i32 cast of -inf).
  const bool may_be_least = !is_floating(result) && x.lo <= integer_min(in.dtype);
  const double least = may_be_least ? integer_min(in.dtype) : 0.0;
  if (op == "neg") return exact_map(x, std::min(-x.hi, least), -x.lo);
  if (op == "abs") {
    double lo = (x.lo <= 0 && x.hi >= 0) ? 0 : std::min(std::abs(x.lo), std::abs(x.hi));
    return exact_map(x, std::min(lo, least), x.magnitude());
  }
  if (op == "relu") return exact_map(x, std::max(x.lo, 0.0), std::max(x.hi, 0.0));
  if (op == "sign") {
    Bounds b{x.lo < 0 ? -1.0 : (x.lo > 0 ? 1.0 : 0.0),
             x.hi > 0 ? 1.0 : (x.hi < 0 ? -1.0 : 0.0),
             0,
             0,
             x.special,
             x.unchecked || ambiguous_zero(x)};
    return b;
  }
  if (op == "square") {
    Operand as_result{x, result};
    return binary_rule("mul", as_result, as_result, result, result);
  }
  if (op == "floor" || op == "ceil" || op == "round" || op == "trunc") {
    if (!is_floating(in.dtype)) return in.bounds;
    Bounds b = exact_map(x, std::floor(x.lo), std::ceil(x.hi));
    b.quantum = fits(result, b.lo, b.hi, 0) ? 0 : kNoQuantum;
    b.unchecked = b.unchecked || x.err > 0;
    b.err = 0;
    return b;
  }
  if (op == "bitwise_not" && result != DType::bool_) return bitwise_not_rule(x);
  if (op == "logical_not" || op == "bitwise_not") {  // bitwise_not of bool is logical_not
    Bounds b = converted(in.bounds, in.dtype, DType::bool_);
    return Bounds{1 - b.hi, 1 - b.lo, 0, 0, false, b.unchecked};
  }
  if (op == "isnan" || op == "isinf") return bool_result(x.unchecked, 0, x.special ? 1 : 0);
  if (op == "isfinite") return bool_result(x.unchecked, x.special ? 0 : 1, 1);
  if (op == "reciprocal") {
    Operand one{Bounds{1, 1, 0, 0}, result};
    return binary_rule("div", one, Operand{x, result}, result, result);
  }
  if (is_activation(op)) return activation_rule(op, x, result);
  if (is_domain_guard(op)) return domain_guard_rule(op, x, result);
  const FloatFunction* fn = float_function(op);
  if (fn == nullptr) reject(op, "no value rule for this op");
  return float_function_rule(op, *fn, x, result);
}

Bounds binary_rule(std::string_view op, const Operand& a_in, const Operand& b_in, DType compute,
                   DType result) {
  const Bounds a = converted(a_in.bounds, a_in.dtype, compute);
  const Bounds b = converted(b_in.bounds, b_in.dtype, compute);
  const bool both_exact = a.exact() && b.exact();
  const bool grids = a.quantum != kNoQuantum && b.quantum != kNoQuantum;
  if (op == "eq" || op == "ne" || op == "lt" || op == "le" || op == "gt" || op == "ge") {
    bool apart = a.hi + a.err < b.lo - b.err || b.hi + b.err < a.lo - a.err;
    return bool_result(!(both_exact || apart) || a.unchecked || b.unchecked);
  }
  if (op == "logical_and" || op == "logical_or" || op == "logical_xor") {
    Bounds ab = converted(a_in.bounds, a_in.dtype, DType::bool_);
    Bounds bb = converted(b_in.bounds, b_in.dtype, DType::bool_);
    return bool_result(ab.unchecked || bb.unchecked);
  }
  if (op.starts_with("bitwise_")) return bitwise_rule(op, a, b, result);
  if (result == DType::bool_) return with_flags(bool_result(false), a, b);  // add/mul of bools
  if (op == "maximum" || op == "minimum") {
    const Bounds sa = as_selected(a, result), sb = as_selected(b, result);
    bool max = op == "maximum";
    // An infinity in one operand selects the other's finite value (minimum(0.1, inf) is 0.1), so
    // where one may hold infinities the result may be anything of the other's range.
    const bool a_whole = sb.special, b_whole = sa.special;
    Bounds r{max ? std::max(sa.lo, sb.lo) : std::min(sa.lo, sb.lo),
             max ? std::max(sa.hi, sb.hi) : std::min(sa.hi, sb.hi), std::max(sa.err, sb.err),
             grids && sa.quantum != kNoQuantum && sb.quantum != kNoQuantum
                 ? std::max(sa.quantum, sb.quantum)
                 : kNoQuantum};
    if (a_whole) r.lo = std::min(r.lo, sa.lo), r.hi = std::max(r.hi, sa.hi);
    if (b_whole) r.lo = std::min(r.lo, sb.lo), r.hi = std::max(r.hi, sb.hi);
    return with_flags(r, sa, sb);
  }
  if (op == "floor_divide" || op == "remainder" || op == "fmod")
    return division_rule(op, a, b, result);
  if (op == "atan2") return atan2_rule(a, b, result);
  if (op == "hypot") return hypot_rule(a, b, result);
  if (op == "logaddexp") return logaddexp_rule(a, b, result);
  double lo, hi;
  double inherited;
  int quantum = kNoQuantum;
  double ulps = 1;  // correctly rounded, but a mul may join an add in one fused multiply-add
  if (op == "add" || op == "sub") {
    lo = op == "add" ? a.lo + b.lo : a.lo - b.hi;
    hi = op == "add" ? a.hi + b.hi : a.hi - b.lo;
    inherited = a.err + b.err;
    if (grids) quantum = std::max(a.quantum, b.quantum);
  } else if (op == "mul") {
    std::tie(lo, hi) = corners(a.lo, a.hi, b.lo, b.hi, [](double x, double y) { return x * y; });
    inherited = a.magnitude() * b.err + b.magnitude() * a.err + a.err * b.err;
    if (grids) quantum = a.quantum + b.quantum;
  } else if (op == "div") {
    double b_lo = b.lo - b.err, b_hi = b.hi + b.err;
    double m = b_lo > 0 ? b_lo : (b_hi < 0 ? -b_hi : 0);
    if (m < 1.0 / 256) reject(op, "the divisor may be zero");
    std::tie(lo, hi) = corners(a.lo, a.hi, b.lo, b.hi, [](double x, double y) { return x / y; });
    inherited = a.err / m + a.magnitude() * b.err / (m * m);
  } else if (op == "pow") {
    bool small_integer_exponent =
        b.exact() && b.lo == b.hi && b.lo == std::trunc(b.lo) && b.lo >= 0 && b.lo <= 3;
    if (!is_floating(result)) {
      if (b.lo < 0 || b.hi > 4) reject(op, "integer exponents outside [0, 4]");
      double big = std::pow(std::max(a.magnitude(), 1.0), b.hi);
      check_integer_range(op, -big, big, result);
      lo = -big, hi = big;
      if (a.lo >= 0) lo = std::min(std::pow(a.lo, b.lo), std::pow(a.lo, b.hi));
      return with_flags(Bounds{lo, hi, 0, 0}, a, b);
    }
    if (!small_integer_exponent && a.lo - a.err < 1.0 / 8) reject(op, "a base may be <= 0");
    if (b.magnitude() > 4) reject(op, "exponent too large to bound");
    double base_lo = a.lo - a.err, base_hi = a.hi + a.err;
    double e_lo = b.lo - b.err, e_hi = b.hi + b.err;
    std::vector<double> values;
    std::vector<double> bases = {base_lo, base_hi};
    if (base_lo < 0 && base_hi > 0) bases.push_back(0);
    for (double base : bases)
      for (double e : {e_lo, e_hi}) values.push_back(std::pow(base, e));
    lo = *std::min_element(values.begin(), values.end());
    hi = *std::max_element(values.begin(), values.end());
    double big = std::max(std::abs(lo), std::abs(hi));
    double slope_base =
        4 * std::max(1.0, big) / std::max(1.0 / 8, std::min(std::abs(base_lo), std::abs(base_hi)));
    if (small_integer_exponent) slope_base = 3 * std::max(1.0, a.magnitude() * a.magnitude());
    double slope_exponent = big * std::max(std::abs(std::log(std::max(1e-300, std::abs(base_lo)))),
                                           std::abs(std::log(std::max(1e-300, std::abs(base_hi)))));
    inherited = slope_base * a.err + slope_exponent * b.err;
    ulps = 4;
    if (!(big < largest(result) / 4)) reject(op, "the result may overflow");
    return with_flags(inexact_result(result, lo, hi, inherited, ulps), a, b);
  } else {
    reject(op, "no value rule for this op");
  }
  if (!is_floating(result)) {
    check_integer_range(op, lo, hi, result);
    return with_flags(Bounds{lo, hi, 0, 0}, a, b);
  }
  if (!(std::max(std::abs(lo), std::abs(hi)) < largest(result) / 4))
    reject(op, "the result may overflow");
  if (both_exact && op != "div" && fits(DType::f32, lo, hi, quantum))
    return with_flags(exact_result(result, lo, hi, quantum), a, b);
  return with_flags(inexact_result(result, lo, hi, inherited, ulps), a, b);
}

Bounds select_rule(const Bounds& cond, const Operand& a_in, const Operand& b_in, DType result) {
  const Bounds a = as_selected(converted(a_in.bounds, a_in.dtype, result), result);
  const Bounds b = as_selected(converted(b_in.bounds, b_in.dtype, result), result);
  bool grids = a.quantum != kNoQuantum && b.quantum != kNoQuantum;
  Bounds r{std::min(a.lo, b.lo), std::max(a.hi, b.hi), std::max(a.err, b.err),
           grids ? std::max(a.quantum, b.quantum) : kNoQuantum};
  r = with_flags(r, a, b);
  r.unchecked = r.unchecked || cond.unchecked;
  return r;
}

Bounds cast_rule(const Operand& x, DType to) {
  if (is_floating(to) && x.bounds.magnitude() > largest(to) / 4)
    throw StepRejected("cast: values overflow the target dtype");
  if (is_floating(x.dtype) && !is_floating(to) && to != DType::bool_ &&
      x.bounds.magnitude() >= largest(to))
    throw StepRejected("cast: values saturate the target dtype");
  // Found by lazyfuse-fuzz (seed 14203 program 581): an i64 product up to 1e12 cast to i32.
  if (!is_floating(x.dtype) && !is_floating(to) && to != DType::bool_ &&
      x.bounds.magnitude() > largest(to))
    throw StepRejected("cast: integers wrap around in the target dtype");
  return converted(x.bounds, x.dtype, to);
}

}  // namespace lazy::fuzz

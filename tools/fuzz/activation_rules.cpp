#include "tools/fuzz/activation_rules.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "tools/fuzz/float_function.h"
#include "tools/fuzz/rule_helpers.h"

namespace lazy::fuzz {

namespace {

constexpr double kSeluAlpha = 1.6732632423543772848170429916717;
constexpr double kSeluScale = 1.0507009873554804934193349852946;
// softshrink's and hardshrink's default lambd, which every dtype holds exactly.
constexpr double kShrink = 0.5;

double softplus(double x) {
  return x > 20 ? x : std::log1p(std::exp(x));
}
double elu(double x) {
  return x > 0 ? x : std::expm1(x);
}

// The smooth (or continuous, piecewise smooth) activations: their values, slopes and the ulps of
// their f32 arithmetic, as value_rules.cpp's table describes its functions.
const FloatFunction* smooth_activation(std::string_view op) {
  constexpr double inf = INFINITY;
  static const auto constant = [](double c) { return [c](double, double) { return c; }; };
  static const std::vector<std::pair<std::string_view, FloatFunction>> table = {
      // x * 0.01 with 0.01 held in f32: within 2^-27 of the exact product, plus its rounding.
      {"leaky_relu",
       {[](double x) { return x > 0 ? x : 0.01 * x; }, -inf, inf, constant(1), 2, {}}},
      {"elu", {elu, -inf, inf, constant(1), 4, {}}},
      {"celu", {elu, -inf, inf, constant(1), 4, {}}},
      {"selu",
       {[](double x) { return kSeluScale * (x > 0 ? x : kSeluAlpha * std::expm1(x)); },
        -inf,
        inf,
        constant(kSeluScale * kSeluAlpha),
        6,
        {}}},
      // (x + 3) * (1/6) between the clamps: the sum rounds at the argument's magnitude.
      {"hardsigmoid",
       {[](double x) { return std::clamp((x + 3) / 6, 0.0, 1.0); },
        -inf,
        inf,
        constant(1.0 / 6),
        4,
        {},
        true}},
      {"hardswish",
       {[](double x) { return x * std::clamp(x + 3, 0.0, 6.0) / 6; },
        -inf,
        inf,
        constant(1.5),
        4,
        {-1.5},
        true}},
      {"mish",
       {[](double x) { return x * std::tanh(softplus(x)); },
        -inf,
        inf,
        constant(1.09),
        16,
        {-1.19215},
        true}},
      {"log_sigmoid",
       {[](double x) { return -softplus(-x); }, -inf, inf, constant(1), 16, {}, true}},
      {"softsign",
       {[](double x) { return x / (1 + std::abs(x)); }, -inf, inf, constant(1), 4, {}, true}},
      {"tanhshrink",
       {[](double x) { return x - std::tanh(x); }, -inf, inf, constant(1), 4, {}, true}},
      {"softshrink",
       {[](double x) { return x > kShrink ? x - kShrink : (x < -kShrink ? x + kShrink : 0.0); },
        -inf,
        inf,
        constant(1),
        1,
        {},
        true}},
  };
  for (const auto& [name, fn] : table)
    if (name == op) return &fn;
  return nullptr;
}

// An exact clamp of x to [lo, hi]: its error no larger than x's, on x's grid.
Bounds clamped(const Bounds& x, double lo, double hi) {
  Bounds b = x;
  b.lo = std::clamp(x.lo, lo, hi);
  b.hi = std::clamp(x.hi, lo, hi);
  return b;
}

// x where |x| > lambd, else 0: a jump at +-lambd, so an inexact x may not come near it.
Bounds hardshrink_rule(const Bounds& x) {
  const double lo = x.lo - x.err, hi = x.hi + x.err;
  const auto near = [&](double edge) { return x.err > 0 && lo <= edge && hi >= edge; };
  if (near(kShrink) || near(-kShrink)) reject("hardshrink", "an inexact x may jump at +-lambd");
  Bounds b = x;
  const bool zeroes = x.lo <= kShrink && x.hi >= -kShrink;
  b.lo = x.lo < -kShrink ? x.lo : (zeroes ? 0.0 : x.lo);
  b.hi = x.hi > kShrink ? x.hi : (zeroes ? 0.0 : x.hi);
  return b;
}

}  // namespace

const std::vector<std::string>& activation_names() {
  static const std::vector<std::string> names = {
      "leaky_relu", "elu",  "selu",        "celu",     "hardtanh",   "relu6",      "hardsigmoid",
      "hardswish",  "mish", "log_sigmoid", "softsign", "tanhshrink", "softshrink", "hardshrink"};
  return names;
}

bool is_activation(std::string_view op) {
  const std::vector<std::string>& names = activation_names();
  return std::find(names.begin(), names.end(), op) != names.end();
}

bool activation_takes_integers(std::string_view op) {
  return op == "hardtanh" || op == "relu6" || op == "softsign" || op == "tanhshrink";
}

Bounds activation_rule(std::string_view op, const Bounds& x, DType result) {
  if (op == "hardtanh") return clamped(x, -1, 1);
  if (op == "relu6") return clamped(x, 0, 6);
  if (op == "hardshrink") return hardshrink_rule(x);
  const FloatFunction* fn = smooth_activation(op);
  if (fn == nullptr) reject(op, "no value rule for this activation");
  Bounds b = float_function_rule(op, *fn, x, result);
  // PyTorch writes softsign and tanhshrink from tensor ops, each rounding to the dtype: the
  // inner one (1 + |x|, tanh x) moves the result by at most a rounding of a value below 1.
  if (op == "softsign" || op == "tanhshrink") b.err += ulp(result, std::min(1.0, x.magnitude()));
  return b;
}

}  // namespace lazy::fuzz

#include "tools/fuzz/smooth_function_rules.h"

#include <algorithm>
#include <cmath>

#include "tools/fuzz/rule_helpers.h"

namespace lazy::fuzz {

namespace {

// Below this distance from the origin atan2's slope (1 / radius) makes an inexact argument's
// error too large to be useful; the same floor as a divisor's (value_rules.cpp).
constexpr double kMinAtan2Radius = 1.0 / 256;

// Error bounds of CUDA's f32 functions (CUDA C Programming Guide, "Mathematical Functions":
// atan2f 3 ulps, hypotf 3 ulps, expf 2, log1pf 1), rounded up.
constexpr double kAtan2Ulps = 4;
constexpr double kHypotUlps = 4;

// The range a backend's values may take: [lo - err, hi + err].
struct Widened {
  double lo, hi;
};
Widened widened(const Bounds& b) {
  return {b.lo - b.err, b.hi + b.err};
}

double logaddexp(double a, double b) {
  const double larger = std::max(a, b);
  return larger + std::log1p(std::exp(std::min(a, b) - larger));
}

double lerp(double start, double end, double weight) {
  return start + weight * (end - start);
}

}  // namespace

Bounds atan2_rule(const Bounds& y, const Bounds& x, DType result) {
  const Widened wy = widened(y), wx = widened(x);
  // atan2 jumps by 2 pi across the negative x axis, where the sign of a zero y decides it: the
  // data's specials hold -0, and a zero's sign is not the same everywhere (fmaxf(-0, 0)).
  const bool y_may_be_zero = y.special || (wy.lo <= 0 && wy.hi >= 0);
  const bool x_may_be_negative = x.special || wx.lo <= 0;
  if (y_may_be_zero && x_may_be_negative)
    reject("atan2", "the arguments may reach the branch cut (y near 0 with x <= 0)");
  // The gradient's length is 1 / radius; the widened box keeps off the cut, so the path from
  // the exact point to a backend's point moves the angle by at most |step| / (least radius).
  const double radius =
      std::hypot(distance_from_zero(wx.lo, wx.hi), distance_from_zero(wy.lo, wy.hi));
  double inherited = 0;
  if (y.err > 0 || x.err > 0) {
    if (radius < kMinAtan2Radius) reject("atan2", "the arguments may be near the origin");
    inherited = std::hypot(y.err, x.err) / radius;
  }
  // Monotonic along each edge of a box off the cut: the extremes are at its corners.
  const auto [lo, hi] =
      corners(y.lo, y.hi, x.lo, x.hi, [](double a, double b) { return std::atan2(a, b); });
  return with_flags(inexact_result(result, lo, hi, inherited, kAtan2Ulps), y, x);
}

Bounds hypot_rule(const Bounds& a, const Bounds& b, DType result) {
  const double lo = std::hypot(distance_from_zero(a.lo, a.hi), distance_from_zero(b.lo, b.hi));
  const double hi = std::hypot(a.magnitude(), b.magnitude());
  if (!(hi < largest(result) / 4)) reject("hypot", "the result may overflow");
  // 1-Lipschitz: moving (a, b) by a step moves the result by at most the step's length.
  return with_flags(inexact_result(result, lo, hi, std::hypot(a.err, b.err), kHypotUlps), a, b);
}

Bounds logaddexp_rule(const Bounds& a, const Bounds& b, DType result) {
  // Rising in both arguments, and shifting both by c shifts the result by c: an error of e in
  // each argument moves the result by at most e.
  const double lo = logaddexp(a.lo, b.lo), hi = logaddexp(a.hi, b.hi);
  if (!(std::max(std::abs(lo), std::abs(hi)) < largest(result) / 4))
    reject("logaddexp", "the result may overflow");
  // The device adds log1pf(expf(-|a - b|)), a term in [0, log 2]: expf's and log1pf's ulps and
  // the rounding of |a - b| (damped by exp(-|a - b|)) leave it within 4 ulps of 1.
  const double term_error = 4 * ulp(DType::f32, 1.0);
  const double inherited = std::max(a.err, b.err) + term_error;
  return with_flags(inexact_result(result, lo, hi, inherited, 2), a, b);
}

Bounds lerp_rule(const Operand& start_in, const Operand& end_in, const Operand& weight_in,
                 DType result) {
  const Bounds s = converted(start_in.bounds, start_in.dtype, result);
  const Bounds e = converted(end_in.bounds, end_in.dtype, result);
  const Bounds w = converted(weight_in.bounds, weight_in.dtype, result);
  const Bounds flags = with_flags(with_flags(Bounds{}, s, e), w);
  // Both of PyTorch's forms are start + weight * (end - start) in exact math, linear in each
  // argument: the extremes are at the corners of the box.
  double lo = INFINITY, hi = -INFINITY;
  for (double sv : {s.lo, s.hi})
    for (double ev : {e.lo, e.hi})
      for (double wv : {w.lo, w.hi}) {
        lo = std::min(lo, lerp(sv, ev, wv));
        hi = std::max(hi, lerp(sv, ev, wv));
      }
  const Widened ws = widened(s), we = widened(e), ww = widened(w);
  const double weight_mag = std::max(std::abs(ww.lo), std::abs(ww.hi));
  const double rest_mag = std::max(std::abs(1 - ww.lo), std::abs(1 - ww.hi));  // |1 - weight|
  const double scale = std::max(weight_mag, rest_mag);
  const double diff = std::max(std::abs(we.hi - ws.lo), std::abs(we.lo - ws.hi));  // |end - start|
  const double mag = std::max(std::abs(lo), std::abs(hi));
  if (!(mag < largest(result) / 4 && scale * diff < largest(DType::f32) / 4))
    reject("lerp", "the result may overflow");
  // Exact when every intermediate (end - start, 1 - weight, their products, the sum) lies on a
  // grid f32 holds: both forms then compute the exact value, fused multiply-add or not.
  if (s.exact() && e.exact() && w.exact() && s.quantum != kNoQuantum && e.quantum != kNoQuantum &&
      w.quantum != kNoQuantum) {
    const int quantum = std::max(s.quantum, e.quantum) + std::max(w.quantum, 0);
    const double largest_step = std::max({mag, diff, scale, scale * diff});
    if (fits(DType::f32, -largest_step, largest_step, quantum))
      return with_flags(exact_result(result, lo, hi, quantum), flags);
  }
  // The slopes are 1 - weight, weight and end - start, bounded over the widened box.
  const double inherited = rest_mag * s.err + weight_mag * e.err + diff * w.err;
  // The f32 roundings of end - start (scaled by the weight or 1 - weight), of 1 - weight
  // (scaled by end - start) and of the product; the final sum's is inexact_result's one ulp.
  const double arithmetic = scale * ulp(DType::f32, diff) + diff * ulp(DType::f32, rest_mag) +
                            ulp(DType::f32, scale * diff);
  return with_flags(inexact_result(result, lo, hi, inherited + arithmetic, 1), flags);
}

}  // namespace lazy::fuzz

#include "tools/fuzz/bitwise_rules.h"

#include <algorithm>
#include <cmath>

#include "tools/fuzz/rule_helpers.h"

namespace lazy::fuzz {

namespace {

// A right shift moves a value toward 0 (or -1), whatever the count, its sign kept.
Bounds right_shift(const Bounds& a) {
  return Bounds{std::min(a.lo, a.lo < 0 ? -1.0 : 0.0), std::max(a.hi, 0.0), 0, 0};
}

// a * 2^c for the counts in range; a count outside [0, width) gives 0.
Bounds left_shift(const Bounds& a, const Bounds& count, DType result) {
  const double width = result == DType::i32 ? 32 : 64;
  if (count.hi < 0 || count.lo >= width) return Bounds{0, 0, 0, 0};
  const double c_lo = std::max(count.lo, 0.0), c_hi = std::min(count.hi, width - 1);
  auto [lo, hi] =
      corners(a.lo, a.hi, c_lo, c_hi, [](double x, double c) { return std::ldexp(x, int(c)); });
  // Wrapped bits are the same everywhere, but no longer a range: any value of the dtype.
  if (std::max(std::abs(lo), std::abs(hi)) >= largest(result))
    return Bounds{integer_min(result), integer_max(result), 0, 0};
  if (count.lo < 0 || count.hi >= width) lo = std::min(lo, 0.0), hi = std::max(hi, 0.0);
  return Bounds{lo, hi, 0, 0};
}

// and, or and xor of integers keep within the bits of the larger magnitude (and of a
// non-negative operand within its bits).
Bounds bit_combination(std::string_view op, const Bounds& a, const Bounds& b) {
  const double m = std::max({std::abs(a.lo), std::abs(a.hi), std::abs(b.lo), std::abs(b.hi)});
  double p = 1;
  while (p <= m) p *= 2;
  if (op == "bitwise_and" && (a.lo >= 0 || b.lo >= 0)) {
    const double hi = a.lo >= 0 && b.lo >= 0 ? std::min(a.hi, b.hi) : (a.lo >= 0 ? a.hi : b.hi);
    return Bounds{0, hi, 0, 0};
  }
  if (a.lo >= 0 && b.lo >= 0) return Bounds{0, p - 1, 0, 0};
  return Bounds{-p, p - 1, 0, 0};
}

}  // namespace

Bounds bitwise_rule(std::string_view op, const Bounds& a, const Bounds& b, DType result) {
  if (result == DType::bool_) return with_flags(bool_result(false), a, b);
  Bounds r;
  if (op == "bitwise_left_shift") {
    r = left_shift(a, b, result);
  } else if (op == "bitwise_right_shift") {
    r = right_shift(a);
  } else if (op == "bitwise_and" || op == "bitwise_or" || op == "bitwise_xor") {
    r = bit_combination(op, a, b);
  } else {
    reject(op, "no value rule for this op");
  }
  return with_flags(r, a, b);
}

Bounds bitwise_not_rule(const Bounds& x) {
  return with_flags(Bounds{-x.hi - 1, -x.lo - 1, 0, 0}, x);
}

}  // namespace lazy::fuzz

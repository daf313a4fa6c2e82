#include "tools/fuzz/division_rules.h"

#include <algorithm>
#include <cmath>

#include "tools/fuzz/rule_helpers.h"

namespace lazy::fuzz {

namespace {

// Below this quotient a kernel's f32 (a - fmod(a, b)) / b lies within a quarter of the integer it
// stands for, so rounding it to the nearest integer gives the exact floor everywhere.
constexpr double kExactQuotient = 1 << 21;

}  // namespace

Bounds division_rule(std::string_view op, const Bounds& a, const Bounds& b, DType result) {
  if (b.lo - b.err <= 0 && b.hi + b.err >= 0) reject(op, "the divisor may be zero");
  const bool floating = is_floating(result);
  const bool exact = a.exact() && b.exact();
  const double divisor = b.magnitude();
  Bounds r;
  int quantum = a.quantum != kNoQuantum && b.quantum != kNoQuantum ? std::max(a.quantum, b.quantum)
                                                                   : kNoQuantum;
  if (op == "floor_divide") {
    // The box of operands widened by their errors holds every quotient a backend may see.
    auto [lo, hi] = corners(a.lo - a.err, a.hi + a.err, b.lo - b.err, b.hi + b.err,
                            [](double x, double y) { return x / y; });
    if (floating && std::max(std::abs(lo), std::abs(hi)) >= kExactQuotient)
      reject(op, "the quotient is too large to round the same way everywhere");
    r = Bounds{std::floor(lo), std::floor(hi), 0, 0};
    check_integer_range(op, r.lo, r.hi, result);
    if (floating && std::max(std::abs(r.lo), std::abs(r.hi)) >= largest(result) / 4)
      reject(op, "the result may overflow");
    quantum = 0;
  } else if (op == "fmod") {
    // The dividend's sign, smaller than both operands.
    const double m = std::min(a.magnitude(), divisor);
    r = Bounds{a.lo < 0 ? -m : 0.0, a.hi > 0 ? m : 0.0, 0, 0};
  } else if (op == "remainder") {
    // The divisor's sign, smaller than it; fmod plus the divisor may need one rounding.
    r = Bounds{b.lo < 0 ? -divisor : 0.0, b.hi > 0 ? divisor : 0.0, 0, 0};
    if (floating && !fits(DType::f32, r.lo, r.hi, quantum)) {
      Bounds inexact = inexact_result(result, r.lo, r.hi, 0, 1);
      inexact.unchecked = !exact;
      return with_flags(inexact, a, b);
    }
  } else {
    reject(op, "no value rule for this op");
  }
  if (!floating) return with_flags(r, a, b);
  if (!exact) {
    r.quantum = kNoQuantum;
    r.unchecked = true;
    return with_flags(r, a, b);
  }
  return with_flags(exact_result(result, r.lo, r.hi, quantum), a, b);
}

}  // namespace lazy::fuzz

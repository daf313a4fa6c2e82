// Pieces the value rules share (value_rules.cpp, reduction_rules.cpp, smooth_function_rules.cpp):
// refusing a step, carrying the inputs' flags to a result, bool results, integer overflow, the
// range of a function over a box's corners.
#pragma once

#include <algorithm>
#include <cmath>
#include <string>
#include <string_view>
#include <utility>

#include "tools/fuzz/bounds.h"
#include "tools/fuzz/builder.h"

namespace lazy::fuzz {

[[noreturn]] inline void reject(std::string_view op, std::string_view why) {
  throw StepRejected(std::string(op) + ": " + std::string(why));
}

inline Bounds with_flags(Bounds b, const Bounds& x) {
  b.special = b.special || x.special;
  b.unchecked = b.unchecked || x.unchecked;
  return b;
}

inline Bounds with_flags(Bounds b, const Bounds& x, const Bounds& y) {
  return with_flags(with_flags(b, x), y);
}

// A bool result (a comparison, isnan): 0 or 1, or narrower where known.
inline Bounds bool_result(bool unchecked, double lo = 0, double hi = 1) {
  return Bounds{lo, hi, 0, 0, false, unchecked};
}

// Distance from 0 to the nearest point of [lo, hi].
inline double distance_from_zero(double lo, double hi) {
  return lo > 0 ? lo : (hi < 0 ? -hi : 0);
}

// Whether an inexact value may be 0 on one side and not on the other.
inline bool ambiguous_zero(const Bounds& b) {
  return b.err > 0 && b.lo - b.err <= 0 && b.hi + b.err >= 0;
}

inline void check_integer_range(std::string_view op, double lo, double hi, DType result) {
  if (!is_floating(result) && (std::abs(lo) >= largest(result) || std::abs(hi) >= largest(result)))
    reject(op, "integers could overflow");
}

// Smallest and largest of f at the corners of [a0, a1] x [b0, b1] (f monotonic along each edge).
inline std::pair<double, double> corners(double a0, double a1, double b0, double b1,
                                         double (*f)(double, double)) {
  double v[4] = {f(a0, b0), f(a0, b1), f(a1, b0), f(a1, b1)};
  return {*std::min_element(v, v + 4), *std::max_element(v, v + 4)};
}

}  // namespace lazy::fuzz

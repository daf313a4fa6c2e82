// A floating function of one argument as the value rules describe it (value_rules.cpp's table,
// activation_rules.cpp's): how its range, slope and the GPU's error bound its results.
#pragma once

#include <functional>
#include <string_view>
#include <vector>

#include "tools/fuzz/bounds.h"

namespace lazy::fuzz {

struct FloatFunction {
  std::function<double(double)> f;
  double domain_lo, domain_hi;
  std::function<double(double lo, double hi)> slope;  // largest |f'| over [lo, hi]
  double ulps;  // how far the GPU's f32 version may be from the exact value, in its f32 ulps
  std::vector<double> turning_points;
  bool composite = false;  // several ops in f32: ulps count at the argument's magnitude too
};

// f of x (already in the result's dtype): its range over x's, its error from x's through the
// slope, plus the function's own.
Bounds float_function_rule(std::string_view op, const FloatFunction& fn, const Bounds& x,
                           DType result);

}  // namespace lazy::fuzz

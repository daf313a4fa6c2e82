#include "tools/fuzz/data_bounds.h"

#include <algorithm>
#include <cmath>

namespace lazy::fuzz {

Bounds data_bounds(const DataSpec& data, DType dtype) {
  if (dtype == DType::bool_) return Bounds{0, 1, 0, 0};
  if (!is_floating(dtype)) return Bounds{data.lo, data.hi, 0, 0};
  Bounds b{data.lo, data.hi, 0, data.quantum >= 0 ? data.quantum : kNoQuantum};
  if (data.quantum >= 0) {
    // Values are rounded to the grid, which may take them just past the range's ends.
    b.lo = std::nearbyint(std::ldexp(b.lo, data.quantum)) * std::ldexp(1.0, -data.quantum);
    b.hi = std::nearbyint(std::ldexp(b.hi, data.quantum)) * std::ldexp(1.0, -data.quantum);
  }
  if (!fits(dtype, b.lo, b.hi, b.quantum)) {
    // Rounded once to the dtype, the same everywhere, possibly just past the range's ends.
    b.quantum = kNoQuantum;
    b.lo -= ulp(dtype, std::abs(b.lo));
    b.hi += ulp(dtype, std::abs(b.hi));
  }
  b.special = data.special > 0;
  // The specials hold -0 besides NaN and infinities: a finite value the range must hold too
  // (hypot(0.1, -0) is 0.1, below the least hypot of the range without it).
  if (b.special) b.lo = std::min(b.lo, 0.0), b.hi = std::max(b.hi, 0.0);
  return b;
}

}  // namespace lazy::fuzz

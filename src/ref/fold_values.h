// What the reference's folds (reductions, scans, top-k) share: NaN tests in either domain, and
// the accumulator's start.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

#include "ir/op.h"

namespace lazy::ref {

inline bool is_nan(double v) {
  return std::isnan(v);
}
inline bool is_nan(std::int64_t) {
  return false;
}

// The accumulator's start in the reference's double or int64 domain.
template <class T>
T identity_value(ir::FoldIdentity identity) {
  switch (identity) {
    case ir::FoldIdentity::zero:
      return T(0);
    case ir::FoldIdentity::one:
      return T(1);
    case ir::FoldIdentity::lowest:
      return std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                                  : std::numeric_limits<T>::min();
    case ir::FoldIdentity::highest:
      return std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity()
                                                  : std::numeric_limits<T>::max();
  }
  return T(0);
}

}  // namespace lazy::ref

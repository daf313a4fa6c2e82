// The fuzzer's random numbers and the values it draws with them: sizes that reach the kernels'
// edge cases, dtypes, data ranges (mostly on grids that keep arithmetic exact) and numbers.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <numeric>
#include <span>
#include <vector>

#include "tools/fuzz/program.h"

namespace lazy::fuzz {

// A 64-bit mix of two words (splitmix64), for seeds and keys.
std::uint64_t mix(std::uint64_t a, std::uint64_t b = 0);

class Random {
 public:
  explicit Random(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() { return state_ = mix(state_, 1); }
  // Uniform in [0, n).
  std::int64_t below(std::int64_t n) {
    return n <= 0 ? 0 : std::int64_t(next() % std::uint64_t(n));
  }
  std::int64_t between(std::int64_t lo, std::int64_t hi) { return lo + below(hi - lo + 1); }
  bool chance(int percent) { return below(100) < percent; }
  template <class T>
  const T& pick(const std::vector<T>& v) {
    return v[std::size_t(below(std::int64_t(v.size())))];
  }
  // An index drawn with the given weights.
  int weighted(std::initializer_list<int> weights) {
    return weighted(std::span<const int>(weights.begin(), weights.size()));
  }
  int weighted(std::span<const int> weights) {
    int r = int(below(std::accumulate(weights.begin(), weights.end(), 0)));
    int i = 0;
    for (int w : weights) {
      if (r < w) return i;
      r -= w, ++i;
    }
    return i - 1;
  }

 private:
  std::uint64_t state_;
};

// An axis size: small, medium, or one of the sizes kernels treat specially.
std::int64_t random_size(Random& random);
DType random_dtype(Random& random);
DataSpec random_data(Random& random, DType dtype);
// A number operand: an integer, a float (mostly short dyadic fractions) or a bool.
Arg random_number(Random& random);
// random_number of the kind a tensor of `dtype` takes as a fill: bool, whole, or any.
Arg fill_number(Random& random, DType dtype);
// A lerp weight: mostly in [0, 1], on both sides of 0.5 where PyTorch's two forms meet.
Arg random_weight(Random& random);

}  // namespace lazy::fuzz

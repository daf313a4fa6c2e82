#include "tools/fuzz/random_choices.h"

#include <cmath>

#include <algorithm>
#include <tuple>

namespace lazy::fuzz {

std::uint64_t mix(std::uint64_t a, std::uint64_t b) {
  std::uint64_t z = a ^ (b * 0x9e3779b97f4a7c15ull);
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

std::int64_t random_size(Random& random) {
  // Sizes that reach the kernels' edge cases: empty, one, odd, around vector widths, warps and
  // blocks, the 16384-element chunks of long reductions, 2^16-element softmax rows.
  static const std::vector<std::int64_t> edge_sizes = {
      0,   1,    2,    3,    4,    5,    7,    8,    15,    16,    17,
      31,  32,   33,   63,   64,   65,   127,  128,  129,   255,   256,
      257, 1000, 1023, 1024, 1025, 2048, 2049, 4099, 16385, 65536, 70001};
  switch (random.weighted({40, 40, 20})) {
    case 0:
      return random.between(1, 8);
    case 1:
      return random.between(9, 300);
    default:
      return random.pick(edge_sizes);
  }
}

DType random_dtype(Random& random) {
  static const std::vector<DType> all = {DType::f32, DType::f16, DType::bf16,
                                         DType::i32, DType::i64, DType::bool_};
  return all[std::size_t(random.weighted({40, 12, 12, 10, 10, 16}))];
}

DataSpec random_data(Random& random, DType dtype) {
  DataSpec d;
  d.key = random.next();
  if (is_floating(dtype)) {
    // On a grid of 2^-q most of the time, so that sums, products and comparisons are exact.
    static const std::vector<std::pair<double, double>> exact_ranges = {
        {-4, 4}, {-2, 2}, {0.25, 4}, {-100, 100}, {1, 8}, {-1, 0}};
    static const std::vector<std::pair<double, double>> ranges = {
        {-3, 3}, {0.1, 5}, {-30, 30}, {0.5, 1.5}};
    if (random.chance(60)) {
      std::tie(d.lo, d.hi) = random.pick(exact_ranges);
      d.quantum = int(random.pick(std::vector<std::int64_t>{0, 1, 2, 3, 4, 6}));
      if (d.hi - d.lo > 50) d.quantum = std::min(d.quantum, 2);
    } else {
      std::tie(d.lo, d.hi) = random.pick(ranges);
    }
    if (random.chance(12)) d.special = int(random.between(2, 12));
  } else if (dtype == DType::bool_) {
    d.bool_percent = int(random.between(5, 95));
  } else {
    static const std::vector<std::pair<double, double>> ranges = {
        {-100, 100}, {0, 10}, {-5, 5}, {1, 1000}};
    std::tie(d.lo, d.hi) = random.pick(ranges);
  }
  return d;
}

Arg random_number(Random& random) {
  Arg a;
  switch (random.weighted({20, 65, 15})) {
    case 0:
      a.kind = Scalar::Kind::integer;
      a.number = double(random.between(-4, 5));
      break;
    case 1:
      a.kind = Scalar::Kind::floating;
      a.number = random.pick(
          std::vector<double>{0.5, 0.25, 2.0, -1.5, 0.125, 3.0, -0.75, 1.2, 0.1, 10.0, 1e-3});
      break;
    default:
      a.kind = Scalar::Kind::boolean;
      a.number = random.chance(50);
      break;
  }
  return a;
}

Arg fill_number(Random& random, DType dtype) {
  Arg value = random_number(random);
  if (dtype == DType::bool_) {
    value.kind = Scalar::Kind::boolean;
    value.number = value.number != 0;
  } else if (!is_floating(dtype)) {
    value.kind = Scalar::Kind::integer;
    value.number = std::trunc(value.number);
  }
  return value;
}

Arg random_weight(Random& random) {
  Arg a;
  a.number = random.pick(std::vector<double>{0, 0.25, 0.5, 0.75, 1, 0.3, 0.625, -0.5, 1.5, 2});
  return a;
}

}  // namespace lazy::fuzz

// Shared by the host tests: readable dtypes and shapes in failure messages, the dtype lists,
// rounding to a dtype computed independently of the library, seeded random values, and a
// comparison of values with a tolerance.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <ostream>
#include <random>
#include <vector>

#include "lazy/lazy.h"

namespace lazy {
// GoogleTest prints a dtype and a shape by name in failure messages.
inline void PrintTo(DType dtype, std::ostream* os) {
  *os << dtype_name(dtype);
}
inline void PrintTo(const Shape& shape, std::ostream* os) {
  *os << shape.to_string();
}
}  // namespace lazy

namespace lazy_test {

// n normal samples from `seed`: the same values on every run and machine of one toolchain.
inline std::vector<float> random_floats(std::int64_t n, std::uint32_t seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> normal;
  std::vector<float> v(std::size_t(n), 0.0f);
  for (float& x : v) x = normal(gen);
  return v;
}

// A 1-d f32 tensor of `values` (rounded to f32).
inline lazy::Tensor f32_values(const std::vector<double>& values) {
  return lazy::from_data(values, {std::int64_t(values.size())}, lazy::f32);
}

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
inline constexpr double kInf = std::numeric_limits<double>::infinity();

// Each element of `got` is `want`'s within `relative` of it plus `absolute`: NaN where it is NaN,
// infinities exactly.
inline void expect_near_values(const std::vector<double>& got, const std::vector<double>& want,
                               double relative, double absolute = 0) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << "element " << i << ": " << got[i];
    } else if (std::isinf(want[i])) {
      EXPECT_EQ(got[i], want[i]) << "element " << i;
    } else {
      EXPECT_NEAR(got[i], want[i], relative * std::abs(want[i]) + absolute) << "element " << i;
    }
  }
}

inline constexpr lazy::DType kFloatingDTypes[] = {lazy::f32, lazy::f16, lazy::bf16};
inline constexpr lazy::DType kNonFloatingDTypes[] = {lazy::i32, lazy::i64, lazy::bool_};
inline constexpr lazy::DType kAllDTypes[] = {lazy::f32, lazy::f16, lazy::bf16,
                                             lazy::i32, lazy::i64, lazy::bool_};

// The value `dtype` stores for `value`: the nearest one, ties to even, for floating dtypes (f16
// through the compiler's _Float16, bf16 as 8 significant bits; the tests stay in bf16's normal
// range); truncation toward zero for integers; non-zero for bool.
inline double round_to(lazy::DType dtype, double value) {
  switch (dtype) {
    case lazy::f32:
      return double(float(value));
    case lazy::f16:
      return double(static_cast<_Float16>(value));
    case lazy::bf16: {
      if (!std::isfinite(value) || value == 0) return value;
      int exponent;
      double mantissa = std::frexp(value, &exponent);  // in [0.5, 1)
      return std::ldexp(std::nearbyint(std::ldexp(mantissa, 8)), exponent - 8);
    }
    case lazy::i32:
    case lazy::i64:
      return std::trunc(value);
    case lazy::bool_:
      return value != 0 ? 1.0 : 0.0;
  }
  return value;
}

}  // namespace lazy_test

// Shared by the matrix-product tests: random operands that are exact in their dtype and never
// zero, and the products they should give, computed here from einsum's definition (a sum over
// every index of the equation) without the library's reading of it.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "host_test_support.h"
#include "lazy/lazy.h"

namespace lazy_test {

// A tensor and the values it holds, row-major.
struct HostTensor {
  lazy::Tensor tensor;
  std::vector<double> values;
  lazy::Shape shape;
};

// Values of magnitude 0.25 to 2, of either sign, rounded to `dtype`.
inline HostTensor random_tensor(const lazy::Shape& shape, lazy::DType dtype, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> magnitude(0.25, 2.0);
  std::bernoulli_distribution negative;
  std::vector<double> values(std::size_t(shape.numel()));
  for (double& v : values) v = round_to(dtype, negative(rng) ? -magnitude(rng) : magnitude(rng));
  return {lazy::from_data(values, shape, dtype), values, shape};
}

// What a product should give: exact values, the shape, and per element the sum of the magnitudes
// of its terms, which scales how far a correct backend may be from the exact value.
struct Expected {
  lazy::Shape shape;
  std::vector<double> values, scale;
};

// out[o] = sum over every other index of the product of the operands' elements, for an explicit
// equation "ab,bc->ac" of any number of operands (a repeated index reads a diagonal).
inline Expected naive_einsum(std::string_view equation,
                             const std::vector<const HostTensor*>& operands) {
  const std::size_t arrow = equation.find("->");
  std::vector<std::string> indices(1);
  for (char c : equation.substr(0, arrow)) {
    if (c == ',') {
      indices.emplace_back();
    } else {
      indices.back() += c;
    }
  }
  const std::string io(equation.substr(arrow + 2));
  std::string letters;
  std::vector<std::int64_t> sizes;
  for (std::size_t k = 0; k < operands.size(); ++k) {
    for (std::size_t i = 0; i < indices[k].size(); ++i) {
      const std::size_t seen = letters.find(indices[k][i]);
      if (seen != std::string::npos) {  // a size of 1 broadcasts
        sizes[seen] = std::max(sizes[seen], operands[k]->shape[int(i)]);
        continue;
      }
      letters += indices[k][i];
      sizes.push_back(operands[k]->shape[int(i)]);
    }
  }
  Expected out;
  for (char c : io) out.shape.push_back(sizes[letters.find(c)]);
  out.values.assign(std::size_t(out.shape.numel()), 0.0);
  out.scale.assign(out.values.size(), 0.0);
  // Row-major position of the element `indices` names, at the current value of every letter (0
  // on an axis of size 1).
  std::vector<std::int64_t> at(letters.size(), 0);
  auto position = [&](const std::string& indices, const lazy::Shape& shape) {
    std::int64_t p = 0;
    for (std::size_t i = 0; i < indices.size(); ++i)
      p = p * shape[int(i)] + at[letters.find(indices[i])] % shape[int(i)];
    return std::size_t(p);
  };
  std::int64_t combinations = 1;
  for (std::int64_t s : sizes) combinations *= s;
  for (std::int64_t n = 0; n < combinations; ++n) {
    std::int64_t rest = n;
    for (std::size_t l = letters.size(); l-- > 0;) {
      at[l] = rest % sizes[l];
      rest /= sizes[l];
    }
    double term = 1;
    for (std::size_t k = 0; k < operands.size(); ++k)
      term *= operands[k]->values[position(indices[k], operands[k]->shape)];
    out.values[position(io, out.shape)] += term;
    out.scale[position(io, out.shape)] += std::abs(term);
  }
  return out;
}

inline Expected naive_einsum(std::string_view equation, const HostTensor& a, const HostTensor& b) {
  return naive_einsum(equation, {&a, &b});
}

// How far a result may be from the exact value, relative to the sum of its terms' magnitudes:
// the rounding of the result to its dtype, and f32 accumulation on a GPU.
inline double product_tolerance(lazy::DType dtype) {
  return dtype == lazy::f32 ? 2e-6 : dtype == lazy::f16 ? 2e-3 : 1e-2;
}

inline void expect_product(const lazy::Tensor& got, const Expected& want, lazy::DType dtype) {
  ASSERT_EQ(got.shape(), want.shape);
  EXPECT_EQ(got.dtype(), dtype);
  const std::vector<double> values = got.to_vector<double>();
  for (std::size_t i = 0; i < values.size(); ++i) {
    EXPECT_NEAR(values[i], want.values[i], product_tolerance(dtype) * want.scale[i] + 1e-12)
        << "element " << i << " of " << want.shape.to_string();
  }
}

}  // namespace lazy_test

// Gradients against central differences of the same function, for the autodiff tests.
#pragma once

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "host_test_support.h"
#include "lazy/lazy.h"

namespace lazy_test {

using Fn = std::function<lazy::Tensor(std::span<const lazy::Tensor>)>;

struct Input {
  lazy::Shape shape;
  std::vector<float> values;
};

// Normal values, scaled by `scale` and moved by `shift`.
inline Input input(const lazy::Shape& shape, std::uint32_t seed, float scale = 1, float shift = 0) {
  std::vector<float> values = random_floats(shape.numel(), seed);
  for (float& v : values) v = v * scale + shift;
  return {shape, values};
}
inline Input positive(const lazy::Shape& shape, std::uint32_t seed) {
  Input in = input(shape, seed);
  for (float& v : in.values) v = 0.5f + std::fabs(v);
  return in;
}

inline std::vector<lazy::Tensor> tensors(const std::vector<Input>& inputs) {
  std::vector<lazy::Tensor> out;
  for (const Input& in : inputs) out.push_back(lazy::from_data(in.values, in.shape));
  return out;
}

// grad of sum(f(x) * w), for a fixed random w of f's output shape, against central differences
// of that loss in each element of each input.
inline void expect_gradients_match(const Fn& f, const std::vector<Input>& inputs,
                                   const std::string& what, double tolerance = 2e-2,
                                   float step = 1e-2f) {
  SCOPED_TRACE(what);
  const lazy::Shape out_shape = f(tensors(inputs)).shape();
  const lazy::Tensor weights = lazy::from_data(input(out_shape, 99).values, out_shape);
  const Fn loss = [&](std::span<const lazy::Tensor> x) { return lazy::sum(f(x) * weights); };
  const std::vector<lazy::Tensor> x = tensors(inputs);
  const std::vector<lazy::Tensor> gradients = lazy::grad(loss)(x);
  ASSERT_EQ(gradients.size(), inputs.size());
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    ASSERT_EQ(gradients[k].shape(), inputs[k].shape) << "input " << k;
    ASSERT_EQ(gradients[k].dtype(), lazy::f32) << "input " << k;
    const std::vector<double> analytic = gradients[k].to_vector<double>();
    for (std::size_t i = 0; i < inputs[k].values.size(); ++i) {
      std::vector<Input> moved = inputs;
      const auto at = [&](float delta) {
        moved[k].values[i] = inputs[k].values[i] + delta;
        return loss(tensors(moved)).item<double>();
      };
      const double numeric = (at(step) - at(-step)) / (2.0 * double(step));
      EXPECT_NEAR(analytic[i], numeric, tolerance * std::max(1.0, std::fabs(numeric)))
          << "input " << k << " element " << i;
    }
  }
}

}  // namespace lazy_test

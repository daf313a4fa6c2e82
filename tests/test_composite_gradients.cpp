// The textbook gradients of the row composites (autodiff/composite_rules.h): against central
// differences over several shapes and axes, through a second derivative, and by what their
// backward folds: one row reduction beyond the forward's, where the primitives' chain has more.
#include <cmath>
#include <vector>

#include <absl/container/flat_hash_set.h>
#include <gtest/gtest.h>

#include "gradient_test_support.h"
#include "ir/node.h"
#include "ir/op.h"
#include "lazy/lazy.h"

namespace {

using lazy::Tensor;
using lazy_test::expect_gradients_match;
using lazy_test::input;

TEST(CompositeGradients, MatchDifferencesOverShapesAndAxes) {
  const lazy_test::Input x3 = input({2, 3, 4}, 40), w = input({4}, 41), b = input({4}, 42);
  expect_gradients_match([](auto t) { return lazy::softmax(t[0], 0); }, {x3}, "softmax, axis 0");
  expect_gradients_match([](auto t) { return lazy::softmax(t[0], 1) * t[0]; }, {x3},
                         "softmax read twice");
  expect_gradients_match([](auto t) { return lazy::log_softmax(t[0], -1); }, {x3},
                         "log_softmax, last axis");
  expect_gradients_match(
      [](auto t) {
        return lazy::logsumexp(t[0], {0, 2});
      },
      {x3}, "logsumexp of two axes");
  expect_gradients_match([](auto t) { return lazy::logsumexp(t[0], {1}, true); }, {x3},
                         "logsumexp, keepdim");
  expect_gradients_match([](auto t) { return lazy::layer_norm(t[0], t[1], t[2]); }, {x3, w, b},
                         "layer_norm of a 3-d tensor");
  expect_gradients_match([](auto t) { return lazy::rms_norm(t[0], t[1], 1e-3); }, {x3, w},
                         "rms_norm of a 3-d tensor");
  expect_gradients_match(
      [](auto t) {
        return lazy::var(t[0], {0, 2}, 0.0, true);
      },
      {x3}, "var of two axes, biased, keepdim");
  expect_gradients_match([](auto t) { return lazy::std(t[0], {}, 2.0); }, {x3},
                         "std of all, correction 2");
  // A composite of a composite: each mark differentiates its own input.
  expect_gradients_match([](auto t) { return lazy::softmax(lazy::rms_norm(t[0], t[1]) * 2.0, -1); },
                         {x3, w}, "softmax of rms_norm");
}

TEST(CompositeGradients, AHalfInputDifferentiatesThroughItsCast) {
  const Tensor x = lazy::from_data(std::vector<float>{0.5f, -1, 2, 0.25f}, {2, 2});
  const auto loss = [](std::span<const Tensor> t) {
    return lazy::sum(lazy::softmax(t[0].to(lazy::f16), -1).to(lazy::f32) * t[0]);
  };
  const Tensor g = lazy::grad(loss)({x})[0];
  const Tensor expected = lazy::grad(
      [](std::span<const Tensor> t) { return lazy::sum(lazy::softmax(t[0], -1) * t[0]); })({x})[0];
  const std::vector<double> got = g.to_vector<double>(), want = expected.to_vector<double>();
  for (std::size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 5e-3) << i;
}

// d/dx of the gradient: the backward the rules record is differentiated by its primitives.
TEST(CompositeGradients, SecondDerivativesMatchDifferencesOfTheFirst) {
  const lazy_test::Input x = input({2, 5}, 43), w = input({5}, 44), b = input({5}, 45);
  const Tensor up = lazy::from_data(input({2, 5}, 46).values, {2, 5});
  for (int which = 0; which < 3; ++which) {
    const lazy_test::Fn f = [&, which](std::span<const Tensor> t) {
      if (which == 0) return lazy::softmax(t[0], -1);
      if (which == 1) return lazy::layer_norm(t[0], t[1], t[2]);
      return lazy::logsumexp(t[0], {1}, true);
    };
    const lazy_test::Fn first = [&](std::span<const Tensor> t) {
      return lazy::grad([&](std::span<const Tensor> p) { return lazy::sum(f(p) * up); })(
          {t[0], t[1], t[2]})[0];
    };
    expect_gradients_match(first, {x, w, b}, "grad of grad, case " + std::to_string(which), 3e-2);
  }
}

// Reductions a tensor's pending graph folds.
int reductions_reached(const Tensor& t) {
  absl::flat_hash_set<const lazy::ir::Node*> seen;
  std::vector<const lazy::ir::Node*> stack = {t.node()};
  int reductions = 0;
  while (!stack.empty()) {
    const lazy::ir::Node* node = stack.back();
    stack.pop_back();
    if (node == nullptr || !seen.insert(node).second) continue;
    if (lazy::ir::op_kind(node->op) == lazy::ir::OpKind::reduction) ++reductions;
    stack.insert(stack.end(), node->inputs.begin(), node->inputs.end());
  }
  return reductions;
}

TEST(CompositeGradients, EachBackwardFoldsOneRowBeyondItsForward) {
  const Tensor x = lazy::from_data(input({4, 6}, 47).values, {4, 6});
  const Tensor up = lazy::from_data(input({4, 6}, 48).values, {4, 6});
  const Tensor w = lazy::ones({6});
  struct Case {
    const char* name;
    lazy_test::Fn f;
    int forward;   // reductions of the forward
    int backward;  // reductions its gradient with respect to x adds
  };
  const std::vector<Case> cases = {
      {"softmax", [](auto t) { return lazy::softmax(t[0], -1); }, 2, 1},
      {"log_softmax", [](auto t) { return lazy::log_softmax(t[0], -1); }, 2, 1},
      {"logsumexp", [](auto t) { return lazy::logsumexp(t[0], {1}, true); }, 2, 0},
      {"layer_norm", [&](auto t) { return lazy::layer_norm(t[0], w, w); }, 2, 2},
      {"rms_norm", [&](auto t) { return lazy::rms_norm(t[0], w); }, 1, 1},
  };
  for (const Case& c : cases) {
    const Tensor forward = c.f(std::vector<Tensor>{x});
    EXPECT_EQ(reductions_reached(forward), c.forward) << c.name;
    const Tensor cotangent = c.name == std::string("logsumexp") ? lazy::sum(up, 1, true) : up;
    const Tensor dx = lazy::vjp([&](auto t) { return std::vector<Tensor>{c.f(t)}; },
                                std::vector<Tensor>{x}, std::vector<Tensor>{cotangent})
                          .gradients[0];
    // The cotangent's own sum (logsumexp's) counts too.
    const int cotangent_reductions = reductions_reached(cotangent);
    EXPECT_EQ(reductions_reached(dx), c.forward + c.backward + cotangent_reductions) << c.name;
    lazy::eval({dx});
  }
}

// Found by the fuzzer's gradient check (seed 1, programs 0 and 253): the primitives' rules give
// 0 * inf where these give PyTorch's finite gradients.
TEST(CompositeGradients, SoftplusOfLargeValuesHasAFiniteGradient) {
  const Tensor x = lazy::from_data(std::vector<float>{100, -100, 0, 3}, {4});
  const Tensor g = lazy::grad([](auto t) { return lazy::sum(lazy::softplus(t[0])); })({x})[0];
  const std::vector<float> got = g.to_vector<float>();
  EXPECT_FLOAT_EQ(got[0], 1);
  EXPECT_NEAR(got[1], 0, 1e-30);
  EXPECT_FLOAT_EQ(got[2], 0.5f);
  EXPECT_FLOAT_EQ(got[3], 1 / (1 + std::exp(-3.0f)));
}

TEST(CompositeGradients, TheStdOfEqualElementsTakesNoGradient) {
  // Rows of 4, whose mean is exact in f32 (a third is not: the first row's std would be 2e-7).
  const Tensor x = lazy::from_data(std::vector<float>{2, 2, 2, 2, 1, 3, 5, 7}, {2, 4});
  const Tensor g = lazy::grad([](auto t) { return lazy::sum(lazy::std(t[0], 1)); })({x})[0];
  const std::vector<float> got = g.to_vector<float>();
  for (int i = 0; i < 4; ++i) EXPECT_EQ(got[std::size_t(i)], 0) << i;
  // (x - mean) / ((n - 1) std) for the row 1, 3, 5, 7: mean 4, std sqrt(20 / 3).
  const double scale = 3 * std::sqrt(20.0 / 3);
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(got[std::size_t(4 + i)], (2 * i - 3) / scale, 1e-6) << i;
}

// Found in review: var centred x by its mean rounded at x's magnitude, which put back the error
// that shifting by a row's element avoids: [1e8, 1e8 + 8] (f32's spacing there is 8) had
// variance 64 and std gradients [0, 1].
TEST(CompositeGradients, VarianceOfValuesFarFromZeroCentresExactly) {
  const Tensor x = lazy::from_data(std::vector<float>{1e8f, 1e8f + 8}, {2});
  EXPECT_EQ(lazy::var(x).item<float>(), 32.0f);
  EXPECT_EQ(lazy::var(lazy::from_data(std::vector<float>{16777216, 16777218}, {2})).item<float>(),
            2.0f);
  const std::vector<float> g =
      lazy::grad([](auto t) { return lazy::std(t[0]); })({x})[0].to_vector<float>();
  EXPECT_NEAR(g[0], -std::sqrt(0.5), 1e-6);
  EXPECT_NEAR(g[1], std::sqrt(0.5), 1e-6);
}

// PyTorch's var_backward takes 2 / (n - correction) unclamped: over an axis, a correction past
// n flips the gradient's sign and n itself gives inf * (x - mean); over all elements with none
// left, inf off the mean and NaN on it.
TEST(CompositeGradients, VarianceWithoutDegreesOfFreedomAsPyTorch) {
  // A mean of 3 that every order of operations computes exactly (a fused kernel contracts
  // x - sum * (1 / n) into one fma, so a mean like 6 / 3 would be off by an ulp).
  const Tensor x = lazy::from_data(std::vector<float>{1, 2, 3, 6}, {4});
  const auto grad_of = [&](const lazy_test::Fn& variance) {
    return lazy::grad(variance)({x})[0].to_vector<float>();
  };
  EXPECT_EQ(grad_of([](auto t) { return lazy::var(t[0], 0, 5.0); }),
            (std::vector<float>{4, 2, 0, -6}));
  const std::vector<float> over_axis = grad_of([](auto t) { return lazy::var(t[0], 0, 4.0); });
  EXPECT_EQ(over_axis[0], -INFINITY);
  EXPECT_EQ(over_axis[1], -INFINITY);
  EXPECT_TRUE(std::isnan(over_axis[2]));
  EXPECT_EQ(over_axis[3], INFINITY);
  const std::vector<float> over_all = grad_of([](auto t) { return lazy::var(t[0], {}, 6.0); });
  EXPECT_EQ(over_all[0], INFINITY);
  EXPECT_EQ(over_all[1], INFINITY);
  EXPECT_TRUE(std::isnan(over_all[2]));
  EXPECT_EQ(over_all[3], INFINITY);
  // std = sqrt(inf): its gradient 0 reaches the variance's rule, 0 * inf and 0 * NaN.
  for (float g : grad_of([](auto t) { return lazy::std(t[0], {}, 4.0); }))
    EXPECT_TRUE(std::isnan(g));
}

}  // namespace

// l1_loss, smooth_l1_loss, huber_loss, binary_cross_entropy (with and without logits) and
// kl_div against PyTorch 2.11's values and gradients on the same inputs (measured on CPU and
// CUDA: .probe/losses), at the kinks, the clamps and the infinities. Computed by whatever
// backend runs.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <span>
#include <vector>

#include "error_test_support.h"
#include "host_test_support.h"
#include "lazy/lazy.h"

namespace {

using lazy::DType;
using lazy::Reduction;
using lazy::Tensor;
using lazy_test::f32_values;
using lazy_test::kInf;
using lazy_test::kNaN;

using Loss = std::function<Tensor(const Tensor&, const Tensor&)>;

// The loss's values and its gradients with respect to both arguments (of sum(loss)).
struct ValuesAndGradients {
  std::vector<double> values, input_gradient, target_gradient;
};

ValuesAndGradients evaluate(const Loss& loss, const std::vector<double>& x,
                            const std::vector<double>& y) {
  const std::vector<Tensor> args = {f32_values(x), f32_values(y)};
  const std::vector<Tensor> g =
      lazy::grad([&](std::span<const Tensor> v) { return lazy::sum(loss(v[0], v[1])); })(args);
  return {loss(args[0], args[1]).to_vector<double>(), g[0].to_vector<double>(),
          g[1].to_vector<double>()};
}

// Equal within f32's rounding (relative 1e-6), NaN where NaN, infinities exactly.
void expect_near(const std::vector<double>& got, const std::vector<double>& want) {
  lazy_test::expect_near_values(got, want, 1e-6, 1e-12);
}

const std::vector<double> kX = {-2, -1, -0.5, 0, 0.5, 1, 2, 3};
const std::vector<double> kY = {0, -1, 0.5, 0, -0.5, 0, 0, 1};

TEST(RegressionLosses, L1IsTheAbsoluteDifferenceWithNoGradientAtZero) {
  const ValuesAndGradients l1 = evaluate(
      [](const Tensor& a, const Tensor& b) { return lazy::l1_loss(a, b, Reduction::none); }, kX,
      kY);
  EXPECT_EQ(l1.values, (std::vector<double>{2, 0, 1, 0, 1, 1, 2, 2}));
  EXPECT_EQ(l1.input_gradient, (std::vector<double>{-1, 0, -1, 0, 1, 1, 1, 1}));
  EXPECT_EQ(l1.target_gradient, (std::vector<double>{1, 0, 1, 0, -1, -1, -1, -1}));
  EXPECT_EQ(lazy::l1_loss(f32_values(kX), f32_values(kY)).item<double>(), 1.125);
  EXPECT_EQ(lazy::l1_loss(f32_values(kX), f32_values(kY), Reduction::sum).item<double>(), 9);
  EXPECT_TRUE(std::isnan(lazy::l1_loss(lazy::zeros({0}), lazy::zeros({0})).item<double>()));
  // Integers beside a floating tensor, broadcasting and the dtypes, as PyTorch's.
  const Tensor ints = lazy::from_data(std::vector<std::int64_t>{1, 2}, {2}, DType::i64);
  EXPECT_EQ(lazy::l1_loss(ints, f32_values({0, 0.5})).item<double>(), 1.25);
  EXPECT_ERROR_AT_THIS_LINE(lazy::DTypeError, lazy::l1_loss(ints, ints));
  EXPECT_EQ(lazy::l1_loss(lazy::ones({1, 2}), lazy::ones({2, 1}), Reduction::none).shape(),
            (lazy::Shape{2, 2}));
  EXPECT_EQ(lazy::l1_loss(lazy::ones({2}, DType::f16), lazy::ones({2}, DType::f16)).dtype(),
            DType::f16);
}

TEST(RegressionLosses, SmoothL1AndHuberBendAtTheirThresholds) {
  const auto smooth = [](double beta) {
    return [beta](const Tensor& a, const Tensor& b) {
      return lazy::smooth_l1_loss(a, b, Reduction::none, beta);
    };
  };
  const ValuesAndGradients one = evaluate(smooth(1), kX, kY);
  EXPECT_EQ(one.values, (std::vector<double>{1.5, 0, 0.5, 0, 0.5, 0.5, 1.5, 1.5}));
  EXPECT_EQ(one.input_gradient, (std::vector<double>{-1, 0, -1, 0, 1, 1, 1, 1}));
  const ValuesAndGradients half = evaluate(smooth(0.5), kX, kY);
  EXPECT_EQ(half.values, (std::vector<double>{1.75, 0, 0.75, 0, 0.75, 0.75, 1.75, 1.75}));
  EXPECT_EQ(evaluate(smooth(0), kX, kY).values, (std::vector<double>{2, 0, 1, 0, 1, 1, 2, 2}));
  const auto huber = [](double delta) {
    return [delta](const Tensor& a, const Tensor& b) {
      return lazy::huber_loss(a, b, Reduction::none, delta);
    };
  };
  const ValuesAndGradients h = evaluate(huber(0.5), kX, kY);
  EXPECT_EQ(h.values, (std::vector<double>{0.875, 0, 0.375, 0, 0.375, 0.375, 0.875, 0.875}));
  EXPECT_EQ(h.input_gradient, (std::vector<double>{-0.5, 0, -0.5, 0, 0.5, 0.5, 0.5, 0.5}));
  const ValuesAndGradients wide = evaluate(huber(2), kX, kY);
  EXPECT_EQ(wide.values, (std::vector<double>{2, 0, 0.5, 0, 0.5, 0.5, 2, 2}));
  EXPECT_EQ(wide.input_gradient, (std::vector<double>{-2, 0, -1, 0, 1, 1, 2, 2}));
  // At infinities the quadratic branch is never fed one: the gradients are PyTorch's.
  for (const Loss& loss : {Loss(smooth(1)), Loss(huber(1))}) {
    const ValuesAndGradients inf = evaluate(loss, {kNaN, kInf, 1}, {0, kInf, -kInf});
    expect_near(inf.values, {kNaN, kNaN, kInf});
    expect_near(inf.input_gradient, {kNaN, kNaN, 1});
  }
  const Tensor x = f32_values(kX), y = f32_values(kY);
  // Input and target broadcast first, as PyTorch's: a 0-d f32 beside f16 gives f32. huber_loss
  // answers in the input's dtype, as PyTorch's writes into a tensor like it.
  const Tensor unit = lazy::full({}, 1.0), halves = f32_values({0, 0.5}).to(DType::f16);
  EXPECT_EQ(lazy::smooth_l1_loss(unit, halves, Reduction::none).dtype(), DType::f32);
  EXPECT_EQ(lazy::l1_loss(unit, halves, Reduction::none).dtype(), DType::f32);
  EXPECT_EQ(lazy::mse_loss(unit, halves, Reduction::none).dtype(), DType::f32);
  EXPECT_EQ(lazy::huber_loss(halves, f32_values({1, 1}), Reduction::none).dtype(), DType::f16);
  EXPECT_ERROR_AT_THIS_LINE(lazy::DTypeError,
                            lazy::huber_loss(lazy::ones({2}, DType::i64), f32_values({1, 1})));
  EXPECT_ERROR_AT_THIS_LINE(lazy::ValueError, lazy::smooth_l1_loss(x, y, Reduction::mean, -1));
  EXPECT_ERROR_AT_THIS_LINE(lazy::ValueError, lazy::huber_loss(x, y, Reduction::mean, 0));
}

const std::vector<double> kP = {0, 1e-30, 0.25, 0.5, 0.9, 1, 0.3, 0.7};
const std::vector<double> kQ = {0, 1, 0.5, 1, 0, 1, 0.2, 1};

TEST(BinaryCrossEntropy, ClampsItsLogsAndItsGradientsDenominatorAsPyTorch) {
  const ValuesAndGradients bce = evaluate(
      [](const Tensor& a, const Tensor& b) {
        return lazy::binary_cross_entropy(a, b, Tensor(), Reduction::none);
      },
      kP, kQ);
  expect_near(bce.values, {0, 69.07755279541016, 0.8369882106781006, 0.6931471824645996,
                           2.3025848865509033, 0, 0.5261345505714417, 0.3566749691963196});
  expect_near(bce.input_gradient, {0, -999999995904.0, -1.3333333730697632, -2, 9.999998092651367,
                                   0, 0.4761905074119568, -1.4285714626312256});
  expect_near(bce.target_gradient,
              {kInf, 69.07755279541016, 1.0986123085021973, 0, -2.1972243785858154, -kInf,
               0.8472977876663208, -0.8472978472709656});
  EXPECT_TRUE(std::signbit(bce.values[5]));  // -(1 * log 1) + 0: PyTorch's -0
  EXPECT_NEAR(lazy::binary_cross_entropy(f32_values(kP), f32_values(kQ)).item<double>(),
              9.224135398864746, 1e-5);
  const Tensor weight = f32_values({1, 2, 3, 4, 5, 6, 7, 8});
  expect_near(lazy::binary_cross_entropy(f32_values(kP), f32_values(kQ), weight, Reduction::none)
                  .to_vector<double>(),
              {0, 138.1551055908203, 2.5109646320343018, 2.7725887298583984, 11.512924194335938, 0,
               3.6829419136047363, 2.8533997535705566});
  // Out of [0, 1] the input gives NaN (PyTorch stops with an error).
  expect_near(lazy::binary_cross_entropy(f32_values({1.5, -0.1}), f32_values({1, 0}), Tensor(),
                                         Reduction::none)
                  .to_vector<double>(),
              {kNaN, kNaN});
  EXPECT_ERROR_AT_THIS_LINE(lazy::ShapeError,
                            lazy::binary_cross_entropy(f32_values({0.5, 0.2}), lazy::ones({1, 2})));
  EXPECT_ERROR_AT_THIS_LINE(
      lazy::DTypeError,
      lazy::binary_cross_entropy(f32_values({0.5, 0.2}), lazy::ones({2}, DType::i64)));
  // Weights multiply in place in PyTorch: they broadcast to the input, which keeps its dtype.
  const Tensor row = lazy::from_data(std::vector<double>{0.5, 0.2}, {1, 2});
  EXPECT_ERROR_AT_THIS_LINE(lazy::ShapeError,
                            lazy::binary_cross_entropy(row, row, lazy::ones({2, 2})));
  EXPECT_ERROR_AT_THIS_LINE(lazy::DTypeError, lazy::binary_cross_entropy(row.to(DType::f16), row));
  EXPECT_EQ(
      lazy::binary_cross_entropy(row.to(DType::f16), row.to(DType::f16), lazy::ones({2})).dtype(),
      DType::f16);
  EXPECT_EQ(lazy::binary_cross_entropy(f32_values({0.5, 0.2}).to(DType::f16),
                                       f32_values({1, 0}).to(DType::f16), Tensor(), Reduction::none)
                .to_vector<double>(),
            (std::vector<double>{0.693359375, 0.2230224609375}));
}

TEST(BinaryCrossEntropy, WithLogitsIsStableAndWeighsPositives) {
  const std::vector<double> z = {-100, -20, -2, -0.5, 0, 0.5, 2, 20, 100};
  const std::vector<double> w = {0, 1, 0.5, 1, 0, 1, 0.2, 1, 0};
  const ValuesAndGradients plain = evaluate(
      [](const Tensor& a, const Tensor& b) {
        return lazy::binary_cross_entropy_with_logits(a, b, Tensor(), Reduction::none);
      },
      z, w);
  expect_near(plain.values, {0, 20, 1.1269280910491943, 0.9740769863128662, 0.6931471824645996,
                             0.4740769863128662, 1.7269279956817627, 2.06115369216775e-09, 100});
  for (std::size_t i = 1; i < z.size(); ++i) {  // at -100, sigmoid's 3.7e-44 may flush to 0
    EXPECT_NEAR(plain.input_gradient[i], 1 / (1 + std::exp(-z[i])) - w[i], 1e-6) << i;
    EXPECT_NEAR(plain.target_gradient[i], -z[i], 1e-6 * std::abs(z[i])) << i;
  }
  const ValuesAndGradients positive = evaluate(
      [](const Tensor& a, const Tensor& b) {
        return lazy::binary_cross_entropy_with_logits(a, b, Tensor(), Reduction::none,
                                                      f32_values({3}));
      },
      z, w);
  expect_near(positive.values,
              {0, 60, 3.2538561820983887, 2.9222309589385986, 0.6931471824645996,
               1.4222309589385986, 1.7776992321014404, 6.1834608544586445e-09, 100});
  const Tensor logits = lazy::from_data(std::vector<double>{0.5, -1, 2}, {1, 3});
  const Tensor labels = lazy::from_data(std::vector<double>{1, 0, 1}, {1, 3});
  expect_near(lazy::binary_cross_entropy_with_logits(logits, labels, Tensor(), Reduction::none,
                                                     f32_values({2, 3, 0.5}))
                  .to_vector<double>(),
              {0.9481539726257324, 0.3132617473602295, 0.06346400827169418});
  EXPECT_NEAR(lazy::binary_cross_entropy_with_logits(logits, labels, f32_values({2, 3, 0.5}),
                                                     Reduction::sum)
                  .item<double>(),
              1.951403260231018, 1e-6);
  const ValuesAndGradients inf = evaluate(
      [](const Tensor& a, const Tensor& b) {
        return lazy::binary_cross_entropy_with_logits(a, b, Tensor(), Reduction::none);
      },
      {kInf, -kInf, kNaN, kInf}, {1, 1, 1, 0});
  expect_near(inf.values, {kNaN, kNaN, kNaN, kInf});
  expect_near(inf.input_gradient, {0, -1, kNaN, 1});
  // With pos_weight below 1 the target's gradient at a logit of -inf was the forward's terms'
  // inf - inf; PyTorch's rule, log_sigmoid(-x) - pos_weight log_sigmoid(x), gives inf.
  const ValuesAndGradients weighted_inf = evaluate(
      [](const Tensor& a, const Tensor& b) {
        return lazy::binary_cross_entropy_with_logits(a, b, Tensor(), Reduction::none,
                                                      f32_values({0.5}));
      },
      {-kInf, kInf, 0, 2}, {0.5, 0.5, 0.5, 0.25});
  expect_near(weighted_inf.target_gradient,
              {kInf, -kInf, 0.5 * std::log(0.5), -std::log1p(std::exp(-2.0)) * 0.5 - 2});
  expect_near(weighted_inf.input_gradient,
              {-0.25, 0.5, 0.75 * 0.5 - 0.25, 0.875 / (1 + std::exp(-2.0)) - 0.125});
  // pos_weight's own gradient, -t log_sigmoid(x) summed over where it broadcast (PyTorch has
  // none).
  const std::vector<double> z2 = {0.5, -1}, t2 = {1, 0.25};
  const Tensor pos_weight_gradient = lazy::grad([&](std::span<const Tensor> v) {
    return lazy::sum(lazy::binary_cross_entropy_with_logits(f32_values(z2), f32_values(t2),
                                                            Tensor(), Reduction::none, v[0]));
  })({f32_values({2})})[0];
  const auto log_sigmoid = [](double v) { return -std::log1p(std::exp(-v)); };
  expect_near(pos_weight_gradient.to_vector<double>(),
              {-log_sigmoid(0.5) - 0.25 * log_sigmoid(-1)});
  EXPECT_ERROR_AT_THIS_LINE(lazy::ShapeError, lazy::binary_cross_entropy_with_logits(
                                                  f32_values({0.5, 0.2}), lazy::ones({1, 2})));
  // The target's dtype, as PyTorch's (1 - target).mul_(input) keeps it.
  EXPECT_EQ(lazy::binary_cross_entropy_with_logits(f32_values({0.5, 0.2}),
                                                   f32_values({1, 0}).to(DType::f16))
                .dtype(),
            DType::f16);
  EXPECT_ERROR_AT_THIS_LINE(lazy::ShapeError,
                            lazy::binary_cross_entropy_with_logits(
                                logits, labels, Tensor(), Reduction::none, lazy::ones({2, 3})));
}

TEST(KlDiv, IsTargetTimesTheLogRatioWithZeroTargetsAddingNothing) {
  const std::vector<double> input = {-2, -1, -0.5, 0, -3, -kInf, 0.5, -1};
  const std::vector<double> target = {0.1, 0, 0.5, 0.2, 1e-30, 0.2, 0, 2};
  const ValuesAndGradients kl =
      evaluate([](const Tensor& a, const Tensor& b) { return lazy::kl_div(a, b, Reduction::none); },
               input, target);
  expect_near(kl.values, {-0.030258506536483765, 0, -0.0965735912322998, -0.3218875825405121,
                          -6.607754898220804e-29, kInf, 0, 3.386294364929199});
  expect_near(kl.input_gradient, {-0.1, 0, -0.5, -0.2, -1e-30, -0.2, 0, -2});
  // d/dt: log t + 1 - input, NaN at t = 0 as PyTorch's (xlogy's y-gradient there is 0 / 0).
  for (std::size_t i : {0, 2, 3, 7})
    EXPECT_NEAR(kl.target_gradient[i], std::log(target[i]) + 1 - input[i], 1e-6) << i;
  EXPECT_TRUE(std::isnan(kl.target_gradient[1]));
  EXPECT_TRUE(std::isnan(kl.target_gradient[6]));
  const Tensor x = f32_values(input), t = f32_values(target);
  EXPECT_EQ(lazy::kl_div(x, t, Reduction::sum).item<double>(), kInf);
  const Tensor rows = lazy::from_data(std::vector<double>{-1, -2, -0.5, -1}, {2, 2});
  const Tensor probabilities = lazy::from_data(std::vector<double>{0.3, 0.7, 0.6, 0.4}, {2, 2});
  EXPECT_NEAR(lazy::kl_div(rows, probabilities, Reduction::batchmean).item<double>(),
              0.5580620169639587, 1e-6);
  EXPECT_NEAR(
      lazy::kl_div(lazy::full({}, -1.0), lazy::full({}, 0.3), Reduction::batchmean).item<double>(),
      -0.0611918568611145, 1e-7);
  expect_near(lazy::kl_div(f32_values({-2, -1, -0.5, 0}), f32_values({-2.3, -kInf, -0.7, 0}),
                           Reduction::none, true)
                  .to_vector<double>(),
              {-0.030077649280428886, kNaN, -0.09931705892086029, 0});
  expect_near(
      lazy::kl_div(f32_values({-1}), f32_values({-0.5}), Reduction::none).to_vector<double>(),
      {kNaN});
  EXPECT_ERROR_AT_THIS_LINE(lazy::DTypeError,
                            lazy::kl_div(x, lazy::ones({8}, DType::i64), Reduction::none));
  // batchmean divides by the input's first axis, not the broadcast result's; a 0-d input's sum
  // is not divided (PyTorch's F.kl_div).
  const Tensor wide = lazy::from_data(std::vector<double>{-1, -2}, {1, 2});
  const Tensor tall = lazy::from_data(std::vector<double>{0.3, 0.6, 0.1}, {3, 1});
  const double summed = lazy::kl_div(wide, tall, Reduction::sum).item<double>();
  EXPECT_NEAR(lazy::kl_div(wide, tall, Reduction::batchmean).item<double>(), summed, 1e-6);
  const Tensor four = f32_values({0.3, 0.3, 0.3, 0.3});
  EXPECT_NEAR(lazy::kl_div(lazy::full({}, -1.0), four, Reduction::batchmean).item<double>(),
              lazy::kl_div(lazy::full({}, -1.0), four, Reduction::sum).item<double>(), 1e-7);
  // The f16 sum is rounded before the division, as PyTorch's F.kl_div: past 65504 it is inf.
  EXPECT_EQ(lazy::kl_div(f32_values({-40000, -40000}).to(DType::f16),
                         f32_values({1, 1}).to(DType::f16), Reduction::batchmean)
                .item<double>(),
            kInf);
  // batchmean is kl_div's alone.
  EXPECT_ERROR_AT_THIS_LINE(lazy::ValueError, lazy::mse_loss(x, t, Reduction::batchmean));
}

}  // namespace

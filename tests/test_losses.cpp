// cross_entropy, nll_loss and mse_loss: PyTorch's formulas (weights, ignore_index, label
// smoothing, the reductions, class probabilities) against sums written out in double, their
// gradients against central differences, and their errors. Computed by whatever backend runs.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "error_test_support.h"
#include "gradient_test_support.h"
#include "host_test_support.h"
#include "lazy/lazy.h"

namespace {

using lazy::CrossEntropyOptions;
using lazy::DType;
using lazy::Reduction;
using lazy::Tensor;

// Logits of 3 rows of 4 classes, and their targets.
const std::vector<double> kLogits = {0.5, -1, 2, 0.25, 3, 0, -2, 1, -0.5, 0.75, 1.5, -1.25};
const std::vector<std::int64_t> kTargets = {2, 0, 3};
const std::vector<double> kWeights = {0.5, 2, 1, 3};

Tensor logits() {
  return lazy::from_data(kLogits, {3, 4}, DType::f32);
}
Tensor targets(const std::vector<std::int64_t>& t = kTargets) {
  return lazy::from_data(t, {std::int64_t(t.size())});
}

// log_softmax of row r at class c, in double.
double log_prob(int r, int c) {
  double m = 0;
  for (int k = 0; k < 4; ++k) m += std::exp(kLogits[std::size_t(4 * r + k)]);
  return kLogits[std::size_t(4 * r + c)] - std::log(m);
}

double value(const Tensor& t) {
  return t.item<double>();
}

TEST(CrossEntropy, IsTheMeanNegativeLogProbabilityOfTheTargets) {
  double sum = 0;
  std::vector<double> each;
  for (int r = 0; r < 3; ++r) each.push_back(-log_prob(r, int(kTargets[std::size_t(r)])));
  for (double v : each) sum += v;
  EXPECT_NEAR(value(lazy::cross_entropy(logits(), targets())), sum / 3, 1e-6);
  CrossEntropyOptions none;
  none.reduction = Reduction::none;
  const std::vector<double> got =
      lazy::cross_entropy(logits(), targets(), none).to_vector<double>();
  for (int r = 0; r < 3; ++r) EXPECT_NEAR(got[std::size_t(r)], each[std::size_t(r)], 1e-6) << r;
  CrossEntropyOptions summed;
  summed.reduction = Reduction::sum;
  EXPECT_NEAR(value(lazy::cross_entropy(logits(), targets(), summed)), sum, 1e-5);
  EXPECT_NEAR(value(lazy::nll_loss(lazy::log_softmax(logits(), 1), targets())), sum / 3, 1e-6);
}

TEST(CrossEntropy, WeightsScaleEachTermAndTheMeansDivisor) {
  CrossEntropyOptions options;
  options.weight = lazy::from_data(kWeights, {4}, DType::f32);
  double total = 0, taken = 0;
  for (int r = 0; r < 3; ++r) {
    const int t = int(kTargets[std::size_t(r)]);
    total += -kWeights[std::size_t(t)] * log_prob(r, t);
    taken += kWeights[std::size_t(t)];
  }
  EXPECT_NEAR(value(lazy::cross_entropy(logits(), targets(), options)), total / taken, 1e-6);
}

TEST(CrossEntropy, IgnoredTargetsCountNowhereAndAllIgnoredIsNaN) {
  CrossEntropyOptions options;
  options.ignore_index = 3;
  const double want = (-log_prob(0, 2) - log_prob(1, 0)) / 2;
  EXPECT_NEAR(value(lazy::cross_entropy(logits(), targets(), options)), want, 1e-6);
  options.reduction = Reduction::none;
  EXPECT_EQ(lazy::cross_entropy(logits(), targets(), options).to_vector<double>()[2], 0);
  // -100 by default: never an index, never gathered.
  options = {};
  EXPECT_TRUE(
      std::isnan(value(lazy::cross_entropy(logits(), targets({-100, -100, -100}), options))));
}

TEST(CrossEntropy, LabelSmoothingMixesInTheMeanOverClasses) {
  for (bool weighted : {false, true}) {
    SCOPED_TRACE(weighted ? "weighted" : "unweighted");
    CrossEntropyOptions options;
    options.label_smoothing = 0.2;
    options.ignore_index = 0;  // row 1's target
    if (weighted) options.weight = lazy::from_data(kWeights, {4}, DType::f32);
    double nll = 0, smooth = 0, taken = 0;
    for (int r : {0, 2}) {
      const int t = int(kTargets[std::size_t(r)]);
      const double w = weighted ? kWeights[std::size_t(t)] : 1;
      nll += -w * log_prob(r, t);
      taken += w;
      for (int c = 0; c < 4; ++c)
        smooth += -(weighted ? kWeights[std::size_t(c)] : 1) * log_prob(r, c);
    }
    const double want = 0.8 * nll / taken + 0.2 / 4 * smooth / taken;
    EXPECT_NEAR(value(lazy::cross_entropy(logits(), targets(), options)), want, 1e-6);
  }
}

TEST(CrossEntropy, TakesClassProbabilities) {
  const std::vector<double> p = {0.1, 0.2, 0.3, 0.4, 1, 0, 0, 0, 0.25, 0.25, 0.25, 0.25};
  CrossEntropyOptions options;
  options.label_smoothing = 0.1;
  double total = 0;
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 4; ++c)
      total += -(p[std::size_t(4 * r + c)] * 0.9 + 0.1 / 4) * log_prob(r, c);
  const Tensor probabilities = lazy::from_data(p, {3, 4}, DType::f32);
  EXPECT_NEAR(value(lazy::cross_entropy(logits(), probabilities, options)), total / 3, 1e-6);
  options.ignore_index = 1;
  EXPECT_THROW((void)lazy::cross_entropy(logits(), probabilities, options), lazy::ValueError);
}

TEST(CrossEntropy, TakesTheClassAxisAsPyTorchDoes) {
  // [C] against a 0-d target; [N, C, d] against [N, d] (classes along axis 1).
  const Tensor row = lazy::from_data(std::vector<double>{0.5, -1, 2, 0.25}, {4}, DType::f32);
  EXPECT_NEAR(value(lazy::cross_entropy(row, lazy::full({}, 2, DType::i64))), -log_prob(0, 2),
              1e-6);
  const Tensor spatial = logits().reshape({1, 3, 4}).transpose(1, 2);  // [1, 4, 3]
  CrossEntropyOptions none;
  none.reduction = Reduction::none;
  const Tensor t = lazy::from_data(std::vector<std::int32_t>{2, 0, 3}, {1, 3});
  const std::vector<double> got = lazy::cross_entropy(spatial, t, none).to_vector<double>();
  for (int r = 0; r < 3; ++r)
    EXPECT_NEAR(got[std::size_t(r)], -log_prob(r, int(kTargets[std::size_t(r)])), 1e-6);
}

TEST(CrossEntropy, RefusesBadInputAtTheCall) {
  EXPECT_THROW((void)lazy::cross_entropy(logits().to(DType::i32), targets()), lazy::DTypeError);
  EXPECT_THROW((void)lazy::cross_entropy(logits(), targets() > 0), lazy::DTypeError);
  EXPECT_THROW((void)lazy::cross_entropy(logits(), targets({1, 2})), lazy::ShapeError);
  EXPECT_THROW((void)lazy::cross_entropy(lazy::full({}, 1.0), targets()), lazy::ShapeError);
  CrossEntropyOptions options;
  options.weight = lazy::ones({3});
  EXPECT_THROW((void)lazy::cross_entropy(logits(), targets(), options), lazy::ShapeError);
  options = {};
  options.label_smoothing = 1.5;
  EXPECT_THROW((void)lazy::cross_entropy(logits(), targets(), options), lazy::ValueError);
  options.label_smoothing = 0.1;
  EXPECT_THROW((void)lazy::nll_loss(logits(), targets(), options), lazy::ValueError);
}

TEST(CrossEntropy, ATargetOutsideTheClassesIsAnIndexErrorNamingTheLoss) {
  EXPECT_THROW((void)value(lazy::cross_entropy(logits(), targets({0, 4, 1}))), lazy::IndexError);
  EXPECT_THROW((void)value(lazy::cross_entropy(logits(), targets({0, -1, 1}))), lazy::IndexError);
  // Named as the loss the user called, not the gather it records; weighted too.
  CrossEntropyOptions weighted;
  weighted.weight = lazy::from_data(kWeights, {4}, DType::f32);
  const std::string unweighted = lazy_test::message_of<lazy::IndexError>([] {
    (void)value(lazy::cross_entropy(logits(), targets({0, 4, 1})));
  });
  EXPECT_THAT(unweighted, testing::HasSubstr("cross_entropy"));
  EXPECT_THAT(unweighted, testing::Not(testing::HasSubstr("take_along_axis")));
  EXPECT_THAT(lazy_test::message_of<lazy::IndexError>([&] {
                (void)value(lazy::nll_loss(logits(), targets({0, 1, 9}), weighted));
              }),
              testing::HasSubstr("nll_loss"));
}

TEST(CrossEntropy, AnIgnoreIndexPastI32sRangeIgnoresNoI32Target) {
  CrossEntropyOptions options;
  options.ignore_index = (std::int64_t(1) << 32) + 2;
  const Tensor t = targets().to(DType::i32);
  EXPECT_EQ(value(lazy::cross_entropy(logits(), t, options)),
            value(lazy::cross_entropy(logits(), t)));
}

// PyTorch multiplies the log probabilities by the target (and the weights) in the promoted dtype.
TEST(CrossEntropy, ProbabilitiesAndWeightsPromoteWithTheInput) {
  const std::vector<double> p = {0.1, 0.2, 0.3, 0.4, 1, 0, 0, 0, 0.25, 0.25, 0.25, 0.25};
  CrossEntropyOptions options;
  options.weight = lazy::from_data(kWeights, {4}, DType::f32);
  const Tensor loss = lazy::cross_entropy(logits().to(DType::bf16),
                                          lazy::from_data(p, {3, 4}, DType::f32), options);
  EXPECT_EQ(loss.dtype(), DType::f32);
  double total = 0;
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 4; ++c)
      total += -kWeights[std::size_t(c)] * p[std::size_t(4 * r + c)] * log_prob(r, c);
  EXPECT_NEAR(value(loss), total / 3, 2e-2 * std::abs(total / 3));  // bf16 log probabilities
  // No class: a mean over nothing, NaN as PyTorch's.
  EXPECT_TRUE(std::isnan(value(lazy::cross_entropy(lazy::zeros({2, 0}), lazy::zeros({2, 0})))));
}

TEST(CrossEntropy, GradientsMatchCentralDifferences) {
  const lazy_test::Input x = lazy_test::input({3, 4}, 21);
  CrossEntropyOptions options;
  options.weight = lazy::from_data(kWeights, {4}, DType::f32);
  options.label_smoothing = 0.1;
  options.ignore_index = 0;
  lazy_test::expect_gradients_match(
      [&](std::span<const Tensor> v) { return lazy::cross_entropy(v[0], targets(), options); }, {x},
      "weighted, smoothed, one target ignored");
  lazy_test::expect_gradients_match(
      [&](std::span<const Tensor> v) { return lazy::cross_entropy(v[0], targets()); }, {x},
      "plain");
}

TEST(MseLoss, IsTheMeanSquaredDifferenceBroadcast) {
  const Tensor a = lazy::from_data(std::vector<double>{1, 2, 3, 4}, {2, 2}, DType::f32);
  const Tensor b = lazy::from_data(std::vector<double>{0.5, 4}, {2}, DType::f32);
  // differences 0.5, -2, 2.5, 0
  EXPECT_NEAR(value(lazy::mse_loss(a, b)), (0.25 + 4 + 6.25 + 0) / 4, 1e-6);
  EXPECT_NEAR(value(lazy::mse_loss(a, b, Reduction::sum)), 10.5, 1e-6);
  EXPECT_EQ(lazy::mse_loss(a, b, Reduction::none).to_vector<double>(),
            (std::vector<double>{0.25, 4, 6.25, 0}));
  EXPECT_EQ(lazy::mse_loss(a.to(DType::bf16), b.to(DType::bf16)).dtype(), DType::bf16);
  // Promoted as PyTorch's: an integer input with a floating target is f32.
  EXPECT_NEAR(value(lazy::mse_loss(a.to(DType::i32), b)), 10.5 / 4, 1e-6);
  EXPECT_THROW((void)lazy::mse_loss(a.to(DType::i32), b.to(DType::i64)), lazy::DTypeError);
}

}  // namespace

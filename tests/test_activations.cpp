// The activations of torch.nn.functional and isclose/allclose: values and gradients at the points
// where formulas part ways (the kinks, +-0, +-inf, NaN), as PyTorch 2.11 gives them on CUDA
// (measured on the GPU machine, .probe/activations), formulas in double elsewhere, central
// differences, and errors. Computed by whatever backend runs.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "gradient_test_support.h"
#include "host_test_support.h"
#include "lazy/lazy.h"

namespace {

using lazy::DType;
using lazy::Tensor;
using lazy_test::kInf;
using lazy_test::kNaN;

// The points PyTorch was probed at: -4, -3, -0, 0, 3, 4, inf, -inf, NaN.
const std::vector<double> kPoints = {-4, -3, -0.0, 0, 3, 4, kInf, -kInf, kNaN};

// Equal as PyTorch prints them: NaN to NaN, the sign of a zero kept, else within f32 rounding.
void expect_values(const Tensor& got, const std::vector<double>& want) {
  const std::vector<double> values = got.to_vector<double>();
  ASSERT_EQ(values.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(values[i])) << i << ": " << values[i];
    } else if (want[i] == 0 || std::isinf(want[i])) {
      EXPECT_EQ(values[i], want[i]) << i;
      EXPECT_EQ(std::signbit(values[i]), std::signbit(want[i])) << i;
    } else {
      EXPECT_NEAR(values[i], want[i], 4e-7 * std::fabs(want[i])) << i;
    }
  }
}

// The gradient of sum(f(x)) at the first six points (the finite ones).
std::vector<double> gradient_at_points(const std::function<Tensor(const Tensor&)>& f) {
  const Tensor x = lazy_test::f32_values({-4, -3, -0.0, 0, 3, 4});
  return lazy::grad([&](std::span<const Tensor> v) { return lazy::sum(f(v[0])); })(
             std::vector<Tensor>{x})[0]
      .to_vector<double>();
}

void expect_gradient(const std::function<Tensor(const Tensor&)>& f,
                     const std::vector<double>& want) {
  const std::vector<double> got = gradient_at_points(f);
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i)
    EXPECT_NEAR(got[i], want[i], 1e-6 * std::max(1.0, std::fabs(want[i]))) << i;
}

TEST(Activations, MatchPyTorchAtTheKinksAndSpecialValues) {
  const Tensor x = lazy_test::f32_values(kPoints);
  expect_values(lazy::relu6(x), {0, 0, 0, 0, 3, 4, 6, 0, kNaN});
  expect_gradient([](const Tensor& v) { return lazy::relu6(v); }, {0, 0, 0, 0, 1, 1});
  expect_values(lazy::hardtanh(x), {-1, -1, -0.0, 0, 1, 1, 1, -1, kNaN});
  expect_gradient([](const Tensor& v) { return lazy::hardtanh(v); }, {0, 0, 1, 1, 0, 0});
  expect_values(lazy::hardsigmoid(x), {0, 0, 0.5, 0.5, 1, 1, 1, 0, kNaN});
  expect_gradient([](const Tensor& v) { return lazy::hardsigmoid(v); },
                  {0, 0, 1.0 / 6, 1.0 / 6, 0, 0});
  expect_values(lazy::hardswish(x), {-0.0, -0.0, -0.0, 0, 3, 4, kInf, kNaN, kNaN});
  expect_gradient([](const Tensor& v) { return lazy::hardswish(v); }, {0, 0, 0.5, 0.5, 1, 1});
  expect_values(lazy::log_sigmoid(x),
                {-4.0181498527526855, -3.0485873222351074, -0.6931471824645996, -0.6931471824645996,
                 -0.04858735203742981, -0.018149929121136665, 0, -kInf, kNaN});
  expect_gradient(
      [](const Tensor& v) { return lazy::log_sigmoid(v); },
      {0.9820137619972229, 0.9525741338729858, 0.5, 0.5, 0.04742587357759476, 0.01798621006309986});
  expect_values(lazy::mish(x), {-0.07259174436330795, -0.14564746618270874, -0.0, 0,
                                2.98653507232666, 3.997412919998169, kInf, kNaN, kNaN});
  expect_gradient([](const Tensor& v) { return lazy::mish(v); },
                  {-0.05377320572733879, -0.09339312463998795, 0.6000000238418579,
                   0.6000000238418579, 1.0211069583892822, 1.0044326782226562});
  expect_values(lazy::elu(x),
                {-0.9816843867301941, -0.9502129554748535, -0.0, 0, 3, 4, kInf, -1, kNaN});
  expect_gradient([](const Tensor& v) { return lazy::elu(v); },
                  {0.018315639346837997, 0.049787066876888275, 1, 1, 1, 1});
  expect_values(lazy::selu(x),
                {-1.7258986234664917, -1.6705687046051025, -0.0, 0, 3.1521029472351074,
                 4.202804088592529, kInf, -1.7580993175506592, kNaN});
  expect_gradient([](const Tensor& v) { return lazy::selu(v); },
                  {0.03220071271061897, 0.08753060549497604, 1.7580993175506592, 1.7580993175506592,
                   1.0507010221481323, 1.0507010221481323});
  expect_values(lazy::leaky_relu(x), {-0.04, -0.03, -0.0, 0, 3, 4, kInf, -kInf, kNaN});
  expect_gradient([](const Tensor& v) { return lazy::leaky_relu(v); },
                  {0.01, 0.01, 0.01, 0.01, 1, 1});
  expect_values(lazy::softshrink(x), {-3.5, -2.5, 0, 0, 2.5, 3.5, kInf, -kInf, kNaN});
  expect_gradient([](const Tensor& v) { return lazy::softshrink(v, 3); }, {1, 0, 0, 0, 0, 1});
  expect_values(lazy::hardshrink(x), {-4, -3, 0, 0, 3, 4, kInf, -kInf, kNaN});
  expect_values(lazy::softsign(x), {-0.8, -0.75, -0.0, 0, 0.75, 0.8, kNaN, kNaN, kNaN});
  expect_values(lazy::tanhshrink(x), {-3.0006706714630127, -2.0049452781677246, 0, 0,
                                      2.0049452781677246, 3.0006706714630127, kInf, -kInf, kNaN});
  expect_values(lazy::threshold(lazy_test::f32_values({0.5, 1, 2, kNaN}), 1, -9),
                {-9, -9, 2, kNaN});
}

TEST(Activations, CeluAndEluTakeTheirAlpha) {
  const Tensor x = lazy_test::f32_values({-2, -0.5, 1});
  for (double alpha : {0.5, 2.0}) {
    const std::vector<double> elu = lazy::elu(x, alpha).to_vector<double>();
    const std::vector<double> celu = lazy::celu(x, alpha).to_vector<double>();
    for (int i = 0; i < 2; ++i) {
      const double v = i == 0 ? -2 : -0.5;
      EXPECT_NEAR(elu[std::size_t(i)], alpha * std::expm1(v), 1e-6);
      EXPECT_NEAR(celu[std::size_t(i)], alpha * std::expm1(v / alpha), 1e-6);
    }
    EXPECT_EQ(elu[2], 1);
    EXPECT_EQ(celu[2], 1);
  }
}

TEST(Activations, KeepHalfPrecisionDTypesAndHardtanhTakesIntegers) {
  for (DType dtype : {DType::f16, DType::bf16}) {
    const Tensor x = lazy_test::f32_values({-1, 0.5, 2}).to(dtype);
    EXPECT_EQ(lazy::mish(x).dtype(), dtype);
    EXPECT_EQ(lazy::hardswish(x).dtype(), dtype);
    EXPECT_NEAR(lazy::elu(x).to_vector<double>()[0], std::expm1(-1.0), 4e-3);
  }
  const Tensor ints = lazy::from_data(std::vector<std::int64_t>{-3, 2, 7}, {3});
  EXPECT_EQ(lazy::relu6(ints).to_vector<std::int64_t>(), (std::vector<std::int64_t>{0, 2, 6}));
  EXPECT_EQ(lazy::hardtanh(ints).dtype(), DType::i64);
  EXPECT_THROW((void)lazy::leaky_relu(ints), lazy::DTypeError);  // as PyTorch's
}

TEST(Activations, NaNTakesTheGradientPyTorchsBackwardGives) {
  // Its comparisons are false at NaN: elu's linear side, hardtanh's inside, hardsigmoid's
  // outside, hardswish's past 3.
  const auto at_nan = [](const std::function<Tensor(const Tensor&)>& f) {
    const Tensor x = lazy_test::f32_values({kNaN});
    return lazy::grad([&](std::span<const Tensor> v) { return lazy::sum(f(v[0])); })(
               std::vector<Tensor>{x})[0]
        .item<double>();
  };
  EXPECT_EQ(at_nan([](const Tensor& v) { return lazy::elu(v); }), 1);
  EXPECT_NEAR(at_nan([](const Tensor& v) { return lazy::selu(v); }), 1.0507009873554805, 1e-6);
  EXPECT_EQ(at_nan([](const Tensor& v) { return lazy::hardtanh(v); }), 1);
  EXPECT_EQ(at_nan([](const Tensor& v) { return lazy::hardsigmoid(v); }), 0);
  EXPECT_EQ(at_nan([](const Tensor& v) { return lazy::hardswish(v); }), 1);
  EXPECT_EQ(at_nan([](const Tensor& v) { return lazy::leaky_relu(v); }), 0.01f);
}

TEST(Activations, ThresholdsAreTakenInTheTensorsDType) {
  // f16's 0.3 is 0.300049: PyTorch converts the threshold to it, so 0.3 is at the threshold.
  const Tensor h = lazy_test::f32_values({0.3}).to(DType::f16);
  EXPECT_EQ(lazy::hardshrink(h, 0.3).item<double>(), 0);
  EXPECT_EQ(lazy::softshrink(h, 0.3).item<double>(), 0);
  EXPECT_EQ(lazy::threshold(h, 0.3, -9).item<double>(), -9);
  // Integers: threshold and hardtanh as PyTorch's, softsign and tanhshrink in f32.
  const Tensor ints = lazy::from_data(std::vector<std::int64_t>{1, 2, 3}, {3});
  EXPECT_EQ(lazy::threshold(ints, 1, 0).to_vector<std::int64_t>(),
            (std::vector<std::int64_t>{0, 2, 3}));
  EXPECT_EQ(lazy::softsign(ints).dtype(), DType::f32);
  EXPECT_NEAR(lazy::softsign(ints).to_vector<double>()[1], 2.0 / 3, 1e-7);
  EXPECT_THROW((void)lazy::hardtanh(ints, -kInf, kInf), lazy::ValueError);
  EXPECT_THROW((void)lazy::hardtanh(ints, -1, 1e30), lazy::ValueError);
  EXPECT_THROW((void)lazy::softsign(lazy::ones({2}, DType::bool_)), lazy::DTypeError);
}

TEST(Activations, GluHalvesTheAxis) {
  const Tensor x = lazy_test::f32_values({1, -2, 0.5, 3}).reshape({1, 4});
  const std::vector<double> got = lazy::glu(x).to_vector<double>();
  EXPECT_NEAR(got[0], 1 / (1 + std::exp(-0.5)), 1e-6);
  EXPECT_NEAR(got[1], -2 / (1 + std::exp(-3.0)), 1e-6);
  EXPECT_THROW((void)lazy::glu(lazy::ones({3})), lazy::ShapeError);
  EXPECT_THROW((void)lazy::glu(x, 2), lazy::AxisError);
}

TEST(Activations, GradientsMatchCentralDifferences) {
  const lazy_test::Input x = lazy_test::input({24}, 7, 3);
  const std::vector<std::pair<std::string, std::function<Tensor(const Tensor&)>>> cases = {
      {"elu", [](const Tensor& v) { return lazy::elu(v, 0.7); }},
      {"celu", [](const Tensor& v) { return lazy::celu(v, 2); }},
      {"mish", [](const Tensor& v) { return lazy::mish(v); }},
      {"log_sigmoid", [](const Tensor& v) { return lazy::log_sigmoid(v); }},
      {"softsign", [](const Tensor& v) { return lazy::softsign(v); }},
      {"tanhshrink", [](const Tensor& v) { return lazy::tanhshrink(v); }},
      {"hardswish", [](const Tensor& v) { return lazy::hardswish(v); }},
      {"glu", [](const Tensor& v) { return lazy::glu(v); }},
  };
  for (const auto& [name, f] : cases)
    lazy_test::expect_gradients_match([&](std::span<const Tensor> v) { return f(v[0]); }, {x},
                                      name);
}

TEST(Activations, ALargeInputFeedsNoInfinityIntoTheGradient) {
  const Tensor big = lazy_test::f32_values({100, -100});
  for (const auto& f : std::vector<std::function<Tensor(const Tensor&)>>{
           [](const Tensor& v) { return lazy::elu(v); },
           [](const Tensor& v) { return lazy::mish(v); },
           [](const Tensor& v) { return lazy::log_sigmoid(v); }}) {
    const std::vector<double> g = lazy::grad([&](std::span<const Tensor> v) {
                                    return lazy::sum(f(v[0]));
                                  })(std::vector<Tensor>{big})[0]
                                      .to_vector<double>();
    for (double v : g) EXPECT_TRUE(std::isfinite(v)) << v;
  }
}

// torch_check seed 17898 program 224: selu's gradient at an input far below 0 was 0, expm1's
// result + 1 having rounded to 0 in f32; PyTorch's elu_backward takes exp(x), 1.3e-36 there.
TEST(Activations, TheEluFamilysGradientFarBelowZeroIsExpOfX) {
  const Tensor x = lazy_test::f32_values({-83, -40, -20});
  const double selu_slope = 1.0507009873554804934193349852946 * 1.6732632423543772848170429916717;
  const std::vector<std::pair<std::function<Tensor(const Tensor&)>, double>> cases = {
      {[](const Tensor& v) { return lazy::selu(v); }, selu_slope},
      {[](const Tensor& v) { return lazy::elu(v); }, 1.0},
      {[](const Tensor& v) { return lazy::celu(v); }, 1.0},
      {[](const Tensor& v) { return lazy::expm1(v); }, 1.0},
  };
  for (const auto& [f, slope] : cases) {
    const std::vector<double> g = lazy::grad([&](std::span<const Tensor> v) {
                                    return lazy::sum(f(v[0]));
                                  })(std::vector<Tensor>{x})[0]
                                      .to_vector<double>();
    const std::vector<double> at = {-83, -40, -20};
    for (std::size_t i = 0; i < at.size(); ++i) {
      const double want = slope * std::exp(at[i]);
      EXPECT_NEAR(g[i], want, 1e-5 * want) << "at " << at[i];
    }
  }
}

TEST(IsClose, IsPyTorchsTestPerElement) {
  const Tensor a = lazy_test::f32_values({1, 1 + 1e-6, 1.1, kInf, kInf, kNaN, 0, 1e-9});
  const Tensor b = lazy_test::f32_values({1, 1, 1, kInf, -kInf, kNaN, 1e-9, 0});
  EXPECT_EQ(lazy::isclose(a, b).to_vector<std::int64_t>(),
            (std::vector<std::int64_t>{1, 1, 0, 1, 0, 0, 1, 1}));
  EXPECT_EQ(lazy::isclose(a, b, 1e-5, 1e-8, true).to_vector<std::int64_t>()[5], 1);
  EXPECT_EQ(lazy::isclose(a, b, 0.2).to_vector<std::int64_t>()[2], 1);
  const Tensor ints = lazy::from_data(std::vector<std::int64_t>{1, 2}, {2});
  EXPECT_EQ(lazy::isclose(ints, lazy::from_data(std::vector<std::int64_t>{1, 3}, {2}))
                .to_vector<std::int64_t>(),
            (std::vector<std::int64_t>{1, 0}));
  EXPECT_TRUE(lazy::allclose(a.slice(0, 0, 2), b.slice(0, 0, 2)));
  EXPECT_FALSE(lazy::allclose(a, b));
  EXPECT_THROW((void)lazy::isclose(a, b.to(DType::f16)), lazy::DTypeError);
  EXPECT_THROW((void)lazy::isclose(a, b, -1), lazy::ValueError);
}

}  // namespace

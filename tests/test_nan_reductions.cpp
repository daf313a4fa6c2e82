// nansum, nanmean and count_nonzero against sums written out here, and xlogy at its special
// points (PyTorch's kernel: NaN y first, then x == 0), with gradients. Computed by whatever backend
// runs.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

#include "error_test_support.h"
#include "gradient_test_support.h"
#include "host_test_support.h"
#include "lazy/lazy.h"

namespace {

using lazy::DType;
using lazy::Tensor;
using lazy_test::kInf;
using lazy_test::kNaN;

TEST(NanReductions, SkipNaNInTheSumAndTheCount) {
  const Tensor x = lazy::from_data(std::vector<double>{1, kNaN, 2.5, kNaN, kNaN, kNaN}, {2, 3});
  EXPECT_EQ(lazy::nansum(x).item<double>(), 3.5);
  EXPECT_EQ(lazy::nansum(x, 1).to_vector<double>(), (std::vector<double>{3.5, 0}));
  const std::vector<double> rows = lazy::nanmean(x, 1).to_vector<double>();
  EXPECT_EQ(rows[0], 1.75);
  EXPECT_TRUE(std::isnan(rows[1]));  // only NaN: 0 / 0
  EXPECT_EQ(lazy::nanmean(x, 0, true).shape(), (lazy::Shape{1, 3}));
  EXPECT_EQ(lazy::nanmean(x.to(DType::bf16), 1).dtype(), DType::bf16);
  // Integers: nansum is sum (i64); nanmean refuses them, as PyTorch's.
  const Tensor ints = lazy::from_data(std::vector<std::int64_t>{1, 0, -3, 0}, {4}, DType::i32);
  EXPECT_EQ(lazy::nansum(ints).dtype(), DType::i64);
  EXPECT_EQ(lazy::nansum(ints).item<std::int64_t>(), -2);
  EXPECT_THROW((void)lazy::nanmean(ints), lazy::DTypeError);
  EXPECT_THAT(lazy_test::message_of<lazy::AxisError>([&] { (void)lazy::nansum(x, 2); }),
              testing::HasSubstr("lazy::nansum"));
}

TEST(NanReductions, CountNonzeroCountsNaNAndGivesI64) {
  const Tensor x = lazy::from_data(std::vector<double>{0, -0.0, kNaN, 2, 0, kInf}, {2, 3});
  EXPECT_EQ(lazy::count_nonzero(x).dtype(), DType::i64);
  EXPECT_EQ(lazy::count_nonzero(x).item<std::int64_t>(), 3);
  EXPECT_EQ(lazy::count_nonzero(x, 0).to_vector<std::int64_t>(),
            (std::vector<std::int64_t>{1, 0, 2}));
  EXPECT_EQ(lazy::count_nonzero(lazy::ones({2, 2}, DType::bool_)).item<std::int64_t>(), 4);
}

TEST(NanReductions, NansumGradientIsZeroAtNaN) {
  const std::vector<double> g = lazy::grad([](std::span<const Tensor> v) {
                                  return lazy::nansum(v[0] * 2.0f);
                                })(std::vector<Tensor>{lazy_test::f32_values({1, kNaN, 3})})[0]
                                    .to_vector<double>();
  EXPECT_EQ(g, (std::vector<double>{2, 0, 2}));
}

TEST(Xlogy, IsZeroWhereXIsZeroUnlessYIsNaN) {
  const Tensor x = lazy_test::f32_values({0, 0, 0, 2, 1, -1});
  const Tensor y = lazy_test::f32_values({0, kInf, kNaN, 3, 0, 2});
  const std::vector<double> got = lazy::xlogy(x, y).to_vector<double>();
  EXPECT_EQ(got[0], 0);
  EXPECT_EQ(got[1], 0);
  EXPECT_TRUE(std::isnan(got[2]));
  EXPECT_NEAR(got[3], 2 * std::log(3.0), 1e-6);
  EXPECT_EQ(got[4], -kInf);
  EXPECT_NEAR(got[5], -std::log(2.0), 1e-6);
  // Numbers on either side, and integers, which give f32.
  EXPECT_NEAR(lazy::xlogy(2, y).to_vector<double>()[3], 2 * std::log(3.0), 1e-6);
  EXPECT_EQ(lazy::xlogy(x.to(DType::i32), 2).dtype(), DType::f32);
  EXPECT_EQ(lazy::xlogy(x.to(DType::f16), y.to(DType::f16)).dtype(), DType::f16);
  // A number or a 0-d y weighs less in promotion, as in PyTorch's binary float ops.
  EXPECT_EQ(lazy::xlogy(x.to(DType::f16), 2.5).dtype(), DType::f16);
  EXPECT_EQ(lazy::xlogy(x.to(DType::bf16), lazy::full({}, 2.5)).dtype(), DType::bf16);
  EXPECT_EQ(lazy::xlogy(x.to(DType::bf16), y.to(DType::i64)).dtype(), DType::bf16);
}

TEST(Xlogy, GradientsAreLogYAndXOverYAwayFromXZero) {
  const lazy_test::Input x = lazy_test::input({6}, 3);
  const lazy_test::Input y = lazy_test::positive({6}, 4);
  lazy_test::expect_gradients_match(
      [](std::span<const Tensor> v) { return lazy::xlogy(v[0], v[1]); }, {x, y}, "xlogy");
  // At x = 0, PyTorch's rules: log(y) for x (0 where y <= 0), x / y for y (NaN at y = 0); at an
  // infinite y, inf for x.
  const std::vector<Tensor> g = lazy::grad([](std::span<const Tensor> v) {
    return lazy::sum(lazy::xlogy(v[0], v[1]));
  })(std::vector<Tensor>{lazy_test::f32_values({0, 0, 0, 1, 0}),
                         lazy_test::f32_values({0, 2, -1, kInf, kInf})});
  const std::vector<double> gx = g[0].to_vector<double>(), gy = g[1].to_vector<double>();
  EXPECT_EQ(gx[0], 0);
  EXPECT_NEAR(gx[1], std::log(2.0), 1e-6);
  EXPECT_EQ(gx[2], 0);
  EXPECT_EQ(gx[3], kInf);
  EXPECT_EQ(gx[4], kInf);
  EXPECT_TRUE(std::isnan(gy[0]));
  EXPECT_EQ(gy[1], 0);
  EXPECT_EQ(gy[2], 0);
  EXPECT_EQ(gy[3], 0);
  // Broadcast operands take their cotangents summed back to their shapes.
  const std::vector<Tensor> b = lazy::grad([](std::span<const Tensor> v) {
    return lazy::sum(lazy::xlogy(v[0], v[1]));
  })(std::vector<Tensor>{lazy_test::f32_values({2}), lazy::full({2, 3}, 4.0)});
  EXPECT_NEAR(b[0].item<double>(), 6 * std::log(4.0), 1e-5);
  EXPECT_EQ(b[1].shape(), (lazy::Shape{2, 3}));
  EXPECT_EQ(b[1].to_vector<double>(), std::vector<double>(6, 0.5));
  // A -0 x gives +0, as PyTorch's.
  EXPECT_FALSE(std::signbit(lazy::xlogy(lazy_test::f32_values({-0.0}), 2).item<double>()));
}

}  // namespace

// linspace against PyTorch's formula written out in double, the *_like factories against the
// factories they stand for, and dropout's mask, scale and gradient. Computed by whatever backend
// runs (the GPU when there is one).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "error_test_support.h"
#include "gradient_test_support.h"
#include "host_test_support.h"
#include "lazy/lazy.h"

namespace {

using lazy::DType;
using lazy::Shape;
using lazy::Tensor;

// PyTorch's linspace in exact arithmetic: up from start in the first half, down from end after.
double linspace_at(double start, double end, std::int64_t steps, std::int64_t i) {
  const double step = (end - start) / double(steps - 1);
  return i < steps / 2 ? start + step * double(i) : end - step * double(steps - 1 - i);
}

TEST(Linspace, SpacesEvenlyWithBothEndsExact) {
  const double ends[][2] = {{0, 1}, {-3, 7}, {2.5, -1.25}, {1e3, 1e3 + 1}};
  for (DType dtype : {DType::f32, DType::f16, DType::bf16}) {
    for (const auto& end : ends) {
      for (std::int64_t steps : {2, 5, 6, 101}) {
        SCOPED_TRACE(testing::Message()
                     << int(dtype) << " " << end[0] << " " << end[1] << " " << steps);
        const Tensor t = lazy::linspace(end[0], end[1], steps, dtype);
        ASSERT_EQ(t.dtype(), dtype);
        const std::vector<double> got = t.to_vector<double>();
        ASSERT_EQ(got.size(), std::size_t(steps));
        const double from = lazy_test::round_to(dtype, end[0]),
                     to = lazy_test::round_to(dtype, end[1]);
        EXPECT_EQ(got.front(), from);
        EXPECT_EQ(got.back(), to);
        const double ulp = dtype == DType::f32 ? 0x1p-23 : dtype == DType::f16 ? 0x1p-10 : 0x1p-7;
        for (std::int64_t i = 0; i < steps; ++i) {
          const double want = linspace_at(from, to, steps, i);
          EXPECT_NEAR(got[std::size_t(i)], want,
                      2 * ulp * std::max({1.0, std::fabs(from), std::fabs(to)}))
              << "element " << i;
        }
      }
    }
  }
}

TEST(Linspace, IntegersTruncateTheExactQuotientTowardZero) {
  // PyTorch: 0 1 3 5 6 8 10, and 0 -3 -6 -10.
  EXPECT_EQ(lazy::linspace(0, 10, 7, DType::i32).to_vector<std::int64_t>(),
            (std::vector<std::int64_t>{0, 1, 3, 5, 6, 8, 10}));
  EXPECT_EQ(lazy::linspace(0, -10, 4, DType::i64).to_vector<std::int64_t>(),
            (std::vector<std::int64_t>{0, -3, -6, -10}));
  EXPECT_EQ(lazy::linspace(-5, 5, 3, DType::i64).to_vector<std::int64_t>(),
            (std::vector<std::int64_t>{-5, 0, 5}));
  // Floating ends truncate first, as PyTorch converts them to the dtype.
  EXPECT_EQ(lazy::linspace(0.9, 4.9, 5, DType::i64).to_vector<std::int64_t>(),
            (std::vector<std::int64_t>{0, 1, 2, 3, 4}));
  const std::int64_t big = std::int64_t(1) << 40;
  EXPECT_EQ(lazy::linspace(-big, big, 3, DType::i64).to_vector<std::int64_t>(),
            (std::vector<std::int64_t>{-big, 0, big}));
  // The whole i64 range: the sums wrap on the way and land on the exact quotients.
  constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  EXPECT_EQ(lazy::linspace(kMin, kMax, 3, DType::i64).to_vector<std::int64_t>(),
            (std::vector<std::int64_t>{kMin, 0, kMax}));
  EXPECT_EQ(lazy::linspace(kMax, kMin, 4, DType::i64).to_vector<std::int64_t>(),
            (std::vector<std::int64_t>{kMax, 3074457345618258602, -3074457345618258603, kMin}));
  EXPECT_EQ(lazy::linspace(kMin, kMax, 2, DType::i64).to_vector<std::int64_t>(),
            (std::vector<std::int64_t>{kMin, kMax}));
  // 1e12 in 10 steps: PyTorch's CUDA kernel (a float step) gives 99999997952 for the second.
  const std::vector<std::int64_t> grid =
      lazy::linspace(0, std::int64_t(1'000'000'000'000), 11, DType::i64).to_vector<std::int64_t>();
  for (std::size_t i = 0; i < grid.size(); ++i)
    EXPECT_EQ(grid[i], std::int64_t(i) * 100'000'000'000) << i;
}

TEST(Linspace, OneStepIsTheStartAndNoneIsEmpty) {
  EXPECT_EQ(lazy::linspace(3, 9, 1).to_vector<double>(), (std::vector<double>{3}));
  EXPECT_EQ(lazy::linspace(3, 9, 1, DType::i32).to_vector<std::int64_t>(),
            (std::vector<std::int64_t>{3}));
  EXPECT_EQ(lazy::linspace(3, 9, 0).shape(), (Shape{0}));
  EXPECT_EQ(lazy::linspace(0, 1, 3).dtype(), DType::f32);  // integers too give the default f32
}

TEST(Linspace, RefusesBadArgumentsAtTheCall) {
  EXPECT_THROW((void)lazy::linspace(0, 1, -1), lazy::ValueError);
  EXPECT_THROW((void)lazy::linspace(0, 1, 3, DType::bool_), lazy::DTypeError);
  EXPECT_THROW((void)lazy::linspace(0, 1e10, 3, DType::i32), lazy::ValueError);
  EXPECT_THROW((void)lazy::linspace(0, 1e6, 3, DType::f16), lazy::ValueError);
  // An uneven step over more than 3037000499 intervals would overflow the exact computation.
  EXPECT_THROW((void)lazy::linspace(0, 7, std::int64_t(1) << 33, DType::i64), lazy::ValueError);
}

TEST(LikeFactories, TakeXsShapeAndDTypeUnlessGivenOne) {
  const Tensor x = lazy::ones({2, 3}, DType::bf16).transpose(0, 1);
  EXPECT_EQ(lazy::zeros_like(x).shape(), (Shape{3, 2}));
  EXPECT_EQ(lazy::zeros_like(x).dtype(), DType::bf16);
  EXPECT_EQ(lazy::ones_like(x, DType::i32).to_vector<std::int64_t>(),
            std::vector<std::int64_t>(6, 1));
  EXPECT_EQ(lazy::full_like(x, 2.5).to_vector<double>(), std::vector<double>(6, 2.5));
  EXPECT_EQ(lazy::zeros_like(x).to_vector<double>(), std::vector<double>(6, 0));
  EXPECT_EQ(lazy::rand_like(x, 7).to_vector<double>(),
            lazy::rand({3, 2}, 7, DType::bf16).to_vector<double>());
  EXPECT_EQ(lazy::randn_like(x, 7, DType::f32).to_vector<double>(),
            lazy::randn({3, 2}, 7).to_vector<double>());
  EXPECT_THAT(lazy_test::message_of<lazy::DTypeError>(
                  [] { (void)lazy::rand_like(lazy::ones({2}, DType::i64), 1); }),
              testing::HasSubstr("rand_like"));
  EXPECT_THROW((void)lazy::full_like(lazy::ones({2}, DType::i32), 1e10), lazy::ValueError);
}

TEST(Dropout, ZeroesAboutPAndScalesTheRest) {
  const std::int64_t n = 1 << 16;
  const std::vector<float> values = lazy_test::random_floats(n, 3);
  for (DType dtype : {DType::f32, DType::bf16}) {
    const Tensor x = lazy::from_data(values, {n}).to(dtype);
    const std::vector<double> in = x.to_vector<double>();
    const std::vector<double> out = lazy::dropout(x, 0.3, 11).to_vector<double>();
    const std::vector<double> mask = (lazy::rand({n}, 11) < 0.7f).to_vector<double>();
    std::int64_t dropped = 0;
    for (std::size_t i = 0; i < out.size(); ++i) {
      if (mask[i] == 0) {
        ++dropped;
        EXPECT_EQ(out[i], 0) << i;
      } else {
        EXPECT_EQ(out[i], lazy_test::round_to(dtype, double(float(in[i] * float(1 / 0.7))))) << i;
      }
    }
    EXPECT_NEAR(double(dropped) / double(n), 0.3, 0.01);
  }
  // The seed decides the mask.
  const Tensor ones = lazy::ones({64});
  EXPECT_EQ(lazy::dropout(ones, 0.5, 1).to_vector<double>(),
            lazy::dropout(ones, 0.5, 1).to_vector<double>());
  EXPECT_NE(lazy::dropout(ones, 0.5, 1).to_vector<double>(),
            lazy::dropout(ones, 0.5, 2).to_vector<double>());
}

TEST(Dropout, EvaluationAndTheEndsOfPAsPyTorchs) {
  const Tensor x = lazy_test::f32_values({1, -2, lazy_test::kNaN});
  EXPECT_EQ(lazy::dropout(x, 0.5, 1, false).to_vector<double>()[1], -2);
  EXPECT_EQ(lazy::dropout(x, 0, 1).to_vector<double>()[0], 1);
  const std::vector<double> all = lazy::dropout(x, 1, 1).to_vector<double>();
  EXPECT_EQ(all[0], 0);
  EXPECT_EQ(all[1], 0);
  EXPECT_TRUE(std::isnan(all[2]));  // x * 0, as PyTorch's
  EXPECT_THROW((void)lazy::dropout(x, 1.5, 1), lazy::ValueError);
  EXPECT_THROW((void)lazy::dropout(x, -0.1, 1), lazy::ValueError);
  EXPECT_THROW((void)lazy::dropout(lazy::ones({2}, DType::i32), 0.5, 1), lazy::DTypeError);
  // Nothing dropped: x itself whatever its dtype, as PyTorch's (the probability still checked).
  const Tensor ints = lazy::ones({2}, DType::i32);
  EXPECT_EQ(lazy::dropout(ints, 0.5, 1, false).dtype(), DType::i32);
  EXPECT_EQ(lazy::dropout(ints, 0, 1).to_vector<std::int64_t>(), (std::vector<std::int64_t>{1, 1}));
  EXPECT_THROW((void)lazy::dropout(ints, 1.5, 1, false), lazy::ValueError);
  EXPECT_EQ(lazy::dropout(ints, 1, 1).to_vector<std::int64_t>(),  // x * 0, as PyTorch's
            (std::vector<std::int64_t>{0, 0}));
}

TEST(Dropout, GradientIsTheMaskScaled) {
  const lazy_test::Input x = lazy_test::input({4, 8}, 17);
  lazy_test::expect_gradients_match(
      [](std::span<const Tensor> v) { return lazy::dropout(v[0], 0.25, 5); }, {x}, "dropout");
}

}  // namespace

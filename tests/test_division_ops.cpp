// floor_divide, remainder (and `%`), fmod and trunc: the values PyTorch gives, the signs of the
// results and of zeros, integer division (by 0 and of the least integer by -1), infinities, and
// the dtype rules. Computed by whatever backend runs (the GPU when there is one).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "host_test_support.h"
#include "lazy/lazy.h"

namespace {

using lazy::DType;
using lazy::Tensor;
using lazy_test::kInf;
using lazy_test::kNaN;

// f32({...}): a 1-d f32 tensor of the values.
constexpr auto& f32 = lazy_test::f32_values;
Tensor i64(const std::vector<std::int64_t>& values) {
  return lazy::from_data(values, {std::int64_t(values.size())});
}

// Equal values, NaN where NaN is wanted, and the sign of every zero.
void expect_same(const std::vector<double>& got, const std::vector<double>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << i << ": " << got[i];
      continue;
    }
    EXPECT_EQ(got[i], want[i]) << i;
    EXPECT_EQ(std::signbit(got[i]), std::signbit(want[i])) << i << ": the sign of " << got[i];
  }
}

TEST(Remainder, TakesTheDivisorsSignAsPythonsPercent) {
  // A zero remainder keeps fmod's sign: -2 % 2 is -0 (Python's 0).
  expect_same(lazy::remainder(f32({-3, -2, -1, 1, 2, 3}), 2).to_vector<double>(),
              {1, -0.0, 1, 1, 0, 1});
  expect_same((f32({1, 2, 3, 4, 5}) % -1.5).to_vector<double>(), {-0.5, -1, 0, -0.5, -1});
  expect_same((7.5 % f32({2, -2})).to_vector<double>(), {1.5, -0.5});
}

TEST(Fmod, TakesTheDividendsSignAsCsPercent) {
  expect_same(lazy::fmod(f32({-3, -2, -1, 1, 2, 3}), 2).to_vector<double>(),
              {-1, -0.0, -1, 1, 0, 1});
  expect_same(lazy::fmod(f32({1, 2, 3, 4, 5}), -1.5).to_vector<double>(), {1, 0.5, 0, 1, 0.5});
}

TEST(FloorDivide, RoundsTheQuotientDown) {
  expect_same(lazy::floor_divide(f32({4, 3, -3, 3, -0.5, 0.5}), f32({2, 2, 2, -2, 2, -2}))
                  .to_vector<double>(),
              {2, 1, -2, -2, -1, -1});
  expect_same(lazy::floor_divide(f32({4, 3}), 1.4).to_vector<double>(), {2, 2});
  // The quotient of the f32 values: 1 / 0.1f is just under 10, 0.3f / 0.1f just over 3.
  expect_same(lazy::floor_divide(f32({1, 0.3}), 0.1).to_vector<double>(), {9, 3});
}

TEST(FloorDivide, ASignedZeroQuotientKeepsTheSignOfTheTrueQuotient) {
  expect_same(lazy::floor_divide(f32({0, -0.0, 0, -0.0}), f32({2, 2, -2, -2})).to_vector<double>(),
              {0, -0.0, -0.0, 0});
}

TEST(RoundedDivisions, ByZeroAndInfinityFollowPyTorch) {
  const Tensor a = f32({5, -5, 0, kInf, -1, 1});
  const Tensor b = f32({0, 0, 0, 2, kInf, -kInf});
  expect_same(lazy::floor_divide(a, b).to_vector<double>(), {kInf, -kInf, kNaN, kNaN, -1, -1});
  expect_same(lazy::remainder(a, b).to_vector<double>(), {kNaN, kNaN, kNaN, kNaN, kInf, -kInf});
  expect_same(lazy::fmod(a, b).to_vector<double>(), {kNaN, kNaN, kNaN, kNaN, -1, 1});
}

TEST(RoundedDivisions, OfIntegersStayIntegersAndRoundAsPython) {
  const Tensor a = i64({-7, 7, -7, 7, 6, -6});
  const Tensor b = i64({2, 2, -2, -2, 3, 3});
  const Tensor q = lazy::floor_divide(a, b);
  EXPECT_EQ(q.dtype(), DType::i64);
  EXPECT_EQ(q.to_vector<std::int64_t>(), (std::vector<std::int64_t>{-4, 3, 3, -4, 2, -2}));
  EXPECT_EQ((a % b).to_vector<std::int64_t>(), (std::vector<std::int64_t>{1, 1, -1, -1, 0, 0}));
  EXPECT_EQ(lazy::fmod(a, b).to_vector<std::int64_t>(),
            (std::vector<std::int64_t>{-1, 1, -1, 1, 0, 0}));
}

TEST(RoundedDivisions, AnIntegerDivisorOfZeroGivesZeroAndTheLeastIntegerOverMinusOneWraps) {
  constexpr std::int64_t least = std::numeric_limits<std::int64_t>::min();
  const Tensor a = i64({5, -5, least, least});
  const Tensor b = i64({0, 0, -1, 1});
  EXPECT_EQ(lazy::floor_divide(a, b).to_vector<std::int64_t>(),
            (std::vector<std::int64_t>{0, 0, least, least}));
  EXPECT_EQ(lazy::remainder(a, b).to_vector<std::int64_t>(),
            (std::vector<std::int64_t>{0, 0, 0, 0}));
  EXPECT_EQ(lazy::fmod(a, b).to_vector<std::int64_t>(), (std::vector<std::int64_t>{0, 0, 0, 0}));
  const Tensor least32 = lazy::full({1}, std::numeric_limits<std::int32_t>::min(), DType::i32);
  EXPECT_EQ(lazy::floor_divide(least32, -1).to_vector<std::int32_t>(),
            std::vector<std::int32_t>{std::numeric_limits<std::int32_t>::min()});
}

TEST(RoundedDivisions, PromoteAsArithmeticDoes) {
  const Tensor ints = lazy::from_data(std::vector<std::int32_t>{7, -7}, {2});
  EXPECT_EQ((ints % 3).dtype(), DType::i32);
  EXPECT_EQ((ints % 3).to_vector<std::int32_t>(), (std::vector<std::int32_t>{1, 2}));
  const Tensor by_float = lazy::floor_divide(ints, 2.5);
  EXPECT_EQ(by_float.dtype(), DType::f32);
  expect_same(by_float.to_vector<double>(), {2, -3});
  EXPECT_EQ(lazy::fmod(ints, i64({4, 4})).dtype(), DType::i64);
  const Tensor half = f32({7.5, -7.5}).to(DType::f16);
  EXPECT_EQ((half % 2).dtype(), DType::f16);
  expect_same((half % 2).to_vector<double>(), {1.5, 0.5});
}

// Measured against PyTorch 2.11 (CPU and CUDA): pow, remainder and fmod round a number to an f16
// or bf16 tensor's dtype first; add, sub, mul, div and floor_divide take it in f32.
TEST(RoundedDivisions, PowRemainderAndFmodRoundANumberToTheTensorsDtype) {
  const Tensor one = lazy::full({1}, 1.0, DType::f16);
  EXPECT_EQ(lazy::remainder(one, 0.1).item<double>(), 0x1p-12);  // f16's 0.1 is 0.0999756
  EXPECT_EQ(lazy::fmod(one, 0.1).item<double>(), 0x1p-12);
  EXPECT_EQ(lazy::floor_divide(one, 0.1).item<double>(), 9);  // by 0.1f: 1 / 0.1f is 9.99...
  EXPECT_EQ(lazy::pow(lazy::full({1}, 1000.0, DType::bf16), 0.3).item<double>(), 8);
  EXPECT_EQ(lazy::pow(2.7, lazy::full({1}, 3.0, DType::bf16)).item<double>(), 19.75);
  // f16's 0.1 less 0.1f, not 0 (rounded to f16's subnormal spacing of 2^-24 once more).
  EXPECT_NEAR((lazy::full({1}, 0.1, DType::f16) - 0.1).item<double>(), 0.0999755859375 - 0.1f,
              0x1p-25);
  // A number past f16's range rounds to inf there, as PyTorch's wrapped number does.
  EXPECT_EQ(lazy::remainder(lazy::full({1}, 3.0, DType::f16), 1e5).item<double>(), 3);
  // pow's exponent and where's numbers convert checked (measured on PyTorch 2.11's CUDA): past the
  // dtype's largest is an error even where it would round to it; a base may round to it.
  EXPECT_THROW(lazy::pow(one, 65519.0), lazy::ValueError);
  EXPECT_THROW(lazy::pow(lazy::full({1}, 1.0, DType::bf16), 3.3961775e38), lazy::ValueError);
  EXPECT_EQ(lazy::pow(one, 65504.0).item<double>(), 1);
  EXPECT_EQ(lazy::pow(65519.0, one).item<double>(), 65504);
  EXPECT_THROW(lazy::where(one > 0, one, 65519.0), lazy::ValueError);
  EXPECT_EQ(lazy::where(one > 0, one, 65504.0).item<double>(), 1);
  EXPECT_EQ(lazy::where(one < 0, one, -65504.0).item<double>(), -65504);
}

TEST(RoundedDivisions, OfBoolsThrowDTypeError) {
  const Tensor flags = f32({1, 0}) > 0.5;
  EXPECT_THROW(lazy::floor_divide(flags, flags), lazy::DTypeError);
  EXPECT_THROW(flags % flags, lazy::DTypeError);
  EXPECT_THROW(lazy::fmod(flags, true), lazy::DTypeError);
}

TEST(Trunc, RoundsTowardZeroAndKeepsIntegers) {
  expect_same(lazy::trunc(f32({-1.7, -0.5, 0.5, 1.7, kInf})).to_vector<double>(),
              {-1, -0.0, 0, 1, kInf});
  const Tensor ints = i64({-3, 4});
  EXPECT_EQ(lazy::trunc(ints).to_vector<std::int64_t>(), (std::vector<std::int64_t>{-3, 4}));
  EXPECT_THROW(lazy::trunc(ints > 0), lazy::DTypeError);
}

}  // namespace

// Factories: from_data copies and converts host data, zeros/ones/full fill with the documented
// default dtypes, arange follows NumPy's lengths, rand/randn draw from Philox-4x32-10.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <ostream>
#include <random>
#include <vector>

#include "ir/dtype_codec.h"
#include "lazy/lazy.h"
#include "nvrtc_templates/philox.cuh"

namespace lazy {
void PrintTo(const Shape& shape, std::ostream* os) {
  *os << shape.to_string();
}
}  // namespace lazy

namespace {

using lazy::DType;
using lazy::Shape;
using lazy::Tensor;

constexpr DType kAllDTypes[] = {lazy::f32, lazy::f16, lazy::bf16,
                                lazy::i32, lazy::i64, lazy::bool_};

double pow2(int e) {
  return std::ldexp(1.0, e);
}

struct Moments {
  double mean;
  double variance;
};

Moments moments_of(const std::vector<double>& values) {
  double sum = 0;
  for (double v : values) sum += v;
  double mean = sum / double(values.size());
  double squares = 0;
  for (double v : values) squares += (v - mean) * (v - mean);
  return {mean, squares / double(values.size())};
}

// ---- from_data ----

TEST(FromData, OfFloatDataIsF32WithTheSameValues) {
  std::mt19937 gen(1);
  std::normal_distribution<float> dist(0.0f, 100.0f);
  std::vector<float> values(24);
  for (float& v : values) v = dist(gen);
  Tensor t = lazy::from_data(values, {2, 3, 4});
  EXPECT_EQ(t.dtype(), lazy::f32);
  EXPECT_EQ(t.shape(), (Shape{2, 3, 4}));
  EXPECT_EQ(t.to_vector<float>(), values);
}

TEST(FromData, OfDoubleDataIsF32RoundedToFloat) {
  std::mt19937 gen(2);
  std::uniform_real_distribution<double> dist(-10.0, 10.0);
  std::vector<double> values(16);
  for (double& v : values) v = dist(gen);
  Tensor t = lazy::from_data(values, {4, 4});
  EXPECT_EQ(t.dtype(), lazy::f32);
  std::vector<double> got = t.to_vector<double>();
  for (std::size_t i = 0; i < values.size(); ++i) {
    EXPECT_EQ(got[i], double(float(values[i]))) << i;
    EXPECT_NE(got[i], values[i]) << i;  // random doubles are not floats: rounding happened
  }
}

TEST(FromData, OfInt32DataIsI32) {
  std::mt19937 gen(3);
  std::vector<std::int32_t> values(10);
  for (std::int32_t& v : values) v = std::int32_t(gen());
  Tensor t = lazy::from_data(values, {10});
  EXPECT_EQ(t.dtype(), lazy::i32);
  EXPECT_EQ(t.to_vector<std::int32_t>(), values);
}

TEST(FromData, OfInt64DataIsI64AndKeepsEveryBit) {
  std::mt19937_64 gen(4);
  std::vector<std::int64_t> values(10);
  for (std::int64_t& v : values) v = std::int64_t(gen());
  Tensor t = lazy::from_data(values, {2, 5});
  EXPECT_EQ(t.dtype(), lazy::i64);
  EXPECT_EQ(t.to_vector<std::int64_t>(), values);
}

TEST(FromData, OfBoolDataIsBool) {
  std::mt19937 gen(5);
  std::vector<bool> values(12);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = gen() % 2 == 1;
  values[0] = true;
  values[1] = false;
  Tensor t = lazy::from_data(values, {3, 4});
  EXPECT_EQ(t.dtype(), lazy::bool_);
  EXPECT_EQ(t.to_vector<bool>(), values);
}

TEST(FromData, OfBoolBytesTreatsAnyNonZeroByteAsTrue) {
  std::vector<std::uint8_t> bytes = {0, 1, 2, 255, 0, 128};
  Tensor t = lazy::from_bool_bytes(bytes, {6});
  EXPECT_EQ(t.dtype(), lazy::bool_);
  EXPECT_EQ(t.to_vector<bool>(), (std::vector<bool>{false, true, true, true, false, true}));
  EXPECT_EQ(t.to_vector<std::int64_t>(), (std::vector<std::int64_t>{0, 1, 1, 1, 0, 1}));
}

TEST(FromData, CopiesTheDataAtTheCall) {
  std::vector<float> values = {1.5f, -2.25f, 7.0f};
  Tensor t = lazy::from_data(values, {3});
  values[0] = 100.0f;
  values[2] = -100.0f;
  EXPECT_EQ(t.to_vector<float>(), (std::vector<float>{1.5f, -2.25f, 7.0f}));
}

TEST(FromData, ToF16RoundsToNearestEven) {
  // 1 + 2^-11 and 2049 are ties between an even and an odd neighbour; the others are ties
  // whose even neighbour is above.
  std::vector<float> values = {float(1 + pow2(-11)),
                               float(1 + 3 * pow2(-11)),
                               2049.0f,
                               2051.0f,
                               float(-(1 + pow2(-11))),
                               0.1f};
  Tensor t = lazy::from_data(values, {6}, lazy::f16);
  EXPECT_EQ(t.dtype(), lazy::f16);
  EXPECT_EQ(t.to_vector<double>(),
            (std::vector<double>{1.0, 1 + pow2(-9), 2048.0, 2052.0, -1.0, 0.0999755859375}));
}

TEST(FromData, ToBF16RoundsToNearestEven) {
  std::vector<double> values = {1 + pow2(-8), 1 + 3 * pow2(-8), 257.0, 259.0, -257.0, 0.1};
  Tensor t = lazy::from_data(values, {6}, lazy::bf16);
  EXPECT_EQ(t.dtype(), lazy::bf16);
  EXPECT_EQ(t.to_vector<double>(),
            (std::vector<double>{1.0, 1 + pow2(-6), 256.0, 260.0, -256.0, 0.10009765625}));
}

TEST(FromData, OfIntegersToF16RoundsToNearestEven) {
  std::vector<std::int32_t> values = {2049, 2051, 4098, 4102, 65504, 65520, -2049};
  Tensor t = lazy::from_data(values, {7}, lazy::f16);
  EXPECT_EQ(t.to_vector<double>(),
            (std::vector<double>{2048.0, 2052.0, 4096.0, 4104.0, 65504.0, INFINITY, -2048.0}));
}

TEST(FromData, OfLargeInt64ToBF16RoundsThroughF32AsPyTorch) {
  // 2^62 + 2^54 + 1 is 2^62 + 2^54 in f32, the midpoint between bf16 neighbours 2^62 and
  // 2^62 + 2^55, which goes to even (2^62) as PyTorch's integer-to-bf16 conversion does.
  std::int64_t above_tie = (std::int64_t(1) << 62) + (std::int64_t(1) << 54) + 1;
  std::vector<std::int64_t> values = {257, 259, above_tie};
  Tensor t = lazy::from_data(values, {3}, lazy::bf16);
  EXPECT_EQ(t.to_vector<double>(), (std::vector<double>{256.0, 260.0, pow2(62)}));
}

TEST(FromData, OfLargeInt64ToF32RoundsOnceToNearest) {
  std::int64_t above_tie = (std::int64_t(1) << 62) + (std::int64_t(1) << 38) + 1;
  std::vector<std::int64_t> values = {16777217, 16777219, above_tie};
  Tensor t = lazy::from_data(values, {3}, lazy::f32);
  EXPECT_EQ(t.to_vector<double>(),
            (std::vector<double>{16777216.0, 16777220.0, pow2(62) + pow2(39)}));
}

TEST(FromData, OfFloatsToAnIntegerDTypeTruncatesTowardZero) {
  std::vector<double> values = {2.9, -2.9, 0.5, -0.5, 1e10, -1e10};
  Tensor t = lazy::from_data(values, {6}, lazy::i32);
  EXPECT_EQ(t.dtype(), lazy::i32);
  EXPECT_EQ(t.to_vector<std::int64_t>(),
            (std::vector<std::int64_t>{2, -2, 0, 0, 2147483647, -2147483648LL}));
}

TEST(FromData, OfFloatsToBoolIsTrueForNonZero) {
  std::vector<float> values = {0.0f, 0.25f, -0.0f, NAN, -3.0f};
  Tensor t = lazy::from_data(values, {5}, lazy::bool_);
  EXPECT_EQ(t.dtype(), lazy::bool_);
  EXPECT_EQ(t.to_vector<bool>(), (std::vector<bool>{false, true, false, true, true}));
}

TEST(FromData, OfBoolsToF32GivesZeroAndOne) {
  std::vector<bool> values = {true, false, true};
  Tensor t = lazy::from_data(values, {3}, lazy::f32);
  EXPECT_EQ(t.dtype(), lazy::f32);
  EXPECT_EQ(t.to_vector<double>(), (std::vector<double>{1.0, 0.0, 1.0}));
}

TEST(FromData, WithTheWrongElementCountThrowsShapeError) {
  std::vector<float> values = {1.0f, 2.0f, 3.0f, 4.0f, 5.0f};
  EXPECT_THROW(lazy::from_data(values, {2, 3}), lazy::ShapeError);
  EXPECT_THROW(lazy::from_data(values, {4}), lazy::ShapeError);
  std::vector<bool> flags = {true, false};
  EXPECT_THROW(lazy::from_data(flags, {3}), lazy::ShapeError);
}

TEST(FromData, WithANegativeSizeThrowsShapeError) {
  std::vector<float> values = {1.0f, 2.0f};
  EXPECT_THROW(lazy::from_data(values, {-1, -2}), lazy::ShapeError);
}

// ---- zeros, ones, full ----

TEST(Zeros, DefaultsToF32) {
  Tensor t = lazy::zeros({2, 3});
  EXPECT_EQ(t.dtype(), lazy::f32);
  EXPECT_EQ(t.shape(), (Shape{2, 3}));
  EXPECT_EQ(t.to_vector<double>(), std::vector<double>(6, 0.0));
}

TEST(Ones, DefaultsToF32) {
  Tensor t = lazy::ones({3, 2});
  EXPECT_EQ(t.dtype(), lazy::f32);
  EXPECT_EQ(t.to_vector<double>(), std::vector<double>(6, 1.0));
}

TEST(Zeros, FillsEveryDType) {
  for (DType dtype : kAllDTypes) {
    Tensor t = lazy::zeros({4, 5}, dtype);
    EXPECT_EQ(t.dtype(), dtype) << lazy::dtype_name(dtype);
    EXPECT_EQ(t.to_vector<double>(), std::vector<double>(20, 0.0)) << lazy::dtype_name(dtype);
  }
}

TEST(Ones, FillsEveryDType) {
  for (DType dtype : kAllDTypes) {
    Tensor t = lazy::ones({5, 4}, dtype);
    EXPECT_EQ(t.dtype(), dtype) << lazy::dtype_name(dtype);
    EXPECT_EQ(t.to_vector<double>(), std::vector<double>(20, 1.0)) << lazy::dtype_name(dtype);
  }
}

TEST(Full, OfAFloatValueDefaultsToF32) {
  Tensor t = lazy::full({2, 2}, 2.5);
  EXPECT_EQ(t.dtype(), lazy::f32);
  EXPECT_EQ(t.to_vector<double>(), std::vector<double>(4, 2.5));
  EXPECT_EQ(lazy::full({1}, 0.1).item<double>(), double(0.1f));
}

TEST(Full, OfAnIntegerValueDefaultsToI64) {
  Tensor t = lazy::full({3}, 2);
  EXPECT_EQ(t.dtype(), lazy::i64);
  EXPECT_EQ(t.to_vector<std::int64_t>(), std::vector<std::int64_t>(3, 2));
  std::int64_t big = (std::int64_t(1) << 60) + 7;  // not exact in a double
  EXPECT_EQ(lazy::full({2}, big).to_vector<std::int64_t>(), std::vector<std::int64_t>(2, big));
}

TEST(Full, OfABoolValueDefaultsToBool) {
  Tensor t = lazy::full({2, 3}, true);
  EXPECT_EQ(t.dtype(), lazy::bool_);
  EXPECT_EQ(t.to_vector<bool>(), std::vector<bool>(6, true));
}

TEST(Full, FillsEveryDTypeWithTheValueItHolds) {
  std::mt19937 gen(6);
  std::uniform_int_distribution<int> dist(1, 100);
  for (DType dtype : kAllDTypes) {
    int value = dtype == lazy::bool_ ? 1 : dist(gen);
    Tensor t = lazy::full({3, 4}, value, dtype);
    EXPECT_EQ(t.dtype(), dtype) << lazy::dtype_name(dtype);
    EXPECT_EQ(t.to_vector<double>(), std::vector<double>(12, double(value)))
        << lazy::dtype_name(dtype);
  }
}

TEST(Full, RoundsTheValueToTheDType) {
  EXPECT_EQ(lazy::full({2}, 0.1, lazy::f16).to_vector<double>(),
            std::vector<double>(2, 0.0999755859375));
  EXPECT_EQ(lazy::full({2}, 0.1, lazy::bf16).to_vector<double>(),
            std::vector<double>(2, 0.10009765625));
  EXPECT_EQ(lazy::full({2}, 2049, lazy::f16).to_vector<double>(), std::vector<double>(2, 2048.0));
}

TEST(Full, OfARankZeroShapeHoldsOneElement) {
  Tensor t = lazy::full(Shape{}, -3.5);
  EXPECT_EQ(t.rank(), 0);
  EXPECT_EQ(t.item<double>(), -3.5);
}

TEST(Full, AcceptsTheLargestValuesTheDTypeHolds) {
  EXPECT_EQ(lazy::full({1}, 65504.0, lazy::f16).item<double>(), 65504.0);
  EXPECT_EQ(lazy::full({1}, std::numeric_limits<std::int32_t>::max(), lazy::i32).item<double>(),
            2147483647.0);
  EXPECT_EQ(lazy::full({1}, std::numeric_limits<std::int32_t>::min(), lazy::i32).item<double>(),
            -2147483648.0);
}

TEST(Full, WithAValueOverflowingAFloatDTypeThrowsValueError) {
  EXPECT_THROW(lazy::full({2}, 70000.0, lazy::f16), lazy::ValueError);
  EXPECT_THROW(lazy::full({2}, 65520, lazy::f16), lazy::ValueError);
  EXPECT_THROW(lazy::full({2}, 1e39, lazy::bf16), lazy::ValueError);
  EXPECT_THROW(lazy::full({2}, 1e39, lazy::f32), lazy::ValueError);
  // Past the largest finite value though it rounds to it, as PyTorch's checked conversion (a
  // review found 65519 filled as 65504); infinities are values like any other.
  EXPECT_THROW(lazy::full({2}, 65519.0, lazy::f16), lazy::ValueError);
  EXPECT_THROW(lazy::full({2}, 3.4e38, lazy::bf16), lazy::ValueError);
  EXPECT_THROW(
      lazy::masked_fill(lazy::zeros({2}, lazy::f16), lazy::ones({2}, lazy::bool_), 65519.0),
      lazy::ValueError);
  EXPECT_EQ(lazy::full({1}, -INFINITY, lazy::f16).item<double>(), -INFINITY);
}

TEST(Full, WithAnIntegerOverflowingI32ThrowsValueError) {
  EXPECT_THROW(lazy::full({2}, std::int64_t(1) << 31, lazy::i32), lazy::ValueError);
  EXPECT_THROW(lazy::full({2}, -(std::int64_t(1) << 31) - 1, lazy::i32), lazy::ValueError);
}

TEST(Full, WithAFloatOverflowingAnIntegerDTypeThrowsValueError) {
  EXPECT_THROW(lazy::full({2}, 1e10, lazy::i32), lazy::ValueError);
  EXPECT_THROW(lazy::full({2}, 1e30, lazy::i64), lazy::ValueError);
}

TEST(Full, WithANegativeSizeThrowsShapeError) {
  EXPECT_THROW(lazy::full({2, -1}, 1.0), lazy::ShapeError);
  EXPECT_THROW(lazy::zeros({-3}), lazy::ShapeError);
}

// ---- arange ----

TEST(Arange, OfOneIntegerCountsFromZero) {
  Tensor t = lazy::arange(5);
  EXPECT_EQ(t.dtype(), lazy::i64);
  EXPECT_EQ(t.to_vector<std::int64_t>(), (std::vector<std::int64_t>{0, 1, 2, 3, 4}));
}

TEST(Arange, StopsBeforeStop) {
  Tensor t = lazy::arange(3, 17, 4);
  EXPECT_EQ(t.dtype(), lazy::i64);
  EXPECT_EQ(t.to_vector<std::int64_t>(), (std::vector<std::int64_t>{3, 7, 11, 15}));
  EXPECT_EQ(lazy::arange(3, 15, 4).to_vector<std::int64_t>(),
            (std::vector<std::int64_t>{3, 7, 11}));
}

TEST(Arange, WithANegativeStepCountsDown) {
  EXPECT_EQ(lazy::arange(10, -3, -4).to_vector<std::int64_t>(),
            (std::vector<std::int64_t>{10, 6, 2, -2}));
  EXPECT_EQ(lazy::arange(-1, -4, -1).to_vector<std::int64_t>(),
            (std::vector<std::int64_t>{-1, -2, -3}));
}

TEST(Arange, IsEmptyWhenTheStepPointsAwayFromStop) {
  EXPECT_EQ(lazy::arange(5, 5).shape(), (Shape{0}));
  EXPECT_EQ(lazy::arange(5, 0).shape(), (Shape{0}));
  EXPECT_EQ(lazy::arange(0, 5, -1).shape(), (Shape{0}));
  EXPECT_EQ(lazy::arange(0.0, -1.0, 0.5).shape(), (Shape{0}));
  EXPECT_EQ(lazy::arange(-3).shape(), (Shape{0}));
  EXPECT_TRUE(lazy::arange(5, 0).to_vector<std::int64_t>().empty());
}

TEST(Arange, HasLengthCeilOfSpanOverStep) {
  std::mt19937 gen(7);
  std::uniform_int_distribution<std::int64_t> bound(-50, 50);
  std::uniform_int_distribution<std::int64_t> step_dist(-7, 7);
  for (int trial = 0; trial < 200; ++trial) {
    std::int64_t start = bound(gen), stop = bound(gen), step = step_dist(gen);
    if (step == 0) step = 3;
    auto length = std::int64_t(std::max(0.0, std::ceil(double(stop - start) / double(step))));
    Tensor t = lazy::arange(start, stop, step);
    SCOPED_TRACE(testing::Message() << "arange(" << start << ", " << stop << ", " << step << ")");
    ASSERT_EQ(t.shape(), (Shape{length}));
    std::vector<std::int64_t> values = t.to_vector<std::int64_t>();
    for (std::int64_t i = 0; i < length; ++i) EXPECT_EQ(values[i], start + i * step);
  }
}

TEST(Arange, WithAFloatArgumentIsF32) {
  Tensor t = lazy::arange(0.5, 2.0, 0.25);
  EXPECT_EQ(t.dtype(), lazy::f32);
  EXPECT_EQ(t.to_vector<double>(), (std::vector<double>{0.5, 0.75, 1.0, 1.25, 1.5, 1.75}));
  EXPECT_EQ(lazy::arange(0, 2.5).dtype(), lazy::f32);
  EXPECT_EQ(lazy::arange(0, 2.5).to_vector<double>(), (std::vector<double>{0.0, 1.0, 2.0}));
}

TEST(Arange, WithAFloatNegativeStepCountsDown) {
  EXPECT_EQ(lazy::arange(1.0, -1.0, -0.5).to_vector<double>(),
            (std::vector<double>{1.0, 0.5, 0.0, -0.5}));
}

TEST(Arange, OfFloatsHasLengthCeilOfSpanOverStep) {
  std::mt19937 gen(8);
  std::uniform_real_distribution<double> bound(-10.0, 10.0);
  std::uniform_real_distribution<double> magnitude(0.1, 3.0);
  for (int trial = 0; trial < 100; ++trial) {
    double start = bound(gen), stop = bound(gen);
    double step = stop >= start ? magnitude(gen) : -magnitude(gen);
    auto length = std::int64_t(std::ceil((stop - start) / step));
    Tensor t = lazy::arange(start, stop, step);
    SCOPED_TRACE(testing::Message() << "arange(" << start << ", " << stop << ", " << step << ")");
    ASSERT_EQ(t.shape(), (Shape{length}));
    std::vector<double> values = t.to_vector<double>();
    for (std::int64_t i = 0; i < length; ++i)
      EXPECT_NEAR(values[i], start + double(i) * step, 1e-5 * (1 + std::fabs(start) + i));
  }
}

TEST(Arange, TakesTheRequestedDType) {
  Tensor t = lazy::arange(2, 8, 2, lazy::i32);
  EXPECT_EQ(t.dtype(), lazy::i32);
  EXPECT_EQ(t.to_vector<std::int32_t>(), (std::vector<std::int32_t>{2, 4, 6}));
  Tensor h = lazy::arange(0, 3, 1, lazy::f16);
  EXPECT_EQ(h.dtype(), lazy::f16);
  EXPECT_EQ(h.to_vector<double>(), (std::vector<double>{0.0, 1.0, 2.0}));
}

TEST(Arange, WithStepZeroThrowsValueError) {
  EXPECT_THROW(lazy::arange(0, 5, 0), lazy::ValueError);
  EXPECT_THROW(lazy::arange(0.0, 5.0, 0.0), lazy::ValueError);
}

TEST(Arange, OfBoolThrowsDTypeError) {
  EXPECT_THROW(lazy::arange(0, 2, 1, lazy::bool_), lazy::DTypeError);
}

TEST(Arange, OfAnIntegerDTypeWithAFloatStepThrowsValueError) {
  EXPECT_THROW(lazy::arange(0, 5, 0.5, lazy::i64), lazy::ValueError);
}

// Found in review: PyTorch's integer arange takes float numbers (the length from them, start and
// step truncated); an i32 range past i32 wrapped; a step 0 in f32 repeated start.
TEST(Arange, OfAnIntegerDTypeTruncatesFloatStartAndStep) {
  EXPECT_EQ(lazy::arange(0.5, 5, 1, lazy::i64).to_vector<std::int64_t>(),
            (std::vector<std::int64_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(lazy::arange(-2.5, 3, 1.5, lazy::i32).to_vector<std::int32_t>(),
            (std::vector<std::int32_t>{-2, -1, 0, 1}));
  EXPECT_EQ(lazy::arange(0, 7, 2.5, lazy::i64).to_vector<std::int64_t>(),
            (std::vector<std::int64_t>{0, 2, 4}));
  const std::int64_t past_i32 = std::int64_t(1) << 31;
  EXPECT_THROW(lazy::arange(past_i32, past_i32 + 3, 1, lazy::i32), lazy::ValueError);
  EXPECT_EQ(lazy::arange(past_i32 - 2, past_i32 - 1, 1, lazy::i32).to_vector<std::int32_t>(),
            (std::vector<std::int32_t>{std::int32_t(past_i32 - 2)}));
  EXPECT_THROW(lazy::arange(0.0, 1e-44, 1e-46), lazy::ValueError);
}

// Found in review: an i32 range whose exclusive stop is past i32 was refused though every element
// fits (the usual way to write "all i32 values", as PyTorch takes it); one whose last element
// does not fit is still refused.
TEST(Arange, AnI32RangeNeedsItsElementsNotItsStopToFit) {
  const std::int64_t past_i32 = std::int64_t(1) << 31;
  EXPECT_EQ(lazy::arange(0, past_i32, std::int64_t(1) << 30, lazy::i32).to_vector<std::int32_t>(),
            (std::vector<std::int32_t>{0, 1 << 30}));
  EXPECT_EQ(
      lazy::arange(0, -past_i32 - 1, -(std::int64_t(1) << 30), lazy::i32).to_vector<std::int32_t>(),
      (std::vector<std::int32_t>{0, -(1 << 30), std::numeric_limits<std::int32_t>::min()}));
  EXPECT_THROW(lazy::arange(past_i32 - 2, past_i32 + 1, 1, lazy::i32), lazy::ValueError);
  EXPECT_THROW(lazy::arange(0, past_i32 + 1, std::int64_t(1) << 30, lazy::i32), lazy::ValueError);
}

// ---- rand and randn ----

TEST(Rand, SameSeedGivesSameValues) {
  std::vector<double> a = lazy::rand({1000}, 1234).to_vector<double>();
  std::vector<double> b = lazy::rand({1000}, 1234).to_vector<double>();
  EXPECT_EQ(a, b);
}

TEST(Rand, DifferentSeedsGiveDifferentValues) {
  std::vector<double> a = lazy::rand({1000}, 1234).to_vector<double>();
  std::vector<double> b = lazy::rand({1000}, 1235).to_vector<double>();
  int equal = 0;
  for (std::size_t i = 0; i < a.size(); ++i) equal += a[i] == b[i];
  EXPECT_LT(equal, 5);
}

TEST(Rand, SeedsDifferingOnlyInTheHigh32BitsGiveDifferentValues) {
  std::uint64_t seed = 77;
  std::vector<double> a = lazy::rand({100}, seed).to_vector<double>();
  std::vector<double> b = lazy::rand({100}, seed + (std::uint64_t(1) << 32)).to_vector<double>();
  EXPECT_NE(a, b);
}

TEST(Rand, DrawsFromThePhiloxStreamOfTheSeed) {
  // Element i of seed s takes the top 24 bits of word i % 4 of Philox block i / 4 keyed by s,
  // so seed 0 starts with the Random123 known answer for counter 0, key 0.
  std::vector<double> got = lazy::rand({4}, 0).to_vector<double>();
  const std::uint32_t words[4] = {0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u};
  for (int i = 0; i < 4; ++i) EXPECT_EQ(got[i], double(words[i] >> 8) / 16777216.0) << i;
}

TEST(Rand, IsInZeroToOne) {
  for (DType dtype : {lazy::f32, lazy::f16, lazy::bf16}) {
    std::vector<double> values = lazy::rand({100000}, 99, dtype).to_vector<double>();
    EXPECT_GE(*std::min_element(values.begin(), values.end()), 0.0) << lazy::dtype_name(dtype);
    EXPECT_LT(*std::max_element(values.begin(), values.end()), 1.0) << lazy::dtype_name(dtype);
  }
}

TEST(Rand, HasTheMeanAndVarianceOfAUniform) {
  // For 1e5 samples the standard error of the mean is 0.0009 and of the variance 0.00024.
  Moments m = moments_of(lazy::rand({100000}, 2024).to_vector<double>());
  EXPECT_NEAR(m.mean, 0.5, 0.005);
  EXPECT_NEAR(m.variance, 1.0 / 12.0, 0.0015);
}

TEST(Randn, SameSeedGivesSameValues) {
  std::vector<double> a = lazy::randn({1000}, 5678).to_vector<double>();
  std::vector<double> b = lazy::randn({1000}, 5678).to_vector<double>();
  EXPECT_EQ(a, b);
}

TEST(Randn, DifferentSeedsGiveDifferentValues) {
  std::vector<double> a = lazy::randn({1000}, 5678).to_vector<double>();
  std::vector<double> b = lazy::randn({1000}, 5679).to_vector<double>();
  int equal = 0;
  for (std::size_t i = 0; i < a.size(); ++i) equal += a[i] == b[i];
  EXPECT_LT(equal, 5);
}

TEST(Randn, HasTheMeanAndVarianceOfAStandardNormal) {
  // For 1e5 samples the standard error of the mean is 0.0032 and of the variance 0.0045.
  std::vector<double> values = lazy::randn({100000}, 31337).to_vector<double>();
  Moments m = moments_of(values);
  EXPECT_NEAR(m.mean, 0.0, 0.02);
  EXPECT_NEAR(m.variance, 1.0, 0.03);
  int beyond_two_sigma = 0;
  for (double v : values) beyond_two_sigma += std::fabs(v) > 2.0;
  EXPECT_NEAR(beyond_two_sigma / 1e5, 0.0455, 0.004);
}

TEST(Randn, InHalfPrecisionIsFiniteAndRounded) {
  for (DType dtype : {lazy::f16, lazy::bf16}) {
    Tensor t = lazy::randn({1000}, 8, dtype);
    EXPECT_EQ(t.dtype(), dtype);
    Moments m = moments_of(t.to_vector<double>());
    EXPECT_NEAR(m.mean, 0.0, 0.2) << lazy::dtype_name(dtype);
    EXPECT_NEAR(m.variance, 1.0, 0.2) << lazy::dtype_name(dtype);
    for (double v : t.to_vector<double>()) {
      ASSERT_TRUE(std::isfinite(v));
      EXPECT_EQ(lazy::ir::round_to_dtype(v, dtype), v);
    }
  }
}

TEST(Rand, OfANonFloatingDTypeThrowsDTypeError) {
  for (DType dtype : {lazy::i32, lazy::i64, lazy::bool_}) {
    EXPECT_THROW(lazy::rand({4}, 1, dtype), lazy::DTypeError) << lazy::dtype_name(dtype);
    EXPECT_THROW(lazy::randn({4}, 1, dtype), lazy::DTypeError) << lazy::dtype_name(dtype);
  }
}

// ---- Philox-4x32-10 known answers (Random123's kat_vectors) ----

void expect_philox(std::uint32_t c0, std::uint32_t c1, std::uint32_t c2, std::uint32_t c3,
                   std::uint32_t k0, std::uint32_t k1, std::array<std::uint32_t, 4> expected) {
  lz_philox_out out = lz_philox4x32_10(c0, c1, c2, c3, k0, k1);
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(out.v[i], expected[i]) << "word " << i << ": 0x" << std::hex << out.v[i];
}

TEST(Philox4x32_10, MatchesTheKnownAnswerForZeroCounterAndKey) {
  expect_philox(0, 0, 0, 0, 0, 0, {0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u});
}

TEST(Philox4x32_10, MatchesTheKnownAnswerForAllOnes) {
  expect_philox(0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu,
                {0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu});
}

TEST(Philox4x32_10, MatchesTheKnownAnswerForPiDigits) {
  expect_philox(0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u, 0xa4093822u, 0x299f31d0u,
                {0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u});
}

}  // namespace

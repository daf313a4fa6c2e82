// bitwise_and, _or, _xor, _not and the shifts (and &, |, ^, ~, <<, >>): PyTorch 2.11's values
// (measured on CPU and CUDA), its result dtypes, its shift counts out of range, and its refusals.
// Computed by whatever backend runs (the GPU when there is one).
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "lazy/lazy.h"

namespace {

using lazy::DType;
using lazy::Tensor;

constexpr std::int64_t kI32Min = std::numeric_limits<std::int32_t>::min();
constexpr std::int64_t kI64Min = std::numeric_limits<std::int64_t>::min();

Tensor ints(const std::vector<std::int64_t>& values, DType dtype) {
  return lazy::from_data(values, {std::int64_t(values.size())}, dtype);
}
Tensor bools(const std::vector<bool>& values) {
  std::vector<std::int64_t> as_ints(values.begin(), values.end());
  return ints(as_ints, DType::bool_);
}

void expect_ints(const Tensor& x, DType dtype, const std::vector<std::int64_t>& want) {
  EXPECT_EQ(x.dtype(), dtype);
  EXPECT_EQ(x.to_vector<std::int64_t>(), want);
}

TEST(Bitwise, AndOrXorOfIntegersAreTheirTwosComplementBits) {
  for (DType dtype : {DType::i32, DType::i64}) {
    const Tensor a = ints({12, -1, -8, 0, 5}, dtype);
    const Tensor b = ints({10, 7, 3, -1, -6}, dtype);
    expect_ints(a & b, dtype, {8, 7, 0, 0, 0});
    expect_ints(a | b, dtype, {14, -1, -5, -1, -1});
    expect_ints(a ^ b, dtype, {6, -8, -5, -1, -1});
    expect_ints(lazy::bitwise_xor(a, -1), dtype, {-13, 0, 7, -1, -6});
    expect_ints(~a, dtype, {-13, 0, 7, -1, -6});
  }
}

TEST(Bitwise, OfBoolIsLogicAndGivesBool) {
  const Tensor a = bools({true, true, false, false});
  const Tensor b = bools({true, false, true, false});
  expect_ints(a & b, DType::bool_, {1, 0, 0, 0});
  expect_ints(a | b, DType::bool_, {1, 1, 1, 0});
  expect_ints(a ^ b, DType::bool_, {0, 1, 1, 0});
  expect_ints(~a, DType::bool_, {0, 0, 1, 1});
  expect_ints(a ^ true, DType::bool_, {0, 0, 1, 1});
}

// PyTorch's result_type: bool & i32 is i32, bool & 3 is i64, i32 & true stays i32, and an i32
// tensor with a 0-d i64 stays i32.
TEST(Bitwise, ResultDTypesFollowTypePromotion) {
  const Tensor flags = bools({true, false});
  expect_ints(flags & ints({3, 3}, DType::i32), DType::i32, {1, 0});
  expect_ints(flags & 3, DType::i64, {1, 0});
  expect_ints(ints({3, 2}, DType::i32) & true, DType::i32, {1, 0});
  expect_ints(ints({3, 2}, DType::i32) | ints({8, 8}, DType::i64), DType::i64, {11, 10});
  expect_ints(ints({1, 3}, DType::i32) & lazy::full({}, 1, DType::i64), DType::i32, {1, 1});
  expect_ints(5 & ints({1, 3}, DType::i32), DType::i32, {1, 1});
  expect_ints(lazy::bitwise_and(lazy::full({}, 6, DType::i32), lazy::full({}, 3, DType::i32)),
              DType::i32, {2});
}

TEST(Bitwise, ShiftsOutOfRangeGiveZeroOrTheSignAsPyTorchs) {
  expect_ints(ints({1, 1, 1, 1, -8, 3}, DType::i32) << ints({31, 32, 40, -1, 1, 0}, DType::i32),
              DType::i32, {kI32Min, 0, 0, 0, -16, 3});
  expect_ints(ints({-8, -8, 8, -8, 8, -8}, DType::i32) >> ints({1, 31, 32, 40, 40, -1}, DType::i32),
              DType::i32, {-4, -1, 0, -1, 0, -1});
  expect_ints(ints({1, 1, 1, 1}, DType::i64) << ints({63, 64, 100, -3}, DType::i64), DType::i64,
              {kI64Min, 0, 0, 0});
  expect_ints(ints({-8, 8, -8, 8}, DType::i64) >> ints({63, 64, 100, -3}, DType::i64), DType::i64,
              {-1, 0, -1, 0});
  // A count computes in i32 when the 0-d i64 holding it joins an i32 tensor (40: every bit out),
  // in i64 when a 1-d one does (33).
  expect_ints(ints({1, 3}, DType::i32) << lazy::full({}, 40, DType::i64), DType::i32, {0, 0});
  expect_ints(ints({1}, DType::i32) << ints({33}, DType::i64), DType::i64, {8589934592});
  expect_ints(ints({1, 3}, DType::i64) << -1, DType::i64, {0, 0});
  expect_ints(ints({-1, 3}, DType::i64) >> -1, DType::i64, {-1, 0});
  expect_ints(2 << ints({1, 3}, DType::i32), DType::i32, {4, 16});
  expect_ints(ints({1, 3}, DType::i32) << true, DType::i32, {2, 6});
  expect_ints(bools({true}) << 1, DType::i64, {2});
}

TEST(Bitwise, LeftShiftsWrapAsMultiplicationDoes) {
  expect_ints(ints({0x40000000, 3, -1}, DType::i32) << 1, DType::i32, {kI32Min, 6, -2});
  expect_ints(ints({0x7fffffff}, DType::i32) << 4, DType::i32, {-16});
  expect_ints(ints({-5}, DType::i64) >> 1, DType::i64, {-3});  // rounds down, as floor division
}

TEST(Bitwise, FloatingOperandsAreRefusedAtTheCall) {
  const Tensor x = lazy::full({2}, 3.0);
  const Tensor i = ints({3, 2}, DType::i32);
  EXPECT_THROW((void)(x & 1), lazy::DTypeError);
  EXPECT_THROW((void)(x | x), lazy::DTypeError);
  EXPECT_THROW((void)(i ^ 1.5), lazy::DTypeError);
  EXPECT_THROW((void)(bools({true}) | 1.0), lazy::DTypeError);
  EXPECT_THROW((void)~x, lazy::DTypeError);
  EXPECT_THROW((void)(lazy::full({2}, 1.5, DType::f16) << i), lazy::DTypeError);
  EXPECT_THROW((void)(x >> 1), lazy::DTypeError);
  try {
    (void)(i & x);
    FAIL() << "i32 & f32 was taken";
  } catch (const lazy::DTypeError& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "bitwise_and: takes integer or bool operands, and these promote to f32"),
              std::string::npos)
        << e.what();
  }
}

TEST(Bitwise, NotOfAFloatingTensorNamesWhatItTakes) {
  try {
    (void)~lazy::full({2}, 3.0);
    FAIL() << "~f32 was taken";
  } catch (const lazy::DTypeError& e) {
    EXPECT_NE(std::string(e.what()).find("bitwise_not: takes integer or bool tensors, got f32"),
              std::string::npos)
        << e.what();
  }
}

TEST(Bitwise, ShiftsOfBoolAreRefusedAsPyTorchs) {
  EXPECT_THROW((void)(bools({true}) << bools({true})), lazy::DTypeError);
  EXPECT_THROW((void)(bools({true}) >> true), lazy::DTypeError);
}

TEST(Bitwise, NumbersMustFitTheTensorsDType) {
  // PyTorch wraps 2**40 into an i32 tensor's dtype (to 0); here it is refused, as for add.
  EXPECT_THROW((void)(ints({3}, DType::i32) & (std::int64_t(1) << 40)), lazy::ValueError);
  EXPECT_THROW((void)(ints({3}, DType::i32) << (std::int64_t(1) << 40)), lazy::ValueError);
  EXPECT_THROW((void)lazy::bitwise_and(1, 2), lazy::ValueError);  // two numbers
}

TEST(Bitwise, AnUnsignedNumberPastInt64NamesTheInt64OfItsBits) {
  try {
    (void)(ints({3}, DType::i64) & std::uint64_t(0xFFFF'FFFF'FFFF'FFF0));
    FAIL() << "2^64 - 16 was taken";
  } catch (const lazy::ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("write it as the int64 of the same bits, -16"), std::string::npos)
        << e.what();
  }
  try {  // other ops are not told of bits
    (void)(ints({3}, DType::i64) < std::uint64_t(0xFFFF'FFFF'FFFF'FFF0));
    FAIL() << "2^64 - 16 was taken";
  } catch (const lazy::ValueError& e) {
    EXPECT_EQ(std::string(e.what()).find("bits"), std::string::npos) << e.what();
  }
  EXPECT_EQ((ints({3, -1}, DType::i64) & -16).to_vector<std::int64_t>(),
            (std::vector<std::int64_t>{0, -16}));
}

TEST(Bitwise, BroadcastsAndFusesWithOtherOps) {
  const Tensor rows = lazy::arange(0, 6, 1, DType::i32).reshape({2, 3});
  const Tensor masks = ints({1, 2, 4}, DType::i32);
  // (r & m) != 0 picks the bits, as a mask computation over positions would.
  expect_ints(((rows & masks) != 0).to(DType::i32), DType::i32, {0, 0, 0, 1, 0, 1});
  expect_ints((rows << 2) + (rows >> 1) - (rows ^ 1), DType::i32, {-1, 4, 6, 11, 13, 18});
}

}  // namespace

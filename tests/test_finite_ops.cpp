// isfinite, nan_to_num and logical_xor: PyTorch's values, dtypes and gradients. Computed by
// whatever backend runs (the GPU when there is one).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <span>
#include <vector>

#include "host_test_support.h"
#include "lazy/lazy.h"

namespace {

using lazy::DType;
using lazy::Tensor;
using lazy_test::kInf;
using lazy_test::kNaN;

constexpr auto& f32 = lazy_test::f32_values;

std::vector<bool> bools_of(const Tensor& x) {
  std::vector<bool> out;
  for (std::int64_t v : x.to_vector<std::int64_t>()) out.push_back(v != 0);
  return out;
}

TEST(IsFinite, IsFalseOnlyForNaNAndInfinities) {
  for (DType dtype : {DType::f32, DType::f16, DType::bf16}) {
    const Tensor x = f32({0, -0.0, 1e-40, kInf, -kInf, kNaN, 3e38}).to(dtype);
    const Tensor finite = lazy::isfinite(x);
    EXPECT_EQ(finite.dtype(), DType::bool_);
    // 3e38 rounds to inf in f16 and stays finite in bf16 and f32.
    const bool big_is_finite = dtype != DType::f16;
    EXPECT_EQ(bools_of(finite),
              (std::vector<bool>{true, true, true, false, false, false, big_is_finite}));
  }
  const Tensor ints = lazy::from_data(std::vector<std::int64_t>{0, -5}, {2});
  EXPECT_EQ(bools_of(lazy::isfinite(ints)), (std::vector<bool>{true, true}));
  EXPECT_EQ(bools_of(lazy::isfinite(ints > 0)), (std::vector<bool>{true, true}));
}

TEST(NanToNum, ReplacesNaNAndInfinitiesByDefaultWithZeroAndTheDTypesExtremes) {
  const Tensor x = f32({kNaN, kInf, -kInf, 2.5, -0.0});
  const double largest = std::numeric_limits<float>::max();
  EXPECT_EQ(lazy::nan_to_num(x).to_vector<double>(),
            (std::vector<double>{0, largest, -largest, 2.5, 0}));
  EXPECT_TRUE(std::signbit(lazy::nan_to_num(x).to_vector<double>()[4]));
  EXPECT_EQ(lazy::nan_to_num(x, 7, 8, -9).to_vector<double>(),
            (std::vector<double>{7, 8, -9, 2.5, 0}));
  EXPECT_EQ(lazy::nan_to_num(x.to(DType::f16)).to_vector<double>(),
            (std::vector<double>{0, 65504, -65504, 2.5, 0}));
  EXPECT_EQ(lazy::nan_to_num(x.to(DType::bf16)).dtype(), DType::bf16);
}

// As PyTorch's static_cast: a replacement past the dtype's range becomes an infinity.
TEST(NanToNum, ConvertsTheReplacementsToTheDType) {
  const Tensor h = f32({kNaN, kInf}).to(DType::f16);
  EXPECT_EQ(lazy::nan_to_num(h, 1e6, 65519).to_vector<double>(),
            (std::vector<double>{kInf, 65504}));
  EXPECT_EQ(lazy::nan_to_num(f32({kNaN}), 0.1).item<double>(), double(0.1f));
}

TEST(NanToNum, ReturnsIntegerAndBoolTensorsAsTheyAre) {
  const Tensor ints = lazy::from_data(std::vector<std::int32_t>{3, -4}, {2});
  EXPECT_EQ(lazy::nan_to_num(ints).to_vector<std::int64_t>(), (std::vector<std::int64_t>{3, -4}));
  EXPECT_EQ(lazy::nan_to_num(ints).dtype(), DType::i32);
}

TEST(NanToNum, PassesTheGradientWhereXIsFinite) {
  const Tensor x = f32({kNaN, kInf, -kInf, 2.5});
  const auto loss = [](std::span<const Tensor> v) { return lazy::sum(lazy::nan_to_num(v[0]) * 3); };
  EXPECT_EQ(lazy::grad(loss)({x})[0].to_vector<double>(), (std::vector<double>{0, 0, 0, 3}));
}

TEST(LogicalXor, IsTrueWhereExactlyOneIsNonZero) {
  const Tensor a = f32({0, 0, 2, kNaN, -0.0});
  const Tensor b = lazy::from_data(std::vector<std::int32_t>{0, 5, 1, 0, 0}, {5});
  const Tensor y = lazy::logical_xor(a, b);
  EXPECT_EQ(y.dtype(), DType::bool_);
  EXPECT_EQ(bools_of(y), (std::vector<bool>{false, true, false, true, false}));
  EXPECT_EQ(bools_of(lazy::logical_xor(a, true)),
            (std::vector<bool>{true, true, false, false, true}));
  EXPECT_THROW((void)lazy::logical_xor(1, 0), lazy::ValueError);
}

}  // namespace

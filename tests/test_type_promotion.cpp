// The result dtype of pointwise ops (PyTorch's torch.result_type) and the shapes they broadcast
// to (NumPy's rules). Each promotion is checked twice: through lazy::ir::result_type, and through
// the dtype of a tensor an op records.
#include <gtest/gtest.h>

#include <cstdint>
#include <initializer_list>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "host_test_support.h"
#include "ir/type_promotion.h"
#include "lazy/lazy.h"

namespace {

using lazy::DType;
using lazy::Scalar;
using lazy::Shape;
using lazy::Tensor;
using lazy::ir::PromotionOperand;
using Tier = PromotionOperand::Tier;

constexpr DType f32 = lazy::f32;
constexpr DType f16 = lazy::f16;
constexpr DType bf16 = lazy::bf16;
constexpr DType i32 = lazy::i32;
constexpr DType i64 = lazy::i64;
constexpr DType bool_ = lazy::bool_;

std::string name_of(DType dtype) {
  return std::string(lazy::dtype_name(dtype));
}

PromotionOperand dimensioned(DType dtype) {
  return {Tier::dimensioned, dtype};
}
PromotionOperand zero_dim(DType dtype) {
  return {Tier::zero_dim, dtype};
}
PromotionOperand number(const Scalar& value) {
  return lazy::ir::promotion_operand_of_scalar(value);
}

DType result_type(std::initializer_list<PromotionOperand> operands) {
  return lazy::ir::result_type(std::span(operands.begin(), operands.size()));
}

// Tensors with values exact in every dtype and non-zero, so that no op on them is degenerate.
Tensor dimensioned_tensor(DType dtype) {
  if (dtype == bool_) return lazy::from_data(std::vector<bool>{true, false, true}, Shape{3});
  return lazy::from_data(std::vector<double>{1, 2, 3}, Shape{3}, dtype);
}
Tensor zero_dim_tensor(DType dtype) {
  if (dtype == bool_) return lazy::from_data(std::vector<bool>{true}, Shape{});
  return lazy::from_data(std::vector<double>{2}, Shape{}, dtype);
}

// =============================================================================================
// Tensor with tensor: torch.promote_types.

struct PairCase {
  DType a, b, result;
};
void PrintTo(const PairCase& c, std::ostream* os) {
  *os << name_of(c.a) << " with " << name_of(c.b) << " -> " << name_of(c.result);
}
std::string pair_test_name(const ::testing::TestParamInfo<PairCase>& info) {
  return name_of(info.param.a) + "_with_" + name_of(info.param.b);
}

// Every unordered pair of dtypes; both orders are tested. Within a category the wider type
// wins; across categories (bool < integer < floating) the higher category's type wins; f16 with
// bf16 has no common 16-bit type and gives f32.
const PairCase kPromoteTypes[] = {
    {f32, f32, f32},       {f32, f16, f32},   {f32, bf16, f32},    {f32, i32, f32},
    {f32, i64, f32},       {f32, bool_, f32}, {f16, f16, f16},     {f16, bf16, f32},
    {f16, i32, f16},       {f16, i64, f16},   {f16, bool_, f16},   {bf16, bf16, bf16},
    {bf16, i32, bf16},     {bf16, i64, bf16}, {bf16, bool_, bf16}, {i32, i32, i32},
    {i32, i64, i64},       {i32, bool_, i32}, {i64, i64, i64},     {i64, bool_, i64},
    {bool_, bool_, bool_},
};

class TensorWithTensor : public ::testing::TestWithParam<PairCase> {};

TEST_P(TensorWithTensor, PromoteTypesGivesTheTableEntryInEitherOrder) {
  auto [a, b, want] = GetParam();
  EXPECT_EQ(lazy::ir::promote_types(a, b), want);
  EXPECT_EQ(lazy::ir::promote_types(b, a), want);
}

TEST_P(TensorWithTensor, ResultTypeOfTwoDimensionedTensorsIsPromoteTypes) {
  auto [a, b, want] = GetParam();
  EXPECT_EQ(result_type({dimensioned(a), dimensioned(b)}), want);
  EXPECT_EQ(result_type({dimensioned(b), dimensioned(a)}), want);
}

TEST_P(TensorWithTensor, AddRecordsTheResultType) {
  auto [a, b, want] = GetParam();
  EXPECT_EQ(lazy::add(dimensioned_tensor(a), dimensioned_tensor(b)).dtype(), want);
  EXPECT_EQ(lazy::add(dimensioned_tensor(b), dimensioned_tensor(a)).dtype(), want);
}

TEST_P(TensorWithTensor, ZeroDimWithZeroDimIsPromoteTypes) {
  auto [a, b, want] = GetParam();
  EXPECT_EQ(result_type({zero_dim(a), zero_dim(b)}), want);
  Tensor sum = lazy::add(zero_dim_tensor(a), zero_dim_tensor(b));
  EXPECT_EQ(sum.dtype(), want);
  EXPECT_EQ(sum.shape(), Shape{});
}

INSTANTIATE_TEST_SUITE_P(EveryPair, TensorWithTensor, ::testing::ValuesIn(kPromoteTypes),
                         pair_test_name);

TEST(TensorWithTensor, F16PlusBf16ComputesInF32) {
  Tensor half = lazy::from_data(std::vector<double>{1 + 0x1p-10, 3}, Shape{2}, f16);
  Tensor brain = lazy::from_data(std::vector<double>{1 + 0x1p-7, 0.25}, Shape{2}, bf16);
  Tensor sum = half + brain;
  EXPECT_EQ(sum.dtype(), f32);
  // Neither 16-bit type holds 2 + 2^-10 + 2^-7 exactly; f32 does.
  EXPECT_EQ(sum.to_vector<double>(), (std::vector<double>{2 + 0x1p-10 + 0x1p-7, 3.25}));
}

TEST(TensorWithTensor, I32PlusI64IsExactInI64) {
  Tensor a = lazy::from_data(std::vector<std::int32_t>{2147483647}, Shape{1});
  Tensor b = lazy::from_data(std::vector<std::int64_t>{1}, Shape{1});
  Tensor sum = a + b;
  EXPECT_EQ(sum.dtype(), i64);
  EXPECT_EQ(sum.to_vector<std::int64_t>(), std::vector<std::int64_t>{2147483648});
}

TEST(TensorWithTensor, BoolPlusI32IsI32) {
  Tensor sum = dimensioned_tensor(bool_) + dimensioned_tensor(i32);
  EXPECT_EQ(sum.dtype(), i32);
  EXPECT_EQ(sum.to_vector<std::int64_t>(), (std::vector<std::int64_t>{2, 2, 4}));
}

// =============================================================================================
// Tensor with a number: a number lifts the category, never the width within it.

struct NumberCase {
  DType tensor;
  Scalar number;
  DType result;
};
const char* kind_name(Scalar::Kind kind) {
  switch (kind) {
    case Scalar::Kind::boolean:
      return "bool";
    case Scalar::Kind::integer:
      return "int";
    case Scalar::Kind::floating:
      return "float";
  }
  return "?";
}
void PrintTo(const NumberCase& c, std::ostream* os) {
  *os << name_of(c.tensor) << " with a " << kind_name(c.number.kind()) << " number -> "
      << name_of(c.result);
}
std::string number_test_name(const ::testing::TestParamInfo<NumberCase>& info) {
  return name_of(info.param.tensor) + "_with_" + kind_name(info.param.number.kind());
}

const NumberCase kTensorWithNumber[] = {
    {f32, true, f32},  {f32, 2, f32},     {f32, 1.5, f32},    {f16, true, f16},
    {f16, 2, f16},     {f16, 1.5, f16},   {bf16, true, bf16}, {bf16, 2, bf16},
    {bf16, 1.2, bf16}, {i32, true, i32},  {i32, 2, i32},      {i32, 1.5, f32},
    {i64, true, i64},  {i64, 2, i64},     {i64, 1.5, f32},    {bool_, true, bool_},
    {bool_, 2, i64},   {bool_, 1.5, f32},
};

// x * number (or number * x) with the number as the C++ type of its kind: Operand takes numbers,
// not lazy::Scalar.
Tensor mul_by_number(const Tensor& x, const Scalar& number, bool number_first = false) {
  switch (number.kind()) {
    case Scalar::Kind::boolean: {
      bool value = number.to_int() != 0;
      return number_first ? lazy::mul(value, x) : lazy::mul(x, value);
    }
    case Scalar::Kind::integer: {
      std::int64_t value = number.to_int();
      return number_first ? lazy::mul(value, x) : lazy::mul(x, value);
    }
    case Scalar::Kind::floating: {
      double value = number.to_double();
      return number_first ? lazy::mul(value, x) : lazy::mul(x, value);
    }
  }
  return {};
}

class TensorWithNumber : public ::testing::TestWithParam<NumberCase> {};

TEST_P(TensorWithNumber, ResultTypeGivesTheTableEntry) {
  const NumberCase& c = GetParam();
  EXPECT_EQ(result_type({dimensioned(c.tensor), number(c.number)}), c.result);
  EXPECT_EQ(result_type({number(c.number), dimensioned(c.tensor)}), c.result);
}

TEST_P(TensorWithNumber, MulRecordsTheResultTypeWithTheNumberOnEitherSide) {
  const NumberCase& c = GetParam();
  Tensor x = dimensioned_tensor(c.tensor);
  EXPECT_EQ(mul_by_number(x, c.number).dtype(), c.result);
  EXPECT_EQ(mul_by_number(x, c.number, /*number_first=*/true).dtype(), c.result);
}

TEST_P(TensorWithNumber, ZeroDimTensorFollowsTheSameTable) {
  const NumberCase& c = GetParam();
  EXPECT_EQ(result_type({zero_dim(c.tensor), number(c.number)}), c.result);
  EXPECT_EQ(mul_by_number(zero_dim_tensor(c.tensor), c.number).dtype(), c.result);
}

INSTANTIATE_TEST_SUITE_P(EveryDTypeAndKind, TensorWithNumber,
                         ::testing::ValuesIn(kTensorWithNumber), number_test_name);

TEST(TensorWithNumber, NumbersPromoteAsF32I64AndBool) {
  EXPECT_EQ(number(1.5).dtype, f32);
  EXPECT_EQ(number(1.5f).dtype, f32);
  EXPECT_EQ(number(2).dtype, i64);
  EXPECT_EQ(number(std::int64_t{2}).dtype, i64);
  EXPECT_EQ(number(true).dtype, bool_);
  EXPECT_EQ(number(2).tier, Tier::scalar);
}

TEST(TensorWithNumber, Bf16TimesFloatStaysBf16) {
  Tensor x = lazy::from_data(std::vector<double>{1, 2, -4}, Shape{3}, bf16);
  Tensor y = x * 1.25;
  EXPECT_EQ(y.dtype(), bf16);
  EXPECT_EQ(y.to_vector<double>(), (std::vector<double>{1.25, 2.5, -5}));
}

TEST(TensorWithNumber, I32TimesFloatIsF32) {
  Tensor y = dimensioned_tensor(i32) * 1.5;
  EXPECT_EQ(y.dtype(), f32);
  EXPECT_EQ(y.to_vector<double>(), (std::vector<double>{1.5, 3, 4.5}));
}

TEST(TensorWithNumber, I32PlusIntStaysI32) {
  Tensor y = dimensioned_tensor(i32) + 2;
  EXPECT_EQ(y.dtype(), i32);
  EXPECT_EQ(y.to_vector<std::int64_t>(), (std::vector<std::int64_t>{3, 4, 5}));
}

TEST(TensorWithNumber, BoolPlusIntIsI64) {
  Tensor y = dimensioned_tensor(bool_) + 2;
  EXPECT_EQ(y.dtype(), i64);
  EXPECT_EQ(y.to_vector<std::int64_t>(), (std::vector<std::int64_t>{3, 2, 3}));
}

TEST(TensorWithNumber, BoolPlusBoolNumberStaysBool) {
  Tensor y = dimensioned_tensor(bool_) + true;
  EXPECT_EQ(y.dtype(), bool_);
  EXPECT_EQ(y.to_vector<bool>(), (std::vector<bool>{true, true, true}));
}

// =============================================================================================
// A 0-d tensor with a dimensioned one: the 0-d tensor counts only when its category is higher,
// and then its own dtype decides.

struct ZeroDimCase {
  DType zero_dim, dimensioned, result;
};
void PrintTo(const ZeroDimCase& c, std::ostream* os) {
  *os << "0-d " << name_of(c.zero_dim) << " with " << name_of(c.dimensioned) << " -> "
      << name_of(c.result);
}
std::string zero_dim_test_name(const ::testing::TestParamInfo<ZeroDimCase>& info) {
  return "zero_dim_" + name_of(info.param.zero_dim) + "_with_" + name_of(info.param.dimensioned);
}

const ZeroDimCase kZeroDimWithDimensioned[] = {
    // A dimensioned floating tensor keeps its dtype whatever the 0-d one is.
    {f32, f32, f32},
    {f16, f32, f32},
    {bf16, f32, f32},
    {i32, f32, f32},
    {i64, f32, f32},
    {bool_, f32, f32},
    {f32, f16, f16},
    {f16, f16, f16},
    {bf16, f16, f16},
    {i32, f16, f16},
    {i64, f16, f16},
    {bool_, f16, f16},
    {f32, bf16, bf16},
    {f16, bf16, bf16},
    {bf16, bf16, bf16},
    {i32, bf16, bf16},
    {i64, bf16, bf16},
    {bool_, bf16, bf16},
    // A dimensioned integer tensor gives way to a floating 0-d one only.
    {f32, i32, f32},
    {f16, i32, f16},
    {bf16, i32, bf16},
    {i32, i32, i32},
    {i64, i32, i32},
    {bool_, i32, i32},
    {f32, i64, f32},
    {f16, i64, f16},
    {bf16, i64, bf16},
    {i32, i64, i64},
    {i64, i64, i64},
    {bool_, i64, i64},
    // A dimensioned bool tensor gives way to any numeric 0-d one.
    {f32, bool_, f32},
    {f16, bool_, f16},
    {bf16, bool_, bf16},
    {i32, bool_, i32},
    {i64, bool_, i64},
    {bool_, bool_, bool_},
};

class ZeroDimWithDimensioned : public ::testing::TestWithParam<ZeroDimCase> {};

TEST_P(ZeroDimWithDimensioned, ResultTypeGivesTheTableEntryInEitherOrder) {
  const ZeroDimCase& c = GetParam();
  EXPECT_EQ(result_type({zero_dim(c.zero_dim), dimensioned(c.dimensioned)}), c.result);
  EXPECT_EQ(result_type({dimensioned(c.dimensioned), zero_dim(c.zero_dim)}), c.result);
}

TEST_P(ZeroDimWithDimensioned, AddRecordsTheResultTypeAndTheDimensionedShape) {
  const ZeroDimCase& c = GetParam();
  Tensor left = lazy::add(zero_dim_tensor(c.zero_dim), dimensioned_tensor(c.dimensioned));
  Tensor right = lazy::add(dimensioned_tensor(c.dimensioned), zero_dim_tensor(c.zero_dim));
  EXPECT_EQ(left.dtype(), c.result);
  EXPECT_EQ(right.dtype(), c.result);
  EXPECT_EQ(left.shape(), Shape{3});
  EXPECT_EQ(right.shape(), Shape{3});
}

INSTANTIATE_TEST_SUITE_P(EveryPair, ZeroDimWithDimensioned,
                         ::testing::ValuesIn(kZeroDimWithDimensioned), zero_dim_test_name);

TEST(ZeroDimWithDimensioned, ZeroDimF32PlusF16IsF16) {
  Tensor y = lazy::from_data(std::vector<double>{0.5}, Shape{}, f32) + dimensioned_tensor(f16);
  EXPECT_EQ(y.dtype(), f16);
  EXPECT_EQ(y.to_vector<double>(), (std::vector<double>{1.5, 2.5, 3.5}));
}

TEST(ZeroDimWithDimensioned, ZeroDimF16PlusI32IsF16) {
  Tensor y = lazy::from_data(std::vector<double>{2.5}, Shape{}, f16) + dimensioned_tensor(i32);
  EXPECT_EQ(y.dtype(), f16);
  EXPECT_EQ(y.to_vector<double>(), (std::vector<double>{3.5, 4.5, 5.5}));
}

TEST(ZeroDimWithDimensioned, ZeroDimI64DoesNotWidenI32) {
  Tensor big = lazy::from_data(std::vector<std::int64_t>{1}, Shape{});
  Tensor x = lazy::from_data(std::vector<std::int32_t>{2147483647, 5}, Shape{2});
  Tensor y = x + big;
  EXPECT_EQ(y.dtype(), i32);
  // The sum is an i32 sum, so it wraps.
  EXPECT_EQ(y.to_vector<std::int64_t>(), (std::vector<std::int64_t>{-2147483648, 6}));
}

// =============================================================================================
// Three tiers at once (as in where and clamp): each tier promotes within itself, then a lower tier
// counts only where its category is higher.

TEST(ThreeTiers, FloatNumberLiftsAnIntegerZeroDimAboveABoolTensor) {
  EXPECT_EQ(result_type({dimensioned(bool_), zero_dim(i32), number(1.5)}), f32);
}

TEST(ThreeTiers, IntNumberLiftsABoolZeroDimButNotAnI32Tensor) {
  EXPECT_EQ(result_type({dimensioned(i32), zero_dim(bool_), number(2)}), i32);
  EXPECT_EQ(result_type({dimensioned(bool_), zero_dim(bool_), number(2)}), i64);
}

TEST(ThreeTiers, FloatZeroDimDecidesAgainstAnIntegerTensorOverAFloatNumber) {
  EXPECT_EQ(result_type({dimensioned(i32), zero_dim(f16), number(1.5)}), f16);
  EXPECT_EQ(result_type({dimensioned(i64), zero_dim(bf16), number(1.5)}), bf16);
}

TEST(ThreeTiers, FloatingTensorIgnoresEveryLowerTier) {
  EXPECT_EQ(result_type({dimensioned(f16), zero_dim(f32), number(1.5)}), f16);
  EXPECT_EQ(result_type({dimensioned(bf16), zero_dim(i64), number(2)}), bf16);
}

TEST(ThreeTiers, DimensionedTensorsPromoteAmongThemselvesFirst) {
  EXPECT_EQ(result_type({dimensioned(f16), dimensioned(bf16), zero_dim(f32)}), f32);
  EXPECT_EQ(result_type({dimensioned(i32), dimensioned(i64), zero_dim(f16)}), f16);
  EXPECT_EQ(result_type({dimensioned(i32), dimensioned(bool_), number(2)}), i32);
}

TEST(ThreeTiers, WhereWithAZeroDimValueAndANumberFollowsTheTiers) {
  Tensor cond = lazy::from_data(std::vector<bool>{true, false, true}, Shape{3});
  Tensor y = lazy::where(cond, lazy::from_data(std::vector<double>{0.5}, Shape{}, f16), 2);
  EXPECT_EQ(y.dtype(), f16);
  EXPECT_EQ(y.to_vector<double>(), (std::vector<double>{0.5, 2, 0.5}));
}

// =============================================================================================
// Broadcasting: dims align from the right; a dim of 1 stretches; missing leading dims are 1.

std::vector<double> iota(std::int64_t n, double first) {
  std::vector<double> values(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = first + double(i);
  return values;
}

// Element `flat` of a tensor of `out` shape, read from a tensor of shape `in` broadcast to it.
std::size_t broadcast_source_index(const Shape& in, const Shape& out, std::int64_t flat) {
  std::int64_t index = 0;
  std::int64_t stride = 1;
  for (int axis = out.rank() - 1; axis >= 0; --axis) {
    std::int64_t coordinate = flat % out[axis];
    flat /= out[axis];
    int in_axis = axis - (out.rank() - in.rank());
    if (in_axis < 0) continue;
    if (in[in_axis] != 1) index += coordinate * stride;
    stride *= in[in_axis];
  }
  return static_cast<std::size_t>(index);
}

// "3x1", or "scalar" for rank 0: a shape as a test name may spell it.
std::string shape_test_name(const Shape& shape) {
  if (shape.rank() == 0) return "scalar";
  std::string name;
  for (std::int64_t dim : shape) name += (name.empty() ? "" : "x") + std::to_string(dim);
  return name;
}

struct BroadcastCase {
  Shape a, b, result;
};
void PrintTo(const BroadcastCase& c, std::ostream* os) {
  *os << c.a.to_string() << " with " << c.b.to_string() << " -> " << c.result.to_string();
}

const BroadcastCase kBroadcasts[] = {
    {{3, 1}, {4}, {3, 4}},
    {{}, {2, 3}, {2, 3}},
    {{2, 3}, {}, {2, 3}},
    {{}, {}, {}},
    {{1}, {5}, {5}},
    {{2, 3}, {2, 3}, {2, 3}},
    {{2, 3}, {3}, {2, 3}},
    {{2, 3}, {1, 3}, {2, 3}},
    {{2, 1}, {1, 3}, {2, 3}},
    {{5, 1, 4}, {3, 1}, {5, 3, 4}},
    {{8, 1, 6, 1}, {7, 1, 5}, {8, 7, 6, 5}},
    {{1, 1, 1}, {7}, {1, 1, 7}},
    {{4, 1, 1, 2}, {3, 1}, {4, 1, 3, 2}},
    {{0}, {1}, {0}},
    {{2, 0}, {2, 1}, {2, 0}},
    {{1, 0}, {3, 1}, {3, 0}},
};

class Broadcast : public ::testing::TestWithParam<BroadcastCase> {};

TEST_P(Broadcast, ResultShapeIsNumPysInEitherOrder) {
  const BroadcastCase& c = GetParam();
  Tensor a = lazy::from_data(iota(c.a.numel(), 1), c.a);
  Tensor b = lazy::from_data(iota(c.b.numel(), 100), c.b);
  EXPECT_EQ((a - b).shape(), c.result);
  EXPECT_EQ((b - a).shape(), c.result);
}

TEST_P(Broadcast, EachElementComesFromTheStretchedOperands) {
  const BroadcastCase& c = GetParam();
  std::vector<double> a_values = iota(c.a.numel(), 1);
  std::vector<double> b_values = iota(c.b.numel(), 100);
  Tensor difference = lazy::from_data(a_values, c.a) - lazy::from_data(b_values, c.b);
  std::vector<double> want(static_cast<std::size_t>(c.result.numel()));
  for (std::int64_t i = 0; i < c.result.numel(); ++i) {
    want[std::size_t(i)] = a_values[broadcast_source_index(c.a, c.result, i)] -
                           b_values[broadcast_source_index(c.b, c.result, i)];
  }
  EXPECT_EQ(difference.to_vector<double>(), want);
}

INSTANTIATE_TEST_SUITE_P(Table, Broadcast, ::testing::ValuesIn(kBroadcasts),
                         [](const ::testing::TestParamInfo<BroadcastCase>& info) {
                           return shape_test_name(info.param.a) + "_with_" +
                                  shape_test_name(info.param.b);
                         });

TEST(Broadcast, ThreeByOnePlusFourIsThreeByFour) {
  Tensor column = lazy::from_data(std::vector<double>{10, 20, 30}, Shape{3, 1});
  Tensor row = lazy::from_data(std::vector<double>{1, 2, 3, 4}, Shape{4});
  Tensor sum = column + row;
  ASSERT_EQ(sum.shape(), (Shape{3, 4}));
  EXPECT_EQ(sum.to_vector<double>(),
            (std::vector<double>{11, 12, 13, 14, 21, 22, 23, 24, 31, 32, 33, 34}));
}

TEST(Broadcast, WhereBroadcastsAllThreeOperands) {
  Tensor cond = lazy::from_data(std::vector<bool>{true, false}, Shape{2, 1, 1});
  Tensor a = lazy::from_data(std::vector<double>{1, 2, 3}, Shape{1, 3, 1});
  Tensor b = lazy::from_data(std::vector<double>{-1, -2}, Shape{2});
  Tensor y = lazy::where(cond, a, b);
  ASSERT_EQ(y.shape(), (Shape{2, 3, 2}));
  EXPECT_EQ(y.to_vector<double>(), (std::vector<double>{1, 1, 2, 2, 3, 3, -1, -2, -1, -2, -1, -2}));
}

TEST(Broadcast, ComparisonResultHasTheBroadcastShape) {
  Tensor column = lazy::from_data(std::vector<std::int64_t>{1, 2}, Shape{2, 1});
  Tensor row = lazy::from_data(std::vector<std::int64_t>{1, 2, 3}, Shape{3});
  Tensor less = column < row;
  ASSERT_EQ(less.shape(), (Shape{2, 3}));
  EXPECT_EQ(less.to_vector<bool>(), (std::vector<bool>{false, true, true, false, false, true}));
}

struct NonBroadcastCase {
  Shape a, b;
};
void PrintTo(const NonBroadcastCase& c, std::ostream* os) {
  *os << c.a.to_string() << " with " << c.b.to_string();
}

const NonBroadcastCase kNonBroadcasts[] = {
    {{3}, {4}},          {{2, 3}, {2}}, {{2, 1}, {8, 4, 3}}, {{2, 3}, {3, 2}},
    {{4, 3}, {2, 1, 2}}, {{0}, {2}},    {{5, 2}, {5, 3, 2}},
};

class NonBroadcast : public ::testing::TestWithParam<NonBroadcastCase> {};

TEST_P(NonBroadcast, ThrowsShapeErrorAtTheCallInEitherOrder) {
  const NonBroadcastCase& c = GetParam();
  Tensor a = lazy::zeros(c.a);
  Tensor b = lazy::ones(c.b);
  EXPECT_THROW(a + b, lazy::ShapeError);
  EXPECT_THROW(b + a, lazy::ShapeError);
  EXPECT_THROW(lazy::eq(a, b), lazy::ShapeError);
}

INSTANTIATE_TEST_SUITE_P(Table, NonBroadcast, ::testing::ValuesIn(kNonBroadcasts),
                         [](const ::testing::TestParamInfo<NonBroadcastCase>& info) {
                           return shape_test_name(info.param.a) + "_with_" +
                                  shape_test_name(info.param.b);
                         });

TEST(NonBroadcast, ShapeErrorNamesBothShapes) {
  Tensor a = lazy::zeros(Shape{2, 3});
  Tensor b = lazy::zeros(Shape{4});
  try {
    lazy::add(a, b);
    FAIL() << "add of [2, 3] and [4] did not throw";
  } catch (const lazy::ShapeError& e) {
    std::string message = e.what();
    EXPECT_NE(message.find("[2, 3]"), std::string::npos) << message;
    EXPECT_NE(message.find("[4]"), std::string::npos) << message;
  }
}

TEST(NonBroadcast, WhereWithAnIncompatibleConditionThrowsShapeError) {
  Tensor cond = lazy::from_data(std::vector<bool>{true, false, true}, Shape{3});
  Tensor x = lazy::zeros(Shape{2, 2});
  EXPECT_THROW(lazy::where(cond, x, x), lazy::ShapeError);
}

}  // namespace

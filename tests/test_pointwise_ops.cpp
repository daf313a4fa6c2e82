// Every pointwise op of lazy/ops.h, checked against values this file works out on its own: <cmath>
// in double from the same host inputs, rounded to the result's dtype. Inputs are pseudo-random
// with fixed seeds, and made exact in their dtype so that the tensor holds exactly them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <ostream>
#include <random>
#include <source_location>
#include <string>
#include <tuple>
#include <vector>

#include "host_test_support.h"
#include "lazy/lazy.h"
#include "runtime/executor.h"

namespace {

using namespace lazy_test;  // NOLINT: the shared test helpers

using lazy::DType;
using lazy::Shape;
using lazy::Tensor;
using ::testing::Combine;
using ::testing::ValuesIn;

constexpr std::int64_t kI32Min = std::numeric_limits<std::int32_t>::min();
constexpr std::int64_t kI32Max = std::numeric_limits<std::int32_t>::max();
constexpr std::int64_t kI64Min = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kI64Max = std::numeric_limits<std::int64_t>::max();

constexpr DType kIntegerDTypes[] = {lazy::i32, lazy::i64};

// Elements in each random input: enough to meet every branch of an op many times.
constexpr std::size_t kCount = 64;

// ---------------------------------------------------------------------------------------------
// Reference arithmetic, independent of the library.

// Two's complement wrapping to the integer dtype's width.
std::int64_t wrap_to(DType dtype, std::uint64_t value) {
  if (dtype == lazy::i32) return std::int32_t(std::uint32_t(value));
  return std::int64_t(value);
}

// The relative error a result may carry beyond the reference's rounding: a couple of units in
// the last place. Integers and bool are exact.
double tolerance_of(DType dtype) {
  switch (dtype) {
    case lazy::f32:
      return 1e-6;
    case lazy::f16:
      return 1e-3;
    case lazy::bf16:
      return 1e-2;
    default:
      return 0;
  }
}

// f(x) for each element, rounded to `dtype`.
template <class F>
std::vector<double> reference(const std::vector<double>& x, F f, DType dtype) {
  std::vector<double> out(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) out[i] = round_to(dtype, f(x[i]));
  return out;
}
template <class F>
std::vector<double> reference(const std::vector<double>& a, const std::vector<double>& b, F f,
                              DType dtype) {
  std::vector<double> out(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) out[i] = round_to(dtype, f(a[i], b[i]));
  return out;
}
template <class F>
std::vector<bool> reference_bools(const std::vector<double>& a, const std::vector<double>& b, F f) {
  std::vector<bool> out(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) out[i] = f(a[i], b[i]);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Inputs.

void expect_not_all_zeros(const auto& values) {
  if (std::all_of(values.begin(), values.end(), [](auto v) { return v == 0; })) {
    ADD_FAILURE() << "the random inputs came out all zeros; pick another seed";
  }
}

// kCount values drawn uniformly from [lo, hi] and made exact in `dtype`: rounded for floating
// dtypes, whole numbers for integer dtypes, 0 or 1 for bool.
std::vector<double> random_values(DType dtype, double lo, double hi, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<double> values(kCount);
  if (dtype == lazy::bool_) {
    std::bernoulli_distribution coin;
    for (double& v : values) v = coin(rng) ? 1.0 : 0.0;
  } else if (lazy::is_integer(dtype)) {
    std::uniform_int_distribution<std::int64_t> uniform(std::int64_t(std::ceil(lo)),
                                                        std::int64_t(std::floor(hi)));
    for (double& v : values) v = double(uniform(rng));
  } else {
    std::uniform_real_distribution<double> uniform(lo, hi);
    for (double& v : values) v = round_to(dtype, uniform(rng));
  }
  expect_not_all_zeros(values);
  return values;
}

// Values from {-1, -0.5, 0, 0.5, 1} (whole numbers from -2 to 2 for integers, 0 and 1 for bool):
// many ties and many zeros, exact in every dtype.
std::vector<double> tie_prone_values(DType dtype, unsigned seed) {
  std::vector<double> values =
      random_values(lazy::is_floating(dtype) ? lazy::i64 : dtype, -2, 2, seed);
  if (lazy::is_floating(dtype)) {
    for (double& v : values) v /= 2;
  }
  return values;
}

// kCount integers drawn uniformly from [lo, hi].
std::vector<std::int64_t> random_ints(std::int64_t lo, std::int64_t hi, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::int64_t> uniform(lo, hi);
  std::vector<std::int64_t> values(kCount);
  for (std::int64_t& v : values) v = uniform(rng);
  expect_not_all_zeros(values);
  return values;
}

// Any value of the integer dtype, so that arithmetic on them wraps.
std::vector<std::int64_t> random_full_range(DType dtype, unsigned seed) {
  return dtype == lazy::i32 ? random_ints(kI32Min, kI32Max, seed)
                            : random_ints(kI64Min, kI64Max, seed);
}

// A 1-d tensor of `dtype` holding the values.
Tensor tensor_of(const std::vector<double>& values, DType dtype) {
  Shape shape{std::int64_t(values.size())};
  if (lazy::is_floating(dtype)) return lazy::from_data(values, shape, dtype);
  if (dtype == lazy::bool_)
    return lazy::from_data(std::vector<bool>(values.begin(), values.end()), shape);
  std::vector<std::int64_t> ints;
  for (double v : values) ints.push_back(std::int64_t(v));
  return lazy::from_data(ints, shape, dtype);
}
Tensor tensor_of(const std::vector<std::int64_t>& values, DType dtype) {
  return lazy::from_data(values, Shape{std::int64_t(values.size())}, dtype);
}
Tensor tensor_of(const std::vector<bool>& values) {
  return lazy::from_data(values, Shape{std::int64_t(values.size())});
}

// ---------------------------------------------------------------------------------------------
// Checks.

// Each element within atol + rtol * |expected|; NaN must meet NaN and an infinity the same one.
// A failure names the line of the test that asked for the check.
void expect_near_each(const Tensor& result, const std::vector<double>& want, double rtol,
                      double atol = 0,
                      std::source_location where = std::source_location::current()) {
  ::testing::ScopedTrace trace(where.file_name(), int(where.line()), "checked here");
  std::vector<double> got = result.to_vector<double>();
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << "element " << i << ": got " << got[i] << ", want NaN";
    } else if (std::isinf(want[i]) || rtol + atol == 0) {
      EXPECT_EQ(got[i], want[i]) << "element " << i;
    } else {
      EXPECT_NEAR(got[i], want[i], atol + rtol * std::fabs(want[i])) << "element " << i;
    }
  }
}

void expect_values(const Tensor& result, const std::vector<std::int64_t>& want,
                   std::source_location where = std::source_location::current()) {
  ::testing::ScopedTrace trace(where.file_name(), int(where.line()), "checked here");
  EXPECT_EQ(result.to_vector<std::int64_t>(), want);
}
void expect_values(const Tensor& result, const std::vector<bool>& want,
                   std::source_location where = std::source_location::current()) {
  ::testing::ScopedTrace trace(where.file_name(), int(where.line()), "checked here");
  EXPECT_EQ(result.to_vector<bool>(), want);
}

// ---------------------------------------------------------------------------------------------
// Test names.

std::string dtype_test_name(const ::testing::TestParamInfo<DType>& info) {
  return std::string(lazy::dtype_name(info.param));
}

// "exp_bf16": the case's name, then the dtype's.
template <class Case>
std::string case_and_dtype_test_name(
    const ::testing::TestParamInfo<std::tuple<Case, DType>>& info) {
  return std::string(std::get<0>(info.param).name) + "_" +
         std::string(lazy::dtype_name(std::get<1>(info.param)));
}

template <class Case>
std::string case_test_name(const ::testing::TestParamInfo<Case>& info) {
  return info.param.name;
}

// =============================================================================================
// Floating functions: exp ... reciprocal.

// A unary op, its reference in double, and the interval its inputs are drawn from.
struct UnaryCase {
  const char* name;
  Tensor (*op)(const Tensor&);
  double (*reference)(double);
  double lo, hi;
};
void PrintTo(const UnaryCase& c, std::ostream* os) {
  *os << c.name;
}

// {"exp", lazy::exp, x -> std::exp(x), lo, hi}
// clang-format off
#define UNARY_CASE(op, formula, lo, hi) \
  {#op, [](const Tensor& x) { return lazy::op(x); }, [](double x) { return formula; }, lo, hi}
// clang-format on

const UnaryCase kFloatingFunctions[] = {
    UNARY_CASE(exp, std::exp(x), -4, 4),
    UNARY_CASE(exp2, std::exp2(x), -6, 6),
    UNARY_CASE(log, std::log(x), 0.05, 20),
    UNARY_CASE(log2, std::log2(x), 0.05, 20),
    UNARY_CASE(log1p, std::log1p(x), -0.9, 10),
    UNARY_CASE(expm1, std::expm1(x), -3, 3),
    UNARY_CASE(sqrt, std::sqrt(x), 0, 50),
    UNARY_CASE(rsqrt, 1 / std::sqrt(x), 0.01, 50),
    UNARY_CASE(sin, std::sin(x), -6, 6),
    UNARY_CASE(cos, std::cos(x), -6, 6),
    UNARY_CASE(tanh, std::tanh(x), -4, 4),
    UNARY_CASE(erf, std::erf(x), -3, 3),
    UNARY_CASE(sigmoid, 1 / (1 + std::exp(-x)), -8, 8),
    UNARY_CASE(reciprocal, 1 / x, -8, 8),
};

class FloatingFunction : public ::testing::TestWithParam<std::tuple<UnaryCase, DType>> {};

TEST_P(FloatingFunction, MatchesCmathRoundedToTheInputDtype) {
  auto [fn, dtype] = GetParam();
  std::vector<double> x = random_values(dtype, fn.lo, fn.hi, 101);
  Tensor y = fn.op(tensor_of(x, dtype));
  EXPECT_EQ(y.dtype(), dtype);
  expect_near_each(y, reference(x, fn.reference, dtype), tolerance_of(dtype));
}

INSTANTIATE_TEST_SUITE_P(EachFloatingDType, FloatingFunction,
                         Combine(ValuesIn(kFloatingFunctions), ValuesIn(kFloatingDTypes)),
                         case_and_dtype_test_name<UnaryCase>);

class FloatingFunctionOfNonFloating
    : public ::testing::TestWithParam<std::tuple<UnaryCase, DType>> {};

TEST_P(FloatingFunctionOfNonFloating, GivesF32) {
  auto [fn, dtype] = GetParam();
  std::vector<double> x = random_values(dtype, fn.lo, fn.hi, 102);
  Tensor y = fn.op(tensor_of(x, dtype));
  EXPECT_EQ(y.dtype(), lazy::f32);
  expect_near_each(y, reference(x, fn.reference, lazy::f32), tolerance_of(lazy::f32));
}

INSTANTIATE_TEST_SUITE_P(IntegersAndBool, FloatingFunctionOfNonFloating,
                         Combine(ValuesIn(kFloatingFunctions), ValuesIn(kNonFloatingDTypes)),
                         case_and_dtype_test_name<UnaryCase>);

TEST(FloatingFunction, ExpOfI32IsF32) {
  Tensor y = lazy::exp(tensor_of(std::vector<std::int64_t>{0, 1, -2}, lazy::i32));
  EXPECT_EQ(y.dtype(), lazy::f32);
  expect_near_each(y,
                   {1.0, round_to(lazy::f32, std::exp(1.0)), round_to(lazy::f32, std::exp(-2.0))},
                   tolerance_of(lazy::f32));
}

// Near zero, log(1 + x) and exp(x) - 1 lose every digit of x; log1p and expm1 must not.
TEST(FloatingFunction, Log1pAndExpm1KeepTheirPrecisionNearZero) {
  std::vector<double> x = {round_to(lazy::f32, 1e-12), round_to(lazy::f32, -3e-15),
                           round_to(lazy::f32, 1e-20)};
  Tensor t = tensor_of(x, lazy::f32);
  auto log1p = [](double v) { return std::log1p(v); };
  auto expm1 = [](double v) { return std::expm1(v); };
  expect_near_each(lazy::log1p(t), reference(x, log1p, lazy::f32), tolerance_of(lazy::f32));
  expect_near_each(lazy::expm1(t), reference(x, expm1, lazy::f32), tolerance_of(lazy::f32));
}

TEST(FloatingFunction, ReciprocalAndRsqrtOfZeroAreInfinite) {
  Tensor zero = tensor_of(std::vector<double>{0.0, -0.0}, lazy::f32);
  expect_near_each(lazy::reciprocal(zero), {kInf, -kInf}, 0);
  expect_near_each(lazy::rsqrt(zero), {kInf, -kInf}, 0);
}

TEST(FloatingFunction, LogOfNegativeIsNaNAndOfZeroIsMinusInfinity) {
  Tensor y = lazy::log(tensor_of(std::vector<double>{-1.0, 0.0}, lazy::f32));
  expect_near_each(y, {kNaN, -kInf}, 0);
}

// =============================================================================================
// neg, abs, sign, square, relu, floor, ceil, round: the result keeps the input's dtype.

const UnaryCase kDTypePreservingFunctions[] = {
    UNARY_CASE(neg, -x, -10, 10),
    UNARY_CASE(abs, std::fabs(x), -10, 10),
    UNARY_CASE(sign, double((0 < x) - (x < 0)), -10, 10),
    UNARY_CASE(square, x* x, -10, 10),
    UNARY_CASE(relu, x > 0 ? x : 0.0, -10, 10),
    UNARY_CASE(floor, std::floor(x), -10, 10),
    UNARY_CASE(ceil, std::ceil(x), -10, 10),
    UNARY_CASE(round, std::nearbyint(x), -10, 10),
};

class DTypePreservingFunction : public ::testing::TestWithParam<std::tuple<UnaryCase, DType>> {};

TEST_P(DTypePreservingFunction, MatchesCmathInTheInputDtype) {
  auto [fn, dtype] = GetParam();
  std::vector<double> x = random_values(dtype, fn.lo, fn.hi, 103);
  Tensor y = fn.op(tensor_of(x, dtype));
  EXPECT_EQ(y.dtype(), dtype);
  expect_near_each(y, reference(x, fn.reference, dtype), tolerance_of(dtype));
}

INSTANTIATE_TEST_SUITE_P(EachFloatingDType, DTypePreservingFunction,
                         Combine(ValuesIn(kDTypePreservingFunctions), ValuesIn(kFloatingDTypes)),
                         case_and_dtype_test_name<UnaryCase>);

// The same ops on integers, exact and wrapping; the reference works modulo 2^64.
struct IntegerUnaryCase {
  const char* name;
  Tensor (*op)(const Tensor&);
  std::uint64_t (*reference)(std::int64_t);
};
void PrintTo(const IntegerUnaryCase& c, std::ostream* os) {
  *os << c.name;
}

// {"neg", lazy::neg, x -> 0 - x modulo 2^64}
// clang-format off
#define INTEGER_UNARY_CASE(op, formula)              \
  {#op, [](const Tensor& x) { return lazy::op(x); }, \
   [](std::int64_t x) -> std::uint64_t { return formula; }}
// clang-format on

const IntegerUnaryCase kIntegerUnaryCases[] = {
    INTEGER_UNARY_CASE(neg, 0 - std::uint64_t(x)),
    INTEGER_UNARY_CASE(abs, x < 0 ? 0 - std::uint64_t(x) : std::uint64_t(x)),
    INTEGER_UNARY_CASE(sign, std::uint64_t((0 < x) - (x < 0))),
    INTEGER_UNARY_CASE(square, std::uint64_t(x) * std::uint64_t(x)),
    INTEGER_UNARY_CASE(relu, std::uint64_t(std::max<std::int64_t>(x, 0))),
    INTEGER_UNARY_CASE(floor, std::uint64_t(x)),
    INTEGER_UNARY_CASE(ceil, std::uint64_t(x)),
    INTEGER_UNARY_CASE(round, std::uint64_t(x)),
};

class IntegerUnary : public ::testing::TestWithParam<std::tuple<IntegerUnaryCase, DType>> {};

TEST_P(IntegerUnary, IsExactAndWrapsInTheInputDtype) {
  auto [fn, dtype] = GetParam();
  std::vector<std::int64_t> x = random_full_range(dtype, 104);
  x.push_back(dtype == lazy::i32 ? kI32Min : kI64Min);  // the value whose negation wraps
  Tensor y = fn.op(tensor_of(x, dtype));
  EXPECT_EQ(y.dtype(), dtype);
  std::vector<std::int64_t> want;
  for (std::int64_t v : x) want.push_back(wrap_to(dtype, fn.reference(v)));
  expect_values(y, want);
}

INSTANTIATE_TEST_SUITE_P(EachIntegerDType, IntegerUnary,
                         Combine(ValuesIn(kIntegerUnaryCases), ValuesIn(kIntegerDTypes)),
                         case_and_dtype_test_name<IntegerUnaryCase>);

TEST(Neg, OfI32MinWrapsToItself) {
  expect_values(lazy::neg(tensor_of(std::vector<std::int64_t>{kI32Min, kI32Max}, lazy::i32)),
                std::vector<std::int64_t>{kI32Min, -kI32Max});
}

TEST(Abs, OfI32MinWrapsToItself) {
  expect_values(lazy::abs(tensor_of(std::vector<std::int64_t>{kI32Min, -7}, lazy::i32)),
                std::vector<std::int64_t>{kI32Min, 7});
}

TEST(Square, OfI32WrapsAround) {
  // 46341^2 = 2147488281 = 2^31 + 4633, which wraps to -2^31 + 4633.
  expect_values(lazy::square(tensor_of(std::vector<std::int64_t>{46341, 65536}, lazy::i32)),
                std::vector<std::int64_t>{kI32Min + 4633, 0});
}

TEST(Sign, OfBoolIsTheBoolItself) {
  std::vector<bool> x = {true, false, true, true, false};
  Tensor y = lazy::sign(tensor_of(x));
  EXPECT_EQ(y.dtype(), lazy::bool_);
  expect_values(y, x);
}

TEST(Sign, OfSignedZeroIsZero) {
  expect_near_each(lazy::sign(tensor_of(std::vector<double>{-0.0, 0.0, -3.5, 2.0}, lazy::f32)),
                   {0.0, 0.0, -1.0, 1.0}, 0);
}

TEST(Square, OfBoolIsI64) {
  Tensor y = lazy::square(tensor_of(std::vector<bool>{true, false, true}));
  EXPECT_EQ(y.dtype(), lazy::i64);
  expect_values(y, std::vector<std::int64_t>{1, 0, 1});
}

TEST(Relu, PropagatesNaN) {
  expect_near_each(lazy::relu(tensor_of(std::vector<double>{kNaN, -1.0, 2.0}, lazy::f32)),
                   {kNaN, 0.0, 2.0}, 0);
}

class Round : public ::testing::TestWithParam<DType> {};

TEST_P(Round, RoundsHalfToEven) {
  DType dtype = GetParam();
  Tensor x =
      tensor_of(std::vector<double>{-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5, 4.5, 2.4, -2.6}, dtype);
  expect_near_each(lazy::round(x), {-2, -2, -0.0, 0, 2, 2, 4, 4, 2, -3}, 0);
}

INSTANTIATE_TEST_SUITE_P(EachFloatingDType, Round, ValuesIn(kFloatingDTypes), dtype_test_name);

class Rounding : public ::testing::TestWithParam<DType> {};

TEST_P(Rounding, OfIntegersGivesTheTensorBack) {
  DType dtype = GetParam();
  std::vector<std::int64_t> x = random_ints(-1000, 1000, 105);
  Tensor t = tensor_of(x, dtype);
  for (Tensor y : {lazy::floor(t), lazy::ceil(t), lazy::round(t)}) {
    EXPECT_EQ(y.dtype(), dtype);
    expect_values(y, x);
  }
}

INSTANTIATE_TEST_SUITE_P(EachIntegerDType, Rounding, ValuesIn(kIntegerDTypes), dtype_test_name);

// The ops that have no meaning on bool refuse it at the call.
struct OpCase {
  const char* name;
  Tensor (*op)(const Tensor&);
};
void PrintTo(const OpCase& c, std::ostream* os) {
  *os << c.name;
}

// clang-format off
#define OP_CASE(op) {#op, [](const Tensor& x) { return lazy::op(x); }}
// clang-format on

const OpCase kBoolRefusingOps[] = {
    OP_CASE(neg),
    OP_CASE(abs),
    OP_CASE(relu),
    OP_CASE(floor),
    OP_CASE(ceil),
    OP_CASE(round),
    {"unary_minus", [](const Tensor& x) { return -x; }},
};

class RefusesBool : public ::testing::TestWithParam<OpCase> {};

TEST_P(RefusesBool, WithDTypeError) {
  Tensor x = tensor_of(std::vector<bool>{true, false});
  EXPECT_THROW(GetParam().op(x), lazy::DTypeError);
}

INSTANTIATE_TEST_SUITE_P(Ops, RefusesBool, ValuesIn(kBoolRefusingOps), case_test_name<OpCase>);

// =============================================================================================
// Binary arithmetic: add sub mul div pow maximum minimum.

struct BinaryCase {
  const char* name;
  Tensor (*op)(const Tensor&, const Tensor&);
  double (*reference)(double, double);
  double lo_a, hi_a, lo_b, hi_b;
};
void PrintTo(const BinaryCase& c, std::ostream* os) {
  *os << c.name;
}

// {"add", lazy::add, (a, b) -> a + b, interval of a, interval of b}
// clang-format off
#define BINARY_CASE(op, formula, lo_a, hi_a, lo_b, hi_b)                 \
  {#op, [](const Tensor& a, const Tensor& b) { return lazy::op(a, b); }, \
   [](double a, double b) { return formula; }, lo_a, hi_a, lo_b, hi_b}
// clang-format on

const BinaryCase kFloatingArithmetic[] = {
    BINARY_CASE(add, a + b, -100, 100, -100, 100),
    BINARY_CASE(sub, a - b, -100, 100, -100, 100),
    BINARY_CASE(mul, (a * b), -20, 20, -20, 20),
    BINARY_CASE(div, a / b, -20, 20, -20, 20),
    BINARY_CASE(pow, std::pow(a, b), 0.1, 4, -3, 3),
    BINARY_CASE(maximum, std::max(a, b), -10, 10, -10, 10),
    BINARY_CASE(minimum, std::min(a, b), -10, 10, -10, 10),
};

class FloatingArithmetic : public ::testing::TestWithParam<std::tuple<BinaryCase, DType>> {};

TEST_P(FloatingArithmetic, MatchesDoubleRoundedToTheDtype) {
  auto [fn, dtype] = GetParam();
  std::vector<double> a = random_values(dtype, fn.lo_a, fn.hi_a, 201);
  std::vector<double> b = random_values(dtype, fn.lo_b, fn.hi_b, 202);
  Tensor y = fn.op(tensor_of(a, dtype), tensor_of(b, dtype));
  EXPECT_EQ(y.dtype(), dtype);
  expect_near_each(y, reference(a, b, fn.reference, dtype), tolerance_of(dtype));
}

INSTANTIATE_TEST_SUITE_P(EachFloatingDType, FloatingArithmetic,
                         Combine(ValuesIn(kFloatingArithmetic), ValuesIn(kFloatingDTypes)),
                         case_and_dtype_test_name<BinaryCase>);

// Integer arithmetic, exact and wrapping; the reference works modulo 2^64.
struct IntegerBinaryCase {
  const char* name;
  Tensor (*op)(const Tensor&, const Tensor&);
  std::uint64_t (*reference)(std::int64_t, std::int64_t);
  bool full_range;  // operands anywhere in the dtype; else small bases and exponents (pow)
};
void PrintTo(const IntegerBinaryCase& c, std::ostream* os) {
  *os << c.name;
}

std::uint64_t power_by_repeated_multiplication(std::int64_t base, std::int64_t exponent) {
  std::uint64_t result = 1;
  for (std::int64_t i = 0; i < exponent; ++i) result *= std::uint64_t(base);
  return result;
}

// {"add", lazy::add, (a, b) -> a + b modulo 2^64, full_range}
// clang-format off
#define INTEGER_BINARY_CASE(op, formula, full_range)                     \
  {#op, [](const Tensor& a, const Tensor& b) { return lazy::op(a, b); }, \
   [](std::int64_t a, std::int64_t b) -> std::uint64_t { return formula; }, full_range}
// clang-format on

const IntegerBinaryCase kIntegerArithmetic[] = {
    INTEGER_BINARY_CASE(add, std::uint64_t(a) + std::uint64_t(b), true),
    INTEGER_BINARY_CASE(sub, std::uint64_t(a) - std::uint64_t(b), true),
    INTEGER_BINARY_CASE(mul, std::uint64_t(a) * std::uint64_t(b), true),
    INTEGER_BINARY_CASE(maximum, std::uint64_t(std::max(a, b)), true),
    INTEGER_BINARY_CASE(minimum, std::uint64_t(std::min(a, b)), true),
    INTEGER_BINARY_CASE(pow, power_by_repeated_multiplication(a, b), false),
};

class IntegerArithmetic : public ::testing::TestWithParam<std::tuple<IntegerBinaryCase, DType>> {};

TEST_P(IntegerArithmetic, IsExactAndWrapsInTheDtype) {
  auto [fn, dtype] = GetParam();
  std::vector<std::int64_t> a =
      fn.full_range ? random_full_range(dtype, 203) : random_ints(-6, 6, 203);
  std::vector<std::int64_t> b =
      fn.full_range ? random_full_range(dtype, 204) : random_ints(0, 15, 204);
  Tensor y = fn.op(tensor_of(a, dtype), tensor_of(b, dtype));
  EXPECT_EQ(y.dtype(), dtype);
  std::vector<std::int64_t> want;
  for (std::size_t i = 0; i < a.size(); ++i)
    want.push_back(wrap_to(dtype, fn.reference(a[i], b[i])));
  expect_values(y, want);
}

INSTANTIATE_TEST_SUITE_P(EachIntegerDType, IntegerArithmetic,
                         Combine(ValuesIn(kIntegerArithmetic), ValuesIn(kIntegerDTypes)),
                         case_and_dtype_test_name<IntegerBinaryCase>);

TEST(IntegerArithmetic, I32AddWrapsAround) {
  Tensor a = tensor_of(std::vector<std::int64_t>{kI32Max, kI32Min}, lazy::i32);
  Tensor b = tensor_of(std::vector<std::int64_t>{1, -1}, lazy::i32);
  expect_values(lazy::add(a, b), std::vector<std::int64_t>{kI32Min, kI32Max});
}

TEST(IntegerArithmetic, I32SubWrapsAround) {
  Tensor a = tensor_of(std::vector<std::int64_t>{kI32Min, kI32Max}, lazy::i32);
  Tensor b = tensor_of(std::vector<std::int64_t>{1, -1}, lazy::i32);
  expect_values(lazy::sub(a, b), std::vector<std::int64_t>{kI32Max, kI32Min});
}

TEST(IntegerArithmetic, I32MulWrapsAround) {
  Tensor a = tensor_of(std::vector<std::int64_t>{65536, 46341, -65536}, lazy::i32);
  expect_values(lazy::mul(a, a), std::vector<std::int64_t>{0, kI32Min + 4633, 0});
}

TEST(IntegerArithmetic, I32PowWrapsAround) {
  // 3^21 = 10460353203 = 2 * 2^32 + 1870418611.
  Tensor a = tensor_of(std::vector<std::int64_t>{3, 2, 2}, lazy::i32);
  Tensor b = tensor_of(std::vector<std::int64_t>{21, 31, 32}, lazy::i32);
  expect_values(lazy::pow(a, b), std::vector<std::int64_t>{1870418611, kI32Min, 0});
}

TEST(IntegerArithmetic, I32PlusNumberStaysI32AndWraps) {
  Tensor y = tensor_of(std::vector<std::int64_t>{kI32Max, 5}, lazy::i32) + 1;
  EXPECT_EQ(y.dtype(), lazy::i32);
  expect_values(y, std::vector<std::int64_t>{kI32Min, 6});
}

TEST(IntegerArithmetic, I64AddWrapsAround) {
  Tensor a = tensor_of(std::vector<std::int64_t>{kI64Max, kI64Min}, lazy::i64);
  Tensor b = tensor_of(std::vector<std::int64_t>{1, -1}, lazy::i64);
  expect_values(lazy::add(a, b), std::vector<std::int64_t>{kI64Min, kI64Max});
}

TEST(IntegerArithmetic, NumberThatDoesNotFitI32IsRefused) {
  Tensor x = tensor_of(std::vector<std::int64_t>{1}, lazy::i32);
  EXPECT_THROW(x + (std::int64_t{1} << 40), lazy::ValueError);
}

// As PyTorch's integer pow: bases 1 and -1 keep a magnitude of one, every other base gives 0
// (the reciprocal truncated toward zero).
TEST(IntegerArithmetic, PowWithNegativeExponentTruncatesTheReciprocal) {
  Tensor base = tensor_of(std::vector<std::int64_t>{1, -1, -1, 2, -3, 7}, lazy::i64);
  Tensor exponent = tensor_of(std::vector<std::int64_t>{-3, -3, -2, -1, -2, -5}, lazy::i64);
  expect_values(lazy::pow(base, exponent), std::vector<std::int64_t>{1, -1, 1, 0, 0, 0});
}

TEST(IntegerArithmetic, PowOfZeroToTheZeroIsOne) {
  Tensor x = tensor_of(std::vector<std::int64_t>{0, 5, -3}, lazy::i64);
  expect_values(lazy::pow(x, 0), std::vector<std::int64_t>{1, 1, 1});
}

// Bool arithmetic keeps bool: + and maximum are "or", * and minimum are "and".
struct BoolBinaryCase {
  const char* name;
  Tensor (*op)(const Tensor&, const Tensor&);
  bool (*reference)(bool, bool);
};
void PrintTo(const BoolBinaryCase& c, std::ostream* os) {
  *os << c.name;
}

// {"add", lazy::add, (a, b) -> a || b}
// clang-format off
#define BOOL_BINARY_CASE(op, formula)                                    \
  {#op, [](const Tensor& a, const Tensor& b) { return lazy::op(a, b); }, \
   [](bool a, bool b) { return formula; }}
// clang-format on

const BoolBinaryCase kBoolArithmetic[] = {
    BOOL_BINARY_CASE(add, (a || b)),
    BOOL_BINARY_CASE(mul, (a && b)),
    BOOL_BINARY_CASE(maximum, (a || b)),
    BOOL_BINARY_CASE(minimum, (a && b)),
};

class BoolArithmetic : public ::testing::TestWithParam<BoolBinaryCase> {};

TEST_P(BoolArithmetic, StaysBool) {
  const BoolBinaryCase& fn = GetParam();
  std::vector<bool> a = {false, false, true, true};
  std::vector<bool> b = {false, true, false, true};
  Tensor y = fn.op(tensor_of(a), tensor_of(b));
  EXPECT_EQ(y.dtype(), lazy::bool_);
  std::vector<bool> want;
  for (std::size_t i = 0; i < a.size(); ++i) want.push_back(fn.reference(a[i], b[i]));
  expect_values(y, want);
}

INSTANTIATE_TEST_SUITE_P(Ops, BoolArithmetic, ValuesIn(kBoolArithmetic),
                         case_test_name<BoolBinaryCase>);

TEST(BoolArithmetic, BoolTimesBoolIsBool) {
  Tensor y = tensor_of(std::vector<bool>{true, true, false}) *
             tensor_of(std::vector<bool>{true, false, false});
  EXPECT_EQ(y.dtype(), lazy::bool_);
  expect_values(y, std::vector<bool>{true, false, false});
}

TEST(BoolArithmetic, SubOfTwoBoolsIsRefused) {
  Tensor a = tensor_of(std::vector<bool>{true, false});
  EXPECT_THROW(lazy::sub(a, a), lazy::DTypeError);
  EXPECT_THROW(a - true, lazy::DTypeError);
}

TEST(BoolArithmetic, SubOfBoolAndIntegerGivesI64) {
  Tensor y = tensor_of(std::vector<bool>{true, false}) - 1;
  EXPECT_EQ(y.dtype(), lazy::i64);
  expect_values(y, std::vector<std::int64_t>{0, -1});
}

TEST(BoolArithmetic, PowOfTwoBoolsIsRefused) {
  Tensor a = tensor_of(std::vector<bool>{true, false});
  EXPECT_THROW(lazy::pow(a, a), lazy::DTypeError);
}

// div is true division.
class TrueDivision : public ::testing::TestWithParam<DType> {};

TEST_P(TrueDivision, OfIntegersGivesF32) {
  DType dtype = GetParam();
  std::vector<std::int64_t> a = random_ints(-1000, 1000, 205);
  std::vector<std::int64_t> b = random_ints(1, 50, 206);
  for (std::size_t i = 0; i < b.size(); i += 2) b[i] = -b[i];
  Tensor y = lazy::div(tensor_of(a, dtype), tensor_of(b, dtype));
  EXPECT_EQ(y.dtype(), lazy::f32);
  std::vector<double> want;
  for (std::size_t i = 0; i < a.size(); ++i)
    want.push_back(round_to(lazy::f32, double(a[i]) / double(b[i])));
  expect_near_each(y, want, tolerance_of(lazy::f32));
}

INSTANTIATE_TEST_SUITE_P(EachIntegerDType, TrueDivision, ValuesIn(kIntegerDTypes), dtype_test_name);

TEST(TrueDivision, SevenOverTwoIsThreePointFive) {
  Tensor y = tensor_of(std::vector<std::int64_t>{7, -7}, lazy::i32) / 2;
  EXPECT_EQ(y.dtype(), lazy::f32);
  expect_near_each(y, {3.5, -3.5}, 0);
}

TEST(TrueDivision, OfIntegersByZeroIsInfiniteOrNaN) {
  Tensor y = lazy::div(tensor_of(std::vector<std::int64_t>{1, -1, 0}, lazy::i64),
                       tensor_of(std::vector<std::int64_t>{0, 0, 0}, lazy::i64));
  expect_near_each(y, {kInf, -kInf, kNaN}, 0);
}

TEST(TrueDivision, OfBoolsGivesF32) {
  Tensor y = lazy::div(tensor_of(std::vector<bool>{true, false, true}),
                       tensor_of(std::vector<bool>{true, true, false}));
  EXPECT_EQ(y.dtype(), lazy::f32);
  expect_near_each(y, {1.0, 0.0, kInf}, 0);
}

// maximum and minimum propagate NaN from either side, as in PyTorch.
class NaNPropagation : public ::testing::TestWithParam<DType> {};

TEST_P(NaNPropagation, MaximumGivesNaNWhenEitherInputIsNaN) {
  DType dtype = GetParam();
  Tensor a = tensor_of(std::vector<double>{kNaN, 1.0, kNaN, -kInf, 2.0}, dtype);
  Tensor b = tensor_of(std::vector<double>{1.0, kNaN, kNaN, kNaN, 3.0}, dtype);
  expect_near_each(lazy::maximum(a, b), {kNaN, kNaN, kNaN, kNaN, 3.0}, 0);
}

TEST_P(NaNPropagation, MinimumGivesNaNWhenEitherInputIsNaN) {
  DType dtype = GetParam();
  Tensor a = tensor_of(std::vector<double>{kNaN, 1.0, kNaN, kInf, 2.0}, dtype);
  Tensor b = tensor_of(std::vector<double>{1.0, kNaN, kNaN, kNaN, 3.0}, dtype);
  expect_near_each(lazy::minimum(a, b), {kNaN, kNaN, kNaN, kNaN, 2.0}, 0);
}

INSTANTIATE_TEST_SUITE_P(EachFloatingDType, NaNPropagation, ValuesIn(kFloatingDTypes),
                         dtype_test_name);

TEST(Arithmetic, TwoNumbersAreRefused) {
  EXPECT_THROW(lazy::add(1, 2), lazy::ValueError);
  EXPECT_THROW(lazy::maximum(1.5, 2), lazy::ValueError);
}

TEST(Arithmetic, UndefinedTensorIsRefused) {
  Tensor undefined;
  EXPECT_THROW(lazy::add(undefined, 1), lazy::ValueError);
  EXPECT_THROW(lazy::exp(undefined), lazy::ValueError);
}

// =============================================================================================
// Comparisons: eq ne lt le gt ge give bool.

struct ComparisonCase {
  const char* name;
  Tensor (*op)(const Tensor&, const Tensor&);
  bool (*reference)(double, double);
};
void PrintTo(const ComparisonCase& c, std::ostream* os) {
  *os << c.name;
}

// {"eq", lazy::eq, (a, b) -> a == b}
// clang-format off
#define COMPARISON_CASE(op, formula)                                     \
  {#op, [](const Tensor& a, const Tensor& b) { return lazy::op(a, b); }, \
   [](double a, double b) { return formula; }}
// clang-format on

const ComparisonCase kComparisons[] = {
    COMPARISON_CASE(eq, a == b), COMPARISON_CASE(ne, a != b), COMPARISON_CASE(lt, a < b),
    COMPARISON_CASE(le, a <= b), COMPARISON_CASE(gt, a > b),  COMPARISON_CASE(ge, a >= b),
};

class Comparison : public ::testing::TestWithParam<std::tuple<ComparisonCase, DType>> {};

TEST_P(Comparison, GivesBoolElementwise) {
  auto [fn, dtype] = GetParam();
  std::vector<double> a = tie_prone_values(dtype, 301);
  std::vector<double> b = tie_prone_values(dtype, 302);
  Tensor y = fn.op(tensor_of(a, dtype), tensor_of(b, dtype));
  EXPECT_EQ(y.dtype(), lazy::bool_);
  expect_values(y, reference_bools(a, b, fn.reference));
}

INSTANTIATE_TEST_SUITE_P(EachDType, Comparison,
                         Combine(ValuesIn(kComparisons), ValuesIn(kAllDTypes)),
                         case_and_dtype_test_name<ComparisonCase>);

TEST(Comparison, WithNaNIsFalseExceptNotEqual) {
  Tensor nan = tensor_of(std::vector<double>{kNaN, kNaN}, lazy::f32);
  Tensor x = tensor_of(std::vector<double>{1.0, kNaN}, lazy::f32);
  expect_values(lazy::eq(nan, x), std::vector<bool>{false, false});
  expect_values(lazy::ne(nan, x), std::vector<bool>{true, true});
  expect_values(lazy::lt(nan, x), std::vector<bool>{false, false});
  expect_values(lazy::le(nan, x), std::vector<bool>{false, false});
  expect_values(lazy::gt(nan, x), std::vector<bool>{false, false});
  expect_values(lazy::ge(nan, x), std::vector<bool>{false, false});
}

TEST(Comparison, ConvertsBothSidesToThePromotedDtype) {
  // i32 with f16 compares in f16, where 2049 rounds to 2048 (ties to even).
  Tensor a = tensor_of(std::vector<std::int64_t>{2049, 2051}, lazy::i32);
  Tensor b = tensor_of(std::vector<double>{2048, 2050}, lazy::f16);
  expect_values(lazy::eq(a, b), std::vector<bool>{true, false});
}

TEST(Comparison, OfBoolWithIntegerNumberComparesAsIntegers) {
  Tensor x = tensor_of(std::vector<bool>{true, false});
  expect_values(x == 1, std::vector<bool>{true, false});
  expect_values(x == 2, std::vector<bool>{false, false});
  expect_values(x < 2, std::vector<bool>{true, true});
}

class ComparisonWithNumber : public ::testing::TestWithParam<DType> {};

// PyTorch converts the number to the tensors' dtype before comparing: torch.tensor(0.1,
// dtype=torch.half) == 0.1 is true.
TEST_P(ComparisonWithNumber, RoundsTheNumberToTheTensorDtypeFirst) {
  DType dtype = GetParam();
  Tensor x = tensor_of(std::vector<double>{round_to(dtype, 0.1), round_to(dtype, 1.2)}, dtype);
  expect_values(x == 0.1, std::vector<bool>{true, false});
  expect_values(lazy::ne(1.2, x), std::vector<bool>{true, false});
  expect_values(x < 0.1, std::vector<bool>{false, false});
  expect_values(x >= 1.2, std::vector<bool>{false, true});
}

INSTANTIATE_TEST_SUITE_P(EachFloatingDType, ComparisonWithNumber, ValuesIn(kFloatingDTypes),
                         dtype_test_name);

TEST(Comparison, ZeroDimTensorIsConvertedToThePromotedDtypeToo) {
  // A 0-d f32 tensor does not widen an f16 one: both sides compare as f16.
  Tensor x = tensor_of(std::vector<double>{round_to(lazy::f16, 0.1), 0.5}, lazy::f16);
  Tensor filled = lazy::full(Shape{}, 0.1);
  Tensor copied = lazy::from_data(std::vector<double>{0.1}, Shape{});
  expect_values(x == filled, std::vector<bool>{true, false});
  expect_values(x == copied, std::vector<bool>{true, false});
}

// =============================================================================================
// Logical ops: any dtype, non-zero (NaN included) is true, bool result.

std::vector<bool> truth_of(const std::vector<double>& x) {
  return std::vector<bool>(x.begin(), x.end());
}

class Logical : public ::testing::TestWithParam<DType> {};

TEST_P(Logical, AndIsTrueWhereBothAreNonZero) {
  DType dtype = GetParam();
  std::vector<double> a = tie_prone_values(dtype, 401);
  std::vector<double> b = tie_prone_values(dtype, 402);
  Tensor y = lazy::logical_and(tensor_of(a, dtype), tensor_of(b, dtype));
  EXPECT_EQ(y.dtype(), lazy::bool_);
  expect_values(y, reference_bools(a, b, [](double x, double z) { return x != 0 && z != 0; }));
}

TEST_P(Logical, OrIsTrueWhereEitherIsNonZero) {
  DType dtype = GetParam();
  std::vector<double> a = tie_prone_values(dtype, 403);
  std::vector<double> b = tie_prone_values(dtype, 404);
  Tensor y = lazy::logical_or(tensor_of(a, dtype), tensor_of(b, dtype));
  EXPECT_EQ(y.dtype(), lazy::bool_);
  expect_values(y, reference_bools(a, b, [](double x, double z) { return x != 0 || z != 0; }));
}

TEST_P(Logical, NotIsTrueWhereZero) {
  DType dtype = GetParam();
  std::vector<double> x = tie_prone_values(dtype, 405);
  Tensor y = lazy::logical_not(tensor_of(x, dtype));
  EXPECT_EQ(y.dtype(), lazy::bool_);
  std::vector<bool> want;
  for (double v : x) want.push_back(v == 0);
  expect_values(y, want);
}

INSTANTIATE_TEST_SUITE_P(EachDType, Logical, ValuesIn(kAllDTypes), dtype_test_name);

TEST(Logical, NaNIsTrue) {
  Tensor nan = tensor_of(std::vector<double>{kNaN}, lazy::f16);
  expect_values(lazy::logical_not(nan), std::vector<bool>{false});
  expect_values(lazy::logical_and(nan, nan), std::vector<bool>{true});
}

TEST(Logical, MixesDtypesAndNumbers) {
  std::vector<double> a = tie_prone_values(lazy::f16, 406);
  std::vector<double> b = tie_prone_values(lazy::i32, 407);
  expect_values(lazy::logical_or(tensor_of(a, lazy::f16), tensor_of(b, lazy::i32)),
                reference_bools(a, b, [](double x, double z) { return x != 0 || z != 0; }));
  expect_values(lazy::logical_and(tensor_of(a, lazy::f16), 0), std::vector<bool>(a.size(), false));
  expect_values(lazy::logical_or(0.0, tensor_of(b, lazy::i32)), truth_of(b));
}

// =============================================================================================
// Composites: gelu gelu_tanh silu softplus, on floating tensors only.

double gelu_reference(double x) {
  return 0.5 * x * (1 + std::erf(x / std::numbers::sqrt2));
}
double gelu_tanh_reference(double x) {
  double inner = std::sqrt(2 / std::numbers::pi) * (x + 0.044715 * x * x * x);
  return 0.5 * x * (1 + std::tanh(inner));
}
double silu_reference(double x) {
  return x / (1 + std::exp(-x));
}
double softplus_reference(double x) {
  return x > 20 ? x : std::log1p(std::exp(x));
}

const UnaryCase kComposites[] = {
    UNARY_CASE(gelu, gelu_reference(x), -5, 5),
    UNARY_CASE(gelu_tanh, gelu_tanh_reference(x), -5, 5),
    UNARY_CASE(silu, silu_reference(x), -8, 8),
    UNARY_CASE(softplus, softplus_reference(x), -10, 30),
};

// Composites round every step to f32 (as PyTorch's kernels do), so where a result is tiny beside
// the terms it was made of (gelu far below zero) its error is absolute, not relative.
constexpr double kCompositeAbsoluteTolerance = 1e-6;

class Composite : public ::testing::TestWithParam<std::tuple<UnaryCase, DType>> {};

TEST_P(Composite, MatchesItsFormulaInTheInputDtype) {
  auto [fn, dtype] = GetParam();
  std::vector<double> x = random_values(dtype, fn.lo, fn.hi, 501);
  Tensor y = fn.op(tensor_of(x, dtype));
  EXPECT_EQ(y.dtype(), dtype);
  expect_near_each(y, reference(x, fn.reference, dtype), tolerance_of(dtype),
                   kCompositeAbsoluteTolerance);
}

INSTANTIATE_TEST_SUITE_P(EachFloatingDType, Composite,
                         Combine(ValuesIn(kComposites), ValuesIn(kFloatingDTypes)),
                         case_and_dtype_test_name<UnaryCase>);

class CompositeOfNonFloating : public ::testing::TestWithParam<std::tuple<UnaryCase, DType>> {};

TEST_P(CompositeOfNonFloating, IsRefusedWithDTypeError) {
  auto [fn, dtype] = GetParam();
  Tensor x = tensor_of(std::vector<double>{1, 0, 1}, dtype);
  EXPECT_THROW(fn.op(x), lazy::DTypeError);
}

INSTANTIATE_TEST_SUITE_P(IntegersAndBool, CompositeOfNonFloating,
                         Combine(ValuesIn(kComposites), ValuesIn(kNonFloatingDTypes)),
                         case_and_dtype_test_name<UnaryCase>);

class Softplus : public ::testing::TestWithParam<DType> {};

TEST_P(Softplus, OfALargeInputIsTheInputNotInfinity) {
  DType dtype = GetParam();
  // exp(100) overflows f32, so only the linear branch above 20 gives these.
  expect_near_each(lazy::softplus(tensor_of(std::vector<double>{100, 1000}, dtype)), {100, 1000},
                   0);
}

INSTANTIATE_TEST_SUITE_P(EachFloatingDType, Softplus, ValuesIn(kFloatingDTypes), dtype_test_name);

// =============================================================================================
// clamp.

class Clamp : public ::testing::TestWithParam<DType> {};

TEST_P(Clamp, LimitsToNumberBounds) {
  DType dtype = GetParam();
  std::vector<double> x = random_values(dtype, -5, 5, 601);
  Tensor y = lazy::clamp(tensor_of(x, dtype), -1.5, 2);
  EXPECT_EQ(y.dtype(), dtype);
  expect_near_each(y,
                   reference(
                       x, [](double v) { return std::min(std::max(v, -1.5), 2.0); }, dtype),
                   0);
}

TEST_P(Clamp, LimitsToTensorBoundsElementwise) {
  DType dtype = GetParam();
  std::vector<double> x = random_values(dtype, -5, 5, 602);
  std::vector<double> lo = random_values(dtype, -3, 0, 603);
  std::vector<double> hi = random_values(dtype, 0, 3, 604);
  Tensor y = lazy::clamp(tensor_of(x, dtype), tensor_of(lo, dtype), tensor_of(hi, dtype));
  std::vector<double> want(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) want[i] = std::min(std::max(x[i], lo[i]), hi[i]);
  expect_near_each(y, want, 0);
}

TEST_P(Clamp, PropagatesNaN) {
  DType dtype = GetParam();
  expect_near_each(lazy::clamp(tensor_of(std::vector<double>{kNaN, 7}, dtype), 0, 1), {kNaN, 1}, 0);
}

INSTANTIATE_TEST_SUITE_P(EachFloatingDType, Clamp, ValuesIn(kFloatingDTypes), dtype_test_name);

class ClampOfIntegers : public ::testing::TestWithParam<DType> {};

TEST_P(ClampOfIntegers, WithIntegerBoundsIsExactInTheDtype) {
  DType dtype = GetParam();
  std::vector<std::int64_t> x = random_ints(-1000, 1000, 605);
  Tensor y = lazy::clamp(tensor_of(x, dtype), -100, 250);
  EXPECT_EQ(y.dtype(), dtype);
  std::vector<std::int64_t> want;
  for (std::int64_t v : x) want.push_back(std::clamp<std::int64_t>(v, -100, 250));
  expect_values(y, want);
}

TEST_P(ClampOfIntegers, WithFloatBoundsGivesF32) {
  DType dtype = GetParam();
  Tensor y = lazy::clamp(tensor_of(std::vector<std::int64_t>{-3, 1, 4}, dtype), 0.5, 2.5);
  EXPECT_EQ(y.dtype(), lazy::f32);
  expect_near_each(y, {0.5, 1, 2.5}, 0);
}

INSTANTIATE_TEST_SUITE_P(EachIntegerDType, ClampOfIntegers, ValuesIn(kIntegerDTypes),
                         dtype_test_name);

TEST(Clamp, WithLowAboveHighGivesHigh) {
  Tensor y = lazy::clamp(tensor_of(std::vector<double>{-4, 0, 4}, lazy::f32), 3, 1);
  expect_near_each(y, {1, 1, 1}, 0);
}

// =============================================================================================
// isnan, isinf.

class Classification : public ::testing::TestWithParam<DType> {};

TEST_P(Classification, IsNanIsTrueOnlyForNaN) {
  DType dtype = GetParam();
  Tensor y = lazy::isnan(tensor_of(std::vector<double>{0, -1.5, kNaN, kInf, -kInf, 3}, dtype));
  EXPECT_EQ(y.dtype(), lazy::bool_);
  expect_values(y, std::vector<bool>{false, false, true, false, false, false});
}

TEST_P(Classification, IsInfIsTrueForEitherInfinity) {
  DType dtype = GetParam();
  Tensor y = lazy::isinf(tensor_of(std::vector<double>{0, -1.5, kNaN, kInf, -kInf, 3}, dtype));
  EXPECT_EQ(y.dtype(), lazy::bool_);
  expect_values(y, std::vector<bool>{false, false, false, true, true, false});
}

INSTANTIATE_TEST_SUITE_P(EachFloatingDType, Classification, ValuesIn(kFloatingDTypes),
                         dtype_test_name);

class ClassificationOfNonFloating : public ::testing::TestWithParam<DType> {};

TEST_P(ClassificationOfNonFloating, IsNeverNaNOrInfinite) {
  DType dtype = GetParam();
  Tensor x = tensor_of(random_values(dtype, -1000, 1000, 701), dtype);
  Tensor nan = lazy::isnan(x);
  Tensor inf = lazy::isinf(x);
  EXPECT_EQ(nan.dtype(), lazy::bool_);
  EXPECT_EQ(inf.dtype(), lazy::bool_);
  expect_values(nan, std::vector<bool>(kCount, false));
  expect_values(inf, std::vector<bool>(kCount, false));
}

INSTANTIATE_TEST_SUITE_P(IntegersAndBool, ClassificationOfNonFloating, ValuesIn(kNonFloatingDTypes),
                         dtype_test_name);

// =============================================================================================
// where.

class Where : public ::testing::TestWithParam<DType> {};

TEST_P(Where, PicksFromAWhereTrueElseFromB) {
  DType dtype = GetParam();
  std::vector<double> cond = random_values(lazy::bool_, 0, 1, 801);
  std::vector<double> a = random_values(dtype, -10, 10, 802);
  std::vector<double> b = random_values(dtype, -10, 10, 803);
  Tensor y = lazy::where(tensor_of(cond, lazy::bool_), tensor_of(a, dtype), tensor_of(b, dtype));
  EXPECT_EQ(y.dtype(), dtype);
  std::vector<double> want(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) want[i] = cond[i] != 0 ? a[i] : b[i];
  expect_near_each(y, want, 0);
}

INSTANTIATE_TEST_SUITE_P(EachDType, Where, ValuesIn(kAllDTypes), dtype_test_name);

TEST(Where, TakesNumbersOnEitherSide) {
  Tensor cond = tensor_of(std::vector<bool>{true, false, true});
  Tensor x = tensor_of(std::vector<double>{1.5, 2.5, 3.5}, lazy::f16);
  Tensor left = lazy::where(cond, 0.25, x);
  Tensor right = lazy::where(cond, x, -1);
  EXPECT_EQ(left.dtype(), lazy::f16);
  EXPECT_EQ(right.dtype(), lazy::f16);
  expect_near_each(left, {0.25, 2.5, 0.25}, 0);
  expect_near_each(right, {1.5, -1, 3.5}, 0);
}

TEST(Where, OfTwoIntegerNumbersIsI64AndOfFloatNumbersF32) {
  Tensor cond = tensor_of(std::vector<bool>{true, false});
  Tensor ints = lazy::where(cond, 1, 0);
  Tensor floats = lazy::where(cond, 1.5, 0);
  EXPECT_EQ(ints.dtype(), lazy::i64);
  EXPECT_EQ(floats.dtype(), lazy::f32);
  expect_values(ints, std::vector<std::int64_t>{1, 0});
  expect_near_each(floats, {1.5, 0}, 0);
}

TEST(Where, PromotesItsTwoValueOperands) {
  Tensor cond = tensor_of(std::vector<bool>{true, false});
  Tensor y = lazy::where(cond, tensor_of(std::vector<std::int64_t>{7, 8}, lazy::i32),
                         tensor_of(std::vector<double>{0.5, 1.5}, lazy::f16));
  EXPECT_EQ(y.dtype(), lazy::f16);
  expect_near_each(y, {7, 1.5}, 0);
}

TEST(Where, BroadcastsTheConditionAgainstTheValues) {
  Tensor cond = lazy::from_data(std::vector<bool>{true, false, true}, Shape{3, 1});
  Tensor a = lazy::from_data(std::vector<double>{1, 2, 3, 4}, Shape{1, 4});
  Tensor y = lazy::where(cond, a, 0.0);
  ASSERT_EQ(y.shape(), (Shape{3, 4}));
  expect_near_each(y, {1, 2, 3, 4, 0, 0, 0, 0, 1, 2, 3, 4}, 0);
}

class WhereCondition : public ::testing::TestWithParam<DType> {};

TEST_P(WhereCondition, ThatIsNotBoolIsRefused) {
  DType dtype = GetParam();
  Tensor cond = tensor_of(std::vector<double>{1, 0}, dtype);
  Tensor x = tensor_of(std::vector<double>{1, 2}, lazy::f32);
  EXPECT_THROW(lazy::where(cond, x, x), lazy::DTypeError);
}

INSTANTIATE_TEST_SUITE_P(EachNonBoolDType, WhereCondition,
                         ::testing::Values(lazy::f32, lazy::f16, lazy::bf16, lazy::i32, lazy::i64),
                         dtype_test_name);

// =============================================================================================
// cast and .to().

class Cast : public ::testing::TestWithParam<std::tuple<DType, DType>> {};

// Floats to integers truncate toward zero, anything to bool is "non-zero", to a floating dtype
// rounds to nearest even.
TEST_P(Cast, ConvertsAsStaticCastWould) {
  auto [from, to] = GetParam();
  std::vector<double> x = random_values(from, -100, 100, 901);
  Tensor y = lazy::cast(tensor_of(x, from), to);
  EXPECT_EQ(y.dtype(), to);
  expect_near_each(y,
                   reference(
                       x, [](double v) { return v; }, to),
                   0);
}

INSTANTIATE_TEST_SUITE_P(EachPairOfDTypes, Cast,
                         Combine(ValuesIn(kAllDTypes), ValuesIn(kAllDTypes)),
                         [](const ::testing::TestParamInfo<std::tuple<DType, DType>>& info) {
                           return std::string(lazy::dtype_name(std::get<0>(info.param))) + "_to_" +
                                  std::string(lazy::dtype_name(std::get<1>(info.param)));
                         });

TEST(Cast, FloatToIntegerTruncatesTowardZero) {
  Tensor x = tensor_of(std::vector<double>{-2.75, -0.5, 0.5, 2.75, 3.0}, lazy::f32);
  expect_values(lazy::cast(x, lazy::i32), std::vector<std::int64_t>{-2, 0, 0, 2, 3});
  expect_values(lazy::cast(x, lazy::i64), std::vector<std::int64_t>{-2, 0, 0, 2, 3});
}

TEST(Cast, FloatToBoolIsNonZeroWithNaNTrue) {
  Tensor x = tensor_of(std::vector<double>{0.0, -0.0, 0.25, -3, kNaN, kInf}, lazy::f32);
  expect_values(lazy::cast(x, lazy::bool_),
                std::vector<bool>{false, false, true, true, true, true});
}

TEST(Cast, F32ToF16RoundsHalfToEven) {
  // f16 has 10 fraction bits: 1 + 2^-11 lies halfway between 1 and 1 + 2^-10.
  Tensor x = tensor_of(std::vector<double>{1 + 0x1p-11, 1 + 3 * 0x1p-11, 1 + 0x1p-11 + 0x1p-20},
                       lazy::f32);
  expect_near_each(lazy::cast(x, lazy::f16), {1, 1 + 0x1p-9, 1 + 0x1p-10}, 0);
}

TEST(Cast, F32ToBf16RoundsHalfToEven) {
  // bf16 has 7 fraction bits: 1 + 2^-8 lies halfway between 1 and 1 + 2^-7.
  Tensor x =
      tensor_of(std::vector<double>{1 + 0x1p-8, 1 + 3 * 0x1p-8, 1 + 0x1p-8 + 0x1p-20}, lazy::f32);
  expect_near_each(lazy::cast(x, lazy::bf16), {1, 1 + 0x1p-6, 1 + 0x1p-7}, 0);
}

TEST(Cast, ToF16OverflowsToInfinity) {
  Tensor x = tensor_of(std::vector<std::int64_t>{70000, -70000, 2049}, lazy::i32);
  expect_near_each(lazy::cast(x, lazy::f16), {kInf, -kInf, 2048}, 0);
}

TEST(Cast, I64ToI32Wraps) {
  Tensor x = tensor_of(
      std::vector<std::int64_t>{(std::int64_t{1} << 32) + 5, std::int64_t{1} << 31, -1}, lazy::i64);
  expect_values(lazy::cast(x, lazy::i32), std::vector<std::int64_t>{5, kI32Min, -1});
}

TEST(Cast, I64ToF32Rounds) {
  Tensor x = tensor_of(std::vector<std::int64_t>{(1 << 24) + 1, (1 << 24) + 3}, lazy::i64);
  expect_near_each(lazy::cast(x, lazy::f32), {1 << 24, (1 << 24) + 4}, 0);
}

TEST(Cast, ToTheSameDtypeKeepsTheValues) {
  std::vector<double> x = random_values(lazy::bf16, -10, 10, 902);
  Tensor y = lazy::cast(tensor_of(x, lazy::bf16), lazy::bf16);
  EXPECT_EQ(y.dtype(), lazy::bf16);
  expect_near_each(y, x, 0);
}

TEST(Cast, MethodToIsTheSameAsCast) {
  std::vector<double> x = random_values(lazy::f32, -100, 100, 903);
  Tensor t = tensor_of(x, lazy::f32);
  Tensor y = t.to(lazy::i32);
  EXPECT_EQ(y.dtype(), lazy::i32);
  expect_near_each(y,
                   reference(
                       x, [](double v) { return v; }, lazy::i32),
                   0);
  Tensor z = t.to(lazy::bf16);
  EXPECT_EQ(z.dtype(), lazy::bf16);
  expect_near_each(z,
                   reference(
                       x, [](double v) { return v; }, lazy::bf16),
                   0);
}

// =============================================================================================
// Chains: a sync computes many ops at once, yet each result is rounded (or wrapped) to its own
// dtype before the next op reads it, as if every op ran alone.

TEST(Chain, TheReferenceRoundsEachIntermediateToItsDtype) {
  // 2048 + 1 is not an f16: it rounds to 2048 (ties to even), so (a + 1) - a is 0 there. (Fused
  // GPU kernels keep f16 intermediates in f32, as torch.compile does: docs/semantics.md.)
  lazy::runtime::set_reference_execution(true);
  Tensor a = tensor_of(std::vector<double>{2048, 1}, lazy::f16);
  expect_near_each((a + 1) - a, {0, 1}, 0);
  lazy::runtime::set_reference_execution(false);
}

TEST(Chain, EachIntermediateWrapsToItsDtype) {
  Tensor x = tensor_of(std::vector<std::int64_t>{kI32Max, 0}, lazy::i32);
  expect_values((x + 1) < 0, std::vector<bool>{true, false});
}

// =============================================================================================
// Operators, with tensors and with numbers on either side.

class Operators : public ::testing::Test {
 protected:
  std::vector<double> a_values = random_values(lazy::f32, -10, 10, 1001);
  std::vector<double> b_values = random_values(lazy::f32, -10, 10, 1002);
  Tensor a = tensor_of(a_values, lazy::f32);
  Tensor b = tensor_of(b_values, lazy::f32);
  double tol = tolerance_of(lazy::f32);

  // A number's elementwise reference.
  template <class F>
  std::vector<double> with_number(const std::vector<double>& x, double n, F f) {
    return reference(
        x, [&](double v) { return f(v, n); }, lazy::f32);
  }
};

TEST_F(Operators, PlusAdds) {
  auto plus = [](double x, double y) { return x + y; };
  expect_near_each(a + b, reference(a_values, b_values, plus, lazy::f32), tol);
  expect_near_each(a + 2.5, with_number(a_values, 2.5, plus), tol);
  expect_near_each(2.5 + a, with_number(a_values, 2.5, plus), tol);
}

TEST_F(Operators, MinusSubtractsInOrder) {
  auto minus = [](double x, double y) { return x - y; };
  expect_near_each(a - b, reference(a_values, b_values, minus, lazy::f32), tol);
  expect_near_each(a - 3, with_number(a_values, 3, minus), tol);
  expect_near_each(3 - a, with_number(a_values, 3, [](double x, double n) { return n - x; }), tol);
}

TEST_F(Operators, TimesMultiplies) {
  auto times = [](double x, double y) { return x * y; };
  expect_near_each(a * b, reference(a_values, b_values, times, lazy::f32), tol);
  expect_near_each(a * 1.25, with_number(a_values, 1.25, times), tol);
  expect_near_each(1.25 * a, with_number(a_values, 1.25, times), tol);
}

TEST_F(Operators, SlashDividesInOrder) {
  auto divide = [](double x, double y) { return x / y; };
  expect_near_each(a / b, reference(a_values, b_values, divide, lazy::f32), tol);
  expect_near_each(a / 4, with_number(a_values, 4, divide), tol);
  expect_near_each(4 / a, with_number(a_values, 4, [](double x, double n) { return n / x; }), tol);
}

TEST_F(Operators, SlashOfIntegersIsTrueDivision) {
  Tensor ints = tensor_of(std::vector<std::int64_t>{1, 3, -5}, lazy::i32);
  Tensor quotient = ints / 2;
  Tensor inverse = 1 / ints;
  EXPECT_EQ(quotient.dtype(), lazy::f32);
  EXPECT_EQ(inverse.dtype(), lazy::f32);
  expect_near_each(quotient, {0.5, 1.5, -2.5}, 0);
  expect_near_each(inverse, {1, round_to(lazy::f32, 1.0 / 3), -0.2}, tol);
}

TEST_F(Operators, UnaryMinusNegates) {
  Tensor y = -a;
  EXPECT_EQ(y.dtype(), lazy::f32);
  expect_near_each(y,
                   reference(
                       a_values, [](double x) { return -x; }, lazy::f32),
                   0);
}

// Comparison operators on tie-prone inputs, with a number on the right and then on the left.
class ComparisonOperators : public ::testing::Test {
 protected:
  std::vector<double> a_values = tie_prone_values(lazy::f32, 1003);
  std::vector<double> b_values = tie_prone_values(lazy::f32, 1004);
  Tensor a = tensor_of(a_values, lazy::f32);
  Tensor b = tensor_of(b_values, lazy::f32);

  template <class F>
  void expect_operator(const Tensor& tensors, const Tensor& number_right, const Tensor& number_left,
                       F f) {
    constexpr double kNumber = 0.5;
    EXPECT_EQ(tensors.dtype(), lazy::bool_);
    expect_values(tensors, reference_bools(a_values, b_values, f));
    expect_values(number_right,
                  reference_bools(a_values, std::vector<double>(a_values.size(), kNumber), f));
    expect_values(number_left,
                  reference_bools(std::vector<double>(a_values.size(), kNumber), a_values, f));
  }
};

TEST_F(ComparisonOperators, EqualEqual) {
  expect_operator(a == b, a == 0.5, 0.5 == a, [](double x, double y) { return x == y; });
}

TEST_F(ComparisonOperators, NotEqual) {
  expect_operator(a != b, a != 0.5, 0.5 != a, [](double x, double y) { return x != y; });
}

TEST_F(ComparisonOperators, Less) {
  expect_operator(a < b, a < 0.5, 0.5 < a, [](double x, double y) { return x < y; });
}

TEST_F(ComparisonOperators, LessEqual) {
  expect_operator(a <= b, a <= 0.5, 0.5 <= a, [](double x, double y) { return x <= y; });
}

TEST_F(ComparisonOperators, Greater) {
  expect_operator(a > b, a > 0.5, 0.5 > a, [](double x, double y) { return x > y; });
}

TEST_F(ComparisonOperators, GreaterEqual) {
  expect_operator(a >= b, a >= 0.5, 0.5 >= a, [](double x, double y) { return x >= y; });
}

}  // namespace

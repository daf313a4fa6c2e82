// atan2, hypot, logaddexp, lerp and gelu_tanh (added through the op table's recipe,
// docs/architecture.md): values PyTorch gives, the dtype rules, and the edges (signed zeros,
// infinities, overflow, the ends of lerp). Computed by whatever backend runs (the GPU when there is
// one).
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <vector>

#include "host_test_support.h"
#include "ir/node.h"
#include "lazy/lazy.h"

namespace {

using lazy::DType;
using lazy::Tensor;
using lazy_test::kInf;
using lazy_test::kNaN;

// f32({...}): a 1-d f32 tensor of the values.
constexpr auto& f32 = lazy_test::f32_values;

TEST(Atan2, GivesTheAngleOfThePointInEveryQuadrantAndOnTheAxes) {
  Tensor y = f32({1, 1, -1, -1, 0, -0.0, 1, 0});
  Tensor x = f32({1, -1, -1, 1, -1, -1, 0, 0});
  const double pi = std::numbers::pi;
  std::vector<double> want = {pi / 4, 3 * pi / 4, -3 * pi / 4, -pi / 4, pi, -pi, pi / 2, 0};
  std::vector<double> got = lazy::atan2(y, x).to_vector<double>();
  for (std::size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-6) << i;
  EXPECT_TRUE(std::signbit(got[5]));  // -0 above the negative x axis is -pi, as atan2(-0., -1)
}

TEST(Atan2, OfIntegersIsF32AndANumberMayBeEitherOperand) {
  Tensor y = lazy::from_data(std::vector<std::int32_t>{3, -3}, {2});
  Tensor angle = lazy::atan2(y, 4);
  EXPECT_EQ(angle.dtype(), DType::f32);
  std::vector<double> got = angle.to_vector<double>();
  EXPECT_NEAR(got[0], std::atan2(3.0, 4.0), 1e-6);
  EXPECT_NEAR(got[1], std::atan2(-3.0, 4.0), 1e-6);
  EXPECT_NEAR(lazy::atan2(1, f32({0})).to_vector<double>()[0], std::numbers::pi / 2, 1e-6);
}

TEST(Hypot, IsExactOnPythagoreanTriplesAndDoesNotOverflow) {
  std::vector<double> got =
      lazy::hypot(f32({3, 5, 1e30, -8, kInf}), f32({4, 12, 1e30, 15, kNaN})).to_vector<double>();
  EXPECT_EQ(got[0], 5);
  EXPECT_EQ(got[1], 13);
  EXPECT_NEAR(got[2], std::sqrt(2.0) * 1e30, 1e24);  // (1e30)^2 would overflow f32
  EXPECT_EQ(got[3], 17);
  EXPECT_EQ(got[4], kInf);  // an infinity wins over NaN, as in C and PyTorch
}

TEST(Hypot, KeepsAHalfPrecisionDType) {
  Tensor h = lazy::hypot(f32({3}).to(DType::f16), 4);
  EXPECT_EQ(h.dtype(), DType::f16);
  EXPECT_EQ(h.to_vector<double>()[0], 5);
}

TEST(LogAddExp, IsLogOfTheSumOfExponentialsWithoutOverflow) {
  std::vector<double> got =
      lazy::logaddexp(f32({0, 1000, -1000, 2}), f32({0, 1000, -1000, -30})).to_vector<double>();
  EXPECT_NEAR(got[0], std::log(2.0), 1e-6);
  EXPECT_NEAR(got[1], 1000 + std::log(2.0), 1e-3);
  EXPECT_NEAR(got[2], -1000 + std::log(2.0), 1e-3);
  EXPECT_NEAR(got[3], 2 + std::log1p(std::exp(-32.0)), 1e-6);
}

TEST(LogAddExp, OfEqualInfinitiesIsThatInfinityAndNaNPropagates) {
  std::vector<double> got =
      lazy::logaddexp(f32({kInf, -kInf, kInf, kNaN}), f32({kInf, -kInf, -kInf, 0}))
          .to_vector<double>();
  EXPECT_EQ(got[0], kInf);
  EXPECT_EQ(got[1], -kInf);
  EXPECT_EQ(got[2], kInf);
  EXPECT_TRUE(std::isnan(got[3]));
}

TEST(LogAddExp, OfBoolIsF32) {
  Tensor t = lazy::from_data(std::vector<bool>{true, false}, {2});
  Tensor r = lazy::logaddexp(t, t);
  EXPECT_EQ(r.dtype(), DType::f32);
  EXPECT_NEAR(r.to_vector<double>()[1], std::log(2.0), 1e-6);
}

TEST(Lerp, IsExactAtBothEnds) {
  Tensor start = f32({1.1, -3.3, 1e20});
  Tensor end = f32({7.7, 2.2, -1});
  EXPECT_EQ(lazy::lerp(start, end, 0).to_vector<double>(), start.to_vector<double>());
  EXPECT_EQ(lazy::lerp(start, end, 1).to_vector<double>(), end.to_vector<double>());
}

TEST(Lerp, TakesATensorOfWeightsAndMatchesTheTwoSidedFormula) {
  Tensor start = f32({0, 10, -4, 1});
  Tensor end = f32({8, 20, 4, 1});
  Tensor weight = f32({0.25, 0.75, 0.5, 3});
  std::vector<double> got = lazy::lerp(start, end, weight).to_vector<double>();
  EXPECT_EQ(got, (std::vector<double>{2, 17.5, 0, 1}));
}

TEST(Lerp, BroadcastsAndKeepsTheFloatingDType) {
  Tensor start = lazy::zeros({2, 3}, DType::bf16);
  Tensor end = lazy::full({3}, 4.0, DType::bf16);
  Tensor mid = lazy::lerp(start, end, 0.5);
  EXPECT_EQ(mid.dtype(), DType::bf16);
  EXPECT_EQ(mid.shape(), (lazy::Shape{2, 3}));
  EXPECT_EQ(mid.to_vector<double>(), std::vector<double>(6, 2.0));
}

TEST(Lerp, OfIntegersIsRefusedAtTheCall) {
  Tensor ints = lazy::from_data(std::vector<std::int64_t>{1, 2}, {2});
  EXPECT_THROW(lazy::lerp(ints, ints, 0.5), lazy::DTypeError);
  EXPECT_THROW(lazy::lerp(f32({1, 2}), ints, 0.5), lazy::DTypeError);
  try {
    lazy::lerp(ints, ints, ints);
    ADD_FAILURE() << "lerp of i64 tensors was recorded";
  } catch (const lazy::DTypeError& e) {
    EXPECT_NE(std::string(e.what()).find("lazy::lerp: needs floating-point start and end, got i64"),
              std::string::npos)
        << e.what();
  }
}

TEST(GeluTanh, GivesPyTorchsValues) {
  // torch.nn.functional.gelu(x, approximate="tanh") in f32.
  std::vector<double> got = lazy::gelu_tanh(f32({1, -1, 2, -3, 0})).to_vector<double>();
  EXPECT_NEAR(got[0], 0.8411920070648193, 1e-6);
  EXPECT_NEAR(got[1], -0.15880800783634186, 1e-6);
  EXPECT_NEAR(got[2], 1.9545977115631104, 1e-6);
  EXPECT_NEAR(got[3], -0.0036373920738697052, 1e-8);
  EXPECT_EQ(got[4], 0);
}

TEST(GeluTanh, IsXOrZeroFarFromZeroWithoutNaN) {
  // The cube overflows f32 past 2e13; tanh is then exactly +-1.
  std::vector<double> got =
      lazy::gelu_tanh(f32({1e20, -1e20, 3e38, -3e38, 50, -50})).to_vector<double>();
  EXPECT_EQ(got[0], double(float(1e20)));
  EXPECT_EQ(got[1], 0);
  EXPECT_EQ(got[2], double(float(3e38)));
  EXPECT_EQ(got[3], 0);
  EXPECT_EQ(got[4], 50);
  EXPECT_EQ(got[5], 0);
}

TEST(GeluTanh, KeepsTheTinyValuesOfLargeNegativeInputs) {
  // 1 + tanh(u) cancels to 0 in double for u below about -19; the value is x / (1 + exp(-2u)).
  const std::vector<double> got =
      lazy::gelu_tanh(f32({-7.36474609375f, -5.0f})).to_vector<double>();
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double x = i == 0 ? -7.36474609375 : -5.0;
    const double u = 0.7978845608028654 * (x + 0.044715 * x * x * x);
    const double want = x / (1 + std::exp(-2 * u));
    EXPECT_NEAR(got[i], want, 1e-5 * -want) << x;  // kernels compute in f32
    EXPECT_LT(got[i], 0.0) << x;
  }
}

TEST(GeluTanh, OfInfinitiesAndNaNIsWhatPyTorchGives) {
  std::vector<double> got = lazy::gelu_tanh(f32({kInf, -kInf, kNaN})).to_vector<double>();
  EXPECT_EQ(got[0], kInf);
  EXPECT_TRUE(std::isnan(got[1]));  // 0.5 * -inf * (1 + tanh(-inf)) is -inf * 0
  EXPECT_TRUE(std::isnan(got[2]));
}

TEST(GeluTanh, KeepsAHalfPrecisionDTypeAndRoundsOnce) {
  for (DType dtype : {DType::f16, DType::bf16}) {
    Tensor y = lazy::gelu_tanh(f32({1.5}).to(dtype));
    EXPECT_EQ(y.dtype(), dtype);
    const double exact = 0.5 * 1.5 * (1 + std::tanh(0.7978845608028654 * (1.5 + 0.044715 * 3.375)));
    EXPECT_EQ(y.to_vector<double>()[0], lazy_test::round_to(dtype, exact));
  }
}

TEST(GeluTanh, IsOneNodeSoThatAMatrixProductsEpilogueCanTakeIt) {
  Tensor x = f32({1, 2});
  Tensor y = lazy::gelu_tanh(x);
  EXPECT_EQ(y.node()->op, lazy::ir::Op::GeluTanh);
  ASSERT_EQ(y.node()->inputs.size(), 1u);
  EXPECT_EQ(y.node()->inputs[0], x.node());
}

TEST(GeluTanh, OfIntegersIsRefusedAtTheCall) {
  Tensor ints = lazy::from_data(std::vector<std::int32_t>{1, 2}, {2});
  EXPECT_THROW(lazy::gelu_tanh(ints), lazy::DTypeError);
}

}  // namespace

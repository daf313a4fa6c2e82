// tan, asin, acos, atan, sinh, cosh, asinh, acosh, atanh and log10: values within a few f32 ulps
// of the double ones, the edges PyTorch gives (outside the domain, at its ends, signed zeros,
// infinities), the dtype rules, and gradients as PyTorch's formulas. Computed by whatever backend
// runs (the GPU when there is one).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "gradient_test_support.h"
#include "host_test_support.h"
#include "lazy/lazy.h"

namespace {

using lazy::DType;
using lazy::Tensor;
using lazy_test::kInf;
using lazy_test::kNaN;

constexpr auto& f32 = lazy_test::f32_values;

struct Function {
  std::string name;
  Tensor (*lazy_fn)(const Tensor&, std::source_location);
  double (*reference)(double);
  std::vector<double> inside;  // points of its domain
};

const std::vector<Function>& functions() {
  static const std::vector<Function> all = {
      {"tan",
       lazy::tan,
       [](double x) { return std::tan(x); },
       {-1.5, -0.7, 1e-30, 0.3, 1.2, 1.57, 40, -300.5, 9e4}},
      {"asin",
       lazy::asin,
       [](double x) { return std::asin(x); },
       {-1, -0.999, -0.5, 1e-20, 0.25, 0.9, 1}},
      {"acos",
       lazy::acos,
       [](double x) { return std::acos(x); },
       {-1, -0.999, -0.5, 0, 0.25, 0.9, 1}},
      {"atan",
       lazy::atan,
       [](double x) { return std::atan(x); },
       {-1e30, -3, -0.5, 1e-20, 0.25, 7, 1e10}},
      {"sinh",
       lazy::sinh,
       [](double x) { return std::sinh(x); },
       {-80, -3, -0.5, 1e-20, 0.25, 7, 88}},
      {"cosh", lazy::cosh, [](double x) { return std::cosh(x); }, {-80, -3, -0.5, 0, 0.25, 7, 88}},
      {"asinh",
       lazy::asinh,
       [](double x) { return std::asinh(x); },
       {-1e30, -3, -0.5, 1e-20, 0.25, 7, 1e10}},
      {"acosh", lazy::acosh, [](double x) { return std::acosh(x); }, {1, 1.0001, 1.5, 3, 70, 1e30}},
      {"atanh",
       lazy::atanh,
       [](double x) { return std::atanh(x); },
       {-0.999, -0.5, 1e-20, 0.25, 0.9}},
      {"log10",
       lazy::log10,
       [](double x) { return std::log10(x); },
       {1e-38, 1e-3, 0.5, 1, 10, 1000, 3e38}},
  };
  return all;
}

TEST(TrigOps, AreWithinAFewUlpsOfTheDoubleFunction) {
  for (const Function& f : functions()) {
    const std::vector<double> got = f.lazy_fn(f32(f.inside), {}).to_vector<double>();
    for (std::size_t i = 0; i < f.inside.size(); ++i) {
      const double want = f.reference(double(float(f.inside[i])));
      EXPECT_NEAR(got[i], want, 4 * std::abs(want) * 0x1p-23 + 1e-45)
          << f.name << "(" << f.inside[i] << ")";
    }
  }
}

TEST(TrigOps, GiveNaNOutsideTheirDomainsAndPropagateIt) {
  const std::vector<std::pair<Tensor (*)(const Tensor&, std::source_location), double>> outside = {
      {lazy::asin, 1.5}, {lazy::acos, -2},  {lazy::acosh, 0.5}, {lazy::atanh, 1.5},
      {lazy::log10, -1}, {lazy::tan, kInf}, {lazy::asin, kNaN}, {lazy::cosh, kNaN}};
  for (const auto& [fn, x] : outside) EXPECT_TRUE(std::isnan(fn(f32({x}), {}).item<double>())) << x;
}

TEST(TrigOps, GivePyTorchsValuesAtTheEdges) {
  EXPECT_EQ(lazy::atanh(f32({1, -1})).to_vector<double>(), (std::vector<double>{kInf, -kInf}));
  EXPECT_EQ(lazy::log10(f32({0, kInf})).to_vector<double>(), (std::vector<double>{-kInf, kInf}));
  EXPECT_EQ(lazy::acosh(f32({1})).item<double>(), 0);
  EXPECT_EQ(lazy::acos(f32({1})).item<double>(), 0);
  EXPECT_EQ(lazy::sinh(f32({-kInf, 100})).to_vector<double>(), (std::vector<double>{-kInf, kInf}));
  EXPECT_EQ(lazy::cosh(f32({-kInf})).item<double>(), kInf);
  EXPECT_NEAR(lazy::atan(f32({kInf})).item<double>(), std::acos(0.0), 1e-7);
  // Odd functions keep the sign of a zero.
  for (auto fn : {lazy::tan, lazy::asin, lazy::atan, lazy::sinh, lazy::asinh, lazy::atanh}) {
    const double zero = fn(f32({-0.0}), {}).item<double>();
    EXPECT_EQ(zero, 0);
    EXPECT_TRUE(std::signbit(zero));
  }
}

TEST(TrigOps, OfIntegersAreF32AndKeepAHalfPrecisionDType) {
  const Tensor ints = lazy::from_data(std::vector<std::int32_t>{0, 2}, {2});
  EXPECT_EQ(lazy::atan(ints).dtype(), DType::f32);
  EXPECT_NEAR(lazy::atan(ints).to_vector<double>()[1], std::atan(2.0), 1e-6);
  EXPECT_EQ(lazy::cosh(lazy::full({2}, true, DType::bool_)).dtype(), DType::f32);
  const Tensor h = lazy::tan(f32({0.5}).to(DType::f16));
  EXPECT_EQ(h.dtype(), DType::f16);
  EXPECT_EQ(h.item<double>(), double(lazy::full({1}, std::tan(0.5), DType::f16).item<double>()));
}

using UnaryFn = Tensor (*)(const Tensor&, std::source_location);

// d/dx of sum(fn(x)).
Tensor gradient_of(UnaryFn fn, const Tensor& x) {
  return lazy::grad([fn](std::span<const Tensor> v) { return lazy::sum(fn(v[0], {})); })({x})[0];
}

TEST(TrigOps, GradientsMatchCentralDifferences) {
  // Inside the domains, away from tan's poles and the ends of asin, acos and atanh.
  const lazy_test::Input small = lazy_test::input({2, 3}, 11, 0.3f);
  const lazy_test::Input any = lazy_test::input({2, 3}, 12);
  const lazy_test::Input positive = lazy_test::positive({2, 3}, 13);
  const lazy_test::Input above_one = lazy_test::input({2, 3}, 14, 0.5f, 3.0f);
  struct Case {
    const char* name;
    UnaryFn fn;
    const lazy_test::Input& in;
  };
  const Case cases[] = {{"tan", lazy::tan, small},     {"asin", lazy::asin, small},
                        {"acos", lazy::acos, small},   {"atan", lazy::atan, any},
                        {"sinh", lazy::sinh, any},     {"cosh", lazy::cosh, any},
                        {"asinh", lazy::asinh, any},   {"acosh", lazy::acosh, above_one},
                        {"atanh", lazy::atanh, small}, {"log10", lazy::log10, positive}};
  for (const Case& c : cases) {
    lazy_test::expect_gradients_match(
        [fn = c.fn](std::span<const Tensor> x) { return fn(x[0], {}); }, {c.in}, c.name);
  }
}

// PyTorch's formulas at the edges: asin' at 1 is inf, atanh' past 1 is 1 / (1 - x^2) < 0.
TEST(TrigOps, GradientsAtTheEdgesArePyTorchs) {
  EXPECT_NEAR(gradient_of(lazy::acosh, f32({1.5})).item<double>(), 1 / std::sqrt(1.25), 1e-6);
  EXPECT_EQ(gradient_of(lazy::asin, f32({1})).item<double>(), kInf);
  EXPECT_NEAR(gradient_of(lazy::atanh, f32({2})).item<double>(), -1.0 / 3, 1e-6);
}

}  // namespace

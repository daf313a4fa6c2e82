// sin and cos on the GPU (nvrtc_templates/lz_pointwise.cuh: a reduction and polynomials below
// 105615, CUDA's sinf and cosf out of line above) within 2 ulp of the exact result over the whole
// float range, with the special values PyTorch gives: sin(-0) is -0, inf and NaN give NaN.
#include <cmath>
#include <limits>
#include <vector>

#include "gpu_test_support.h"

namespace {

using lazy_test::GpuTest;

// |got - want| in units in the last place of the float nearest `want`.
double ulps(float got, double want) {
  const float nearest = float(want);
  if (nearest == 0.0f) return std::abs(double(got)) / std::numeric_limits<float>::denorm_min();
  int exponent = 0;
  std::frexp(nearest, &exponent);
  return std::abs(double(got) - want) / std::ldexp(1.0, exponent - 24);
}

// Arguments across the fast range, near multiples of π/2 (where the reduction cancels most),
// and past it.
std::vector<float> arguments() {
  std::vector<float> x;
  const double half_pi = 1.5707963267948966;
  for (int i = -200000; i <= 200000; ++i) x.push_back(float(i * 0.5271));
  for (int k = -60000; k <= 60000; k += 7) {
    const float near = float(k * half_pi);
    x.push_back(near);
    x.push_back(std::nextafter(near, 1e30f));
  }
  for (float big : {105614.0f, 105616.0f, 3.0e5f, 1.0e7f, 1.0e20f, -3.4e38f, 1e-30f, -1e-40f})
    x.push_back(big);
  return x;
}

void expect_within_2_ulp(bool cosine) {
  const std::vector<float> x = arguments();
  const lazy::Tensor input = lazy::from_data(x, {std::int64_t(x.size())});
  const std::vector<float> got = (cosine ? lazy::cos(input) : lazy::sin(input)).to_vector<float>();
  double worst = 0;
  std::size_t worst_at = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double want = cosine ? std::cos(double(x[i])) : std::sin(double(x[i]));
    const double error = ulps(got[i], want);
    if (error > worst) worst = error, worst_at = i;
  }
  EXPECT_LE(worst, 2.0) << (cosine ? "cos(" : "sin(") << x[worst_at] << ") = " << got[worst_at];
}

class TrigTest : public GpuTest {};

TEST_F(TrigTest, SinIsWithinTwoUlpEverywhere) {
  expect_within_2_ulp(false);
}

TEST_F(TrigTest, CosIsWithinTwoUlpEverywhere) {
  expect_within_2_ulp(true);
}

TEST_F(TrigTest, SpecialValuesAreThoseOfPyTorch) {
  const float inf = std::numeric_limits<float>::infinity();
  const lazy::Tensor x =
      lazy::from_data(std::vector<float>{-0.0f, 0.0f, inf, -inf, std::nanf("")}, {5});
  const std::vector<float> s = lazy::sin(x).to_vector<float>();
  const std::vector<float> c = lazy::cos(x).to_vector<float>();
  EXPECT_TRUE(s[0] == 0.0f && std::signbit(s[0])) << s[0];
  EXPECT_TRUE(s[1] == 0.0f && !std::signbit(s[1])) << s[1];
  EXPECT_EQ(c[0], 1.0f);
  EXPECT_EQ(c[1], 1.0f);
  for (int i = 2; i < 5; ++i) {
    EXPECT_TRUE(std::isnan(s[i])) << "sin of element " << i;
    EXPECT_TRUE(std::isnan(c[i])) << "cos of element " << i;
  }
}

}  // namespace

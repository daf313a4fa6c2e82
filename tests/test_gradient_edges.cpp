// Gradients at the edges, each against what PyTorch's autograd gives there: clamp at NaN and at
// bounds that meet, a quotient's gradient near f32's range, a stepped slice at the highest rank,
// second derivatives of products through zeros, a variance's gradient beside an infinity.
// Found in review; the reference evaluator computes them here, the GPU suite runs them there.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include <lazy/lazy.h>

namespace {

using lazy::Tensor;

std::vector<Tensor> grads_of_clamp_sum(const std::vector<float>& x, const std::vector<float>& lo,
                                       const std::vector<float>& hi) {
  const auto n = std::int64_t(x.size());
  return lazy::grad([](auto t) { return lazy::sum(lazy::clamp(t[0], t[1], t[2])); })(
      {lazy::from_data(x, {n}), lazy::from_data(lo, {n}), lazy::from_data(hi, {n})});
}

// PyTorch's clamp_backward_min_max: x takes it where lo <= x <= hi, lo where x < lo < hi, hi
// where x > hi or hi < lo. A NaN anywhere fails the first two tests, so only hi may take it.
TEST(GradientEdges, ClampSendsNothingThroughANan) {
  const std::vector<Tensor> g =
      grads_of_clamp_sum({NAN, 1, 1, NAN}, {-2, NAN, -2, 3}, {3, 3, NAN, -2});
  EXPECT_EQ(g[0].to_vector<float>(), (std::vector<float>{0, 0, 0, 0}));
  EXPECT_EQ(g[1].to_vector<float>(), (std::vector<float>{0, 0, 0, 0}));
  // The last: hi < lo, so hi takes it though x is NaN (and so is the result).
  EXPECT_EQ(g[2].to_vector<float>(), (std::vector<float>{0, 0, 0, 1}));
  const Tensor x = lazy::from_data(std::vector<float>{NAN, 1}, {2});
  EXPECT_EQ(lazy::grad([](auto t) { return lazy::sum(lazy::clamp(t[0], -2.0, 3.0)); })({x})[0]
                .to_vector<float>(),
            (std::vector<float>{0, 1}));
}

TEST(GradientEdges, ClampBelowBoundsThatMeetSendsNothing) {
  // x below lo == hi: none of the three tests holds. x above them: hi's. lo above hi: hi's.
  const std::vector<Tensor> g = grads_of_clamp_sum({-5, 5, 0}, {1, 1, 2}, {1, 1, -2});
  EXPECT_EQ(g[0].to_vector<float>(), (std::vector<float>{0, 0, 0}));
  EXPECT_EQ(g[1].to_vector<float>(), (std::vector<float>{0, 0, 0}));
  EXPECT_EQ(g[2].to_vector<float>(), (std::vector<float>{0, 1, 1}));
}

TEST(GradientEdges, ClampValuesAreMinOfMaxWithNanPropagated) {
  const Tensor x = lazy::from_data(std::vector<float>{NAN, 5, 5, 0, -3}, {5});
  const Tensor lo = lazy::from_data(std::vector<float>{0, NAN, 0, 2, -2}, {5});
  const Tensor hi = lazy::from_data(std::vector<float>{1, 1, NAN, -2, 3}, {5});
  const std::vector<float> v = lazy::clamp(x, lo, hi).to_vector<float>();
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(std::isnan(v[i])) << i;
  EXPECT_EQ(v[3], -2);
  EXPECT_EQ(v[4], -2);
}

// Found by torch_check: inside its bounds clamp returned x itself, so clamp(-0.0, 0, 1) was -0;
// PyTorch's min(max(x, lo), hi) gives +0. x still takes the gradient there.
TEST(GradientEdges, ClampOfAZeroInsideTakesTheBoundsSignAndPassesTheGradient) {
  const Tensor x = lazy::from_data(std::vector<float>{-0.0f, 0.0f, -0.0f, 0.5f}, {4});
  const Tensor lo = lazy::from_data(std::vector<float>{0.0f, -1.0f, -0.0f, 0.0f}, {4});
  for (const Tensor& bounded : {lazy::clamp(x, 0.0, 1.0), lazy::clamp(x, lo, 3.0)}) {
    const std::vector<float> v = bounded.to_vector<float>();
    EXPECT_FALSE(std::signbit(v[0])) << "clamp(-0, +0, ...) gave -0";
    EXPECT_FALSE(std::signbit(v[1]));
    EXPECT_EQ(v[3], 0.5f);
  }
  EXPECT_TRUE(std::signbit(lazy::clamp(x, lo, 3.0).to_vector<float>()[2]));
  // +0 under a bound of -0 is -0, the minimum's; f16 takes its bound's sign as f32 does.
  EXPECT_TRUE(
      std::signbit(lazy::clamp(lazy::zeros({1}), -1.0, lazy::full({1}, -0.0)).item<float>()));
  EXPECT_FALSE(std::signbit(lazy::clamp(x.to(lazy::DType::f16), 0.0, 1.0).to_vector<float>()[0]));
  const std::vector<Tensor> g = grads_of_clamp_sum({-0.0f, 0.0f, 5}, {0, -1, 0}, {1, 0, 1});
  EXPECT_EQ(g[0].to_vector<float>(), (std::vector<float>{1, 1, 0}));
  EXPECT_EQ(g[2].to_vector<float>(), (std::vector<float>{0, 0, 1}));
  EXPECT_EQ(lazy::grad([](auto t) { return lazy::sum(lazy::clamp(t[0], 0.0, 1.0)); })({x})[0]
                .to_vector<float>(),
            (std::vector<float>{1, 1, 1, 1}));
}

// d/dy x / y is -g * ((x / y) / y): 1e20 * (1e20 / 1e10) stays finite, g * (x / y) would not.
TEST(GradientEdges, AQuotientsGradientDividesBeforeTheCotangentMultiplies) {
  const Tensor w = lazy::from_data(std::vector<float>{1e20f}, {1});
  const Tensor x = lazy::from_data(std::vector<float>{1e30f}, {1});
  const Tensor y = lazy::from_data(std::vector<float>{1e10f}, {1});
  const Tensor g = lazy::grad([&](auto t) { return lazy::sum(w * (x / t[0])); })({y})[0];
  EXPECT_FLOAT_EQ(g.item<float>(), -1e30f);
}

// A stepped slice's gradient spaces the cotangent with zeros; at rank 8 that once took a ninth
// axis (a ShapeError naming unsqueeze).
TEST(GradientEdges, AStepSliceOfARankEightTensor) {
  const Tensor x =
      lazy::from_data(std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8}, {1, 1, 1, 1, 1, 1, 2, 4});
  for (int axis : {7, 6}) {
    const std::vector<Tensor> g =
        lazy::grad([axis](auto t) { return lazy::sum(t[0].slice(axis, {}, {}, 2) * 3.0f); })({x});
    const std::vector<float> want = axis == 7 ? std::vector<float>{3, 0, 3, 0, 3, 0, 3, 0}
                                              : std::vector<float>{3, 3, 3, 3, 0, 0, 0, 0};
    EXPECT_EQ(g[0].to_vector<float>(), want) << "axis " << axis;
    EXPECT_EQ(g[0].shape(), x.shape());
  }
}

// Many slices of one tensor that overlap (windows) or are strided add their cotangents at their
// positions in one index_add: found in review, placing each in a whole tensor and summing them
// took 7 s for the 8000 windows of 4 of a tensor. Each element gets one share per slice holding
// it, and a second derivative goes through as well.
TEST(GradientEdges, ManyOverlappingOrStridedSlicesOfOneTensor) {
  constexpr int kLength = 40, kWidth = 4, kStride = 5;
  std::vector<float> values(kLength);
  for (int j = 0; j < kLength; ++j) values[j] = 0.25f * float(j % 9) - 1.0f;
  const Tensor x = lazy::from_data(values, {kLength});
  const auto windows = [](std::span<const Tensor> t) {
    Tensor total = lazy::zeros({});
    for (int i = 0; i + kWidth <= kLength; ++i)
      total = total + lazy::sum(lazy::square(t[0].slice(0, i, i + kWidth)) * float(i + 1));
    for (int i = 0; i < kStride; ++i)
      total = total + lazy::sum(t[0].slice(0, i, {}, kStride) * float(10 * (i + 1)));
    return total;
  };
  const std::vector<float> got = lazy::grad(windows)({x})[0].to_vector<float>();
  ASSERT_EQ(got.size(), values.size());
  for (int j = 0; j < kLength; ++j) {
    double want = 10.0 * (j % kStride + 1);
    for (int i = std::max(0, j - kWidth + 1); i <= std::min(j, kLength - kWidth); ++i)
      want += 2.0 * values[j] * (i + 1);
    EXPECT_NEAR(got[j], want, 1e-4 * std::abs(want) + 1e-5) << "element " << j;
  }
  // d/dx_j of the gradient's element j: 2 * (the weights of the windows holding j).
  const auto gradient_at = [&](std::span<const Tensor> t) {
    return lazy::grad(windows)({t[0]})[0].slice(0, 7, 8).reshape({});
  };
  const std::vector<float> row = lazy::grad(gradient_at)({x})[0].to_vector<float>();
  for (int j = 0; j < kLength; ++j)
    EXPECT_FLOAT_EQ(row[j], j == 7 ? 2.0f * (5 + 6 + 7 + 8) : 0.0f) << "element " << j;
}

// Row j of the Hessian of f at x: the gradient of f's gradient's element j.
std::vector<float> hessian_row(lazy::ScalarFunction f, const std::vector<float>& x, int j) {
  const auto n = std::int64_t(x.size());
  const auto element_of_gradient = [&](std::span<const Tensor> in) {
    return lazy::grad(f)({in[0]})[0].slice(0, j, j + 1).reshape({});
  };
  return lazy::grad(element_of_gradient)({lazy::from_data(x, {n})})[0].to_vector<float>();
}

// Found in review: a zero in x made prod's Hessian NaN everywhere (a division by it in a branch
// the values never took) and lost the slopes in the zeros of prod's and cumprod's.
// Found in review: a product of one element (a 0-d prod, a cumprod along an axis of one) divided
// its product by x for the others' product, NaN at an infinity or NaN; PyTorch passes g. A 0-d
// var over axis 0 with a correction past its one element took the per-axis rule (-0, not NaN).
TEST(GradientEdges, ProductsOfOneElementPassTheirCotangent) {
  for (float x : {INFINITY, NAN, 0.0f, 2.5f}) {
    const Tensor scalar = lazy::full({}, x);
    EXPECT_EQ(lazy::grad([](auto t) { return lazy::prod(t[0]); })({scalar})[0].item<float>(), 1.0f)
        << x;
    EXPECT_EQ(lazy::grad([](auto t) { return lazy::prod(t[0], 0); })({scalar})[0].item<float>(),
              1.0f)
        << x;
  }
  const Tensor column = lazy::from_data(std::vector<float>{INFINITY, NAN, 2}, {3, 1});
  EXPECT_EQ(lazy::grad([](auto t) { return lazy::sum(lazy::cumprod(t[0], 1)); })({column})[0]
                .to_vector<float>(),
            (std::vector<float>{1, 1, 1}));
  EXPECT_EQ(lazy::grad([](auto t) { return lazy::sum(lazy::prod(t[0], 1)); })({column})[0]
                .to_vector<float>(),
            (std::vector<float>{1, 1, 1}));
  const Tensor g =
      lazy::grad([](auto t) { return lazy::var(t[0], 0, 2); })({lazy::full({}, 1.5f)})[0];
  EXPECT_TRUE(std::isnan(g.item<float>()));
}

// Found in review: beside a zero, prod's and cumprod's gradients multiplied 0 by the product of
// the others, which overflows for finite elements (f16 past 65504): NaN where PyTorch gives 0.
// Past a cumprod's zero, a forward 0 * inf made the elements before it NaN too.
TEST(GradientEdges, ProductsBesideAZeroStayZeroWhenTheOthersOverflow) {
  const auto grad_of = [](const lazy::ScalarFunction& f, const std::vector<float>& x,
                          lazy::DType dtype) {
    const Tensor in = lazy::from_data(x, {std::int64_t(x.size())}, dtype);
    return lazy::grad(f)({in})[0].to(lazy::DType::f32).to_vector<float>();
  };
  const lazy::ScalarFunction prod = [](auto t) { return lazy::prod(t[0]); };
  const lazy::ScalarFunction prod_axis = [](auto t) { return lazy::sum(lazy::prod(t[0], 0)); };
  const lazy::ScalarFunction cumprod = [](auto t) { return lazy::sum(lazy::cumprod(t[0], 0)); };
  using V = std::vector<float>;
  EXPECT_EQ(grad_of(prod, {0, 300, 300}, lazy::DType::f16), (V{INFINITY, 0, 0}));
  EXPECT_EQ(grad_of(prod, {0, 1e30f, 1e30f}, lazy::DType::f32), (V{INFINITY, 0, 0}));
  EXPECT_EQ(grad_of(prod_axis, {0, 1e30f, 1e30f}, lazy::DType::f32), (V{INFINITY, 0, 0}));
  EXPECT_EQ(grad_of(prod, {0, 0, 1e30f, 1e30f}, lazy::DType::f32), (V{0, 0, 0, 0}));
  EXPECT_EQ(grad_of(cumprod, {0, 1e30f, 1e30f}, lazy::DType::f32), (V{INFINITY, 0, 0}));
  EXPECT_EQ(grad_of(cumprod, {0, 0, 1e30f, 1e30f}, lazy::DType::f32), (V{1, 0, 0, 0}));
  EXPECT_EQ(grad_of(cumprod, {2, 0, INFINITY}, lazy::DType::f32), (V{1, INFINITY, 0}));
  EXPECT_EQ(grad_of(cumprod, {0, 300, 300}, lazy::DType::f16), (V{INFINITY, 0, 0}));
  // At a zero after an infinity: the product before it (-inf) times 1 - 0.5 - 1.25, as PyTorch
  // factors it; summed as terms of -inf and +inf it was NaN (torch_check seed 17959).
  EXPECT_EQ(grad_of(cumprod, {2, -INFINITY, 0, -0.5, 2.5}, lazy::DType::f32)[2], INFINITY);
  // A real infinity beside two zeros still makes their gradients NaN, as before.
  const V beside_inf = grad_of(prod, {0, 0, INFINITY}, lazy::DType::f32);
  EXPECT_TRUE(std::isnan(beside_inf[0]) && std::isnan(beside_inf[1]));
}

// Found in review: a bf16 weight broadcast over f32 rows took each row's share rounded to bf16
// before the rows were summed; PyTorch sums in f32 and rounds once. 1 + 2^-9 rounds to 1 in
// bf16, so the shares of [1 + 2^-9, -1, 1 + 2^-9, -1] summed to 0, not 2^-8. A norm's bf16
// weight took its gradient so.
TEST(GradientEdges, ABroadcastOperandSumsItsGradientBeforeRoundingIt) {
  const float up = 1.0f + std::ldexp(1.0f, -9);
  const Tensor x = lazy::from_data(std::vector<float>{up, -1, up, -1}, {4, 1});
  const Tensor w = lazy::ones({1}, lazy::DType::bf16);
  const Tensor g = lazy::grad([&](auto t) { return lazy::sum(lazy::mul(x, t[0])); })({w})[0];
  EXPECT_EQ(g.dtype(), lazy::DType::bf16);
  EXPECT_EQ(g.to(lazy::DType::f32).to_vector<float>(), (std::vector<float>{std::ldexp(1.0f, -8)}));
  const Tensor rows = lazy::from_data(std::vector<float>{-1, 1, -1.0078125f, 1.0078125f}, {2, 2})
                          .to(lazy::DType::bf16);
  const Tensor c = lazy::from_data(std::vector<float>{0, 1, 0, -1}, {2, 2});
  const std::vector<Tensor> norm = lazy::grad([&](auto t) {
    return lazy::sum(lazy::mul(lazy::layer_norm(rows, t[0], t[1], 0.5).to(lazy::DType::f32), c));
  })({lazy::ones({2}, lazy::DType::bf16), lazy::zeros({2}, lazy::DType::bf16)});
  // In f32 the weight's second gradient is -0.00210977, -0.00210571 in bf16 (not -0.00390625).
  EXPECT_NEAR(norm[0].to(lazy::DType::f32).to_vector<float>()[1], -0.00210571f, 1e-7);
  // An f32 operand expanded, then cast to bf16, still sums in f32: 256 + 1 + 1 + 1 is 259 (bf16
  // sums would round it to 260).
  const Tensor weights =
      lazy::from_data(std::vector<float>{256, 1, 1, 1}, {4, 1}).to(lazy::DType::bf16);
  const Tensor narrowed = lazy::grad([&](auto t) {
    return lazy::sum(t[0].expand({4, 1}).to(lazy::DType::bf16) * weights);
  })({lazy::ones({1})})[0];
  EXPECT_EQ(narrowed.dtype(), lazy::DType::f32);
  EXPECT_EQ(narrowed.to_vector<float>(), (std::vector<float>{259}));
}

TEST(GradientEdges, HessiansOfProductsThroughZeros) {
  // d2/dxj dxk of prod(x) is the product of all but xj and xk; of sum(cumprod(x)), the sum over
  // i >= max(j, k) of the products of x0..xi without them.
  const auto prod_entry = [](const std::vector<float>& x, int j, int k) {
    double p = j == k ? 0 : 1;
    for (int l = 0; l < int(x.size()); ++l) p *= l == j || l == k ? 1 : x[std::size_t(l)];
    return p;
  };
  const auto cumprod_entry = [](const std::vector<float>& x, int j, int k) {
    double total = 0;
    for (int i = std::max(j, k); i < int(x.size()) && j != k; ++i) {
      double p = 1;
      for (int l = 0; l <= i; ++l) p *= l == j || l == k ? 1 : x[std::size_t(l)];
      total += p;
    }
    return total;
  };
  const lazy::ScalarFunction prod = [](auto t) { return lazy::prod(t[0]); };
  const lazy::ScalarFunction cumprod = [](auto t) { return lazy::sum(lazy::cumprod(t[0], 0)); };
  for (const std::vector<float>& x : {std::vector<float>{2, 0, 3, 0.5f, 4},
                                      {1.5f, 0, 2, 0, 3},
                                      {0, 2, 3, 0, 0.5f},
                                      {2, 1.5f, 3, 0.5f}}) {
    for (int j = 0; j < int(x.size()); ++j) {
      const std::vector<float> of_prod = hessian_row(prod, x, j);
      const std::vector<float> of_cumprod = hessian_row(cumprod, x, j);
      for (int k = 0; k < int(x.size()); ++k) {
        EXPECT_NEAR(of_prod[std::size_t(k)], prod_entry(x, j, k), 1e-4) << j << "," << k;
        EXPECT_NEAR(of_cumprod[std::size_t(k)], cumprod_entry(x, j, k), 1e-3) << j << "," << k;
      }
    }
  }
}

// Found in review: a number exponent's higher derivatives at x = 0 met 0 * (0^-1 = inf), NaN
// (PyTorch's pow_backward gives 0 for an exponent of 0, at every order).
TEST(GradientEdges, HigherDerivativesOfPowersAtZero) {
  const lazy::ScalarFunction polynomial = [](auto t) {
    return lazy::sum(lazy::pow(t[0], 0.0) + 2.0f * lazy::pow(t[0], 1.0) +
                     3.0f * lazy::pow(t[0], 2.0) + lazy::pow(t[0], 3.0));
  };
  const std::vector<float> x = {0, 1};
  const lazy::ScalarFunction slope = [&](auto t) {
    return lazy::sum(lazy::grad(polynomial)({t[0]})[0]);
  };
  // d2/dx2 = 6 + 6x, summed over the other element's zero cross terms.
  EXPECT_EQ(lazy::grad(slope)({lazy::from_data(x, {2})})[0].to_vector<float>(),
            (std::vector<float>{6, 12}));
  const lazy::ScalarFunction curvature = [&](auto t) {
    return lazy::sum(lazy::grad(slope)({t[0]})[0]);
  };
  EXPECT_EQ(lazy::grad(curvature)({lazy::from_data(x, {2})})[0].to_vector<float>(),
            (std::vector<float>{6, 6}));
}

// Found in review: ties were counted in the cotangent's dtype, and an f16 count past 65504 is
// inf, so max's gradient over 70000 equal elements was 0.
TEST(GradientEdges, MaxSharesItsGradientAmongManyF16Ties) {
  const Tensor x = lazy::zeros({70000}, lazy::DType::f16);
  const Tensor g = lazy::grad([](auto t) { return lazy::max(t[0]); })({x})[0];
  EXPECT_EQ(g.dtype(), lazy::DType::f16);
  const std::vector<float> shares = g.to_vector<float>();
  EXPECT_NEAR(shares[0], 1.0 / 70000, 1e-7);
  EXPECT_EQ(shares[0], shares[69999]);
}

// Where tanh saturates, gelu_tanh's slope is its limit, 1 or 0: computed as written, its second
// term is 0 * inf = NaN in f32 once x * x overflows (PyTorch's f32 result).
// Found by torch_check (seeds 17692 and 17693) in a first version that gave 1 or 0 at +-inf too.
// Only the GPU's f32 kernel tells the old formula from the new one; the host computes in double.
TEST(GradientEdges, GeluTanhsGradientFarOutIsItsLimit) {
  const std::vector<float> x = {3e19f, -3e19f, 1e30f, -1e30f, 3e38f, -3e38f, 2.0f};
  const std::vector<float> g = lazy::grad([](auto t) { return lazy::sum(lazy::gelu_tanh(t[0])); })(
                                   {lazy::from_data(x, {std::int64_t(x.size())})})[0]
                                   .to_vector<float>();
  EXPECT_EQ(std::vector<float>(g.begin(), g.end() - 1), (std::vector<float>{1, 0, 1, 0, 1, 0}));
  EXPECT_NEAR(g.back(), 1.0860993, 1e-6);  // 0.5 (1 + t) + 0.5 x (1 - t^2) u' at x = 2
  // At +-inf it stays NaN, as PyTorch's (its forward at -inf is NaN too).
  const std::vector<float> at_inf =
      lazy::grad([](auto t) { return lazy::sum(lazy::gelu_tanh(t[0])); })(
          {lazy::from_data(std::vector<float>{INFINITY, -INFINITY}, {2})})[0]
          .to_vector<float>();
  EXPECT_TRUE(std::isnan(at_inf[0]) && std::isnan(at_inf[1]));
}

// PyTorch's var_backward is 2 / (n - correction) * g * (x - mean): with an infinite element the
// finite ones get -inf (or inf), the infinite one NaN, wherever the infinity sits in its row
// (torch_check seed 18130 program 97: a relu'd product with inf first in a column gave NaN).
TEST(GradientEdges, VarianceOfARowWithAnInfinityKeepsInfiniteGradients) {
  const auto var_grad = [](std::vector<float> x) {
    const Tensor t = lazy::from_data(x, {std::int64_t(x.size())});
    return lazy::grad([](auto a) { return lazy::sum(lazy::var(a[0], 0)); })({t})[0]
        .to_vector<float>();
  };
  for (const auto& [x, finite] : {std::pair{std::vector<float>{INFINITY, 1, 2}, -INFINITY},
                                  std::pair{std::vector<float>{1, INFINITY, 2}, -INFINITY},
                                  std::pair{std::vector<float>{-INFINITY, 1, 2}, INFINITY}}) {
    const std::vector<float> g = var_grad(x);
    for (std::size_t i = 0; i < x.size(); ++i) {
      if (std::isinf(x[i])) {
        EXPECT_TRUE(std::isnan(g[i])) << i;
      } else {
        EXPECT_EQ(g[i], finite) << i;
      }
    }
  }
  const std::vector<float> g = var_grad({1, 2, 4}), want = {-4.0f / 3, -1.0f / 3, 5.0f / 3};
  for (std::size_t i = 0; i < g.size(); ++i) EXPECT_NEAR(g[i], want[i], 1e-6) << i;
}

}  // namespace

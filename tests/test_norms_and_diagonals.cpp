// vector_norm and normalize against sums written out in double; diagonal, trace, outer, eye and
// meshgrid against the elements they must pick; their gradients against central differences
// (and the 2-norm's at zero, PyTorch's 0); their errors. Computed by whatever backend runs.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "error_test_support.h"
#include "gradient_test_support.h"
#include "host_test_support.h"
#include "lazy/lazy.h"

namespace {

using lazy::DType;
using lazy::Shape;
using lazy::Tensor;

// A [3, 4] matrix with zeros, negatives and distinct magnitudes.
const std::vector<double> kValues = {1.5, -2, 0, 3, -0.5, 4, 2.25, 0, -1, 0.75, -3.5, 6};

// (sum |v|^ord)^(1/ord) of row r (or of everything, r = -1), in double.
double norm_of(double ord, int r = -1) {
  double total = 0, largest = 0, smallest = std::numeric_limits<double>::infinity();
  for (int i = 0; i < 12; ++i) {
    if (r >= 0 && i / 4 != r) continue;
    const double a = std::fabs(kValues[std::size_t(i)]);
    largest = std::max(largest, a);
    smallest = std::min(smallest, a);
    total += ord == 0 ? (a != 0) : std::pow(a, ord);
  }
  if (std::isinf(ord)) return ord > 0 ? largest : smallest;
  return ord == 0 ? total : std::pow(total, 1 / ord);
}

TEST(VectorNorm, IsTheOrdNormOverTheAxes) {
  const Tensor x = lazy::from_data(kValues, {3, 4});
  constexpr double kInf = std::numeric_limits<double>::infinity();
  for (double ord : {2.0, 1.0, 3.0, 0.5, 0.0, -1.0, kInf, -kInf}) {
    SCOPED_TRACE(ord);
    EXPECT_NEAR(lazy::vector_norm(x, ord).item<double>(), norm_of(ord), 1e-5 * norm_of(ord));
    const std::vector<double> rows = lazy::vector_norm(x, ord, 1).to_vector<double>();
    for (int r = 0; r < 3; ++r) EXPECT_NEAR(rows[std::size_t(r)], norm_of(ord, r), 1e-5);
  }
  EXPECT_EQ(lazy::vector_norm(x, 2, {0, 1}, true).shape(), (Shape{1, 1}));
}

TEST(VectorNorm, HalfPrecisionSumsInF32AndRoundsOnce) {
  // 4096 elements of 1: each square adds exactly in f32, where f16 sums would stall at 2048.
  const Tensor x = lazy::ones({4096}, DType::f16);
  const Tensor norm = lazy::vector_norm(x);
  EXPECT_EQ(norm.dtype(), DType::f16);
  EXPECT_EQ(norm.item<double>(), 64);
  EXPECT_EQ(lazy::vector_norm(lazy::ones({4096}, DType::bf16), 1).item<double>(), 4096);
}

TEST(VectorNorm, EmptyAndBadInput) {
  EXPECT_EQ(lazy::vector_norm(lazy::zeros({0, 3})).item<double>(), 0);
  EXPECT_EQ(lazy::vector_norm(lazy::zeros({0, 3}), 1, 0).to_vector<double>(),
            (std::vector<double>{0, 0, 0}));
  EXPECT_THROW((void)lazy::vector_norm(lazy::zeros({0, 3}), INFINITY), lazy::ValueError);
  EXPECT_THROW((void)lazy::vector_norm(lazy::zeros({0, 3}), -1), lazy::ValueError);
  EXPECT_THROW((void)lazy::vector_norm(lazy::ones({3}, DType::i32)), lazy::DTypeError);
  EXPECT_THROW((void)lazy::vector_norm(lazy::ones({3}), 2, 1), lazy::AxisError);
  EXPECT_THAT(
      lazy_test::message_of<lazy::AxisError>([] { (void)lazy::normalize(lazy::ones({3})); }),
      testing::HasSubstr("lazy::normalize"));
  // Negative orders: infinite elements add 0 (a norm of inf), a zero element inf (a norm of 0),
  // and powers that underflow to 0 make it inf, as PyTorch's pow(0, 1 / ord).
  EXPECT_EQ(lazy::vector_norm(lazy_test::f32_values({lazy_test::kInf, lazy_test::kInf}), -1)
                .item<double>(),
            lazy_test::kInf);
  EXPECT_EQ(lazy::vector_norm(lazy_test::f32_values({0, 2}), -1).item<double>(), 0);
  EXPECT_EQ(lazy::vector_norm(lazy_test::f32_values({1e30, 1e30}), -2).item<double>(),
            lazy_test::kInf);
}

TEST(Normalize, DividesByTheNormClampedAtEps) {
  const Tensor x = lazy::from_data(kValues, {3, 4});
  const std::vector<double> got = lazy::normalize(x).to_vector<double>();  // axis 1
  for (int i = 0; i < 12; ++i)
    EXPECT_NEAR(got[std::size_t(i)], kValues[std::size_t(i)] / norm_of(2, i / 4), 1e-6);
  // A zero row stays zero (divided by eps), not NaN; in f16 too, where eps itself rounds to 0
  // (fuzz seed 17714 program 284: NaN unfused, 0 fused).
  EXPECT_EQ(lazy::normalize(lazy::zeros({2, 3})).to_vector<double>(), std::vector<double>(6, 0));
  const Tensor half_zeros = lazy::normalize(lazy::zeros({2, 3}, DType::f16));
  EXPECT_EQ(half_zeros.dtype(), DType::f16);
  EXPECT_EQ(half_zeros.to_vector<double>(), std::vector<double>(6, 0));
  const Tensor half_cosine =
      lazy::cosine_similarity(lazy::zeros({2, 3}, DType::f16), lazy::ones({2, 3}, DType::f16));
  EXPECT_EQ(half_cosine.dtype(), DType::f16);
  EXPECT_EQ(half_cosine.to_vector<double>(), std::vector<double>(2, 0));
  const std::vector<double> columns = lazy::normalize(x, 1, 0).to_vector<double>();
  double column_sum = 0;
  for (int r = 0; r < 3; ++r) column_sum += std::fabs(columns[std::size_t(4 * r + 1)]);
  EXPECT_NEAR(column_sum, 1, 1e-6);
}

TEST(Norms, GradientsMatchCentralDifferencesAndAZeroNormPassesZero) {
  const lazy_test::Input x = lazy_test::input({3, 4}, 31);
  lazy_test::expect_gradients_match(
      [](std::span<const Tensor> v) { return lazy::vector_norm(v[0], 2, 1); }, {x}, "2-norm");
  lazy_test::expect_gradients_match(
      [](std::span<const Tensor> v) { return lazy::vector_norm(v[0], 3); }, {x}, "3-norm");
  lazy_test::expect_gradients_match([](std::span<const Tensor> v) { return lazy::normalize(v[0]); },
                                    {x}, "normalize");
  const std::vector<Tensor> at_zero = lazy::grad([](std::span<const Tensor> v) {
    return lazy::vector_norm(v[0]);
  })(std::vector<Tensor>{lazy::zeros({4})});
  EXPECT_EQ(at_zero[0].to_vector<double>(), std::vector<double>(4, 0));
  // PyTorch masks x / norm there, then multiplies the cotangent in: a NaN one gives NaN. cdist's
  // backward gives 0 at a zero distance whatever the cotangent.
  const auto with_nan_cotangent = [](const lazy::Differentiable& f, const Tensor& at) {
    return lazy::vjp(f, {&at, 1}, std::vector<Tensor>{lazy::full({}, lazy_test::kNaN)})
        .gradients[0]
        .to_vector<double>();
  };
  for (double g : with_nan_cotangent(
           [](std::span<const Tensor> v) { return std::vector{lazy::vector_norm(v[0])}; },
           lazy::zeros({4})))
    EXPECT_TRUE(std::isnan(g));
  EXPECT_EQ(with_nan_cotangent(
                [](std::span<const Tensor> v) {
                  return std::vector{lazy::cdist(v[0], v[0]).slice(0, 0, 1).reshape({})};
                },
                lazy::zeros({1, 3})),
            std::vector<double>(3, 0));
  const std::vector<Tensor> three_at_zero = lazy::grad([](std::span<const Tensor> v) {
    return lazy::vector_norm(v[0], 3);
  })(std::vector<Tensor>{lazy::zeros({4})});
  EXPECT_EQ(three_at_zero[0].to_vector<double>(), std::vector<double>(4, 0));  // PyTorch's
  // Zero elements pass none for fractional and negative orders either (PyTorch masks them).
  for (double ord : {0.5, -1.0}) {
    const std::vector<double> g = lazy::grad([&](std::span<const Tensor> v) {
                                    return lazy::vector_norm(v[0], ord);
                                  })(std::vector<Tensor>{lazy_test::f32_values({0, 1})})[0]
                                      .to_vector<double>();
    EXPECT_EQ(g[0], 0) << ord;
    EXPECT_TRUE(std::isfinite(g[1])) << ord;
  }
}

// A NaN makes the norm NaN, and then every element's gradient NaN, zeros included, as PyTorch's
// x |x|^(p-2) * g / norm^(p-1) is (torch_check seed 17919 program 31: the zeros were 0 beside a
// NaN); beside an infinity the zero's is PyTorch's too.
TEST(Norms, APowerNormsGradientAtAZeroElementIsNaNWhenTheNormIs) {
  for (double ord : {3.0, 1.5, 0.5}) {
    const auto gradient = [&](double special) {
      return lazy::grad([&](std::span<const Tensor> v) { return lazy::vector_norm(v[0], ord); })(
                 std::vector<Tensor>{lazy_test::f32_values({0, 1, special})})[0]
          .to_vector<double>();
    };
    const std::vector<double> beside_nan = gradient(lazy_test::kNaN);
    for (double g : beside_nan) EXPECT_TRUE(std::isnan(g)) << ord;
    // Below order 1 the root's slope at an infinite sum is infinite: inf at 1, and at the zero
    // PyTorch's masked 0 times it, NaN.
    const std::vector<double> beside_inf = gradient(lazy_test::kInf);
    if (ord < 1) {
      EXPECT_TRUE(std::isnan(beside_inf[0])) << ord;
      EXPECT_EQ(beside_inf[1], lazy_test::kInf) << ord;
    } else {
      EXPECT_EQ(beside_inf[0], 0) << ord;
      EXPECT_EQ(beside_inf[1], 0) << ord;
    }
  }
}

// A power norm of one large element is its magnitude and the gradient its sign, within an ulp or
// two, where the root's f32 exponent (1/3 off by 1e-8) moved them by ln(x^3) times that (4 and 9
// ulps at 6000: torch_check seed 17946 program 54, pairwise_distance).
TEST(Norms, APowerNormKeepsItsPrecisionAtLargeNorms) {
  for (double ord : {3.0, 1.5, 2.5}) {
    const Tensor x = lazy_test::f32_values({-6000.5, 0});
    EXPECT_NEAR(lazy::vector_norm(x, ord).item<double>(), 6000.5, 6000.5 * 0x1p-22) << ord;
    const std::vector<double> g = lazy::grad([&](std::span<const Tensor> v) {
                                    return lazy::vector_norm(v[0], ord);
                                  })(std::vector<Tensor>{x})[0]
                                      .to_vector<double>();
    EXPECT_NEAR(g[0], -1, 0x1p-22) << ord;
    EXPECT_EQ(g[1], 0) << ord;
  }
  // Where the root's f32 power overflows below order 1, the norm is inf (the correction's
  // inf - inf was NaN).
  EXPECT_EQ(lazy::vector_norm(lazy_test::f32_values({3e38, 3e38}), 0.7).item<double>(),
            lazy_test::kInf);
  // Negative orders too: the f32 exponent -1/3 alone put 1e-10 12 ulps off. A zero element still
  // makes the norm 0, and an underflowing sum inf.
  for (double ord : {-3.0, -1.5}) {
    for (float value : {1e-10f, 3e10f}) {
      const double norm = lazy::vector_norm(lazy_test::f32_values({value}), ord).item<double>();
      EXPECT_NEAR(norm, value, value * 0x1p-22) << ord << " " << value;
    }
    EXPECT_EQ(lazy::vector_norm(lazy_test::f32_values({2, 0}), ord).item<double>(), 0) << ord;
    EXPECT_EQ(lazy::vector_norm(lazy_test::f32_values({3e38}), ord).item<double>(), lazy_test::kInf)
        << ord;
  }
}

TEST(Diagonal, PicksTheOffsetDiagonalAsTheLastAxis) {
  const Tensor x = lazy::from_data(kValues, {3, 4});
  EXPECT_EQ(lazy::diagonal(x).to_vector<double>(), (std::vector<double>{1.5, 4, -3.5}));
  EXPECT_EQ(lazy::diagonal(x, 1).to_vector<double>(), (std::vector<double>{-2, 2.25, 6}));
  EXPECT_EQ(lazy::diagonal(x, 3).to_vector<double>(), (std::vector<double>{3}));
  EXPECT_EQ(lazy::diagonal(x, -1).to_vector<double>(), (std::vector<double>{-0.5, 0.75}));
  EXPECT_EQ(lazy::diagonal(x, 4).shape(), (Shape{0}));
  EXPECT_EQ(lazy::diagonal(x, -3).shape(), (Shape{0}));
  // Of the transpose, over axes (1, 0): the same elements.
  EXPECT_EQ(lazy::diagonal(x.transpose(0, 1), 1, 1, 0).to_vector<double>(),
            (std::vector<double>{-2, 2.25, 6}));
  // Batched over a middle axis: [2, 3, 2] over axes 0 and 2 gives [3, 2].
  std::vector<double> cube(12);
  for (int i = 0; i < 12; ++i) cube[std::size_t(i)] = i;
  const Tensor d = lazy::diagonal(lazy::from_data(cube, {2, 3, 2}), 0, 0, 2);
  EXPECT_EQ(d.shape(), (Shape{3, 2}));
  // element [j, i] = cube[i, j, i] = 6i + 2j + i
  EXPECT_EQ(d.to_vector<double>(), (std::vector<double>{0, 7, 2, 9, 4, 11}));
}

TEST(Diagonal, TraceOuterAndEye) {
  EXPECT_EQ(lazy::trace(lazy::from_data(kValues, {3, 4})).item<double>(), 1.5 + 4 - 3.5);
  const Tensor ints = lazy::from_data(std::vector<std::int32_t>{1, 2, 3, 4}, {2, 2});
  EXPECT_EQ(lazy::trace(ints).dtype(), DType::i64);
  EXPECT_EQ(lazy::trace(ints).item<std::int64_t>(), 5);
  const Tensor o = lazy::outer(lazy_test::f32_values({1, -2}),
                               lazy::from_data(std::vector<std::int64_t>{3, 4, 5}, {3}));
  EXPECT_EQ(o.shape(), (Shape{2, 3}));
  EXPECT_EQ(o.to_vector<double>(), (std::vector<double>{3, 4, 5, -6, -8, -10}));
  EXPECT_EQ(lazy::eye(2, 3).to_vector<double>(), (std::vector<double>{1, 0, 0, 0, 1, 0}));
  EXPECT_EQ(lazy::eye(3, {}, DType::i32).to_vector<std::int64_t>(),
            (std::vector<std::int64_t>{1, 0, 0, 0, 1, 0, 0, 0, 1}));
  EXPECT_EQ(lazy::eye(0).shape(), (Shape{0, 0}));
}

TEST(Diagonal, GradientsPutEachElementBack) {
  const lazy_test::Input x = lazy_test::input({3, 4}, 41);
  lazy_test::expect_gradients_match(
      [](std::span<const Tensor> v) { return lazy::diagonal(v[0], -1); }, {x}, "diagonal");
  lazy_test::expect_gradients_match(
      [](std::span<const Tensor> v) { return lazy::trace(v[0] * v[0]); }, {x}, "trace");
  // Of a tall matrix: 1 on its diagonal only (PyTorch 2.11 also fills (3, 0): issue 171704).
  const std::vector<Tensor> tall = lazy::grad([](std::span<const Tensor> v) {
    return lazy::trace(v[0]);
  })(std::vector<Tensor>{lazy::zeros({4, 2})});
  EXPECT_EQ(tall[0].to_vector<double>(), (std::vector<double>{1, 0, 0, 1, 0, 0, 0, 0}));
  lazy_test::expect_gradients_match(
      [](std::span<const Tensor> v) { return lazy::outer(v[0], v[1]); },
      {lazy_test::input({3}, 1), lazy_test::input({4}, 2)}, "outer");
}

TEST(Meshgrid, GridsHoldEachInputAlongItsAxis) {
  const Tensor a = lazy_test::f32_values({1, 2});
  const Tensor b = lazy_test::f32_values({10, 20, 30});
  const std::vector<Tensor> ij = lazy::meshgrid({a, b});
  ASSERT_EQ(ij.size(), 2u);
  EXPECT_EQ(ij[0].shape(), (Shape{2, 3}));
  EXPECT_EQ(ij[0].to_vector<double>(), (std::vector<double>{1, 1, 1, 2, 2, 2}));
  EXPECT_EQ(ij[1].to_vector<double>(), (std::vector<double>{10, 20, 30, 10, 20, 30}));
  const std::vector<Tensor> xy =
      lazy::meshgrid({a, b, lazy::full({}, 7.0)}, lazy::MeshIndexing::xy);
  EXPECT_EQ(xy[0].shape(), (Shape{3, 2, 1}));
  EXPECT_EQ(xy[0].to_vector<double>(), (std::vector<double>{1, 2, 1, 2, 1, 2}));
  EXPECT_EQ(xy[1].to_vector<double>(), (std::vector<double>{10, 10, 20, 20, 30, 30}));
  EXPECT_EQ(xy[2].to_vector<double>(), std::vector<double>(6, 7));
}

TEST(Diagonal, RefusesBadInputAtTheCall) {
  const Tensor x = lazy::ones({3, 4});
  EXPECT_THROW((void)lazy::diagonal(lazy::ones({3})), lazy::AxisError);  // no axis 1
  EXPECT_THROW((void)lazy::diagonal(x, 0, 1, 1), lazy::AxisError);
  EXPECT_THROW((void)lazy::diagonal(x, 0, 0, 2), lazy::AxisError);
  EXPECT_THROW((void)lazy::trace(lazy::ones({2, 2, 2})), lazy::ShapeError);
  EXPECT_THROW((void)lazy::outer(x, lazy::ones({3})), lazy::ShapeError);
  EXPECT_THROW((void)lazy::eye(-1), lazy::ValueError);
  EXPECT_THROW((void)lazy::meshgrid({}), lazy::ValueError);
  EXPECT_THROW((void)lazy::meshgrid({x}), lazy::ShapeError);
  EXPECT_THROW((void)lazy::meshgrid({lazy::ones({2}), lazy::ones({2}, DType::i64)}),
               lazy::DTypeError);
}

}  // namespace

// median, nanmedian, kthvalue, quantile, nanquantile and cdist against PyTorch 2.11's values and
// gradients on the same inputs (measured on CPU and CUDA by .probe/quantile/probe.py; where the
// two differ, as for ties, the stable sort's pick is PyTorch's CPU one). Computed by whatever
// backend runs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "error_test_support.h"
#include "host_test_support.h"
#include "lazy/lazy.h"

namespace {

using lazy::DType;
using lazy::QuantileInterpolation;
using lazy::Tensor;
using lazy_test::kInf;
using lazy_test::kNaN;

Tensor rows(const std::vector<double>& values, std::int64_t n_rows) {
  return lazy::from_data(values, {n_rows, std::int64_t(values.size()) / n_rows}, lazy::f32);
}

std::vector<double> gradient(const std::function<Tensor(const Tensor&)>& f, const Tensor& x) {
  return lazy::grad([&](std::span<const Tensor> v) { return lazy::sum(f(v[0])); })(
             std::vector<Tensor>{x})[0]
      .to_vector<double>();
}

// Each element of `got` equals `want`'s, NaN where it is NaN, within f32's rounding.
void expect_values(const std::vector<double>& got, const std::vector<double>& want) {
  lazy_test::expect_near_values(got, want, 3e-7);
}

TEST(Median, PicksTheLowerMiddleOfTheStableSortAndTheFirstNaN) {
  const lazy::ValuesAndIndices ties =
      lazy::median(rows({2, 2, 2, 1, 3, 5, 1, 5, 5, 0, 1, 1, 1, 1, 1}, 3), 1);
  EXPECT_EQ(ties.values.to_vector<double>(), (std::vector<double>{2, 5, 1}));
  EXPECT_EQ(ties.indices.dtype(), DType::i64);
  EXPECT_EQ(ties.indices.to_vector<std::int64_t>(), (std::vector<std::int64_t>{1, 0, 2}));
  const lazy::ValuesAndIndices even = lazy::median(rows({3, 1, 4, 2}, 1), 1);
  EXPECT_EQ(even.values.to_vector<double>(), (std::vector<double>{2}));
  EXPECT_EQ(even.indices.to_vector<std::int64_t>(), (std::vector<std::int64_t>{3}));
  const lazy::ValuesAndIndices nan =
      lazy::median(rows({1, kNaN, 3, kNaN, kNaN, 2, 3, 4, 1, 2, 3, 4}, 3), -1);
  expect_values(nan.values.to_vector<double>(), {kNaN, kNaN, 2});
  EXPECT_EQ(nan.indices.to_vector<std::int64_t>(), (std::vector<std::int64_t>{1, 0, 1}));
  // -0 and 0 are equal: the stable sort keeps their order, and the pick keeps its sign.
  const lazy::ValuesAndIndices zeros = lazy::median(rows({0, -0.0, 0, -0.0}, 1), 1);
  EXPECT_TRUE(std::signbit(zeros.values.item<double>()));
  EXPECT_EQ(zeros.indices.item<std::int64_t>(), 1);
}

TEST(Median, KeepsDTypesAndShapes) {
  const Tensor ints = lazy::from_data(std::vector<std::int64_t>{3, 1, 2, 7}, {1, 4}, DType::i32);
  const lazy::ValuesAndIndices of_ints = lazy::median(ints, 1);
  EXPECT_EQ(of_ints.values.dtype(), DType::i32);
  EXPECT_EQ(of_ints.values.to_vector<std::int64_t>(), (std::vector<std::int64_t>{2}));
  EXPECT_EQ(of_ints.indices.to_vector<std::int64_t>(), (std::vector<std::int64_t>{2}));
  const Tensor halves = rows({3, 1, 4, 2, 9}, 1).to(DType::f16);
  EXPECT_EQ(lazy::median(halves, 1).values.dtype(), DType::f16);
  EXPECT_EQ(lazy::median(halves, 1).values.item<double>(), 3);
  EXPECT_EQ(lazy::median(rows({3, 1, 4, 2}, 1), 1, true).values.shape(), (lazy::Shape{1, 1}));
  EXPECT_EQ(lazy::median(rows({3, 1, 4, 2}, 1), 0).values.shape(), (lazy::Shape{4}));
  const lazy::ValuesAndIndices scalar = lazy::median(lazy::full({}, 5.0), 0);
  EXPECT_EQ(scalar.values.item<double>(), 5);
  EXPECT_EQ(scalar.indices.item<std::int64_t>(), 0);
  EXPECT_EQ(lazy::median(lazy::zeros({0, 3}), 1).values.shape(), (lazy::Shape{0}));
  EXPECT_ERROR_AT_THIS_LINE(lazy::ShapeError, lazy::median(lazy::zeros({2, 0}), 1));
  EXPECT_ERROR_AT_THIS_LINE(lazy::DTypeError, lazy::median(lazy::ones({2}, DType::bool_), 0));
  EXPECT_ERROR_AT_THIS_LINE(lazy::AxisError, lazy::median(lazy::ones({2}), 1));
}

TEST(Median, OfAllElementsSharesItsGradientAmongEqualElements) {
  EXPECT_EQ(lazy::median(lazy_test::f32_values({3, 1, 4, 2, 2})).item<double>(), 2);
  EXPECT_EQ(lazy::median(lazy_test::f32_values({3, 1, 4, 2, 2})).shape(), lazy::Shape{});
  EXPECT_TRUE(std::isnan(lazy::median(lazy_test::f32_values({1, kNaN, 3})).item<double>()));
  EXPECT_TRUE(std::isnan(lazy::median(lazy::zeros({0})).item<double>()));
  EXPECT_ERROR_AT_THIS_LINE(lazy::ValueError, lazy::median(lazy::zeros({0}, DType::i64)));
  const auto median = [](const Tensor& v) { return lazy::median(v); };
  expect_values(gradient(median, lazy_test::f32_values({2, 2, 2, 1, 3})),
                {1.0 / 3, 1.0 / 3, 1.0 / 3, 0, 0});
  EXPECT_EQ(gradient(median, lazy_test::f32_values({3, 1, 4, 2, 2})),
            (std::vector<double>{0, 0, 0, 0.5, 0.5}));
  EXPECT_EQ(gradient(median, lazy_test::f32_values({1, kNaN, 3})), (std::vector<double>{0, 1, 0}));
  // Infinite medians: the elements equal to them share, however many are.
  expect_values(gradient(median, lazy_test::f32_values({-kInf, -kInf, -kInf, 1, 2})),
                {1.0 / 3, 1.0 / 3, 1.0 / 3, 0, 0});
  EXPECT_EQ(gradient(median, lazy_test::f32_values({kInf, 1, kInf})),
            (std::vector<double>{0.5, 0, 0.5}));
}

TEST(Nanmedian, SkipsNaNAndGivesNaNForRowsOfOnlyNaN) {
  const lazy::ValuesAndIndices m =
      lazy::nanmedian(rows({1, kNaN, 3, kNaN, kNaN, kNaN, kNaN, kNaN, 4, 1, kNaN, 2}, 3), 1);
  expect_values(m.values.to_vector<double>(), {1, kNaN, 2});
  EXPECT_EQ(m.indices.to_vector<std::int64_t>(), (std::vector<std::int64_t>{0, 0, 3}));
  const Tensor x = lazy_test::f32_values({1, kNaN, 3, kNaN, 2});
  EXPECT_EQ(lazy::nanmedian(x).item<double>(), 2);
  EXPECT_EQ(gradient([](const Tensor& v) { return lazy::nanmedian(v); }, x),
            (std::vector<double>{0, 0, 0, 0, 1}));
  EXPECT_TRUE(std::isnan(lazy::nanmedian(lazy_test::f32_values({kNaN, kNaN})).item<double>()));
  const Tensor ints = lazy::from_data(std::vector<std::int64_t>{3, 1, 2, 7}, {1, 4}, DType::i64);
  EXPECT_EQ(lazy::nanmedian(ints, 1).values.to_vector<std::int64_t>(),
            (std::vector<std::int64_t>{2}));
}

TEST(Kthvalue, PicksTheKthSmallestWithNaNLargest) {
  const lazy::ValuesAndIndices second = lazy::kthvalue(rows({3, 1, 4, 1, 5}, 1), 2);
  EXPECT_EQ(second.values.to_vector<double>(), (std::vector<double>{1}));
  EXPECT_EQ(second.indices.to_vector<std::int64_t>(), (std::vector<std::int64_t>{3}));
  const Tensor with_nan = rows({3, kNaN, 4, 1, 5}, 1);
  EXPECT_TRUE(std::isnan(lazy::kthvalue(with_nan, 5).values.item<double>()));
  EXPECT_EQ(lazy::kthvalue(with_nan, 5).indices.item<std::int64_t>(), 1);
  EXPECT_EQ(lazy::kthvalue(with_nan, 4).values.item<double>(), 5);
  EXPECT_EQ(lazy::kthvalue(with_nan, 4).indices.item<std::int64_t>(), 4);
  const lazy::ValuesAndIndices columns = lazy::kthvalue(rows({3, 1, 2, 0, 9, 8}, 2), 1, 0, true);
  EXPECT_EQ(columns.values.shape(), (lazy::Shape{1, 3}));
  EXPECT_EQ(columns.values.to_vector<double>(), (std::vector<double>{0, 1, 2}));
  EXPECT_EQ(columns.indices.to_vector<std::int64_t>(), (std::vector<std::int64_t>{1, 0, 0}));
  EXPECT_EQ(lazy::kthvalue(lazy::full({}, 3.0), 1).values.item<double>(), 3);
  EXPECT_ERROR_AT_THIS_LINE(lazy::ValueError, lazy::kthvalue(rows({3, 1}, 1), 0));
  EXPECT_ERROR_AT_THIS_LINE(lazy::ValueError, lazy::kthvalue(rows({3, 1}, 1), 3));
  EXPECT_EQ(gradient([](const Tensor& v) { return lazy::kthvalue(v, 3).values; },
                     lazy_test::f32_values({2, 2, 2, 1, 3})),
            (std::vector<double>{0, 1, 0, 0, 0}));
}

// Random rows longer than a block's share, against the same formulas over std::sort's order.
TEST(Quantile, AgreesWithAHostSortOnRandomRows) {
  constexpr std::int64_t kRows = 37, kLength = 1999;
  const std::vector<float> values = lazy_test::random_floats(kRows * kLength, 31);
  const Tensor x = lazy::from_data(values, {kRows, kLength}) * 3.0f - 1.0f;
  const std::vector<double> q = {0, 0.013, 0.25, 0.5, 0.77, 1};
  const std::vector<double> got = lazy::quantile(x, q, 1).to_vector<double>();
  const std::vector<double> medians = lazy::median(x.transpose(0, 1), 0).values.to_vector<double>();
  for (std::int64_t r = 0; r < kRows; ++r) {
    std::vector<float> row(kLength);
    for (std::int64_t i = 0; i < kLength; ++i) row[i] = values[r * kLength + i] * 3.0f - 1.0f;
    std::sort(row.begin(), row.end());
    EXPECT_EQ(medians[r], row[(kLength - 1) / 2]) << "row " << r;
    for (std::size_t k = 0; k < q.size(); ++k) {
      const float rank = float(q[k]) * float(kLength - 1);
      const float below = row[std::int64_t(rank)], above = row[std::int64_t(std::ceil(rank))];
      const float want = below + (rank - std::floor(rank)) * (above - below);
      EXPECT_NEAR(got[k * kRows + r], want, 1e-6) << "row " << r << ", q " << q[k];
    }
  }
}

TEST(Quantile, InterpolatesAtRankQTimesNMinusOneInF32) {
  const Tensor x = lazy_test::f32_values({1, 2, 3, 4});
  // 0.4f * 3 rounds up in f32, as PyTorch computes it: 2.2000000476837158, not 2.2f.
  EXPECT_EQ(lazy::quantile(x, 0.4).item<double>(), 2.200000047683716);
  std::vector<double> methods;
  for (double q : {0.4, 0.5, 1.0 / 6}) {
    for (QuantileInterpolation i : {QuantileInterpolation::linear, QuantileInterpolation::lower,
                                    QuantileInterpolation::higher, QuantileInterpolation::midpoint,
                                    QuantileInterpolation::nearest}) {
      methods.push_back(lazy::quantile(x, q, {}, false, i).item<double>());
    }
  }
  expect_values(methods, {2.200000047683716, 2, 3, 2.5, 2, 2.5, 2, 3, 2.5, 3, 1.5, 1, 2, 1.5, 1});
  std::vector<double> nearest;
  for (double q : {0.1, 0.3, 0.5, 0.7, 0.9}) {
    nearest.push_back(lazy::quantile(lazy_test::f32_values({1, 2, 3, 4, 5, 6}), q, {}, false,
                                     QuantileInterpolation::nearest)
                          .item<double>());
  }
  EXPECT_EQ(nearest, (std::vector<double>{1, 3, 3, 5, 5}));  // ranks .5 to 4.5: half to even
  // The element itself, as PyTorch's sort returns it: -0 stays -0.
  EXPECT_TRUE(std::signbit(
      lazy::quantile(lazy_test::f32_values({1, -0.0}), 0, {}, false, QuantileInterpolation::lower)
          .item<double>()));
  expect_values(lazy::quantile(lazy_test::f32_values({1e-8, 3.0000002, 7.1, 1e8}),
                               std::vector<double>{0.13, 0.37, 0.71, 0.93})
                    .to_vector<double>(),
                {1.1700000762939453, 3.451000213623047, 12999994.0, 79000000.0});
}

TEST(Quantile, PutsQuantilesFirstAndKeepsAxesAsAsked) {
  const Tensor x = rows({1, 2, 3, 4, 8, 6, 7, 5}, 2);
  const Tensor q = lazy::quantile(x, std::vector<double>{0.1, 0.5, 1.0}, 1);
  EXPECT_EQ(q.shape(), (lazy::Shape{3, 2}));
  expect_values(q.to_vector<double>(), {1.2999999523162842, 5.300000190734863, 2.5, 6.5, 4, 8});
  EXPECT_EQ(lazy::quantile(x, std::vector<double>{0.1, 0.5}, 1, true).shape(),
            (lazy::Shape{2, 2, 1}));
  EXPECT_EQ(lazy::quantile(x, 0.5, {}, true).shape(), (lazy::Shape{1, 1}));
  EXPECT_EQ(lazy::quantile(x, std::vector<double>{0.1, 0.5}, {}, true).shape(),
            (lazy::Shape{2, 1, 1}));
  EXPECT_EQ(lazy::quantile(x, 0.5, 0).shape(), (lazy::Shape{4}));
  EXPECT_EQ(lazy::quantile(x, std::vector<double>{}, 1).shape(), (lazy::Shape{0, 2}));
  EXPECT_EQ(lazy::quantile(lazy::full({}, 3.0), 0.5, 0).item<double>(), 3);
}

TEST(Quantile, GivesNaNForRowsWithNaNAndPropagatesInfinitiesAsPyTorchsLerp) {
  expect_values(lazy::quantile(rows({1, kNaN, 3, 1, 2, 3}, 2), 0.5, 1).to_vector<double>(),
                {kNaN, 2});
  // lerp(-inf, -inf, 0) and lerp(2, inf, 0.7) are NaN in PyTorch's two-sided lerp.
  expect_values(lazy::quantile(lazy_test::f32_values({1, kInf, -kInf, 2}),
                               std::vector<double>{0, 0.2, 0.5, 0.9, 1})
                    .to_vector<double>(),
                {kNaN, -kInf, 1.5, kNaN, kNaN});
  expect_values(lazy::nanquantile(rows({1, kNaN, 3, kNaN, kNaN, kNaN, 1, 2, 3}, 3), 0.5, 1)
                    .to_vector<double>(),
                {2, kNaN, 2});
}

TEST(Quantile, GradientsReachTheElementsAroundTheRank) {
  const auto at = [](double q) { return [q](const Tensor& v) { return lazy::quantile(v, q); }; };
  expect_values(gradient(at(0.4), lazy_test::f32_values({4, 1, 3, 2})),
                {0, 0, 0.20000004768371582, 0.7999999523162842});
  EXPECT_EQ(gradient(at(0.5), lazy_test::f32_values({2, 2, 1, 3})),
            (std::vector<double>{0.5, 0.5, 0, 0}));
  EXPECT_EQ(gradient(at(0.5), lazy_test::f32_values({2, kNaN, 1, 3})),
            (std::vector<double>{0, 1, 0, 0}));
  EXPECT_EQ(gradient([](const Tensor& v) { return lazy::nanquantile(v, 0.25); },
                     lazy_test::f32_values({2, kNaN, 1, 3})),
            (std::vector<double>{0.5, 0, 0.5, 0}));
}

TEST(Quantile, RefusesWhatPyTorchRefuses) {
  const Tensor x = lazy_test::f32_values({1, 2});
  EXPECT_ERROR_AT_THIS_LINE(lazy::ValueError, lazy::quantile(x, 1.5));
  EXPECT_ERROR_AT_THIS_LINE(lazy::ValueError, lazy::quantile(x, -0.1));
  EXPECT_ERROR_AT_THIS_LINE(lazy::ValueError, lazy::nanquantile(x, std::vector<double>{0.5, kNaN}));
  EXPECT_ERROR_AT_THIS_LINE(lazy::ValueError, lazy::quantile(lazy::zeros({2, 0}), 0.5, 0));
  EXPECT_ERROR_AT_THIS_LINE(lazy::DTypeError, lazy::quantile(x.to(DType::f16), 0.5));
  EXPECT_ERROR_AT_THIS_LINE(lazy::DTypeError, lazy::quantile(x.to(DType::i64), 0.5));
  EXPECT_ERROR_AT_THIS_LINE(lazy::AxisError, lazy::quantile(x, 0.5, 1));
  // PyTorch refuses more than 2^24 elements along the axis: f32 ranks cannot name them.
  const Tensor wide = lazy::zeros({2, (std::int64_t(1) << 24) + 1});
  EXPECT_ERROR_AT_THIS_LINE(lazy::ShapeError, lazy::quantile(wide, 0.5));
  EXPECT_ERROR_AT_THIS_LINE(lazy::ShapeError, lazy::nanquantile(wide, 0.5, 1));
  EXPECT_NO_THROW(lazy::quantile(wide, 0.5, 0));
  EXPECT_NO_THROW(lazy::quantile(lazy::zeros({std::int64_t(1) << 24}), 0.5));
}

// torch.cdist of the probe's points, for each p.
TEST(Cdist, MatchesPyTorchForEachP) {
  const Tensor a = rows({0, 0, 1, 1, 1, 1, 2, 0, -1}, 3);
  const Tensor b = rows({1, 0, 1, 3, 4, 0}, 2);
  const std::vector<std::pair<double, std::vector<double>>> want = {
      {0, {1, 3, 1, 3, 2, 3}},
      {0.5, {1, 22.392305374145508, 1, 17.191505432128906, 5.828427791595459, 16}},
      {1, {1, 8, 1, 6, 3, 6}},
      {2, {1, 5.099019527435303, 1, 3.7416574954986572, 2.2360680103302, 4.242640495300293}},
      {3, {1, 4.514357566833496, 1, 3.301927328109741, 2.0800838470458984, 4.041240215301514}},
      {kInf, {1, 4, 1, 3, 2, 4}}};
  for (const auto& [p, values] : want) {
    SCOPED_TRACE(p);
    const Tensor d = lazy::cdist(a, b, p);
    EXPECT_EQ(d.shape(), (lazy::Shape{3, 2}));
    std::vector<double> got = d.to_vector<double>();
    for (std::size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], values[i], 2e-6 * values[i]);
  }
}

TEST(Cdist, BroadcastsBatchesAndGivesZeroSelfDistances) {
  EXPECT_EQ(lazy::cdist(lazy::ones({2, 1, 3, 4}), lazy::ones({5, 2, 4})).shape(),
            (lazy::Shape{2, 5, 3, 2}));
  EXPECT_EQ(lazy::cdist(lazy::ones({0, 3}), lazy::ones({2, 3})).shape(), (lazy::Shape{0, 2}));
  for (double p : {2.0, kInf}) {
    EXPECT_EQ(lazy::cdist(lazy::ones({2, 0}), lazy::ones({3, 0}), p).to_vector<double>(),
              std::vector<double>(6, 0));
  }
  // Far from the origin, a product's cancellation would leave self-distances of about 0.1.
  const Tensor x = lazy::from_data(lazy_test::random_floats(64 * 8, 7), {64, 8}) + 100.0f;
  const std::vector<double> self = lazy::diagonal(lazy::cdist(x, x)).to_vector<double>();
  EXPECT_EQ(self, std::vector<double>(64, 0));
}

TEST(Cdist, GradientIsZeroAtZeroDistancesAndDifferences) {
  const Tensor x = rows({1, 0, 1, 0, 0, 0}, 2), y = rows({1, 0, 1, 1, 2, 0}, 2);
  const auto x_gradient = [&](double p) {
    return lazy::grad([&](std::span<const Tensor> v) {
             return lazy::sum(lazy::cdist(v[0], v[1], p));
           })(std::vector<Tensor>{x, y})[0]
        .to_vector<double>();
  };
  expect_values(x_gradient(2), {0, -0.8944271802902222, 0.4472135901451111, -1.1543203592300415,
                                -0.8944271802902222, -0.7071067690849304});
  EXPECT_EQ(x_gradient(1), (std::vector<double>{0, -1, 1, -2, -1, -1}));
  EXPECT_EQ(x_gradient(0), std::vector<double>(6, 0));
  expect_values(x_gradient(0.5), {0, -1.7071068286895752, 2.4142136573791504, -4.41421365737915,
                                  -1.7071068286895752, -2});
  expect_values(x_gradient(3), {0, -0.9244816899299622, 0.23112042248249054, -0.8610808849334717,
                                -0.9244816899299622, -0.6299604773521423});
}

TEST(Cdist, RefusesWhatPyTorchRefuses) {
  const Tensor a = lazy::ones({3, 2}), b = lazy::ones({4, 2});
  EXPECT_ERROR_AT_THIS_LINE(lazy::ValueError, lazy::cdist(a, b, -1));
  EXPECT_ERROR_AT_THIS_LINE(lazy::ValueError, lazy::cdist(a, b, kNaN));
  EXPECT_ERROR_AT_THIS_LINE(lazy::ShapeError, lazy::cdist(lazy::ones({2}), lazy::ones({2})));
  EXPECT_ERROR_AT_THIS_LINE(lazy::ShapeError, lazy::cdist(a, lazy::ones({4, 3})));
  EXPECT_ERROR_AT_THIS_LINE(lazy::ShapeError,
                            lazy::cdist(lazy::ones({2, 3, 2}), lazy::ones({4, 3, 2})));
  EXPECT_ERROR_AT_THIS_LINE(lazy::DTypeError, lazy::cdist(a.to(DType::f16), b));
}

}  // namespace

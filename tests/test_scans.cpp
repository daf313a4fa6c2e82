// cumsum, cumprod, cummax and cummin on the host path against loops written here (every axis of
// ranks 1 to 4, dtypes, ties and NaN), their kernels' structure without a GPU (the producing work
// inline, cummax's values and indices one kernel), and bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include <lazy/lazy.h>

#include "codegen_test_support.h"
#include "host_test_support.h"

namespace {

using lazy::DType;
using lazy::Shape;
using lazy::Tensor;
using lazy_test::random_floats;

// `rows` x `extent` with an inner run of `inner`: element (o, j, n) at (o * extent + j) * inner +
// n.
struct Lines {
  std::int64_t outer = 1, extent = 1, inner = 1;
  Lines(const Shape& shape, int axis) {
    for (int a = 0; a < axis; ++a) outer *= shape[a];
    extent = shape[axis];
    for (int a = axis + 1; a < shape.rank(); ++a) inner *= shape[a];
  }
  std::size_t at(std::int64_t o, std::int64_t j, std::int64_t n) const {
    return std::size_t((o * extent + j) * inner + n);
  }
};

// The running fold `step(acc, x)` along `axis`, in double, by loops.
template <class Step>
std::vector<double> scan_loop(const std::vector<float>& x, const Shape& shape, int axis,
                              double start, Step step) {
  const Lines lines(shape, axis);
  std::vector<double> out(x.size());
  for (std::int64_t o = 0; o < lines.outer; ++o) {
    for (std::int64_t n = 0; n < lines.inner; ++n) {
      double acc = start;
      for (std::int64_t j = 0; j < lines.extent; ++j) {
        acc = step(acc, double(x[lines.at(o, j, n)]));
        out[lines.at(o, j, n)] = acc;
      }
    }
  }
  return out;
}

void expect_near_all(const std::vector<float>& got, const std::vector<double>& want,
                     const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], 1e-4 * (1 + std::fabs(want[i]))) << what << " element " << i;
}

TEST(Scans, CumsumAndCumprodFoldEveryAxisOfRanksOneToFour) {
  const std::vector<Shape> shapes = {{7}, {3, 5}, {2, 3, 4}, {2, 1, 3, 2}, {4, 0}};
  std::uint32_t seed = 1;
  for (const Shape& shape : shapes) {
    for (int axis = 0; axis < shape.rank(); ++axis) {
      const std::vector<float> values = random_floats(shape.numel(), seed++);
      Tensor x = lazy::from_data(values, shape);
      const std::string what = shape.to_string() + " axis " + std::to_string(axis);
      Tensor sums = lazy::cumsum(x, axis - shape.rank());
      Tensor products = lazy::cumprod(x, axis);
      EXPECT_EQ(sums.shape(), shape);
      expect_near_all(sums.to_vector<float>(),
                      scan_loop(values, shape, axis, 0, [](double a, double v) { return a + v; }),
                      what + " cumsum");
      expect_near_all(products.to_vector<float>(),
                      scan_loop(values, shape, axis, 1, [](double a, double v) { return a * v; }),
                      what + " cumprod");
    }
  }
}

TEST(Scans, IntegersAndBoolsSumToI64AndFloatsKeepTheirDtype) {
  Tensor ints = lazy::from_data<std::int32_t>({2147483647, 1, -5}, {3});
  Tensor sums = lazy::cumsum(ints, 0);
  EXPECT_EQ(sums.dtype(), DType::i64);
  EXPECT_EQ(sums.to_vector<std::int64_t>(),
            (std::vector<std::int64_t>{2147483647, 2147483648, 2147483643}));
  Tensor flags = lazy::from_data<bool>({true, false, true, true}, {4});
  EXPECT_EQ(lazy::cumsum(flags, 0).to_vector<std::int64_t>(),
            (std::vector<std::int64_t>{1, 1, 2, 3}));
  EXPECT_EQ(
      lazy::cumprod(lazy::from_data<std::int64_t>({3, -2, 4}, {3}), 0).to_vector<std::int64_t>(),
      (std::vector<std::int64_t>{3, -6, -24}));
  Tensor halves = lazy::from_data<float>({1, 2, 3}, {3}).to(DType::bf16);
  EXPECT_EQ(lazy::cumsum(halves, 0).dtype(), DType::bf16);
  EXPECT_EQ(lazy::cummax(halves, 0).values.dtype(), DType::bf16);
  EXPECT_EQ(lazy::cummax(ints, 0).indices.dtype(), DType::i64);
  // A 0-d tensor is one element.
  Tensor scalar = lazy::full({}, 4.5f);
  EXPECT_EQ(lazy::cumsum(scalar, -1).shape(), Shape({}));
  EXPECT_EQ(lazy::cumsum(scalar, 0).item<float>(), 4.5f);
  EXPECT_EQ(lazy::cummin(scalar, 0).indices.item<std::int64_t>(), 0);
}

TEST(Scans, CummaxTakesTheLaterOfEqualValuesAndKeepsTheFirstNaN) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Tensor x = lazy::from_data<float>({1, 3, 3, 2, nan, 5, nan, 0}, {8});
  lazy::ValuesAndIndices most = lazy::cummax(x, 0);
  std::vector<float> values = most.values.to_vector<float>();
  EXPECT_EQ(std::vector<float>(values.begin(), values.begin() + 4),
            (std::vector<float>{1, 3, 3, 3}));
  for (std::size_t i = 4; i < 8; ++i) EXPECT_TRUE(std::isnan(values[i])) << i;
  EXPECT_EQ(most.indices.to_vector<std::int64_t>(),
            (std::vector<std::int64_t>{0, 1, 2, 2, 4, 4, 4, 4}));
  lazy::ValuesAndIndices least =
      lazy::cummin(lazy::from_data<std::int32_t>({4, 2, 7, 2, 1, 1}, {2, 3}), 1);
  EXPECT_EQ(least.values.to_vector<std::int32_t>(), (std::vector<std::int32_t>{4, 2, 2, 2, 1, 1}));
  EXPECT_EQ(least.indices.to_vector<std::int64_t>(), (std::vector<std::int64_t>{0, 1, 1, 0, 1, 2}));
}

TEST(Scans, CummaxAlongTheFirstAxisOfATranspose) {
  const std::vector<float> values = random_floats(12, 3);
  Tensor x = lazy::from_data(values, {3, 4}).transpose(0, 1);  // [4, 3]: x[i][j] = v[j * 4 + i]
  lazy::ValuesAndIndices most = lazy::cummax(x, 0);
  std::vector<float> got = most.values.to_vector<float>();
  std::vector<std::int64_t> at = most.indices.to_vector<std::int64_t>();
  for (int j = 0; j < 3; ++j) {
    float best = -INFINITY;
    std::int64_t best_at = -1;
    for (int i = 0; i < 4; ++i) {
      const float v = values[std::size_t(j * 4 + i)];
      if (v >= best) best = v, best_at = i;
      EXPECT_EQ(got[std::size_t(i * 3 + j)], best);
      EXPECT_EQ(at[std::size_t(i * 3 + j)], best_at);
    }
  }
}

TEST(Scans, BadInputIsRefusedAtTheCall) {
  Tensor x = lazy::zeros({2, 3});
  EXPECT_THROW(lazy::cumsum(x, 2), lazy::AxisError);
  EXPECT_THROW(lazy::cummax(x, -3), lazy::AxisError);
  EXPECT_THROW(lazy::cumprod(lazy::full({}, 1.0f), 1), lazy::AxisError);
  EXPECT_THROW(lazy::cumsum(Tensor(), 0), lazy::ValueError);
}

// The kernels a sync would run for what is pending, and their sources compiled.
lazy_test::Generated generated() {
  lazy_test::Generated g = lazy_test::generate_pending();
  lazy_test::expect_compiles(g);
  return g;
}

TEST(ScanKernels, TheProducingWorkRunsInsideTheScanKernel) {
  Tensor x = lazy::from_data(random_floats(6 * 50, 4), {6, 50});
  Tensor m = lazy::max(x, -1, true);
  Tensor running = lazy::cumsum(lazy::exp(x - m), -1);
  lazy_test::Generated g = generated();
  // The max's row kernel, then one scan kernel computing exp(x - m) as it reads.
  ASSERT_EQ(g.kernels.size(), 2u) << g.partition.describe();
  EXPECT_NE(g.kernels[1].source.find("lz_exp"), std::string::npos) << g.kernels[1].source;
  EXPECT_NE(g.kernels[1].source.find("lz_scan_tile"), std::string::npos) << g.kernels[1].source;
  const std::string described = g.partition.describe();
  EXPECT_NE(described.find("CumSum f32[6, 50] (live_output) from"), std::string::npos) << described;
  lazy::sync();
  std::vector<float> xs = x.to_vector<float>(), got = running.to_vector<float>();
  for (int r = 0; r < 6; ++r) {
    float row_max = -INFINITY;
    for (int j = 0; j < 50; ++j) row_max = std::max(row_max, xs[std::size_t(r * 50 + j)]);
    double acc = 0;
    for (int j = 0; j < 50; ++j) {
      acc += std::exp(double(xs[std::size_t(r * 50 + j)]) - row_max);
      EXPECT_NEAR(got[std::size_t(r * 50 + j)], acc, 1e-4 * acc);
    }
  }
}

TEST(ScanKernels, CummaxValuesAndIndicesAreOneKernelAndOtherWorkIsNot) {
  Tensor x = lazy::from_data(random_floats(4 * 9, 5), {4, 9});
  Tensor doubled = x * 2.0f;
  Tensor other = x + 1.0f;  // over the same shape, but not a scan: joins doubled's kernel
  lazy::ValuesAndIndices most = lazy::cummax(doubled, 1);
  Tensor sums = lazy::cumsum(doubled, 1);  // another fold of the same input: its own kernel
  lazy_test::Generated g = generated();
  EXPECT_EQ(g.kernels.size(), 3u) << g.partition.describe();
  std::vector<std::size_t> scan_roots;
  for (const lazy::fuse::Region& region : g.partition.regions)
    if (region.scan) scan_roots.push_back(region.roots.size());
  EXPECT_EQ(scan_roots, (std::vector<std::size_t>{2, 1}));
  lazy::sync();
  EXPECT_EQ(other.shape(), Shape({4, 9}));
  EXPECT_EQ(sums.shape(), Shape({4, 9}));
}

TEST(ScanKernels, EveryDtypeAndAScanOfAGatherCompile) {
  for (DType dtype : lazy_test::kAllDTypes) {
    Tensor x = lazy::from_data(random_floats(3 * 5, 6), {3, 5}).to(dtype);
    Tensor sums = lazy::cumsum(x, 1);
    Tensor products = lazy::cumprod(x, 0);
    lazy::ValuesAndIndices least = lazy::cummin(x, 1);
    generated();
    lazy::sync();
  }
  // A gather inside a scan's input is written first (a scan kernel computes no gathers).
  Tensor table = lazy::from_data(random_floats(10 * 4, 7), {10, 4});
  Tensor ids = lazy::from_data<std::int64_t>({3, 1, 3}, {3});
  Tensor running = lazy::cumsum(lazy::embedding(table, ids), 0);
  lazy_test::Generated g = generated();
  bool gather_cut = false;
  for (std::size_t i = 0; i < g.partition.cuts.cut.size(); ++i)
    gather_cut =
        gather_cut || (g.partition.cuts.cut[i] &&
                       g.partition.cuts.reason[i] == lazy::fuse::CutReason::gather_in_reduction);
  EXPECT_TRUE(gather_cut) << g.partition.describe();
  lazy::sync();
  std::vector<float> t = table.to_vector<float>(), got = running.to_vector<float>();
  EXPECT_FLOAT_EQ(got[8 + 2], t[12 + 2] + t[4 + 2] + t[12 + 2]);
}

}  // namespace

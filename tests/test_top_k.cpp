// topk on the host path against sorting done here (every axis, largest and smallest, ties in
// order of position, NaN above numbers), its kernel's structure without a GPU (the producing work
// inline, values and positions one kernel), and bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <vector>

#include <lazy/lazy.h>

#include "codegen_test_support.h"
#include "host_test_support.h"

namespace {

using lazy::DType;
using lazy::Shape;
using lazy::Tensor;
using lazy_test::random_floats;

TEST(TopK, PicksTheBestOfEveryRowAlongAnyAxis) {
  const std::vector<float> values = random_floats(4 * 6 * 5, 1);
  Tensor x = lazy::from_data(values, {4, 6, 5});
  for (bool largest : {true, false}) {
    lazy::ValuesAndIndices best = lazy::topk(x, 3, 1, largest);
    EXPECT_EQ(best.values.shape(), Shape({4, 3, 5}));
    std::vector<float> got = best.values.to_vector<float>();
    std::vector<std::int64_t> at = best.indices.to_vector<std::int64_t>();
    for (int o = 0; o < 4; ++o) {
      for (int n = 0; n < 5; ++n) {
        std::vector<int> order(6);
        std::iota(order.begin(), order.end(), 0);
        auto v = [&](int j) { return values[std::size_t((o * 6 + j) * 5 + n)]; };
        std::stable_sort(order.begin(), order.end(),
                         [&](int a, int b) { return largest ? v(a) > v(b) : v(a) < v(b); });
        for (int j = 0; j < 3; ++j) {
          EXPECT_EQ(at[std::size_t((o * 3 + j) * 5 + n)], order[std::size_t(j)]);
          EXPECT_EQ(got[std::size_t((o * 3 + j) * 5 + n)], v(order[std::size_t(j)]));
        }
      }
    }
  }
}

TEST(TopK, EqualValuesComeInOrderOfPositionAndNaNRanksAboveNumbers) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Tensor x = lazy::from_data<float>({2, 5, nan, 5, -1, 2}, {6});
  lazy::ValuesAndIndices most = lazy::topk(x, 4);
  EXPECT_EQ(most.indices.to_vector<std::int64_t>(), (std::vector<std::int64_t>{2, 1, 3, 0}));
  EXPECT_TRUE(std::isnan(most.values.to_vector<float>()[0]));
  lazy::ValuesAndIndices least = lazy::topk(x, 3, 0, false);
  EXPECT_EQ(least.indices.to_vector<std::int64_t>(), (std::vector<std::int64_t>{4, 0, 5}));
  EXPECT_EQ(least.values.to_vector<float>(), (std::vector<float>{-1, 2, 2}));
  lazy::ValuesAndIndices ints = lazy::topk(lazy::from_data<std::int64_t>({3, -7, 3, 9}, {4}), 2);
  EXPECT_EQ(ints.values.dtype(), DType::i64);
  EXPECT_EQ(ints.values.to_vector<std::int64_t>(), (std::vector<std::int64_t>{9, 3}));
  EXPECT_EQ(ints.indices.to_vector<std::int64_t>(), (std::vector<std::int64_t>{3, 0}));
  // k = 0, and a 0-d tensor as one element.
  EXPECT_EQ(lazy::topk(x, 0).values.shape(), Shape({0}));
  EXPECT_EQ(lazy::topk(lazy::full({}, 2.5f), 1).values.item<float>(), 2.5f);
  // PyTorch's k = 0 of a 0-d tensor is still the tensor and index 0 (a review found [0]).
  const lazy::ValuesAndIndices none_of_one = lazy::topk(lazy::full({}, 2.5f), 0);
  EXPECT_EQ(none_of_one.values.shape(), Shape({}));
  EXPECT_EQ(none_of_one.values.item<float>(), 2.5f);
  EXPECT_EQ(none_of_one.indices.item<std::int64_t>(), 0);
  EXPECT_THROW(lazy::topk(lazy::full({}, 2.5f), 2), lazy::ValueError);
}

TEST(TopK, BadInputIsRefusedAtTheCall) {
  Tensor x = lazy::zeros({2, 3});
  EXPECT_THROW(lazy::topk(x, 4), lazy::ValueError);
  EXPECT_THROW(lazy::topk(x, -1), lazy::ValueError);
  EXPECT_THROW(lazy::topk(x, 1, 2), lazy::AxisError);
  EXPECT_THROW(lazy::topk(Tensor(), 1), lazy::ValueError);
}

TEST(TopKKernels, TheProducingWorkRunsInsideTheTopKKernelWithBothOutputs) {
  Tensor logits = lazy::from_data(random_floats(8 * 300, 2), {8, 300});
  lazy::ValuesAndIndices best = lazy::topk(logits / 0.7f, 5);
  lazy_test::Generated g = lazy_test::generate_pending();
  lazy_test::expect_compiles(g);
  ASSERT_EQ(g.kernels.size(), 1u) << g.partition.describe();
  EXPECT_NE(g.kernels[0].source.find("lz_div"), std::string::npos) << g.kernels[0].source;
  EXPECT_EQ(g.partition.regions[0].roots.size(), 2u);
  const std::string described = g.partition.describe();
  EXPECT_NE(described.find("selects the 5 largest of rows of 300"), std::string::npos) << described;
  lazy::sync();
  std::vector<float> xs = logits.to_vector<float>();
  std::vector<std::int64_t> at = best.indices.to_vector<std::int64_t>();
  for (int r = 0; r < 8; ++r) {
    const auto row = xs.begin() + r * 300;
    EXPECT_EQ(at[std::size_t(r * 5)], std::max_element(row, row + 300) - row);
  }
}

TEST(TopKKernels, EveryDtypeCompiles) {
  for (DType dtype : lazy_test::kAllDTypes) {
    for (bool largest : {true, false}) {
      Tensor x = lazy::from_data(random_floats(3 * 40, 6), {3, 40}).to(dtype);
      lazy::ValuesAndIndices best = lazy::topk(x, 7, 1, largest);
      lazy_test::expect_compiles(lazy_test::generate_pending());
      lazy::sync();
    }
  }
}

}  // namespace

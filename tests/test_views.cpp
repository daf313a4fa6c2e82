// Views: reshape, permute, transpose, expand, slice, squeeze, unsqueeze and flatten index their
// input as NumPy would, compose with each other and with pointwise ops, and never copy
// computed data. Expected values come from index arithmetic written out in each test.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "ir/node.h"
#include "lazy/lazy.h"
#include "runtime/storage_mirror.h"

namespace lazy {
void PrintTo(const Shape& shape, std::ostream* os) {
  *os << shape.to_string();
}
}  // namespace lazy

namespace {

using lazy::Shape;
using lazy::Tensor;

// Distinct-looking integers, exact in f32, so that a misplaced element shows.
std::vector<double> random_values(std::int64_t count, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> dist(-1000, 1000);
  std::vector<double> values(static_cast<std::size_t>(count));
  for (double& v : values) v = dist(gen);
  return values;
}

// An f32 tensor of random values, with the values kept for computing expectations.
struct Source {
  std::vector<double> values;
  Tensor tensor;
};

Source random_tensor(const Shape& shape, unsigned seed) {
  std::vector<double> values = random_values(shape.numel(), seed);
  return {values, lazy::from_data(values, shape)};
}

std::shared_ptr<const lazy::ir::Storage> storage_of(const Tensor& t) {
  return t.node()->data->storage;
}

// The indices NumPy's x[start:stop:step] visits on an axis of size n, found by filtering every
// index against the definition rather than by computing a length.
std::vector<std::int64_t> numpy_slice_indices(std::int64_t n, std::optional<std::int64_t> start,
                                              std::optional<std::int64_t> stop, std::int64_t step) {
  auto from_end = [n](std::int64_t i) { return i < 0 ? i + n : i; };
  std::vector<std::int64_t> indices;
  if (step > 0) {
    std::int64_t first = start ? std::max<std::int64_t>(from_end(*start), 0) : 0;
    std::int64_t bound = stop ? from_end(*stop) : n;
    for (std::int64_t i = 0; i < n; ++i)
      if (i >= first && i < bound && (i - first) % step == 0) indices.push_back(i);
  } else {
    std::int64_t first = start ? std::min<std::int64_t>(from_end(*start), n - 1) : n - 1;
    std::int64_t bound = stop ? from_end(*stop) : -1;
    for (std::int64_t i = n - 1; i >= 0; --i)
      if (i <= first && i > bound && (first - i) % -step == 0) indices.push_back(i);
  }
  return indices;
}

// ---- reshape ----

TEST(Reshape, KeepsRowMajorOrder) {
  Source x = random_tensor({2, 3, 4}, 1);
  Tensor r = x.tensor.reshape({4, 6});
  EXPECT_EQ(r.shape(), (Shape{4, 6}));
  EXPECT_EQ(r.to_vector<double>(), x.values);
}

TEST(Reshape, InfersTheAxisGivenAsMinusOne) {
  Source x = random_tensor({2, 3, 4}, 2);
  EXPECT_EQ(x.tensor.reshape({-1, 4}).shape(), (Shape{6, 4}));
  EXPECT_EQ(x.tensor.reshape({2, -1}).shape(), (Shape{2, 12}));
  EXPECT_EQ(x.tensor.reshape({-1}).shape(), (Shape{24}));
  EXPECT_EQ(x.tensor.reshape({3, -1, 2}).to_vector<double>(), x.values);
}

TEST(Reshape, GoesToRankZeroAndBack) {
  Source x = random_tensor({1, 1}, 3);
  Tensor scalar = x.tensor.reshape(Shape{});
  EXPECT_EQ(scalar.rank(), 0);
  EXPECT_EQ(scalar.item<double>(), x.values[0]);
  EXPECT_EQ(scalar.reshape({1, 1, 1}).to_vector<double>(), x.values);
}

TEST(Reshape, OfATransposedTensorReadsInTransposedOrder) {
  Source x = random_tensor({3, 4}, 4);
  Tensor r = x.tensor.transpose(0, 1).reshape({12});
  std::vector<double> expected(12);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) expected[j * 3 + i] = x.values[i * 4 + j];
  EXPECT_EQ(r.to_vector<double>(), expected);
}

TEST(Reshape, OfAnEvaluatedTransposedTensorReadsInTransposedOrder) {
  Source x = random_tensor({3, 4}, 5);
  Tensor t = x.tensor.transpose(0, 1);
  lazy::sync();
  ASSERT_TRUE(t.is_evaluated());
  Tensor r = t.reshape({2, 6});
  std::vector<double> expected(12);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) expected[j * 3 + i] = x.values[i * 4 + j];
  EXPECT_EQ(r.to_vector<double>(), expected);
}

TEST(Reshape, SplitsAnAxisOfAPermutedTensor) {
  // (3, 2, 4) with strides (4, 12, 1): splitting the last axis needs no copy, merging the first
  // two does; both must read the permuted order.
  Source x = random_tensor({2, 3, 4}, 6);
  Tensor p = x.tensor.permute({1, 0, 2});
  std::vector<double> expected(24);  // p[j][i][k] = x[i][j][k], row-major
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k) expected[(j * 2 + i) * 4 + k] = x.values[(i * 3 + j) * 4 + k];
  EXPECT_EQ(p.reshape({3, 2, 2, 2}).to_vector<double>(), expected);
  EXPECT_EQ(p.reshape({6, 4}).to_vector<double>(), expected);
  EXPECT_EQ(p.reshape({3, 8}).to_vector<double>(), expected);
}

TEST(Reshape, ThatChangesTheElementCountThrowsShapeError) {
  Source x = random_tensor({2, 3}, 7);
  EXPECT_THROW(x.tensor.reshape({4}), lazy::ShapeError);
  EXPECT_THROW(x.tensor.reshape({7}), lazy::ShapeError);
}

TEST(Reshape, WithAMinusOneThatCannotDivideThrowsShapeError) {
  Source x = random_tensor({2, 3}, 8);
  EXPECT_THROW(x.tensor.reshape({-1, 4}), lazy::ShapeError);
}

// Found in review: the message did not say why; beside a 0, any size fits the -1 (PyTorch: "is
// ambiguous").
TEST(Reshape, AMinusOneBesideAZeroSizeIsAmbiguous) {
  try {
    (void)lazy::zeros({0, 3}).reshape({0, -1});
    FAIL() << "no ShapeError";
  } catch (const lazy::ShapeError& e) {
    EXPECT_NE(std::string(e.what()).find("the -1 could be any size"), std::string::npos)
        << e.what();
  }
  // With elements, no size fits: not ambiguous, just wrong.
  try {
    (void)lazy::zeros({2, 3}).reshape({0, -1});
    FAIL() << "no ShapeError";
  } catch (const lazy::ShapeError& e) {
    EXPECT_EQ(std::string(e.what()).find("could be any size"), std::string::npos) << e.what();
  }
}

TEST(Reshape, WithTwoMinusOnesOrANegativeSizeThrowsShapeError) {
  Source x = random_tensor({2, 3}, 9);
  EXPECT_THROW(x.tensor.reshape({-1, -1}), lazy::ShapeError);
  EXPECT_THROW(x.tensor.reshape({-2, -3}), lazy::ShapeError);
}

// ---- permute and transpose ----

TEST(Permute, MovesEachAxisWhereTheListSays) {
  Source x = random_tensor({2, 3, 4}, 10);
  Tensor p = x.tensor.permute({2, 0, 1});
  EXPECT_EQ(p.shape(), (Shape{4, 2, 3}));
  std::vector<double> expected(24);  // p[k][i][j] = x[i][j][k]
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k) expected[(k * 2 + i) * 3 + j] = x.values[(i * 3 + j) * 4 + k];
  EXPECT_EQ(p.to_vector<double>(), expected);
}

TEST(Permute, AcceptsNegativeAxes) {
  Source x = random_tensor({2, 3, 4}, 11);
  Tensor p = x.tensor.permute({-1, 0, -2});
  EXPECT_EQ(p.shape(), (Shape{4, 2, 3}));
  EXPECT_EQ(p.to_vector<double>(), x.tensor.permute({2, 0, 1}).to_vector<double>());
}

TEST(Permute, ThatRepeatsAnAxisThrowsAxisError) {
  Source x = random_tensor({2, 3, 4}, 12);
  EXPECT_THROW(x.tensor.permute({0, 0, 1}), lazy::AxisError);
  EXPECT_THROW(x.tensor.permute({2, -1, 0}), lazy::AxisError);
}

TEST(Permute, WithTheWrongNumberOfAxesThrowsAxisError) {
  Source x = random_tensor({2, 3, 4}, 13);
  EXPECT_THROW(x.tensor.permute({1, 0}), lazy::AxisError);
  EXPECT_THROW(x.tensor.permute({1, 0, 2, 3}), lazy::AxisError);
}

TEST(Permute, WithAnAxisOutOfRangeThrowsAxisError) {
  Source x = random_tensor({2, 3, 4}, 14);
  EXPECT_THROW(x.tensor.permute({0, 1, 3}), lazy::AxisError);
  EXPECT_THROW(x.tensor.permute({0, 1, -4}), lazy::AxisError);
}

TEST(Transpose, SwapsTwoAxes) {
  Source x = random_tensor({2, 3, 4}, 15);
  Tensor t = x.tensor.transpose(0, 2);
  EXPECT_EQ(t.shape(), (Shape{4, 3, 2}));
  std::vector<double> expected(24);  // t[k][j][i] = x[i][j][k]
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k) expected[(k * 3 + j) * 2 + i] = x.values[(i * 3 + j) * 4 + k];
  EXPECT_EQ(t.to_vector<double>(), expected);
}

TEST(Transpose, AcceptsNegativeAxes) {
  Source x = random_tensor({2, 3, 4}, 16);
  EXPECT_EQ(x.tensor.transpose(-1, -3).to_vector<double>(),
            x.tensor.transpose(0, 2).to_vector<double>());
}

TEST(Transpose, TwiceGivesTheOriginal) {
  Source x = random_tensor({3, 5}, 17);
  Tensor back = x.tensor.transpose(0, 1).transpose(1, 0);
  EXPECT_EQ(back.shape(), (Shape{3, 5}));
  EXPECT_EQ(back.to_vector<double>(), x.values);
}

TEST(Transpose, WithAnAxisOutOfRangeThrowsAxisError) {
  Source x = random_tensor({2, 3}, 18);
  EXPECT_THROW(x.tensor.transpose(0, 2), lazy::AxisError);
  EXPECT_THROW(x.tensor.transpose(-3, 1), lazy::AxisError);
}

// ---- expand and broadcast_to ----

TEST(Expand, RepeatsAnAxisOfSizeOne) {
  Source x = random_tensor({3, 1}, 19);
  Tensor e = x.tensor.expand({3, 4});
  EXPECT_EQ(e.shape(), (Shape{3, 4}));
  std::vector<double> expected;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) expected.push_back(x.values[i]);
  EXPECT_EQ(e.to_vector<double>(), expected);
}

TEST(Expand, AddsNewLeadingAxes) {
  Source x = random_tensor({3}, 20);
  Tensor e = x.tensor.expand({2, 4, 3});
  EXPECT_EQ(e.shape(), (Shape{2, 4, 3}));
  std::vector<double> expected;
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 4; ++b)
      for (int i = 0; i < 3; ++i) expected.push_back(x.values[i]);
  EXPECT_EQ(e.to_vector<double>(), expected);
}

TEST(Expand, KeepsTheSizeOfAnAxisGivenAsMinusOne) {
  Source x = random_tensor({3, 1}, 21);
  EXPECT_EQ(x.tensor.expand({-1, 5}).shape(), (Shape{3, 5}));
  Tensor e = x.tensor.expand({2, -1, 5});
  EXPECT_EQ(e.shape(), (Shape{2, 3, 5}));
  std::vector<double> expected;
  for (int a = 0; a < 2; ++a)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 5; ++j) expected.push_back(x.values[i]);
  EXPECT_EQ(e.to_vector<double>(), expected);
}

TEST(Expand, BroadcastToIsTheSameView) {
  Source x = random_tensor({1, 4}, 22);
  Tensor b = x.tensor.broadcast_to({2, 3, 4});
  EXPECT_EQ(b.shape(), (Shape{2, 3, 4}));
  EXPECT_EQ(b.to_vector<double>(), x.tensor.expand({2, 3, 4}).to_vector<double>());
  std::vector<double> values = b.to_vector<double>();
  for (std::size_t i = 0; i < values.size(); ++i) EXPECT_EQ(values[i], x.values[i % 4]) << i;
}

TEST(Expand, ToAnIncompatibleSizeThrowsShapeError) {
  Source x = random_tensor({3}, 23);
  EXPECT_THROW(x.tensor.expand({4}), lazy::ShapeError);
  EXPECT_THROW(x.tensor.expand({2, 6}), lazy::ShapeError);
  Source y = random_tensor({3, 1}, 24);
  EXPECT_THROW(y.tensor.expand({2, 2}), lazy::ShapeError);
}

TEST(Expand, ToFewerAxesThrowsShapeError) {
  Source x = random_tensor({2, 3}, 25);
  EXPECT_THROW(x.tensor.expand({3}), lazy::ShapeError);
}

TEST(Expand, WithMinusOneOnANewLeadingAxisThrowsShapeError) {
  Source x = random_tensor({3}, 26);
  EXPECT_THROW(x.tensor.expand({-1, 3}), lazy::ShapeError);
}

// ---- slice ----

TEST(Slice, TakesStartToStopInSteps) {
  Source x = random_tensor({3, 10}, 27);
  Tensor s = x.tensor.slice(1, 2, 8, 2);
  EXPECT_EQ(s.shape(), (Shape{3, 3}));
  std::vector<double> expected;
  for (int i = 0; i < 3; ++i)
    for (int j : {2, 4, 6}) expected.push_back(x.values[i * 10 + j]);
  EXPECT_EQ(s.to_vector<double>(), expected);
}

TEST(Slice, CountsNegativeIndicesFromTheEnd) {
  Source x = random_tensor({10}, 28);
  Tensor s = x.tensor.slice(0, -3, -1);
  EXPECT_EQ(s.to_vector<double>(), (std::vector<double>{x.values[7], x.values[8]}));
}

TEST(Slice, ClampsBoundsPastEitherEnd) {
  Source x = random_tensor({10}, 29);
  EXPECT_EQ(x.tensor.slice(0, -100, 100).to_vector<double>(), x.values);
  EXPECT_EQ(x.tensor.slice(0, 8, 100).to_vector<double>(),
            (std::vector<double>{x.values[8], x.values[9]}));
  EXPECT_EQ(x.tensor.slice(0, -100, 2).to_vector<double>(),
            (std::vector<double>{x.values[0], x.values[1]}));
}

TEST(Slice, TakesDefaultsForOmittedStartAndStop) {
  Source x = random_tensor({10}, 30);
  EXPECT_EQ(x.tensor.slice(0, std::nullopt, 3).to_vector<double>(),
            (std::vector<double>{x.values[0], x.values[1], x.values[2]}));
  EXPECT_EQ(x.tensor.slice(0, 7, std::nullopt).to_vector<double>(),
            (std::vector<double>{x.values[7], x.values[8], x.values[9]}));
  EXPECT_EQ(x.tensor.slice(0, std::nullopt, std::nullopt, 3).to_vector<double>(),
            (std::vector<double>{x.values[0], x.values[3], x.values[6], x.values[9]}));
}

TEST(Slice, WithANegativeStepWalksBackwards) {
  Source x = random_tensor({10}, 31);
  std::vector<double> reversed(x.values.rbegin(), x.values.rend());
  EXPECT_EQ(x.tensor.slice(0, std::nullopt, std::nullopt, -1).to_vector<double>(), reversed);
  EXPECT_EQ(x.tensor.slice(0, 8, 2, -3).to_vector<double>(),
            (std::vector<double>{x.values[8], x.values[5]}));
  EXPECT_EQ(x.tensor.slice(0, -2, std::nullopt, -4).to_vector<double>(),
            (std::vector<double>{x.values[8], x.values[4], x.values[0]}));
  EXPECT_EQ(x.tensor.slice(0, std::nullopt, 6, -2).to_vector<double>(),
            (std::vector<double>{x.values[9], x.values[7]}));
}

TEST(Slice, WithANegativeStepClampsBoundsPastEitherEnd) {
  Source x = random_tensor({10}, 32);
  EXPECT_EQ(x.tensor.slice(0, 100, -100, -4).to_vector<double>(),
            (std::vector<double>{x.values[9], x.values[5], x.values[1]}));
  EXPECT_EQ(x.tensor.slice(0, 1, -100, -1).to_vector<double>(),
            (std::vector<double>{x.values[1], x.values[0]}));
}

TEST(Slice, ThatSelectsNothingIsEmpty) {
  Source x = random_tensor({10, 4}, 33);
  EXPECT_EQ(x.tensor.slice(0, 5, 2).shape(), (Shape{0, 4}));
  EXPECT_EQ(x.tensor.slice(0, 2, 5, -1).shape(), (Shape{0, 4}));
  EXPECT_EQ(x.tensor.slice(0, 100, 200).shape(), (Shape{0, 4}));
  EXPECT_EQ(x.tensor.slice(1, -1, 0, -1).shape(), (Shape{10, 3}));
  EXPECT_EQ(x.tensor.slice(1, 3, 3).shape(), (Shape{10, 0}));
  EXPECT_TRUE(x.tensor.slice(1, 3, 3).to_vector<double>().empty());
  EXPECT_TRUE(x.tensor.slice(0, -1, 20, -1).to_vector<double>().empty());
}

TEST(Slice, MatchesNumPyForRandomBoundsAndSteps) {
  const std::int64_t n = 9;
  Source x = random_tensor({2, n}, 34);
  std::mt19937 gen(35);
  std::uniform_int_distribution<std::int64_t> bound(-2 * n, 2 * n);
  std::uniform_int_distribution<std::int64_t> step_dist(-4, 4);
  std::bernoulli_distribution omitted(0.25);
  for (int trial = 0; trial < 300; ++trial) {
    std::optional<std::int64_t> start, stop;
    if (!omitted(gen)) start = bound(gen);
    if (!omitted(gen)) stop = bound(gen);
    std::int64_t step = step_dist(gen);
    if (step == 0) step = 1;
    std::vector<std::int64_t> indices = numpy_slice_indices(n, start, stop, step);
    std::vector<double> expected;
    for (int row = 0; row < 2; ++row)
      for (std::int64_t j : indices) expected.push_back(x.values[row * n + j]);
    Tensor s = x.tensor.slice(-1, start, stop, step);
    SCOPED_TRACE(testing::Message()
                 << "start " << (start ? std::to_string(*start) : "None") << " stop "
                 << (stop ? std::to_string(*stop) : "None") << " step " << step);
    EXPECT_EQ(s.shape(), (Shape{2, std::int64_t(indices.size())}));
    EXPECT_EQ(s.to_vector<double>(), expected);
  }
}

TEST(Slice, WithStepZeroThrowsValueError) {
  Source x = random_tensor({10}, 36);
  EXPECT_THROW(x.tensor.slice(0, 1, 5, 0), lazy::ValueError);
}

TEST(Slice, WithAnAxisOutOfRangeThrowsAxisError) {
  Source x = random_tensor({4, 5}, 37);
  EXPECT_THROW(x.tensor.slice(2, 0, 1), lazy::AxisError);
  EXPECT_THROW(x.tensor.slice(-3, 0, 1), lazy::AxisError);
}

// ---- squeeze, unsqueeze, flatten ----

TEST(Squeeze, RemovesEveryAxisOfSizeOne) {
  Source x = random_tensor({1, 3, 1, 4, 1}, 38);
  Tensor s = x.tensor.squeeze();
  EXPECT_EQ(s.shape(), (Shape{3, 4}));
  EXPECT_EQ(s.to_vector<double>(), x.values);
}

TEST(Squeeze, OfOneAxisRemovesOnlyThatAxis) {
  Source x = random_tensor({1, 3, 1, 4}, 39);
  EXPECT_EQ(x.tensor.squeeze(2).shape(), (Shape{1, 3, 4}));
  EXPECT_EQ(x.tensor.squeeze(-4).shape(), (Shape{3, 1, 4}));
  EXPECT_EQ(x.tensor.squeeze(2).to_vector<double>(), x.values);
}

// As PyTorch's squeeze(dim): an axis whose size is not 1 is left alone, not an error.
TEST(Squeeze, OfAnAxisNotOfSizeOneLeavesTheTensorAsItIs) {
  Source x = random_tensor({1, 3, 1, 4}, 40);
  EXPECT_EQ(x.tensor.squeeze(1).shape(), (Shape{1, 3, 1, 4}));
  EXPECT_EQ(x.tensor.squeeze(-1).shape(), (Shape{1, 3, 1, 4}));
  EXPECT_EQ(x.tensor.squeeze(-1).to_vector<double>(), x.values);
  EXPECT_EQ(lazy::zeros({0, 2}).squeeze(0).shape(), (Shape{0, 2}));
}

// As PyTorch: a 0-d tensor has axes 0 and -1 for squeeze and transpose, which leave it as it is.
TEST(Squeeze, AndTransposeOfA0dTensorTakeAxis0OrMinus1) {
  const Tensor x = lazy::full({}, 2.5);
  for (const int axis : {0, -1}) {
    EXPECT_EQ(x.squeeze(axis).shape(), Shape{});
    EXPECT_EQ(x.transpose(axis, 0).to_vector<float>(), std::vector<float>{2.5f});
  }
  EXPECT_THROW(x.squeeze(1), lazy::AxisError);
  EXPECT_THROW(x.transpose(0, -2), lazy::AxisError);
}

TEST(Squeeze, OfAnAxisOutOfRangeThrowsAxisError) {
  Source x = random_tensor({1, 3}, 41);
  EXPECT_THROW(x.tensor.squeeze(2), lazy::AxisError);
  EXPECT_THROW(x.tensor.squeeze(-3), lazy::AxisError);
}

TEST(Unsqueeze, InsertsAnAxisOfSizeOne) {
  Source x = random_tensor({3, 4}, 42);
  EXPECT_EQ(x.tensor.unsqueeze(0).shape(), (Shape{1, 3, 4}));
  EXPECT_EQ(x.tensor.unsqueeze(1).shape(), (Shape{3, 1, 4}));
  EXPECT_EQ(x.tensor.unsqueeze(2).shape(), (Shape{3, 4, 1}));
  EXPECT_EQ(x.tensor.unsqueeze(1).to_vector<double>(), x.values);
}

TEST(Unsqueeze, CountsNegativeAxesInTheResult) {
  Source x = random_tensor({3, 4}, 43);
  EXPECT_EQ(x.tensor.unsqueeze(-1).shape(), (Shape{3, 4, 1}));
  EXPECT_EQ(x.tensor.unsqueeze(-2).shape(), (Shape{3, 1, 4}));
  EXPECT_EQ(x.tensor.unsqueeze(-3).shape(), (Shape{1, 3, 4}));
}

TEST(Unsqueeze, WithAnAxisOutOfRangeThrowsAxisError) {
  Source x = random_tensor({3, 4}, 44);
  EXPECT_THROW(x.tensor.unsqueeze(3), lazy::AxisError);
  EXPECT_THROW(x.tensor.unsqueeze(-4), lazy::AxisError);
}

TEST(Flatten, MergesAllAxesByDefault) {
  Source x = random_tensor({2, 3, 4}, 45);
  Tensor f = x.tensor.flatten();
  EXPECT_EQ(f.shape(), (Shape{24}));
  EXPECT_EQ(f.to_vector<double>(), x.values);
}

TEST(Flatten, MergesOnlyTheGivenRangeOfAxes) {
  Source x = random_tensor({2, 3, 4, 5}, 46);
  EXPECT_EQ(x.tensor.flatten(1).shape(), (Shape{2, 60}));
  EXPECT_EQ(x.tensor.flatten(0, 1).shape(), (Shape{6, 4, 5}));
  EXPECT_EQ(x.tensor.flatten(1, -2).shape(), (Shape{2, 12, 5}));
  EXPECT_EQ(x.tensor.flatten(2, 2).shape(), (Shape{2, 3, 4, 5}));
  EXPECT_EQ(x.tensor.flatten(1, 2).to_vector<double>(), x.values);
}

TEST(Flatten, OfATransposedTensorReadsInTransposedOrder) {
  Source x = random_tensor({2, 5}, 47);
  std::vector<double> expected(10);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 5; ++j) expected[j * 2 + i] = x.values[i * 5 + j];
  EXPECT_EQ(x.tensor.transpose(0, 1).flatten().to_vector<double>(), expected);
}

TEST(Flatten, WithStartAfterEndThrowsAxisError) {
  Source x = random_tensor({2, 3, 4}, 48);
  EXPECT_THROW(x.tensor.flatten(2, 1), lazy::AxisError);
}

// ---- views composed ----

TEST(ComposedViews, TransposeThenReshapeThenSlice) {
  Source x = random_tensor({4, 6}, 49);
  Tensor v = x.tensor.transpose(0, 1).reshape({3, 8}).slice(1, 1, std::nullopt, 3);
  EXPECT_EQ(v.shape(), (Shape{3, 3}));
  // t[r][c] = x[c][r] with t of shape (6, 4); its row-major element f is t[f / 4][f % 4].
  auto transposed_flat = [&](int f) { return x.values[(f % 4) * 6 + f / 4]; };
  std::vector<double> expected;
  for (int a = 0; a < 3; ++a)
    for (int b : {1, 4, 7}) expected.push_back(transposed_flat(a * 8 + b));
  EXPECT_EQ(v.to_vector<double>(), expected);
}

TEST(ComposedViews, SliceThenExpand) {
  Source x = random_tensor({3, 6}, 50);
  Tensor v = x.tensor.slice(1, 2, 3).expand({2, 3, 5});
  EXPECT_EQ(v.shape(), (Shape{2, 3, 5}));
  std::vector<double> expected;
  for (int a = 0; a < 2; ++a)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 5; ++j) expected.push_back(x.values[i * 6 + 2]);
  EXPECT_EQ(v.to_vector<double>(), expected);
}

TEST(ComposedViews, PermuteThenNegativeStepSliceThenReshape) {
  Source x = random_tensor({2, 3, 4}, 51);
  // p[k][i][j] = x[i][j][k]; the slice keeps k = 3, 1; the reshape merges (k, i).
  Tensor v = x.tensor.permute({2, 0, 1}).slice(0, std::nullopt, std::nullopt, -2).reshape({4, 3});
  EXPECT_EQ(v.shape(), (Shape{4, 3}));
  std::vector<double> expected;
  for (int k : {3, 1})
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j) expected.push_back(x.values[(i * 3 + j) * 4 + k]);
  EXPECT_EQ(v.to_vector<double>(), expected);
}

TEST(ComposedViews, ExpandThenReshapeRepeatsTheRows) {
  Source x = random_tensor({3}, 52);
  Tensor v = x.tensor.expand({2, 3}).reshape({6});
  std::vector<double> expected = x.values;
  expected.insert(expected.end(), x.values.begin(), x.values.end());
  EXPECT_EQ(v.to_vector<double>(), expected);
}

TEST(ComposedViews, SliceOfASlice) {
  Source x = random_tensor({20}, 53);
  // x[2::3] visits 2, 5, 8, 11, 14, 17; [::-2] of that visits 17, 11, 5.
  Tensor v = x.tensor.slice(0, 2, std::nullopt, 3).slice(0, std::nullopt, std::nullopt, -2);
  EXPECT_EQ(v.to_vector<double>(), (std::vector<double>{x.values[17], x.values[11], x.values[5]}));
}

TEST(ComposedViews, UnsqueezeTransposeSqueeze) {
  Source x = random_tensor({2, 3}, 54);
  Tensor v = x.tensor.unsqueeze(1).transpose(0, 2).squeeze();
  EXPECT_EQ(v.shape(), (Shape{3, 2}));
  std::vector<double> expected(6);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j) expected[j * 2 + i] = x.values[i * 3 + j];
  EXPECT_EQ(v.to_vector<double>(), expected);
}

TEST(ComposedViews, OfAnEvaluatedViewIndexThroughBothLayouts) {
  Source x = random_tensor({4, 5}, 55);
  Tensor first = x.tensor.slice(1, std::nullopt, std::nullopt, -1).transpose(0, 1);  // (5, 4)
  lazy::sync();
  Tensor second = first.slice(0, 1, 4, 2).reshape({8});  // rows 1 and 3 of `first`
  std::vector<double> expected;
  for (int r : {1, 3})
    for (int c = 0; c < 4; ++c) expected.push_back(x.values[c * 5 + (4 - r)]);
  EXPECT_EQ(second.to_vector<double>(), expected);
}

TEST(ComposedViews, ExpandOfAnEvaluatedTransposedRow) {
  Source x = random_tensor({3, 2}, 69);
  Tensor t = x.tensor.transpose(0, 1);  // t[j][i] = x[i][j]
  lazy::sync();
  Tensor v = t.slice(0, 1, 2).expand({4, 3});
  std::vector<double> expected;
  for (int a = 0; a < 4; ++a)
    for (int i = 0; i < 3; ++i) expected.push_back(x.values[i * 2 + 1]);
  EXPECT_EQ(v.to_vector<double>(), expected);
}

TEST(ComposedViews, SliceOfAnExpandedTensor) {
  Source x = random_tensor({3}, 70);
  Tensor v = x.tensor.expand({4, 3})
                 .slice(0, std::nullopt, std::nullopt, -3)
                 .slice(1, -1, std::nullopt, -2);
  EXPECT_EQ(v.shape(), (Shape{2, 2}));
  EXPECT_EQ(v.to_vector<double>(),
            (std::vector<double>{x.values[2], x.values[0], x.values[2], x.values[0]}));
}

TEST(ComposedViews, ReshapeOfAColumnSlice) {
  Source x = random_tensor({4, 6}, 71);
  Tensor column = x.tensor.slice(1, 2, 3);  // (4, 1), a stride of 6 between elements
  Tensor v = column.reshape({2, 2}).transpose(0, 1);
  // column.reshape gives c[a][b] = x[2a + b][2]; the transpose reads c[b][a].
  std::vector<double> expected;
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 2; ++b) expected.push_back(x.values[(2 * b + a) * 6 + 2]);
  EXPECT_EQ(v.to_vector<double>(), expected);
}

TEST(ComposedViews, KeepIntegerValuesExact) {
  std::mt19937_64 gen(56);
  std::vector<std::int64_t> values(12);
  for (std::int64_t& v : values) v = std::int64_t(gen());  // beyond what a double holds exactly
  Tensor x = lazy::from_data(values, {3, 4});
  Tensor v = x.transpose(0, 1).slice(0, std::nullopt, std::nullopt, -1).flatten();
  EXPECT_EQ(v.dtype(), lazy::i64);
  std::vector<std::int64_t> expected;
  for (int j = 3; j >= 0; --j)
    for (int i = 0; i < 3; ++i) expected.push_back(values[i * 4 + j]);
  EXPECT_EQ(v.to_vector<std::int64_t>(), expected);
}

// ---- views mixed with pointwise ops ----

TEST(ViewsWithPointwise, TransposeFeedsAnAdd) {
  Source x = random_tensor({3, 4}, 57);
  Source y = random_tensor({4, 3}, 58);
  Tensor sum = x.tensor.transpose(0, 1) + y.tensor;
  std::vector<double> expected(12);
  for (int j = 0; j < 4; ++j)
    for (int i = 0; i < 3; ++i) expected[j * 3 + i] = x.values[i * 4 + j] + y.values[j * 3 + i];
  EXPECT_EQ(sum.to_vector<double>(), expected);
}

TEST(ViewsWithPointwise, OverlappingSlicesOfOneTensorSubtract) {
  Source x = random_tensor({10}, 59);
  Tensor diff = x.tensor.slice(0, 1, std::nullopt) - x.tensor.slice(0, std::nullopt, -1);
  std::vector<double> expected;
  for (int i = 0; i < 9; ++i) expected.push_back(x.values[i + 1] - x.values[i]);
  EXPECT_EQ(diff.to_vector<double>(), expected);
}

TEST(ViewsWithPointwise, ViewOfAPointwiseResult) {
  Source x = random_tensor({2, 3}, 60);
  Tensor v =
      (x.tensor * 2 + 1).transpose(0, 1).reshape({6}).slice(0, std::nullopt, std::nullopt, -1);
  std::vector<double> transposed;
  for (int j = 0; j < 3; ++j)
    for (int i = 0; i < 2; ++i) transposed.push_back(x.values[i * 3 + j] * 2 + 1);
  std::vector<double> expected(transposed.rbegin(), transposed.rend());
  EXPECT_EQ(v.to_vector<double>(), expected);
}

TEST(ViewsWithPointwise, ExpandedColumnTimesRow) {
  Source col = random_tensor({3, 1}, 61);
  Source row = random_tensor({4}, 62);
  Tensor outer = col.tensor.expand({3, 4}) * row.tensor.unsqueeze(0).expand({3, -1});
  std::vector<double> expected;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) expected.push_back(col.values[i] * row.values[j]);
  EXPECT_EQ(outer.to_vector<double>(), expected);
}

TEST(ViewsWithPointwise, ViewOfAnEvaluatedResultFeedsAnotherOp) {
  Source x = random_tensor({4, 3}, 63);
  Tensor doubled = x.tensor * 2;
  lazy::sync();
  Tensor v = doubled.permute({1, 0}).slice(1, -1, std::nullopt, -3) - 1;  // columns 3, 0
  EXPECT_EQ(v.shape(), (Shape{3, 2}));
  std::vector<double> expected;
  for (int j = 0; j < 3; ++j)
    for (int i : {3, 0}) expected.push_back(x.values[i * 3 + j] * 2 - 1);
  EXPECT_EQ(v.to_vector<double>(), expected);
}

// ---- storage ----

TEST(ViewStorage, ViewsOfDataShareItsStorage) {
  Source x = random_tensor({2, 3, 4}, 64);
  std::vector<Tensor> views = {x.tensor.reshape({6, 4}),    x.tensor.permute({2, 0, 1}),
                               x.tensor.transpose(0, 1),    x.tensor.expand({5, 2, 3, 4}),
                               x.tensor.slice(2, 3, 0, -2), x.tensor.unsqueeze(1),
                               x.tensor.flatten()};
  lazy::sync();
  for (const Tensor& v : views) {
    ASSERT_TRUE(v.is_evaluated());
    EXPECT_EQ(storage_of(v), storage_of(x.tensor)) << v.shape().to_string();
  }
}

TEST(ViewStorage, ViewsOfAnEvaluatedResultShareItsStorage) {
  Source x = random_tensor({4, 6}, 65);
  Tensor y = x.tensor + 3;
  lazy::sync();
  ASSERT_TRUE(y.is_evaluated());
  Tensor sliced = y.slice(1, 1, std::nullopt, 2);
  Tensor transposed = y.transpose(0, 1);
  lazy::sync();
  EXPECT_EQ(storage_of(sliced), storage_of(y));
  EXPECT_EQ(storage_of(transposed), storage_of(y));
  std::vector<double> expected;
  for (int i = 0; i < 4; ++i)
    for (int j : {1, 3, 5}) expected.push_back(x.values[i * 6 + j] + 3);
  EXPECT_EQ(sliced.to_vector<double>(), expected);
}

TEST(ViewStorage, AViewComputedInTheSameSyncSharesItsInputsStorage) {
  Source x = random_tensor({3, 4}, 66);
  Tensor y = x.tensor * x.tensor;
  Tensor view = y.transpose(0, 1).slice(0, 1, 3);
  lazy::sync();
  EXPECT_EQ(storage_of(view), storage_of(y));
  std::vector<double> expected;
  for (int j : {1, 2})
    for (int i = 0; i < 3; ++i) expected.push_back(x.values[i * 4 + j] * x.values[i * 4 + j]);
  EXPECT_EQ(view.to_vector<double>(), expected);
}

TEST(ViewStorage, ContiguousMakesADenseRowMajorCopy) {
  Source x = random_tensor({3, 5}, 67);
  Tensor dense = x.tensor.transpose(0, 1).contiguous();
  lazy::sync();
  ASSERT_TRUE(dense.is_evaluated());
  const lazy::ir::TensorData& data = *dense.node()->data;
  EXPECT_NE(data.storage, storage_of(x.tensor));
  EXPECT_TRUE(data.layout.is_contiguous());
  EXPECT_EQ(data.layout.offset, 0);
  ASSERT_EQ(data.storage->numel, 15);
  ASSERT_EQ(data.storage->dtype, lazy::f32);
  // The storage itself, read without the layout, holds the transposed values in order.
  const float* raw = reinterpret_cast<const float*>(lazy::runtime::host_bytes(*data.storage));
  for (int j = 0; j < 5; ++j)
    for (int i = 0; i < 3; ++i) EXPECT_EQ(raw[j * 3 + i], x.values[i * 5 + j]) << i << ", " << j;
}

TEST(ViewStorage, ContiguousOfAnEvaluatedViewCopiesIt) {
  Source x = random_tensor({4, 4}, 68);
  Tensor view = x.tensor.slice(1, std::nullopt, std::nullopt, -2);
  lazy::sync();
  Tensor dense = view.contiguous();
  lazy::sync();
  EXPECT_NE(storage_of(dense), storage_of(x.tensor));
  EXPECT_TRUE(dense.node()->data->layout.is_contiguous());
  std::vector<double> expected;
  for (int i = 0; i < 4; ++i)
    for (int j : {3, 1}) expected.push_back(x.values[i * 4 + j]);
  EXPECT_EQ(dense.to_vector<double>(), expected);
}

}  // namespace

namespace {

// Found in review: the host evaluator read a computed tensor's whole storage again for every
// view of it a sync reads (4000 slices of a 2 MB tensor took 15 s and 8 GB).
TEST(ViewStorage, ManyViewsOfOneStorageReadInOneSyncEachGiveTheirElements) {
  constexpr std::int64_t kPieces = 2000, kPiece = 64;
  Source x = random_tensor({kPieces * kPiece}, 69);
  const std::vector<Tensor> pieces = lazy::split(x.tensor, kPiece);
  lazy::eval(pieces);
  std::vector<Tensor> sums;
  for (std::int64_t p = 0; p < kPieces; ++p)
    sums.push_back(lazy::sum(pieces[std::size_t(p)], 0) * 2.0f);
  lazy::eval(sums);
  for (std::int64_t p = 0; p < kPieces; p += 97) {
    double want = 0;
    for (std::int64_t i = 0; i < kPiece; ++i) want += x.values[std::size_t(p * kPiece + i)];
    EXPECT_NEAR(sums[std::size_t(p)].item<float>(), 2 * want, 1e-4) << "piece " << p;
  }
}

}  // namespace

namespace {

// The host evaluator reads only the part of a storage a computed view reaches (a loop over the
// rows of a split read the whole tensor per row: 15 s for 4000 rows): views at offsets, reversed,
// strided and 0-d, each read in syncs of their own, give their elements.
TEST(ViewStorage, ComputedViewsReadInSyncsOfTheirOwnGiveTheirElements) {
  Source x = random_tensor({6, 5}, 70);
  const std::vector<Tensor> views = {
      x.tensor.slice(0, 2, 3),                            // row 2
      x.tensor.slice(1, std::nullopt, std::nullopt, -2),  // columns 4, 2, 0 of every row
      x.tensor.slice(0, 5, 6).reshape({5}).slice(0, 3, 4).reshape({}),  // element [5, 3]
      x.tensor.transpose(0, 1).slice(0, 1, 3),                          // columns 1 and 2
  };
  lazy::eval(views);
  const std::vector<std::vector<double>> want = [&] {
    const auto at = [&](int i, int j) { return x.values[std::size_t(i * 5 + j)]; };
    std::vector<double> reversed, columns;
    for (int i = 0; i < 6; ++i)
      for (int j : {4, 2, 0}) reversed.push_back(at(i, j));
    for (int j : {1, 2})
      for (int i = 0; i < 6; ++i) columns.push_back(at(i, j));
    return std::vector<std::vector<double>>{
        {at(2, 0), at(2, 1), at(2, 2), at(2, 3), at(2, 4)}, reversed, {at(5, 3)}, columns};
  }();
  for (std::size_t v = 0; v < views.size(); ++v) {
    const std::vector<double> got = (views[v] * 2.0f).to_vector<double>();
    ASSERT_EQ(got.size(), want[v].size()) << "view " << v;
    for (std::size_t i = 0; i < got.size(); ++i)
      EXPECT_EQ(got[i], 2 * want[v][i]) << v << ", " << i;
  }
}

}  // namespace

namespace {

// The host evaluator converts the elements of a computed tensor the sync's views of it reach: a
// loop over its rows, one sync a row, converted all of it each time (4000 rows of 256: 13 s).
// Rows, a transposed block, a broadcast column, a reshape strides cannot express (a copy) and a
// held view, each in syncs of their own, give their elements.
TEST(ViewStorage, ViewsASyncMakesOfAComputedTensorGiveTheirElements) {
  Source x = random_tensor({6, 5}, 71);
  const auto at = [&](int i, int j) { return x.values[std::size_t(i * 5 + j)]; };
  for (int i = 0; i < 6; ++i) {
    const std::vector<double> row = (x.tensor.slice(0, i, i + 1) * 3.0f).to_vector<double>();
    for (int j = 0; j < 5; ++j) EXPECT_EQ(row[std::size_t(j)], 3 * at(i, j)) << i << ", " << j;
  }
  const std::vector<double> block =
      (x.tensor.transpose(0, 1).slice(0, 3, 5).slice(1, 1, 3) + 1.0f).to_vector<double>();
  EXPECT_EQ(block, (std::vector<double>{at(1, 3) + 1, at(2, 3) + 1, at(1, 4) + 1, at(2, 4) + 1}));
  const std::vector<double> column =
      (x.tensor.slice(1, 2, 3).expand({6, 2}) * 1.0f).to_vector<double>();
  for (int i = 0; i < 6; ++i) EXPECT_EQ(column[std::size_t(2 * i + 1)], at(i, 2)) << i;
  const std::vector<double> reshaped =
      (x.tensor.slice(0, 4, 6).transpose(0, 1).reshape({10}) - 0.0f).to_vector<double>();
  for (int k = 0; k < 10; ++k) EXPECT_EQ(reshaped[std::size_t(k)], at(4 + k % 2, k / 2)) << k;
  const Tensor held = x.tensor.slice(0, 5, 6).slice(1, 1, 4);
  const Tensor doubled = held * 2.0f;
  lazy::eval({held, doubled});
  EXPECT_EQ(held.to_vector<double>(), (std::vector<double>{at(5, 1), at(5, 2), at(5, 3)}));
  EXPECT_EQ(doubled.to_vector<double>(),
            (std::vector<double>{2 * at(5, 1), 2 * at(5, 2), 2 * at(5, 3)}));
}

}  // namespace

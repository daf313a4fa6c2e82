// Gathers and the indexing composites on the host path, against loops written here over the
// same random values: shapes, axes, index dtypes, views, empty indices and bad input.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <span>
#include <vector>

#include <lazy/lazy.h>

#include "codegen_test_support.h"
#include "error_test_support.h"
#include "host_test_support.h"
#include "ir/trace.h"

namespace {

using lazy::DType;
using lazy::Shape;
using lazy::Tensor;
using lazy_test::random_floats;

std::vector<std::int64_t> random_indices(std::int64_t n, std::int64_t bound, std::uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<std::int64_t> pick(0, bound - 1);
  std::vector<std::int64_t> v(std::size_t(n), 0);
  for (std::int64_t& x : v) x = pick(gen);
  return v;
}

// Row-major strides of `shape`.
std::vector<std::int64_t> strides_of(const Shape& shape) {
  std::vector<std::int64_t> s(std::size_t(shape.rank()), 1);
  for (int a = shape.rank() - 2; a >= 0; --a) s[a] = s[a + 1] * shape[a + 1];
  return s;
}

// out[c] = x[c with c[axis] = index[c]] over index's shape, x dense of x_shape.
std::vector<float> gather_loop(const std::vector<float>& x, const Shape& x_shape,
                               const std::vector<std::int64_t>& index, const Shape& shape,
                               int axis) {
  const std::vector<std::int64_t> xs = strides_of(x_shape), os = strides_of(shape);
  std::vector<float> out(index.size());
  for (std::size_t i = 0; i < index.size(); ++i) {
    std::int64_t from = 0, rest = std::int64_t(i);
    for (int a = 0; a < shape.rank(); ++a) {
      const std::int64_t c = rest / os[a];
      rest %= os[a];
      from += (a == axis ? index[i] : c) * xs[a];
    }
    out[i] = x[std::size_t(from)];
  }
  return out;
}

// torch_check seed 17913 program 194: planning a gather of a tiled tensor (reshapes of a
// broadcast) failed with an internal error; it plans, and picks the tiled values.
TEST(Gather, OfATiledTensorPlansAndPicksTheTiledValues) {
  std::vector<double> values(202);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = double(i);
  const Tensor x = lazy::from_data(values, {1, 2, 101});
  const Tensor tiled = lazy::tile(x, {3, 2, 2, 3});  // [3, 2, 4, 303]: x[0, c % 2, d % 101]
  std::vector<std::int64_t> picks(3 * 2 * 4 * 303);
  for (std::size_t i = 0; i < picks.size(); ++i) picks[i] = std::int64_t(i % 4);
  const Tensor index = lazy::from_data(picks, {3, 2, 4, 303}, DType::i64);
  const std::vector<double> got = lazy::gather(tiled, 2, index).to_vector<double>();
  ASSERT_EQ(got.size(), picks.size());
  for (std::size_t i = 0; i < picks.size(); ++i) {
    const std::size_t d = i % 303;
    ASSERT_EQ(got[i], double(101 * (picks[i] % 2) + std::int64_t(d % 101))) << i;
  }
}

TEST(Gather, MatchesALoopOverEveryAxisOfRanksOneToFive) {
  const std::vector<Shape> shapes = {{7}, {5, 6}, {3, 4, 5}, {2, 3, 2, 4}, {2, 2, 3, 2, 3}};
  std::uint32_t seed = 1;
  for (const Shape& x_shape : shapes) {
    for (int axis = 0; axis < x_shape.rank(); ++axis) {
      Shape shape = x_shape;
      shape[axis] = 4;  // more picks than some axes have: repeats
      const std::vector<float> x = random_floats(x_shape.numel(), seed++);
      const std::vector<std::int64_t> index = random_indices(shape.numel(), x_shape[axis], seed++);
      for (DType index_dtype : {DType::i64, DType::i32}) {
        Tensor got = lazy::gather(lazy::from_data(x, x_shape),
                                  axis - x_shape.rank(),  // negative axes count from the end
                                  lazy::from_data(index, shape, index_dtype));
        EXPECT_EQ(got.shape(), shape);
        EXPECT_EQ(got.to_vector<float>(), gather_loop(x, x_shape, index, shape, axis))
            << x_shape.to_string() << " axis " << axis;
      }
    }
  }
}

TEST(Gather, IndexSmallerThanXAlongOtherAxesReadsTheLeadingPart) {
  const std::vector<float> x = random_floats(4 * 6, 3);
  const std::vector<std::int64_t> index = {5, 0, 2, 2, 1, 3};  // shape [2, 3] along axis 1
  Tensor got = lazy::gather(lazy::from_data(x, {4, 6}), 1, lazy::from_data(index, {2, 3}));
  const std::vector<float> want = {x[5], x[0], x[2], x[6 + 2], x[6 + 1], x[6 + 3]};
  EXPECT_EQ(got.to_vector<float>(), want);
}

TEST(Gather, ReadsThroughViewsOfXAndOfTheIndex) {
  const std::vector<float> x = random_floats(5 * 4, 4);
  Tensor xt = lazy::from_data(x, {5, 4}).transpose(0, 1);  // [4, 5], strides (1, 4)
  const std::vector<std::int64_t> index = {4, 0, 3, 1, 1, 2, 0, 0, 2, 3, 4, 4};
  Tensor wide = lazy::from_data(index, {2, 6}).slice(1, 0, 6, 2).transpose(0, 1);  // [3, 2]
  Tensor got = lazy::gather(xt, 1, wide);
  // wide[r][c] = index[c * 6 + 2 * r]; got[r][c] = xt[r][wide[r][c]] = x[wide * 4 + r].
  std::vector<float> want;
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 2; ++c) want.push_back(x[std::size_t(index[c * 6 + 2 * r] * 4 + r)]);
  EXPECT_EQ(got.to_vector<float>(), want);
}

TEST(Gather, KeepsIntegerAndBoolValuesExactly) {
  const std::vector<std::int64_t> big = {(std::int64_t(1) << 60) + 1, -7, 42};
  Tensor got =
      lazy::gather(lazy::from_data(big, {3}), 0, lazy::from_data<std::int64_t>({2, 0, 0}, {3}));
  EXPECT_EQ(got.to_vector<std::int64_t>(), (std::vector<std::int64_t>{42, big[0], big[0]}));
  Tensor flags = lazy::from_data<std::int32_t>({0, 1, 0}, {3}) != 0;
  EXPECT_EQ(lazy::gather(flags, 0, lazy::from_data<std::int64_t>({1, 1, 0}, {3})).to_vector<bool>(),
            (std::vector<bool>{true, true, false}));
}

TEST(Gather, EmptyIndexGivesAnEmptyResult) {
  Tensor x = lazy::from_data(random_floats(6, 5), {2, 3});
  Tensor got = lazy::gather(x, 1, lazy::zeros({2, 0}, DType::i64));
  EXPECT_EQ(got.shape(), Shape({2, 0}));
  EXPECT_TRUE(got.to_vector<float>().empty());
}

TEST(Gather, FusesWithThePointworkAroundIt) {
  const std::vector<float> x = random_floats(8, 6);
  Tensor picked = lazy::gather(lazy::from_data(x, {8}) * 2.0f, 0,
                               lazy::from_data<std::int64_t>({7, 3, 3}, {3}) + 0);
  EXPECT_EQ((picked + 1.0f).to_vector<float>(),
            (std::vector<float>{x[7] * 2 + 1, x[3] * 2 + 1, x[3] * 2 + 1}));
}

TEST(Embedding, RowsAreReadAsOneVectorPerGroupWhoseIndexIsChecked) {
  // 4096 x 8 ids: enough rows that a thread takes a group of 8 (codegen/iteration_space.h).
  constexpr std::int64_t kIds = 4096 * 8;
  Tensor table = lazy::from_data(random_floats(40 * 16, 12), {40, 16}).to(DType::bf16);
  Tensor pos = lazy::from_data(random_floats(8 * 16, 13), {8, 16}).to(DType::bf16);
  lazy::eval({table, pos});
  std::vector<std::int64_t> picked = {3, 39, 0, 7, 7, 1};
  for (std::int64_t i = 6; i < kIds; ++i) picked.push_back(i * 7 % 40);
  Tensor y = lazy::embedding(table, lazy::from_data(picked, {4096, 8})) * 4.0f + pos;
  lazy_test::Generated g = lazy_test::generate_pending();
  lazy_test::expect_compiles(g);
  ASSERT_EQ(g.kernels.size(), 1u);
  const std::string& source = g.kernels[0].source;
  EXPECT_NE(source.find("lz_gather_vec<8>"), std::string::npos) << source;
  EXPECT_EQ(source.find("lz_gather_element"), std::string::npos) << source;
  const std::vector<float> t = table.to_vector<float>(), p = pos.to_vector<float>();
  std::vector<float> want;
  for (std::int64_t r = 0; r < kIds; ++r)
    for (std::int64_t c = 0; c < 16; ++c)
      want.push_back(t[std::size_t(picked[std::size_t(r)] * 16 + c)] * 4.0f +
                     p[std::size_t((r % 8) * 16 + c)]);
  // Times 4 is exact in bf16: the sum rounds once.
  EXPECT_EQ(y.to_vector<float>(),
            lazy::from_data(want, {4096, 8, 16}).to(DType::bf16).to_vector<float>());
}

// The bench's shape, generated only: the [seq, dim] positions are broadcast over the batch, so the
// groups visit the batch just outside the innermost dim and find a position row in L2 for every
// sequence (codegen/visit_order.h).
TEST(Embedding, GroupsVisitTheBatchNextToTheRowsTheyShareWithIt) {
  Tensor table = lazy::randn({131072, 4096}, 1, DType::bf16);
  Tensor pos = lazy::randn({4096, 4096}, 2, DType::bf16);
  Tensor ids = lazy::zeros({8, 4096}, DType::i64) + 3;
  Tensor y = lazy::embedding(table, ids) * 64.0f + pos;
  lazy_test::Generated g = lazy_test::generate_pending();
  lazy_test::expect_compiles(g);
  int reordered = 0;
  for (const auto& kernel : g.kernels)
    reordered += kernel.source.find("lz_reuse_order(group * 8") != std::string::npos;
  EXPECT_EQ(reordered, 1);
  lazy::ir::Trace::current().clear();
}

TEST(Gather, LazyDebugNamesTheSourceWrittenFirstAndWhy) {
  Tensor x = lazy::from_data(random_floats(12, 15), {4, 3});
  Tensor picked = lazy::index_select(x + lazy::arange(0, 3, 1, DType::f32), 0,
                                     lazy::from_data<std::int64_t>({3, 0}, {2})) *
                  2.0f;
  lazy_test::Generated g = lazy_test::generate_pending();
  const std::string described = g.partition.describe();  // what LAZY_DEBUG=2 prints
  EXPECT_NE(described.find("Add f32[4, 3] (gather_source) from"), std::string::npos) << described;
  lazy::ir::Trace::current().clear();
}

// Cross-entropy as a user writes it: the gather computes the log_softmax at the labels only, so
// no kernel writes the [rows, classes] log_softmax.
TEST(GatherPushdown, CrossEntropyNeverWritesTheLogSoftmax) {
  const std::vector<float> x = random_floats(6 * 40, 14);
  Tensor logits = lazy::from_data(x, {6, 40});
  Tensor labels = lazy::from_data<std::int64_t>({3, 39, 0, 7, 7, 1}, {6, 1});
  Tensor loss = -lazy::mean(lazy::take_along_axis(lazy::log_softmax(logits, -1), labels, -1));
  lazy_test::Generated g = lazy_test::generate_pending();
  lazy_test::expect_compiles(g);
  for (const auto& region : g.partition.regions)
    for (const auto& root : region.roots)
      EXPECT_NE(g.partition.graph.nodes[root.node]->shape, Shape({6, 40}))
          << lazy::ir::op_name(g.partition.graph.nodes[root.node]->op);
  double want = 0;
  const std::int64_t picked[6] = {3, 39, 0, 7, 7, 1};
  for (int r = 0; r < 6; ++r) {
    double max = -1e300, sum = 0;
    for (int c = 0; c < 40; ++c) max = std::max(max, double(x[r * 40 + c]));
    for (int c = 0; c < 40; ++c) sum += std::exp(double(x[r * 40 + c]) - max);
    want -= (double(x[r * 40 + picked[r]]) - max - std::log(sum)) / 6;
  }
  EXPECT_NEAR(loss.item<float>(), want, 1e-5);
}

// lazyfuse-fuzz seed 14501 program 61, shrunk: a gather of an argmax pushed down into it left
// the argmax's row kernel with nothing to write (a crash in codegen). A written value under the
// gather's views is read from memory.
TEST(GatherPushdown, AGatherOfAReductionReadsItFromMemory) {
  const std::vector<float> x = random_floats(24 * 24, 16);
  Tensor best = lazy::argmax(lazy::from_data(x, {24, 24}), 1);
  Tensor picks = lazy::from_data<std::int32_t>({5, 23, 0, 5}, {4});
  Tensor picked = lazy::gather(best, -1, picks);
  lazy_test::Generated g = lazy_test::generate_pending();
  lazy_test::expect_compiles(g);
  const std::vector<std::int64_t> got = picked.to_vector<std::int64_t>();
  const int rows[4] = {5, 23, 0, 5};
  for (int k = 0; k < 4; ++k) {
    const auto row = x.begin() + rows[k] * 24;
    EXPECT_EQ(got[std::size_t(k)], std::max_element(row, row + 24) - row);
  }
}

TEST(TakeAlongAxis, BroadcastsXAndTheIndexAlongTheOtherAxes) {
  const std::vector<float> x = random_floats(3 * 4, 7);
  const std::vector<std::int64_t> index = {3, 0};  // [1, 2]: the same picks for every row
  Tensor got = lazy::take_along_axis(lazy::from_data(x, {3, 4}), lazy::from_data(index, {1, 2}), 1);
  EXPECT_EQ(got.shape(), Shape({3, 2}));
  std::vector<float> want;
  for (int r = 0; r < 3; ++r)
    for (std::int64_t i : index) want.push_back(x[std::size_t(r * 4 + i)]);
  EXPECT_EQ(got.to_vector<float>(), want);
}

TEST(IndexSelect, PicksSlicesInOrderWithRepeats) {
  const std::vector<float> x = random_floats(3 * 4 * 2, 8);
  const std::vector<std::int64_t> index = {3, 3, 0, 1, 2};
  Tensor got =
      lazy::index_select(lazy::from_data(x, {3, 4, 2}), 1, lazy::from_data(index, {5}, DType::i32));
  EXPECT_EQ(got.shape(), Shape({3, 5, 2}));
  std::vector<float> want;
  for (int a = 0; a < 3; ++a)
    for (std::int64_t i : index)
      for (int b = 0; b < 2; ++b) want.push_back(x[std::size_t(a * 8 + i * 2 + b)]);
  EXPECT_EQ(got.to_vector<float>(), want);
  Tensor none = lazy::index_select(lazy::from_data(x, {3, 4, 2}), 0, lazy::zeros({0}, DType::i64));
  EXPECT_EQ(none.shape(), Shape({0, 4, 2}));
}

TEST(Embedding, LooksUpRowsForIdsOfAnyRank) {
  const std::vector<float> table = random_floats(10 * 3, 9);
  const std::vector<std::int64_t> ids = {9, 0, 4, 4, 2, 7};
  Tensor weight = lazy::from_data(table, {10, 3});
  for (const Shape& shape : {Shape{6}, Shape{2, 3}, Shape{3, 1, 2}}) {
    Tensor got = lazy::embedding(weight, lazy::from_data(ids, shape));
    Shape want_shape = shape;
    want_shape.push_back(3);
    EXPECT_EQ(got.shape(), want_shape);
    std::vector<float> want;
    for (std::int64_t id : ids)
      for (int d = 0; d < 3; ++d) want.push_back(table[std::size_t(id * 3 + d)]);
    EXPECT_EQ(got.to_vector<float>(), want);
  }
  Tensor one = lazy::embedding(weight, lazy::full({}, 4, DType::i64));
  EXPECT_EQ(one.shape(), Shape({3}));
  EXPECT_EQ(one.to_vector<float>(), (std::vector<float>{table[12], table[13], table[14]}));
}

// Found in review: embedding's gradient scattered into its table broadcast over the ids' leading
// sizes (here [2048, 10^6, 32]: 6.5e10 elements, more than any host or GPU holds) before summing
// it down. It scatters into the table's [10^6, 32] now; each row's gradient counts its ids.
TEST(Embedding, TheGradientScattersIntoTheTableItself) {
  constexpr std::int64_t kRows = 1000000, kDim = 32, kBatch = 2048;
  std::vector<std::int64_t> ids;
  for (std::int64_t i = 0; i < kBatch * 2; ++i) ids.push_back(i * 7919 % 50);
  ids[5] = kRows - 1;
  const Tensor picks = lazy::from_data(ids, {kBatch, 2});
  const Tensor table = lazy::zeros({kRows, kDim});
  const Tensor g =
      lazy::grad([&](auto t) { return lazy::sum(lazy::embedding(t[0], picks)); })({table})[0];
  ASSERT_EQ(g.shape(), Shape({kRows, kDim}));
  std::vector<float> want(std::size_t(kRows), 0.0f);
  for (std::int64_t id : ids) want[std::size_t(id)] += 1;
  const std::vector<float> got = lazy::sum(g, {1}).to_vector<float>();
  for (std::int64_t r :
       {std::int64_t(0), std::int64_t(7), std::int64_t(49), std::int64_t(50), kRows - 1})
    EXPECT_EQ(got[std::size_t(r)], want[std::size_t(r)] * kDim) << r;
}

// Found beside torch_check seed 17983 program 19, where PyTorch's CUDA backward faults: a table of
// no columns gives empty rows and an empty gradient of the table's shape.
TEST(Embedding, ATableOfNoColumnsGivesEmptyRowsAndGradient) {
  const Tensor table = lazy::zeros({2, 0});
  const Tensor ids = lazy::from_data<std::int64_t>(std::vector<std::int64_t>(100, 1), {100});
  EXPECT_EQ(lazy::embedding(table, ids).shape(), Shape({100, 0}));
  const Tensor g =
      lazy::grad([&](auto t) { return lazy::sum(lazy::embedding(t[0], ids)); })({table})[0];
  EXPECT_EQ(g.shape(), Shape({2, 0}));
  EXPECT_TRUE(g.to_vector<float>().empty());
}

TEST(IndexErrors, ABadIndexThrowsNamingTheOpValueRangeAndLineAndKeepsTheRest) {
  Tensor weight = lazy::from_data(random_floats(4 * 2, 10), {4, 2});
  Tensor good = weight * 2.0f;
  Tensor bad = lazy::embedding(weight, lazy::from_data<std::int64_t>({1, 4}, {2}));
  const int line = __LINE__ - 1;
  try {
    // On a GPU the sync may return before the kernel has run: then the first read throws.
    lazy::eval({good, bad});
    (void)good.to_vector<float>();
    FAIL() << "no IndexError";
  } catch (const lazy::IndexError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("embedding"), std::string::npos) << what;
    EXPECT_NE(what.find("index 4"), std::string::npos) << what;
    EXPECT_NE(what.find("[0, 4)"), std::string::npos) << what;
    EXPECT_EQ(e.where().line(), std::uint_least32_t(line)) << what;
  }
  EXPECT_TRUE(good.is_evaluated());
  EXPECT_EQ(bad.to_vector<float>()[2], 0.0f);  // the bad row reads 0
  // The program goes on: the fault was thrown once.
  Tensor negative = lazy::gather(weight, 0, lazy::from_data<std::int64_t>({-1, 0}, {1, 2}));
  EXPECT_THROW(negative.to_vector<float>(), lazy::IndexError);
  EXPECT_EQ((weight + 1.0f).to_vector<float>().size(), 8u);
}

// Found in review (PyTorch 2.11 measured): a 0-d x or index counts as 1-d of one element, and the
// gradient scatters back into the 0-d x or through the 0-d index.
TEST(Gather, AZeroDXOrIndexIsOneElement) {
  const Tensor x = lazy::from_data<float>({10, 20, 30}, {3});
  const Tensor picked = lazy::gather(x, 0, lazy::from_data<std::int64_t>({2}, {}));
  EXPECT_EQ(picked.shape(), Shape({}));
  EXPECT_EQ(picked.item<float>(), 30.0f);
  const Tensor repeated =
      lazy::gather(lazy::full({}, 7.0f), -1, lazy::from_data<std::int32_t>({0, 0}, {2}));
  EXPECT_EQ(repeated.to_vector<float>(), (std::vector<float>{7, 7}));
  EXPECT_THROW(lazy::gather(lazy::zeros({2, 3}), 0, lazy::zeros({}, DType::i64)), lazy::ShapeError);
  EXPECT_THROW(lazy::gather(x, 1, lazy::zeros({}, DType::i64)), lazy::AxisError);
  const auto sum_of_gather = [](const Tensor& index) {
    return [index](std::span<const Tensor> t) { return lazy::sum(lazy::gather(t[0], 0, index)); };
  };
  EXPECT_EQ(
      lazy::grad(sum_of_gather(lazy::from_data<std::int64_t>({1}, {})))({x})[0].to_vector<float>(),
      (std::vector<float>{0, 1, 0}));
  const Tensor g =
      lazy::grad(sum_of_gather(lazy::zeros({3}, DType::i64)))({lazy::full({}, 2.0f)})[0];
  EXPECT_EQ(g.shape(), Shape({}));
  EXPECT_EQ(g.item<float>(), 3.0f);
}

TEST(IndexErrors, BadInputIsRefusedAtTheCall) {
  Tensor x = lazy::zeros({3, 4});
  EXPECT_THROW(lazy::gather(x, 0, lazy::zeros({3, 4})), lazy::DTypeError);
  EXPECT_THROW(lazy::gather(x, 0, lazy::zeros({3}, DType::i64)), lazy::ShapeError);
  EXPECT_THROW(lazy::gather(x, 0, lazy::zeros({2, 5}, DType::i64)), lazy::ShapeError);
  EXPECT_THROW(lazy::gather(x, 2, lazy::zeros({3, 4}, DType::i64)), lazy::AxisError);
  EXPECT_THROW(lazy::index_select(x, 0, lazy::zeros({2, 2}, DType::i64)), lazy::ShapeError);
  EXPECT_THROW(lazy::embedding(lazy::zeros({3}), lazy::zeros({2}, DType::i64)), lazy::ShapeError);
  EXPECT_THROW(lazy::masked_fill(x, lazy::zeros({3, 4}), 1), lazy::DTypeError);
  EXPECT_THROW(lazy::masked_fill(x, lazy::zeros({2, 3}) > 0, 1), lazy::ShapeError);
  // Past f16's largest finite value, though it would round to it: refused as PyTorch's checked
  // conversion, naming masked_fill (it named the full that holds the value).
  EXPECT_THAT(lazy_test::message_of<lazy::ValueError>([] {
                (void)lazy::masked_fill(lazy::zeros({2}, DType::f16), lazy::ones({2}) > 0, 65519.0);
              }),
              ::testing::HasSubstr("lazy::masked_fill: the value 65519 is past f16's largest"));
  EXPECT_THROW(lazy::tril(lazy::zeros({3})), lazy::ShapeError);
  EXPECT_THROW(lazy::split(x, std::vector<std::int64_t>{1, 1}), lazy::ShapeError);
  EXPECT_THROW(lazy::chunk(x, 0), lazy::ValueError);
}

TEST(OneHot, MarksEachIdAndLeavesOutOfRangeIdsZero) {
  Tensor got = lazy::one_hot(lazy::from_data<std::int64_t>({2, 0, 5}, {3}), 3);
  EXPECT_EQ(got.dtype(), DType::i64);
  EXPECT_EQ(got.to_vector<std::int64_t>(), (std::vector<std::int64_t>{0, 0, 1, 1, 0, 0, 0, 0, 0}));
  EXPECT_EQ(
      lazy::one_hot(lazy::from_data<std::int32_t>({1}, {1}), 2, DType::f32).to_vector<float>(),
      (std::vector<float>{0, 1}));
}

TEST(OneHot, WithMinusOneCountsMaxPlusOneClassesAsPyTorch) {
  Tensor got = lazy::one_hot(lazy::from_data<std::int64_t>({2, 0}, {2}), -1);
  EXPECT_EQ(got.shape(), Shape({2, 3}));
  EXPECT_EQ(got.to_vector<std::int64_t>(), (std::vector<std::int64_t>{0, 0, 1, 1, 0, 0}));
  EXPECT_THROW(lazy::one_hot(lazy::zeros({0}, DType::i64), -1), lazy::ValueError);
  EXPECT_THROW(lazy::one_hot(lazy::zeros({0}, DType::i64), 0), lazy::ValueError);  // as PyTorch
  EXPECT_THROW(lazy::one_hot(lazy::zeros({2}, DType::i64), -2), lazy::ValueError);
}

TEST(MaskedFill, BroadcastsXAndTheMaskTogetherAsPyTorchsOutOfPlaceForm) {
  Tensor x = lazy::from_data<float>({1, 2, 3}, {3});
  Tensor mask = lazy::from_data<std::int32_t>({1, 0, 0, 0, 0, 1}, {2, 3}) != 0;
  Tensor got = lazy::masked_fill(x, mask, -1);
  EXPECT_EQ(got.shape(), Shape({2, 3}));
  EXPECT_EQ(got.to_vector<float>(), (std::vector<float>{-1, 2, 3, 1, 2, -1}));
}

TEST(MaskedFill, KeepsTheDtypeAndBroadcastsTheMask) {
  Tensor x = lazy::from_data<std::int32_t>({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor mask = lazy::from_data<std::int32_t>({1, 0, 1}, {3}) != 0;
  Tensor got = lazy::masked_fill(x, mask, -9);
  EXPECT_EQ(got.dtype(), DType::i32);
  EXPECT_EQ(got.to_vector<std::int32_t>(), (std::vector<std::int32_t>{-9, 2, -9, -9, 5, -9}));
}

TEST(Triangles, KeepTheDiagonalsAskedForOverBatches) {
  Tensor x = lazy::ones({2, 3, 4});
  const std::vector<float> lower = lazy::tril(x).to_vector<float>();
  const std::vector<float> upper = lazy::triu(x, 1).to_vector<float>();
  for (int b = 0; b < 2; ++b)
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 4; ++c) {
        const std::size_t i = std::size_t((b * 3 + r) * 4 + c);
        EXPECT_EQ(lower[i], c <= r ? 1.0f : 0.0f);
        EXPECT_EQ(upper[i], c - r >= 1 ? 1.0f : 0.0f);
      }
  EXPECT_EQ(lazy::tril(x, -5).to_vector<float>(), std::vector<float>(24, 0.0f));
}

TEST(Split, PiecesAreViewsOfTheSizesAsked) {
  Tensor x = lazy::arange(10).reshape({2, 5});
  std::vector<Tensor> pieces = lazy::split(x, 2, 1);
  ASSERT_EQ(pieces.size(), 3u);
  EXPECT_EQ(pieces[2].shape(), Shape({2, 1}));
  EXPECT_EQ(pieces[1].to_vector<std::int64_t>(), (std::vector<std::int64_t>{2, 3, 7, 8}));
  std::vector<Tensor> sized = lazy::split(x, std::vector<std::int64_t>{1, 0, 4}, -1);
  EXPECT_EQ(sized[1].shape(), Shape({2, 0}));
  EXPECT_EQ(sized[2].to_vector<std::int64_t>(),
            (std::vector<std::int64_t>{1, 2, 3, 4, 6, 7, 8, 9}));
  // An empty axis: `chunks` empty pieces, one of split's size 0, and no negative sizes.
  EXPECT_EQ(lazy::chunk(lazy::zeros({0, 2}), 3).size(), 3u);
  EXPECT_EQ(lazy::chunk(lazy::zeros({2, 0}), 4, 1)[3].shape(), Shape({2, 0}));
  EXPECT_EQ(lazy::split(lazy::zeros({0}), 0).size(), 1u);
  EXPECT_THROW(lazy::split(lazy::zeros({0}), -1), lazy::ValueError);
  EXPECT_THROW(lazy::split(lazy::zeros({3}), 0), lazy::ValueError);
  // Found in review: a negative size after sizes that overshoot was a ShapeError.
  EXPECT_THROW(lazy::split(lazy::zeros({7}), std::vector<std::int64_t>{8, -1}), lazy::ValueError);
  std::vector<Tensor> chunks = lazy::chunk(lazy::arange(5), 3);
  ASSERT_EQ(chunks.size(), 3u);  // ceil(5 / 3) = 2: sizes 2, 2, 1
  EXPECT_EQ(chunks[2].to_vector<std::int64_t>(), (std::vector<std::int64_t>{4}));
  EXPECT_EQ(lazy::chunk(lazy::arange(2), 4).size(), 2u);  // fewer pieces than asked
}

TEST(AxisViews, NarrowUnbindAndFlipAsPyTorchs) {
  const Tensor x = lazy::arange(12).reshape({3, 4});
  EXPECT_EQ(lazy::narrow(x, 1, 1, 2).to_vector<std::int64_t>(),
            (std::vector<std::int64_t>{1, 2, 5, 6, 9, 10}));
  EXPECT_EQ(lazy::narrow(x, -2, -1, 1).to_vector<std::int64_t>(),
            (std::vector<std::int64_t>{8, 9, 10, 11}));
  EXPECT_EQ(lazy::narrow(x, 1, 4, 0).shape(), Shape({3, 0}));
  EXPECT_THROW(lazy::narrow(x, 1, 3, 2), lazy::ShapeError);  // slice would clamp to 1
  EXPECT_THROW(lazy::narrow(x, 1, 5, 0), lazy::IndexError);
  EXPECT_THROW(lazy::narrow(x, 1, -5, 1), lazy::IndexError);
  EXPECT_THROW(lazy::narrow(x, 1, 0, -1), lazy::ValueError);
  EXPECT_THROW(lazy::narrow(lazy::full({}, 1.0f), 0, 0, 1), lazy::ShapeError);

  const std::vector<Tensor> columns = lazy::unbind(x, -1);
  ASSERT_EQ(columns.size(), 4u);
  EXPECT_EQ(columns[3].shape(), Shape({3}));
  EXPECT_EQ(columns[3].to_vector<std::int64_t>(), (std::vector<std::int64_t>{3, 7, 11}));
  EXPECT_TRUE(lazy::unbind(lazy::zeros({0, 2})).empty());
  EXPECT_EQ(lazy::unbind(lazy::arange(2))[1].shape(), Shape({}));
  EXPECT_THROW(lazy::unbind(lazy::full({}, 1.0f)), lazy::ShapeError);

  EXPECT_EQ(lazy::flip(x, {0, -1}).to_vector<std::int64_t>(),
            (std::vector<std::int64_t>{11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0}));
  EXPECT_EQ((lazy::flip(x, {1}) + 0).to_vector<std::int64_t>(),
            (std::vector<std::int64_t>{3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8}));
  EXPECT_EQ(lazy::flip(x, {}).to_vector<std::int64_t>(), x.to_vector<std::int64_t>());
  EXPECT_EQ(lazy::flip(lazy::full({}, 2.0f), {0}).item<float>(), 2.0f);
  EXPECT_THROW(lazy::flip(x, {1, -1}), lazy::AxisError);
  EXPECT_THROW(lazy::flip(x, {2}), lazy::AxisError);
  // The gradient of a flip is the flipped cotangent.
  const Tensor w = lazy::from_data<float>({1, 2, 3}, {3});
  const Tensor g = lazy::grad([&](std::span<const Tensor> t) {
    return lazy::sum(lazy::flip(t[0], {0}) * w);
  })({lazy::zeros({3})})[0];
  EXPECT_EQ(g.to_vector<float>(), (std::vector<float>{3, 2, 1}));
}

}  // namespace

// The reduction-splitting pass alone, graph in -> graph out: which reductions it splits and from
// which numbers (fuse/reduction_splits.h), that the stages are valid graph nodes standing for the
// user's reduction, and that the rewritten graph computes what the recorded one does (both
// through the reference evaluator). Runs without a GPU.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include <lazy/lazy.h>

#include "fuse/graph.h"
#include "fuse/reduction_splits.h"
#include "fuse/split_reductions.h"
#include "ir/dtype_codec.h"
#include "ir/trace.h"
#include "ref/evaluator.h"

namespace {

using lazy::DType;
using lazy::Shape;
using lazy::Tensor;
using lazy::fuse::choose_split;
using lazy::fuse::Graph;
using lazy::fuse::split_reductions;
using lazy::fuse::SplitKind;
using lazy::ir::NodePtr;
using lazy::ir::Op;
using lazy::ir::Trace;
using ::testing::HasSubstr;

constexpr std::uint64_t kAxis0 = 1, kAxis1 = 2, kAxes01 = 3;

class SplitReductions : public ::testing::Test {
 protected:
  void SetUp() override { lazy::sync(); }
  void TearDown() override { Trace::current().clear(); }

  static Graph recorded() {
    Trace& trace = Trace::current();
    const std::vector<bool> live = trace.live();
    return lazy::fuse::recorded_graph(trace.pending(), live, trace.externals());
  }
  // The node of `graph` that stands for the recorded node behind `t`.
  static const NodePtr& standing_for(const Graph& graph, const Tensor& t) {
    for (std::size_t i = 0; i < graph.size(); ++i)
      if (graph.recorded[i] == std::int32_t(t.node()->trace_index)) return graph.nodes[i];
    ADD_FAILURE() << "nothing stands for the tensor";
    return graph.nodes.at(0);
  }
  static int count(const Graph& graph, Op op) {
    int n = 0;
    for (const NodePtr& node : graph.nodes) n += node->op == op;
    return n;
  }
  // The values of `t` computed from the recorded graph and from the rewritten one.
  static std::pair<std::vector<double>, std::vector<double>> both_values(const Tensor& t) {
    const Graph before = recorded();
    const Graph after = split_reductions(before);
    EXPECT_FALSE(after.rewrites.empty());
    const std::int32_t index = std::int32_t(t.node()->trace_index);
    auto values = [](const Graph& graph, std::uint32_t at) {
      std::vector<bool> live(graph.size(), false);
      live[at] = true;
      std::optional<lazy::ir::TensorData> data = lazy::ref::evaluate(graph.nodes, live)[at];
      EXPECT_TRUE(data->layout.is_contiguous());
      std::vector<double> out;
      for (std::int64_t i = 0; i < data->layout.shape.numel(); ++i) {
        out.push_back(lazy::ir::load_as_double(data->storage->host.data(), data->storage->dtype,
                                               data->layout.offset + i));
      }
      return out;
    };
    std::uint32_t after_at = 0;
    for (std::uint32_t i = 0; i < after.size(); ++i)
      if (after.recorded[i] == index) after_at = i;
    return {values(before, std::uint32_t(index)), values(after, after_at)};
  }
};

// ---------------------------------------------------------------------------------------------
// The decisions, from the numbers.

TEST(ReductionSplitChoice, AFullReductionSplitsFrom65536Elements) {
  EXPECT_EQ(choose_split(Op::ReduceSum, Shape{65535}, kAxis0).kind, SplitKind::none);
  EXPECT_EQ(choose_split(Op::ReduceSum, Shape{65536}, kAxis0).kind, SplitKind::chunks);
  EXPECT_EQ(choose_split(Op::ReduceAll, Shape{300, 1000}, kAxes01).kind, SplitKind::chunks);
}

TEST(ReductionSplitChoice, FewLongRowsSplitWhenTheRowIsWholeChunks) {
  EXPECT_EQ(choose_split(Op::ReduceMax, Shape{255, 65536}, kAxis1).kind, SplitKind::row_chunks);
  EXPECT_EQ(choose_split(Op::ReduceMax, Shape{256, 65536}, kAxis1).kind, SplitKind::none);
  EXPECT_EQ(choose_split(Op::ReduceMax, Shape{4, 70000}, kAxis1).kind, SplitKind::none);
}

// lazyfuse-fuzz seed 15204 program 1813: a layer_norm of [0, 1, 1, 458752] chose row chunks for
// its 0 rows and divided by zero (SIGFPE) while splitting.
TEST(ReductionSplitChoice, NoRowsAreNotSplit) {
  const std::uint64_t last = std::uint64_t(1) << 3;
  EXPECT_EQ(choose_split(Op::ReduceSum, Shape{0, 1, 1, 458752}, last).kind, SplitKind::none);
  lazy::Tensor x = lazy::from_data(std::vector<float>{}, {0, 1, 1, 458752});
  lazy::Tensor w = lazy::ones({458752});
  lazy::Tensor normed = lazy::layer_norm(x * 2.0f, w, w, 1e-3);
  lazy::eval({normed});
  EXPECT_EQ(normed.shape(), Shape({0, 1, 1, 458752}));
}

TEST(ReductionSplitChoice, FewResultsOfALongColumnFoldSplitIntoRuns) {
  const auto split = choose_split(Op::ReduceSum, Shape{16384, 4096}, kAxis0);
  EXPECT_EQ(split.kind, SplitKind::column_runs);
  EXPECT_EQ(split.axis, 0);
  EXPECT_EQ(split.runs, 16);  // 2^16 first-stage results
  EXPECT_EQ(choose_split(Op::ReduceSum, Shape{1024, 4096}, kAxis0).kind, SplitKind::none);
  EXPECT_EQ(choose_split(Op::ReduceSum, Shape{4096, 65536}, kAxis0).kind, SplitKind::none);
}

TEST(ReductionSplitChoice, ArgReductionsSplitIntoRunsOnlyForFewResults) {
  const auto last = choose_split(Op::ArgMax, Shape{64, 100000}, kAxis1);
  EXPECT_EQ(last.kind, SplitKind::arg_runs);
  EXPECT_EQ(last.length, 16384);
  const auto flat = choose_split(Op::ArgMin, Shape{40, 5000}, kAxes01);
  EXPECT_EQ(flat.kind, SplitKind::arg_runs);
  EXPECT_TRUE(flat.flat);
  EXPECT_EQ(choose_split(Op::ArgMax, Shape{65536, 256}, kAxis0).kind, SplitKind::arg_runs);
  EXPECT_EQ(choose_split(Op::ArgMax, Shape{16384, 4096}, kAxis0).kind, SplitKind::none);
}

TEST(ReductionSplitChoice, TheReasonNamesTheNumbers) {
  EXPECT_THAT(choose_split(Op::ReduceSum, Shape{100000}, kAxis0).why,
              HasSubstr("one result of 100000 elements (at least 65536)"));
}

// ---------------------------------------------------------------------------------------------
// The rewritten graph.

TEST_F(SplitReductions, AGraphWithNothingToSplitIsKeptNodeForNode) {
  Tensor y = lazy::sum(lazy::randn({64, 1024}, 1), 1);
  const Graph before = recorded();
  const Graph after = split_reductions(before);
  EXPECT_EQ(after.nodes, before.nodes);
  EXPECT_TRUE(after.rewrites.empty());
}

TEST_F(SplitReductions, ALongSumBecomesChunksThenTheRestStandingForTheUsersSum) {
  const int line = __LINE__ + 1;
  Tensor y = lazy::sum(lazy::randn({100000}, 1));
  const Graph after = split_reductions(recorded());
  // 6 chunks of 16384, their 6 results, the 1696 elements left, and the two combined.
  std::vector<Shape> reduced;
  for (const NodePtr& node : after.nodes)
    if (node->op == Op::ReduceSum) reduced.push_back(node->inputs[0]->shape);
  EXPECT_EQ(reduced, (std::vector<Shape>{{6, 16384}, {6}, {1696}}));
  const NodePtr& result = standing_for(after, y);
  EXPECT_EQ(result->op, Op::Add);
  EXPECT_EQ(result->shape, Shape{});
  EXPECT_EQ(result->dtype, DType::f32);
  EXPECT_TRUE(after.live[result->trace_index]);
  ASSERT_EQ(after.rewrites.size(), 1u);
  EXPECT_EQ(after.rewrites[0].recorded, y.node()->trace_index);
  EXPECT_THAT(after.rewrites[0].what, HasSubstr("chunks"));
  // Added nodes name the user's line, and are graph nodes: indexed by place.
  for (std::uint32_t i = 0; i < after.size(); ++i) {
    const NodePtr& node = after.nodes[i];
    EXPECT_EQ(node->trace_index, i);
    EXPECT_TRUE(node->is_pending());
    if (after.recorded[i] == Graph::kAdded || i == result->trace_index) {
      EXPECT_EQ(int(node->loc.line()), line) << lazy::ir::op_name(node->op);
    }
  }
}

TEST_F(SplitReductions, TheRecordedNodesAreLeftAsTheyWere) {
  Tensor x = lazy::randn({100000}, 1);
  Tensor y = lazy::sum(x);
  split_reductions(recorded());
  EXPECT_EQ(y.node()->op, Op::ReduceSum);
  EXPECT_EQ(y.node()->inputs[0], x.node());
  EXPECT_EQ(y.node()->shape, Shape{});
  EXPECT_EQ(Trace::current().size(), 3u);
}

TEST_F(SplitReductions, ConsumersOfASplitReductionReadItsReplacement) {
  Tensor x = lazy::randn({8, 65536}, 1);
  Tensor y = x / lazy::sum(x, -1, true);
  const Graph after = split_reductions(recorded());
  const NodePtr& div = standing_for(after, y);
  ASSERT_EQ(div->op, Op::Div);
  EXPECT_NE(div, y.node());                               // a copy, rewired
  const lazy::ir::Node* sum = div->inputs[1]->inputs[0];  // through the broadcast
  EXPECT_EQ(after.recorded[sum->trace_index],
            std::int32_t(y.node()->inputs[1]->inputs[0]->trace_index));
  EXPECT_EQ(count(after, Op::ReduceSum), 2);  // chunks of each row, then the chunks
}

TEST_F(SplitReductions, SplitStagesSplitAgainWhereTheRulesSaySo) {
  // 2^31 elements: 2^17 chunk results, themselves folded in chunks.
  Tensor y = lazy::sum(lazy::randn({std::int64_t(1) << 31}, 1));
  const Graph after = split_reductions(recorded());
  std::vector<Shape> reduced;
  for (const NodePtr& node : after.nodes)
    if (node->op == Op::ReduceSum) reduced.push_back(node->inputs[0]->shape);
  EXPECT_EQ(reduced, (std::vector<Shape>{{131072, 16384}, {8, 16384}, {8}}));
}

TEST_F(SplitReductions, ALongChainCopiedAfterASplitIsReleasedWithoutDeepRecursion) {
  Tensor x = lazy::sum(lazy::randn({100000}, 1));
  for (int i = 0; i < 19000; ++i) x = lazy::exp(x);
  // Every exp is copied to read the split sum; releasing the copies first to last would free the
  // chain in one recursion 19000 nodes deep.
  EXPECT_EQ(split_reductions(recorded()).nodes.back()->op, Op::Exp);
}

TEST_F(SplitReductions, ANodeNothingNeedsIsLeftOut) {
  Tensor x = lazy::randn({100000}, 1);
  { Tensor unused = lazy::exp(x); }
  Tensor y = lazy::sum(x);
  const Graph after = split_reductions(recorded());
  EXPECT_EQ(count(after, Op::Exp), 0);
}

TEST_F(SplitReductions, ALongSoftmaxFoldsItsMaxAndSumInChunks) {
  Tensor y = lazy::softmax(lazy::randn({4, 65536}, 1), -1);
  const Graph after = split_reductions(recorded());
  ASSERT_EQ(after.rewrites.size(), 2u);  // the max and the sum
  // No reduction folds a whole row of 65536 any more.
  for (const NodePtr& node : after.nodes) {
    if (lazy::ir::op_kind(node->op) != lazy::ir::OpKind::reduction) continue;
    EXPECT_LE(node->inputs[0]->shape[node->inputs[0]->shape.rank() - 1], 16384);
  }
  // The recorded fold's exp over the whole rows is left out: only the output's remains.
  EXPECT_EQ(count(after, Op::Exp), 3);  // per chunk, per chunk value, the output
}

TEST_F(SplitReductions, AShortSoftmaxIsNotRewritten) {
  Tensor y = lazy::softmax(lazy::randn({4, 70000}, 1), -1);
  EXPECT_TRUE(split_reductions(recorded()).rewrites.empty());
}

TEST_F(SplitReductions, ChunkedLogsumexpTakesTheRecordedNumberForAnInfiniteMax) {
  Tensor y = lazy::logsumexp(lazy::randn({4, 65536}, 1), -1);
  const Graph before = recorded();
  const Graph after = split_reductions(before);
  ASSERT_EQ(after.rewrites.size(), 2u);
  // The shift's where reads the number the user's graph recorded (a scalar's value is not part of
  // the plan key, so the rewrite must not depend on it).
  int wheres_reading_recorded = 0;
  for (const NodePtr& node : after.nodes) {
    if (node->op != Op::Where || node->inputs[1]->op != Op::Scalar) continue;
    wheres_reading_recorded += after.recorded[node->inputs[1]->trace_index] != Graph::kAdded;
  }
  EXPECT_EQ(wheres_reading_recorded, 1);
}

TEST_F(SplitReductions, TheSameRecordedGraphGivesTheSameRewrite) {
  Tensor a = lazy::argmax(lazy::randn({64, 100000}, 1), -1);
  Tensor s = lazy::softmax(lazy::randn({2, 65536}, 2), -1);
  const Graph first = split_reductions(recorded());
  const Graph second = split_reductions(recorded());
  ASSERT_EQ(first.size(), second.size());
  for (std::size_t i = 0; i < first.size(); ++i) {
    const NodePtr& a_node = first.nodes[i];
    const NodePtr& b_node = second.nodes[i];
    EXPECT_EQ(a_node->op, b_node->op) << i;
    EXPECT_EQ(a_node->shape, b_node->shape) << i;
    EXPECT_EQ(a_node->attrs.ints, b_node->attrs.ints) << i;
    ASSERT_EQ(a_node->inputs.size(), b_node->inputs.size()) << i;
    for (std::size_t k = 0; k < a_node->inputs.size(); ++k)
      EXPECT_EQ(a_node->inputs[k]->trace_index, b_node->inputs[k]->trace_index) << i;
  }
  EXPECT_EQ(first.recorded, second.recorded);
}

// ---------------------------------------------------------------------------------------------
// The rewritten graph computes what the recorded one does.

TEST_F(SplitReductions, ChunkedSumWithARestKeepsItsValue) {
  std::vector<float> data(100003);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = float(i % 7) - 3.0f;
  Tensor y = lazy::sum(lazy::from_data(data, {100003}));
  const auto [before, after] = both_values(y);
  EXPECT_EQ(after, before);
}

// Found in review: the chunks' total and the rest were each rounded to bf16, then their sum: 129
// chunks of ones (2113536, exact) and 8191 more (8192 in bf16) tied at 2121728 and rounded up to
// 2129920, where the sum rounded once is 2113536.
TEST_F(SplitReductions, ChunkedBf16SumRoundsOnce) {
  Tensor y = lazy::sum(lazy::ones({129 * 16384 + 8191}, lazy::bf16));
  const auto [before, after] = both_values(y);
  EXPECT_EQ(after, before);
  EXPECT_EQ(after, (std::vector<double>{2113536}));
}

TEST_F(SplitReductions, ArgmaxInRunsFindsTheFirstOfEqualMaximaAndNaN) {
  std::vector<float> data(2 * 70000, 0.0f);
  data[50000] = 5.0f;
  data[69999] = 5.0f;  // past the last whole run: equal, so the first wins
  data[70000 + 69990] = std::numeric_limits<float>::quiet_NaN();
  data[70000 + 20000] = 9.0f;
  Tensor y = lazy::argmax(lazy::from_data(data, {2, 70000}), 1);
  const auto [before, after] = both_values(y);
  EXPECT_EQ(after, before);
  EXPECT_EQ(after, (std::vector<double>{50000, 69990}));
}

TEST_F(SplitReductions, ColumnRunsWithARestKeepTheirValues) {
  std::vector<float> data(3001 * 700);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = float(i % 11);
  Tensor y = lazy::sum(lazy::from_data(data, {3001, 700}), 0);
  const auto [before, after] = both_values(y);
  EXPECT_EQ(after, before);
}

TEST_F(SplitReductions, ChunkedSoftmaxKeepsItsValues) {
  Tensor y = lazy::softmax(lazy::randn({2, 65536}, 3), -1);
  const auto [before, after] = both_values(y);
  ASSERT_EQ(after.size(), before.size());
  for (std::size_t i = 0; i < after.size(); ++i) ASSERT_NEAR(after[i], before[i], 1e-9) << i;
}

}  // namespace

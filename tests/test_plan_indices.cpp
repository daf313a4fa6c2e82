// How a plan names the nodes of a partition whose graph the reduction-splitting pass rewrote:
// recorded nodes by their trace index (a replay reads scalars and hands results back by it),
// added nodes past the trace, their scalars as constants. Runs without a GPU.
#include <gtest/gtest.h>

#include <set>

#include <lazy/lazy.h>

#include "codegen/kernel_builder.h"
#include "codegen/kernel_emitter.h"
#include "fuse/partition.h"
#include "ir/trace.h"
#include "runtime/plan_builder.h"
#include "runtime/plan_indices.h"

namespace {

using lazy::Tensor;
using lazy::codegen::ArgSource;
using lazy::fuse::Graph;
using lazy::fuse::Partition;
using lazy::ir::Trace;
using lazy::runtime::PlanIndices;
using lazy::runtime::PlannedView;

class PlanIndicesTest : public ::testing::Test {
 protected:
  void SetUp() override { lazy::sync(); }
  void TearDown() override { Trace::current().clear(); }

  static Partition partition_pending() {
    Trace& trace = Trace::current();
    const std::vector<bool> live = trace.live();
    return lazy::fuse::partition(trace.pending(), live, trace.externals(), {true});
  }
};

TEST_F(PlanIndicesTest, RecordedNodesKeepTheirTraceIndexAndAddedOnesComeAfter) {
  Tensor y = lazy::argmax(lazy::randn({64, 100000}, 1), -1);
  const Partition p = partition_pending();
  const std::size_t recorded = Trace::current().size();
  const PlanIndices index(p.graph, recorded);
  std::set<std::uint32_t> seen;
  for (std::uint32_t i = 0; i < p.graph.size(); ++i) {
    if (p.graph.recorded[i] == Graph::kAdded) {
      EXPECT_GE(index(i), recorded);
    } else {
      EXPECT_EQ(index(i), std::uint32_t(p.graph.recorded[i]));
    }
    EXPECT_TRUE(seen.insert(index(i)).second) << "index " << index(i) << " given twice";
  }
}

TEST_F(PlanIndicesTest, ScalarsTheRewriteAddedAreConstantArguments) {
  // The runs' positions add the run's start, a scalar the split made (16384 for the second).
  Tensor y = lazy::argmax(lazy::randn({64, 100000}, 1), -1);
  const Partition p = partition_pending();
  const std::size_t recorded = Trace::current().size();
  const PlanIndices index(p.graph, recorded);
  int constants_from_scalars = 0;
  for (const auto& region : p.regions) {
    const auto kernel = lazy::codegen::generate_kernel(region, p.graph.nodes, {});
    const std::vector<ArgSource> planned = lazy::runtime::plan_args(kernel.args, p.graph, index);
    ASSERT_EQ(planned.size(), kernel.args.size());
    for (std::size_t a = 0; a < planned.size(); ++a) {
      const ArgSource& arg = kernel.args[a];
      const bool scalar =
          arg.kind == ArgSource::Kind::scalar_float || arg.kind == ArgSource::Kind::scalar_int;
      if (scalar && index.added(std::uint32_t(arg.value))) {
        EXPECT_EQ(planned[a].kind, ArgSource::Kind::constant);
        EXPECT_EQ(planned[a].value,
                  lazy::codegen::scalar_argument(*p.graph.nodes[std::uint32_t(arg.value)]));
        ++constants_from_scalars;
      } else if (scalar || arg.kind == ArgSource::Kind::root_pointer) {
        EXPECT_EQ(planned[a].value, index(std::uint32_t(arg.value)));
        if (scalar) EXPECT_LT(planned[a].value, recorded);
      }
    }
  }
  EXPECT_GT(constants_from_scalars, 0);
}

TEST_F(PlanIndicesTest, AHeldViewOfASplitSumSharesTheMemoryOfAnAddedStage) {
  // Kept as [64, 1]: the split's result is a reshape of its second stage, a view.
  Tensor s = lazy::sum(lazy::randn({64, 1 << 17}, 1), -1, true);
  Tensor v = s.reshape({8, 8});
  const Partition p = partition_pending();
  const std::size_t recorded = Trace::current().size();
  const PlanIndices index(p.graph, recorded);
  ASSERT_EQ(p.live_views.size(), 2u);
  for (std::uint32_t view : p.live_views) {
    const PlannedView planned = lazy::runtime::plan_view(view, p.graph, {}, index);
    EXPECT_LT(planned.node, recorded);  // handed back to the user's node
    EXPECT_EQ(planned.base_kind, PlannedView::Base::root);
    EXPECT_GE(planned.base, recorded);  // the second stage, which the rewrite added
  }
}

}  // namespace

namespace {

// Found by lazyfuse-fuzz (seed 5208 program 147): after a rewrite dropped nodes, the plan listed
// held scalars by graph index, so replay read the scalar value of another recorded node.
TEST_F(PlanIndicesTest, HeldScalarsAndViewsOfThemAreListedByTraceIndexAfterARewrite) {
  Tensor total = lazy::sum(lazy::randn({1 << 20}, 3) * 2.0f);  // split into stages
  Tensor five = lazy::full({}, 5.0f);                          // a held Scalar
  Tensor sevens = lazy::full({3}, 7.0f);                       // a held view of one
  Trace& trace = Trace::current();
  ASSERT_FALSE(partition_pending().graph.rewrites.empty()) << "no rewrite: the test tests nothing";
  const std::vector<bool> live = trace.live();
  auto plan = lazy::runtime::build_plan(trace, live, true, false, nullptr, 90);
  std::set<std::uint32_t> scalars;
  for (std::uint32_t s : plan->live_scalars) {
    ASSERT_LT(s, trace.size());
    EXPECT_EQ(trace.pending()[s]->op, lazy::ir::Op::Scalar) << "live scalar " << s;
    scalars.insert(s);
  }
  EXPECT_EQ(scalars.size(), 2u);
  for (const PlannedView& view : plan->live_views) {
    if (view.base_kind == PlannedView::Base::scalar) EXPECT_TRUE(scalars.contains(view.base));
  }
  EXPECT_EQ(five.item<float>(), 5.0f);
  EXPECT_EQ(sevens.to_vector<float>(), (std::vector<float>(3, 7.0f)));
}

}  // namespace

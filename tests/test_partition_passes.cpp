// The partitioner's passes one at a time (cut_nodes, form_regions, build_terms, compose_views),
// and the reasons LAZY_DEBUG=2 prints for each fusion refused. Runs without a GPU.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <lazy/lazy.h>

#include "fuse/build_terms.h"
#include "fuse/cut_nodes.h"
#include "fuse/form_regions.h"
#include "fuse/shared_recompute.h"
#include "fuse/stored_reductions.h"
#include "fuse/view_layout.h"
#include "ir/trace.h"

namespace {

using lazy::Shape;
using lazy::Tensor;
using lazy::fuse::CutReason;
using lazy::fuse::Partition;
using lazy::fuse::Refusal;
using lazy::ir::Trace;
using ::testing::HasSubstr;

constexpr lazy::fuse::PartitionOptions kFused{true};

class PartitionPasses : public ::testing::Test {
 protected:
  void SetUp() override { lazy::sync(); }
  void TearDown() override { Trace::current().clear(); }

  static lazy::fuse::Graph recorded() {
    Trace& trace = Trace::current();
    const std::vector<bool> live = trace.live();
    return lazy::fuse::recorded_graph(trace.pending(), live, trace.externals());
  }
  static Partition cut(lazy::fuse::PartitionOptions options = kFused) {
    return lazy::fuse::cut_nodes(recorded(), options);
  }
  static Partition regions() { return lazy::fuse::form_regions(cut(), kFused); }
  // form_regions and build_terms until the terms are built, as partition() does; with
  // `store_first`, also as it does, the reductions a later region reads are stored first.
  static Partition built(bool store_first = true) {
    Partition p = cut();
    do {
      p = lazy::fuse::form_regions(std::move(p), kFused);
      if (lazy::fuse::cut_values_recomputed_by_several_regions(p))
        p = lazy::fuse::form_regions(std::move(p), kFused);
      if (store_first && lazy::fuse::store_row_reductions_read_later(p))
        p = lazy::fuse::form_regions(std::move(p), kFused);
      p = lazy::fuse::build_terms(std::move(p));
    } while (!p.terms_built);
    return p;
  }
  static Tensor computed(const Shape& shape) {
    Tensor t = lazy::randn(shape, 7);
    lazy::eval({t});
    return t;
  }
  static std::uint32_t index_of(const Tensor& t) { return t.node()->trace_index; }
  static bool refused(const Partition& p, const Tensor& t, Refusal reason) {
    for (const auto& r : p.refusals)
      if (r.node == index_of(t) && r.reason == reason) return true;
    return false;
  }
};

// ---------------------------------------------------------------------------------------------
// cut_nodes

TEST_F(PartitionPasses, CutNodesWritesHeldNodesAndReductionsAndNothingElse) {
  Tensor x = computed({8, 16});
  Tensor h = lazy::exp(x);
  Tensor s = lazy::sum(h * 2.0f, 1);
  const Partition p = cut();
  EXPECT_TRUE(p.regions.empty());
  EXPECT_TRUE(p.cuts.cut[index_of(h)]);
  EXPECT_EQ(p.cuts.reason[index_of(h)], CutReason::live_output);
  EXPECT_TRUE(p.cuts.cut[index_of(s)]);
  EXPECT_FALSE(p.cuts.cut[s.node()->inputs[0]->trace_index]);  // h * 2 is inlined
}

TEST_F(PartitionPasses, CutNodesWritesAHeldViewsBaseAndAHeldScalarFromTheHost) {
  Tensor base = lazy::randn({4, 6}, 1) + 1.0f;
  Tensor view = base.transpose(0, 1);
  Tensor scalar = lazy::full({}, 2.0f);
  const Partition p = cut();
  EXPECT_EQ(p.live_views, std::vector<std::uint32_t>{index_of(view)});
  EXPECT_EQ(p.cuts.reason[index_of(base)], CutReason::live_output);  // held itself, first
  EXPECT_EQ(p.live_scalars, std::vector<std::uint32_t>{index_of(scalar)});
}

TEST_F(PartitionPasses, CutNodesGivesTheBaseOfAHeldViewItsOwnReason) {
  Tensor view = (lazy::randn({4, 6}, 1) + 1.0f).transpose(0, 1);
  const Partition p = cut();
  const std::uint32_t base = view.node()->inputs[0]->trace_index;
  EXPECT_TRUE(p.cuts.cut[base]);
  EXPECT_EQ(p.cuts.reason[base], CutReason::base_of_live_view);
}

TEST_F(PartitionPasses, CutNodesCutsChainsLongerThanOneKernelTakes) {
  Tensor x = lazy::randn({8}, 1);
  for (int i = 0; i < lazy::fuse::kMaxFusedDepth + 10; ++i) x = lazy::exp(x);
  const Partition p = cut();
  int long_chain_cuts = 0;
  for (std::size_t i = 0; i < p.graph.size(); ++i) {
    if (p.cuts.cut[i] && p.cuts.reason[i] == CutReason::kernel_size_limit) {
      EXPECT_TRUE(p.cuts.read_back[i]);
      ++long_chain_cuts;
    }
  }
  EXPECT_EQ(long_chain_cuts, 1);
}

TEST_F(PartitionPasses, CutNodesUnfusedWritesEveryOp) {
  Tensor y = lazy::exp(lazy::randn({8}, 1) * 2.0f);
  const Partition p = cut({false});
  const std::uint32_t mul = y.node()->inputs[0]->trace_index;
  EXPECT_TRUE(p.cuts.cut[mul]);
  EXPECT_EQ(p.cuts.reason[mul], CutReason::fusion_disabled);
}

// ---------------------------------------------------------------------------------------------
// form_regions

TEST_F(PartitionPasses, FormRegionsGroupsRootsOfOneShapeWithoutBuildingTerms) {
  Tensor x = computed({8, 8});
  Tensor a = lazy::exp(x);
  Tensor b = lazy::sin(x);
  const Partition p = regions();
  ASSERT_EQ(p.regions.size(), 1u);
  EXPECT_EQ(p.regions[0].roots.size(), 2u);
  EXPECT_TRUE(p.regions[0].terms.empty());
  EXPECT_FALSE(p.terms_built);
}

TEST_F(PartitionPasses, FormRegionsFoldsATrailingReductionInTheRegionOverItsInput) {
  Tensor x = computed({8, 64});
  Tensor y = lazy::sum(lazy::exp(x), 1);
  const Partition p = regions();
  ASSERT_EQ(p.regions.size(), 1u);
  ASSERT_TRUE(p.regions[0].row.has_value());
  EXPECT_TRUE(p.refusals.empty());
}

TEST_F(PartitionPasses, AReductionOverLeadingAxesIsRefusedRowFusionAndClosesEarlierRegions) {
  Tensor x = computed({8, 64});
  Tensor e = lazy::exp(x);
  Tensor y = lazy::sum(x, 0);
  const Partition p = regions();
  EXPECT_TRUE(refused(p, y, Refusal::not_trailing_axes));
  ASSERT_EQ(p.regions.size(), 2u);
  ASSERT_TRUE(p.regions[0].closed.has_value());
  EXPECT_EQ(p.regions[0].closed->reason, Refusal::before_reduction);
  EXPECT_EQ(p.regions[0].closed->node, std::int32_t(index_of(y)));
  ASSERT_TRUE(p.regions[1].reduction.has_value());
  EXPECT_EQ(p.regions[1].closed->reason, Refusal::reduction_kernel);
}

TEST_F(PartitionPasses, AReductionOfAnEmptyInputIsRefusedRowFusion) {
  Tensor y = lazy::sum(lazy::randn({0, 64}, 1), 1);
  EXPECT_TRUE(refused(regions(), y, Refusal::empty_input));
}

TEST_F(PartitionPasses, ARootPastTheOutputLimitStartsARegionOfItsOwn) {
  Tensor x = computed({32});
  std::vector<Tensor> outputs;
  for (int i = 0; i <= lazy::fuse::kMaxOutputsPerKernel; ++i) outputs.push_back(x * float(i));
  const Partition p = regions();
  ASSERT_EQ(p.regions.size(), 2u);
  EXPECT_TRUE(refused(p, outputs.back(), Refusal::outputs_limit));
}

TEST_F(PartitionPasses, ARootOverTheShapeOfAClosedRegionSaysSo) {
  Tensor x = computed({8, 64});
  Tensor before = lazy::exp(x);
  Tensor s = lazy::sum(x, 0);
  Tensor after = lazy::sin(x);
  const Partition p = regions();
  EXPECT_TRUE(refused(p, after, Refusal::region_closed));
}

// ---------------------------------------------------------------------------------------------
// build_terms

TEST_F(PartitionPasses, BuildTermsFillsEveryRegionFromLoadsScalarsAndOps) {
  Tensor x = computed({8, 8});
  Tensor y = lazy::exp(x) * 2.0f;
  const Partition p = lazy::fuse::build_terms(regions());
  ASSERT_TRUE(p.terms_built);
  ASSERT_EQ(p.regions[0].root_terms.size(), 1u);
  // load x, the scalar 2, exp, mul: operands first.
  EXPECT_EQ(p.regions[0].terms.size(), 4u);
  EXPECT_EQ(p.regions[0].root_terms[0], 3);
}

TEST_F(PartitionPasses, BuildTermsCutsWhatAReshapeWithoutStridesReadsAndAsksForRegionsAgain) {
  Tensor y = (lazy::randn({4, 6}, 1) * 2.0f).transpose(0, 1).reshape({24}) + 1.0f;
  // The reshape's input, the transpose, is written densely and read back.
  const std::uint32_t transposed = y.node()->inputs[0]->inputs[0]->trace_index;
  {
    // Scoped: a partition holds the nodes, and a node held outside the trace is an output.
    const Partition first = lazy::fuse::build_terms(regions());
    EXPECT_FALSE(first.terms_built);
    EXPECT_TRUE(first.cuts.read_back[transposed]);
    EXPECT_EQ(first.cuts.reason[transposed], CutReason::reshape_not_strided);
  }
  const Partition p = built();
  EXPECT_EQ(p.regions.size(), 2u);
}

TEST_F(PartitionPasses, BuildTermsCopiesAnInputAReshapeCannotStride) {
  Tensor x = computed({4, 6}).transpose(0, 1);
  lazy::eval({x});  // a view of memory with strides (1, 6)
  Tensor y = x.reshape({24}) * 2.0f;
  const Partition first = lazy::fuse::build_terms(regions());
  EXPECT_FALSE(first.terms_built);
  EXPECT_TRUE(first.cuts.external_copy[0]);
  const Partition p = built();
  ASSERT_EQ(p.regions.size(), 2u);
  EXPECT_TRUE(p.regions[0].roots[0].external_copy);
  EXPECT_EQ(p.regions[0].closed->reason, Refusal::written_alone);
}

TEST_F(PartitionPasses, RowsNeighbouringInMemoryAreRefusedRowFusionByBuildTerms) {
  Tensor x = computed({64, 32});
  Tensor y = lazy::sum(x.transpose(0, 1), 1);
  const Partition first = lazy::fuse::build_terms(regions());
  EXPECT_FALSE(first.terms_built);
  EXPECT_EQ(first.cuts.no_row[index_of(y)], Refusal::rows_adjacent_in_memory);
  const Partition p = built();
  EXPECT_TRUE(refused(p, y, Refusal::rows_adjacent_in_memory));
  ASSERT_EQ(p.regions.size(), 1u);
  EXPECT_TRUE(p.regions[0].reduction.has_value());
}

TEST_F(PartitionPasses, RowReductionsALaterRegionReadsAreStoredBeforeTermsAreBuilt) {
  // The column mean recomputes the softmax from x and the softmax's row max and sum.
  Tensor x = computed({16, 64});
  Tensor s = lazy::softmax(x * 1.5f, -1);
  Tensor y = s - lazy::mean(s, 0, true);
  s = Tensor();
  std::vector<bool> stored_by_build_terms;
  {
    // Scoped: a partition holds the nodes, and a node held outside the trace is an output.
    const Partition unstored = lazy::fuse::build_terms(regions());
    EXPECT_FALSE(unstored.terms_built);  // what the pass spares: a build given up
  }
  stored_by_build_terms = built(false).cuts.stored;
  Partition p = regions();
  ASSERT_TRUE(lazy::fuse::store_row_reductions_read_later(p));
  EXPECT_EQ(p.cuts.stored, stored_by_build_terms);
  p = lazy::fuse::build_terms(lazy::fuse::form_regions(std::move(p), kFused));
  EXPECT_TRUE(p.terms_built);  // in one build
  EXPECT_FALSE(lazy::fuse::store_row_reductions_read_later(p));
}

TEST_F(PartitionPasses, RowReductionsOnlyTheirOwnRegionReadsAreNotStored) {
  Tensor x = computed({16, 64});
  Tensor y = lazy::softmax(x, -1) * 2.0f + lazy::sum(x, 1, true);
  Partition p = regions();
  EXPECT_FALSE(lazy::fuse::store_row_reductions_read_later(p));
  EXPECT_TRUE(lazy::fuse::build_terms(std::move(p)).terms_built);
}

// Rounds of a softmax and a column mean, each round reading the last one's value: without a
// write, kernel k would recompute all k rounds.
Tensor softmax_mean_rounds(Tensor x, int rounds) {
  for (int round = 0; round < rounds; ++round) {
    Tensor s = lazy::softmax(x * 1.5f, -1);
    x = s - lazy::mean(s, 0, true) + x * 0.5f;
  }
  return x;
}

TEST_F(PartitionPasses, AValueSeveralKernelsWouldRecomputeFromALongChainIsWrittenOnce) {
  Tensor y = softmax_mean_rounds(computed({16, 64}), 12);
  Trace& trace = Trace::current();
  const Partition p =
      lazy::fuse::partition(trace.pending(), trace.live(), trace.externals(), kFused);
  int written = 0;
  std::size_t most_terms = 0;
  for (const lazy::fuse::Region& region : p.regions) {
    most_terms = std::max(most_terms, region.terms.size());
    for (const lazy::fuse::Root& root : region.roots)
      written += root.reason == CutReason::recomputed;
  }
  EXPECT_GE(written, 2);
  // Each kernel computes a few rounds at most; recomputing every round took 169 terms.
  EXPECT_LT(most_terms, 100u);
}

TEST_F(PartitionPasses, AShortChainSeveralKernelsReadStaysInlined) {
  Tensor y = softmax_mean_rounds(computed({16, 64}), 2);
  Partition p = regions();
  EXPECT_FALSE(lazy::fuse::cut_values_recomputed_by_several_regions(p));
}

TEST_F(PartitionPasses, ABrokenPartitionIsAnInternalErrorNamingTheNodeNotAnAbort) {
  Tensor x = computed({8, 64});
  Tensor y = lazy::exp(x) - lazy::max(x, 1, true);
  Partition p = regions();
  // A row region that forgot its reduction: its consumer meets a reduction nothing folds.
  ASSERT_TRUE(p.regions[0].row.has_value());
  const std::uint32_t max = y.node()->inputs[1]->inputs[0]->trace_index;
  p.region_of[max] = -1;
  try {
    lazy::fuse::build_terms(std::move(p));
    FAIL() << "no error";
  } catch (const lazy::RuntimeError& error) {
    EXPECT_THAT(error.what(), HasSubstr("internal error"));
    EXPECT_THAT(error.what(), HasSubstr("ReduceMax"));
    EXPECT_STREQ(error.where().file_name(), __FILE__);
  }
}

// ---------------------------------------------------------------------------------------------
// compose_view

TEST(ComposeView, PermuteSliceAndExpandBecomeStrides) {
  const lazy::ir::Layout base = lazy::ir::Layout::contiguous(Shape{4, 6});
  Tensor x = lazy::randn({4, 6}, 1);
  auto t = lazy::ir::view_layout(base, *x.transpose(0, 1).node());
  ASSERT_TRUE(t);
  EXPECT_EQ(t->strides[0], 1);
  EXPECT_EQ(t->strides[1], 6);
  auto s = lazy::ir::view_layout(base, *x.slice(1, 1, 5, 2).node());
  ASSERT_TRUE(s);
  EXPECT_EQ(s->offset, 1);
  EXPECT_EQ(s->strides[1], 2);
  auto e = lazy::ir::view_layout(lazy::ir::Layout::contiguous(Shape{1, 6}),
                                 *lazy::randn({1, 6}, 1).expand({5, 6}).node());
  ASSERT_TRUE(e);
  EXPECT_EQ(e->strides[0], 0);
  Trace::current().clear();
}

TEST(ComposeView, AReshapeNoStridesExpressIsNothing) {
  Tensor x = lazy::randn({4, 6}, 1);
  lazy::ir::Layout transposed = lazy::ir::Layout::contiguous(Shape{6, 4});
  transposed.strides = {1, 6};
  EXPECT_FALSE(lazy::ir::view_layout(transposed, *x.transpose(0, 1).reshape({24}).node()));
  EXPECT_TRUE(
      lazy::ir::view_layout(lazy::ir::Layout::contiguous(Shape{4, 6}), *x.reshape({24}).node()));
  Trace::current().clear();
}

// ---------------------------------------------------------------------------------------------
// What LAZY_DEBUG=2 prints

TEST_F(PartitionPasses, DescribeNamesEveryRefusedFusionAndWhyARegionClosed) {
  Tensor x = computed({64, 32});
  Tensor e = lazy::exp(x);
  Tensor y = lazy::sum(x.transpose(0, 1), 1);
  const std::string text = built().describe();
  EXPECT_THAT(text, HasSubstr(": no row fusion (rows_adjacent_in_memory)"));
  EXPECT_THAT(text, HasSubstr("takes no more roots (before_reduction) from %"));
  EXPECT_THAT(text, HasSubstr("takes no more roots (reduction_kernel)"));
}

TEST_F(PartitionPasses, DescribeNamesARootThatCouldNotJoinAClosedRegion) {
  Tensor x = computed({8, 64});
  Tensor before = lazy::exp(x);
  Tensor s = lazy::sum(x, 0);
  Tensor after = lazy::sin(x);
  EXPECT_THAT(built().describe(), HasSubstr("Sin from "));
  EXPECT_THAT(built().describe(), HasSubstr(": starts a region of its own (region_closed)"));
}

}  // namespace

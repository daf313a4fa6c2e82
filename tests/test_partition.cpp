// The partitioner's decisions, as data: which nodes are written, in which regions, and why each
// region was cut. Runs without a GPU.
#include <gtest/gtest.h>

#include <lazy/lazy.h>

#include "fuse/partition.h"
#include "ir/trace.h"

namespace {

using lazy::Tensor;
using lazy::fuse::CutReason;
using lazy::fuse::Partition;
using lazy::ir::Trace;

class PartitionTest : public ::testing::Test {
 protected:
  void SetUp() override { lazy::sync(); }
  void TearDown() override { Trace::current().clear(); }

  // The partition of what the thread has pending.
  static Partition partition_pending(bool fusion = true) {
    Trace& trace = Trace::current();
    const std::vector<bool> live = trace.live();
    return lazy::fuse::partition(trace.pending(), live, trace.externals(), {fusion});
  }
  static Tensor computed(const lazy::Shape& shape) {
    Tensor t = lazy::randn(shape, 7);
    lazy::eval({t});
    return t;
  }
};

TEST_F(PartitionTest, PointwiseChainIsOneRegionWritingOnlyTheHeldResult) {
  Tensor x = computed({64, 32});
  Tensor b = computed({32});
  Tensor y = lazy::gelu_tanh((x + b) * 1.2f) + x;
  Partition p = partition_pending();
  ASSERT_EQ(p.regions.size(), 1u);
  ASSERT_EQ(p.regions[0].roots.size(), 1u);
  EXPECT_EQ(p.regions[0].roots[0].node, y.node()->trace_index);
  EXPECT_EQ(p.regions[0].roots[0].reason, CutReason::live_output);
}

TEST_F(PartitionTest, HeldIntermediateIsASecondOutputOfTheSameRegion) {
  Tensor x = computed({16, 16});
  Tensor h = x + 1.0f;
  Tensor y = lazy::exp(h);
  Partition p = partition_pending();
  ASSERT_EQ(p.regions.size(), 1u);
  EXPECT_EQ(p.regions[0].roots.size(), 2u);
}

TEST_F(PartitionTest, IndependentChainsOverOneIterationSpaceShareARegion) {
  Tensor a = computed({8, 8});
  Tensor b = computed({8, 8});
  Tensor y = lazy::exp(a);
  Tensor z = lazy::sin(b) * 2.0f;
  Partition p = partition_pending();
  ASSERT_EQ(p.regions.size(), 1u);
  EXPECT_EQ(p.regions[0].roots.size(), 2u);
}

TEST_F(PartitionTest, DifferentIterationSpacesAreDifferentRegions) {
  Tensor a = computed({8, 8});
  Tensor y = lazy::exp(a);
  Tensor z = lazy::exp(a.slice(0, 0, 4));
  Partition p = partition_pending();
  EXPECT_EQ(p.regions.size(), 2u);
}

TEST_F(PartitionTest, ViewsAreFoldedIntoLoadsNotWritten) {
  Tensor a = computed({8, 16});
  Tensor y = lazy::exp(a.transpose(0, 1).slice(0, 1, 9)) + 1.0f;
  Partition p = partition_pending();
  ASSERT_EQ(p.regions.size(), 1u);
  ASSERT_EQ(p.regions[0].roots.size(), 1u);
  int loads = 0;
  for (const auto& term : p.regions[0].terms) {
    if (term.kind != lazy::fuse::Term::Kind::load) continue;
    ++loads;
    EXPECT_EQ(term.layout.strides[0], 1);  // the transpose, as strides
    EXPECT_EQ(term.layout.strides[1], 16);
    EXPECT_EQ(term.layout.offset, 1);  // the slice's start, along the transposed axis
  }
  EXPECT_EQ(loads, 1);
}

TEST_F(PartitionTest, HeldViewOfAComputedIntermediateCutsItsBase) {
  Tensor a = computed({8, 16});
  Tensor e = lazy::exp(a);
  Tensor view = e.transpose(0, 1);
  e = Tensor();  // only the view is held
  Partition p = partition_pending();
  ASSERT_EQ(p.regions.size(), 1u);
  EXPECT_EQ(p.regions[0].roots[0].reason, CutReason::base_of_live_view);
  EXPECT_EQ(p.live_views.size(), 1u);
}

TEST_F(PartitionTest, ReshapeThatStridesCannotExpressCutsItsInput) {
  Tensor a = computed({8, 16});
  Tensor t = lazy::exp(a).transpose(0, 1);
  Tensor y = t.reshape({128}) + 1.0f;
  t = Tensor();
  Partition p = partition_pending();
  ASSERT_EQ(p.regions.size(), 2u);
  EXPECT_EQ(p.regions[0].roots[0].reason, CutReason::reshape_not_strided);
}

TEST_F(PartitionTest, ReshapeOfATransposedInputCopiesItFirst) {
  Tensor a = computed({8, 16});
  Tensor t = a.transpose(0, 1);
  lazy::eval({t});  // a computed, transposed view
  Tensor y = t.reshape({128}) * 2.0f;
  Partition p = partition_pending();
  ASSERT_EQ(p.regions.size(), 2u);
  EXPECT_TRUE(p.regions[0].roots[0].external_copy);
  EXPECT_EQ(p.regions[0].roots[0].reason, CutReason::reshape_not_strided);
}

TEST_F(PartitionTest, UnfusedMakesEveryOpItsOwnRegion) {
  Tensor x = computed({8, 8});
  Tensor y = lazy::exp(x * 2.0f) + 1.0f;
  Partition p = partition_pending(/*fusion=*/false);
  EXPECT_EQ(p.regions.size(), 3u);
  EXPECT_EQ(p.regions[0].roots[0].reason, CutReason::fusion_disabled);
  EXPECT_EQ(p.regions[2].roots[0].reason, CutReason::live_output);
}

TEST_F(PartitionTest, OverlongChainIsCutAtTheDepthLimit) {
  Tensor x = computed({4});
  Tensor y = x;
  for (int i = 0; i < lazy::fuse::kMaxFusedDepth + 10; ++i) y = y + 1.0f;
  Partition p = partition_pending();
  ASSERT_EQ(p.regions.size(), 2u);
  EXPECT_EQ(p.regions[0].roots[0].reason, CutReason::kernel_size_limit);
}

TEST_F(PartitionTest, EveryNestedConcatenationIsCutInOnePass) {
  // cat joins at most 64 tensors a node, so 64^2 + 1 of them are a tree of cats three deep, each
  // nested one cut (a kernel computes one concatenation). Finding one cut a pass took 66 passes.
  Tensor x = computed({2});
  std::vector<Tensor> parts;
  for (int i = 0; i < 64 * 64 + 1; ++i) parts.push_back(x * float(i));
  Tensor joined = lazy::cat(parts, 0);
  Partition p = partition_pending();
  EXPECT_LE(p.passes, 3);
  int concat_cuts = 0;
  for (std::size_t i = 0; i < p.graph.size(); ++i)
    concat_cuts += p.cuts.cut[i] && p.cuts.reason[i] == CutReason::concat_per_kernel;
  EXPECT_EQ(concat_cuts, 65);  // the 64 + 1 cats under the outermost
  EXPECT_NE(p.describe().find("partitioned in "), std::string::npos);
}

TEST_F(PartitionTest, HeldScalarNeedsNoKernel) {
  Tensor s = lazy::full({}, 3.0f);
  Partition p = partition_pending();
  EXPECT_TRUE(p.regions.empty());
  EXPECT_EQ(p.live_scalars.size(), 1u);
}

TEST_F(PartitionTest, DescriptionNamesTheCutReasons) {
  Tensor x = computed({8, 8});
  Tensor y = lazy::exp(x);
  std::string text = partition_pending().describe();
  EXPECT_NE(text.find("live_output"), std::string::npos) << text;
  EXPECT_NE(text.find("test_partition.cpp"), std::string::npos) << text;
}

}  // namespace

namespace {

TEST_F(PartitionTest, ConsumersOfAReadBackValueComeAfterIt) {
  Tensor x = computed({4});
  Tensor early = lazy::exp(x);  // a held root before the long chain
  Tensor y = x;
  for (int i = 0; i < lazy::fuse::kMaxFusedDepth + 10; ++i) y = y + 1.0f;
  Partition p = partition_pending();
  ASSERT_EQ(p.regions.size(), 3u);
  EXPECT_EQ(p.regions[1].roots[0].reason, CutReason::kernel_size_limit);
  EXPECT_EQ(p.regions[2].roots[0].node, y.node()->trace_index);
}

}  // namespace

namespace {

TEST_F(PartitionTest, HeldValueReadThroughAnInexpressibleReshapeIsReadBack) {
  // a is held (a root already); a reshape of its transpose cannot be strides, so e must read a
  // back from memory: a gets a region of its own ahead of e's.
  Tensor x = computed({6, 4});
  Tensor a = lazy::exp(x.transpose(0, 1));
  Tensor e = a.reshape({6, 4}).transpose(0, 1) + 1.0f;
  Partition p = partition_pending();
  ASSERT_EQ(p.regions.size(), 2u);
  EXPECT_EQ(p.regions[0].roots[0].node, a.node()->trace_index);
  EXPECT_EQ(p.regions[1].roots[0].node, e.node()->trace_index);
}

}  // namespace

// Column reductions without a GPU: which reductions walk their input as columns (neighbouring
// results are neighbours in memory), what their kernels look like and that NVRTC compiles them,
// how the folded extent is split when there are few results, and that the split computes the
// same values as loops over the data.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <lazy/lazy.h>

#include "codegen/column_reduction.h"
#include "codegen/kernel_emitter.h"
#include "codegen/kernel_sources.h"
#include "fuse/partition.h"
#include "ir/trace.h"
#include "jit/nvrtc.h"

#include "codegen_test_support.h"

namespace {

using lazy::DType;
using lazy::Shape;
using lazy::Tensor;
using lazy::codegen::Access;
using lazy::codegen::plan_column_reduction;
using lazy::ir::Layout;
using lazy::ir::Trace;
using lazy_test::expect_compiles;
using lazy_test::generate_pending;
using lazy_test::Generated;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr int kThreads = lazy::codegen::kThreadsPerBlock;

// ---------------------------------------------------------------------------------------------
// The plan alone, over hand-made layouts of a reduction's iteration space (folded dims last).

Access f32_access(const Shape& shape, std::vector<std::int64_t> strides, std::int64_t offset = 0) {
  Layout layout;
  layout.shape = shape;
  for (std::size_t d = 0; d < strides.size(); ++d) layout.strides[d] = strides[d];
  layout.offset = offset;
  return {layout, 4};
}

TEST(ColumnPlan, SumOverAxis0TakesFourResultsPerThreadAndRunsOf64Results) {
  // sum over axis 0 of a contiguous [1024, 65536]: the iteration space is its transpose.
  const Shape space{65536, 1024};
  const Access x = f32_access(space, {1, 65536});
  auto plan = plan_column_reduction(space, 1, {&x, 1}, kThreads);
  ASSERT_TRUE(plan);
  EXPECT_THAT(plan->kept.dims, ::testing::ElementsAre(65536));
  EXPECT_EQ(plan->kept.vector_width, 4);
  EXPECT_EQ(plan->groups, 16384);
  EXPECT_EQ(plan->extent, 1024);
  EXPECT_EQ(plan->folded_strides, std::vector<std::int64_t>{65536});
  // 16 lanes of 4 results (256 bytes of each row) times 16 slices of the fold: 1024 blocks.
  EXPECT_EQ(plan->lanes, 16);
}

TEST(ColumnPlan, FewerResultsTakeShorterRunsForMoreBlocks) {
  const Shape space{4096, 16384};
  const Access x = f32_access(space, {1, 4096});
  auto plan = plan_column_reduction(space, 1, {&x, 1}, kThreads);
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->lanes, 2);  // runs of 8 results, 32 bytes: 512 blocks
}

TEST(ColumnPlan, AShortFoldGivesTheBlockMoreLanes) {
  const Shape space{4096, 8};
  const Access x = f32_access(space, {1, 4096});
  auto plan = plan_column_reduction(space, 1, {&x, 1}, kThreads);
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->lanes, kThreads / 8);
}

TEST(ColumnPlan, FewResultsOfAShortFoldGiveTheBlockFewerLanes) {
  const Shape space{3, 200};
  const Access x = f32_access(space, {1, 3});
  auto plan = plan_column_reduction(space, 1, {&x, 1}, kThreads);
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->kept.vector_width, 1);  // 3 results: not a multiple of 4
  EXPECT_EQ(plan->lanes, 4);
}

TEST(ColumnPlan, FewResultsOfALongFoldKeepABlockPerResult) {
  const Shape space{3, 1000003};  // one column block would fold all of it
  const Access x = f32_access(space, {1, 3});
  EXPECT_FALSE(plan_column_reduction(space, 1, {&x, 1}, kThreads));
}

TEST(ColumnPlan, AnUnalignedOffsetTakesOneResultPerThread) {
  const Shape space{256, 100};
  const Access x = f32_access(space, {1, 257}, 1);
  auto plan = plan_column_reduction(space, 1, {&x, 1}, kThreads);
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->kept.vector_width, 1);
}

TEST(ColumnPlan, RowsAreNotColumns) {
  const Shape space{64, 256};  // sum over the last axis of a contiguous [64, 256]
  const Access x = f32_access(space, {256, 1});
  EXPECT_FALSE(plan_column_reduction(space, 1, {&x, 1}, kThreads));
}

TEST(ColumnPlan, FoldedDimsThatDoNotWalkAsOneAreNotColumns) {
  // sum over axes 0 and 2 of a contiguous [8, 64, 16]: folded dims [8, 16] at strides [1024, 1].
  const Shape space{64, 8, 16};
  const Access x = f32_access(space, {16, 1024, 1});
  EXPECT_FALSE(plan_column_reduction(space, 2, {&x, 1}, kThreads));
}

TEST(ColumnPlan, ABroadcastAlongTheResultsIsOneElementPerRow) {
  const Shape space{256, 100};
  const Access x = f32_access(space, {1, 256});
  const Access w = f32_access(space, {0, 1});  // w[e], the same for every result
  const Access both[] = {x, w};
  auto plan = plan_column_reduction(space, 1, both, kThreads);
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->kept.accesses[1].mode, lazy::codegen::AccessMode::strided);
  EXPECT_EQ(plan->kept.vector_width, 4);
}

// ---------------------------------------------------------------------------------------------
// Generated kernels of recorded reductions.

bool is_column_kernel(const lazy::codegen::GeneratedKernel& kernel) {
  return kernel.name.find("_column_") != std::string::npos;
}

Tensor computed(const Shape& shape, DType dtype = DType::f32) {
  Tensor normal = lazy::randn(shape, 5);
  Tensor t = lazy::is_floating(dtype) ? normal.to(dtype)
             : dtype == DType::bool_  ? normal > 0.5f
                                      : (normal * 20.0f).to(dtype);
  lazy::eval({t});
  return t;
}

class ColumnKernel : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!lazy::jit::nvrtc_available(&why)) GTEST_SKIP() << "no NVRTC: " << why;
    lazy::sync();
  }
  void TearDown() override { Trace::current().clear(); }

  // Generates what is pending and compiles it; the one kernel.
  lazy::codegen::GeneratedKernel only_kernel() {
    Generated g = generate_pending();
    EXPECT_EQ(g.kernels.size(), 1u);
    expect_compiles(g);
    Trace::current().clear();
    return g.kernels.at(0);
  }
};

TEST_F(ColumnKernel, SumOverAxis0IsAColumnKernel) {
  Tensor x = computed({64, 256});
  Tensor y = lazy::sum(x, 0);
  lazy::codegen::GeneratedKernel kernel = only_kernel();
  EXPECT_TRUE(is_column_kernel(kernel)) << kernel.name;
  EXPECT_THAT(kernel.source, HasSubstr("over columns"));
  EXPECT_THAT(kernel.source, HasSubstr("lz_load_vec<4>"));
  EXPECT_EQ(kernel.vector_width, 4);
  EXPECT_EQ(kernel.threads, kThreads);
  EXPECT_EQ(kernel.written, 256);
  // 64 groups of 4 results, few: the shortest runs (2 lanes, 32 bytes), but the fold has only 64
  // elements, so 64 slices of 4 lanes: 16 blocks.
  EXPECT_EQ(kernel.blocks, 16);
  std::printf("%s\n", kernel.source.c_str());
}

// A column kernel's text holds no size: another shape of the same reduction finds it cached,
// checked against a fresh generation, and only the arguments differ.
TEST_F(ColumnKernel, AColumnKernelsTextServesOtherShapesOfItsReduction) {
  lazy::codegen::set_kernel_text_checks(true);
  auto column_sum = [](const Tensor& x) { return lazy::sum(x * 1.5f, 0); };
  std::vector<lazy::codegen::GeneratedKernel> kernels;
  for (const Shape& shape : {Shape{64, 256}, Shape{128, 512}, Shape{64, 256}}) {
    Tensor y = column_sum(computed(shape));
    Generated g = generate_pending();
    ASSERT_EQ(g.kernels.size(), 1u);
    kernels.push_back(g.kernels[0]);
    Trace::current().clear();
  }
  lazy::codegen::set_kernel_text_checks(false);
  EXPECT_TRUE(is_column_kernel(kernels[0])) << kernels[0].name;
  EXPECT_EQ(kernels[0].source, kernels[1].source);
  EXPECT_EQ(kernels[0].source, kernels[2].source);
  ASSERT_EQ(kernels[0].args.size(), kernels[1].args.size());
  EXPECT_NE(kernels[0].args[0].value, kernels[1].args[0].value);  // the groups of results
  EXPECT_EQ(kernels[0].args[0].value, kernels[2].args[0].value);
}

TEST_F(ColumnKernel, SumOverTheLastAxisKeepsABlockPerResult) {
  Tensor x = computed({64, 256});
  Tensor y = lazy::sum(x, 1);
  lazy::codegen::GeneratedKernel kernel = only_kernel();
  EXPECT_FALSE(is_column_kernel(kernel)) << kernel.name;
}

TEST_F(ColumnKernel, TheMiddleAxisOf3DIsFoldedAsColumns) {
  Tensor x = computed({8, 100, 64});
  Tensor y = lazy::sum(x, 1);
  lazy::codegen::GeneratedKernel kernel = only_kernel();
  EXPECT_TRUE(is_column_kernel(kernel)) << kernel.name;
  EXPECT_EQ(kernel.vector_width, 4);
}

TEST_F(ColumnKernel, ATransposedInputFoldedAlongItsRowsInMemoryIsNotColumns) {
  Tensor x = computed({256, 64});
  Tensor y = lazy::sum(x.transpose(0, 1), 0);
  EXPECT_FALSE(is_column_kernel(only_kernel()));
}

TEST_F(ColumnKernel, PrologueAndBroadcastOperandsFuseIn) {
  Tensor x = computed({100, 256});
  Tensor b = computed({256});
  Tensor w = computed({100, 1});
  Tensor y = lazy::sum(lazy::exp(x * w + b), 0);
  lazy::codegen::GeneratedKernel kernel = only_kernel();
  EXPECT_TRUE(is_column_kernel(kernel)) << kernel.name;
  EXPECT_THAT(kernel.source, HasSubstr("// exp (test_column_reductions.cpp:"));
}

TEST_F(ColumnKernel, AnOddNumberOfResultsTakesOneResultPerThread) {
  Tensor x = computed({100, 255});
  Tensor y = lazy::max(x, 0);
  lazy::codegen::GeneratedKernel kernel = only_kernel();
  EXPECT_TRUE(is_column_kernel(kernel)) << kernel.name;
  EXPECT_EQ(kernel.vector_width, 1);
  EXPECT_THAT(kernel.source, Not(HasSubstr("lz_load_vec")));
}

TEST_F(ColumnKernel, EveryReductionOfEveryDTypeCompiles) {
  for (DType dtype : {DType::f32, DType::f16, DType::bf16, DType::i32, DType::i64, DType::bool_}) {
    Tensor x = computed({5, 33, 64}, dtype);
    for (int axis : {0, 1}) {
      Tensor s = lazy::sum(x, axis), p = lazy::prod(x, axis), mx = lazy::max(x, axis),
             mn = lazy::min(x, axis), an = lazy::any(x, axis), al = lazy::all(x, axis),
             am = lazy::argmax(x, axis), ai = lazy::argmin(x, axis);
      Generated g = generate_pending();
      ASSERT_EQ(g.kernels.size(), 8u);
      for (const auto& kernel : g.kernels) EXPECT_TRUE(is_column_kernel(kernel)) << kernel.name;
      expect_compiles(g);
      Trace::current().clear();
    }
  }
}

TEST_F(ColumnKernel, AnEmptyFoldStillLaunchesAndWritesTheIdentity) {
  Tensor x = computed({0, 64});
  Tensor y = lazy::sum(x, 0);
  lazy::codegen::GeneratedKernel kernel = only_kernel();
  EXPECT_EQ(kernel.written, 64);
  EXPECT_GE(kernel.blocks, 1);
  lazy::sync();
  Tensor z = lazy::sum(x, 0);
  EXPECT_EQ(z.to_vector<float>(), std::vector<float>(64, 0.0f));
}

// ---------------------------------------------------------------------------------------------
// Splitting the fold of few results in two stages.

// The reductions of the graph the partitioner cuts: the recorded one after it split reductions.
std::vector<lazy::ir::NodePtr> reductions_partitioned() {
  std::vector<lazy::ir::NodePtr> reductions;
  for (const auto& node : generate_pending().partition.graph.nodes)
    if (lazy::ir::op_kind(node->op) == lazy::ir::OpKind::reduction) reductions.push_back(node);
  return reductions;
}

std::int64_t reductions_pending() {
  return std::int64_t(reductions_partitioned().size());
}

TEST_F(ColumnKernel, SumOverAxis0Of16384x4096FoldsInTwoStages) {
  // Recorded only, nothing computed; randn fuses into the first stage.
  Tensor y = lazy::sum(lazy::randn({16384, 4096}, 1), 0);
  Generated g = generate_pending();
  ASSERT_EQ(g.kernels.size(), 2u);
  // 16 runs of 1024 rows: 65536 partials, then 16 partials per result, read as columns.
  EXPECT_EQ(g.partition.regions[0].reduction->results, 16 * 4096);
  EXPECT_EQ(g.partition.regions[0].reduction->extent, 1024);
  EXPECT_EQ(g.partition.regions[1].reduction->results, 4096);
  EXPECT_EQ(g.partition.regions[1].reduction->extent, 16);
  EXPECT_TRUE(is_column_kernel(g.kernels[1])) << g.kernels[1].name;
  expect_compiles(g);
}

TEST_F(ColumnKernel, BothStagesOfASplitInputInMemoryAreColumnKernels) {
  Tensor x = computed({2048, 1024});
  Tensor y = lazy::sum(x, 0);
  Generated g = generate_pending();
  ASSERT_EQ(g.kernels.size(), 2u);
  EXPECT_TRUE(is_column_kernel(g.kernels[0])) << g.kernels[0].name;
  EXPECT_TRUE(is_column_kernel(g.kernels[1])) << g.kernels[1].name;
  expect_compiles(g);
}

TEST_F(ColumnKernel, ManyResultsFoldInOneStage) {
  Tensor x = lazy::randn({4096, 65536}, 1);
  Tensor y = lazy::sum(x, 0);
  EXPECT_EQ(reductions_pending(), 1);
}

TEST_F(ColumnKernel, AShortFoldIsNotSplit) {
  Tensor y = lazy::sum(lazy::randn({1024, 4096}, 1), 0);
  EXPECT_EQ(reductions_pending(), 1);
}

// A split argmax over an outer axis reads its input twice: only few results split.
TEST_F(ColumnKernel, ArgmaxSplitsOnlyForFewResults) {
  Tensor many = lazy::argmax(lazy::randn({16384, 4096}, 1), 0);
  EXPECT_EQ(reductions_pending(), 1);
  lazy::sync();
  Tensor few = lazy::argmax(lazy::randn({65536, 256}, 1), 0);
  EXPECT_GT(reductions_pending(), 1);
}

TEST_F(ColumnKernel, AFoldOverTheLastAxesIsNotSplitAsColumns) {
  Tensor x = lazy::randn({4096, 16384}, 1);
  Tensor y = lazy::sum(x, 1);
  EXPECT_EQ(reductions_pending(), 1);
}

TEST_F(ColumnKernel, Bf16PartialsStayF32UntilTheResult) {
  Tensor x = lazy::randn({4096, 1024}, 6, DType::bf16);
  Tensor y = lazy::sum(x, 0);
  EXPECT_EQ(y.dtype(), DType::bf16);
  std::vector<DType> stages;
  for (const auto& node : reductions_partitioned()) stages.push_back(node->dtype);
  EXPECT_EQ(stages, (std::vector<DType>{DType::f32, DType::f32}));
}

// The values of split reductions against loops over the same data, through the host evaluator.

std::vector<float> random_floats(std::int64_t n, std::uint64_t seed) {
  Tensor t = lazy::randn({n}, seed);
  return t.to_vector<float>();
}

// Sums over axis `axis` of a [outer, rows, inner] tensor, in double.
std::vector<double> sum_over_middle(const std::vector<float>& x, std::int64_t outer,
                                    std::int64_t rows, std::int64_t inner) {
  std::vector<double> out(outer * inner, 0.0);
  for (std::int64_t a = 0; a < outer; ++a)
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t b = 0; b < inner; ++b) out[a * inner + b] += x[(a * rows + r) * inner + b];
  return out;
}

void expect_sums_close(const std::vector<float>& got, const std::vector<double>& want,
                       double scale) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(got[i], want[i], 1e-5 * scale) << "result " << i;
}

struct SplitCase {
  std::int64_t outer, rows, inner;
};

class SplitColumnSum : public ::testing::TestWithParam<SplitCase> {};

TEST_P(SplitColumnSum, MatchesALoop) {
  const auto [outer, rows, inner] = GetParam();
  std::vector<float> data = random_floats(outer * rows * inner, 3);
  Tensor x = lazy::from_data(data, {outer, rows, inner});
  lazy::reset_stats();
  std::vector<float> got = lazy::sum(x, 1).to_vector<float>();
  EXPECT_GE(lazy::stats().kernels_generated, 2);  // two stages (and the rows past the last run)
  expect_sums_close(got, sum_over_middle(data, outer, rows, inner), std::sqrt(double(rows)));
}

// Whole runs; rows past the last run; few results (3 per row).
INSTANTIATE_TEST_SUITE_P(Shapes, SplitColumnSum,
                         ::testing::Values(SplitCase{1, 4096, 1024}, SplitCase{1, 2500, 1000},
                                           SplitCase{1, 1000003, 3}, SplitCase{3, 3001, 700}));

TEST(SplitColumnReduction, MaxAndAnyKeepTheirDTypeAndKeepdim) {
  std::vector<float> data = random_floats(2500 * 1000, 4);
  Tensor x = lazy::from_data(data, {2500, 1000});
  Tensor largest = lazy::max(x, 0, true);
  Tensor positive = lazy::any(x > 4.0f, 0);
  EXPECT_EQ(largest.shape(), (Shape{1, 1000}));
  EXPECT_EQ(positive.dtype(), DType::bool_);
  std::vector<float> got_max = largest.to_vector<float>();
  std::vector<bool> got_any = positive.to_vector<bool>();
  for (std::int64_t b = 0; b < 1000; ++b) {
    float want_max = -INFINITY;
    bool want_any = false;
    for (std::int64_t r = 0; r < 2500; ++r) {
      want_max = std::max(want_max, data[r * 1000 + b]);
      want_any = want_any || data[r * 1000 + b] > 4.0f;
    }
    ASSERT_EQ(got_max[b], want_max) << b;
    ASSERT_EQ(got_any[b], want_any) << b;
  }
}

TEST(SplitColumnReduction, IntegerSumsAreExact) {
  std::vector<std::int32_t> data(1000003 * 3);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = std::int32_t(i * 2654435761u >> 8);
  Tensor x = lazy::from_data(data, {1000003, 3});
  std::vector<std::int64_t> got = lazy::sum(x, 0).to_vector<std::int64_t>();
  for (std::int64_t b = 0; b < 3; ++b) {
    std::int64_t want = 0;
    for (std::int64_t r = 0; r < 1000003; ++r) want += data[r * 3 + b];
    EXPECT_EQ(got[b], want) << b;
  }
}

}  // namespace

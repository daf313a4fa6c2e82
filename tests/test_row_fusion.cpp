// Reduce-then-broadcast fusion (issue 5): softmax, the norms and reductions with pointwise work
// around them become one kernel; where fusion stops, the partition says why. Runs without a GPU
// (the host path still partitions and generates every kernel).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <regex>
#include <string>

#include <lazy/lazy.h>

#include "codegen/kernel_emitter.h"
#include "codegen/kernel_sources.h"
#include "codegen/row_kernel_emitter.h"
#include "fuse/partition.h"
#include "ir/trace.h"
#include "runtime/size_variants.h"

namespace {

using lazy::Tensor;
using lazy::fuse::Partition;
using lazy::ir::Trace;

class RowFusion : public ::testing::Test {
 protected:
  void SetUp() override { lazy::sync(); }
  void TearDown() override { Trace::current().clear(); }

  static Partition partition_pending() {
    Trace& trace = Trace::current();
    const std::vector<bool> live = trace.live();
    return lazy::fuse::partition(trace.pending(), live, trace.externals(), {true});
  }
  static lazy::codegen::GeneratedKernel kernel_of(const Partition& p, std::size_t region) {
    Trace& trace = Trace::current();
    return lazy::codegen::generate_kernel(p.regions[region], p.graph.nodes, trace.externals());
  }
  static Tensor computed(const lazy::Shape& shape, std::uint64_t seed = 7) {
    Tensor t = lazy::randn(shape, seed);
    lazy::eval({t});
    return t;
  }
  // Kernels one sync of `outputs` generates (the host path generates them as a GPU would run).
  static std::int64_t kernels_for(std::vector<Tensor> outputs) {
    lazy::reset_stats();
    lazy::eval(outputs);
    return lazy::stats().kernels_generated;
  }
};

TEST_F(RowFusion, SoftmaxIsOneRegionFoldingMaxThenSum) {
  Tensor x = computed({64, 1000});
  Tensor y = lazy::softmax(x);
  Partition p = partition_pending();
  ASSERT_EQ(p.regions.size(), 1u);
  ASSERT_TRUE(p.regions[0].row.has_value());
  EXPECT_EQ(p.regions[0].row->reductions.size(), 2u);
  EXPECT_EQ(p.regions[0].row->rows, 64);
  EXPECT_EQ(p.regions[0].row->extent, 1000);
  ASSERT_EQ(p.regions[0].roots.size(), 1u);  // only the output is written
  EXPECT_EQ(p.regions[0].roots[0].node, y.node()->trace_index);
}

TEST_F(RowFusion, SoftmaxLayerNormAndLogSoftmaxAreOneKernelEach) {
  Tensor x = computed({32, 512});
  Tensor w = computed({512}, 8);
  Tensor b = computed({512}, 9);
  EXPECT_EQ(kernels_for({lazy::softmax(x)}), 1);
  EXPECT_EQ(kernels_for({lazy::log_softmax(x)}), 1);
  EXPECT_EQ(kernels_for({lazy::layer_norm(x, w, b)}), 1);
  EXPECT_EQ(kernels_for({lazy::rms_norm(x, w)}), 1);
  EXPECT_EQ(kernels_for({lazy::logsumexp(x, -1)}), 1);
}

TEST_F(RowFusion, ResidualAddAndRmsNormAreOneKernelWithTwoOutputs) {
  Tensor x = computed({64, 256});
  Tensor r = computed({64, 256}, 8);
  Tensor w = computed({256}, 9);
  Tensor h = x + r;
  Tensor y = lazy::rms_norm(h, w);
  Partition p = partition_pending();
  ASSERT_EQ(p.regions.size(), 1u);
  ASSERT_EQ(p.regions[0].roots.size(), 2u);
  EXPECT_EQ(p.regions[0].roots[0].node, h.node()->trace_index);
  EXPECT_EQ(p.regions[0].roots[1].node, y.node()->trace_index);
}

TEST_F(RowFusion, PrologueAndEpilogueFuseWithTheReduction) {
  Tensor x = computed({16, 300});
  Tensor y = lazy::sum(lazy::exp(x) * 2.0f, -1) + 1.0f;
  Partition p = partition_pending();
  ASSERT_EQ(p.regions.size(), 1u);
  ASSERT_EQ(p.regions[0].roots.size(), 1u);  // the sum itself is not written
  EXPECT_EQ(p.regions[0].roots[0].node, y.node()->trace_index);
  EXPECT_TRUE(p.regions[0].roots[0].per_row);
}

TEST_F(RowFusion, MeanAndVarianceOfOneInputFoldInOnePass) {
  Tensor x = computed({8, 4096});
  Tensor m = lazy::mean(x, -1);
  Tensor v = lazy::var(x, -1);
  Partition p = partition_pending();
  ASSERT_EQ(p.regions.size(), 1u);
  EXPECT_EQ(p.regions[0].row->reductions.size(), 3u);  // the mean, the variance's mean, its sum
  EXPECT_EQ(p.regions[0].roots.size(), 2u);
}

TEST_F(RowFusion, AReducedValueHeldByTheUserIsWrittenToo) {
  Tensor x = computed({8, 64});
  Tensor m = lazy::max(x, -1, true);
  Tensor y = x - m;
  Partition p = partition_pending();
  ASSERT_EQ(p.regions.size(), 1u);
  ASSERT_EQ(p.regions[0].roots.size(), 2u);
  EXPECT_EQ(p.regions[0].roots[0].node, m.node()->trace_index);
  EXPECT_TRUE(p.regions[0].roots[0].per_row);
}

// Reading a row's sum across rows (through a transpose) is no row broadcast: the sum is written
// by a kernel of its own and read back, and the description says why.
TEST_F(RowFusion, AReductionReadAcrossRowsIsReadBack) {
  Tensor x = computed({8, 8});
  Tensor y = x + lazy::sum(x, -1, true).permute({1, 0});
  Partition p = partition_pending();
  ASSERT_EQ(p.regions.size(), 2u);
  EXPECT_THAT(p.describe(), ::testing::HasSubstr("(reduction)"));
  std::vector<float> values = y.to_vector<float>();
  std::vector<float> xs = x.to_vector<float>();
  float row1 = 0;
  for (int c = 0; c < 8; ++c) row1 += xs[8 + c];
  EXPECT_NEAR(values[1], xs[1] + row1, 1e-5f);  // element (0, 1) adds row 1's sum
}

// A later kernel over another shape reads the row region's reduction: the region writes it.
TEST_F(RowFusion, AReductionReadByALaterKernelIsWritten) {
  Tensor x = computed({8, 64});
  Tensor m = lazy::max(x, -1);
  Tensor y = lazy::sum(lazy::exp(x - m.reshape({8, 1})), -1);
  Tensor z = lazy::sum(m);  // another iteration space
  std::vector<float> total = z.to_vector<float>();
  std::vector<float> maxima = m.to_vector<float>();
  float expected = 0;
  for (float v : maxima) expected += v;
  EXPECT_NEAR(total[0], expected, 1e-4f * std::abs(expected) + 1e-5f);
  EXPECT_EQ(y.shape(), lazy::Shape({8}));
}

// A held view of a row region's reduction (its only reader) has memory to share: the reduction
// is written.
TEST_F(RowFusion, AHeldViewOfAReductionGetsItWritten) {
  Tensor x = computed({8, 16});
  Tensor v = lazy::sum(x, -1).unsqueeze(1);
  std::vector<float> sums = v.to_vector<float>();
  std::vector<float> xs = x.to_vector<float>();
  ASSERT_EQ(sums.size(), 8u);
  for (int r = 0; r < 8; ++r) {
    float expected = 0;
    for (int c = 0; c < 16; ++c) expected += xs[r * 16 + c];
    EXPECT_NEAR(sums[r], expected, 1e-4f);
  }
}

TEST_F(RowFusion, ShortRowsTakeASliceOfAWarpLongRowsAWholeBlock) {
  Tensor short_rows = computed({4096, 32});
  Tensor s = lazy::softmax(short_rows);
  Partition p = partition_pending();
  ASSERT_EQ(p.regions.size(), 1u);
  lazy::codegen::GeneratedKernel k = kernel_of(p, 0);
  EXPECT_EQ(k.threads, 256);
  EXPECT_THAT(k.source, ::testing::HasSubstr(" 2 thread(s) per row"));
  lazy::eval({s});

  Tensor long_rows = computed({4, 8192});
  Tensor l = lazy::softmax(long_rows);
  Partition q = partition_pending();
  ASSERT_EQ(q.regions.size(), 1u);
  lazy::codegen::GeneratedKernel lk = kernel_of(q, 0);
  EXPECT_GE(lk.threads, 64);
  EXPECT_THAT(lk.source, ::testing::HasSubstr("held per thread"));
}

// A kernel that takes its row length at run time has nothing of the length in its source but
// the vector width the length allows: two lengths of one width give one kernel, told the length
// and its threads per row as arguments; a length of whole vectors of 4, another kernel.
TEST_F(RowFusion, ARunTimeLengthKernelServesEveryLengthOfItsVectorWidth) {
  // The second length finds the text cached; checks compare it with a fresh generation.
  lazy::codegen::set_kernel_text_checks(true);
  std::vector<lazy::codegen::GeneratedKernel> kernels;
  for (std::int64_t extent : {3, 1001, 1000, 10001, 8200}) {
    Tensor x = computed({16, extent});
    Tensor y = lazy::softmax(x * 2.0f);
    Partition p = partition_pending();
    ASSERT_EQ(p.regions.size(), 1u);
    kernels.push_back(lazy::codegen::generate_kernel(
        p.regions[0], p.graph.nodes, Trace::current().externals(), {.sizes_at_run_time = true}));
    lazy::eval({y});
  }
  EXPECT_EQ(kernels[0].name, kernels[1].name);
  EXPECT_EQ(kernels[0].source, kernels[1].source);
  EXPECT_THAT(kernels[0].source, ::testing::HasSubstr("const int extent = (int)a.extent;"));
  EXPECT_THAT(kernels[0].source, ::testing::Not(::testing::HasSubstr("lz_load_vec")));
  // 16 rows: each spread over as many threads as it has groups, up to 512.
  EXPECT_EQ(kernels[0].threads, 256);  // 4 threads a row, 64 rows a block
  EXPECT_EQ(kernels[0].blocks, 1);
  EXPECT_EQ(kernels[1].threads, 512);  // 1001 single elements: a block of 512 a row
  EXPECT_EQ(kernels[1].blocks, 16);
  EXPECT_NE(kernels[2].name, kernels[1].name);
  EXPECT_THAT(kernels[2].source, ::testing::HasSubstr("const int extent = (int)a.extent;"));
  EXPECT_THAT(kernels[2].source, ::testing::HasSubstr("lz_load_vec<4>"));
  EXPECT_EQ(kernels[2].threads, 256);  // 250 groups of 4
  // Rows of up to 4 groups a thread of 512 are held in registers: read once for both reductions
  // and the stores. Longer ones loop, each thread loading 32 bytes of its row before folding any.
  EXPECT_THAT(kernels[1].source, ::testing::HasSubstr("held0[4]"));
  EXPECT_THAT(kernels[2].source, ::testing::HasSubstr("held0[4]"));
  EXPECT_THAT(kernels[1].source, ::testing::Not(::testing::HasSubstr("g0 +=")));
  EXPECT_NE(kernels[3].name, kernels[1].name);
  EXPECT_THAT(kernels[3].source, ::testing::HasSubstr("g0 += 8 * row_threads"));
  EXPECT_NE(kernels[4].name, kernels[2].name);
  EXPECT_THAT(kernels[4].source, ::testing::HasSubstr("g0 += 2 * row_threads"));
  // Same arguments, other values: the length, threads per row and row strides.
  ASSERT_EQ(kernels[0].args.size(), kernels[1].args.size());
  int differ = 0;
  for (std::size_t i = 0; i < kernels[0].args.size(); ++i)
    differ += kernels[0].args[i].value != kernels[1].args[i].value;
  EXPECT_GE(differ, 3);
  lazy::codegen::set_kernel_text_checks(false);
}

// Found in review: a weight every row reads alike (row stride 0) is loaded once before the loop
// over rows; the text key left that out, so the same structure over a weight whose rows differ
// took the cached text and would have read row 0's weight for every row.
TEST_F(RowFusion, AWeightEveryRowReadsAlikeAndOneWhoseRowsDifferGetTheirOwnText) {
  lazy::codegen::set_kernel_text_checks(true);  // a cached text must equal a fresh one
  const Tensor x = computed({64, 1024}), row = computed({1024}), rows = computed({128, 1024});
  const auto step = [](const Tensor& v, const Tensor& w) { return v / lazy::sum(v, -1, true) * w; };
  std::vector<std::string> sources;
  for (const Tensor& w : {row.expand({64, 1024}), rows.slice(0, 0, 64)}) {
    const Tensor y = step(x, w);
    Partition p = partition_pending();
    ASSERT_EQ(p.regions.size(), 1u);
    sources.push_back(lazy::codegen::generate_kernel(p.regions[0], p.graph.nodes,
                                                     Trace::current().externals(), {})
                          .source);
    EXPECT_NO_THROW(lazy::eval({y}));
  }
  EXPECT_NE(sources[0], sources[1]);
  lazy::codegen::set_kernel_text_checks(false);
}

// runtime::kernel_variant: a row structure is compiled for its first length
// (LAZY_SPECIALIZED_ROW_LENGTHS) and takes every other at run time, in the kernel of the vector
// width the length allows; the first length comes back compiled in, told by the structure's key
// without generating the run-time kernel again.
TEST_F(RowFusion, AStructureIsCompiledForItsFirstLengthAndTakesOthersAtRunTime) {
  lazy::codegen::set_kernel_text_checks(true);
  std::vector<std::string> sources;
  for (std::int64_t extent : {37, 39, 37, 41, 38}) {
    Tensor x = computed({5, extent});
    Tensor y = lazy::softmax(lazy::sin(x) * 0.731f);  // a structure no other test makes
    Partition p = partition_pending();
    ASSERT_EQ(p.regions.size(), 1u);
    sources.push_back(lazy::runtime::kernel_variant(p.regions[0], p.graph.nodes,
                                                    Trace::current().externals(), false)
                          .source);
    lazy::eval({y});
  }
  EXPECT_THAT(sources[0], ::testing::HasSubstr("constexpr int extent = 37;"));
  EXPECT_THAT(sources[1], ::testing::HasSubstr("const int extent = (int)a.extent;"));
  EXPECT_EQ(sources[2], sources[0]);
  EXPECT_EQ(sources[3], sources[1]);
  EXPECT_THAT(sources[4], ::testing::HasSubstr("const int extent = (int)a.extent;"));
  EXPECT_THAT(sources[4], ::testing::HasSubstr("lz_load_vec<2>"));
  lazy::codegen::set_kernel_text_checks(false);
}

// A kernel compiled for its length holds the length but not the number of rows: another batch
// of the same rows finds its text cached (checked against a fresh one), another length does not.
TEST_F(RowFusion, ALengthKernelsTextServesOtherRowCountsOfItsLength) {
  lazy::codegen::set_kernel_text_checks(true);
  std::vector<lazy::codegen::GeneratedKernel> kernels;
  for (auto [rows, extent] : {std::pair{16, 1000}, {48, 1000}, {48, 1004}, {1, 1000}}) {
    Tensor x = computed({rows, extent});
    Tensor y = lazy::softmax(x * 2.0f);
    Partition p = partition_pending();
    ASSERT_EQ(p.regions.size(), 1u);
    kernels.push_back(lazy::codegen::generate_kernel(p.regions[0], p.graph.nodes,
                                                     Trace::current().externals(), {}));
    lazy::eval({y});
  }
  EXPECT_EQ(kernels[0].source, kernels[1].source);
  EXPECT_THAT(kernels[0].source, ::testing::HasSubstr("constexpr int extent = 1000;"));
  EXPECT_NE(kernels[0].args[0].value, kernels[1].args[0].value);  // the rows
  EXPECT_EQ(kernels[1].blocks * 3, kernels[0].blocks * 9);        // 3 times the rows
  EXPECT_NE(kernels[1].source, kernels[2].source);
  EXPECT_THAT(kernels[2].source, ::testing::HasSubstr("constexpr int extent = 1004;"));
  lazy::codegen::set_kernel_text_checks(false);
}

// A cached text serves only its own structure: another op, another kernel.
TEST_F(RowFusion, RunTimeLengthKernelsOfOtherOpsDiffer) {
  const lazy::codegen::CodegenOptions run_time{.sizes_at_run_time = true};
  lazy::codegen::set_kernel_text_checks(true);
  Tensor x = computed({16, 50});
  Tensor xi = (x * 10.0f).to(lazy::DType::i32);
  lazy::eval({xi});
  // One line records both sums: only their dtypes differ.
  auto sum_rows = [](const Tensor& t) { return lazy::sum(t, -1); };
  std::vector<std::string> names;
  for (int variant = 0; variant < 4; ++variant) {
    Tensor y = variant == 0   ? lazy::softmax(x)
               : variant == 1 ? lazy::log_softmax(x)
                              : sum_rows(variant == 2 ? x : xi);
    Partition p = partition_pending();
    names.push_back(lazy::codegen::generate_kernel(p.regions.back(), p.graph.nodes,
                                                   Trace::current().externals(), run_time)
                        .name);
    lazy::eval({y});
  }
  EXPECT_NE(names[0], names[1]);
  EXPECT_NE(names[2], names[3]);
  lazy::codegen::set_kernel_text_checks(false);
}

// Few very long rows fold in chunks first (no kernel would fill the GPU otherwise); nothing of
// the row's size is written but the result.
TEST_F(RowFusion, FewLongRowsFoldInChunksWritingOnlyReducedValues) {
  Tensor x = computed({4, 1 << 20});
  Tensor y = lazy::softmax(x);
  Partition p = partition_pending();
  // The chunks' max and sum of exp in one pass (online softmax), the chunks' values folded per
  // row, then the output: x is read twice.
  ASSERT_EQ(p.regions.size(), 3u) << p.describe();
  ASSERT_TRUE(p.regions[0].row.has_value());
  EXPECT_EQ(p.regions[0].row->reductions.size(), 2u);
  ASSERT_TRUE(p.regions[1].row.has_value());
  EXPECT_EQ(p.regions[1].row->reductions.size(), 2u);
  const auto& nodes = p.graph.nodes;
  for (const auto& region : p.regions) {
    for (const auto& root : region.roots) {
      if (p.graph.recorded[root.node] == std::int32_t(y.node()->trace_index)) continue;
      EXPECT_LE(nodes[root.node]->shape.numel(), 4 * 256) << p.describe();
    }
  }
}

// A row region reading another's reduction per row restarts the partition to have it written;
// the regions built after the restart must not read their loads per row. The reduction over a
// sliced, reshaped view below once read one element per row of 16384.
TEST_F(RowFusion, LoadsBuiltAfterARestartWalkEveryElement) {
  Tensor x = computed({3, 1000003});
  Tensor out;
  {
    Tensor values = lazy::max(x.slice(1, 0, 999424, 1).reshape({3, 61, 16384}), 2);
    Tensor best = lazy::max(values, 1, true);
    Tensor rest_best = lazy::max(x.slice(1, 999424, 1000003, 1), 1, true);
    out = lazy::logical_and(lazy::logical_not(lazy::isnan(best)), rest_best > best);
  }
  Partition p = partition_pending();
  ASSERT_FALSE(p.regions.empty());
  for (const auto& region : p.regions) {
    for (const auto& term : region.terms) {
      if (term.kind != lazy::fuse::Term::Kind::load || term.layout.shape.rank() != 3) continue;
      EXPECT_EQ(term.layout.strides[2], 1) << p.describe();
    }
  }
}

TEST_F(RowFusion, LaunchChoiceFollowsRowLength) {
  using lazy::codegen::choose_row_launch;
  EXPECT_EQ(choose_row_launch(8, 4, 1).row_threads, 2);  // 32 floats: 2 threads
  // 4096 floats: four groups per thread.
  EXPECT_EQ(choose_row_launch(1024, 4, 4).row_threads, 256);
  EXPECT_EQ(choose_row_launch(1024, 4, 4).items, 4);
  EXPECT_EQ(choose_row_launch(8192, 4, 4).items, 8);     // 32768 floats still held
  EXPECT_EQ(choose_row_launch(1 << 20, 4, 4).items, 0);  // too long to hold: loops
  // More registers per group: more threads share the row.
  EXPECT_GT(choose_row_launch(2048, 4, 32).row_threads, 512);
  // Attention's rows of 1024 in groups of 16 (a bool mask beside bf16): the forward softmax
  // (12 words a group) on a warp, the backward (28, its probabilities kept) on two.
  EXPECT_EQ(choose_row_launch(64, 16, 12).row_threads, 32);
  EXPECT_EQ(choose_row_launch(64, 16, 28).row_threads, 64);
  EXPECT_EQ(choose_row_launch(64, 16, 28).items, 1);
  // A run-time length: four groups a thread over many rows; few rows spread over more threads.
  using lazy::codegen::choose_run_time_row_launch;
  EXPECT_EQ(choose_run_time_row_launch(16384, 1024, 4, 0).row_threads, 256);
  EXPECT_EQ(choose_run_time_row_launch(64, 1024, 4, 0).row_threads, 512);
  EXPECT_EQ(choose_run_time_row_launch(64, 100, 4, 0).row_threads, 128);
  // A row that phases read again is held where it fits: 2048 groups over 512 threads, in at most
  // 32 registers a thread; a longer row, or one that nothing reads again, loops.
  EXPECT_EQ(choose_run_time_row_launch(16384, 2048, 4, 8).items, 4);
  EXPECT_EQ(choose_run_time_row_launch(64, 100, 4, 4).items, 4);
  EXPECT_EQ(choose_run_time_row_launch(16384, 2049, 4, 8).items, 0);
  EXPECT_EQ(choose_run_time_row_launch(16384, 2048, 4, 9).items, 0);
  EXPECT_EQ(choose_run_time_row_launch(16384, 2048, 4, 0).items, 0);
  EXPECT_EQ(choose_run_time_row_launch(16384, 2048, 4, 8).row_threads, 512);
}

// Llama's softmax (f32 over bf16 scores, cast back): each element divides through the row sum's
// reciprocal, taken once per row, and the cast to bf16 is the store's one rounding.
TEST_F(RowFusion, SoftmaxDividesThroughTheRowReciprocalAndRoundsOnce) {
  Tensor x = computed({64, 1024}).to(lazy::bf16);
  lazy::eval({x});
  Tensor y = lazy::softmax(x.to(lazy::f32), -1).to(lazy::bf16);
  Partition p = partition_pending();
  ASSERT_EQ(p.regions.size(), 1u);
  const std::string source = kernel_of(p, 0).source;
  std::smatch division;
  ASSERT_TRUE(std::regex_search(
      source, division, std::regex(R"(const float (v\d+) = lz_div_by\((\w+), (\w+), (rcp\d+)\))")))
      << source;
  EXPECT_THAT(source, ::testing::HasSubstr("const double " + division[4].str() +
                                           " = 1.0 / (double)" + division[3].str() + ";"));
  EXPECT_THAT(source,
              ::testing::HasSubstr("outv0.v[e] = lz_f32_to_bf16(" + division[1].str() + ");"));
}

}  // namespace

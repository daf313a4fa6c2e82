// Which products run as a generated skinny kernel (codegen/skinny_matmul.h) rather than a
// cuBLASLt call, and that its source, with each epilogue, compiles. Runs without a GPU.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include <lazy/lazy.h>

#include "codegen/skinny_matmul.h"
#include "codegen_test_support.h"
#include "ir/trace.h"
#include "runtime/size_variants.h"

namespace {

using lazy::DType;
using lazy::Shape;
using lazy::Tensor;
using lazy::ir::Trace;
using lazy_test::generate_pending;
using lazy_test::Generated;
using ::testing::HasSubstr;
using ::testing::Not;

class SkinnyMatmul : public ::testing::Test {
 protected:
  void SetUp() override { lazy::sync(); }
  void TearDown() override { Trace::current().clear(); }

  static Tensor computed(const Shape& shape, DType dtype = DType::bf16) {
    Tensor t = lazy::randn(shape, 3).to(dtype);
    lazy::eval({t});
    return t;
  }
  // Whether the one product pending runs as a skinny kernel on `arch`.
  static bool skinny(int arch = lazy_test::kCodegenArch) {
    Trace& trace = Trace::current();
    const std::vector<bool> live = trace.live();
    const lazy::fuse::Partition p =
        lazy::fuse::partition(trace.pending(), live, trace.externals(), {true});
    for (const auto& region : p.regions)
      if (region.matmul) return lazy::codegen::skinny_product(region, p.graph.nodes, arch);
    ADD_FAILURE() << "no product in " << p.describe();
    return false;
  }
};

TEST_F(SkinnyMatmul, FewRowsTimesATransposedWeight) {
  const Tensor w = computed({256, 64});
  for (std::int64_t rows : {1, 7, 16}) {
    const Tensor y = lazy::linear(computed({rows, 64}), w);
    EXPECT_TRUE(skinny()) << rows << " rows";
    Trace::current().clear();
  }
  // A batch laid out like more rows folds into them.
  const Tensor batched = lazy::linear(computed({2, 8, 64}), w);
  EXPECT_TRUE(skinny());
}

TEST_F(SkinnyMatmul, OtherProductsCallTheLibrary) {
  const Tensor w = computed({256, 64});
  auto expect_library = [&](const Tensor& y, const std::string& what, int arch = 90) {
    EXPECT_FALSE(skinny(arch)) << what;
    Trace::current().clear();
  };
  expect_library(lazy::linear(computed({17, 64}), w), "17 rows: more than one tile");
  expect_library(lazy::linear(computed({16, 64}, DType::f32), computed({256, 64}, DType::f32)),
                 "f32");
  expect_library(lazy::matmul(computed({16, 64}), computed({64, 256})), "weight with N contiguous");
  expect_library(lazy::linear(computed({16, 60}), computed({256, 60})), "K not in 16-byte groups");
  expect_library(lazy::linear(computed({16, 72}).slice(1, 3, 67), w), "x offset by 3 elements");
  expect_library(lazy::linear(computed({16, 64}), w), "before tensor cores' mma", 75);
  expect_library(lazy::bmm(computed({2, 8, 64}), computed({2, 32, 64}).transpose(1, 2)),
                 "a weight per batch");
}

TEST_F(SkinnyMatmul, EachEpilogueCompiles) {
  for (DType dtype : {DType::bf16, DType::f16}) {
    const Tensor x = computed({16, 64}, dtype), w = computed({40, 64}, dtype);
    const Tensor b = computed({40}, dtype), r = computed({16, 40}, dtype);
    const Tensor y = lazy::gelu_tanh(r + lazy::linear(x, w, b));
    Generated g = generate_pending();
    ASSERT_EQ(g.kernels.size(), 1u);
    const std::string& source = g.kernels[0].source;
    EXPECT_THAT(g.kernels[0].name, HasSubstr("skinny_matmul_bias_residual_gelu_tanh"));
    EXPECT_THAT(source, HasSubstr("lz_skinny_product<" +
                                  std::string(dtype == DType::bf16 ? "true" : "false") + ", int>"));
    EXPECT_THAT(source, HasSubstr("lz_gelu_tanh(v)"));
    EXPECT_THAT(source, HasSubstr("[a.residual_at + row * a.residual_ld + col]"));
    lazy_test::expect_compiles(g);
    Trace::current().clear();
  }
}

// The weight's shape is compiled in (literals the index arithmetic folds) unless the kernel takes
// its sizes at run time, when one source serves every shape; the rows are always an argument.
TEST_F(SkinnyMatmul, SizesAreCompiledInOrTakenAtRunTime) {
  const Tensor x = computed({5, 72});
  std::vector<std::string> compiled_in, at_run_time;
  for (std::int64_t n : {40, 56}) {
    const Tensor y = lazy::linear(x, computed({n, 72}));
    Trace& trace = Trace::current();
    const lazy::fuse::Partition p =
        lazy::fuse::partition(trace.pending(), trace.live(), trace.externals(), {true});
    ASSERT_EQ(p.regions.size(), 1u);
    for (const bool run_time : {false, true}) {
      const lazy::codegen::GeneratedKernel kernel = lazy::codegen::generate_skinny_matmul(
          p.regions[0], p.graph.nodes, trace.externals(), {.sizes_at_run_time = run_time});
      (run_time ? at_run_time : compiled_in).push_back(kernel.source);
      EXPECT_THAT(kernel.source, HasSubstr("(int)a.rows"));
      Generated generated;
      generated.kernels.push_back(kernel);
      lazy_test::expect_compiles(generated);
    }
    EXPECT_THAT(compiled_in.back(), HasSubstr("72LL"));
    EXPECT_THAT(compiled_in.back(), HasSubstr("[row * " + std::to_string(n) + "LL + col]"));
    EXPECT_THAT(compiled_in.back(), Not(HasSubstr("a.k")));
    EXPECT_THAT(compiled_in.back(), HasSubstr("lz_skinny_product<true, int>"));
    EXPECT_THAT(at_run_time.back(), HasSubstr("lz_skinny_product<true, long long>"));
    EXPECT_THAT(at_run_time.back(), HasSubstr("a.k"));
    EXPECT_THAT(at_run_time.back(), HasSubstr("[row * a.n + col]"));
    EXPECT_THAT(at_run_time.back(), Not(HasSubstr("72LL")));
    Trace::current().clear();
  }
  EXPECT_NE(compiled_in[0], compiled_in[1]);
  EXPECT_EQ(at_run_time[0], at_run_time[1]);
}

// The plan builder's choice: the shape compiled in by default, at run time when every kernel is
// told to take its sizes so (the fuzzer's mode).
TEST_F(SkinnyMatmul, VariantsFollowTheRunTimeSwitch) {
  const Tensor y = lazy::linear(computed({3, 64}), computed({24, 64}));
  Trace& trace = Trace::current();
  const lazy::fuse::Partition p =
      lazy::fuse::partition(trace.pending(), trace.live(), trace.externals(), {true});
  ASSERT_EQ(p.regions.size(), 1u);
  const auto variant = [&] {
    return lazy::runtime::kernel_variant(p.regions[0], p.graph.nodes, trace.externals(), false)
        .source;
  };
  EXPECT_THAT(variant(), HasSubstr("64LL"));
  lazy::runtime::set_all_sizes_at_run_time(true);
  const std::string at_run_time = variant();
  lazy::runtime::set_all_sizes_at_run_time(false);
  EXPECT_THAT(at_run_time, HasSubstr("a.k"));
  EXPECT_THAT(variant(), HasSubstr("64LL"));  // the same shape again: still compiled in
}

}  // namespace

// Which products run as a generated skinny kernel (codegen/skinny_matmul.h) rather than a
// cuBLASLt call, and that its source, with each epilogue, compiles. Runs without a GPU.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include <lazy/lazy.h>

#include "codegen/skinny_matmul.h"
#include "codegen_test_support.h"
#include "ir/trace.h"

namespace {

using lazy::DType;
using lazy::Shape;
using lazy::Tensor;
using lazy::ir::Trace;
using lazy_test::generate_pending;
using lazy_test::Generated;
using ::testing::HasSubstr;

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
                                  std::string(dtype == DType::bf16 ? "true" : "false") + ">"));
    EXPECT_THAT(source, HasSubstr("lz_gelu_tanh(v)"));
    EXPECT_THAT(source, HasSubstr("[a.residual_at + row * a.residual_ld + col]"));
    lazy_test::expect_compiles(g);
    Trace::current().clear();
  }
}

}  // namespace

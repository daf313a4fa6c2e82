// How the partitioner places matrix products: epilogues folded into the call, operands read in
// place or written densely first, a region of its own per product, and what LAZY_DEBUG=2 says.
// Runs without a GPU.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <lazy/lazy.h>

#include "api/composites.h"
#include "fuse/matmul_epilogues.h"
#include "fuse/partition.h"
#include "ir/matmul.h"
#include "ir/trace.h"

namespace {

using lazy::DType;
using lazy::Shape;
using lazy::Tensor;
using lazy::fuse::CutReason;
using lazy::fuse::Partition;
using lazy::fuse::Region;
using lazy::ir::MatmulActivation;
using lazy::ir::Trace;
using ::testing::HasSubstr;

class MatmulPartition : public ::testing::Test {
 protected:
  void SetUp() override { lazy::sync(); }
  void TearDown() override { Trace::current().clear(); }

  static Partition partitioned(bool fusion = true) {
    Trace& trace = Trace::current();
    const std::vector<bool> live = trace.live();
    return lazy::fuse::partition(trace.pending(), live, trace.externals(), {fusion});
  }
  static Tensor computed(const Shape& shape, DType dtype = DType::bf16) {
    Tensor t = lazy::randn(shape, 11).to(dtype);
    lazy::eval({t});
    return t;
  }
  static int matmul_regions(const Partition& p) {
    int n = 0;
    for (const Region& r : p.regions) n += r.matmul.has_value();
    return n;
  }
  static lazy::ir::MatmulEpilogue epilogue_of(const Partition& p, const Region& r) {
    return lazy::ir::matmul_epilogue(*p.graph.nodes[r.matmul->node]);
  }
};

TEST_F(MatmulPartition, BiasAndGeluRunInTheCall) {
  Tensor x = computed({64, 32}), w = computed({48, 32}), b = computed({48});
  Tensor y = lazy::gelu_tanh(lazy::linear(x, w, b));
  const Partition p = partitioned();
  ASSERT_EQ(p.regions.size(), 1u) << p.describe();
  const Region& r = p.regions[0];
  ASSERT_TRUE(r.matmul);
  const auto e = epilogue_of(p, r);
  EXPECT_TRUE(e.bias);
  EXPECT_FALSE(e.residual);
  EXPECT_EQ(e.activation, MatmulActivation::gelu_tanh);
  // The weight is read transposed in place: no copy region.
  EXPECT_EQ(r.matmul->problem.m, 48);
  EXPECT_EQ(r.matmul->problem.n, 64);
  EXPECT_EQ(r.matmul->problem.k, 32);
  EXPECT_THAT(p.describe(), HasSubstr("in its epilogue (no kernel"));
  EXPECT_THAT(p.describe(), HasSubstr("one matrix product"));
  // The folded node stands for the held gelu: its result is the user's.
  EXPECT_TRUE(p.graph.live[r.matmul->node]);
}

TEST_F(MatmulPartition, ResidualInTheCallThenOneNormKernel) {
  Tensor x = computed({64, 32}), w = computed({48, 32}), r = computed({64, 48}), g = computed({48});
  Tensor y = lazy::rms_norm(lazy::linear(x, w) + r, g);
  const Partition p = partitioned();
  ASSERT_EQ(p.regions.size(), 2u) << p.describe();
  ASSERT_TRUE(p.regions[0].matmul);
  EXPECT_TRUE(epilogue_of(p, p.regions[0]).residual);
  EXPECT_TRUE(p.regions[0].matmul->problem.c.has_value());
  EXPECT_TRUE(p.regions[1].row) << "the norm reads the product in one row kernel";
}

TEST_F(MatmulPartition, ActivationAfterAResidualIsNotReordered) {
  Tensor x = computed({16, 8}), w = computed({8, 8}), b = computed({8}), r = computed({16, 8});
  // gelu(x w^T + b) + r: cuBLASLt adds C before its activation, so r stays outside the call.
  Tensor y = lazy::gelu_tanh(lazy::linear(x, w, b)) + r;
  const Partition p = partitioned();
  ASSERT_EQ(matmul_regions(p), 1);
  const auto e = epilogue_of(p, p.regions[0]);
  EXPECT_TRUE(e.bias);
  EXPECT_FALSE(e.residual);
  EXPECT_EQ(p.regions.size(), 2u) << p.describe();
}

TEST_F(MatmulPartition, HeldIntermediateIsNotFolded) {
  Tensor x = computed({16, 8}), w = computed({8, 8}), b = computed({8});
  Tensor pre = lazy::linear(x, w, b);
  Tensor y = lazy::relu(pre);
  const Partition p = partitioned();
  ASSERT_EQ(matmul_regions(p), 1);
  const auto e = epilogue_of(p, p.regions[0]);
  EXPECT_TRUE(e.bias);
  EXPECT_EQ(e.activation, MatmulActivation::none);
  EXPECT_THAT(p.describe(), HasSubstr("held by a handle"));
}

TEST_F(MatmulPartition, OtherConsumersAreNamedInTheNotes) {
  Tensor x = computed({16, 8}), w = computed({8, 8});
  Tensor y = lazy::linear(x, w) * 3.0;
  const Partition p = partitioned();
  EXPECT_EQ(p.regions.size(), 2u);
  EXPECT_THAT(p.describe(), HasSubstr("runs in a generated kernel reading the product"));
}

TEST_F(MatmulPartition, ComputedOperandIsWrittenByAKernelBeforeTheCall) {
  Tensor x = computed({16, 8}), w = computed({8, 12});
  Tensor y = lazy::matmul(lazy::tanh(x), w);
  const Partition p = partitioned();
  ASSERT_EQ(p.regions.size(), 2u) << p.describe();
  EXPECT_FALSE(p.regions[0].matmul);
  EXPECT_EQ(p.regions[0].roots[0].reason, CutReason::matmul_operand);
  EXPECT_TRUE(p.regions[1].matmul);
}

TEST_F(MatmulPartition, BatchAxesThatDoNotCollapseAreCopied) {
  Tensor qkv = computed({2, 6, 3, 4, 16});
  Tensor q = qkv.slice(2, 0, 1).reshape({2, 6, 4, 16}).permute({0, 2, 1, 3});
  Tensor k = qkv.slice(2, 1, 2).reshape({2, 6, 4, 16}).permute({0, 2, 3, 1});
  Tensor s = lazy::matmul(q, k);
  const Partition p = partitioned();
  ASSERT_EQ(matmul_regions(p), 1) << p.describe();
  bool copied = false;
  for (const Region& r : p.regions)
    for (const auto& root : r.roots) copied = copied || root.reason == CutReason::matmul_layout;
  EXPECT_TRUE(copied) << p.describe();
}

TEST_F(MatmulPartition, SharedWeightFoldsTheBatchIntoRows) {
  Tensor x = computed({8, 16, 32}), w = computed({24, 32});
  Tensor y = lazy::linear(x, w);
  const Partition p = partitioned();
  ASSERT_EQ(p.regions.size(), 1u) << p.describe();
  EXPECT_EQ(p.regions[0].matmul->problem.batch, 1);
  EXPECT_EQ(p.regions[0].matmul->problem.n, 8 * 16);
}

TEST_F(MatmulPartition, UnfusedRunsNoEpilogueInTheCall) {
  Tensor x = computed({16, 8}), w = computed({8, 8}), b = computed({8});
  Tensor y = lazy::gelu_tanh(lazy::linear(x, w, b));
  const Partition p = partitioned(false);
  ASSERT_EQ(matmul_regions(p), 1);
  EXPECT_EQ(epilogue_of(p, p.regions[0]), lazy::ir::MatmulEpilogue{});
  EXPECT_EQ(p.regions.size(), 3u) << p.describe();
}

TEST_F(MatmulPartition, ProductsReadEachOthersResults) {
  Tensor x = computed({16, 8}), w1 = computed({12, 8}), w2 = computed({4, 12});
  Tensor y = lazy::linear(lazy::gelu_tanh(lazy::linear(x, w1)), w2);
  const Partition p = partitioned();
  ASSERT_EQ(p.regions.size(), 2u) << p.describe();
  EXPECT_EQ(epilogue_of(p, p.regions[0]).activation, MatmulActivation::gelu_tanh);
  EXPECT_TRUE(p.regions[1].matmul);
}

}  // namespace

namespace {

// A causal mask [S, S] broadcast over [B, H, S, S] starts each row at (row % S) * S: two strided
// groups of kept axes, which the row kernel walks, so the masked softmax is one kernel.
TEST_F(MatmulPartition, MaskedSoftmaxOfScoresIsOneRowKernel) {
  Tensor q = computed({2, 4, 16, 8}), k = computed({2, 4, 16, 8});
  Tensor mask = lazy::arange(16).reshape({16, 1}) >= lazy::arange(16).reshape({1, 16});
  lazy::eval({mask});
  Tensor scores = lazy::matmul(q, k.transpose(2, 3)) * 0.35;
  Tensor p = lazy::softmax(lazy::where(mask, scores, -INFINITY).to(DType::f32), -1);
  const Partition part = partitioned();
  ASSERT_EQ(part.regions.size(), 2u) << part.describe();
  EXPECT_TRUE(part.regions[1].row) << part.describe();
}

}  // namespace

namespace {

// f32 keeps gelu_tanh in a generated kernel: cuBLASLt's is 30 f32 ulps from the exact form.
TEST_F(MatmulPartition, F32GeluStaysInAKernel) {
  Tensor x = computed({16, 8}, DType::f32), w = computed({8, 8}, DType::f32),
         b = computed({8}, DType::f32);
  Tensor y = lazy::gelu_tanh(lazy::linear(x, w, b));
  const Partition p = partitioned();
  ASSERT_EQ(p.regions.size(), 2u) << p.describe();
  EXPECT_TRUE(epilogue_of(p, p.regions[0]).bias);
  EXPECT_EQ(epilogue_of(p, p.regions[0]).activation, MatmulActivation::none);
  EXPECT_THAT(p.describe(), HasSubstr("30 f32 ulps"));
}

// A product with a bias and a residual has four inputs; hashing it overflowed a three-input
// buffer (found by lazyfuse-fuzz --only-products seed 1, program 5: lazy::linear(x, w, b) + r).
TEST_F(MatmulPartition, BiasAndResidualTogether) {
  Tensor x = computed({16, 8}), w = computed({12, 8}), b = computed({12}), r = computed({16, 12});
  Tensor y = lazy::add(lazy::linear(x, w, b), r);
  const Partition p = partitioned();
  ASSERT_EQ(p.regions.size(), 1u) << p.describe();
  const auto e = epilogue_of(p, p.regions[0]);
  EXPECT_TRUE(e.bias);
  EXPECT_TRUE(e.residual);
  EXPECT_EQ(p.graph.nodes[p.regions[0].matmul->node]->inputs.size(), 4u);
}

}  // namespace

namespace {

// cuBLASLt's relu epilogue makes NaN 0; torch.relu keeps NaN, so relu runs in a kernel (found by
// lazyfuse-fuzz --only-products seed 7103 program 762: relu(addmm(b, a, w)) with a NaN in b).
TEST_F(MatmulPartition, ReluStaysOutOfTheCall) {
  Tensor x = computed({16, 8}), w = computed({8, 8}), b = computed({8});
  Tensor y = lazy::relu(lazy::linear(x, w, b));
  const Partition p = partitioned();
  ASSERT_EQ(p.regions.size(), 2u) << p.describe();
  EXPECT_TRUE(epilogue_of(p, p.regions[0]).bias);
  EXPECT_EQ(epilogue_of(p, p.regions[0]).activation, MatmulActivation::none);
  EXPECT_THAT(p.describe(), HasSubstr("keeps NaN"));
}

}  // namespace

namespace {

// An input read twice (as b and as the residual) is one load term; the call must still find each
// input's term (lazyfuse-fuzz --only-products seed 8201 program 2086: t0 + t1 @ t0 read past the
// call's arguments).
TEST_F(MatmulPartition, AnInputReadTwiceKeepsItsPlace) {
  Tensor t0 = computed({1, 1}, DType::f32), t1 = computed({1, 1}, DType::f32);
  Tensor y = lazy::add(t0, lazy::matmul(t1, t0));
  const Partition p = partitioned();
  ASSERT_EQ(p.regions.size(), 1u) << p.describe();
  const auto& m = *p.regions[0].matmul;
  ASSERT_EQ(m.input_terms.size(), 3u);
  EXPECT_EQ(m.input_terms[1], m.input_terms[2]);
  EXPECT_EQ(p.regions[0].terms.size(), 2u);
}

}  // namespace

namespace {

// Two products added (a backward's input gradient through two layers) could both claim the add
// as their residual epilogue, leaving neither computed: the first call now takes it, reading the
// second product as its C (block_train's backward hit this as an internal error).
TEST_F(MatmulPartition, TheSumOfTwoProductsIsOneCallReadingTheOther) {
  Tensor x1 = computed({16, 8}), w1 = computed({12, 8}), x2 = computed({16, 4}),
         w2 = computed({12, 4});
  Tensor y = lazy::linear(x1, w1) + lazy::linear(x2, w2);
  const Partition p = partitioned();
  ASSERT_EQ(p.regions.size(), 2u) << p.describe();
  EXPECT_EQ(matmul_regions(p), 2);
  int with_residual = 0;
  for (const Region& r : p.regions) with_residual += epilogue_of(p, r).residual;
  EXPECT_EQ(with_residual, 1);
  EXPECT_THAT(p.describe(), HasSubstr("folded into another product's call"));
}

// gelu_tanh's gradient straight from a product (a backward's input gradient): cuBLASLt's DGELU
// epilogue, reading x as its aux operand in the result's layout.
TEST_F(MatmulPartition, GeluTanhsGradientOfAProductRunsInTheCallReadingX) {
  Tensor g = computed({64, 40}), w = computed({40, 48}), x = computed({64, 48});
  Tensor y = lazy::api::gelu_tanh_grad(lazy::matmul(g, w), x, std::source_location::current());
  const Partition p = partitioned();
  ASSERT_EQ(p.regions.size(), 1u) << p.describe();
  const Region& r = p.regions[0];
  ASSERT_TRUE(r.matmul);
  EXPECT_EQ(epilogue_of(p, r).activation, MatmulActivation::gelu_tanh_grad);
  const lazy::ir::Node& call = *p.graph.nodes[r.matmul->node];
  ASSERT_EQ(call.inputs.size(), 3u);
  EXPECT_EQ(call.inputs[2], x.node());
  EXPECT_THAT(p.describe(), HasSubstr("DGELU"));
}

TEST_F(MatmulPartition, GeluTanhsGradientStaysInAKernelWhereDgeluDoesNotApply) {
  const auto folded = [&](Tensor product, const Tensor& x) {
    Tensor y = lazy::api::gelu_tanh_grad(product, x, std::source_location::current());
    const Partition p = partitioned();
    bool any = false;
    for (const Region& r : p.regions)
      any = any || (r.matmul && epilogue_of(p, r).activation == MatmulActivation::gelu_tanh_grad);
    Trace::current().clear();
    return any;
  };
  // f32; rows of 12 bf16 (not whole 16-byte groups); after a bias.
  EXPECT_FALSE(folded(lazy::matmul(computed({8, 16}, DType::f32), computed({16, 24}, DType::f32)),
                      computed({8, 24}, DType::f32)));
  EXPECT_FALSE(folded(lazy::matmul(computed({8, 16}), computed({16, 12})), computed({8, 12})));
  EXPECT_FALSE(folded(lazy::linear(computed({8, 16}), computed({24, 16}), computed({24})),
                      computed({8, 24})));
}

// The backward of linear -> gelu_tanh -> linear: the input gradient of the second product runs
// gelu_tanh's gradient in its call.
TEST_F(MatmulPartition, AnMlpsBackwardRunsDgeluInTheSecondLayersInputGradient) {
  const Tensor x = computed({64, 32});
  std::vector<Tensor> gradients = lazy::grad([x](std::span<const Tensor> w) {
    const Tensor h = lazy::gelu_tanh(lazy::linear(x, w[0]));
    return lazy::sum(lazy::linear(h, w[1]).to(DType::f32));
  })({computed({48, 32}), computed({40, 48})});
  const Partition p = partitioned();
  int dgelu = 0;
  for (const Region& r : p.regions)
    dgelu += r.matmul && epilogue_of(p, r).activation == MatmulActivation::gelu_tanh_grad;
  EXPECT_EQ(dgelu, 1) << p.describe();
}

// x read transposed is written densely first: cuBLASLt reads aux in the result's layout.
TEST_F(MatmulPartition, AStridedXIsWrittenDenselyForDgelu) {
  Tensor g = computed({64, 40}), w = computed({40, 48}), xt = computed({48, 64});
  Tensor y = lazy::api::gelu_tanh_grad(lazy::matmul(g, w), xt.transpose(0, 1),
                                       std::source_location::current());
  const Partition p = partitioned();
  EXPECT_EQ(matmul_regions(p), 1);
  ASSERT_EQ(p.regions.size(), 2u) << p.describe();
  EXPECT_EQ(epilogue_of(p, p.regions[1]).activation, MatmulActivation::gelu_tanh_grad);
}

// The gradient of a flip's diagonal of a product, beside a gradient that reads the input: the
// flipped cotangent is cut in the first pass by a reshape that cannot stride it, and then as the
// next product's operand that cuBLASLt cannot read; the second cut waits for the next pass (an
// internal error before; the fuzzer's seed 17738 program 705, shrunk).
TEST_F(MatmulPartition, AnOperandAnotherAccessCutInThePassIsWrittenInTheNext) {
  const Tensor x = lazy::from_data(std::vector<double>{0.5, 1, 1.5, 2, 2.5, 3}, {2, 3, 1});
  const Tensor w = lazy::from_data(std::vector<double>{1.5}, {1, 1});
  const Tensor b = lazy::from_data(std::vector<double>{0.25}, {1});
  const Tensor weights = lazy::from_data(std::vector<double>{0.5, -1}, {2, 1});
  const Tensor scale = lazy::from_data(std::vector<double>{1, 2, 3, 4, 5, 6}, {2, 3, 1});
  const std::vector<Tensor> g = lazy::grad([&](std::span<const Tensor> v) {
    const Tensor y = lazy::linear(v[0], v[1], v[2]);
    const Tensor picked = lazy::diagonal(lazy::flip(y, {-1, -3}), 2, 2, 1);  // y[1 - i, 2, 0]
    return lazy::sum(picked * weights) + lazy::sum(v[0] * scale);
  })({x, w, b});
  EXPECT_EQ(g[0].to_vector<double>(), (std::vector<double>{1, 2, 3 - 1.5, 4, 5, 6 + 0.75}));
  EXPECT_EQ(g[1].to_vector<double>(), (std::vector<double>{0.5 * 3 - 1.5}));
  EXPECT_EQ(g[2].to_vector<double>(), (std::vector<double>{0.5 - 1}));
}

}  // namespace

// The recompute pass (fuse/recomputed_operands.h): a product's operand read again only after other
// products is computed again for its late readers when what it is computed from stays in memory
// anyway, and held otherwise. Runs without a GPU.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <lazy/lazy.h>

#include "fuse/partition.h"
#include "fuse/recomputed_operands.h"
#include "ir/trace.h"

namespace {

using lazy::DType;
using lazy::Shape;
using lazy::Tensor;
using lazy::fuse::Partition;
using lazy::ir::Node;
using lazy::ir::Op;
using lazy::ir::Trace;
using ::testing::HasSubstr;

class RecomputedOperands : public ::testing::Test {
 protected:
  void SetUp() override { lazy::sync(); }
  void TearDown() override { Trace::current().clear(); }

  static Partition partitioned() {
    Trace& trace = Trace::current();
    const std::vector<bool> live = trace.live();
    return lazy::fuse::partition(trace.pending(), live, trace.externals(), {true});
  }
  static Tensor computed(const Shape& shape, DType dtype = DType::bf16) {
    Tensor t = lazy::randn(shape, 11).to(dtype);
    lazy::eval({t});
    return t;
  }
  // The gradients of an MLP of `layers` linear layers with gelu_tanh between them, in bf16 from
  // f32 weights, as a training step records them.
  static std::vector<Tensor> mlp_gradients(int layers) {
    const Tensor x = computed({64, 32});
    std::vector<Tensor> weights;
    for (int l = 0; l < layers; ++l) weights.push_back(computed({32, 32}, DType::f32));
    return lazy::grad([x, layers](std::span<const Tensor> w) {
      Tensor h = x;
      for (int l = 0; l < layers; ++l) {
        h = lazy::linear(h, w[std::size_t(l)].to(DType::bf16));
        if (l + 1 < layers) h = lazy::gelu_tanh(h);
      }
      return lazy::sum(lazy::square(h.to(DType::f32)));
    })(weights);
  }
  // e @ b, then two more products, then a product reading e again (transposed); only the last
  // product's handle is kept, as in a function's body.
  static Tensor late_product(Tensor e, const Tensor& b) {
    Tensor z = lazy::matmul(lazy::matmul(lazy::matmul(e, b), b), b);
    return lazy::matmul(z, e.transpose(0, 1));
  }
  static int recomputed(const Partition& p) {
    int n = 0;
    for (const lazy::fuse::Rewrite& r : p.graph.rewrites)
      n += r.what.find("computed again") != std::string::npos;
    return n;
  }
  // The products that read node `i` of the partition's graph, directly or through views.
  static int products_reading(const Partition& p, const Node* node) {
    int n = 0;
    for (const lazy::ir::NodePtr& reader : p.graph.nodes) {
      if (std::find(reader->inputs.begin(), reader->inputs.end(), node) == reader->inputs.end())
        continue;
      if (reader->op == Op::MatMul) ++n;
      if (lazy::ir::op_kind(reader->op) == lazy::ir::OpKind::view)
        n += products_reading(p, reader.get());
    }
    return n;
  }
};

// Layers 1 and 2's gelu are read again by the backward after at least two other products: each
// gets a copy there, reading the product gelu's gradient reads anyway, and the forward's is read
// by one product. Layer 3's gelu is read again after one product, and is kept. The weights' bf16
// casts are kept: a copy would read twice the bytes it frees.
TEST_F(RecomputedOperands, AnMlpsEarlyActivationsAreComputedAgainInTheBackward) {
  const std::vector<Tensor> gradients = mlp_gradients(4);
  const Partition p = partitioned();
  EXPECT_EQ(recomputed(p), 2) << p.describe();
  int gelus = 0, gelus_kept = 0, casts = 0;
  for (const lazy::ir::NodePtr& node : p.graph.nodes) {
    if (node->op == Op::GeluTanh) {
      ++gelus;
      gelus_kept += products_reading(p, node.get()) == 2;
      EXPECT_EQ(node->inputs[0]->op, Op::MatMul);
    }
    casts += node->op == Op::Cast && node->dtype == DType::bf16 && node->shape == Shape{32, 32};
  }
  EXPECT_EQ(gelus, 3 + 2);
  EXPECT_EQ(gelus_kept, 1) << p.describe();
  EXPECT_EQ(casts, 4);
  EXPECT_THAT(p.graph.describe_rewrites(), HasSubstr("its copy would read 4 bytes per 2 written"));
}

// LAZY_DEBUG=2 keeps what each rewrite said: the epilogue fold's notes, then this pass's.
TEST_F(RecomputedOperands, TheNotesOfBothProductRewritesAreKept) {
  const std::vector<Tensor> gradients = mlp_gradients(4);
  const std::string said = partitioned().graph.describe_rewrites();
  EXPECT_THAT(said, HasSubstr("epilogue: %"));
  EXPECT_THAT(said, HasSubstr("recompute: %"));
}

// The copies shift the nodes after them: each epilogue fold still names the product that computes
// its node now, and each copy the node that computes the value again.
TEST_F(RecomputedOperands, EveryRewriteNamesTheNodesThatComputeItNow) {
  const std::vector<Tensor> gradients = mlp_gradients(4);
  const Partition p = partitioned();
  int folds = 0;
  for (const lazy::fuse::Rewrite& r : p.graph.rewrites) {
    const Op now = p.graph.nodes[r.last]->op;
    if (r.what.find("in its epilogue") != std::string::npos) {
      ++folds;
      EXPECT_EQ(now, Op::MatMul) << r.what << "\n" << p.describe();
    } else if (r.what.find("computed again") != std::string::npos) {
      EXPECT_EQ(now, Op::GeluTanh) << r.what;
    }
  }
  EXPECT_GT(folds, 0);
}

// In a two-layer MLP each operand's second read is after one other product: nothing is copied.
TEST_F(RecomputedOperands, AShortGapKeepsTheValue) {
  const std::vector<Tensor> gradients = mlp_gradients(2);
  const Partition p = partitioned();
  EXPECT_EQ(recomputed(p), 0) << p.describe();
}

// exp(s) read again late, while s itself is read last by exp: recomputing would hold s across
// the gap instead, so exp(s) is held, and LAZY_DEBUG=2 says why.
TEST_F(RecomputedOperands, AValueWhoseSourceWouldBeHeldLongerIsKept) {
  const Tensor a = computed({16, 16}), b = computed({16, 16});
  const Tensor late = late_product(lazy::exp(lazy::matmul(a, b)), b);
  const Partition p = partitioned();
  EXPECT_EQ(recomputed(p), 0);
  EXPECT_THAT(p.graph.describe_rewrites(), HasSubstr("so it would be held longer instead"));
}

// The same gap where the source is an input: the late product reads a copy of exp(a).
TEST_F(RecomputedOperands, AValueOfAnInputIsComputedAgainForItsLateReader) {
  const Tensor a = computed({16, 16}), b = computed({16, 16});
  const Tensor late = late_product(lazy::exp(a), b);
  const Partition p = partitioned();
  ASSERT_EQ(recomputed(p), 1) << p.describe();
  int exps = 0;
  for (const lazy::ir::NodePtr& node : p.graph.nodes) {
    if (node->op != Op::Exp) continue;
    ++exps;
    EXPECT_EQ(products_reading(p, node.get()), 1);
  }
  EXPECT_EQ(exps, 2);
}

// A chain longer than kMaxOpsRecomputedPerOperand is held: its copy would cost a long kernel.
TEST_F(RecomputedOperands, ALongChainIsHeld) {
  const Tensor a = computed({16, 16}), b = computed({16, 16});
  Tensor e = a;
  for (int k = 0; k <= lazy::fuse::kMaxOpsRecomputedPerOperand; ++k) e = lazy::exp(e) * 0.5;
  const Tensor late = late_product(std::move(e), b);
  const Partition p = partitioned();
  EXPECT_EQ(recomputed(p), 0);
  EXPECT_THAT(p.graph.describe_rewrites(), HasSubstr("more than one pass over it"));
}

// A softmax-like exp(a) / (a + 3): two costly ops per element, so the value is held.
TEST_F(RecomputedOperands, AChainOfTwoCostlyOpsIsHeld) {
  const Tensor a = computed({16, 16}), b = computed({16, 16});
  const Tensor late = late_product(lazy::exp(a) / (a + 3.0), b);
  const Partition p = partitioned();
  EXPECT_EQ(recomputed(p), 0);
  EXPECT_THAT(p.graph.describe_rewrites(), HasSubstr("(2 costly)"));
}

// A value a handle holds is in memory anyway: it is not copied.
TEST_F(RecomputedOperands, AHeldValueIsNotCopied) {
  const Tensor a = computed({16, 16}), b = computed({16, 16});
  const Tensor e = lazy::exp(a);
  const Tensor late = late_product(e, b);
  EXPECT_EQ(recomputed(partitioned()), 0);
}

}  // namespace

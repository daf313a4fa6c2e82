// Which kernel outputs a plan writes into the memory of an input they read last (in-place buffer
// reuse, runtime/buffer_reuse.h): only an element-wise kernel's output, only over an input that
// dies there, has its dtype and size, and is read only at the element being written. Plans are
// built as a sync builds them, without a GPU.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <optional>
#include <set>

#include <lazy/lazy.h>

#include "fuse/partition.h"
#include "ir/trace.h"
#include "runtime/buffer_reuse.h"
#include "runtime/plan_builder.h"

namespace {

using lazy::Tensor;
using lazy::ir::Trace;
using lazy::runtime::Plan;
using lazy::runtime::PlannedKernel;
using lazy::runtime::PlannedOutput;

class BufferReuse : public ::testing::Test {
 protected:
  void SetUp() override { lazy::sync(); }
  void TearDown() override { Trace::current().clear(); }

  // A computed input: an external of the graph recorded next, not a root of it.
  static Tensor input(const lazy::Shape& shape, std::uint64_t seed) {
    Tensor t = lazy::randn(shape, seed);
    lazy::eval({t});
    return t;
  }

  static std::uint32_t index_of(const Tensor& t) { return t.node()->trace_index; }

  static std::vector<bool> held() { return Trace::current().live(); }

  // What a sync of everything recorded would run.
  static std::shared_ptr<const Plan> plan_pending() {
    return lazy::runtime::build_plan(Trace::current(), held(), true, false, nullptr, 90);
  }
  static lazy::fuse::Partition partition_pending() {
    Trace& trace = Trace::current();
    return lazy::fuse::partition(trace.pending(), held(), trace.externals(), {true});
  }

  // The kernel writing `t`, and its output that does.
  static std::pair<const PlannedKernel*, const PlannedOutput*> writer_of(const Plan& plan,
                                                                         const Tensor& t) {
    for (const PlannedKernel& kernel : plan.kernels)
      for (const PlannedOutput& out : kernel.outputs)
        if (!out.external_copy && out.node == index_of(t)) return {&kernel, &out};
    ADD_FAILURE() << "no kernel writes node " << index_of(t);
    return {nullptr, nullptr};
  }
  static std::optional<std::uint32_t> reused_by(const Plan& plan, const Tensor& t) {
    const PlannedOutput* out = writer_of(plan, t).second;
    return out != nullptr ? out->reuses : std::nullopt;
  }
  static int reuses_in(const Plan& plan) {
    int count = 0;
    for (const PlannedKernel& kernel : plan.kernels)
      for (const PlannedOutput& out : kernel.outputs) count += out.reuses.has_value();
    return count;
  }
};

TEST_F(BufferReuse, SwigluResultTakesTheMemoryOfAProductItReadsLast) {
  Tensor x = input({64, 32}, 1), wg = input({48, 32}, 2), wu = input({48, 32}, 3);
  std::set<std::uint32_t> products;
  Tensor h;
  {
    Tensor g = lazy::linear(x, wg), u = lazy::linear(x, wu);
    products = {index_of(g), index_of(u)};
    h = lazy::silu(g) * u;
  }
  auto plan = plan_pending();
  auto [kernel, out] = writer_of(*plan, h);
  ASSERT_NE(out, nullptr);
  ASSERT_TRUE(out->reuses.has_value());
  EXPECT_TRUE(products.contains(*out->reuses)) << "reuses node " << *out->reuses;
  // It dies in that kernel: released after it, and read by no later kernel.
  EXPECT_NE(std::find(kernel->release_after.begin(), kernel->release_after.end(), *out->reuses),
            kernel->release_after.end());
  EXPECT_EQ(reuses_in(*plan), 1);
}

TEST_F(BufferReuse, SoftmaxTakesTheMemoryOfTheScoresItReadsLast) {
  Tensor q = input({64, 32}, 1), k = input({128, 32}, 2);
  std::uint32_t scores_index = 0;
  Tensor p;
  {
    Tensor scores = lazy::matmul(q, k.transpose(0, 1));
    scores_index = index_of(scores);
    p = lazy::softmax(scores, -1);
  }
  {
    // Scoped: a partition holds the nodes, and a node held outside the trace is an output.
    const lazy::fuse::Partition partition = partition_pending();
    const auto row_region = std::find_if(partition.regions.begin(), partition.regions.end(),
                                         [](const auto& region) { return region.row.has_value(); });
    ASSERT_NE(row_region, partition.regions.end()) << "softmax is not a row kernel here";
  }
  EXPECT_EQ(reused_by(*plan_pending(), p), scores_index);
}

TEST_F(BufferReuse, AHeldInputKeepsItsMemory) {
  Tensor x = input({64, 32}, 1), wg = input({48, 32}, 2), wu = input({48, 32}, 3);
  Tensor g = lazy::linear(x, wg);  // held
  std::uint32_t u_index = 0;
  Tensor h;
  {
    Tensor u = lazy::linear(x, wu);
    u_index = index_of(u);
    h = lazy::silu(g) * u;
  }
  EXPECT_EQ(reused_by(*plan_pending(), h), u_index);
}

TEST_F(BufferReuse, TheBaseOfAHeldViewKeepsItsMemory) {
  Tensor x = input({64, 32}, 1), wg = input({48, 32}, 2), wu = input({48, 32}, 3);
  Tensor u = lazy::linear(x, wu);  // held
  Tensor h, g_rows;
  {
    Tensor g = lazy::linear(x, wg);
    g_rows = g.reshape({8, 8, 48});  // a held view of g's memory
    h = lazy::silu(g) * u;
  }
  EXPECT_EQ(reused_by(*plan_pending(), h), std::nullopt);
}

TEST_F(BufferReuse, AnInputReadTransposedKeepsItsMemory) {
  Tensor x = input({64, 32}, 1), wg = input({64, 32}, 2), wu = input({64, 32}, 3);
  Tensor u = lazy::linear(x, wu);  // held
  Tensor h;
  {
    Tensor g = lazy::linear(x, wg);
    h = lazy::silu(g.transpose(0, 1)) * u;
  }
  EXPECT_EQ(reused_by(*plan_pending(), h), std::nullopt);
}

TEST_F(BufferReuse, AnInputAlsoReadTransposedKeepsItsMemory) {
  // Element (i, j) of h reads g at (j, i), which the thread writing h at (j, i) may overwrite.
  Tensor x = input({64, 32}, 1), wg = input({64, 32}, 2);
  Tensor h;
  {
    Tensor g = lazy::linear(x, wg);
    h = lazy::silu(g) * g.transpose(0, 1);
  }
  EXPECT_EQ(reused_by(*plan_pending(), h), std::nullopt);
}

TEST_F(BufferReuse, AnInputALaterKernelReadsKeepsItsMemory) {
  Tensor x = input({64, 32}, 1), wg = input({64, 32}, 2), wu = input({64, 32}, 3);
  Tensor u = lazy::linear(x, wu);  // held
  Tensor h, later;
  {
    Tensor g = lazy::linear(x, wg);
    h = lazy::silu(g) * u;
    later = lazy::matmul(h, g);  // after h's kernel: it needs h
  }
  EXPECT_EQ(reused_by(*plan_pending(), h), std::nullopt);
}

TEST_F(BufferReuse, AnOutputOfAnotherDtypeTakesNoMemory) {
  Tensor x = input({64, 32}, 1), wg = input({48, 32}, 2), wu = input({48, 32}, 3);
  Tensor h;
  {
    Tensor g = lazy::linear(x, wg), u = lazy::linear(x, wu);
    h = (lazy::silu(g) * u).to(lazy::DType::bf16);
  }
  auto plan = plan_pending();
  EXPECT_EQ(reused_by(*plan, h), std::nullopt);
  EXPECT_EQ(reuses_in(*plan), 0);
}

TEST_F(BufferReuse, AnOutputSmallerThanItsInputTakesNoMemory) {
  // The first half of g's rows is read in place (offset 0, g's own strides), but g is larger.
  Tensor x = input({64, 32}, 1), wg = input({48, 32}, 2), wu = input({48, 32}, 3);
  Tensor u = lazy::linear(x.slice(0, 0, 32), wu);  // held
  Tensor h;
  {
    Tensor g = lazy::linear(x, wg);
    h = lazy::silu(g.slice(0, 0, 32)) * u;
  }
  EXPECT_EQ(reused_by(*plan_pending(), h), std::nullopt);
}

TEST_F(BufferReuse, EachInputIsTakenByOneOutput) {
  Tensor x = input({64, 32}, 1), wg = input({48, 32}, 2), wu = input({48, 32}, 3);
  Tensor h, sum;
  {
    Tensor g = lazy::linear(x, wg), u = lazy::linear(x, wu);
    h = lazy::silu(g) * u;
    sum = g + u;
  }
  auto plan = plan_pending();
  const std::optional<std::uint32_t> first = reused_by(*plan, h), second = reused_by(*plan, sum);
  ASSERT_TRUE(first.has_value() && second.has_value());
  EXPECT_NE(*first, *second);
}

TEST_F(BufferReuse, AnInputTwoOutputsReadLastIsTakenOnce) {
  Tensor x = input({64, 32}, 1), wg = input({48, 32}, 2);
  Tensor doubled, tripled;
  {
    Tensor g = lazy::linear(x, wg);
    doubled = g * 2.0f;
    tripled = g * 3.0f;
  }
  auto plan = plan_pending();
  EXPECT_EQ(reuses_in(*plan), 1);
  EXPECT_NE(reused_by(*plan, doubled).has_value(), reused_by(*plan, tripled).has_value());
}

TEST_F(BufferReuse, AReductionKernelTakesNoMemory) {
  // A sum over a leading axis of size 1 keeps the size of its input: only the kernel kind (a
  // reduction kernel, whose threads read other results' elements) stops the reuse.
  Tensor x = input({1, 32}, 1), w = input({1, 32}, 2);
  Tensor s;
  {
    Tensor g = lazy::linear(x, w);  // [1, 1]
    s = lazy::sum(g, 0, true);
  }
  const lazy::fuse::Partition partition = partition_pending();
  const std::int32_t region = partition.region_of[index_of(s)];
  ASSERT_GE(region, 0);
  ASSERT_TRUE(partition.regions[region].reduction.has_value()) << partition.describe();
  EXPECT_EQ(reused_by(*plan_pending(), s), std::nullopt);
}

TEST_F(BufferReuse, AProductTakesNoMemory) {
  // cuBLASLt reads its operands in an order of its own: it never writes over one.
  Tensor x = input({64, 64}, 1), w = input({64, 64}, 2);
  Tensor y;
  {
    Tensor a = x * 2.0f;
    y = lazy::matmul(a, w);
  }
  EXPECT_EQ(reused_by(*plan_pending(), y), std::nullopt);
}

TEST_F(BufferReuse, DebugTextNamesTheOutputAndTheMemoryItTakes) {
  Tensor x = input({64, 32}, 1), wg = input({48, 32}, 2), wu = input({48, 32}, 3);
  Tensor u = lazy::linear(x, wu);  // held
  Tensor h;
  std::uint32_t g_index = 0;
  {
    Tensor g = lazy::linear(x, wg);
    g_index = index_of(g);
    h = lazy::silu(g) * u;
  }
  const lazy::fuse::Partition partition = partition_pending();
  const lazy::runtime::PlanIndices index(partition.graph, Trace::current().size());
  const auto reuses = lazy::runtime::plan_buffer_reuse(
      partition, index, lazy::runtime::last_uses(partition, index, {}), {});
  const std::string text = lazy::runtime::describe_buffer_reuse(reuses, partition);
  // No rewrite here: graph indices are trace indices.
  EXPECT_THAT(text, testing::HasSubstr("writes %" + std::to_string(index_of(h)) + " Mul from "));
  EXPECT_THAT(
      text, testing::HasSubstr("into the memory of %" + std::to_string(g_index) + " MatMul from "));
}

}  // namespace

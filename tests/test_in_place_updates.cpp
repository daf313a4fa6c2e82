// Results written over the memory of a computed input that nothing but the sync holds any more
// (runtime/in_place_update.h): which outputs a plan names as candidates (an element-wise
// kernel's output over an input it reads last, in place, of its dtype and size, that no held
// view is based on), and when a replay may take the input's memory. Without a GPU.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <optional>

#include <lazy/lazy.h>

#include "fuse/partition.h"
#include "ir/trace.h"
#include "runtime/buffer_reuse.h"
#include "runtime/in_place_update.h"
#include "runtime/plan.h"
#include "runtime/plan_builder.h"

namespace {

using lazy::DType;
using lazy::Tensor;
using lazy::ir::Trace;
using lazy::runtime::Plan;
using lazy::runtime::PlannedOutput;

class InPlaceUpdates : public ::testing::Test {
 protected:
  void SetUp() override { lazy::sync(); }
  void TearDown() override { Trace::current().clear(); }

  static Tensor input(const lazy::Shape& shape, std::uint64_t seed, DType dtype = DType::f32) {
    Tensor t = lazy::randn(shape, seed, dtype);
    lazy::eval({t});
    return t;
  }

  static std::shared_ptr<const Plan> plan_pending() {
    Trace& trace = Trace::current();
    return lazy::runtime::build_plan(trace, trace.live(), true, false, nullptr, 90);
  }

  // The external slot of computed `t` in the recorded trace.
  static std::uint32_t slot_of(const Tensor& t) {
    const auto externals = Trace::current().externals();
    for (std::uint32_t slot = 0; slot < externals.size(); ++slot)
      if (externals[slot].get() == t.node()) return slot;
    ADD_FAILURE() << "not an input of the trace";
    return ~0u;
  }

  static const PlannedOutput* writer_of(const Plan& plan, const Tensor& t) {
    for (const auto& kernel : plan.kernels)
      for (const PlannedOutput& out : kernel.outputs)
        if (!out.external_copy && out.node == t.node()->trace_index) return &out;
    ADD_FAILURE() << "no kernel writes node " << t.node()->trace_index;
    return nullptr;
  }

  // The inputs the output writing `t` may be written over, in the order the replay tries them.
  static std::vector<std::uint32_t> over_externals(const Tensor& t) {
    auto plan = plan_pending();
    const PlannedOutput* out = writer_of(*plan, t);
    if (out == nullptr) return {};
    return {out->over_externals.begin(), out->over_externals.end()};
  }
};

TEST_F(InPlaceUpdates, AnUpdateListsEveryInputItReadsLastInPlace) {
  const Tensor p = input({64, 48}, 1), g = input({64, 48}, 2);
  const Tensor scale = input({48}, 3);  // read broadcast: not in place
  // Held or not, both are listed: the replay takes the first one nothing else holds.
  const Tensor next = p * 0.5f - scale * g;
  EXPECT_THAT(over_externals(next), testing::UnorderedElementsAre(slot_of(p), slot_of(g)));
  EXPECT_TRUE(plan_pending()->has_in_place_candidates);
}

TEST_F(InPlaceUpdates, EveryOutputOfAFusedStepListsTheInputsItMayTake) {
  const Tensor m = input({32, 32}, 1), v = input({32, 32}, 2), g = input({32, 32}, 3);
  const Tensor m_next = 0.9f * m + 0.1f * g;
  const Tensor v_next = 0.99f * v + 0.01f * lazy::square(g);
  auto plan = plan_pending();
  const PlannedOutput *m_out = writer_of(*plan, m_next), *v_out = writer_of(*plan, v_next);
  ASSERT_NE(m_out, nullptr);
  ASSERT_NE(v_out, nullptr);
  EXPECT_THAT(m_out->over_externals, testing::Contains(slot_of(m)));
  EXPECT_THAT(v_out->over_externals, testing::Contains(slot_of(v)));
}

TEST_F(InPlaceUpdates, AnInputALaterKernelReadsIsNoCandidate) {
  const Tensor p = input({32, 32}, 1);
  const Tensor q = lazy::exp(p);
  const Tensor r = lazy::matmul(q, p);  // reads p after the kernel writing q
  EXPECT_THAT(over_externals(q), testing::IsEmpty());
}

TEST_F(InPlaceUpdates, AnInputReadTransposedIsNoCandidate) {
  const Tensor p = input({32, 32}, 1);
  const Tensor q = p.transpose(0, 1) + 1.0f;
  EXPECT_THAT(over_externals(q), testing::IsEmpty());
}

TEST_F(InPlaceUpdates, AnInputOfAnotherDtypeOrSizeIsNoCandidate) {
  const Tensor p = input({32, 32}, 1), h = input({32, 32}, 2, DType::f16);
  const Tensor row = input({32}, 3);
  const Tensor q = p.to(DType::f16) * h;  // f16: over h, never over f32 p
  EXPECT_THAT(over_externals(q), testing::ElementsAre(slot_of(h)));
  const Tensor wide = row + p;  // [32, 32] over a [32] input
  EXPECT_THAT(over_externals(wide), testing::Not(testing::Contains(slot_of(row))));
}

TEST_F(InPlaceUpdates, TheBaseOfAHeldViewIsNoCandidate) {
  const Tensor p = input({32, 32}, 1);
  const Tensor view = p.reshape({1024});  // a held view of p's memory, handed out by the sync
  const Tensor q = p * 2.0f;
  EXPECT_THAT(over_externals(q), testing::IsEmpty());
}

TEST_F(InPlaceUpdates, DebugTextNamesTheInputWhoseMemoryMayBeTaken) {
  Tensor p = input({16, 16}, 1);
  p = p * 0.5f;
  const lazy::fuse::Partition partition = lazy::fuse::partition(
      Trace::current().pending(), Trace::current().live(), Trace::current().externals(), {true});
  const lazy::runtime::PlanIndices index(partition.graph, Trace::current().size());
  const auto reuses = lazy::runtime::plan_buffer_reuse(
      partition, index, lazy::runtime::last_uses(partition, index, {}), {});
  ASSERT_EQ(reuses.size(), 1u);
  EXPECT_TRUE(reuses[0].external);
  EXPECT_THAT(
      lazy::runtime::describe_buffer_reuse(reuses, partition),
      testing::HasSubstr("over the memory of the first of inputs 0 that nothing else holds"));
}

// The gradient of linear's weight is laid out as the weight (autodiff/product_rules.cpp), so the
// optimizer reads it in rows, in place: its update can take the product's memory.
TEST_F(InPlaceUpdates, AWeightGradientIsReadInPlaceByItsUpdate) {
  const Tensor x = input({8, 6}, 1), w = input({4, 6}, 2);
  const lazy::ValueAndGrad loss(
      [x](std::span<const Tensor> p) { return lazy::sum(lazy::square(lazy::linear(x, p[0]))); });
  Tensor updated;
  {
    const lazy::ValueAndGradients r = loss(std::vector<Tensor>{w});
    updated = w - 0.1f * r.gradients[0];
  }
  auto plan = plan_pending();
  const PlannedOutput* out = writer_of(*plan, updated);
  ASSERT_NE(out, nullptr);
  EXPECT_TRUE(out->reuses.has_value()) << "the update reads the weight gradient out of place";
}

// A replay takes an input's memory only when the trace's list of inputs is its one holder, and
// gives each input to one output.
class TakeInputMemory : public ::testing::Test {
 protected:
  static lazy::ir::NodePtr computed(DType dtype, std::int64_t numel, bool on_device = true) {
    lazy::ir::NodePtr node = lazy::ir::make_node(lazy::ir::Op::Data, dtype, lazy::Shape{numel}, {});
    auto storage = on_device ? std::make_shared<lazy::ir::Storage>(dtype, numel, nullptr, 4096)
                             : std::make_shared<lazy::ir::Storage>(dtype, numel);
    node->data = std::make_unique<lazy::ir::TensorData>(
        lazy::ir::TensorData{std::move(storage), lazy::ir::Layout::contiguous({numel})});
    return node;
  }
  static PlannedOutput output(DType dtype, std::int64_t numel,
                              std::initializer_list<std::uint32_t> candidates = {0}) {
    PlannedOutput out{};
    out.dtype = dtype;
    out.numel = numel;
    out.over_externals.assign(candidates.begin(), candidates.end());
    return out;
  }
  // The stream checks (Device::writable_here) need a GPU: here every device memory passes.
  static bool writable(const lazy::ir::Storage&) { return true; }
  static bool takes(const lazy::ir::NodePtr& input, const PlannedOutput& out) {
    absl::InlinedVector<std::uint32_t, 4> taken;
    return lazy::runtime::take_input_memory(std::span(&input, 1), out, writable, taken) != nullptr;
  }
};

TEST_F(TakeInputMemory, TakesDeviceMemoryNothingElseHolds) {
  EXPECT_TRUE(takes(computed(DType::f32, 100), output(DType::f32, 100)));
}

TEST_F(TakeInputMemory, KeepsMemoryAnotherHandleOrViewHolds) {
  const lazy::ir::NodePtr input = computed(DType::f32, 100);
  {
    const lazy::ir::NodePtr handle = input;
    EXPECT_FALSE(takes(input, output(DType::f32, 100)));
  }
  const auto view = input->data->storage;
  EXPECT_FALSE(takes(input, output(DType::f32, 100)));
}

TEST_F(TakeInputMemory, KeepsMemoryAnotherStreamMayStillUse) {
  absl::InlinedVector<std::uint32_t, 4> taken;
  const lazy::ir::NodePtr input = computed(DType::f32, 100);
  EXPECT_EQ(lazy::runtime::take_input_memory(
                std::span(&input, 1), output(DType::f32, 100),
                [](const lazy::ir::Storage&) { return false; }, taken),
            nullptr);
}

TEST_F(TakeInputMemory, KeepsMemoryThatDoesNotFit) {
  EXPECT_FALSE(takes(computed(DType::f32, 100), output(DType::f16, 100)));
  EXPECT_FALSE(takes(computed(DType::f32, 100), output(DType::f32, 50)));
  EXPECT_FALSE(takes(computed(DType::f32, 100, false), output(DType::f32, 100)));
  const lazy::ir::NodePtr part = computed(DType::f32, 100);
  part->data->layout = lazy::ir::Layout::contiguous({50});  // a view of half of it
  EXPECT_FALSE(takes(part, output(DType::f32, 50)));
}

TEST_F(TakeInputMemory, DropsTheHostCopyTheKernelMakesStale) {
  const lazy::ir::NodePtr mirrored = computed(DType::f32, 4);
  mirrored->data->storage->on_host = true;
  mirrored->data->storage->host.resize(16);
  EXPECT_TRUE(takes(mirrored, output(DType::f32, 4)));
  EXPECT_FALSE(mirrored->data->storage->on_host);
  EXPECT_TRUE(mirrored->data->storage->host.empty());
}

TEST_F(TakeInputMemory, GivesEachInputToOneOutputAndSkipsHeldOnes) {
  const std::vector<lazy::ir::NodePtr> inputs = {computed(DType::f32, 8), computed(DType::f32, 8),
                                                 computed(DType::f32, 8)};
  const lazy::ir::NodePtr handle = inputs[0];  // the user still holds input 0
  absl::InlinedVector<std::uint32_t, 4> taken;
  const auto first =
      lazy::runtime::take_input_memory(inputs, output(DType::f32, 8, {0, 1, 2}), writable, taken);
  const auto second =
      lazy::runtime::take_input_memory(inputs, output(DType::f32, 8, {1, 2}), writable, taken);
  const auto third =
      lazy::runtime::take_input_memory(inputs, output(DType::f32, 8, {1, 2}), writable, taken);
  EXPECT_EQ(first.get(), inputs[1]->data->storage.get());
  EXPECT_EQ(second.get(), inputs[2]->data->storage.get());
  EXPECT_EQ(third, nullptr);
}

}  // namespace

// The per-thread trace: recording computes nothing, handles decide what is written, syncs
// release the graph, and a trace that grows past its bound syncs by itself.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <thread>

#include <lazy/lazy.h>

#include "ir/trace.h"

namespace {

using lazy::ir::Trace;

TEST(Trace, OpsAreRecordedNotRun) {
  lazy::sync();
  lazy::Tensor x = lazy::randn({4, 4}, 3);
  lazy::Tensor y = lazy::exp(x) + 1.0f;
  EXPECT_FALSE(y.is_evaluated());
  EXPECT_GT(Trace::current().size(), 2u);
  lazy::sync();
  EXPECT_TRUE(y.is_evaluated());
  EXPECT_TRUE(x.is_evaluated());
  EXPECT_EQ(Trace::current().size(), 0u);
}

// Handles, and nothing the trace keeps itself, decide which pending nodes are held.
TEST(Trace, HandlesDecideWhichNodesAreHeld) {
  lazy::sync();
  lazy::Tensor x = lazy::randn({4}, 3);
  lazy::Tensor y;
  {
    lazy::Tensor h = x + 1.0f;
    y = h * h;
    // Pending: randn's seed, randn (x), the number 1, h, y.
    EXPECT_EQ(Trace::current().live(), (std::vector<bool>{false, true, false, true, true}));
    lazy::Tensor copy = h;
    lazy::Tensor moved = std::move(copy);
    EXPECT_EQ(Trace::current().live(), (std::vector<bool>{false, true, false, true, true}));
  }
  // h is gone: read twice by y, but an intermediate.
  EXPECT_EQ(Trace::current().live(), (std::vector<bool>{false, true, false, false, true}));
  x = lazy::Tensor();
  EXPECT_EQ(Trace::current().live(), (std::vector<bool>{false, false, false, false, true}));
  lazy::sync();
}

TEST(Trace, WaitComputesWhatTheThreadRecorded) {
  lazy::sync();
  lazy::Tensor y = lazy::exp(lazy::randn({4}, 3)) + 1.0f;
  lazy::wait();
  EXPECT_TRUE(y.is_evaluated());
  EXPECT_EQ(Trace::current().size(), 0u);
  lazy::wait();  // nothing pending: returns
}

TEST(Trace, IntermediateNobodyHoldsIsNotComputed) {
  lazy::sync();
  lazy::Tensor x = lazy::randn({4}, 3);
  std::uint32_t intermediate = 0;
  lazy::Tensor y;
  {
    lazy::Tensor h = x + 1.0f;
    intermediate = h.node()->trace_index;
    y = h * 2.0f;
  }
  // Its consumer reads it but does not hold it: only the handles say what a sync writes.
  const std::vector<bool> live = Trace::current().live();
  EXPECT_FALSE(live[intermediate]);
  EXPECT_TRUE(live[y.node()->trace_index]);
  lazy::sync();
  EXPECT_TRUE(y.is_evaluated());
  EXPECT_EQ(Trace::current().size(), 0u);
}

TEST(Trace, OwnersCountHandlesButNotConsumers) {
  lazy::sync();
  lazy::Tensor x = lazy::randn({4}, 3);
  EXPECT_EQ(x.node()->owners.load(), 2u);  // the trace and the handle
  lazy::Tensor y = x + 1.0f;
  lazy::Tensor z = lazy::exp(x);
  EXPECT_EQ(x.node()->owners.load(), 2u);
  {
    lazy::Tensor copy = x;
    EXPECT_EQ(x.node()->owners.load(), 3u);
  }
  EXPECT_EQ(x.node()->owners.load(), 2u);
  lazy::sync();
  EXPECT_EQ(x.node()->owners.load(), 1u);  // the trace let it go; its data stays
  EXPECT_TRUE(x.is_evaluated());
}

TEST(Trace, AHandleTheTraceForgetsKeepsNoInputs) {
  lazy::sync();
  lazy::Tensor y = lazy::exp(lazy::randn({4}, 3) + 1.0f);
  Trace::current().clear();  // its inputs are freed with the trace
  EXPECT_FALSE(y.node()->is_pending());
  EXPECT_TRUE(y.node()->inputs.empty());
}

TEST(Trace, HeldIntermediateIsComputedToo) {
  lazy::sync();
  lazy::Tensor x = lazy::from_data(std::vector<float>{1, 2}, {2});
  lazy::Tensor h = x + 1.0f;
  lazy::Tensor y = h * 2.0f;
  EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{4, 6}));
  EXPECT_TRUE(h.is_evaluated());
  EXPECT_EQ(h.to_vector<float>(), (std::vector<float>{2, 3}));
}

TEST(Trace, ComputedTensorReleasesItsInputs) {
  lazy::sync();
  lazy::Tensor y = lazy::exp(lazy::randn({4}, 3));
  lazy::sync();
  EXPECT_TRUE(y.node()->inputs.empty());
}

TEST(Trace, GrowingPastTheBoundSyncsByItself) {
  lazy::sync();
  lazy::Tensor x = lazy::zeros({2});
  const std::int64_t bound = lazy::ir::max_pending_ops();
  for (std::int64_t i = 0; i < bound + 10; ++i) x = x + 1.0f;
  EXPECT_LT(std::int64_t(Trace::current().size()), bound);
  EXPECT_EQ(x.to_vector<float>(), (std::vector<float>(2, float(bound + 10))));
}

TEST(Trace, EachThreadHasItsOwnTrace) {
  lazy::sync();
  lazy::Tensor here = lazy::randn({4}, 1) + 1.0f;
  std::size_t pending_here = Trace::current().size();
  std::vector<float> there;
  std::thread worker([&] {
    EXPECT_EQ(Trace::current().size(), 0u);
    there = (lazy::ones({3}) * 2.0f).to_vector<float>();
  });
  worker.join();
  EXPECT_EQ(there, (std::vector<float>(3, 2.0f)));
  EXPECT_EQ(Trace::current().size(), pending_here);
}

TEST(Trace, PendingTensorFromAnotherThreadIsRefused) {
  lazy::sync();
  lazy::Tensor pending = lazy::ones({3}) * 2.0f;
  std::thread worker([&] { EXPECT_THROW(pending + 1.0f, lazy::RuntimeError); });
  worker.join();
  lazy::sync();
  std::thread reader(
      [&] { EXPECT_EQ((pending + 1.0f).to_vector<float>(), std::vector<float>(3, 3.0f)); });
  reader.join();
}

TEST(Trace, ATensorWhoseThreadEndedBeforeComputingItIsRefused) {
  lazy::sync();
  lazy::Tensor orphan;
  std::thread worker([&] { orphan = lazy::ones({3}) * 2.0f; });  // ends without a sync
  worker.join();
  EXPECT_FALSE(orphan.node()->is_pending());
  try {
    (void)(orphan + 1.0f);
    ADD_FAILURE() << "an uncomputed tensor from an ended thread was accepted";
  } catch (const lazy::RuntimeError& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("never computed"));
  }
  EXPECT_THROW((void)orphan.to_vector<float>(), lazy::RuntimeError);
}

}  // namespace

TEST(Node, AChainOfAMillionRecordedOpsIsFreedWithoutOverflowingTheStack) {
  lazy::sync();
  Trace& trace = Trace::current();
  lazy::Tensor x = lazy::zeros({2});
  const lazy::Tensor first = x;
  for (int i = 0; i < 1'000'000; ++i) {
    lazy::ir::NodePtr next = lazy::ir::make_node(lazy::ir::Op::Neg, lazy::DType::f32, {2}, {});
    next->inputs.push_back(x.node());
    x = lazy::Tensor(lazy::ir::share_unpublished(next.get()));
    trace.append(std::move(next));
  }
  trace.clear();  // a consumer does not own its inputs: nothing frees recursively
  EXPECT_TRUE(x.node()->inputs.empty());
  EXPECT_EQ(first.node()->owners.load(), 1u);  // the handle `first`; the trace let it go
}

// Which stream gets a graph of an eager plan: each stream its own, claimed once, at most
// kEagerGraphStreams of them, and none before the plan has been hit kEagerHitsBeforeGraph times.
#include <array>

#include <gtest/gtest.h>

#include "runtime/device_stream.h"
#include "runtime/eager_graphs.h"
#include "runtime/plan.h"

namespace {

using lazy::runtime::DeviceStream;
using lazy::runtime::kEagerGraphStreams;
using lazy::runtime::kEagerHitsBeforeGraph;

int claimed(const lazy::runtime::Plan& plan) {
  int count = 0;
  for (const auto& slot : plan.eager.streams) count += slot.stream.load() != nullptr;
  return count;
}

TEST(EagerGraphStreams, EachStreamClaimsOneGraphOfThePlanAfterItsFirstHits) {
  lazy::runtime::Plan plan;  // nothing to launch, so no slot gets a graph, only its claim
  std::array<DeviceStream, kEagerGraphStreams + 2> streams;
  for (int hit = 0; hit < kEagerHitsBeforeGraph; ++hit) {
    EXPECT_EQ(lazy::runtime::eager_graph(plan, streams[0]), nullptr);
    EXPECT_EQ(claimed(plan), 0) << "hit " << hit;
  }
  for (int again = 0; again < 3; ++again) {
    for (const DeviceStream& stream : streams)
      EXPECT_EQ(lazy::runtime::eager_graph(plan, stream), nullptr);
    EXPECT_EQ(claimed(plan), kEagerGraphStreams);
  }
  for (int slot = 0; slot < kEagerGraphStreams; ++slot)
    EXPECT_EQ(plan.eager.streams[std::size_t(slot)].stream.load(), &streams[std::size_t(slot)]);
}

}  // namespace

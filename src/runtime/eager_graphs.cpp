#include "runtime/eager_graphs.h"

#include "runtime/graph_replay.h"
#include "runtime/plan.h"

namespace lazy::runtime {

EagerGraph::EagerGraph() = default;
EagerGraph::~EagerGraph() = default;

GraphReplay* eager_graph(const Plan& plan, const DeviceStream& stream) {
  EagerGraph& eager = plan.eager;
  if (eager.hits.load(std::memory_order_relaxed) < kEagerHitsBeforeGraph) {
    eager.hits.fetch_add(1, std::memory_order_relaxed);
    return nullptr;
  }
  for (EagerGraph::OnStream& slot : eager.streams) {
    const DeviceStream* owner = slot.stream.load(std::memory_order_acquire);
    if (owner == &stream) return slot.replay.get();
    if (owner == nullptr && slot.stream.compare_exchange_strong(owner, &stream)) {
      slot.replay =
          GraphReplay::for_plan(plan, GraphReplay::Numbers::per_call, kEagerGraphOwnedBytes);
      return slot.replay.get();
    }
  }
  return nullptr;
}

}  // namespace lazy::runtime

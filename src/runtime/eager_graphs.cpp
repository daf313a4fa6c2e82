#include "runtime/eager_graphs.h"

#include "runtime/graph_replay.h"
#include "runtime/plan.h"

namespace lazy::runtime {

GraphReplay* eager_graph(const Plan& plan) {
  EagerGraph& eager = plan.eager;
  if (eager.hits.load(std::memory_order_relaxed) < kEagerHitsBeforeGraph) {
    eager.hits.fetch_add(1, std::memory_order_relaxed);
    return nullptr;
  }
  std::call_once(eager.built,
                 [&] { eager.replay = GraphReplay::for_plan(plan, kEagerGraphOwnedBytes); });
  return eager.replay.get();
}

}  // namespace lazy::runtime

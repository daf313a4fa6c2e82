// Eager syncs that hit one plan again and again (a loop written without lazy::compile) replay it
// as a CUDA graph from its fourth hit on, as a lazy::Function does: a graph launch costs the host
// less than a kernel launch. A graph keeps its intermediates' memory for as long as the plan is
// cached, so only plans whose intermediates are small get one.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>

namespace lazy::runtime {

class GraphReplay;
struct Plan;

// Plan hits before the graph is built: a plan synced once or twice never pays for one.
inline constexpr std::int32_t kEagerHitsBeforeGraph = 3;
// The most intermediate memory an eager plan's graph may keep.
inline constexpr std::int64_t kEagerGraphOwnedBytes = std::int64_t(1) << 20;

// Held by each Plan.
struct EagerGraph {
  std::atomic<std::int32_t> hits{0};
  std::once_flag built;
  std::shared_ptr<GraphReplay> replay;  // null when the plain replay suits the plan better
};

// The graph to replay `plan` with on this hit, or null for the plain replay.
GraphReplay* eager_graph(const Plan& plan);

}  // namespace lazy::runtime

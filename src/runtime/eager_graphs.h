// Eager syncs that hit one plan again and again (a loop written without lazy::compile) replay it
// as a CUDA graph from its fourth hit on, as a lazy::Function does: a graph launch costs the host
// less than a kernel launch. A graph keeps its intermediates' memory for as long as the plan is
// cached, so only plans whose intermediates are small get one.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>

namespace lazy::runtime {

class GraphReplay;
struct DeviceStream;
struct Plan;

// Plan hits before the graph is built: a plan synced once or twice never pays for one.
inline constexpr std::int32_t kEagerHitsBeforeGraph = 3;
// The most intermediate memory an eager plan's graph may keep.
inline constexpr std::int64_t kEagerGraphOwnedBytes = std::int64_t(1) << 20;
// Streams that get a graph of their own for one plan; more replay it plainly.
inline constexpr int kEagerGraphStreams = 8;

// Held by each Plan. Each stream replays its own graph: CUDA orders every launch of one graph
// exec after the previous one, so threads sharing a graph would wait for each other's kernels.
struct EagerGraph {
  struct OnStream {
    // Claimed once, by the thread then holding the stream; only that stream's threads (one at
    // a time, ordered by the stream's lease) read `replay` after.
    std::atomic<const DeviceStream*> stream{nullptr};
    std::unique_ptr<GraphReplay> replay;  // null when the plain replay suits the plan better
  };
  std::atomic<std::int32_t> hits{0};
  std::array<OnStream, kEagerGraphStreams> streams;

  EagerGraph();
  ~EagerGraph();
};

// The graph to replay `plan` with on `stream` at this hit, or null for the plain replay.
GraphReplay* eager_graph(const Plan& plan, const DeviceStream& stream);

}  // namespace lazy::runtime

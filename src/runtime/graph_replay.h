// A plan replayed as one CUDA graph (lazy::Function, and eager syncs that hit a plan again and
// again: runtime/eager_graphs.h): the host queues the whole step
// with one graph launch instead of a launch and allocations per kernel. Even for one kernel a
// graph launch costs the host less than cuLaunchKernel (1.9 against 4.0 µs on the H100
// machine). Memory the step only uses inside itself (intermediates, dense copies, scratch) belongs
// to the graph and is allocated once; the outputs the caller receives are new memory on every call,
// and the launches that read inputs or write those outputs get their new addresses in place when
// they move.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

#include <absl/container/flat_hash_map.h>
#include <absl/functional/function_ref.h>

#include "ir/node.h"
#include "runtime/device.h"
#include "runtime/device_graph.h"
#include "runtime/plan.h"

namespace lazy::runtime {

class GraphReplay {
 public:
  // Memory a graph may keep for itself: past this the plain replay, which frees intermediates as
  // it goes, runs instead. Launch costs matter for small steps, whose intermediates are small.
  static constexpr std::int64_t kMaxOwnedBytes = std::int64_t(64) << 20;

  // A graph replay of `plan`, or nullptr when the plain replay suits it better: nothing to
  // launch, a cuBLASLt call, or more than kMaxOwnedBytes of intermediates. `plan` must outlive
  // it.
  // Waits for every stream first: launches on other threads' streams may use its memory.
  ~GraphReplay();
  GraphReplay(const GraphReplay&) = delete;
  GraphReplay& operator=(const GraphReplay&) = delete;

  // Whether a call's pending nodes may hold other numbers: an eager sync records new Scalar nodes
  // each time, a lazy::Function replays the nodes it captured, whose numbers never change.
  enum class Numbers : std::uint8_t { per_call, captured };

  static std::unique_ptr<GraphReplay> for_plan(const Plan& plan, Numbers numbers,
                                               std::int64_t max_owned_bytes = kMaxOwnedBytes);

  // Queues the plan for this call and hands `held` the data of each held pending node, as
  // replay() would return them; builds and instantiates the graph on the first call. False, with
  // nothing queued, when the plain replay must run instead: another thread is replaying this
  // graph, or LAZY_DEBUG=3 asks for per-kernel times.
  bool run(std::span<const ir::NodePtr> pending, std::span<const ir::NodePtr> externals,
           Device& device, absl::FunctionRef<void(std::uint32_t, ir::TensorData)> held);

 private:
  // A kernel argument whose value a call may change: an input's address, the memory of an
  // output the caller receives, or a scalar's value (a sync's numbers are not in its plan key).
  struct MovingArgument {
    enum class Source : std::uint8_t { external, call_buffer, scalar };
    std::uint32_t launch;
    std::uint32_t word;
    Source source;
    std::uint32_t from;  // external slot, per-call buffer or pending Scalar node
  };

  GraphReplay(const Plan& plan, Numbers numbers) : plan_(plan), numbers_(numbers) {}
  void build(std::span<const ir::NodePtr> pending, std::span<const ir::NodePtr> externals,
             std::span<const std::shared_ptr<ir::Storage>> call_buffers, Device& device);

  const Plan& plan_;
  const Numbers numbers_;
  // Outputs that share one memory (an output may take the memory of an input it reads last),
  // numbered; each root's group, and the output that allocates each group.
  absl::flat_hash_map<std::uint32_t, std::uint32_t> group_of_root_;
  std::vector<const PlannedOutput*> group_first_;
  // Per group, the per-call buffer it is (the caller receives it), or -1 when the graph owns it.
  std::vector<std::int32_t> call_buffer_of_group_;
  std::vector<const PlannedOutput*> call_buffer_outputs_;

  std::mutex mutex_;  // one call at a time uses the graph and its memory
  std::unique_ptr<DeviceGraph> graph_;
  std::vector<std::shared_ptr<ir::Storage>> owned_;  // per group; null for per-call groups
  absl::flat_hash_map<std::uint32_t, std::shared_ptr<ir::Storage>> owned_copies_;
  std::vector<std::shared_ptr<DeviceBuffer>> owned_scratch_;
  std::vector<std::vector<std::uint64_t>> launch_words_;  // as the instantiated graph has them
  // Of those, the product kernels' launches, and the product kernels (counted as matmul calls).
  std::int64_t product_launches_ = 0;
  std::int64_t products_ = 0;
  std::vector<MovingArgument> moving_;
};

// Replays `plan` through `graph` when there is one and it runs this call, else plainly (replay());
// either way `held` gets the held nodes' data. True when it ran as a graph.
bool replay_plan(const Plan& plan, GraphReplay* graph, std::span<const ir::NodePtr> pending,
                 std::span<const ir::NodePtr> externals, Device& device,
                 absl::FunctionRef<void(std::uint32_t, ir::TensorData)> held);

}  // namespace lazy::runtime

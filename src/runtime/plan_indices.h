// How a plan names the nodes of the partition's graph. A recorded node keeps its trace index: a
// replay reads scalars from the trace, and hands results back to it, by that index. A node the
// partitioner's rewrite added (fuse/split_reductions.h) is numbered past the trace's nodes; a
// replay only ever allocates and passes its memory, and an added scalar is a constant.
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "codegen/kernel_emitter.h"
#include "fuse/graph.h"
#include "runtime/plan.h"

namespace lazy::runtime {

class PlanIndices {
 public:
  PlanIndices(const fuse::Graph& graph, std::size_t recorded_count);
  std::uint32_t operator()(std::uint32_t graph_index) const { return index_[graph_index]; }
  bool added(std::uint32_t graph_index) const {
    return graph_.recorded[graph_index] == fuse::Graph::kAdded;
  }

 private:
  const fuse::Graph& graph_;
  std::vector<std::uint32_t> index_;
};

// What a message about an added node's memory needs of it (op, dtype, shape, source line), without
// its inputs, which the plan must not keep alive.
ir::NodePtr detached_copy(const ir::Node& node);

// A kernel's arguments with graph indices turned into plan indices.
std::vector<codegen::ArgSource> plan_args(const std::vector<codegen::ArgSource>& args,
                                          const fuse::Graph& graph, const PlanIndices& index);

// The held view at graph index `view`: the base it shares memory with and its layout there.
PlannedView plan_view(std::uint32_t view, const fuse::Graph& graph,
                      std::span<const ir::NodePtr> externals, const PlanIndices& index);

}  // namespace lazy::runtime

#include "fuse/region_cones.h"

#include "ir/op.h"

namespace lazy::fuse {

using ir::Node;
using ir::OpKind;

RegionCones::RegionCones(const Partition& p) : p_(p), seen_(p.graph.size(), false) {
  seen_list_.reserve(p.graph.size());  // a walk reaches each node at most once
}

void RegionCones::walk(std::size_t r,
                       absl::FunctionRef<void(std::uint32_t index, bool inlined)> reached) {
  for (const std::uint32_t index : seen_list_) seen_[index] = false;
  seen_list_.clear();
  current_ = std::int32_t(r);
  reached_ = &reached;
  const Region& region = p_.regions[r];
  const std::vector<ir::NodePtr>& nodes = p_.graph.nodes;
  if (region.matmul || region.scatter) {
    const std::uint32_t node = region.matmul ? region.matmul->node : region.scatter->node;
    for (ir::Node* input : nodes[node]->inputs) walk_node(*input);
    return;
  }
  if (region.row)
    for (const std::uint32_t reduction : region.row->reductions)
      walk_node(*nodes[reduction]->inputs[0]);
  const bool folds_its_root = region.reduction || region.scan || region.top_k;
  for (const Root& root : region.roots) {
    if (root.external_copy) continue;
    const Node& node = *nodes[root.node];
    if (folds_its_root)
      walk_node(*node.inputs[0]);
    else if (!region.row || ir::op_kind(node.op) != OpKind::reduction)
      walk_node(node);
  }
}

void RegionCones::walk_node(const Node& node) {
  if (!node.is_pending()) return;
  const std::uint32_t index = node.trace_index;
  if (seen_[index]) return;
  seen_[index] = true;
  seen_list_.push_back(index);
  const std::int32_t region = p_.region_of[index];
  if (region != Partition::kNoRegion && region < current_) {
    (*reached_)(index, false);
    return;
  }
  (*reached_)(index, true);
  // The region's own reduction is its folded value: its input is walked from the region's start.
  if (ir::op_kind(node.op) == OpKind::reduction) return;
  for (ir::Node* input : node.inputs) walk_node(*input);
}

}  // namespace lazy::fuse

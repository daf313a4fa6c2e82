#include "fuse/stored_reductions.h"

#include <cstdint>
#include <vector>

#include "ir/op.h"

namespace lazy::fuse {

namespace {

using ir::Node;
using ir::OpKind;

class LaterReads {
 public:
  explicit LaterReads(Partition& p) : p_(p), seen_(p.graph.size(), false) {}

  bool run() {
    for (std::size_t r = 0; r < p_.regions.size(); ++r) {
      current_ = std::int32_t(r);
      for (const std::uint32_t index : seen_list_) seen_[index] = false;
      seen_list_.clear();
      walk_region(p_.regions[r]);
    }
    return marked_;
  }

 private:
  // Where build_terms starts a region's walk.
  void walk_region(const Region& region) {
    const std::vector<ir::NodePtr>& nodes = p_.graph.nodes;
    if (region.matmul || region.scatter) {
      const std::uint32_t node = region.matmul ? region.matmul->node : region.scatter->node;
      for (const ir::NodePtr& input : nodes[node]->inputs) walk(*input);
      return;
    }
    if (region.row)
      for (const std::uint32_t reduction : region.row->reductions)
        walk(*nodes[reduction]->inputs[0]);
    const bool folds_its_root = region.reduction || region.scan || region.top_k;
    for (const Root& root : region.roots) {
      if (root.external_copy) continue;
      const Node& node = *nodes[root.node];
      if (folds_its_root)
        walk(*node.inputs[0]);
      else if (!region.row || ir::op_kind(node.op) != OpKind::reduction)
        walk(node);
    }
  }

  void walk(const Node& node) {
    if (!node.is_pending()) return;
    const std::uint32_t index = node.trace_index;
    if (seen_[index]) return;
    seen_[index] = true;
    seen_list_.push_back(index);
    const std::int32_t region = p_.region_of[index];
    if (region != Partition::kNoRegion && region < current_) {
      if (p_.regions[region].row && ir::op_kind(node.op) == OpKind::reduction &&
          !p_.cuts.stored[index]) {
        p_.cuts.stored[index] = true;
        marked_ = true;
      }
      return;  // read from memory
    }
    // The current region's own reduction is its folded value: its input is walked from the
    // region's start.
    if (ir::op_kind(node.op) == OpKind::reduction) return;
    for (const ir::NodePtr& input : node.inputs) walk(*input);
  }

  Partition& p_;
  std::vector<bool> seen_;
  std::vector<std::uint32_t> seen_list_;
  std::int32_t current_ = 0;
  bool marked_ = false;
};

}  // namespace

bool store_row_reductions_read_later(Partition& p) {
  return LaterReads(p).run();
}

}  // namespace lazy::fuse

#include "fuse/shared_recompute.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <vector>

#include <absl/container/inlined_vector.h>

#include "fuse/region_cones.h"
#include "ir/op.h"

namespace lazy::fuse {

namespace {

bool computes(const ir::Node& node) {
  const ir::OpKind kind = ir::op_kind(node.op);
  return kind == ir::OpKind::pointwise || kind == ir::OpKind::generator;
}

// The ops inlined to compute a node, as graph indices: sorted, and cut short past
// kMaxOpsRecomputed, which is all the test needs (and bounds the work per node). Most nodes have
// few, held without an allocation.
using Ops = absl::InlinedVector<std::uint32_t, 8>;

constexpr std::size_t kOpsKept = std::size_t(kMaxOpsRecomputed) + 1;

// Joins `from` into `into` through `scratch`, whose buffer the two trade: a plan miss walks every
// node, and a new vector per join was a tenth of its instructions.
void add_ops(Ops& into, const Ops& from, Ops& scratch) {
  if (from.empty()) return;
  if (into.empty()) {
    into.assign(from.begin(), from.begin() + std::ptrdiff_t(std::min(from.size(), kOpsKept)));
    return;
  }
  scratch.clear();
  std::set_union(into.begin(), into.end(), from.begin(), from.end(), std::back_inserter(scratch));
  if (scratch.size() > kOpsKept) scratch.resize(kOpsKept);
  into.swap(scratch);
}

}  // namespace

bool cut_values_recomputed_by_several_regions(Partition& p) {
  const Graph& graph = p.graph;
  std::vector<int> computed_by(graph.size(), 0);
  RegionCones cones(p);
  for (std::size_t r = 0; r < p.regions.size(); ++r) {
    cones.walk(r, [&](std::uint32_t index, bool inlined) {
      if (inlined && computes(*graph.nodes[index])) ++computed_by[index];
    });
  }
  // Mostly no kernel computes what another does: then nothing is worth the chains' lengths.
  if (std::none_of(computed_by.begin(), computed_by.end(), [](int n) { return n >= 2; }))
    return false;
  // The node to write is where the kernels' chains part: one that several ops read.
  std::vector<int> readers(graph.size(), 0);
  for (const ir::NodePtr& node : graph.nodes)
    for (ir::Node* input : node->inputs)
      if (input->is_pending()) ++readers[input->trace_index];
  bool cut = false;
  std::vector<Ops> ops(graph.size());  // inputs come first, so one pass in order
  Ops scratch;
  for (std::uint32_t i = 0; i < graph.size(); ++i) {
    if (!p.cuts.needed[i] || p.cuts.cut[i]) continue;  // a written value costs its readers no op
    const ir::Node& node = *graph.nodes[i];
    for (ir::Node* input : node.inputs)
      if (input->is_pending()) add_ops(ops[i], ops[input->trace_index], scratch);
    if (!computes(node)) continue;
    if (ops[i].size() < kOpsKept) ops[i].push_back(i);  // past every input's index
    if (computed_by[i] >= 2 && readers[i] >= 2 && ops[i].size() > std::size_t(kMaxOpsRecomputed)) {
      p.cuts.add(i, CutReason::recomputed);
      ops[i].clear();
      cut = true;
    }
  }
  return cut;
}

}  // namespace lazy::fuse

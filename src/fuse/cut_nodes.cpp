#include "fuse/cut_nodes.h"

#include <algorithm>

#include "fuse/gather_pushdown.h"
#include "fuse/view_layout.h"

namespace lazy::fuse {

namespace {

using ir::Node;
using ir::NodePtr;
using ir::Op;
using ir::OpKind;

// A held view shares its base's memory: the base is written (a scalar from the host), unless a
// reshape on the way needs strides its base's layout cannot give; the view is then written itself.
void cut_for_live_view(Partition& p, std::uint32_t index) {
  const auto [base, views] = view_chain(*p.graph.nodes[index]);
  const ir::Layout base_layout =
      base->is_pending() ? ir::Layout::contiguous(base->shape) : base->data->layout;
  const Node* failed = nullptr;
  if (!compose_views(base_layout, views, &failed)) {
    p.cuts.add(index, CutReason::live_output);  // written densely itself
    return;
  }
  p.live_views.push_back(index);
  if (!base->is_pending()) return;
  if (base->op == Op::Scalar) {
    if (std::find(p.live_scalars.begin(), p.live_scalars.end(), base->trace_index) ==
        p.live_scalars.end()) {
      p.live_scalars.push_back(base->trace_index);
    }
  } else {
    p.cuts.add(base->trace_index, CutReason::base_of_live_view);
    p.cuts.stored[base->trace_index] = true;  // a row region's reduction is written for the view
  }
}

// cuBLASLt reads a product's operands from memory: the node under an operand's views is written
// (build_terms makes the operand itself dense where its layout does not suit the call).
void cut_matmul_operand(Partition& p, const Node& operand) {
  const Node* base = view_chain(operand).base;
  if (base->is_pending() && base->op != Op::Scalar)
    p.cuts.add(base->trace_index, CutReason::matmul_operand);
}

// A scatter reads its inputs at positions the index holds: the node under each input's views is
// written (build_terms writes an input itself where it is not in memory as it is).
void cut_scatter_operand(Partition& p, const Node& operand) {
  const Node* base = view_chain(operand).base;
  if (base->is_pending() && base->op != Op::Scalar)
    p.cuts.add(base->trace_index, CutReason::scatter_operand);
}

// A gather reads its source at positions its index holds: the node under the source's views is
// written first, and read back (build_terms cuts the source itself where its views do not compose).
void cut_gather_source(Partition& p, const Node& source) {
  const Node* base = view_chain(source).base;
  if (!base->is_pending()) return;
  // Pointwise work is computed at the picked positions instead (gather_pushdown.h).
  if (base->op != Op::Scalar && gather_pushes_down(source)) return;
  // A scalar has no memory: the source itself is written.
  const Node& written = base->op == Op::Scalar ? source : *base;
  p.cuts.add_read_back(written.trace_index, CutReason::gather_source);
}

// The nodes a handle holds must be written; a held view needs its base written instead.
void cut_held_and_reductions(Partition& p, PartitionOptions options) {
  const Graph& graph = p.graph;
  for (std::uint32_t i = 0; i < graph.size(); ++i) {
    if (!p.cuts.needed[i]) continue;
    const Node& node = *graph.nodes[i];
    const bool live = graph.live[i];
    const OpKind kind = ir::op_kind(node.op);
    if (!options.fusion &&
        (kind == OpKind::pointwise || kind == OpKind::generator || kind == OpKind::copy ||
         kind == OpKind::gather || kind == OpKind::concat))
      p.cuts.add(i, live ? CutReason::live_output : CutReason::fusion_disabled);
    if (kind == OpKind::reduction)
      p.cuts.add(i, live ? CutReason::live_output : CutReason::reduction);
    if (kind == OpKind::top_k)
      p.cuts.add_read_back(i, live ? CutReason::live_output : CutReason::top_k);
    if (kind == OpKind::scan)
      p.cuts.add_read_back(i, live ? CutReason::live_output : CutReason::scan);
    if (kind == OpKind::matmul) {
      p.cuts.add_read_back(i, live ? CutReason::live_output : CutReason::matmul);
      for (Node* input : node.inputs) cut_matmul_operand(p, *input);
    }
    if (kind == OpKind::scatter) {
      p.cuts.add_read_back(i, live ? CutReason::live_output : CutReason::scatter);
      for (Node* input : node.inputs) cut_scatter_operand(p, *input);
    }
    if (kind == OpKind::gather) cut_gather_source(p, *node.inputs[0]);
    if (!live) continue;
    if (node.op == Op::Scalar) {
      p.live_scalars.push_back(i);
    } else if (kind == OpKind::view) {
      cut_for_live_view(p, i);
    } else {
      p.cuts.add(i, CutReason::live_output);
    }
  }
}

// Cuts a node whose chain of inlined ops, back to the nearest written value or leaf, would be
// longer than kMaxFusedDepth.
void cut_long_chains(Partition& p) {
  const Graph& graph = p.graph;
  std::vector<int> depth(graph.size(), 0);
  for (std::uint32_t i = 0; i < graph.size(); ++i) {
    if (!p.cuts.needed[i] || graph.nodes[i]->inputs.empty()) continue;
    int deepest = 0;
    for (Node* input : graph.nodes[i]->inputs)
      if (input->is_pending()) deepest = std::max(deepest, depth[input->trace_index]);
    depth[i] = deepest + 1;
    if (depth[i] > kMaxFusedDepth) p.cuts.add_read_back(i, CutReason::kernel_size_limit);
    if (p.cuts.cut[i]) depth[i] = 0;
  }
}

}  // namespace

Partition cut_nodes(Graph graph, PartitionOptions options) {
  Partition p;
  const std::size_t n = graph.size();
  p.cuts.needed = graph.needed();
  p.cuts.cut.assign(n, false);
  p.cuts.reason.assign(n, CutReason::live_output);
  p.cuts.read_back.assign(n, false);
  // Unfused, every consumer of a reduction is another kernel: it reads the result from memory.
  p.cuts.stored = options.fusion ? graph.live : std::vector<bool>(n, true);
  p.cuts.no_row.assign(n, std::nullopt);
  p.cuts.external_copy.assign(graph.externals.size(), false);
  p.graph = std::move(graph);
  cut_held_and_reductions(p, options);
  cut_long_chains(p);
  return p;
}

}  // namespace lazy::fuse

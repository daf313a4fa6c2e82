#include "fuse/graph.h"

#include <algorithm>
#include <sstream>

#include "ir/debug.h"

namespace lazy::fuse {

Graph recorded_graph(std::span<const ir::NodePtr> pending, const std::vector<bool>& live,
                     std::span<const ir::NodePtr> externals) {
  Graph graph;
  graph.externals.assign(externals.begin(), externals.end());
  graph.nodes.assign(pending.begin(), pending.end());
  graph.live = live;
  graph.recorded.resize(pending.size());
  for (std::size_t i = 0; i < pending.size(); ++i) graph.recorded[i] = std::int32_t(i);
  return graph;
}

std::vector<bool> Graph::needed() const {
  std::vector<bool> needed = live;
  for (std::size_t i = nodes.size(); i-- > 0;) {
    if (!needed[i]) continue;
    for (ir::Node* input : nodes[i]->inputs)
      if (input->is_pending()) needed[input->trace_index] = true;
  }
  return needed;
}

bool Graph::has(ir::Op op) const {
  return std::any_of(nodes.begin(), nodes.end(),
                     [op](const ir::NodePtr& node) { return node->op == op; });
}

void carry_earlier_passes(const Graph& in, std::span<ir::Node* const> now, Graph& out) {
  out.externals = in.externals;
  out.notes.insert(out.notes.begin(), in.notes.begin(), in.notes.end());
  std::vector<Rewrite> earlier;
  for (Rewrite rewrite : in.rewrites) {
    if (!now[rewrite.last]) continue;
    rewrite.last = now[rewrite.last]->trace_index;
    rewrite.first = now[rewrite.first] ? now[rewrite.first]->trace_index : rewrite.last;
    earlier.push_back(std::move(rewrite));
  }
  out.rewrites.insert(out.rewrites.begin(), earlier.begin(), earlier.end());
}

std::string Graph::describe_rewrites() const {
  if (rewrites.empty() && notes.empty()) return "";
  std::ostringstream out;
  for (const std::string& note : notes) out << note << "\n";
  if (rewrites.empty()) return out.str();
  for (const Rewrite& rewrite : rewrites) {
    // The last node stands for the recorded one: same dtype, shape and source line.
    const ir::Node& node = *nodes[rewrite.last];
    out << "rewrote %" << rewrite.recorded << " of the recorded graph (" << ir::op_name(rewrite.op)
        << " " << dtype_name(node.dtype) << node.shape.to_string() << " from "
        << node.loc.file_name() << ":" << node.loc.line() << "): " << rewrite.what << "; now %"
        << rewrite.first << "..%" << rewrite.last << "\n";
  }
  out << "rewritten graph:\n" << ir::describe_graph(nodes, live);
  return out.str();
}

}  // namespace lazy::fuse

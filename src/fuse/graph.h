// The graph the partitioner cuts: the recorded graph, or what the scheduling rewrites made of it
// (fuse/split_reductions.h). A rewrite never touches the recorded nodes: it builds new ones.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "ir/node.h"

namespace lazy::fuse {

// What a rewrite did to one recorded node, for LAZY_DEBUG=2.
struct Rewrite {
  std::uint32_t recorded;  // trace index of the rewritten node
  ir::Op op;               // its op
  std::string what;        // what it became, and why
  std::uint32_t first;     // graph indices of the nodes that compute it now: [first, last]
  std::uint32_t last;
};

struct Graph {
  // Inputs before their consumers; nodes[i]->trace_index is i and every input is a node of the
  // graph or a computed tensor (an external). Without a rewrite, the trace's own nodes.
  std::vector<ir::NodePtr> nodes;
  // live[i]: a handle holds the recorded node that nodes[i] stands for.
  std::vector<bool> live;
  // The trace index of the recorded node nodes[i] stands for (its value is that node's), or
  // kAdded for a node a rewrite added.
  std::vector<std::int32_t> recorded;
  // Computed tensors the graph reads, by slot (Trace::externals()).
  std::vector<ir::NodePtr> externals;
  std::vector<Rewrite> rewrites;
  // What a rewrite chose not to do, and why, one line each (LAZY_DEBUG=2).
  std::vector<std::string> notes;

  static constexpr std::int32_t kAdded = -1;

  std::size_t size() const { return nodes.size(); }
  // Whether a node of the graph is an `op`.
  bool has(ir::Op op) const;
  // Which nodes a held node needs (the held ones too), walking back from the held ones.
  std::vector<bool> needed() const;
  // One line per rewrite and note, then the rewritten graph (LAZY_DEBUG=2); empty without
  // rewrites or notes.
  std::string describe_rewrites() const;
};

// Carries what earlier passes did into `out`, the graph a pass rewrote `in` into, ahead of what
// the pass did itself: `in`'s externals and notes, and its rewrites renumbered to the nodes that
// compute them now (`now[i]`: in's node i in `out`, null where the pass dropped it).
void carry_earlier_passes(const Graph& in, std::span<ir::Node* const> now, Graph& out);

// The recorded graph as it is: `pending` in trace order, `live[i]` whether a handle holds it,
// `externals` the computed tensors it reads.
Graph recorded_graph(std::span<const ir::NodePtr> pending, const std::vector<bool>& live,
                     std::span<const ir::NodePtr> externals);

}  // namespace lazy::fuse

// The calling thread's record of ops not yet computed, in the order they were called.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "ir/node.h"

namespace lazy::ir {

// Past this many pending ops (LAZY_MAX_PENDING_OPS), recording an op first syncs, so a loop that
// never reads a value does not grow memory without bound.
std::int64_t max_pending_ops();

// Sets the node hash and DAG hash of a node made outside a trace (a graph rewrite's), from its
// fields and its inputs' DAG hashes, as append() would.
void hash_node(Node& node);

class Trace {
 public:
  // The calling thread's trace.
  static Trace& current();

  // Hashes `node` (whose op, dtype, shape, attrs and inputs are set) and appends it. Inputs
  // must be pending in this trace or computed.
  void append(const NodePtr& node);

  std::span<const NodePtr> pending() const { return nodes_; }
  // Computed tensors this trace reads, in order of first use.
  std::span<const NodePtr> externals() const { return externals_; }
  std::size_t size() const { return nodes_.size(); }
  bool empty() const { return nodes_.empty(); }

  // The key of the pending graph: its structure (ops, dtypes, shapes, attrs, which input feeds
  // which op) and which nodes a handle still holds. Not scalar values, data or addresses, so
  // the same program gives the same key in every run. Costs one hash over a flat array of a
  // few words per node, not a walk of the graph.
  Hash128 sync_key() const;
  // The same, for a liveness snapshot taken once (so the key and the plan built from the snapshot
  // agree even if another thread drops a handle meanwhile).
  Hash128 sync_key(const std::vector<bool>& live) const;

  // Forgets every pending node (computed ones keep their data).
  void clear();

 private:
  struct External {
    std::uint32_t slot;
    Hash128 dag_hash;
  };
  const External& external(const NodePtr& node);

  std::vector<NodePtr> nodes_;
  std::vector<NodePtr> externals_;
  absl::flat_hash_map<const Node*, External> external_index_;
  // The pending graph as flat words: per node, its DAG hash and where each input comes from
  // (a pending index or an external slot). Hashed once at sync_key().
  std::vector<std::uint64_t> program_;
};

}  // namespace lazy::ir

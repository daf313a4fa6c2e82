// The calling thread's record of ops not yet computed, in the order they were called.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "ir/hash.h"
#include "ir/node.h"

namespace lazy::ir {

// One bit per pending node, 64 to a word: does a handle hold it (Trace::live_bits). A sync's
// key reads the words as they are.
struct LiveBits {
  std::vector<std::uint64_t> words;
  std::size_t count = 0;

  bool operator[](std::size_t i) const { return (words[i / 64] >> (i % 64)) & 1; }
  std::vector<bool> to_vector() const;
};

// Past this many pending ops (LAZY_MAX_PENDING_OPS), recording an op first syncs, so a loop that
// never reads a value does not grow memory without bound.
std::int64_t max_pending_ops();

class Trace {
 public:
  // The calling thread's trace. Inline and through a plain pointer: every recorded op asks
  // for it, and a thread_local object would cost a guard check and a call each time.
  static Trace& current() {
    if (current_ == nullptr) [[unlikely]]
      return make_current();
    return *current_;
  }
  // The calling thread's trace if it has one, else nullptr: nothing of the thread's is pending.
  static Trace* current_if_any() { return current_; }

  Trace() : limit_(std::size_t(max_pending_ops())) {}
  Trace(const Trace&) = delete;
  Trace& operator=(const Trace&) = delete;
  // A thread that exits with ops pending forgets them, as clear() does.
  ~Trace();

  // Appends `node`, whose op, dtype, shape, attrs and inputs are set, and owns it until the sync.
  // Inputs must be pending in this trace or computed; the trace owns the computed ones too.
  void append(NodePtr node);

  std::span<const NodePtr> pending() const { return nodes_; }
  // Computed tensors this trace reads, in order of first use.
  std::span<const NodePtr> externals() const { return externals_; }
  std::size_t size() const { return nodes_.size(); }
  // Holds max_pending_ops() nodes or more; read on every op, so the limit is kept here.
  bool full() const { return nodes_.size() >= limit_; }
  bool empty() const { return nodes_.empty(); }

  // Which pending nodes are held from outside the trace (by a lazy::Tensor handle): those a sync
  // writes to memory; the others are intermediates. Consumers do not own their inputs, so a node
  // is held when it has an owner besides the trace.
  LiveBits live_bits() const;
  std::vector<bool> live() const { return live_bits().to_vector(); }

  // The key of the pending graph: its structure (ops, dtypes, shapes, attrs, which input feeds
  // which op) and which nodes a handle still holds. Not scalar values, data or addresses, so
  // the same program gives the same key in every run. Costs one hash over a flat array of a
  // few words per node, written as the nodes were appended; no walk of the graph.
  Hash128 sync_key() const;
  // The same, for a liveness snapshot taken once (so the key and the plan built from the snapshot
  // agree even if another thread drops a handle meanwhile).
  Hash128 sync_key(const LiveBits& live) const;

  // Forgets every pending node (computed ones keep their data). A node a handle still holds keeps
  // no inputs: they may be freed with the trace.
  void clear();

 private:
  // Throws lazy::RuntimeError once the thread's trace has been destroyed (the thread, or the
  // program, is ending): the destructor of a static or thread_local object recording an op.
  static Trace& make_current();
  // initial-exec, as the library's own thread-locals (CMakeLists.txt), for the code that inlines
  // current() outside it.
  [[gnu::tls_model("initial-exec")]] static constinit thread_local Trace* current_;

  // The program word naming a computed input: its slot. At its first use, its dtype and shape go
  // to external_words_.
  std::uint64_t external_ref(Node* node);

  std::size_t limit_;
  std::vector<NodePtr> nodes_;
  std::vector<NodePtr> externals_;
  absl::flat_hash_map<const Node*, std::uint32_t> external_slots_;
  // The pending graph as flat words: per node, what it is (op, dtypes, shape, attrs) and where
  // each input comes from (a pending index or an external slot). Per external slot in order, its
  // dtype and shape. Hashed once at sync_key().
  std::vector<std::uint64_t> program_;
  std::vector<std::uint64_t> external_words_;
};

}  // namespace lazy::ir

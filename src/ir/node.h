// A node of the recorded graph: one op, its inputs, its result's dtype and shape.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <source_location>
#include <utility>

#include <absl/container/inlined_vector.h>

#include "ir/op.h"
#include "ir/storage.h"
#include "lazy/dtype.h"
#include "lazy/scalar.h"
#include "lazy/shape.h"

namespace lazy::ir {

class Trace;

// Integer attributes of an op: a permutation, a slice's axis/start/step. Hashed with the op.
struct Attrs {
  std::array<std::int64_t, kMaxRank> ints{};
  std::uint8_t count = 0;

  void push(std::int64_t value) { ints[count++] = value; }
  std::int64_t operator[](int i) const { return ints[i]; }
};

// What a Scalar node stands for, kept in its attrs[0]. A number written next to a tensor keeps the
// precision it was recorded with (PyTorch's wrapped numbers); a 0-d tensor made by full() is
// converted to the op's common dtype like any tensor.
enum class ScalarRole : std::int64_t { tensor = 0, number = 1 };

struct Node {
  Op op;
  DType dtype;
  // The dtype pointwise math converts its inputs to (the promoted type of the operands; it
  // differs from `dtype` for comparisons, for instance).
  DType compute_dtype;
  Shape shape;
  Attrs attrs;
  // Not owned: the trace owns every pending node and every computed one its nodes read, and a
  // sync clears the inputs of what it computes. So recording an edge counts nothing.
  absl::InlinedVector<Node*, 3> inputs;
  // For Op::Scalar: the user's number. Not hashed: scalars are inputs, not constants.
  std::optional<Scalar> scalar;
  std::source_location loc;

  // The trace that recorded it while it is pending; null once computed or for data.
  Trace* trace = nullptr;
  std::uint32_t trace_index = 0;
  // Set once computed; the inputs are then released. Behind a pointer: most nodes never get
  // data, and a smaller node is cheaper to record.
  std::unique_ptr<TensorData> data;
  // Handles and NodePtrs holding it; starts with the one make_node hands back.
  std::atomic<std::uint32_t> owners{1};

  Node() = default;
  Node(Op op, DType dtype, const Shape& shape, std::source_location loc)
      : op(op), dtype(dtype), compute_dtype(dtype), shape(shape), loc(loc) {}
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  bool is_pending() const { return trace != nullptr; }
  bool is_number() const {
    return op == Op::Scalar && attrs[0] == std::int64_t(ScalarRole::number);
  }
};

// Destroys a node no one owns any more and keeps its block for the next node (node.cpp).
void destroy_node(Node* node) noexcept;

// Drops one owner of `node`. The last owner frees it without an atomic write: no one else can
// reach the node to add an owner meanwhile.
inline void drop_owner(Node* node) noexcept {
  if (node->owners.load(std::memory_order_acquire) == 1 ||
      node->owners.fetch_sub(1, std::memory_order_acq_rel) == 1)
    destroy_node(node);
}

// An owner of a node, counted in Node::owners (an intrusive count: one word per pointer, no
// control block).
class NodePtr {
 public:
  NodePtr() = default;
  NodePtr(std::nullptr_t) {}  // NOLINT(google-explicit-constructor)
  // Adds an owner to `node`, which may be null.
  explicit NodePtr(Node* node) : node_(node) {
    if (node_ != nullptr) node_->owners.fetch_add(1, std::memory_order_relaxed);
  }
  NodePtr(const NodePtr& other) : NodePtr(other.node_) {}
  NodePtr(NodePtr&& other) noexcept : node_(std::exchange(other.node_, nullptr)) {}
  NodePtr& operator=(NodePtr other) noexcept {
    std::swap(node_, other.node_);
    return *this;
  }
  ~NodePtr() {
    if (node_ != nullptr) drop_owner(node_);
  }

  // Takes over an owner `node` already counts.
  static NodePtr adopt(Node* node) {
    NodePtr ptr;
    ptr.node_ = node;
    return ptr;
  }
  // Hands the owner this pointer counted to the caller.
  Node* release() { return std::exchange(node_, nullptr); }

  Node* get() const { return node_; }
  Node& operator*() const { return *node_; }
  Node* operator->() const { return node_; }
  explicit operator bool() const { return node_ != nullptr; }
  std::uint32_t use_count() const {
    return node_ == nullptr ? 0 : node_->owners.load(std::memory_order_acquire);
  }

  friend bool operator==(const NodePtr& a, const NodePtr& b) { return a.node_ == b.node_; }
  friend bool operator==(const NodePtr& a, const Node* b) { return a.node_ == b; }
  friend bool operator==(const NodePtr& a, std::nullptr_t) { return a.node_ == nullptr; }
  template <class H>
  friend H AbslHashValue(H h, const NodePtr& ptr) {
    return H::combine(std::move(h), ptr.node_);
  }

 private:
  Node* node_ = nullptr;
};

// Another owner of a node no other thread can reach yet (just made, not handed out), counted
// without an atomic write.
inline NodePtr share_unpublished(Node* node) {
  node->owners.store(node->owners.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  return NodePtr::adopt(node);
}

// A node with no inputs yet, computing in its own dtype, from the thread's free blocks.
NodePtr make_node(Op op, DType dtype, const Shape& shape, std::source_location loc);

}  // namespace lazy::ir

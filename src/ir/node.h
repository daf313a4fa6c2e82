// A node of the recorded graph: one op, its inputs, its result's dtype and shape.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <source_location>

#include <absl/container/inlined_vector.h>

#include "ir/op.h"
#include "ir/storage.h"
#include "lazy/dtype.h"
#include "lazy/scalar.h"
#include "lazy/shape.h"

namespace lazy::ir {

class Trace;
struct Node;
using NodePtr = std::shared_ptr<Node>;

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
  absl::InlinedVector<NodePtr, 3> inputs;
  // For Op::Scalar: the user's number. Not hashed: scalars are inputs, not constants.
  std::optional<Scalar> scalar;
  std::source_location loc;

  // The trace that recorded it while it is pending; null once computed or for data.
  Trace* trace = nullptr;
  std::uint32_t trace_index = 0;
  // Set once computed; the inputs are then released. Behind a pointer: most nodes never get
  // data, and a smaller node is cheaper to record.
  std::unique_ptr<TensorData> data;

  Node() = default;
  Node(Op op, DType dtype, const Shape& shape, std::source_location loc)
      : op(op), dtype(dtype), compute_dtype(dtype), shape(shape), loc(loc) {}
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;
  // Frees a chain of inputs only this node holds one node at a time: freeing it recursively
  // would take a stack frame per node, and a long recorded chain overflows the stack.
  ~Node();

  bool is_pending() const { return trace != nullptr; }
  bool is_number() const {
    return op == Op::Scalar && attrs[0] == std::int64_t(ScalarRole::number);
  }
};

// A node with no inputs yet, computing in its own dtype, from the per-thread node allocator.
NodePtr make_node(Op op, DType dtype, const Shape& shape, std::source_location loc);

}  // namespace lazy::ir

// Appends nodes to a Graph under construction: the recorded nodes a rewrite keeps, and the ones
// it adds. Added nodes follow the dtype, broadcasting and number rules of the API's ops
// (api/pointwise_ops.cpp, api/view_ops.cpp), so a rewrite builds the graph the API would record
// for the same computation written out with public ops.
#pragma once

#include <optional>
#include <type_traits>

#include "fuse/graph.h"
#include "ir/matmul.h"
#include "lazy/scalar.h"

namespace lazy::fuse {

// A tensor operand (a node) or a number, which becomes a Scalar leaf as in the API.
struct Operand {
  Operand(ir::NodePtr tensor) : node(std::move(tensor)) {}  // NOLINT(google-explicit-constructor)
  template <class T>
  requires std::is_arithmetic_v<T> Operand(T value)  // NOLINT(google-explicit-constructor)
      : number(Scalar(value)) {}
  ir::NodePtr node;
  std::optional<Scalar> number;
};

class GraphBuilder {
 public:
  explicit GraphBuilder(Graph& graph) : graph_(graph) {}

  // Appends a recorded node standing for trace index `recorded`, with `inputs` (the graph's
  // versions of its inputs): the node itself when nothing about it changes, else a copy.
  ir::NodePtr keep(const ir::NodePtr& node, std::int32_t recorded, bool live,
                   std::span<const ir::NodePtr> inputs);

  // Added nodes carry the source location (and trace) of `origin`, the recorded node they help
  // compute, so errors and LAZY_DEBUG name the user's line.
  void set_origin(const ir::Node& origin) { origin_ = &origin; }

  ir::NodePtr reshape(const ir::NodePtr& x, const Shape& shape);
  // Elements [start, stop) of `axis`, as x.slice(axis, start, stop) with 0 <= start <= stop.
  ir::NodePtr slice(const ir::NodePtr& x, int axis, std::int64_t start, std::int64_t stop);
  ir::NodePtr reduction(ir::Op op, const ir::NodePtr& x, std::uint64_t mask, bool keepdim,
                        DType dtype, DType compute_dtype);
  // Add, Sub, Mul, Maximum, Minimum (arithmetic), Eq, Lt, Gt (compare), LogicalAnd, LogicalOr.
  ir::NodePtr binary(ir::Op op, const Operand& a, const Operand& b);
  // Exp (floating), IsNan, IsInf, LogicalNot (to bool).
  ir::NodePtr unary(ir::Op op, const ir::NodePtr& x);
  ir::NodePtr cast(const ir::NodePtr& x, DType dtype);
  ir::NodePtr where(const ir::NodePtr& cond, const Operand& a, const Operand& b);
  // The i64 range 0, step, ... below stop.
  ir::NodePtr arange(std::int64_t stop, std::int64_t step);
  // `product` (a MatMul) with its epilogue: inputs a, b, then the bias and residual it names.
  ir::NodePtr matmul(const ir::Node& product, std::span<const ir::NodePtr> inputs,
                     const ir::MatmulEpilogue& epilogue);

  // Marks the last node appended as standing for recorded node `recorded` (a rewrite's result).
  void stands_for(std::int32_t recorded, bool live);
  std::uint32_t size() const { return std::uint32_t(graph_.nodes.size()); }

 private:
  ir::NodePtr added(ir::Op op, DType dtype, const Shape& shape);
  ir::NodePtr append(ir::NodePtr node);
  ir::NodePtr scalar(const Scalar& value, DType dtype);
  ir::NodePtr broadcast(const ir::NodePtr& x, const Shape& shape);
  ir::NodePtr pointwise(ir::Op op, std::initializer_list<const Operand*> operands, DType dtype,
                        DType compute_dtype, DType scalar_dtype);

  Graph& graph_;
  const ir::Node* origin_ = nullptr;
};

}  // namespace lazy::fuse

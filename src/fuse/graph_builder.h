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
  Operand(ir::Node* tensor) : node(tensor) {}  // NOLINT(google-explicit-constructor)
  template <class T>
  requires std::is_arithmetic_v<T> Operand(T value)  // NOLINT(google-explicit-constructor)
      : number(Scalar(value)) {}
  ir::Node* node = nullptr;
  std::optional<Scalar> number;
};

class GraphBuilder {
 public:
  explicit GraphBuilder(Graph& graph) : graph_(graph) {}

  // Appends a recorded node standing for trace index `recorded`, with `inputs` (the graph's
  // versions of its inputs): the node itself when nothing about it changes, else a copy.
  ir::Node* keep(ir::Node* node, std::int32_t recorded, bool live,
                 std::span<ir::Node* const> inputs);

  // Added nodes carry the source location (and trace) of `origin`, the recorded node they help
  // compute, so errors and LAZY_DEBUG name the user's line.
  void set_origin(const ir::Node& origin) { origin_ = &origin; }

  ir::Node* reshape(ir::Node* x, const Shape& shape);
  // Elements [start, stop) of `axis`, as x.slice(axis, start, stop) with 0 <= start <= stop.
  ir::Node* slice(ir::Node* x, int axis, std::int64_t start, std::int64_t stop);
  ir::Node* reduction(ir::Op op, ir::Node* x, std::uint64_t mask, bool keepdim, DType dtype,
                      DType compute_dtype);
  // Add, Sub, Mul, Maximum, Minimum (arithmetic), Eq, Lt, Gt (compare), LogicalAnd, LogicalOr.
  ir::Node* binary(ir::Op op, const Operand& a, const Operand& b);
  // Exp (floating), IsNan, IsInf, LogicalNot (to bool).
  ir::Node* unary(ir::Op op, ir::Node* x);
  ir::Node* cast(ir::Node* x, DType dtype);
  ir::Node* where(ir::Node* cond, const Operand& a, const Operand& b);
  // The i64 range 0, step, ... below stop.
  ir::Node* arange(std::int64_t stop, std::int64_t step);
  // `product` (a MatMul) with its epilogue: inputs a, b, then the bias and residual it names.
  ir::Node* matmul(const ir::Node& product, std::span<ir::Node* const> inputs,
                   const ir::MatmulEpilogue& epilogue);

  // Marks the last node appended as standing for recorded node `recorded` (a rewrite's result).
  void stands_for(std::int32_t recorded, bool live);
  std::uint32_t size() const { return std::uint32_t(graph_.nodes.size()); }

 private:
  ir::NodePtr added(ir::Op op, DType dtype, const Shape& shape);
  // Appends `node` to the graph, which owns it from then on.
  ir::Node* append(ir::NodePtr node);
  ir::Node* scalar(const Scalar& value, DType dtype);
  ir::Node* broadcast(ir::Node* x, const Shape& shape);
  ir::Node* pointwise(ir::Op op, std::initializer_list<const Operand*> operands, DType dtype,
                      DType compute_dtype, DType scalar_dtype);

  Graph& graph_;
  const ir::Node* origin_ = nullptr;
};

}  // namespace lazy::fuse

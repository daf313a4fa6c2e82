#include "fuse/graph_builder.h"

#include <algorithm>

#include "ir/pointwise_dtypes.h"
#include "ir/trace.h"
#include "ir/type_promotion.h"

namespace lazy::fuse {

namespace {

using ir::Node;
using ir::Op;

ir::PromotionOperand promotion_operand(const Operand& x) {
  if (x.number) return ir::promotion_operand_of_scalar(*x.number);
  auto tier = x.node->shape.rank() == 0 ? ir::PromotionOperand::Tier::zero_dim
                                        : ir::PromotionOperand::Tier::dimensioned;
  return {tier, x.node->dtype};
}

// NumPy broadcasting of shapes the caller knows to be compatible.
Shape broadcast_shape(std::span<const Shape* const> shapes) {
  int rank = 0;
  for (const Shape* s : shapes) rank = std::max(rank, s->rank());
  Shape out;
  for (int axis = 0; axis < rank; ++axis) out.push_back(1);
  for (const Shape* s : shapes) {
    const int lead = rank - s->rank();
    for (int axis = 0; axis < s->rank(); ++axis)
      if ((*s)[axis] != 1) out[lead + axis] = (*s)[axis];
  }
  return out;
}

}  // namespace

Node* GraphBuilder::keep(Node* node, std::int32_t recorded, bool live,
                         std::span<Node* const> inputs) {
  bool same = node->trace_index == size() && inputs.size() == node->inputs.size();
  for (std::size_t k = 0; same && k < inputs.size(); ++k) same = inputs[k] == node->inputs[k];
  ir::NodePtr kept(node);
  if (!same) {
    kept = ir::make_node(node->op, node->dtype, node->shape, node->loc);
    kept->compute_dtype = node->compute_dtype;
    kept->attrs = node->attrs;
    kept->scalar = node->scalar;
    kept->inputs.assign(inputs.begin(), inputs.end());
    kept->trace = node->trace;
    kept->trace_index = size();
  }
  graph_.nodes.push_back(std::move(kept));
  graph_.live.push_back(live);
  graph_.recorded.push_back(recorded);
  return graph_.nodes.back().get();
}

void GraphBuilder::stands_for(std::int32_t recorded, bool live) {
  graph_.recorded.back() = recorded;
  graph_.live.back() = live;
}

ir::NodePtr GraphBuilder::added(Op op, DType dtype, const Shape& shape) {
  return ir::make_node(op, dtype, shape, origin_->loc);
}

Node* GraphBuilder::append(ir::NodePtr node) {
  node->trace = origin_->trace;
  node->trace_index = size();
  graph_.nodes.push_back(std::move(node));
  graph_.live.push_back(false);
  graph_.recorded.push_back(Graph::kAdded);
  return graph_.nodes.back().get();
}

Node* GraphBuilder::scalar(const Scalar& value, DType dtype) {
  ir::NodePtr node = added(Op::Scalar, dtype, Shape{});
  node->scalar = value;
  node->attrs.push(std::int64_t(ir::ScalarRole::number));
  return append(std::move(node));
}

Node* GraphBuilder::broadcast(Node* x, const Shape& shape) {
  if (x->shape.rank() == 0 || x->shape == shape) return x;
  ir::NodePtr node = added(Op::Expand, x->dtype, shape);
  node->inputs.push_back(x);
  return append(std::move(node));
}

Node* GraphBuilder::reshape(Node* x, const Shape& shape) {
  if (x->shape == shape) return x;
  ir::NodePtr node = added(Op::Reshape, x->dtype, shape);
  node->inputs.push_back(x);
  return append(std::move(node));
}

Node* GraphBuilder::slice(Node* x, int axis, std::int64_t start, std::int64_t stop) {
  const std::int64_t length = stop - start;
  if (length == x->shape[axis]) return x;
  Shape shape = x->shape;
  shape[axis] = length;
  ir::NodePtr node = added(Op::Slice, x->dtype, shape);
  node->attrs.push(axis);
  node->attrs.push(length == 0 ? 0 : start);
  node->attrs.push(1);
  node->inputs.push_back(x);
  return append(std::move(node));
}

Node* GraphBuilder::reduction(Op op, Node* x, std::uint64_t mask, bool keepdim, DType dtype,
                              DType compute_dtype) {
  Shape shape;
  for (int a = 0; a < x->shape.rank(); ++a) {
    if (!(mask & (std::uint64_t(1) << a))) {
      shape.push_back(x->shape[a]);
    } else if (keepdim) {
      shape.push_back(1);
    }
  }
  ir::NodePtr node = added(op, dtype, shape);
  node->compute_dtype = compute_dtype;
  node->attrs.push(std::int64_t(mask));
  node->attrs.push(keepdim ? 1 : 0);
  node->inputs.push_back(x);
  return append(std::move(node));
}

Node* GraphBuilder::pointwise(Op op, std::initializer_list<const Operand*> operands, DType dtype,
                              DType compute_dtype, DType scalar_dtype) {
  std::vector<const Shape*> shapes;
  for (const Operand* x : operands)
    if (x->node) shapes.push_back(&x->node->shape);
  const Shape shape = broadcast_shape(shapes);
  ir::NodePtr node = added(op, dtype, shape);
  node->compute_dtype = compute_dtype;
  for (const Operand* x : operands)
    node->inputs.push_back(x->node ? broadcast(x->node, shape) : scalar(*x->number, scalar_dtype));
  return append(std::move(node));
}

// Dtypes by the op's row of the op table, as the API records them (api/pointwise_ops.cpp).
Node* GraphBuilder::binary(Op op, const Operand& a, const Operand& b) {
  const std::array operands = {promotion_operand(a), promotion_operand(b)};
  const ir::PointwiseDTypes dtypes = ir::pointwise_dtypes(op, ir::result_type(operands));
  return pointwise(op, {&a, &b}, dtypes.result, dtypes.compute, dtypes.number);
}

Node* GraphBuilder::unary(Op op, Node* x) {
  const ir::PointwiseDTypes dtypes = ir::pointwise_dtypes(op, x->dtype);
  const Operand operand(x);
  return pointwise(op, {&operand}, dtypes.result, dtypes.compute, dtypes.number);
}

Node* GraphBuilder::cast(Node* x, DType dtype) {
  if (x->dtype == dtype) return x;
  const Operand operand(x);
  return pointwise(Op::Cast, {&operand}, dtype, dtype, dtype);
}

Node* GraphBuilder::where(Node* cond, const Operand& a, const Operand& b) {
  const std::array operands = {promotion_operand(a), promotion_operand(b)};
  const DType dtype = ir::result_type(operands);
  const Operand c(cond);
  return pointwise(Op::Where, {&c, &a, &b}, dtype, dtype, ir::compute_type_of(dtype));
}

Node* GraphBuilder::arange(std::int64_t stop, std::int64_t step) {
  ir::NodePtr node = added(Op::Arange, DType::i64, Shape{stop <= 0 ? 0 : (stop - 1) / step + 1});
  node->compute_dtype = DType::i64;
  node->inputs.push_back(scalar(std::int64_t(0), DType::i64));
  node->inputs.push_back(scalar(step, DType::i64));
  return append(std::move(node));
}

Node* GraphBuilder::matmul(const ir::Node& product, std::span<Node* const> inputs,
                           const ir::MatmulEpilogue& epilogue) {
  set_origin(product);
  ir::NodePtr node = added(Op::MatMul, product.dtype, product.shape);
  node->compute_dtype = product.compute_dtype;
  node->attrs = ir::matmul_attrs(epilogue);
  node->inputs.assign(inputs.begin(), inputs.end());
  return append(std::move(node));
}

}  // namespace lazy::fuse

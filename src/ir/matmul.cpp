#include "ir/matmul.h"

namespace lazy::ir {

std::string_view matmul_activation_name(MatmulActivation activation) {
  switch (activation) {
    case MatmulActivation::none:
      return "none";
    case MatmulActivation::relu:
      return "relu";
    case MatmulActivation::gelu_tanh:
      return "gelu_tanh";
    case MatmulActivation::gelu_tanh_grad:
      return "gelu_tanh_grad";
  }
  return "?";
}

Attrs matmul_attrs(const MatmulEpilogue& epilogue) {
  Attrs attrs;
  attrs.push(std::int64_t(epilogue.activation));
  attrs.push(epilogue.bias);
  attrs.push(epilogue.residual);
  attrs.push(epilogue.tf32);
  return attrs;
}

MatmulEpilogue matmul_epilogue(const Node& node) {
  return {MatmulActivation(node.attrs[0]), node.attrs[1] != 0, node.attrs[2] != 0,
          node.attrs[3] != 0};
}

MatmulSizes matmul_sizes(const Node& node) {
  const Shape& a = node.inputs[0]->shape;
  const Shape& b = node.inputs[1]->shape;
  return {a[a.rank() - 2], b[b.rank() - 1], a[a.rank() - 1]};
}

}  // namespace lazy::ir

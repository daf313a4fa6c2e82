#include "ref/matmul.h"

#include <algorithm>
#include <vector>

#include "ir/dtype_codec.h"
#include "ir/matmul.h"
#include "ir/op_reference.h"

namespace lazy::ref {

namespace {

// One matrix of a [batch..., rows, cols] value, read through its layout where it lies (an
// operand broadcast over the batch is a stride of 0, not a copy).
struct Matrix {
  const std::vector<double>* elements;
  std::int64_t offset, row_stride, col_stride;

  double at(std::int64_t row, std::int64_t col) const {
    return (*elements)[std::size_t(offset + row * row_stride + col * col_stride)];
  }
};

Matrix matrix_of(const Value& value, std::int64_t batch) {
  const ir::Layout& layout = value.layout;
  const int rank = layout.shape.rank();
  std::int64_t offset = layout.offset;
  for (int axis = rank - 3; axis >= 0; --axis) {
    offset += (batch % layout.shape[axis]) * layout.strides[axis];
    batch /= layout.shape[axis];
  }
  return {&value.buffer->floats, offset, layout.strides[rank - 2], layout.strides[rank - 1]};
}

// The same host functions as the Relu, GeluTanh and GeluTanhGrad ops.
double activate(ir::MatmulActivation activation, double v, double aux) {
  switch (activation) {
    case ir::MatmulActivation::none:
      return v;
    case ir::MatmulActivation::relu:
      return ir::reference::relu(v);
    case ir::MatmulActivation::gelu_tanh:
      return ir::reference::gelu_tanh(v);
    case ir::MatmulActivation::gelu_tanh_grad:
      return ir::reference::gelu_tanh_grad(v, aux);
  }
  return v;
}

}  // namespace

Value evaluate_matmul(const ir::Node& node, std::span<const Value> inputs) {
  const ir::MatmulEpilogue epilogue = ir::matmul_epilogue(node);
  const auto [m, n, k] = ir::matmul_sizes(node);
  std::vector<double> bias, residual;
  if (const int i = ir::matmul_bias_input(epilogue); i >= 0)
    bias = gather_floats(inputs[i], Shape{n}, node.inputs[i]->dtype);
  if (const int i = ir::matmul_residual_input(epilogue); i >= 0)
    residual = gather_floats(inputs[i], node.shape, node.inputs[i]->dtype);
  std::vector<double> aux;
  if (const int i = ir::matmul_aux_input(epilogue); i >= 0)
    aux = gather_floats(inputs[i], node.shape, node.inputs[i]->dtype);

  auto out = std::make_shared<Buffer>(node.dtype, node.shape.numel());
  const std::int64_t batches = m * n == 0 ? 0 : node.shape.numel() / (m * n);
  std::vector<double> row(static_cast<std::size_t>(n));
  for (std::int64_t batch = 0; batch < batches; ++batch) {
    const Matrix a = matrix_of(inputs[0], batch);
    const Matrix b = matrix_of(inputs[1], batch);
    for (std::int64_t i = 0; i < m; ++i) {
      // Row i of the product, accumulated along rows of b (K = 0 leaves zeros).
      std::fill(row.begin(), row.end(), 0.0);
      for (std::int64_t p = 0; p < k; ++p) {
        const double left = a.at(i, p);
        for (std::int64_t j = 0; j < n; ++j) row[std::size_t(j)] += left * b.at(p, j);
      }
      const std::int64_t first = (batch * m + i) * n;
      for (std::int64_t j = 0; j < n; ++j) {
        double v = row[std::size_t(j)];
        if (epilogue.bias) v += bias[std::size_t(j)];
        if (epilogue.residual) v += residual[std::size_t(first + j)];
        const double at_aux = aux.empty() ? 0 : aux[std::size_t(first + j)];
        out->floats[std::size_t(first + j)] =
            ir::round_to_dtype(activate(epilogue.activation, v, at_aux), node.dtype);
      }
    }
  }
  return {std::move(out), ir::Layout::contiguous(node.shape)};
}

}  // namespace lazy::ref

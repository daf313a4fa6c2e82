#include "autodiff/product_rules.h"

#include "lazy/linalg.h"

namespace lazy::autodiff {

namespace {

using ir::Op;

// Whether `operand` is a matrix broadcast over the batch axes (a weight under `linear`): an
// Expand of a tensor whose elements are those of its last two axes.
bool broadcast_matrix(const ir::Node& operand) {
  if (operand.op != Op::Expand) return false;
  const Shape& source = operand.inputs[0]->shape;
  const int rank = source.rank();
  return rank >= 2 && source.numel() == source[rank - 2] * source[rank - 1] &&
         source[rank - 2] == operand.shape[operand.shape.rank() - 2] &&
         source[rank - 1] == operand.shape[operand.shape.rank() - 1];
}

// Whether `operand` is its input with the last two axes swapped: a transposed weight under
// `linear`, or the keys under q @ k^T.
bool swaps_last_two(const ir::Node& operand) {
  const int rank = operand.attrs.count;
  if (operand.op != Op::Permute || rank < 2) return false;
  for (int axis = 0; axis + 2 < rank; ++axis)
    if (operand.attrs[axis] != axis) return false;
  return operand.attrs[rank - 2] == rank - 1 && operand.attrs[rank - 1] == rank - 2;
}

// a @ b; when `transposed`, computed as (b^T @ a^T)^T, so that its memory is laid out as the
// transposed operand's source and what reads it (an optimizer) reads rows, not columns.
Tensor product(const Tensor& a, const Tensor& b, bool transposed, std::source_location loc) {
  if (!transposed) return lazy::matmul(a, b, loc);
  return lazy::matmul(b.transpose(-1, -2, loc), a.transpose(-1, -2, loc), loc)
      .transpose(-1, -2, loc);
}

}  // namespace

InputCotangents matmul_vjp(const VjpArgs& a) {
  // The recorded product has no epilogue (the partitioner adds them later): a [.., m, k] times
  // b [.., k, n], batch axes already expanded to one shape.
  const Tensor &x = a.inputs[0], &y = a.inputs[1];
  const ir::Node &left = *a.node.inputs[0], &right = *a.node.inputs[1];
  return {if_wanted(a, 0,
                    [&] {
                      return product(a.cotangent, y.transpose(-1, -2, a.loc), swaps_last_two(left),
                                     a.loc);
                    }),
          if_wanted(a, 1, [&] {
            if (a.node.shape.rank() > 2 && broadcast_matrix(right)) {
              // One product over every row of the batch (k = batch * m) in the matrix's own shape,
              // rather than a product per batch element summed afterwards.
              const ir::Node& matrix = *right.inputs[0];
              const Shape& source = matrix.shape;
              const std::int64_t k = source[source.rank() - 2], n = source[source.rank() - 1];
              // Counted, not -1: a size of 0 leaves -1 undetermined.
              const Shape& shape = x.shape(a.loc);
              std::int64_t count = 1;
              for (int axis = 0; axis + 1 < shape.rank(); ++axis) count *= shape[axis];
              const Tensor rows = x.reshape({count, k}, a.loc);
              const Tensor g = a.cotangent.reshape({count, n}, a.loc);
              return product(rows.transpose(0, 1, a.loc), g, swaps_last_two(matrix), a.loc)
                  .reshape(source, a.loc);
            }
            return product(x.transpose(-1, -2, a.loc), a.cotangent, swaps_last_two(right), a.loc);
          })};
}

}  // namespace lazy::autodiff

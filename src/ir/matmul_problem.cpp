#include "ir/matmul_problem.h"

#include <algorithm>

namespace lazy::ir {
namespace {

// One operand's last two axes as a row-major [rows, cols] matrix with its strides.
struct RowMajorMatrix {
  std::int64_t rows, cols;
  std::int64_t row_stride, col_stride;
};

RowMajorMatrix matrix_of(const Layout& layout) {
  const int rank = layout.shape.rank();
  return {layout.shape[rank - 2], layout.shape[rank - 1], layout.strides[rank - 2],
          layout.strides[rank - 1]};
}

// A column-major operand's leading dimension when it has one column: any value from its rows up
// reads the same elements, so the smallest valid one.
std::int64_t smallest_ld(std::int64_t rows) {
  return std::max<std::int64_t>(rows, 1);
}

// A row-major [R, C] matrix read as a column-major operand. With unit column stride it is the
// column-major C x R matrix with ld = row stride (not transposed): preferred, since it is the
// only form a residual may take. With unit row stride it is the column-major R x C matrix with
// ld = column stride, which op() transposes. A size-1 axis has no meaningful stride, so it
// counts as unit; ld must cover the rows so that columns do not overlap (and be positive, so a
// broadcast axis of size > 1, stride 0, never maps).
std::optional<MatrixOperand> as_column_major(const RowMajorMatrix& x, bool transposable) {
  if (x.col_stride == 1 || x.cols == 1) {
    const std::int64_t ld = x.rows == 1 ? smallest_ld(x.cols) : x.row_stride;
    if (ld >= smallest_ld(x.cols)) return MatrixOperand{x.cols, x.rows, ld, false, 0, 0};
  }
  if (transposable && (x.row_stride == 1 || x.rows == 1)) {
    const std::int64_t ld = x.cols == 1 ? smallest_ld(x.rows) : x.col_stride;
    if (ld >= smallest_ld(x.rows)) return MatrixOperand{x.rows, x.cols, ld, true, 0, 0};
  }
  return std::nullopt;
}

// The one stride that steps through the batch axes (all but the last two) in row-major order,
// size-1 axes left out; nullopt when they do not collapse into one, or step backwards.
std::optional<std::int64_t> batch_stride(const Layout& layout) {
  const int batch_axes = layout.shape.rank() - 2;
  std::optional<std::int64_t> stride;  // of the innermost kept axis seen so far
  std::int64_t span = 1;               // elements of the kept axes inside the current one
  for (int axis = batch_axes - 1; axis >= 0; --axis) {
    const std::int64_t size = layout.shape[axis];
    if (size == 1) continue;
    if (!stride) {
      stride = layout.strides[axis];
    } else if (layout.strides[axis] != *stride * span) {
      return std::nullopt;
    }
    span *= size;
  }
  if (stride.value_or(0) < 0) return std::nullopt;
  return stride.value_or(0);
}

std::int64_t batch_count(const Layout& layout) {
  std::int64_t count = 1;
  for (int axis = 0; axis < layout.shape.rank() - 2; ++axis) count *= layout.shape[axis];
  return count;
}

// The operand of a product that computes nothing (a zero size): any valid layout will do.
MatrixOperand unread_operand(std::int64_t rows, std::int64_t cols, bool transposed) {
  return {rows, cols, smallest_ld(rows), transposed, 0, 0};
}

// The operand for `layout` with its batch stride and offset, or nullopt when it does not map.
std::optional<MatrixOperand> map_operand(const Layout& layout, bool transposable,
                                         std::int64_t batch) {
  std::optional<MatrixOperand> operand = as_column_major(matrix_of(layout), transposable);
  if (!operand) return std::nullopt;
  if (batch > 1) {
    const std::optional<std::int64_t> stride = batch_stride(layout);
    if (!stride) return std::nullopt;
    operand->batch_stride = *stride;
  }
  operand->offset = layout.offset;
  return operand;
}

// Whether the batch of a non-transposed operand whose columns are our rows (`rows` of them per
// batch) sits in memory as more columns at the same ld; widens it to all of them when it does.
// With one row per batch, the batch stride itself becomes the ld.
bool fold_columns(MatrixOperand& operand, std::int64_t rows, std::int64_t batch) {
  if (operand.transposed) return false;
  const std::int64_t ld = rows == 1 ? operand.batch_stride : operand.ld;
  if (ld < smallest_ld(operand.rows) || operand.batch_stride != rows * ld) return false;
  operand.ld = ld;
  operand.cols = rows * batch;
  operand.batch_stride = 0;
  return true;
}

// Makes a batched product with one b for every batch a single product with batch * M rows,
// when a (and the residual) hold the batches as consecutive rows.
void fold_batch_into_rows(MatmulProblem& problem) {
  if (problem.batch <= 1 || problem.a.batch_stride != 0) return;
  MatrixOperand b = problem.b;
  std::optional<MatrixOperand> c = problem.c;
  if (!fold_columns(b, problem.n, problem.batch)) return;
  if (c && !fold_columns(*c, problem.n, problem.batch)) return;
  problem.b = b;
  problem.c = c;
  problem.d.cols = problem.n * problem.batch;
  problem.d.batch_stride = 0;
  problem.n *= problem.batch;
  problem.batch = 1;
  problem.a.batch_stride = 0;
}

}  // namespace

MatmulMapping map_matmul(const Layout& a, const Layout& b, const Layout* residual) {
  const RowMajorMatrix a_matrix = matrix_of(a);
  const RowMajorMatrix b_matrix = matrix_of(b);
  MatmulProblem problem;
  problem.batch = batch_count(a);
  problem.m = b_matrix.cols;
  problem.n = a_matrix.rows;
  problem.k = a_matrix.cols;
  problem.d = {problem.m, problem.n, smallest_ld(problem.m), false, problem.m * problem.n, 0};
  if (problem.batch <= 1) problem.d.batch_stride = 0;

  const bool computes_nothing = problem.batch == 0 || problem.m == 0 || problem.n == 0;
  if (computes_nothing || problem.k == 0) {
    // Nothing reads a and b: the runtime skips the call, or (k == 0) reads zeros instead.
    problem.a = unread_operand(problem.m, problem.k, false);
    problem.b = unread_operand(problem.k, problem.n, false);
  } else {
    // Our a is the call's B and our b its A.
    std::optional<MatrixOperand> call_b = map_operand(a, true, problem.batch);
    if (!call_b) return {std::nullopt, MatmulOperand::a};
    std::optional<MatrixOperand> call_a = map_operand(b, true, problem.batch);
    if (!call_a) return {std::nullopt, MatmulOperand::b};
    problem.a = *call_a;
    problem.b = *call_b;
  }
  if (residual != nullptr) {
    if (computes_nothing) {
      problem.c = unread_operand(problem.m, problem.n, false);
    } else {
      problem.c = map_operand(*residual, false, problem.batch);
      if (!problem.c) return {std::nullopt, MatmulOperand::residual};
    }
  }
  if (!computes_nothing && problem.k > 0) fold_batch_into_rows(problem);
  return {problem, std::nullopt};
}

bool bias_maps(const Layout& bias) {
  return bias.shape.rank() == 1 && (bias.shape[0] <= 1 || bias.strides[0] == 1);
}

}  // namespace lazy::ir

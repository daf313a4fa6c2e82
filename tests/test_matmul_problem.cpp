// How MatMul operands, as they sit in memory, map onto one cuBLASLt call (ir/matmul_problem.h):
// the swap to column-major, transposes, leading dimensions, batch strides, the batch folded into
// rows, empty sizes, and the operands no call expresses.
#include "ir/matmul_problem.h"

#include <gtest/gtest.h>

#include <initializer_list>
#include <numeric>
#include <ostream>
#include <random>
#include <vector>

#include "layout_test_support.h"

namespace lazy::ir {

void PrintTo(const MatrixOperand& x, std::ostream* out) {
  *out << "{rows " << x.rows << ", cols " << x.cols << ", ld " << x.ld
       << (x.transposed ? ", transposed" : "") << ", batch stride " << x.batch_stride << ", offset "
       << x.offset << "}";
}

}  // namespace lazy::ir

namespace {

using lazy::Shape;
using lazy::ir::Layout;
using lazy::ir::map_matmul;
using lazy::ir::MatmulMapping;
using lazy::ir::MatmulOperand;
using lazy::ir::MatmulProblem;
using lazy::ir::MatrixOperand;

using lazy_test::contiguous;
using lazy_test::strided;

// The problem a mapping gives; fails the test when an operand did not map.
MatmulProblem problem_of(const Layout& a, const Layout& b, const Layout* residual = nullptr) {
  MatmulMapping mapping = map_matmul(a, b, residual);
  EXPECT_FALSE(mapping.inexpressible.has_value());
  EXPECT_TRUE(mapping.problem.has_value());
  return mapping.problem.value_or(MatmulProblem{});
}

std::optional<MatmulOperand> inexpressible(const Layout& a, const Layout& b,
                                           const Layout* residual = nullptr) {
  MatmulMapping mapping = map_matmul(a, b, residual);
  EXPECT_EQ(mapping.problem.has_value(), !mapping.inexpressible.has_value());
  return mapping.inexpressible;
}

// {rows, cols, ld, transposed, batch stride, offset}
MatrixOperand operand(std::int64_t rows, std::int64_t cols, std::int64_t ld, bool transposed,
                      std::int64_t batch_stride = 0, std::int64_t offset = 0) {
  return {rows, cols, ld, transposed, batch_stride, offset};
}

TEST(MatmulProblem, ContiguousOperandsSwapIntoColumnMajor) {
  // [3, 4] @ [4, 5]: the call computes the 5 x 3 column-major result from b (5 x 4) and a (4 x 3).
  MatmulProblem p = problem_of(contiguous({3, 4}), contiguous({4, 5}));
  EXPECT_EQ(p.batch, 1);
  EXPECT_EQ(p.m, 5);
  EXPECT_EQ(p.n, 3);
  EXPECT_EQ(p.k, 4);
  EXPECT_EQ(p.a, operand(5, 4, 5, false));
  EXPECT_EQ(p.b, operand(4, 3, 4, false));
  EXPECT_EQ(p.d, operand(5, 3, 5, false));
  EXPECT_FALSE(p.c.has_value());
}

TEST(MatmulProblem, TransposedWeightIsReadTransposedWithoutCopy) {
  // x @ w.T with w [N=5, K=4] contiguous: b is [4, 5] with strides (1, 4).
  MatmulProblem p = problem_of(contiguous({3, 4}), strided({4, 5}, {1, 4}));
  EXPECT_EQ(p.a, operand(4, 5, 4, true));
  EXPECT_EQ(p.b, operand(4, 3, 4, false));
}

TEST(MatmulProblem, TransposedLeftOperandIsReadTransposed) {
  // x.T @ w with x [K=4, M=3] contiguous: a is [3, 4] with strides (1, 3).
  MatmulProblem p = problem_of(strided({3, 4}, {1, 3}), contiguous({4, 5}));
  EXPECT_EQ(p.b, operand(3, 4, 3, true));
}

TEST(MatmulProblem, SliceWithUnitInnerStrideKeepsItsRowStrideAsLd) {
  // Columns 2..6 of a [6, 10] matrix, and rows 1..4 of a [8, 16] one.
  MatmulProblem p = problem_of(strided({6, 5}, {10, 1}, 2), strided({5, 16}, {16, 1}, 16));
  EXPECT_EQ(p.b, operand(5, 6, 10, false, 0, 2));
  EXPECT_EQ(p.a, operand(16, 5, 16, false, 0, 16));
}

TEST(MatmulProblem, SharedRightOperandFoldsTheBatchIntoRows) {
  // The linear layer x[8, 16, 32] @ W.T, W [64, 32]: one 64 x 128 product, not 8 of them.
  MatmulProblem p = problem_of(contiguous({8, 16, 32}), strided({8, 32, 64}, {0, 1, 32}));
  EXPECT_EQ(p.batch, 1);
  EXPECT_EQ(p.m, 64);
  EXPECT_EQ(p.n, 128);
  EXPECT_EQ(p.k, 32);
  EXPECT_EQ(p.a, operand(32, 64, 32, true));
  EXPECT_EQ(p.b, operand(32, 128, 32, false));
  EXPECT_EQ(p.d, operand(64, 128, 64, false));
}

TEST(MatmulProblem, FoldedRowsKeepTheLeftOperandsLd) {
  // A [3, 4, 8] slice of a [3, 4, 20] tensor: its rows are 20 apart across batches too.
  MatmulProblem p = problem_of(strided({3, 4, 8}, {80, 20, 1}, 5), strided({3, 8, 5}, {0, 5, 1}));
  EXPECT_EQ(p.batch, 1);
  EXPECT_EQ(p.n, 12);
  EXPECT_EQ(p.b, operand(8, 12, 20, false, 0, 5));
}

TEST(MatmulProblem, OneRowPerBatchFoldsWithTheBatchStrideAsLd) {
  MatmulProblem p = problem_of(strided({3, 1, 8}, {10, 99, 1}), strided({3, 8, 5}, {0, 5, 1}));
  EXPECT_EQ(p.batch, 1);
  EXPECT_EQ(p.n, 3);
  EXPECT_EQ(p.b, operand(8, 3, 10, false));
}

TEST(MatmulProblem, StrideZeroBatchThatCannotFoldStaysBatched) {
  // a transposed in each batch: its rows are not one run, so 3 products share one b.
  MatmulProblem p = problem_of(strided({3, 4, 8}, {32, 1, 4}), strided({3, 8, 5}, {0, 5, 1}));
  EXPECT_EQ(p.batch, 3);
  EXPECT_EQ(p.a, operand(5, 8, 5, false, 0));
  EXPECT_EQ(p.b, operand(4, 8, 4, true, 32));
  EXPECT_EQ(p.d, operand(5, 4, 5, false, 20));
}

TEST(MatmulProblem, RowsWithAGapBetweenBatchesStayBatched) {
  // Each batch is a [4, 8] matrix of a [3, 5, 8] tensor: a row of gap after each.
  MatmulProblem p = problem_of(strided({3, 4, 8}, {40, 8, 1}), strided({3, 8, 5}, {0, 5, 1}));
  EXPECT_EQ(p.batch, 3);
  EXPECT_EQ(p.b, operand(8, 4, 8, false, 40));
}

TEST(MatmulProblem, BatchedRightOperandDoesNotFold) {
  MatmulProblem p = problem_of(contiguous({3, 4, 8}), contiguous({3, 8, 5}));
  EXPECT_EQ(p.batch, 3);
  EXPECT_EQ(p.a, operand(5, 8, 5, false, 40));
  EXPECT_EQ(p.b, operand(8, 4, 8, false, 32));
}

TEST(MatmulProblem, BatchAxesThatCollapseBecomeOneBatch) {
  MatmulProblem p = problem_of(contiguous({2, 3, 4, 8}), contiguous({2, 3, 8, 5}));
  EXPECT_EQ(p.batch, 6);
  EXPECT_EQ(p.a.batch_stride, 40);
  EXPECT_EQ(p.b.batch_stride, 32);
  EXPECT_EQ(p.d.batch_stride, 20);
}

TEST(MatmulProblem, SizeOneBatchAxesAreLeftOut) {
  // The size-1 axes' strides say nothing.
  MatmulProblem p = problem_of(strided({2, 1, 3, 4, 8}, {96, 7, 32, 8, 1}),
                               strided({1, 2, 3, 8, 5}, {0, 120, 40, 5, 1}));
  EXPECT_EQ(p.batch, 6);
  EXPECT_EQ(p.a.batch_stride, 40);
  EXPECT_EQ(p.b.batch_stride, 32);
}

TEST(MatmulProblem, BatchAxesThatDoNotCollapseAreInexpressible) {
  // b is a permuted [3, 2, 8, 5]: its batch axes step 40 and 80, not one stride.
  EXPECT_EQ(inexpressible(contiguous({2, 3, 4, 8}), strided({2, 3, 8, 5}, {40, 80, 5, 1})),
            MatmulOperand::b);
  // a broadcast along one batch axis only.
  EXPECT_EQ(inexpressible(strided({2, 3, 4, 8}, {0, 32, 8, 1}), contiguous({2, 3, 8, 5})),
            MatmulOperand::a);
}

TEST(MatmulProblem, BroadcastAlongEveryBatchAxisIsStrideZero) {
  MatmulProblem p = problem_of(strided({2, 3, 4, 8}, {0, 0, 8, 1}), contiguous({2, 3, 8, 5}));
  EXPECT_EQ(p.batch, 6);
  EXPECT_EQ(p.b.batch_stride, 0);
}

TEST(MatmulProblem, BackwardBatchStrideIsInexpressible) {
  EXPECT_EQ(inexpressible(strided({3, 4, 8}, {-32, 8, 1}, 64), contiguous({3, 8, 5})),
            MatmulOperand::a);
}

TEST(MatmulProblem, SizeOneMatrixAxesTakeTheUntransposedFormAndAValidLd) {
  // M = 1 (a row vector, broadcast rows have stride 0), N = 1, K = 1.
  MatmulProblem row = problem_of(strided({1, 8}, {0, 1}), contiguous({8, 5}));
  EXPECT_EQ(row.b, operand(8, 1, 8, false));
  MatmulProblem column = problem_of(contiguous({3, 8}), strided({8, 1}, {1, 1}));
  EXPECT_EQ(column.a, operand(1, 8, 1, false));
  MatmulProblem outer = problem_of(strided({3, 1}, {1, 1}), strided({1, 5}, {0, 1}));
  EXPECT_EQ(outer.k, 1);
  EXPECT_EQ(outer.b, operand(1, 3, 1, false));
  EXPECT_EQ(outer.a, operand(5, 1, 5, false));
  // A column of a transposed matrix: unit stride along K.
  MatmulProblem transposed_column = problem_of(contiguous({3, 8}), strided({8, 1}, {1, 8}));
  EXPECT_EQ(transposed_column.a, operand(1, 8, 1, false));
}

TEST(MatmulProblem, EmptyMatrixAxesGiveAnEmptyProblem) {
  MatmulProblem no_rows = problem_of(contiguous({0, 4}), contiguous({4, 5}));
  EXPECT_EQ(no_rows.n, 0);
  EXPECT_GE(no_rows.b.ld, 1);
  MatmulProblem no_columns = problem_of(contiguous({3, 4}), contiguous({4, 0}));
  EXPECT_EQ(no_columns.m, 0);
  EXPECT_GE(no_columns.a.ld, 1);
  EXPECT_GE(no_columns.d.ld, 1);
  MatmulProblem no_batch = problem_of(contiguous({0, 3, 4}), contiguous({0, 4, 5}));
  EXPECT_EQ(no_batch.batch, 0);
}

TEST(MatmulProblem, EmptyInnerAxisReadsNeitherOperand) {
  // Whatever a's and b's strides, a product over K = 0 reads neither.
  MatmulProblem p = problem_of(strided({3, 0}, {0, 0}), strided({0, 5}, {7, 3}));
  EXPECT_EQ(p.k, 0);
  EXPECT_EQ(p.m, 5);
  EXPECT_EQ(p.n, 3);
  EXPECT_GE(p.a.ld, 1);
  EXPECT_GE(p.b.ld, 1);
}

TEST(MatmulProblem, EmptyInnerAxisStillMapsTheResidual) {
  Layout residual = strided({3, 5}, {1, 3});  // transposed: C has no op()
  EXPECT_EQ(inexpressible(contiguous({3, 0}), contiguous({0, 5}), &residual),
            MatmulOperand::residual);
  Layout dense = contiguous({3, 5});
  EXPECT_EQ(problem_of(contiguous({3, 0}), contiguous({0, 5}), &dense).c, operand(5, 3, 5, false));
}

TEST(MatmulProblem, ResidualIsTheCallsC) {
  Layout residual = strided({3, 5}, {8, 1}, 4);
  MatmulProblem p = problem_of(contiguous({3, 4}), contiguous({4, 5}), &residual);
  ASSERT_TRUE(p.c.has_value());
  EXPECT_EQ(*p.c, operand(5, 3, 8, false, 0, 4));
}

TEST(MatmulProblem, TransposedResidualIsInexpressible) {
  Layout residual = strided({3, 5}, {1, 3});
  EXPECT_EQ(inexpressible(contiguous({3, 4}), contiguous({4, 5}), &residual),
            MatmulOperand::residual);
}

TEST(MatmulProblem, DenseResidualFoldsWithTheRows) {
  Layout residual = contiguous({8, 16, 64});
  MatmulProblem p =
      problem_of(contiguous({8, 16, 32}), strided({8, 32, 64}, {0, 1, 32}), &residual);
  EXPECT_EQ(p.batch, 1);
  EXPECT_EQ(*p.c, operand(64, 128, 64, false));
}

TEST(MatmulProblem, ResidualSharedAcrossBatchesKeepsTheProductBatched) {
  // A [16, 64] residual broadcast over the batch: its rows do not continue across batches.
  Layout residual = strided({8, 16, 64}, {0, 64, 1});
  MatmulProblem p =
      problem_of(contiguous({8, 16, 32}), strided({8, 32, 64}, {0, 1, 32}), &residual);
  EXPECT_EQ(p.batch, 8);
  EXPECT_EQ(*p.c, operand(64, 16, 64, false, 0));
  EXPECT_EQ(p.d.batch_stride, 16 * 64);
}

TEST(MatmulProblem, BroadcastMatrixAxisIsInexpressible) {
  // A bias row expanded to [4, 5] and used as b: stride 0 along K.
  EXPECT_EQ(inexpressible(contiguous({3, 4}), strided({4, 5}, {0, 1})), MatmulOperand::b);
}

TEST(MatmulProblem, NoUnitStrideIsInexpressible) {
  // Every other column of a [3, 16] matrix.
  EXPECT_EQ(inexpressible(strided({3, 8}, {16, 2}), contiguous({8, 5})), MatmulOperand::a);
}

TEST(MatmulProblem, OverlappingRowsAreInexpressible) {
  // Rows 4 apart but 8 long.
  EXPECT_EQ(inexpressible(strided({3, 8}, {4, 1}), contiguous({8, 5})), MatmulOperand::a);
}

TEST(MatmulProblem, FirstInexpressibleOperandIsReported) {
  Layout residual = strided({3, 5}, {1, 3});
  EXPECT_EQ(inexpressible(strided({3, 8}, {16, 2}), strided({8, 5}, {0, 1}), &residual),
            MatmulOperand::a);
  EXPECT_EQ(inexpressible(contiguous({3, 8}), strided({8, 5}, {0, 1}), &residual),
            MatmulOperand::b);
}

TEST(MatmulProblem, BiasMapsWhenContiguous) {
  using lazy::ir::bias_maps;
  EXPECT_TRUE(bias_maps(contiguous({5})));
  EXPECT_TRUE(bias_maps(strided({5}, {1}, 3)));
  EXPECT_TRUE(bias_maps(strided({1}, {0})));
  EXPECT_FALSE(bias_maps(strided({5}, {2})));
  EXPECT_FALSE(bias_maps(strided({5}, {0})));
}

// ---- every mapped problem reads the elements the product reads ----

// A layout of `shape` over a buffer: axes laid out in a random order, some padded, some batch
// axes broadcast, at a random offset.
Layout random_layout(const Shape& shape, std::mt19937& random) {
  Layout layout;
  layout.shape = shape;
  std::vector<int> order(shape.rank());
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), random);
  std::int64_t stride = 1;
  for (int axis : order) {
    layout.strides[axis] = stride;
    stride *= shape[axis] + (random() % 4 == 0 ? 1 : 0);
  }
  for (int axis = 0; axis < shape.rank() - 2; ++axis)
    if (random() % 3 == 0) layout.strides[axis] = 0;
  layout.offset = random() % 3;
  return layout;
}

std::int64_t address(const Layout& layout, std::span<const std::int64_t> index) {
  std::int64_t at = layout.offset;
  for (std::size_t axis = 0; axis < index.size(); ++axis) at += index[axis] * layout.strides[axis];
  return at;
}

// Element (row, col) of op(x) in batch `batch`, as cuBLASLt addresses it.
std::int64_t call_address(const MatrixOperand& x, std::int64_t batch, std::int64_t row,
                          std::int64_t col) {
  const std::int64_t in_matrix = x.transposed ? col + row * x.ld : row + col * x.ld;
  return x.offset + batch * x.batch_stride + in_matrix;
}

void expect_valid_ld(const MatrixOperand& x) {
  EXPECT_GE(x.ld, std::max<std::int64_t>(x.rows, 1));
}

// Checks that for every element of the result and every k, the call reads the elements of a,
// b and the residual that a @ b + residual reads, and writes the dense result's element.
void expect_same_elements(const Layout& a, const Layout& b, const Layout& residual,
                          const MatmulProblem& p) {
  const int rank = a.shape.rank();
  const std::int64_t rows = a.shape[rank - 2], cols = b.shape[rank - 1], inner = a.shape[rank - 1];
  const std::int64_t batches = p.batch * p.n / std::max<std::int64_t>(rows, 1);
  for (const MatrixOperand* x : {&p.a, &p.b, &p.d, &*p.c}) expect_valid_ld(*x);
  std::vector<std::int64_t> index(rank);
  for (std::int64_t flat = 0; flat < batches; ++flat) {
    std::int64_t rest = flat;
    for (int axis = rank - 3; axis >= 0; --axis) {
      index[axis] = rest % a.shape[axis];
      rest /= a.shape[axis];
    }
    // Folded: the batch is part of the call's columns.
    const std::int64_t batch = p.batch == 1 ? 0 : flat;
    for (std::int64_t row = 0; row < rows; ++row) {
      const std::int64_t j = p.batch == 1 ? flat * rows + row : row;
      for (std::int64_t col = 0; col < cols; ++col) {
        index[rank - 2] = row;
        index[rank - 1] = col;
        ASSERT_EQ(call_address(*p.c, batch, col, j), address(residual, index));
        ASSERT_EQ(call_address(p.d, batch, col, j), (flat * rows + row) * cols + col);
        for (std::int64_t k = 0; k < inner; ++k) {
          index[rank - 2] = row;
          index[rank - 1] = k;
          ASSERT_EQ(call_address(p.b, batch, k, j), address(a, index));
          index[rank - 2] = k;
          index[rank - 1] = col;
          ASSERT_EQ(call_address(p.a, batch, col, k), address(b, index));
        }
      }
    }
  }
}

TEST(MatmulProblem, RandomLayoutsReadTheElementsTheProductReads) {
  std::mt19937 random(13);
  int mapped = 0, folded = 0, batched = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    std::vector<std::int64_t> batch_dims(random() % 3);
    for (std::int64_t& dim : batch_dims) dim = 1 + random() % 3;
    auto shape_of = [&](std::int64_t rows, std::int64_t cols) {
      Shape shape;
      for (std::int64_t dim : batch_dims) shape.push_back(dim);
      shape.push_back(rows);
      shape.push_back(cols);
      return shape;
    };
    const std::int64_t m = 1 + random() % 4, n = 1 + random() % 4, k = 1 + random() % 4;
    const Layout a = random_layout(shape_of(m, k), random);
    Layout b = random_layout(shape_of(k, n), random);
    // A third of the trials share one b across the batch, as a linear layer does.
    if (trial % 3 == 0)
      for (std::size_t axis = 0; axis < batch_dims.size(); ++axis) b.strides[axis] = 0;
    const Layout residual = random_layout(shape_of(m, n), random);
    MatmulMapping mapping = map_matmul(a, b, &residual);
    if (!mapping.problem) continue;
    ++mapped;
    std::int64_t batch = 1;
    for (std::int64_t dim : batch_dims) batch *= dim;
    if (batch > 1) ++(mapping.problem->batch == 1 ? folded : batched);
    expect_same_elements(a, b, residual, *mapping.problem);
    if (testing::Test::HasFatalFailure()) {
      ADD_FAILURE() << "trial " << trial;
      return;
    }
  }
  // The layouts exercise every form.
  EXPECT_GT(mapped, 1000);
  EXPECT_GT(folded, 20);
  EXPECT_GT(batched, 200);
}

}  // namespace

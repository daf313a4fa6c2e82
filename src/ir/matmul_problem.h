// How a MatMul node's operands, as they sit in memory, map onto one cuBLASLt call: transpose
// flags, leading dimensions and one batch stride per operand, so transposed, sliced and broadcast
// operands need no copy. The partitioner asks whether an operand's layout maps (and makes a dense
// copy of one that does not); the runtime builds the call's descriptors from the mapping.
//
// cuBLASLt is column-major. A row-major [M, N] result is the column-major N x M matrix D^T, and
// D^T = B^T A^T: the call's first operand is our b, its second our a.
#pragma once

#include <cstdint>
#include <optional>

#include "ir/layout.h"

namespace lazy::ir {

// One operand as cuBLASLt sees it: a column-major rows x cols matrix (before op()) with leading
// dimension ld, transposed or not by op(), repeated with batch_stride (0: the same matrix for
// every batch). All in elements; offset is where batch 0 starts in the storage.
struct MatrixOperand {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::int64_t ld = 0;
  bool transposed = false;
  std::int64_t batch_stride = 0;
  std::int64_t offset = 0;

  bool operator==(const MatrixOperand&) const = default;
};

// One call: D (m x n, column-major) = op(A) (m x k) * op(B) (k x n) [+ C], batch times.
struct MatmulProblem {
  std::int64_t batch = 1;
  std::int64_t m = 0;  // the result's N
  std::int64_t n = 0;  // the result's M (times the batch when the batch folds into rows)
  std::int64_t k = 0;
  MatrixOperand a;                 // from our b [..., K, N]
  MatrixOperand b;                 // from our a [..., M, K]
  std::optional<MatrixOperand> c;  // from the residual [..., M, N], when there is one
  MatrixOperand d;                 // the result, dense [..., M, N]

  bool operator==(const MatmulProblem&) const = default;
};

// Which operand has a layout no cuBLASLt call expresses.
enum class MatmulOperand : std::uint8_t { a, b, residual };

struct MatmulMapping {
  std::optional<MatmulProblem> problem;        // when every operand maps
  std::optional<MatmulOperand> inexpressible;  // otherwise, the first that does not
};

// `a` [batch..., M, K], `b` [batch..., K, N] and `residual` (null, or [batch..., M, N]) are the
// operands' layouts in their storage; the result is dense [batch..., M, N]. An operand maps when
// one of its two matrix axes has stride 1 (or size 1), the other a stride at least the rows it
// spans, and its batch axes, size-1 axes left out, collapse into one stride (all 0 included).
// The residual has no op(), so only its N axis may be the unit-stride one.
// A batch of a that sits in memory like more rows of one matrix, with b the same for every batch
// (and the residual's rows continuing likewise), folds into the rows: one plain product instead
// of a batched one.
// A zero batch, M or N gives a problem with that size 0 (the runtime queues nothing); K == 0
// gives k == 0 with a and b unread (the runtime reads zeros instead), the residual still mapped.
MatmulMapping map_matmul(const Layout& a, const Layout& b, const Layout* residual);

// Whether a bias of N elements at `bias` is what cuBLASLt's bias epilogue reads: contiguous.
bool bias_maps(const Layout& bias);

}  // namespace lazy::ir

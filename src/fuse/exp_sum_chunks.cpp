#include "fuse/exp_sum_chunks.h"

#include "fuse/reduction_splits.h"
#include "fuse/reduction_stages.h"

namespace lazy::fuse {

namespace {

using ir::Node;
using ir::Op;

bool is_pending_op(Node* node, Op op) {
  return node->is_pending() && node->op == op;
}

// max(v, mask, keepdim) in f32, as the API records it.
bool is_kept_max_of(Node* node, Node* v, std::uint64_t mask) {
  return is_pending_op(node, Op::ReduceMax) && node->inputs[0] == v &&
         std::uint64_t(node->attrs[0]) == mask && node->attrs[1] == 1 &&
         node->dtype == DType::f32 && node->compute_dtype == DType::f32;
}

// sum(x, mask, keepdim) as the API records it for an f32 x (or a chunk's sum, without keepdim).
Node* sum_f32(GraphBuilder& b, Node* x, std::uint64_t mask, bool keepdim) {
  return reduce_in_stages(b, Op::ReduceSum, x, mask, keepdim, DType::f32, DType::f32);
}

Node* max_f32(GraphBuilder& b, Node* x, std::uint64_t mask) {
  return reduce_in_stages(b, Op::ReduceMax, x, mask, true, DType::f32, DType::f32);
}

}  // namespace

std::optional<ExpSumMatch> match_exp_sum_in_chunks(Node* sum) {
  if (sum->op != Op::ReduceSum || sum->attrs[1] != 1 || sum->dtype != DType::f32) {
    return std::nullopt;
  }
  Node* exp = sum->inputs[0];
  if (!is_pending_op(exp, Op::Exp) || exp->dtype != DType::f32) return std::nullopt;
  Node* centered = exp->inputs[0];
  if (!is_pending_op(centered, Op::Sub) || centered->dtype != DType::f32) return std::nullopt;
  Node* v = centered->inputs[0];
  Node* broadcast_shift = centered->inputs[1];
  const int rank = v->shape.rank();
  if (v->dtype != DType::f32 || rank == 0 || centered->shape != v->shape) return std::nullopt;
  const std::uint64_t last_axis = std::uint64_t(1) << (rank - 1);
  if (std::uint64_t(sum->attrs[0]) != last_axis || !folds_exp_sum_in_chunks(v->shape[rank - 1])) {
    return std::nullopt;
  }
  // The rows are long, so the shift (one value a row) is broadcast over them.
  if (!is_pending_op(broadcast_shift, Op::Expand)) return std::nullopt;
  Node* shift = broadcast_shift->inputs[0];
  if (is_kept_max_of(shift, v, last_axis)) return ExpSumMatch{v, shift, sum, nullptr};
  if (!is_pending_op(shift, Op::Where) || shift->dtype != DType::f32) return std::nullopt;
  Node* is_infinite = shift->inputs[0];
  Node* number = shift->inputs[1];
  Node* max = shift->inputs[2];
  if (!is_kept_max_of(max, v, last_axis) || !is_pending_op(is_infinite, Op::IsInf) ||
      is_infinite->inputs[0] != max || !number->is_number() || number->dtype != DType::f32) {
    return std::nullopt;
  }
  return ExpSumMatch{v, shift, sum, number};
}

ExpSumNodes build_exp_sum_in_chunks(GraphBuilder& b, Node* v, Node* infinite_max_shift) {
  const int rank = v->shape.rank();
  const std::int64_t extent = v->shape[rank - 1];
  const std::int64_t rows = v->shape.numel() / extent;
  const std::int64_t count = extent / kTwoStageChunk;
  Node* const chunks = b.reshape(v, Shape{rows, count, kTwoStageChunk});
  Node* const chunk_max = max_f32(b, chunks, std::uint64_t(1) << 2);
  Node* const chunk_shift = b.where(b.unary(Op::IsInf, chunk_max), 0.0, chunk_max);
  Node* const chunk_total = sum_f32(b, b.unary(Op::Exp, b.binary(Op::Sub, chunks, chunk_shift)),
                                    std::uint64_t(1) << 2, false);
  // [rows, count]: the chunks' values fold as rows, in one small kernel.
  Node* const maxima = b.reshape(chunk_max, Shape{rows, count});
  Node* shift = max_f32(b, maxima, std::uint64_t(1) << 1);
  if (infinite_max_shift) shift = b.where(b.unary(Op::IsInf, shift), infinite_max_shift, shift);
  Node* const total =
      sum_f32(b, b.binary(Op::Mul, chunk_total, b.unary(Op::Exp, b.binary(Op::Sub, maxima, shift))),
              std::uint64_t(1) << 1, true);
  Shape kept = v->shape;
  kept[rank - 1] = 1;
  Node* const kept_shift = b.reshape(shift, kept);
  return {kept_shift, b.reshape(total, kept)};
}

}  // namespace lazy::fuse

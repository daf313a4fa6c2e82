#include "fuse/reduction_stages.h"

#include <vector>

#include "ir/type_promotion.h"

namespace lazy::fuse {

namespace {

using ir::Node;
using ir::Op;

constexpr std::uint64_t axis_bit(int axis) {
  return std::uint64_t(1) << axis;
}

bool is_logical(Op op) {
  return ir::reduction_info(op).fold == ir::FoldKind::logical;
}

// Partial results keep the accumulator's precision (bool for the logical folds).
DType partial_dtype(Op op, DType compute_dtype) {
  return is_logical(op) ? DType::bool_ : compute_dtype;
}

// Two partial results of a splittable reduction, combined by the reduction's combine op.
Node* combine(GraphBuilder& b, Op op, Node* x, Node* y) {
  return b.binary(ir::reduction_info(op).combine, x, y);
}

// The full reduction over chunks first: deterministic (a fixed order), and parallel. Elements
// past the last whole chunk fold on their own.
Node* in_chunks(GraphBuilder& b, Op op, Node* x, const Shape& result_shape, DType dtype,
                DType compute_dtype) {
  const std::int64_t n = x->shape.numel();
  const std::int64_t whole = n / kTwoStageChunk * kTwoStageChunk;
  Node* const flat = b.reshape(x, Shape{n});
  Node* const chunks =
      b.reshape(b.slice(flat, 0, 0, whole), Shape{whole / kTwoStageChunk, kTwoStageChunk});
  // Every stage keeps the partials' dtype, rounded to the result's once, after the last.
  const DType partials = partial_dtype(op, compute_dtype);
  Node* const partial =
      reduce_in_stages(b, op, chunks, axis_bit(1), false, partials, compute_dtype);
  Node* total = reduce_in_stages(b, op, partial, axis_bit(0), false, partials, compute_dtype);
  if (whole < n) {
    Node* const rest = reduce_in_stages(b, op, b.slice(flat, 0, whole, n), axis_bit(0), false,
                                        partials, compute_dtype);
    total = combine(b, op, total, rest);
  }
  return b.reshape(b.cast(total, dtype), result_shape);
}

// Few long rows (a sum over the last axis of [64, 2^20], say): each row folds in chunks first,
// then the chunks.
Node* rows_in_chunks(GraphBuilder& b, Op op, Node* x, const Shape& result_shape,
                     std::int64_t extent, DType dtype, DType compute_dtype) {
  const std::int64_t rows = result_shape.numel();
  Node* const chunks = b.reshape(x, Shape{rows, extent / kTwoStageChunk, kTwoStageChunk});
  Node* const partial = reduce_in_stages(b, op, chunks, axis_bit(2), false,
                                         partial_dtype(op, compute_dtype), compute_dtype);
  return b.reshape(reduce_in_stages(b, op, partial, axis_bit(1), false, dtype, compute_dtype),
                   result_shape);
}

// Few results of a long fold over a block of axes [first, end) with kept axes after it: axis
// `first` is cut into runs of equal length, each run folded (with the rest of the block) into a
// partial, then the partials of each result folded in order, so the result is the same on every
// run. The rows past the last whole run are folded on their own and combined.
Node* columns_in_runs(GraphBuilder& b, Op op, Node* x, std::uint64_t mask,
                      const Shape& result_shape, int first, std::int64_t runs, DType dtype,
                      DType compute_dtype) {
  const Shape& in = x->shape;
  const std::int64_t rows = in[first];
  const std::int64_t length = rows / runs;
  const std::int64_t whole = rows / length * length;
  Shape split;
  std::uint64_t split_mask = 0;
  for (int a = 0; a < in.rank(); ++a) {
    if (a == first) {
      split.push_back(whole / length);
      split.push_back(length);
    } else {
      split.push_back(in[a]);
    }
    if (mask & axis_bit(a)) split_mask |= axis_bit(a + 1);  // past the runs axis
  }
  const DType partials = partial_dtype(op, compute_dtype);
  Node* const body = whole < rows ? b.slice(x, first, 0, whole) : x;
  Node* const partial =
      reduce_in_stages(b, op, b.reshape(body, split), split_mask, false, partials, compute_dtype);
  Node* total = reduce_in_stages(b, op, partial, axis_bit(first), false, partials, compute_dtype);
  if (whole < rows) {
    Node* const rest = reduce_in_stages(b, op, b.slice(x, first, whole, rows), mask, false,
                                        partials, compute_dtype);
    total = combine(b, op, total, rest);
  }
  return b.reshape(b.cast(total, dtype), result_shape);
}

// argmax or argmin over one long axis in two stages: runs of `length` each give their extreme
// value and its position in one pass, the runs' extremes then fold in order (the first of equal
// ones, or the first NaN, wins, as over the whole axis), and the winning run's position is picked
// out. Elements past the last whole run fold on their own and win only when strictly better.
// (Where an op has two operands to build, the right one is built first, as the API recorded it.)
Node* arg_in_runs(GraphBuilder& b, Op op, Node* x, int axis, std::int64_t length,
                  DType compute_dtype) {
  const bool is_max = op == Op::ArgMax;
  const Op value_op = is_max ? Op::ReduceMax : Op::ReduceMin;
  const DType dtype = x->dtype;
  const Shape& in = x->shape;
  const std::int64_t extent = in[axis];
  const std::int64_t runs = extent / length;
  const std::int64_t whole = runs * length;
  Shape split, along;
  for (int a = 0; a < in.rank(); ++a) {
    split.push_back(a == axis ? runs : in[a]);
    if (a == axis) split.push_back(length);
    along.push_back(a == axis ? runs : 1);
  }
  Node* const body = b.reshape(whole < extent ? b.slice(x, axis, 0, whole) : x, split);
  Node* const values =
      reduce_in_stages(b, value_op, body, axis_bit(axis + 1), false, dtype, compute_dtype);
  Node* const run_starts = b.reshape(b.arange(whole, length), along);
  Node* const positions = b.binary(
      Op::Add, reduce_in_stages(b, op, body, axis_bit(axis + 1), false, DType::i64, compute_dtype),
      run_starts);
  Node* const best_run =
      reduce_in_stages(b, op, values, axis_bit(axis), true, DType::i64, compute_dtype);
  Node* const picked =
      b.where(b.binary(Op::Eq, b.reshape(b.arange(runs, 1), along), best_run), positions, 0);
  Node* position =
      reduce_in_stages(b, Op::ReduceSum, picked, axis_bit(axis), true, DType::i64, DType::i64);
  if (whole < extent) {
    Node* const best =
        reduce_in_stages(b, value_op, values, axis_bit(axis), true, dtype, compute_dtype);
    Node* const rest = b.slice(x, axis, whole, extent);
    Node* const rest_best =
        reduce_in_stages(b, value_op, rest, axis_bit(axis), true, dtype, compute_dtype);
    Node* const rest_position = b.binary(
        Op::Add, reduce_in_stages(b, op, rest, axis_bit(axis), true, DType::i64, compute_dtype),
        whole);
    Node* better = b.binary(is_max ? Op::Gt : Op::Lt, rest_best, best);
    if (is_floating(dtype)) {
      Node* const nan_or_better = b.binary(Op::LogicalOr, b.unary(Op::IsNan, rest_best), better);
      better = b.binary(Op::LogicalAnd, b.unary(Op::LogicalNot, b.unary(Op::IsNan, best)),
                        nan_or_better);
    }
    position = b.where(better, rest_position, position);
  }
  return position;
}

}  // namespace

Node* reduce_split(GraphBuilder& b, const ReductionSplit& split, Op op, Node* x, std::uint64_t mask,
                   bool keepdim, DType dtype, DType compute_dtype) {
  const Shape result_shape = reduced_shape(x->shape, mask, keepdim);
  switch (split.kind) {
    case SplitKind::chunks:
      return in_chunks(b, op, x, result_shape, dtype, compute_dtype);
    case SplitKind::row_chunks:
      return rows_in_chunks(b, op, x, result_shape, x->shape.numel() / result_shape.numel(), dtype,
                            compute_dtype);
    case SplitKind::arg_runs: {
      Node* const along = split.flat ? b.reshape(x, Shape{x->shape.numel()}) : x;
      return b.reshape(arg_in_runs(b, op, along, split.axis, split.length, compute_dtype),
                       result_shape);
    }
    case SplitKind::column_runs:
      return columns_in_runs(b, op, x, mask, result_shape, split.axis, split.runs, dtype,
                             compute_dtype);
    case SplitKind::none:
      break;
  }
  return b.reduction(op, x, mask, keepdim, dtype, compute_dtype);
}

Node* reduce_in_stages(GraphBuilder& b, Op op, Node* x, std::uint64_t mask, bool keepdim,
                       DType dtype, DType compute_dtype) {
  return reduce_split(b, choose_split(op, x->shape, mask), op, x, mask, keepdim, dtype,
                      compute_dtype);
}

}  // namespace lazy::fuse

#include "fuse/reduction_splits.h"

#include <algorithm>
#include <bit>

#include <absl/strings/str_cat.h>

#include "ir/integer_math.h"

namespace lazy::fuse {

namespace {

using ir::Op;

bool is_folded(std::uint64_t mask, int axis) {
  return mask & (std::uint64_t(1) << axis);
}

// Sums, products, extremes and logical folds split into chunks; arg-reductions have their own
// split (arg_runs), which carries positions along.
bool splits_into_chunks(Op op) {
  return op == Op::ReduceSum || op == Op::ReduceProd || op == Op::ReduceMax ||
         op == Op::ReduceMin || op == Op::ReduceAny || op == Op::ReduceAll;
}

bool folds_trailing_axes(const Shape& shape, std::uint64_t mask) {
  bool folding = false;
  for (int a = 0; a < shape.rank(); ++a) {
    if (folding && !is_folded(mask, a)) return false;
    folding = folding || is_folded(mask, a);
  }
  return true;
}

// The first axis of the folded block when the folded axes are one block of axes with a kept axis
// of more than one element after it; -1 otherwise.
int first_of_folded_block_before_kept(const Shape& shape, std::uint64_t mask) {
  int first = -1, end = -1;
  for (int a = 0; a < shape.rank(); ++a) {
    if (!is_folded(mask, a)) continue;
    if (end != -1 && end != a) return -1;  // a second block
    if (first == -1) first = a;
    end = a + 1;
  }
  std::int64_t after = 1;
  for (int a = end; a < shape.rank(); ++a) after *= shape[a];
  return first != -1 && end < shape.rank() && after > 1 ? first : -1;
}

// How many runs a column split cuts the first folded axis (of `rows` elements) into: enough for
// kColumnSplitResults first-stage results, within the bounds above; 1 means no split.
std::int64_t column_runs(std::int64_t results, std::int64_t extent, std::int64_t rows) {
  std::int64_t runs = ir::ceil_div(kColumnSplitResults, results);
  runs = std::min({runs, extent / kColumnSplitMinChunk, rows, kColumnSplitMaxChunks});
  return std::max<std::int64_t>(runs, 1);
}

// Elements each run of a split arg-reduction over one axis folds, or 0 where it is not split:
// where a sum would split (few results of a long fold), so does argmax, but over an outer axis
// only up to kArgColumnSplitMaxResults. A fold over the last axis runs over chunks of 16384, as
// rows of a row kernel (one kernel folds each run's max and argmax); one with kept axes after it
// over as many runs as a column split gives.
std::int64_t arg_run_length(const Shape& shape, int axis) {
  const std::int64_t extent = shape[axis];
  if (extent == 0) return 0;
  const std::int64_t results = shape.numel() / extent;
  if (axis == shape.rank() - 1) {
    return extent >= kTwoStageMinElements && results < kFewResults ? kTwoStageChunk : 0;
  }
  if (results > kArgColumnSplitMaxResults || extent < kColumnSplitMinExtent ||
      results * extent < kColumnSplitMinElements) {
    return 0;
  }
  const std::int64_t runs = std::min({ir::ceil_div(kColumnSplitResults, results),
                                      extent / kColumnSplitMinChunk, kColumnSplitMaxChunks});
  return runs > 1 ? extent / runs : 0;
}

}  // namespace

Shape reduced_shape(const Shape& input, std::uint64_t mask, bool keepdim) {
  Shape shape;
  for (int a = 0; a < input.rank(); ++a) {
    if (!is_folded(mask, a)) {
      shape.push_back(input[a]);
    } else if (keepdim) {
      shape.push_back(1);
    }
  }
  return shape;
}

ReductionSplit choose_split(Op op, const Shape& input, std::uint64_t mask) {
  std::int64_t extent = 1, results = 1;
  for (int a = 0; a < input.rank(); ++a) (is_folded(mask, a) ? extent : results) *= input[a];
  const int rank = input.rank();
  ReductionSplit split;
  if (splits_into_chunks(op) && extent >= kTwoStageMinElements) {
    if (results == 1) {
      split.kind = SplitKind::chunks;
      split.why =
          absl::StrCat("one result of ", extent, " elements (at least ", kTwoStageMinElements,
                       "): chunks of ", kTwoStageChunk, ", then the chunks' results");
      return split;
    }
    // No rows, nothing to split (lazyfuse-fuzz seed 15204 program 1813: a layer_norm of
    // [0, 1, 1, 458752] divided by its 0 rows).
    if (results > 0 && results < kFewResults && extent % kTwoStageChunk == 0 &&
        folds_trailing_axes(input, mask)) {
      split.kind = SplitKind::row_chunks;
      split.why =
          absl::StrCat(results, " rows (fewer than ", kFewResults, ") of ", extent,
                       " elements: each row in chunks of ", kTwoStageChunk, ", then the chunks");
      return split;
    }
  }
  const int folded_axes = std::popcount(mask);
  // (Runs add an axis: one axis of a rank-kMaxRank input is folded in one stage.)
  if ((op == Op::ArgMax || op == Op::ArgMin) && extent > 0 &&
      (folded_axes == rank || (folded_axes == 1 && rank < kMaxRank))) {
    // One axis, or all of them as one flat axis (positions are then flat indices).
    const bool flat = folded_axes == rank;
    const Shape along = flat ? Shape{input.numel()} : input;
    const int axis = flat ? 0 : std::countr_zero(mask);
    if (const std::int64_t length = arg_run_length(along, axis); length > 0) {
      split.kind = SplitKind::arg_runs;
      split.axis = axis;
      split.flat = flat;
      split.length = length;
      split.why = absl::StrCat(results, " result(s) of ", extent, " elements",
                               flat ? " (all axes, as one)" : "", ": runs of ", length,
                               " give their extreme and its position, then the runs");
      return split;
    }
  }
  if (splits_into_chunks(op) && results > 0 && results < kColumnSplitResults &&
      extent >= kColumnSplitMinExtent && results * extent >= kColumnSplitMinElements &&
      rank < kMaxRank) {
    const int first = first_of_folded_block_before_kept(input, mask);
    const std::int64_t runs = first < 0 ? 1 : column_runs(results, extent, input[first]);
    if (runs > 1) {
      split.kind = SplitKind::column_runs;
      split.axis = first;
      split.runs = runs;
      split.why = absl::StrCat(results, " result(s) (fewer than ", kColumnSplitResults, ") of ",
                               extent, " elements with kept axes after the folded ones: axis ",
                               first, " in ", runs, " runs, then the runs' partials");
      return split;
    }
  }
  return split;
}

bool folds_exp_sum_in_chunks(std::int64_t extent) {
  return extent >= kTwoStageMinElements && extent % kTwoStageChunk == 0;
}

std::string_view split_kind_name(SplitKind kind) {
  switch (kind) {
    case SplitKind::none:
      return "none";
    case SplitKind::chunks:
      return "chunks";
    case SplitKind::row_chunks:
      return "row_chunks";
    case SplitKind::arg_runs:
      return "arg_runs";
    case SplitKind::column_runs:
      return "column_runs";
  }
  return "?";
}

}  // namespace lazy::fuse

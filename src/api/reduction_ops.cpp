// Reductions, and the composites written from them (mean, var, std, logsumexp, softmax, the
// norms).
#include <bit>
#include <cmath>
#include <limits>

#include "api/composites.h"
#include "api/recording.h"
#include "ir/integer_math.h"
#include "ir/type_promotion.h"
#include "lazy/factories.h"
#include "lazy/reductions.h"

namespace lazy {

namespace {

using ir::ceil_div;
using ir::Op;

struct ReducedShape {
  std::uint64_t mask = 0;   // bit a: axis a is folded
  Shape shape;              // the result's shape
  std::int64_t extent = 1;  // elements folded into each result
};

ReducedShape reduced_shape(const Shape& in, const Axes& axes, bool keepdim, std::string_view name,
                           std::source_location loc) {
  ReducedShape out;
  if (in.rank() == 0) {
    // A 0-d tensor's one element is named by axis 0 or -1, as in PyTorch (once).
    for (int axis : axes.list())
      if (axis != 0 && axis != -1) api::normalize_axis(axis, 0, name, loc);
    if (axes.list().size() > 1) api::fail<AxisError>(loc, name, "axis 0 is named twice");
    return out;
  }
  if (axes.list().empty()) {
    for (int a = 0; a < in.rank(); ++a) out.mask |= std::uint64_t(1) << a;
  }
  for (int axis : axes.list()) {
    int a = api::normalize_axis(axis, in.rank(), name, loc);
    if (out.mask & (std::uint64_t(1) << a)) {
      api::fail<AxisError>(loc, name, "axis ", a, " is named twice");
    }
    out.mask |= std::uint64_t(1) << a;
  }
  for (int a = 0; a < in.rank(); ++a) {
    bool folded = out.mask & (std::uint64_t(1) << a);
    if (folded) out.extent *= in[a];
    if (!folded) {
      out.shape.push_back(in[a]);
    } else if (keepdim) {
      out.shape.push_back(1);
    }
  }
  return out;
}

// A full reduction of at least this many elements is folded in two stages (chunks, then the
// chunks' results): a reduction kernel gives each result one block, and one block folding a
// whole large tensor leaves the GPU idle (67M floats took 98 ms on H100 in one block). Chunks of
// 16384 (rows a row kernel holds in registers) summed [16384, 4096] f32 at 87.6% of copy
// bandwidth on H100, against 86.8% for 4096 and 85.8% for 65536.
constexpr std::int64_t kTwoStageMinElements = std::int64_t(1) << 16;
constexpr std::int64_t kTwoStageChunk = 16384;

bool splits_into_chunks(Op op) {
  return op == Op::ReduceSum || op == Op::ReduceProd || op == Op::ReduceMax ||
         op == Op::ReduceMin || op == Op::ReduceAny || op == Op::ReduceAll;
}

Tensor reduce(Op op, std::string_view name, const Tensor& x, const Axes& axes, bool keepdim,
              DType dtype, DType compute_dtype, std::source_location loc);

// Two partial results of a splittable reduction, combined.
Tensor combine(Op op, const Tensor& a, const Tensor& b, std::source_location loc) {
  switch (op) {
    case Op::ReduceSum:
      return add(a, b, loc);
    case Op::ReduceProd:
      return mul(a, b, loc);
    case Op::ReduceMax:
      return maximum(a, b, loc);
    case Op::ReduceMin:
      return minimum(a, b, loc);
    case Op::ReduceAny:
      return logical_or(a, b, loc);
    default:
      return logical_and(a, b, loc);
  }
}

// The same full reduction over chunks first: deterministic (a fixed order), and parallel. Chunk
// results keep the accumulator's precision.
Tensor reduce_in_chunks(Op op, std::string_view name, const Tensor& x, const Shape& result_shape,
                        DType dtype, DType compute_dtype, std::source_location loc) {
  const std::int64_t n = x.numel();
  const std::int64_t whole = n / kTwoStageChunk * kTwoStageChunk;
  Tensor flat = x.reshape({-1}, loc);
  Tensor chunks =
      flat.slice(0, 0, whole, 1, loc).reshape({whole / kTwoStageChunk, kTwoStageChunk}, loc);
  DType partial_dtype = op == Op::ReduceAny || op == Op::ReduceAll ? DType::bool_ : compute_dtype;
  Tensor partial = reduce(op, name, chunks, Axes(1), false, partial_dtype, compute_dtype, loc);
  Tensor total = reduce(op, name, partial, Axes(), false, dtype, compute_dtype, loc);
  if (whole < n) {
    Tensor rest =
        reduce(op, name, flat.slice(0, whole, n, 1, loc), Axes(), false, dtype, compute_dtype, loc);
    total = combine(op, total, rest, loc);
  }
  return total.reshape(result_shape, loc);
}

// Fewer results than this (about two per SM of an H100) leave SMs idle when each is one block.
constexpr std::int64_t kFewResults = 256;

bool folds_trailing_axes(const Shape& shape, std::uint64_t mask) {
  bool folding = false;
  for (int a = 0; a < shape.rank(); ++a) {
    bool folded = mask & (std::uint64_t(1) << a);
    if (folding && !folded) return false;
    folding = folding || folded;
  }
  return true;
}

// Few long rows (a sum over the last axis of [64, 2^20], say): each row folds in chunks first, then
// the chunks.
Tensor reduce_rows_in_chunks(Op op, std::string_view name, const Tensor& x,
                             const ReducedShape& reduced, DType dtype, DType compute_dtype,
                             std::source_location loc) {
  const std::int64_t rows = reduced.shape.numel();
  Tensor chunks = x.reshape({rows, reduced.extent / kTwoStageChunk, kTwoStageChunk}, loc);
  DType partial_dtype = op == Op::ReduceAny || op == Op::ReduceAll ? DType::bool_ : compute_dtype;
  Tensor partial = reduce(op, name, chunks, Axes(2), false, partial_dtype, compute_dtype, loc);
  return reduce(op, name, partial, Axes(1), false, dtype, compute_dtype, loc)
      .reshape(reduced.shape, loc);
}

// A reduction over a block of axes with kept axes after it (over axis 0 of [16384, 4096], over the
// middle axis of [A, E, B]) runs as a column kernel, whose blocks of 256 threads each fold 8 to 64
// neighbouring results (codegen/column_reduction.h). A long fold of fewer results than this is
// split, so that the first stage has 1024 blocks of 64 results: one wave of 8 blocks on each of an
// H100's 132 SMs. Measured on H100 for sum over axis 0 of [16384, 4096] f32: 2^16 (16 runs) 1%
// faster than 2^15 or 2^17, 9% faster than 2^14.
constexpr std::int64_t kColumnSplitResults = std::int64_t(1) << 16;
// Shorter folds take a few elements per thread in one kernel, sooner than two kernels do. On H100,
// sum over axis 0 of [E, 4096] f32 was faster in one stage up to E = 1024 and in two from E = 2048
// (0.028 to 0.025 ms); [4096, 1024]: 0.031 to 0.017 ms.
constexpr std::int64_t kColumnSplitMinExtent = 2048;
// Nor are small ones split: a second kernel costs a few microseconds.
constexpr std::int64_t kColumnSplitMinElements = std::int64_t(1) << 21;
// Elements each first-stage result folds at least, so that the second stage, which reads the
// partials, moves at most a sixty-fourth of the first's bytes.
constexpr std::int64_t kColumnSplitMinChunk = 64;
// Partials each result of the second stage folds at most, so that it stays short when there are
// very few results (then it gives each result a block: at most 8 partials per thread).
constexpr std::int64_t kColumnSplitMaxChunks = 2048;

// The first axis of the folded block when the folded axes are one block of axes with a kept axis
// of more than one element after it; -1 otherwise.
int first_of_folded_block_before_kept(const Shape& shape, std::uint64_t mask) {
  int first = -1, end = -1;
  for (int a = 0; a < shape.rank(); ++a) {
    if (!(mask & (std::uint64_t(1) << a))) continue;
    if (end != -1 && end != a) return -1;  // a second block
    if (first == -1) first = a;
    end = a + 1;
  }
  std::int64_t after = 1;
  for (int a = end; a < shape.rank(); ++a) after *= shape[a];
  return first != -1 && end < shape.rank() && after > 1 ? first : -1;
}

// Few results of a long fold over a block of axes [first, end) with kept axes after it: axis
// `first` is cut into `chunks` runs of equal length, each run folded (with the rest of the block)
// into a partial, then the partials of each result folded in order, so the result is the same on
// every run. The rows past the last whole run are folded on their own and combined. Partials
// keep the accumulator's precision.
Tensor reduce_columns_in_chunks(Op op, std::string_view name, const Tensor& x,
                                const ReducedShape& reduced, int first, std::int64_t chunks,
                                DType dtype, DType compute_dtype, std::source_location loc) {
  const Shape& in = x.shape();
  const std::int64_t rows = in[first];
  const std::int64_t length = rows / chunks;
  const std::int64_t whole = rows / length * length;
  Shape split;
  std::vector<int> folded, split_folded;
  for (int a = 0; a < in.rank(); ++a) {
    const bool is_folded = reduced.mask & (std::uint64_t(1) << a);
    if (is_folded) folded.push_back(a);
    if (a == first) {
      split.push_back(whole / length);
      split.push_back(length);
    } else {
      split.push_back(in[a]);
    }
    if (is_folded) split_folded.push_back(a + 1);  // past the chunks axis
  }
  const DType partial_dtype =
      op == Op::ReduceAny || op == Op::ReduceAll ? DType::bool_ : compute_dtype;
  Tensor body = whole < rows ? x.slice(first, 0, whole, 1, loc) : x;
  Tensor partial = reduce(op, name, body.reshape(split, loc), Axes(split_folded), false,
                          partial_dtype, compute_dtype, loc);
  Tensor total = reduce(op, name, partial, Axes(first), false, partial_dtype, compute_dtype, loc);
  if (whole < rows) {
    Tensor rest = reduce(op, name, x.slice(first, whole, rows, 1, loc), Axes(folded), false,
                         partial_dtype, compute_dtype, loc);
    total = combine(op, total, rest, loc);
  }
  if (dtype != partial_dtype) total = cast(total, dtype, loc);
  return total.reshape(reduced.shape, loc);
}

// How many runs reduce_columns_in_chunks cuts the first folded axis (of `rows` elements) into:
// enough for kColumnSplitResults first-stage results, within the bounds above; 1 means no split.
std::int64_t column_chunks(const ReducedShape& reduced, std::int64_t rows) {
  const std::int64_t results = reduced.shape.numel();
  std::int64_t chunks = ceil_div(kColumnSplitResults, results);
  chunks = std::min({chunks, reduced.extent / kColumnSplitMinChunk, rows, kColumnSplitMaxChunks});
  return std::max<std::int64_t>(chunks, 1);
}

// A split arg-reduction over an outer axis reads its input twice (the column kernel folds the
// runs' max and argmax in two kernels), which pays only where one stage starves the GPU. On H100,
// argmax over axis 0 of [65536, 256] f32: 0.077 ms split against 0.15; [16384, 4096]: 0.20
// against 0.13.
constexpr std::int64_t kArgColumnSplitMaxResults = 1024;

// Elements each run of a split arg-reduction over one axis folds, or 0 where it is not split:
// where a sum would split (few results of a long fold), so does argmax, but over an outer axis
// only up to kArgColumnSplitMaxResults. A fold over the last axis runs over chunks of 16384, as
// rows of a row kernel (one kernel folds each run's max and argmax); one with kept axes after it
// over as many runs as column_chunks gives.
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
  const std::int64_t runs = std::min({ceil_div(kColumnSplitResults, results),
                                      extent / kColumnSplitMinChunk, kColumnSplitMaxChunks});
  return runs > 1 ? extent / runs : 0;
}

// argmax or argmin over one long axis in two stages: runs of `length` each give their extreme
// value and its position in one pass, the runs' extremes then fold in order (the first of equal
// ones, or the first NaN, wins, as over the whole axis), and the winning run's position is picked
// out. Elements past the last whole run fold on their own and win only when strictly better.
Tensor arg_in_runs(Op op, std::string_view name, const Tensor& x, int axis, std::int64_t length,
                   DType compute_dtype, std::source_location loc) {
  const bool is_max = op == Op::ArgMax;
  const Op value_op = is_max ? Op::ReduceMax : Op::ReduceMin;
  const DType dtype = x.dtype();
  const Shape& in = x.shape();
  const std::int64_t extent = in[axis];
  const std::int64_t runs = extent / length;
  const std::int64_t whole = runs * length;
  Shape split, along;
  for (int a = 0; a < in.rank(); ++a) {
    split.push_back(a == axis ? runs : in[a]);
    if (a == axis) split.push_back(length);
    along.push_back(a == axis ? runs : 1);
  }
  Tensor body = (whole < extent ? x.slice(axis, 0, whole, 1, loc) : x).reshape(split, loc);
  Tensor values = reduce(value_op, name, body, Axes(axis + 1), false, dtype, compute_dtype, loc);
  Tensor positions =
      add(reduce(op, name, body, Axes(axis + 1), false, DType::i64, compute_dtype, loc),
          arange(0, whole, length, DType::i64, loc).reshape(along, loc), loc);
  Tensor best_run = reduce(op, name, values, Axes(axis), true, DType::i64, compute_dtype, loc);
  Tensor picked = where(eq(arange(0, runs, 1, DType::i64, loc).reshape(along, loc), best_run, loc),
                        positions, 0, loc);
  Tensor position = sum(picked, axis, true, loc);
  if (whole < extent) {
    Tensor best = reduce(value_op, name, values, Axes(axis), true, dtype, compute_dtype, loc);
    Tensor rest = x.slice(axis, whole, extent, 1, loc);
    Tensor rest_best = reduce(value_op, name, rest, Axes(axis), true, dtype, compute_dtype, loc);
    Tensor rest_position =
        add(reduce(op, name, rest, Axes(axis), true, DType::i64, compute_dtype, loc), whole, loc);
    Tensor better = is_max ? gt(rest_best, best, loc) : lt(rest_best, best, loc);
    if (is_floating(dtype)) {
      better = logical_and(logical_not(isnan(best, loc), loc),
                           logical_or(isnan(rest_best, loc), better, loc), loc);
    }
    position = where(better, rest_position, position, loc);
  }
  return position;
}

Tensor reduce(Op op, std::string_view name, const Tensor& x, const Axes& axes, bool keepdim,
              DType dtype, DType compute_dtype, std::source_location loc) {
  api::sync_if_trace_full();
  const ir::NodePtr& in = api::node_of(x, name, loc);
  ReducedShape reduced = reduced_shape(in->shape, axes, keepdim, name, loc);
  if (splits_into_chunks(op) && reduced.extent >= kTwoStageMinElements) {
    if (reduced.shape.numel() == 1) {
      return reduce_in_chunks(op, name, x, reduced.shape, dtype, compute_dtype, loc);
    }
    if (reduced.shape.numel() < kFewResults && reduced.extent % kTwoStageChunk == 0 &&
        folds_trailing_axes(in->shape, reduced.mask)) {
      return reduce_rows_in_chunks(op, name, x, reduced, dtype, compute_dtype, loc);
    }
  }
  const int folded_axes = std::popcount(reduced.mask);
  // (Runs add an axis: one axis of a rank-kMaxRank input is folded in one stage.)
  if ((op == Op::ArgMax || op == Op::ArgMin) && reduced.extent > 0 &&
      (folded_axes == in->shape.rank() || (folded_axes == 1 && in->shape.rank() < kMaxRank))) {
    // One axis, or all of them as one flat axis (positions are then flat indices).
    const bool flat = folded_axes == in->shape.rank();
    const Tensor along = flat ? x.reshape({-1}, loc) : x;
    const int axis = flat ? 0 : std::countr_zero(reduced.mask);
    if (const std::int64_t length = arg_run_length(along.shape(), axis); length > 0) {
      return arg_in_runs(op, name, along, axis, length, compute_dtype, loc)
          .reshape(reduced.shape, loc);
    }
  }
  const std::int64_t results = reduced.shape.numel();
  if (splits_into_chunks(op) && results > 0 && results < kColumnSplitResults &&
      reduced.extent >= kColumnSplitMinExtent &&
      results * reduced.extent >= kColumnSplitMinElements && in->shape.rank() < kMaxRank) {
    const int first = first_of_folded_block_before_kept(in->shape, reduced.mask);
    const std::int64_t chunks = first < 0 ? 1 : column_chunks(reduced, in->shape[first]);
    if (chunks > 1) {
      return reduce_columns_in_chunks(op, name, x, reduced, first, chunks, dtype, compute_dtype,
                                      loc);
    }
  }
  bool needs_elements =
      op == Op::ReduceMax || op == Op::ReduceMin || op == Op::ArgMax || op == Op::ArgMin;
  if (needs_elements && reduced.extent == 0 && reduced.shape.numel() != 0) {
    api::fail<ValueError>(loc, name, "cannot reduce over an axis of size 0 of ",
                          in->shape.to_string(), ": there is no element to return");
  }
  ir::NodePtr node = api::new_node(op, dtype, reduced.shape, loc);
  node->compute_dtype = compute_dtype;
  node->attrs.push(std::int64_t(reduced.mask));
  node->attrs.push(keepdim ? 1 : 0);
  node->inputs.push_back(in);
  return api::record(node);
}

// Integers and bools sum to i64; floating dtypes keep theirs and accumulate in f32.
DType summed_dtype(DType d) {
  return is_floating(d) ? d : DType::i64;
}

// The norms fold the last axis, which a 0-d tensor lacks (its axis 0 or -1 serves reductions
// only, as in PyTorch, where layer_norm's normalized shape must be trailing axes of the input).
void require_last_axis(const Tensor& x, std::string_view name, std::source_location loc) {
  if (x.rank(loc) == 0)
    api::fail<AxisError>(loc, name, "needs a tensor of at least one axis (it normalizes the last)");
}

// The number of elements each result folds, as a scalar for dividing by.
std::int64_t folded_count(const Tensor& x, const Axes& axes, std::string_view name,
                          std::source_location loc) {
  return reduced_shape(x.shape(), axes, false, name, loc).extent;
}

// The softmax family's fold over `axes` of v (kept as axes of 1): the shift, which is the max
// (or, with zero_infinite_shift, 0 where that max is infinite), and the sum of exp(v - shift).
struct ExpSum {
  Tensor shift;
  Tensor total;
};

ExpSum exp_sum(const Tensor& v, const Axes& axes, bool zero_infinite_shift, std::string_view name,
               std::source_location loc) {
  auto shift_of = [&](const Tensor& largest) {
    return zero_infinite_shift ? where(isinf(largest, loc), 0.0, largest, loc) : largest;
  };
  const bool last_axis = axes.list().size() == 1 && v.rank() > 0 &&
                         api::normalize_axis(axes.list()[0], v.rank(), name, loc) == v.rank() - 1;
  const std::int64_t extent = last_axis ? v.size(-1) : 0;
  if (extent < kTwoStageMinElements || extent % kTwoStageChunk != 0) {
    Tensor shift = shift_of(max(v, axes, true, loc));
    return {shift, sum(exp(sub(v, shift, loc), loc), axes, true, loc)};
  }
  // A row too long to hold on chip, folded in chunks with the online-softmax rescaling: one pass
  // over v gives each chunk's max m_c and s_c = sum(exp(x - m_c)); the row's sum is then
  // sum_c s_c * exp(m_c - shift), from the chunks' values alone. A chunk of -inf shifts by 0
  // (its s_c is 0) rather than making NaN of -inf - -inf. v is read twice instead of three times
  // by a kernel looping over the row: on H100, softmax over [1024, 65536] f32 0.277 ms against
  // 0.369, over [64, 2^20] 0.279 against 0.412 (max and sum each in chunks).
  const std::int64_t rows = v.numel() / extent;
  const std::int64_t count = extent / kTwoStageChunk;
  Tensor chunks = v.reshape({rows, count, kTwoStageChunk}, loc);
  Tensor chunk_max = max(chunks, -1, true, loc);
  Tensor chunk_shift = where(isinf(chunk_max, loc), 0.0, chunk_max, loc);
  Tensor chunk_total = sum(exp(sub(chunks, chunk_shift, loc), loc), -1, false, loc);
  // [rows, count]: the chunks' values fold as rows, in one small kernel.
  Tensor maxima = chunk_max.reshape({rows, count}, loc);
  Tensor shift = shift_of(max(maxima, 1, true, loc));
  Tensor total = sum(mul(chunk_total, exp(sub(maxima, shift, loc), loc), loc), 1, true, loc);
  Shape kept = v.shape();
  kept[kept.rank() - 1] = 1;
  return {shift.reshape(kept, loc), total.reshape(kept, loc)};
}

}  // namespace

Tensor sum(const Tensor& x, const Axes& axes, bool keepdim, std::source_location loc) {
  DType in = api::node_of(x, "sum", loc)->dtype;
  DType dtype = summed_dtype(in);
  return reduce(Op::ReduceSum, "sum", x, axes, keepdim, dtype, ir::compute_type_of(dtype), loc);
}

Tensor prod(const Tensor& x, const Axes& axes, bool keepdim, std::source_location loc) {
  DType in = api::node_of(x, "prod", loc)->dtype;
  DType dtype = summed_dtype(in);
  return reduce(Op::ReduceProd, "prod", x, axes, keepdim, dtype, ir::compute_type_of(dtype), loc);
}

Tensor max(const Tensor& x, const Axes& axes, bool keepdim, std::source_location loc) {
  DType in = api::node_of(x, "max", loc)->dtype;
  return reduce(Op::ReduceMax, "max", x, axes, keepdim, in, ir::compute_type_of(in), loc);
}

Tensor min(const Tensor& x, const Axes& axes, bool keepdim, std::source_location loc) {
  DType in = api::node_of(x, "min", loc)->dtype;
  return reduce(Op::ReduceMin, "min", x, axes, keepdim, in, ir::compute_type_of(in), loc);
}

Tensor any(const Tensor& x, const Axes& axes, bool keepdim, std::source_location loc) {
  return reduce(Op::ReduceAny, "any", x, axes, keepdim, DType::bool_, DType::bool_, loc);
}

Tensor all(const Tensor& x, const Axes& axes, bool keepdim, std::source_location loc) {
  return reduce(Op::ReduceAll, "all", x, axes, keepdim, DType::bool_, DType::bool_, loc);
}

Tensor argmax(const Tensor& x, std::optional<int> axis, bool keepdim, std::source_location loc) {
  DType in = api::node_of(x, "argmax", loc)->dtype;
  Axes axes = axis ? Axes(*axis) : Axes();
  return reduce(Op::ArgMax, "argmax", x, axes, keepdim, DType::i64, ir::compute_type_of(in), loc);
}

Tensor argmin(const Tensor& x, std::optional<int> axis, bool keepdim, std::source_location loc) {
  DType in = api::node_of(x, "argmin", loc)->dtype;
  Axes axes = axis ? Axes(*axis) : Axes();
  return reduce(Op::ArgMin, "argmin", x, axes, keepdim, DType::i64, ir::compute_type_of(in), loc);
}

Tensor mean(const Tensor& x, const Axes& axes, bool keepdim, std::source_location loc) {
  api::require_floating(x, "mean", loc);
  const double inverse = 1.0 / double(folded_count(x, axes, "mean", loc));
  return api::in_compute_type(
      x, loc, [&](const Tensor& v) { return mul(sum(v, axes, keepdim, loc), inverse, loc); });
}

Tensor var(const Tensor& x, const Axes& axes, double correction, bool keepdim,
           std::source_location loc) {
  api::require_floating(x, "var", loc);
  const double n = double(folded_count(x, axes, "var", loc));
  // max(0, n - correction), as PyTorch: fewer elements than the correction gives inf or NaN.
  const double divisor = std::max(0.0, n - correction);
  return api::in_compute_type(x, loc, [&](const Tensor& v) {
    Tensor centered = sub(v, mean(v, axes, true, loc), loc);
    return div(sum(mul(centered, centered, loc), axes, keepdim, loc), divisor, loc);
  });
}

Tensor std(const Tensor& x, const Axes& axes, double correction, bool keepdim,
           std::source_location loc) {
  api::require_floating(x, "std", loc);
  return api::in_compute_type(
      x, loc, [&](const Tensor& v) { return sqrt(var(v, axes, correction, keepdim, loc), loc); });
}

Tensor logsumexp(const Tensor& x, const Axes& axes, bool keepdim, std::source_location loc) {
  Tensor v = is_floating(api::node_of(x, "logsumexp", loc)->dtype) ? x : cast(x, DType::f32, loc);
  return api::in_compute_type(v, loc, [&](const Tensor& f) {
    const ReducedShape reduced = reduced_shape(f.shape(), axes, keepdim, "logsumexp", loc);
    // The log of an empty sum, as PyTorch (max has no element to shift by).
    if (reduced.extent == 0) {
      return full(reduced.shape, -std::numeric_limits<double>::infinity(), DType::f32, loc);
    }
    // Shift by the largest element; an infinite one (all -inf, or +inf) shifts by 0 instead.
    ExpSum folded = exp_sum(f, axes, true, "logsumexp", loc);
    Tensor result = add(log(folded.total, loc), folded.shift, loc);
    return keepdim ? result : result.reshape(reduced.shape, loc);
  });
}

Tensor softmax(const Tensor& x, int axis, std::source_location loc) {
  api::require_floating(x, "softmax", loc);
  reduced_shape(x.shape(), axis, false, "softmax", loc);  // a bad axis names softmax, not max
  // Nothing to normalize (and an axis of size 0 has no max to shift by).
  if (x.numel() == 0) return x;
  return api::in_compute_type(x, loc, [&](const Tensor& v) {
    ExpSum folded = exp_sum(v, axis, false, "softmax", loc);
    return div(exp(sub(v, folded.shift, loc), loc), folded.total, loc);
  });
}

Tensor log_softmax(const Tensor& x, int axis, std::source_location loc) {
  api::require_floating(x, "log_softmax", loc);
  reduced_shape(x.shape(), axis, false, "log_softmax", loc);
  if (x.numel() == 0) return x;
  return api::in_compute_type(x, loc, [&](const Tensor& v) {
    ExpSum folded = exp_sum(v, axis, false, "log_softmax", loc);
    return sub(sub(v, folded.shift, loc), log(folded.total, loc), loc);
  });
}

Tensor layer_norm(const Tensor& x, const Tensor& weight, const Tensor& bias, double eps,
                  std::source_location loc) {
  api::require_floating(x, "layer_norm", loc);
  require_last_axis(x, "layer_norm", loc);
  return api::in_compute_type(x, loc, [&](const Tensor& v) {
    Tensor centered = sub(v, mean(v, -1, true, loc), loc);
    Tensor variance = mean(mul(centered, centered, loc), -1, true, loc);
    Tensor normed = mul(centered, rsqrt(add(variance, eps, loc), loc), loc);
    return add(mul(normed, weight, loc), bias, loc);
  });
}

Tensor rms_norm(const Tensor& x, const Tensor& weight, double eps, std::source_location loc) {
  api::require_floating(x, "rms_norm", loc);
  require_last_axis(x, "rms_norm", loc);
  return api::in_compute_type(x, loc, [&](const Tensor& v) {
    Tensor scale = rsqrt(add(mean(mul(v, v, loc), -1, true, loc), eps, loc), loc);
    return mul(mul(v, scale, loc), weight, loc);
  });
}

}  // namespace lazy

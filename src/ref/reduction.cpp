#include "ref/reduction.h"

#include <cmath>
#include <limits>

#include "ir/dtype_codec.h"
#include "ref/fold_values.h"

namespace lazy::ref {

namespace {

// For each element of the input (row-major), the row-major index of the result it folds into
// and its index within the folded axes.
struct Folding {
  std::vector<std::int64_t> result;
  std::vector<std::int64_t> within;
};

Folding folding_of(const Shape& in, std::uint64_t mask) {
  Folding f;
  const std::int64_t n = in.numel();
  f.result.resize(std::size_t(n));
  f.within.resize(std::size_t(n));
  std::array<std::int64_t, kMaxRank> index{};
  for (std::int64_t i = 0; i < n; ++i) {
    std::int64_t result = 0, within = 0;
    for (int a = 0; a < in.rank(); ++a) {
      if (mask & (std::uint64_t(1) << a)) {
        within = within * in[a] + index[a];
      } else {
        result = result * in[a] + index[a];
      }
    }
    f.result[std::size_t(i)] = result;
    f.within[std::size_t(i)] = within;
    for (int a = in.rank() - 1; a >= 0; --a) {
      if (++index[a] < in[a]) break;
      index[a] = 0;
    }
  }
  return f;
}

// The position (within the folded axes) of the first NaN, else of the first element `prefers`
// (the fold's combine op: gt or lt) over all others; values stay in their own type, so int64
// compares exactly.
template <class T, class Prefers>
std::vector<std::int64_t> arg_fold(const std::vector<T>& values, Prefers prefers,
                                   const Folding& fold, std::int64_t results) {
  std::vector<T> best(std::size_t(results), T{});
  std::vector<std::int64_t> at(std::size_t(results), -1);
  for (std::size_t i = 0; i < values.size(); ++i) {
    auto r = std::size_t(fold.result[i]);
    const T v = values[i];
    bool better;
    if (at[r] < 0) {
      better = true;
    } else if (is_nan(best[r])) {
      better = false;
    } else if (is_nan(v)) {
      better = true;
    } else {
      better = prefers(v, best[r], T{}) != 0;
    }
    if (better) {
      best[r] = v;
      at[r] = fold.within[i];
    }
  }
  return at;
}

// Folds each element into its result's accumulator through the combine op's host function.
template <class T, class Combine>
std::vector<T> fold_values(const std::vector<T>& values, Combine combine, const Folding& fold,
                           std::int64_t results, ir::FoldIdentity identity) {
  std::vector<T> acc(std::size_t(results), identity_value<T>(identity));
  for (std::size_t i = 0; i < values.size(); ++i) {
    T& a = acc[std::size_t(fold.result[i])];
    a = combine(a, values[i], T{});
  }
  return acc;
}

}  // namespace

Value evaluate_reduction(const ir::Node& node, const Value& input) {
  const ir::ReductionInfo& info = ir::reduction_info(node.op);
  const ir::OpInfo& combine = ir::op_info(info.combine);
  const Shape& in_shape = node.inputs[0]->shape;
  const auto mask = std::uint64_t(node.attrs[0]);
  const std::int64_t results = node.shape.numel();
  Folding fold = folding_of(in_shape, mask);
  auto out = std::make_shared<Buffer>(node.dtype, results);
  const DType compute = node.compute_dtype;

  if (info.fold == ir::FoldKind::logical) {
    out->ints = fold_values(gather_ints(input, in_shape, DType::bool_), combine.host_int, fold,
                            results, info.identity);
  } else if (info.fold == ir::FoldKind::positional) {
    out->ints =
        is_floating(compute)
            ? arg_fold(gather_floats(input, in_shape, compute), combine.host_float, fold, results)
            : arg_fold(gather_ints(input, in_shape, compute), combine.host_int, fold, results);
  } else if (is_floating(compute)) {
    std::vector<double> values = gather_floats(
        input, in_shape, node.inputs[0]->dtype == compute ? compute : node.inputs[0]->dtype);
    out->floats = fold_values(values, combine.host_float, fold, results, info.identity);
    for (double& v : out->floats) v = ir::round_to_dtype(v, node.dtype);
  } else {
    std::vector<std::int64_t> values = gather_ints(input, in_shape, compute);
    out->ints = fold_values(values, combine.host_int, fold, results, info.identity);
    for (std::int64_t& v : out->ints) v = ir::wrap_to_dtype(v, node.dtype);
  }
  return {std::move(out), ir::Layout::contiguous(node.shape)};
}

}  // namespace lazy::ref

#include "ref/reduction.h"

#include <cmath>
#include <limits>

#include "ir/dtype_codec.h"

namespace lazy::ref {

namespace {

using ir::Op;

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

bool is_nan(double v) {
  return std::isnan(v);
}
bool is_nan(std::int64_t) {
  return false;
}

// The position (within the folded axes) of the first NaN, else of the first extreme; values stay
// in their own type, so int64 compares exactly.
template <class T>
std::vector<std::int64_t> arg_fold(const std::vector<T>& values, Op op, const Folding& fold,
                                   std::int64_t results) {
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
      better = op == Op::ArgMax ? v > best[r] : v < best[r];
    }
    if (better) {
      best[r] = v;
      at[r] = fold.within[i];
    }
  }
  return at;
}

}  // namespace

Value evaluate_reduction(const ir::Node& node, const Value& input) {
  const Op op = node.op;
  const Shape& in_shape = node.inputs[0]->shape;
  const auto mask = std::uint64_t(node.attrs[0]);
  const std::int64_t results = node.shape.numel();
  Folding fold = folding_of(in_shape, mask);
  auto out = std::make_shared<Buffer>(node.dtype, results);
  const DType compute = node.compute_dtype;

  if (op == Op::ReduceAny || op == Op::ReduceAll) {
    std::vector<std::int64_t> truth = gather_ints(input, in_shape, DType::bool_);
    std::vector<std::int64_t> acc(std::size_t(results), op == Op::ReduceAll ? 1 : 0);
    for (std::size_t i = 0; i < truth.size(); ++i) {
      std::int64_t& a = acc[std::size_t(fold.result[i])];
      a = op == Op::ReduceAll ? (a && truth[i]) : (a || truth[i]);
    }
    out->ints = std::move(acc);
  } else if (op == Op::ArgMax || op == Op::ArgMin) {
    out->ints = is_floating(compute)
                    ? arg_fold(gather_floats(input, in_shape, compute), op, fold, results)
                    : arg_fold(gather_ints(input, in_shape, compute), op, fold, results);
  } else if (is_floating(compute)) {
    std::vector<double> values = gather_floats(
        input, in_shape, node.inputs[0]->dtype == compute ? compute : node.inputs[0]->dtype);
    double start = op == Op::ReduceSum    ? 0.0
                   : op == Op::ReduceProd ? 1.0
                   : op == Op::ReduceMax  ? -INFINITY
                                          : INFINITY;
    std::vector<double> acc(std::size_t(results), start);
    for (std::size_t i = 0; i < values.size(); ++i) {
      double& a = acc[std::size_t(fold.result[i])];
      double v = values[i];
      switch (op) {
        case Op::ReduceSum:
          a += v;
          break;
        case Op::ReduceProd:
          a *= v;
          break;
        case Op::ReduceMax:
          a = (std::isnan(a) || std::isnan(v)) ? NAN : std::max(a, v);
          break;
        case Op::ReduceMin:
          a = (std::isnan(a) || std::isnan(v)) ? NAN : std::min(a, v);
          break;
        default:
          break;
      }
    }
    for (double& v : acc) v = ir::round_to_dtype(v, node.dtype);
    out->floats = std::move(acc);
  } else {
    std::vector<std::int64_t> values = gather_ints(input, in_shape, compute);
    std::int64_t start = op == Op::ReduceSum    ? 0
                         : op == Op::ReduceProd ? 1
                         : op == Op::ReduceMax  ? std::numeric_limits<std::int64_t>::min()
                                                : std::numeric_limits<std::int64_t>::max();
    std::vector<std::int64_t> acc(std::size_t(results), start);
    for (std::size_t i = 0; i < values.size(); ++i) {
      std::int64_t& a = acc[std::size_t(fold.result[i])];
      std::int64_t v = values[i];
      switch (op) {
        case Op::ReduceSum:
          a = std::int64_t(std::uint64_t(a) + std::uint64_t(v));
          break;
        case Op::ReduceProd:
          a = std::int64_t(std::uint64_t(a) * std::uint64_t(v));
          break;
        case Op::ReduceMax:
          a = std::max(a, v);
          break;
        case Op::ReduceMin:
          a = std::min(a, v);
          break;
        default:
          break;
      }
    }
    for (std::int64_t& v : acc) v = ir::wrap_to_dtype(v, node.dtype);
    out->ints = std::move(acc);
  }
  return {std::move(out), ir::Layout::contiguous(node.shape)};
}

}  // namespace lazy::ref

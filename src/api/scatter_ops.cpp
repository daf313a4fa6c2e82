// Scatters: one ScatterAdd or ScatterLast node (ir/scatter.h), after a stable sort of the index
// along the axis that makes each output element's contributions one run in order of position
// (deterministic, and no atomics).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string_view>

#include "api/index_arguments.h"
#include "api/recording.h"
#include "ir/scatter.h"
#include "lazy/indexing.h"
#include "lazy/ops.h"
#include "lazy/ordering.h"

namespace lazy {

namespace {

using ir::ScatterCaller;

// The node scattering src into x along `axis`, where the index sorted along it (`sorted.values`)
// names positions, `sorted.indices` where each sorted one came from.
Tensor record_scatter(ir::Op op, const Tensor& x, int axis, const ValuesAndIndices& sorted,
                      const Tensor& src, ScatterCaller caller, std::source_location loc) {
  ir::NodePtr node = ir::make_node(op, x.node()->dtype, x.node()->shape, loc);
  node->attrs = ir::scatter_attrs(caller, axis);
  for (const Tensor* input : {&x, &sorted.values, &sorted.indices, &src})
    node->inputs.push_back(input->node());
  return api::record(std::move(node));
}

void require_same_dtype(ir::Node* x, ir::Node* src, std::string_view op, std::source_location loc) {
  if (src->dtype != x->dtype) {
    api::fail<DTypeError>(loc, op, "src is ", dtype_name(src->dtype), " but x is ",
                          dtype_name(x->dtype), "; convert src with .to(x.dtype())");
  }
}

// Every index would be outside an empty axis: known without reading it.
void require_room(const Shape& x, int axis, std::string_view op, std::source_location loc) {
  if (x[axis] == 0) {
    api::fail<IndexError>(loc, op, "index into axis ", axis, " of x, of shape ", x.to_string(),
                          ", which has no element along it");
  }
}

// A scatter's operands, checked: x, index (its dtype is the caller's to check, after an empty
// index returned x, as PyTorch's), and src of x's dtype.
struct ScatterOperands {
  ir::Node* x;
  ir::Node* index;
  ir::Node* src;
};
ScatterOperands checked_operands(const Tensor& x, const Tensor& index, const Tensor& src,
                                 std::string_view name, std::source_location loc) {
  api::sync_if_trace_full();
  const ScatterOperands operands{api::node_of(x, name, loc), api::node_of(index, name, loc),
                                 api::node_of(src, name, loc)};
  require_same_dtype(operands.x, operands.src, name, loc);
  return operands;
}

// scatter_add and scatter: x, index and src of one rank, index within src and, off `axis`,
// within x.
Tensor scatter_along(const Tensor& x, int axis, const Tensor& index, const Tensor& src, ir::Op op,
                     ScatterCaller caller, std::string_view name, std::source_location loc) {
  const auto [target, picks, from] = checked_operands(x, index, src, name, loc);
  const int rank = target->shape.rank();
  // An empty index scatters nothing, whatever its dtype and shape and src's: PyTorch checks none.
  if (picks->shape.numel() == 0) {
    api::normalize_axis(axis, std::max(rank, 1), name, loc);
    return x;
  }
  api::require_index(picks, name, loc);
  // A 0-d operand reads as one element, as PyTorch's: a 0-d index scatters into a 1-d x.
  const int index_rank = picks->shape.rank(), src_rank = from->shape.rank();
  if (std::max(index_rank, 1) != std::max(rank, 1) || std::max(src_rank, 1) != std::max(rank, 1)) {
    api::fail<ShapeError>(loc, name, "index of shape ", picks->shape.to_string(),
                          " and src of shape ", from->shape.to_string(),
                          " need the rank of x, which has shape ", target->shape.to_string());
  }
  if (rank == 0 || index_rank == 0 || src_rank == 0) {
    api::normalize_axis(axis, 1, name, loc);
    return scatter_along(x.reshape({-1}, loc), 0, index.reshape({-1}, loc), src.reshape({-1}, loc),
                         op, caller, name, loc)
        .reshape(target->shape, loc);
  }
  axis = api::normalize_axis(axis, rank, name, loc);
  for (int a = 0; a < rank; ++a) {
    if ((a != axis && picks->shape[a] > target->shape[a]) || picks->shape[a] > from->shape[a]) {
      api::fail<ShapeError>(loc, name, "index of shape ", picks->shape.to_string(),
                            " is larger than src of shape ", from->shape.to_string(),
                            " or, off axis ", axis, ", than x of shape ", target->shape.to_string(),
                            " (along axis ", a, ")");
    }
  }
  require_room(target->shape, axis, name, loc);
  Tensor src_part = src;
  for (int a = 0; a < rank; ++a)
    if (from->shape[a] > picks->shape[a]) src_part = src_part.slice(a, 0, picks->shape[a], 1, loc);
  return record_scatter(op, x, axis, sort(index, axis, false, loc), src_part, caller, loc);
}

}  // namespace

Tensor scatter_add(const Tensor& x, int axis, const Tensor& index, const Tensor& src,
                   std::source_location loc) {
  return scatter_along(x, axis, index, src, ir::Op::ScatterAdd, ScatterCaller::scatter_add,
                       "scatter_add", loc);
}

namespace api {

Tensor scatter_gather_cotangent(const Tensor& zeros, int axis, const Tensor& index,
                                const Tensor& cotangent, ir::GatherCaller caller,
                                std::source_location loc) {
  const auto named =
      ScatterCaller(std::int64_t(ScatterCaller::gather_gradient) + std::int64_t(caller));
  return scatter_along(zeros, axis, index, cotangent, ir::Op::ScatterAdd, named,
                       ir::scatter_caller_name_of(named), loc);
}

Tensor named_scatter(const Tensor& x, int axis, const Tensor& index, const Tensor& src,
                     ScatterCaller caller, std::source_location loc) {
  return scatter_along(x, axis, index, src, ir::Op::ScatterLast, caller,
                       ir::scatter_caller_name_of(caller), loc);
}

}  // namespace api

Tensor scatter(const Tensor& x, int axis, const Tensor& index, const Tensor& src,
               std::source_location loc) {
  return scatter_along(x, axis, index, src, ir::Op::ScatterLast, ScatterCaller::scatter, "scatter",
                       loc);
}

Tensor scatter(const Tensor& x, int axis, const Tensor& index, const Scalar& value,
               std::source_location loc) {
  api::sync_if_trace_full();
  ir::Node* picks = api::node_of(index, "scatter", loc);
  ir::Node* target = api::node_of(x, "scatter", loc);
  const int rank = target->shape.rank();
  const int along = api::normalize_axis(axis, std::max(rank, 1), "scatter", loc);
  if (picks->shape.numel() == 0) return x;  // nothing to check, as for a src
  api::require_index(picks, "scatter", loc);
  // Checked here, where the user passed no src; a 0-d x or index reads as one element.
  if (std::max(picks->shape.rank(), 1) != std::max(rank, 1)) {
    api::fail<ShapeError>(loc, "scatter", "index of shape ", picks->shape.to_string(),
                          " needs the rank of x, which has shape ", target->shape.to_string());
  }
  for (int a = 0; a < std::min(rank, picks->shape.rank()); ++a) {
    if (a != along && picks->shape[a] > target->shape[a]) {
      api::fail<ShapeError>(loc, "scatter", "index of shape ", picks->shape.to_string(),
                            " is larger than x of shape ", target->shape.to_string(),
                            " along axis ", a, ", which it does not scatter along");
    }
  }
  const Tensor filled = api::scalar_of(x, value, "scatter", loc).expand(picks->shape, loc);
  return scatter(x, axis, index, filled, loc);
}

Tensor index_add(const Tensor& x, int axis, const Tensor& index, const Tensor& src,
                 const Scalar& alpha, std::source_location loc) {
  constexpr std::string_view name = "index_add";
  const auto [target, picks, from] = checked_operands(x, index, src, name, loc);
  api::require_index(picks, name, loc);
  if (picks->shape.rank() > 1) {
    api::fail<ShapeError>(loc, name, "needs a 1-d (or 0-d) index, got shape ",
                          picks->shape.to_string());
  }
  const int rank = target->shape.rank();
  if (from->shape.rank() != rank) {
    api::fail<ShapeError>(loc, name, "src of shape ", from->shape.to_string(),
                          " needs the rank of x, which has shape ", target->shape.to_string());
  }
  if (rank == 0) {
    api::normalize_axis(axis, 1, name, loc);
    if (picks->shape.numel() != 1) {
      api::fail<ShapeError>(loc, name, "a 0-d x and src take an index of one element, got shape ",
                            picks->shape.to_string());
    }
    return index_add(x.reshape({1}, loc), 0, index, src.reshape({1}, loc), alpha, loc)
        .reshape({}, loc);
  }
  axis = api::normalize_axis(axis, rank, name, loc);
  const std::int64_t count = picks->shape.numel();
  Shape expected = target->shape;
  expected[axis] = count;
  if (from->shape != expected) {
    api::fail<ShapeError>(loc, name, "src of shape ", from->shape.to_string(), " must be ",
                          expected.to_string(), ": x's shape with the index's length along axis ",
                          axis);
  }
  if (!is_floating(target->dtype) && alpha.kind() == Scalar::Kind::floating &&
      !(std::trunc(alpha.to_double()) == alpha.to_double())) {
    api::fail<DTypeError>(loc, name, "alpha = ", alpha.to_double(),
                          " is not a whole number, which ", dtype_name(target->dtype), " needs");
  }
  if (count == 0) return x;
  require_room(target->shape, axis, name, loc);
  const Tensor scaled =
      alpha.to_double() == 1 ? src : mul(src, api::scalar_of(x, alpha, name, loc), loc);
  // One sort of the index serves every line along the axis: broadcast along the others.
  Shape line(std::vector<std::int64_t>(std::size_t(rank), 1));
  line[axis] = count;
  const ValuesAndIndices sorted = sort(index.reshape({count}, loc), 0, false, loc);
  const ValuesAndIndices broadcast = {sorted.values.reshape(line, loc).expand(expected, loc),
                                      sorted.indices.reshape(line, loc).expand(expected, loc)};
  return record_scatter(ir::Op::ScatterAdd, x, axis, broadcast, scaled, ScatterCaller::index_add,
                        loc);
}

}  // namespace lazy

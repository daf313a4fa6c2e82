// Top-k and sort: two nodes over the input's last axis (values and positions), which one kernel
// computes; another axis is moved last first (api/last_axis.h). A sort is a top-k of every element.
#include <cstdint>
#include <optional>

#include "api/last_axis.h"
#include "api/recording.h"
#include "lazy/ordering.h"

namespace lazy {

using ir::Op;

namespace {

// The best k along `axis` (all of them, best first, for `sort`), named `op` in errors.
ValuesAndIndices best_along(const Tensor& x, std::optional<std::int64_t> k, int axis, bool largest,
                            const char* op, std::source_location loc) {
  api::sync_if_trace_full();
  ir::Node* input = api::node_of(x, op, loc);
  const int rank = input->shape.rank();
  if (rank == 0) {
    api::normalize_axis(axis, 1, op, loc);
    if (k && (*k < 0 || *k > 1)) {
      api::fail<ValueError>(loc, op, "k = ", *k,
                            " is outside [0, 1] for a 0-d tensor (one element)");
    }
    // PyTorch's top-k of a 0-d tensor is the tensor itself and index 0 for k 0 too.
    const std::optional<std::int64_t> picked = k == 0 ? std::optional<std::int64_t>(1) : k;
    ValuesAndIndices one = best_along(x.reshape({1}, loc), picked, 0, largest, op, loc);
    return {one.values.reshape({}, loc), one.indices.reshape({}, loc)};
  }
  axis = api::normalize_axis(axis, rank, op, loc);
  const std::int64_t extent = input->shape[axis];
  if (k && (*k < 0 || *k > extent)) {
    api::fail<ValueError>(loc, op, "k = ", *k, " is outside [0, ", extent, "], the size of axis ",
                          axis, " of ", input->shape.to_string());
  }
  if (extent > std::int64_t(UINT32_MAX)) {
    api::fail<ValueError>(loc, op, "an axis of ", extent,
                          " elements is longer than its kernel indexes (2^32 - 1)");
  }
  const Tensor last = api::axis_to_last(x, axis, loc);
  Shape shape = last.node()->shape;
  shape[rank - 1] = k.value_or(extent);
  std::vector<Tensor> out;
  for (Op op : {Op::TopK, Op::TopKIndex}) {
    const DType dtype = op == Op::TopK ? input->dtype : DType::i64;
    ir::NodePtr node = ir::make_node(op, dtype, shape, loc);
    node->compute_dtype = is_floating(input->dtype) ? DType::f32 : input->dtype;
    node->attrs.push(shape[rank - 1]);
    node->attrs.push(largest ? 1 : 0);
    node->inputs.push_back(last.node());
    Tensor picked = api::record(std::move(node));
    out.push_back(api::last_to_axis(picked, axis, loc));
  }
  return {out[0], out[1]};
}

}  // namespace

ValuesAndIndices topk(const Tensor& x, std::int64_t k, int axis, bool largest,
                      std::source_location loc) {
  return best_along(x, k, axis, largest, "topk", loc);
}

ValuesAndIndices sort(const Tensor& x, int axis, bool descending, std::source_location loc) {
  return best_along(x, std::nullopt, axis, descending, "sort", loc);
}

Tensor argsort(const Tensor& x, int axis, bool descending, std::source_location loc) {
  return best_along(x, std::nullopt, axis, descending, "argsort", loc).indices;
}

}  // namespace lazy

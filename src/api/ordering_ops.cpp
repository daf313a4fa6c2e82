// Top-k: two nodes over the input's last axis (values and positions), which one kernel computes;
// top-k over another axis is recorded over it moved last (api/last_axis.h).
#include <cstdint>

#include "api/last_axis.h"
#include "api/recording.h"
#include "lazy/ordering.h"

namespace lazy {

using ir::Op;

ValuesAndIndices topk(const Tensor& x, std::int64_t k, int axis, bool largest,
                      std::source_location loc) {
  api::sync_if_trace_full();
  const ir::NodePtr& input = api::node_of(x, "topk", loc);
  const int rank = input->shape.rank();
  if (rank == 0) {
    api::normalize_axis(axis, 1, "topk", loc);
    ValuesAndIndices one = topk(x.reshape({1}, loc), k, 0, largest, loc);
    if (k == 0) return one;  // nothing picked: [0], as PyTorch
    return {one.values.reshape({}, loc), one.indices.reshape({}, loc)};
  }
  axis = api::normalize_axis(axis, rank, "topk", loc);
  const std::int64_t extent = input->shape[axis];
  if (k < 0 || k > extent) {
    api::fail<ValueError>(loc, "topk", "k = ", k, " is outside [0, ", extent,
                          "], the size of axis ", axis, " of ", input->shape.to_string());
  }
  if (extent > std::int64_t(UINT32_MAX)) {
    api::fail<ValueError>(loc, "topk", "an axis of ", extent,
                          " elements is longer than a top-k kernel indexes (2^32 - 1)");
  }
  if (k > kMaxTopK) {
    api::fail<ValueError>(loc, "topk", "k = ", k, " is more than the ", kMaxTopK,
                          " elements a top-k kernel selects; take fewer");
  }
  const Tensor last = api::axis_to_last(x, axis, loc);
  Shape shape = last.node()->shape;
  shape[rank - 1] = k;
  std::vector<Tensor> out;
  for (Op op : {Op::TopK, Op::TopKIndex}) {
    const DType dtype = op == Op::TopK ? input->dtype : DType::i64;
    ir::NodePtr node = ir::make_node(op, dtype, shape, loc);
    node->compute_dtype = is_floating(input->dtype) ? DType::f32 : input->dtype;
    node->attrs.push(k);
    node->attrs.push(largest ? 1 : 0);
    node->inputs.push_back(last.node());
    Tensor picked = api::record(node);
    out.push_back(api::last_to_axis(picked, axis, loc));
  }
  return {out[0], out[1]};
}

}  // namespace lazy

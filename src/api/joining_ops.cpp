// Joining tensors along an axis: one Concat node, whose kernel computes each input's part.
#include "api/recording.h"
#include "ir/type_promotion.h"
#include "lazy/indexing.h"

namespace lazy {

Tensor cat(const std::vector<Tensor>& tensors, int axis, std::source_location loc) {
  api::sync_if_trace_full();
  if (tensors.empty()) api::fail<ValueError>(loc, "cat", "needs at least one tensor");
  const Shape& first = api::node_of(tensors[0], "cat", loc)->shape;
  if (first.rank() == 0) {
    api::fail<ShapeError>(loc, "cat", "cannot join 0-d tensors along an axis; use lazy::stack");
  }
  axis = api::normalize_axis(axis, first.rank(), "cat", loc);
  DType dtype = tensors[0].node()->dtype;
  Shape joined = first;
  joined[axis] = 0;
  for (std::size_t k = 0; k < tensors.size(); ++k) {
    ir::Node* node = api::node_of(tensors[k], "cat", loc);
    bool agrees = node->shape.rank() == first.rank();
    for (int a = 0; agrees && a < first.rank(); ++a)
      agrees = a == axis || node->shape[a] == first[a];
    if (!agrees) {
      api::fail<ShapeError>(loc, "cat", "tensor ", k, " has shape ", node->shape.to_string(),
                            " but tensor 0 has shape ", first.to_string(),
                            ": they must agree on every axis but ", axis);
    }
    dtype = ir::promote_types(dtype, node->dtype);
    joined[axis] += node->shape[axis];
  }
  api::check_shape(joined, "cat", loc);
  if (tensors.size() == 1) return tensors[0];
  // Converted first, held by handles: a sync on the way computes them rather than drop them.
  std::vector<Tensor> converted;
  converted.reserve(tensors.size());
  for (const Tensor& t : tensors) converted.push_back(t.to(dtype, loc));
  ir::NodePtr node = ir::make_node(ir::Op::Concat, dtype, joined, loc);
  node->attrs.push(axis);
  for (const Tensor& t : converted) node->inputs.push_back(t.node());
  return api::record(std::move(node));
}

Tensor stack(const std::vector<Tensor>& tensors, int axis, std::source_location loc) {
  api::sync_if_trace_full();
  if (tensors.empty()) api::fail<ValueError>(loc, "stack", "needs at least one tensor");
  const Shape& first = api::node_of(tensors[0], "stack", loc)->shape;
  axis = api::normalize_axis(axis, first.rank() + 1, "stack", loc);
  std::vector<Tensor> unsqueezed;
  unsqueezed.reserve(tensors.size());
  for (std::size_t k = 0; k < tensors.size(); ++k) {
    const Shape& shape = api::node_of(tensors[k], "stack", loc)->shape;
    if (shape != first) {
      api::fail<ShapeError>(loc, "stack", "tensor ", k, " has shape ", shape.to_string(),
                            " but tensor 0 has shape ", first.to_string(),
                            ": stacked tensors must have one shape");
    }
    unsqueezed.push_back(tensors[k].unsqueeze(axis, loc));
  }
  return cat(unsqueezed, axis, loc);
}

}  // namespace lazy

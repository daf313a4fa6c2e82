// Joining tensors along an axis: one Concat node, whose kernel computes each input's part.
#include <algorithm>
#include <span>

#include "api/recording.h"
#include "ir/type_promotion.h"
#include "lazy/factories.h"
#include "lazy/indexing.h"

namespace lazy {

namespace {

// PyTorch's legacy rule: a 1-d tensor of size 0 joins anything along any axis (it is skipped),
// though its dtype still takes part in the promotion.
bool is_legacy_empty(const Shape& shape) {
  return shape.rank() == 1 && shape[0] == 0;
}

// One Concat of `parts` (of one dtype, agreeing off `axis`), or of their groups of
// ir::kMaxConcatParts.
Tensor join(std::span<const Tensor> parts, int axis, std::source_location loc) {
  if (parts.size() == 1) return parts[0];
  if (parts.size() > ir::kMaxConcatParts) {
    std::vector<Tensor> groups;
    for (std::size_t g = 0; g < parts.size(); g += ir::kMaxConcatParts)
      groups.push_back(
          join(parts.subspan(g, std::min(ir::kMaxConcatParts, parts.size() - g)), axis, loc));
    return join(groups, axis, loc);
  }
  Shape joined = parts[0].node()->shape;
  joined[axis] = 0;
  for (const Tensor& t : parts) joined[axis] += t.node()->shape[axis];
  ir::NodePtr node = ir::make_node(ir::Op::Concat, parts[0].node()->dtype, joined, loc);
  node->attrs.push(axis);
  for (const Tensor& t : parts) node->inputs.push_back(t.node());
  return api::record(std::move(node));
}

}  // namespace

Tensor cat(const std::vector<Tensor>& tensors, int axis, std::source_location loc) {
  api::sync_if_trace_full();
  if (tensors.empty()) api::fail<ValueError>(loc, "cat", "needs at least one tensor");
  DType dtype = api::node_of(tensors[0], "cat", loc)->dtype;
  std::size_t reference = 0;  // the first tensor that is not skipped, else the first
  bool found = false;
  for (std::size_t k = 0; k < tensors.size(); ++k) {
    const ir::Node* node = api::node_of(tensors[k], "cat", loc);
    if (node->shape.rank() == 0) {
      api::fail<ShapeError>(loc, "cat", "tensor ", k,
                            " is 0-d and cannot be joined along an axis; use lazy::stack");
    }
    dtype = ir::promote_types(dtype, node->dtype);
    if (!found && !is_legacy_empty(node->shape)) reference = k, found = true;
  }
  // Only skipped tensors: PyTorch's legacy rule leaves the axis unchecked and gives [0].
  if (!found) return zeros({0}, dtype, loc);
  const Shape& first = tensors[reference].node()->shape;
  axis = api::normalize_axis(axis, first.rank(), "cat", loc);
  Shape joined = first;
  joined[axis] = 0;
  std::vector<Tensor> joining;  // converted first, held by handles: a sync on the way computes them
  joining.reserve(tensors.size());
  for (std::size_t k = 0; k < tensors.size(); ++k) {
    const Shape& shape = tensors[k].node()->shape;
    if (k != reference && is_legacy_empty(shape)) continue;
    bool agrees = shape.rank() == first.rank();
    for (int a = 0; agrees && a < first.rank(); ++a) agrees = a == axis || shape[a] == first[a];
    if (!agrees) {
      api::fail<ShapeError>(loc, "cat", "tensor ", k, " has shape ", shape.to_string(),
                            " but tensor ", reference, " has shape ", first.to_string(),
                            ": they must agree on every axis but ", axis);
    }
    if (shape[axis] > kMaxElements - joined[axis]) {  // the sum would wrap before check_shape
      api::fail<ShapeError>(loc, "cat", "the sizes along axis ", axis, " of the ", tensors.size(),
                            " tensors add up to more than 2^60, the most a tensor "
                            "can hold");
    }
    joined[axis] += shape[axis];
    joining.push_back(tensors[k]);
  }
  api::check_shape(joined, "cat", loc);
  for (Tensor& t : joining) t = t.to(dtype, loc);
  return join(joining, axis, loc);
}

Tensor stack(const std::vector<Tensor>& tensors, int axis, std::source_location loc) {
  api::sync_if_trace_full();
  if (tensors.empty()) api::fail<ValueError>(loc, "stack", "needs at least one tensor");
  const Shape& first = api::node_of(tensors[0], "stack", loc)->shape;
  api::require_room_for_an_axis(first, "stack", loc);
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

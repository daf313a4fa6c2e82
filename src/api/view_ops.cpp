// Views: index maps over one input, recorded as nodes and never copied.
#include <algorithm>
#include <array>

#include <absl/strings/str_join.h>

#include "api/recording.h"
#include "lazy/tensor.h"

namespace lazy {

namespace {

using ir::Op;

Tensor view(Op op, ir::Node* input, const Shape& shape, const ir::Attrs& attrs,
            std::source_location loc) {
  ir::NodePtr node = ir::make_node(op, input->dtype, shape, loc);
  node->attrs = attrs;
  node->inputs.push_back(input);
  return api::record(std::move(node));
}

}  // namespace

Tensor Tensor::reshape(const Shape& shape, std::source_location loc) const {
  api::sync_if_trace_full();
  ir::Node* in = api::node_of(*this, "reshape", loc);
  Shape target = shape;
  int inferred_axis = -1;
  for (int axis = 0; axis < target.rank(); ++axis) {
    if (target[axis] == -1 && inferred_axis == -1) {
      inferred_axis = axis;
      target[axis] = 1;  // until it is inferred, so that the other sizes are checked alone
    } else if (target[axis] < 0) {
      api::fail<ShapeError>(loc, "reshape", "bad target shape ", shape.to_string(),
                            ": sizes must be non-negative, with at most one -1");
    }
  }
  std::int64_t numel = in->shape.numel();
  if (inferred_axis >= 0) {
    // The other sizes' product, checked for overflow: the shape is checked once -1 is known.
    std::int64_t known = 1;
    bool overflows = false;
    for (std::int64_t size : target)
      overflows = overflows || __builtin_mul_overflow(known, size, &known);
    if (!overflows && known == 0 && numel == 0) {
      api::fail<ShapeError>(loc, "reshape", "cannot reshape ", in->shape.to_string(), " to ",
                            shape.to_string(),
                            ": beside a size of 0 the -1 could be any size; "
                            "give it explicitly");
    }
    if (overflows || known == 0 || numel % known != 0) {
      api::fail<ShapeError>(loc, "reshape", "cannot reshape ", in->shape.to_string(), " (", numel,
                            " elements) to ", shape.to_string());
    }
    target[inferred_axis] = numel / known;
  }
  api::check_shape(target, "reshape", loc);
  if (target.numel() != numel) {
    api::fail<ShapeError>(loc, "reshape", "cannot reshape ", in->shape.to_string(), " (", numel,
                          " elements) to ", shape.to_string(), " (", target.numel(), " elements)");
  }
  if (target == in->shape) return *this;
  return view(Op::Reshape, in, target, {}, loc);
}

Tensor Tensor::permute(std::span<const int> axes, std::source_location loc) const {
  api::sync_if_trace_full();
  ir::Node* in = api::node_of(*this, "permute", loc);
  int rank = in->shape.rank();
  if (int(axes.size()) != rank) {
    api::fail<AxisError>(loc, "permute", "got ", axes.size(), " axes (", absl::StrJoin(axes, ", "),
                         ") for a tensor of rank ", rank);
  }
  ir::Attrs attrs;
  Shape shape;
  std::array<bool, kMaxRank> seen{};
  bool identity = true;
  for (int i = 0; i < rank; ++i) {
    int axis = api::normalize_axis(axes[i], rank, "permute", loc);
    if (seen[axis]) {
      api::fail<AxisError>(loc, "permute", "axes (", absl::StrJoin(axes, ", "), ") repeat axis ",
                           axis);
    }
    seen[axis] = true;
    identity = identity && axis == i;
    attrs.push(axis);
    shape.push_back(in->shape[axis]);
  }
  if (identity) return *this;
  return view(Op::Permute, in, shape, attrs, loc);
}

Tensor Tensor::permute(std::initializer_list<int> axes, std::source_location loc) const {
  return permute(std::span(axes.begin(), axes.size()), loc);
}

Tensor Tensor::transpose(int axis0, int axis1, std::source_location loc) const {
  int rank = api::node_of(*this, "transpose", loc)->shape.rank();
  // As PyTorch, a 0-d tensor takes axes 0 and -1, and stays as it is.
  axis0 = api::normalize_axis(axis0, std::max(rank, 1), "transpose", loc);
  axis1 = api::normalize_axis(axis1, std::max(rank, 1), "transpose", loc);
  if (rank == 0) return *this;
  std::array<int, kMaxRank> axes;
  for (int i = 0; i < rank; ++i) axes[i] = i;
  std::swap(axes[axis0], axes[axis1]);
  return permute(std::span<const int>(axes.data(), rank), loc);
}

Tensor Tensor::expand(const Shape& shape, std::source_location loc) const {
  api::sync_if_trace_full();
  ir::Node* in = api::node_of(*this, "expand", loc);
  int lead = shape.rank() - in->shape.rank();
  Shape target = shape;
  bool ok = lead >= 0;
  for (int axis = 0; ok && axis < shape.rank(); ++axis) {
    int in_axis = axis - lead;
    if (in_axis < 0) {
      ok = shape[axis] >= 0;
      continue;
    }
    if (target[axis] == -1) target[axis] = in->shape[in_axis];
    ok = target[axis] >= 0 && (in->shape[in_axis] == target[axis] || in->shape[in_axis] == 1);
  }
  if (!ok) {
    api::fail<ShapeError>(loc, "expand", "cannot broadcast ", in->shape.to_string(), " to ",
                          shape.to_string());
  }
  api::check_shape(target, "expand", loc);
  if (target == in->shape) return *this;
  return view(Op::Expand, in, target, {}, loc);
}

Tensor Tensor::broadcast_to(const Shape& shape, std::source_location loc) const {
  return expand(shape, loc);
}

// Python's slice.indices(): defaults and clamping depend on the step's sign.
Tensor Tensor::slice(int axis, std::optional<std::int64_t> start, std::optional<std::int64_t> stop,
                     std::int64_t step, std::source_location loc) const {
  api::sync_if_trace_full();
  ir::Node* in = api::node_of(*this, "slice", loc);
  axis = api::normalize_axis(axis, in->shape.rank(), "slice", loc);
  if (step == 0) api::fail<ValueError>(loc, "slice", "step must not be 0");
  std::int64_t n = in->shape[axis];
  auto clamp_index = [&](std::int64_t i) {
    if (i < 0) i += n;
    if (step > 0) return std::clamp<std::int64_t>(i, 0, n);
    return std::clamp<std::int64_t>(i, -1, n - 1);
  };
  std::int64_t first = start ? clamp_index(*start) : (step > 0 ? 0 : n - 1);
  std::int64_t last = stop ? clamp_index(*stop) : (step > 0 ? n : -1);
  // Counted without negating or adding to step, which may be an extreme int64.
  std::int64_t length = 0;
  if (step > 0 && last > first) length = (last - first - 1) / step + 1;
  if (step < 0 && first > last) length = (last - first + 1) / step + 1;
  if (length == 0) first = 0;
  // One element or none has no stride to walk; step 1 keeps a huge step out of the strides.
  if (length <= 1) step = 1;
  if (length == n && step == 1) return *this;
  Shape shape = in->shape;
  shape[axis] = length;
  ir::Attrs attrs;
  attrs.push(axis);
  attrs.push(first);
  attrs.push(step);
  return view(Op::Slice, in, shape, attrs, loc);
}

Tensor Tensor::squeeze(std::source_location loc) const {
  ir::Node* in = api::node_of(*this, "squeeze", loc);
  Shape shape;
  for (std::int64_t dim : in->shape)
    if (dim != 1) shape.push_back(dim);
  return reshape(shape, loc);
}

Tensor Tensor::squeeze(int axis, std::source_location loc) const {
  ir::Node* in = api::node_of(*this, "squeeze", loc);
  // As PyTorch: a 0-d tensor takes axes 0 and -1, and an axis of another size than 1 stays.
  axis = api::normalize_axis(axis, std::max(in->shape.rank(), 1), "squeeze", loc);
  if (in->shape.rank() == 0 || in->shape[axis] != 1) return *this;
  Shape shape;
  for (int i = 0; i < in->shape.rank(); ++i)
    if (i != axis) shape.push_back(in->shape[i]);
  return reshape(shape, loc);
}

Tensor Tensor::unsqueeze(int axis, std::source_location loc) const {
  ir::Node* in = api::node_of(*this, "unsqueeze", loc);
  int rank = in->shape.rank();
  api::require_room_for_an_axis(in->shape, "unsqueeze", loc);
  axis = api::normalize_axis(axis, rank + 1, "unsqueeze", loc);
  Shape shape;
  for (int i = 0; i < rank; ++i) {
    if (i == axis) shape.push_back(1);
    shape.push_back(in->shape[i]);
  }
  if (axis == rank) shape.push_back(1);
  return reshape(shape, loc);
}

Tensor Tensor::flatten(int start_axis, int end_axis, std::source_location loc) const {
  ir::Node* in = api::node_of(*this, "flatten", loc);
  int rank = in->shape.rank();
  // A 0-d tensor takes axis 0 or -1 (its one element), as in PyTorch.
  start_axis = api::normalize_axis(start_axis, std::max(rank, 1), "flatten", loc);
  end_axis = api::normalize_axis(end_axis, std::max(rank, 1), "flatten", loc);
  if (rank == 0) return reshape(Shape{1}, loc);
  if (start_axis > end_axis) {
    api::fail<AxisError>(loc, "flatten", "start axis ", start_axis, " comes after end axis ",
                         end_axis);
  }
  Shape shape;
  for (int i = 0; i < start_axis; ++i) shape.push_back(in->shape[i]);
  std::int64_t merged = 1;
  for (int i = start_axis; i <= end_axis; ++i) merged *= in->shape[i];
  shape.push_back(merged);
  for (int i = end_axis + 1; i < rank; ++i) shape.push_back(in->shape[i]);
  return reshape(shape, loc);
}

Tensor Tensor::contiguous(std::source_location loc) const {
  api::sync_if_trace_full();
  ir::Node* in = api::node_of(*this, "contiguous", loc);
  if (in->data && in->data->layout.is_contiguous()) return *this;
  return view(Op::Contiguous, in, in->shape, {}, loc);
}

}  // namespace lazy

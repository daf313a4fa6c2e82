#include "ir/layout.h"

namespace lazy::ir {

Layout Layout::contiguous(const Shape& shape) {
  Layout layout;
  layout.shape = shape;
  std::int64_t stride = 1;
  for (int axis = shape.rank() - 1; axis >= 0; --axis) {
    layout.strides[axis] = stride;
    stride *= shape[axis];
  }
  return layout;
}

bool Layout::is_contiguous() const {
  std::int64_t expected = 1;
  for (int axis = shape.rank() - 1; axis >= 0; --axis) {
    if (shape[axis] != 1 && strides[axis] != expected) return false;
    expected *= shape[axis];
  }
  return true;
}

Layout permute_layout(const Layout& in, std::span<const std::int64_t> axes) {
  Layout out;
  out.offset = in.offset;
  for (std::size_t i = 0; i < axes.size(); ++i) {
    out.shape.push_back(in.shape[int(axes[i])]);
    out.strides[i] = in.strides[axes[i]];
  }
  return out;
}

Layout expand_layout(const Layout& in, const Shape& shape) {
  Layout out;
  out.shape = shape;
  out.offset = in.offset;
  int lead = shape.rank() - in.shape.rank();
  for (int axis = 0; axis < shape.rank(); ++axis) {
    int in_axis = axis - lead;
    bool kept = in_axis >= 0 && in.shape[in_axis] == shape[axis];
    out.strides[axis] = kept ? in.strides[in_axis] : 0;
  }
  return out;
}

Layout slice_layout(const Layout& in, int axis, std::int64_t start, std::int64_t step,
                    std::int64_t length) {
  Layout out = in;
  out.shape[axis] = length;
  if (length > 0) out.offset += start * in.strides[axis];
  out.strides[axis] = in.strides[axis] * step;
  return out;
}

// Walks both shapes in chunks of equal element count; each input chunk must be stride-contiguous
// for the output dims of that chunk to be given strides (the rule PyTorch's view() uses).
std::optional<Layout> reshape_layout(const Layout& in, const Shape& shape) {
  if (in.is_contiguous()) {
    Layout out = Layout::contiguous(shape);
    out.offset = in.offset;
    return out;
  }
  Layout out;
  out.shape = shape;
  out.offset = in.offset;
  if (shape.numel() == 0) return Layout{Layout::contiguous(shape)};
  int view_axis = shape.rank() - 1;
  std::int64_t chunk_base_stride = in.strides[in.shape.rank() - 1];
  std::int64_t tensor_numel = 1;
  std::int64_t view_numel = 1;
  for (int axis = in.shape.rank() - 1; axis >= 0; --axis) {
    tensor_numel *= in.shape[axis];
    bool chunk_ends = axis == 0 || (in.shape[axis - 1] != 1 &&
                                    in.strides[axis - 1] != tensor_numel * chunk_base_stride);
    if (chunk_ends) {
      while (view_axis >= 0 && (view_numel < tensor_numel || shape[view_axis] == 1)) {
        out.strides[view_axis] = view_numel * chunk_base_stride;
        view_numel *= shape[view_axis];
        --view_axis;
      }
      if (view_numel != tensor_numel) return std::nullopt;
      if (axis > 0) {
        chunk_base_stride = in.strides[axis - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  if (view_axis != -1) return std::nullopt;
  return out;
}

}  // namespace lazy::ir

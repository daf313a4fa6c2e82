// Views along one axis that PyTorch names separately: narrow, unbind and flip, each a slice.
#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "api/recording.h"
#include "lazy/indexing.h"

namespace lazy {

Tensor narrow(const Tensor& x, int axis, std::int64_t start, std::int64_t length,
              std::source_location loc) {
  api::sync_if_trace_full();
  const Shape& shape = api::node_of(x, "narrow", loc)->shape;
  if (shape.rank() == 0) api::fail<ShapeError>(loc, "narrow", "cannot narrow a 0-d tensor");
  axis = api::normalize_axis(axis, shape.rank(), "narrow", loc);
  const std::int64_t extent = shape[axis];
  if (start < -extent || start > extent) {
    api::fail<IndexError>(loc, "narrow", "start ", start, " is outside [", -extent, ", ", extent,
                          "] for axis ", axis, " of shape ", shape.to_string());
  }
  if (start < 0) start += extent;
  if (length < 0) api::fail<ValueError>(loc, "narrow", "length must be >= 0, got ", length);
  if (length > extent - start) {
    api::fail<ShapeError>(loc, "narrow", "start ", start, " + length ", length, " is past the ",
                          extent, " elements along axis ", axis, " of shape ", shape.to_string());
  }
  return x.slice(axis, start, start + length, 1, loc);
}

std::vector<Tensor> unbind(const Tensor& x, int axis, std::source_location loc) {
  api::sync_if_trace_full();
  const Shape& shape = api::node_of(x, "unbind", loc)->shape;
  if (shape.rank() == 0) api::fail<ShapeError>(loc, "unbind", "cannot unbind a 0-d tensor");
  axis = api::normalize_axis(axis, shape.rank(), "unbind", loc);
  std::vector<Tensor> slices;
  slices.reserve(std::size_t(shape[axis]));
  for (std::int64_t i = 0; i < shape[axis]; ++i)
    slices.push_back(x.slice(axis, i, i + 1, 1, loc).squeeze(axis, loc));
  return slices;
}

Tensor flip(const Tensor& x, std::span<const int> axes, std::source_location loc) {
  api::sync_if_trace_full();
  const int rank = api::node_of(x, "flip", loc)->shape.rank();
  std::array<bool, kMaxRank> named{};
  Tensor flipped = x;
  for (int axis : axes) {
    const int a = api::normalize_axis(axis, std::max(rank, 1), "flip", loc);  // 0-d: axis 0 or -1
    if (named[a]) api::fail<AxisError>(loc, "flip", "axis ", a, " is named twice");
    named[a] = true;
    if (rank > 0) flipped = flipped.slice(a, std::nullopt, std::nullopt, -1, loc);
  }
  return flipped;
}

Tensor flip(const Tensor& x, std::initializer_list<int> axes, std::source_location loc) {
  return flip(x, std::span<const int>(axes.begin(), axes.size()), loc);
}

}  // namespace lazy

// repeat, tile and roll: views (unsqueeze, expand, slices) joined by reshape and cat, so they fuse
// with their neighbours and differentiate as those do.
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "api/composites.h"
#include "api/recording.h"
#include "lazy/factories.h"
#include "lazy/indexing.h"

namespace lazy {

namespace {

// x's copies along each axis side by side (repeat's counts, checked, at least x's rank): leading
// 1s for the new axes; then each repeated axis, seen as [outer, extent, inner], takes its copies
// as [outer, count, extent, inner] (at most 4 axes whatever x's rank).
Tensor copied_side_by_side(const Tensor& x, const std::vector<std::int64_t>& repeats,
                           std::source_location loc) {
  const Shape& shape = x.node()->shape;
  const int rank = int(repeats.size());
  Shape current;
  for (int a = 0; a < rank; ++a) {
    const int own = a - (rank - shape.rank());
    current.push_back(own >= 0 ? shape[own] : 1, loc);
  }
  Tensor out = x.reshape(current, loc);
  for (int a = 0; a < rank; ++a) {
    const std::int64_t count = repeats[std::size_t(a)];
    if (count == 1) continue;
    std::int64_t outer = 1, inner = 1;
    for (int b = 0; b < a; ++b) outer *= current[b];
    for (int b = a + 1; b < rank; ++b) inner *= current[b];
    const std::int64_t extent = current[a];
    out = out.reshape({outer, extent, inner}, loc)
              .unsqueeze(1, loc)
              .expand({outer, count, extent, inner}, loc);
    current[a] = extent * count;
    out = out.reshape(current, loc);
  }
  return out;
}

// repeat, named in errors as `name` (tile's counts padded first).
Tensor repeated(const Tensor& x, const std::vector<std::int64_t>& repeats, std::string_view name,
                std::source_location loc) {
  api::sync_if_trace_full();
  const Shape& shape = api::node_of(x, name, loc)->shape;
  const int rank = int(repeats.size());
  if (rank < shape.rank()) {
    api::fail<ShapeError>(loc, name, "needs a count for each of the ", shape.rank(),
                          " axes of shape ", shape.to_string(), ", got ", rank,
                          "; tile pads missing counts with 1s");
  }
  if (rank > kMaxRank) {
    api::fail<ShapeError>(loc, name, rank, " counts make more than ", kMaxRank, " axes");
  }
  Shape result;
  for (int a = 0; a < rank; ++a) {
    const std::int64_t count = repeats[std::size_t(a)];
    if (count < 0) {
      api::fail<ValueError>(loc, name, "counts must be >= 0, got ", count, " for axis ", a);
    }
    const int own = a - (rank - shape.rank());
    const std::int64_t extent = own >= 0 ? shape[own] : 1;
    if (extent != 0 && count > kMaxElements / extent) {
      api::fail<ShapeError>(loc, name, "repeating shape ", shape.to_string(), " makes more ",
                            "than 2^60 elements along axis ", a);
    }
    result.push_back(extent * count, loc);
  }
  api::check_shape(result, name, loc);
  if (result.numel() == 0) return zeros(result, x.dtype(), loc);  // nothing of x is read
  // The copies' gradients add up, in f32 for f16 and bf16.
  return api::adding_copies_in_f32(
      x, loc, [&](const Tensor& v) { return copied_side_by_side(v, repeats, loc); });
}

}  // namespace

Tensor repeat(const Tensor& x, const std::vector<std::int64_t>& repeats, std::source_location loc) {
  return repeated(x, repeats, "repeat", loc);
}

Tensor tile(const Tensor& x, const std::vector<std::int64_t>& repeats, std::source_location loc) {
  const int rank = api::node_of(x, "tile", loc)->shape.rank();
  std::vector<std::int64_t> counts(repeats);
  if (int(counts.size()) < rank)
    counts.insert(counts.begin(), std::size_t(rank) - counts.size(), 1);
  return repeated(x, counts, "tile", loc);
}

namespace {

// x rolled by `shift` along one axis: its last `shift` elements (Python's modulo of the extent)
// joined before the others.
Tensor roll_along(const Tensor& x, std::int64_t shift, int axis, std::source_location loc) {
  const std::int64_t extent = x.node()->shape[axis];
  if (extent == 0) return x;
  const std::int64_t moved = ((shift % extent) + extent) % extent;
  if (moved == 0) return x;
  return cat(
      {x.slice(axis, extent - moved, extent, 1, loc), x.slice(axis, 0, extent - moved, 1, loc)},
      axis, loc);
}

}  // namespace

Tensor roll(const Tensor& x, const std::vector<std::int64_t>& shifts, const std::vector<int>& axes,
            std::source_location loc) {
  api::sync_if_trace_full();
  const Shape& shape = api::node_of(x, "roll", loc)->shape;
  if (axes.empty()) {
    if (shifts.size() != 1) {
      api::fail<ValueError>(loc, "roll", "without axes takes one shift (x rolls as if flattened), ",
                            "got ", shifts.size());
    }
    return roll_along(x.reshape({-1}, loc), shifts[0], 0, loc).reshape(shape, loc);
  }
  if (shifts.size() != axes.size()) {
    api::fail<ValueError>(loc, "roll", "takes one shift per axis, got ", shifts.size(),
                          " shifts for ", axes.size(), " axes");
  }
  Tensor out = x;
  for (std::size_t i = 0; i < axes.size(); ++i) {
    const int axis = api::normalize_axis(axes[i], shape.rank(), "roll", loc);
    out = roll_along(out, shifts[i], axis, loc);
  }
  return out;
}

Tensor roll(const Tensor& x, std::int64_t shift, std::optional<int> axis,
            std::source_location loc) {
  if (!axis) return roll(x, std::vector<std::int64_t>{shift}, std::vector<int>{}, loc);
  return roll(x, std::vector<std::int64_t>{shift}, std::vector<int>{*axis}, loc);
}

}  // namespace lazy

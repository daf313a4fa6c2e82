#include "autodiff/slice_pieces.h"

#include <algorithm>

#include "lazy/factories.h"
#include "lazy/indexing.h"
#include "lazy/ops.h"

namespace lazy::autodiff {

Tensor pad_with_zeros(const Tensor& t, int axis, std::int64_t before, std::int64_t after,
                      std::source_location loc) {
  std::vector<Tensor> parts;
  const auto zeros = [&](std::int64_t count) {
    Shape shape = t.shape(loc);
    shape[axis] = count;
    return lazy::zeros(shape, t.dtype(), loc);
  };
  if (before > 0) parts.push_back(zeros(before));
  parts.push_back(t);
  if (after > 0) parts.push_back(zeros(after));
  return parts.size() == 1 ? t : lazy::cat(parts, axis, loc);
}

std::optional<SlicePiece> slice_piece(const ir::Node& slice, const Tensor& cotangent,
                                      std::source_location loc) {
  const int axis = int(slice.attrs[0]);
  const std::int64_t start = slice.attrs[1], step = slice.attrs[2];
  const std::int64_t count = slice.shape[axis];
  if (count == 0 || (step != 1 && step != -1)) return std::nullopt;
  // In increasing positions: a step of -1 read them backwards.
  if (step == 1) return SlicePiece{axis, start, count, cotangent};
  return SlicePiece{axis, start - (count - 1), count, cotangent.slice(axis, {}, {}, -1, loc)};
}

Tensor join_pieces(std::vector<SlicePiece> pieces, const ir::Node& sliced,
                   std::source_location loc) {
  const int axis = pieces.front().axis;
  const std::int64_t extent = sliced.shape[axis];
  std::sort(pieces.begin(), pieces.end(),
            [](const SlicePiece& a, const SlicePiece& b) { return a.first < b.first; });
  bool side_by_side = true;
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    side_by_side = side_by_side && pieces[i].axis == axis &&
                   (i == 0 || pieces[i - 1].first + pieces[i - 1].count <= pieces[i].first);
  }
  if (!side_by_side) {
    Tensor sum;
    for (const SlicePiece& p : pieces) {
      Tensor padded = pad_with_zeros(p.cotangent, p.axis, p.first,
                                     sliced.shape[p.axis] - p.first - p.count, loc);
      sum = sum.node() == nullptr ? padded : lazy::add(sum, padded, loc);
    }
    return sum;
  }
  std::vector<Tensor> parts;
  std::int64_t at = 0;
  const auto gap = [&](std::int64_t count) {
    Shape shape = sliced.shape;
    shape[axis] = count;
    parts.push_back(lazy::zeros(shape, pieces.front().cotangent.dtype(), loc));
  };
  for (const SlicePiece& p : pieces) {
    if (p.first > at) gap(p.first - at);
    parts.push_back(p.cotangent);
    at = p.first + p.count;
  }
  if (at < extent) gap(extent - at);
  return parts.size() == 1 ? parts.front() : lazy::cat(parts, axis, loc);
}

}  // namespace lazy::autodiff

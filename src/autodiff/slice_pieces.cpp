#include "autodiff/slice_pieces.h"

#include <algorithm>

#include "lazy/factories.h"
#include "lazy/indexing.h"
#include "lazy/ops.h"

namespace lazy::autodiff {

namespace {

// `t` with `before` zeros ahead of it and `after` zeros behind it along `axis`.
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

// The piece alone in a tensor of `extent` positions along its axis: joined with zeros, a
// concatenation fuses as a pointwise read (an index_add would sort positions and scatter).
Tensor put_in_place(const SlicePiece& p, std::int64_t extent, std::source_location loc) {
  Tensor spread = p.cotangent;
  const std::int64_t covered = (p.count - 1) * p.stride + 1;
  if (p.stride > 1) {
    // Each element followed by stride - 1 zeros, the trailing ones dropped: spaced over [outer,
    // count, inner], so that the axis of zeros fits beside a tensor of any rank.
    const Shape shape = spread.shape(loc);
    std::int64_t outer = 1, inner = 1;
    for (int a = 0; a < p.axis; ++a) outer *= shape[a];
    for (int a = p.axis + 1; a < shape.rank(); ++a) inner *= shape[a];
    const Tensor spaced =
        pad_with_zeros(spread.reshape({outer, p.count, 1, inner}, loc), 2, 0, p.stride - 1, loc);
    Shape placed = shape;
    placed[p.axis] = covered;
    spread = spaced.reshape({outer, p.count * p.stride, inner}, loc)
                 .slice(1, 0, covered, 1, loc)
                 .reshape(placed, loc);
  }
  return pad_with_zeros(spread, p.axis, p.first, extent - p.first - covered, loc);
}

// Pieces along one axis that overlap or are strided, added into zeros at their positions by one
// index_add: placing each in a whole tensor and summing them was quadratic (every window of 4 of
// a tensor of 8000 took 7 s to differentiate).
Tensor add_at_positions(const std::vector<SlicePiece>& pieces, const ir::Node& sliced,
                        std::source_location loc) {
  const int axis = pieces.front().axis;
  std::vector<Tensor> cotangents;
  std::vector<std::int64_t> positions;
  for (const SlicePiece& p : pieces) {
    cotangents.push_back(p.cotangent);
    for (std::int64_t j = 0; j < p.count; ++j) positions.push_back(p.first + j * p.stride);
  }
  const DType dtype = pieces.front().cotangent.dtype();
  const Tensor index = from_data(positions, {std::int64_t(positions.size())}, DType::i64, loc);
  return index_add(zeros(sliced.shape, dtype, loc), axis, index, lazy::cat(cotangents, axis, loc),
                   1, loc);
}

// Up to this many pieces that overlap or are strided are each put in place and summed, which
// fuses; more are added at their positions.
constexpr std::size_t kMaxPiecesPutInPlace = 8;

}  // namespace

std::optional<SlicePiece> slice_piece(const ir::Node& slice, const Tensor& cotangent,
                                      std::source_location loc) {
  const int axis = int(slice.attrs[0]);
  const std::int64_t start = slice.attrs[1], step = slice.attrs[2];
  const std::int64_t count = slice.shape[axis];
  if (count == 0) return std::nullopt;
  // In increasing positions: a negative step read them backwards.
  if (step > 0) return SlicePiece{axis, start, count, step, cotangent};
  return SlicePiece{axis, start + step * (count - 1), count, -step,
                    cotangent.slice(axis, {}, {}, -1, loc)};
}

Tensor join_pieces(std::vector<SlicePiece> pieces, const ir::Node& sliced,
                   std::source_location loc) {
  const int axis = pieces.front().axis;
  const std::int64_t extent = sliced.shape[axis];
  std::sort(pieces.begin(), pieces.end(),
            [](const SlicePiece& a, const SlicePiece& b) { return a.first < b.first; });
  bool side_by_side = true;
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    side_by_side = side_by_side && pieces[i].axis == axis && pieces[i].stride == 1 &&
                   (i == 0 || pieces[i - 1].first + pieces[i - 1].count <= pieces[i].first);
  }
  const DType dtype = pieces.front().cotangent.dtype();
  const bool alike = std::all_of(pieces.begin(), pieces.end(), [&](const SlicePiece& p) {
    return p.axis == axis && p.cotangent.dtype() == dtype;
  });
  if (!side_by_side && alike && pieces.size() > kMaxPiecesPutInPlace)
    return add_at_positions(pieces, sliced, loc);
  if (!side_by_side) {
    Tensor sum;
    for (const SlicePiece& p : pieces) {
      Tensor placed = put_in_place(p, sliced.shape[p.axis], loc);
      sum = sum.node() == nullptr ? placed : lazy::add(sum, placed, loc);
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

// The cotangents that slices of one tensor send back, joined once. q, k and v sliced from one
// product, or the two halves rope rotates, each padded with zeros to the whole tensor and then
// summed, cost a concatenation per slice and the sums between them; their runs side by side along
// one axis are one concatenation of the pieces, with zeros in the gaps.
#pragma once

#include <cstdint>
#include <optional>
#include <source_location>
#include <vector>

#include "ir/node.h"
#include "lazy/tensor.h"

namespace lazy::autodiff {

// A slice's cotangent and where it goes in the sliced tensor: `count` positions from `first` along
// `axis`, in increasing order.
struct SlicePiece {
  int axis;
  std::int64_t first;
  std::int64_t count;
  Tensor cotangent;
};

// `t` with `before` zeros ahead of it and `after` zeros behind it along `axis`.
Tensor pad_with_zeros(const Tensor& t, int axis, std::int64_t before, std::int64_t after,
                      std::source_location loc);

// The piece Slice node `slice` (steps of 1 or -1) sends its input for `cotangent`; none for other
// steps or an empty slice.
std::optional<SlicePiece> slice_piece(const ir::Node& slice, const Tensor& cotangent,
                                      std::source_location loc);

// The cotangent of `sliced` (of its shape) the pieces make: runs along one axis that do not
// overlap are one concatenation, zeros filling the gaps; else each is padded and they are summed.
Tensor join_pieces(std::vector<SlicePiece> pieces, const ir::Node& sliced,
                   std::source_location loc);

}  // namespace lazy::autodiff

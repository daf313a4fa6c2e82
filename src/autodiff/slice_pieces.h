// The cotangents that slices of one tensor send back, joined once. q, k and v sliced from one
// product, or the two halves rope rotates, each padded with zeros to the whole tensor and then
// summed, cost a concatenation per slice and the sums between them; their runs side by side along
// one axis are one concatenation of the pieces, with zeros in the gaps. A single slice's
// gradient rule (vjp_rules.cpp) is the join of its one piece.
#pragma once

#include <cstdint>
#include <optional>
#include <source_location>
#include <vector>

#include "ir/node.h"
#include "lazy/tensor.h"

namespace lazy::autodiff {

// A slice's cotangent and where it goes in the sliced tensor: `count` positions along `axis`,
// from `first` on, `stride` apart, in increasing order.
struct SlicePiece {
  int axis;
  std::int64_t first;
  std::int64_t count;
  std::int64_t stride;
  Tensor cotangent;
};

// The piece Slice node `slice` sends its input for `cotangent`; none for an empty slice.
std::optional<SlicePiece> slice_piece(const ir::Node& slice, const Tensor& cotangent,
                                      std::source_location loc);

// The cotangent of `sliced` (of its shape) the pieces make: unit-stride runs along one axis that
// do not overlap are one concatenation, zeros filling the gaps; more than a few others along one
// axis are added at their positions by one index_add; else each is put in place with zeros
// around it and they are summed.
Tensor join_pieces(std::vector<SlicePiece> pieces, const ir::Node& sliced,
                   std::source_location loc);

}  // namespace lazy::autodiff

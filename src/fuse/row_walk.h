// How a load (or a generator's index) walks a row region's iteration space: the start of each row
// from the row's index, and one stride along the row's elements. The kept axes may need two
// strided groups: a causal mask [S, S] broadcast over [B, H, S, S] starts row r at (r % S) * S,
// and a bias shared by the heads of a batch at (r / (H * S)) * stride. More than two groups is an
// access no row kernel walks.
#pragma once

#include <cstdint>
#include <optional>

#include "fuse/partition.h"
#include "ir/layout.h"

namespace lazy::fuse {

// Element j of row r is at offset + start(r) + j * extent_stride, where start(r) is
// r * row_stride with one group, or (r / inner_rows) * outer_stride + (r % inner_rows) *
// row_stride with two (inner_rows > 0).
struct RowWalk {
  std::int64_t offset = 0;
  std::int64_t row_stride = 0;
  std::int64_t inner_rows = 0;
  std::int64_t outer_stride = 0;
  std::int64_t extent_stride = 0;
};

// The walk of `layout` over a row region whose last `folded_axes` axes make each row; nothing
// when the folded axes do not collapse into one stride or the kept ones into two.
std::optional<RowWalk> row_walk(const ir::Layout& layout, int folded_axes);

// Why the terms of row region `region` cannot all be walked by rows, if they cannot: a load or
// generator whose axes do not collapse as above, or a load whose rows are neighbours in memory
// (sum over axis 1 of a transpose), which the column kernel reads coalesced instead.
std::optional<Refusal> row_access_refusal(const Region& region);

// A layout over a per-row root's shape (the kept axes, the folded ones dropped or kept as 1s) as
// one over the row region's iteration space `space`: the same element for the whole row.
ir::Layout per_row_layout(const ir::Layout& layout, const Shape& space, int folded_axes);

// Whether `layout` (over a row region's iteration space `space`) reads a reduction's result as
// the row's own value: stride 0 along the folded axes, the row's index along the kept ones.
bool is_row_broadcast(const ir::Layout& layout, const Shape& space, int folded_axes);

}  // namespace lazy::fuse

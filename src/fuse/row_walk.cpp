#include "fuse/row_walk.h"

#include <absl/container/inlined_vector.h>

namespace lazy::fuse {

namespace {

struct Group {
  std::int64_t size;
  std::int64_t stride;
};

// At most one per axis, inline: every load of a row region is walked on every plan miss.
using Groups = absl::InlinedVector<Group, kMaxRank>;

// Axes [first, last) as runs that each walk with one stride, size-1 axes left out.
Groups strided_groups(const ir::Layout& layout, int first, int last) {
  Groups groups;
  for (int a = first; a < last; ++a) {
    const std::int64_t size = layout.shape[a];
    if (size == 1) continue;
    const std::int64_t stride = layout.strides[a];
    if (!groups.empty() && groups.back().stride == stride * size) {
      groups.back() = {groups.back().size * size, stride};
    } else {
      groups.push_back({size, stride});
    }
  }
  return groups;
}

}  // namespace

std::optional<RowWalk> row_walk(const ir::Layout& layout, int folded_axes) {
  const int rank = layout.shape.rank();
  const int kept = rank - folded_axes;
  RowWalk walk;
  walk.offset = layout.offset;
  const Groups row = strided_groups(layout, kept, rank);
  if (row.size() > 1) return std::nullopt;
  if (row.size() == 1) walk.extent_stride = row[0].stride;
  const Groups rows = strided_groups(layout, 0, kept);
  if (rows.size() > 2) return std::nullopt;
  if (rows.size() == 1) walk.row_stride = rows[0].stride;
  if (rows.size() == 2) {
    walk.row_stride = rows[1].stride;
    walk.inner_rows = rows[1].size;
    walk.outer_stride = rows[0].stride;
  }
  return walk;
}

std::optional<Refusal> row_access_refusal(const Region& region) {
  const RowInfo& row = *region.row;
  for (const Term& term : region.terms) {
    if (term.kind != Term::Kind::load && term.kind != Term::Kind::generator) continue;
    if (term.layout.shape.rank() == 0 || row.rows * row.extent == 0) continue;
    const std::optional<RowWalk> walk = row_walk(term.layout, row.folded_axes);
    if (!walk) return Refusal::access_not_row_strided;
    const bool column_major =
        row.rows > 1 && row.extent > 1 && walk->row_stride == 1 && walk->extent_stride > 1;
    if (column_major && term.kind == Term::Kind::load) return Refusal::rows_adjacent_in_memory;
  }
  return std::nullopt;
}

ir::Layout per_row_layout(const ir::Layout& layout, const Shape& space, int folded_axes) {
  const int kept = space.rank() - folded_axes;
  ir::Layout out;
  out.shape = space;
  out.offset = layout.offset;
  for (int a = 0; a < kept; ++a) out.strides[a] = layout.strides[a];
  return out;
}

bool is_row_broadcast(const ir::Layout& layout, const Shape& space, int folded_axes) {
  const int kept = space.rank() - folded_axes;
  Shape kept_shape;
  for (int a = 0; a < kept; ++a) kept_shape.push_back(space[a]);
  const ir::Layout rows = ir::Layout::contiguous(kept_shape);
  if (layout.offset != 0) return false;
  for (int a = 0; a < space.rank(); ++a) {
    if (space[a] == 1) continue;
    if (layout.strides[a] != (a < kept ? rows.strides[a] : 0)) return false;
  }
  return true;
}

}  // namespace lazy::fuse

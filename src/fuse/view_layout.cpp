#include "fuse/view_layout.h"

namespace lazy::fuse {

std::optional<ir::Layout> compose_view(const ir::Layout& layout, const ir::Node& view) {
  switch (view.op) {
    case ir::Op::Reshape:
      return ir::reshape_layout(layout, view.shape);
    case ir::Op::Permute:
      return ir::permute_layout(layout, {view.attrs.ints.data(), view.attrs.count});
    case ir::Op::Expand:
      return ir::expand_layout(layout, view.shape);
    case ir::Op::Slice: {
      const int axis = int(view.attrs[0]);
      return ir::slice_layout(layout, axis, view.attrs[1], view.attrs[2], view.shape[axis]);
    }
    default:
      return layout;  // not an index map: the elements stay where they are
  }
}

std::optional<ir::Layout> compose_views(const ir::Layout& base,
                                        std::span<const ir::Node* const> views,
                                        const ir::Node** failed_view) {
  ir::Layout layout = base;
  for (std::size_t i = views.size(); i-- > 0;) {
    std::optional<ir::Layout> composed = compose_view(layout, *views[i]);
    if (!composed) {
      *failed_view = views[i];
      return std::nullopt;
    }
    layout = *composed;
  }
  return layout;
}

}  // namespace lazy::fuse

#include "fuse/view_layout.h"

namespace lazy::fuse {

std::optional<ir::Layout> compose_views(const ir::Layout& base,
                                        std::span<const ir::Node* const> views,
                                        const ir::Node** failed_view) {
  ir::Layout layout = base;
  for (std::size_t i = views.size(); i-- > 0;) {
    std::optional<ir::Layout> composed = ir::view_layout(layout, *views[i]);
    if (!composed) {
      *failed_view = views[i];
      return std::nullopt;
    }
    layout = *composed;
  }
  return layout;
}

}  // namespace lazy::fuse

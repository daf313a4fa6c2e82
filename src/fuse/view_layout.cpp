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

ViewChain view_chain(const ir::Node& node, const std::vector<bool>* written) {
  ViewChain chain{&node, {}};
  while (chain.base->is_pending() && ir::op_kind(chain.base->op) == ir::OpKind::view &&
         !(written && (*written)[chain.base->trace_index])) {
    chain.views.push_back(chain.base);
    chain.base = chain.base->inputs[0];
  }
  return chain;
}

ir::NodePtr shifted_part(const ir::Node& joined, const ir::Node& part, std::int64_t start,
                         int axis) {
  const ir::NodePtr shift = ir::make_node(ir::Op::Slice, part.dtype, joined.shape, joined.loc);
  shift->attrs.push(axis);
  shift->attrs.push(-start);
  shift->attrs.push(1);
  return shift;
}

}  // namespace lazy::fuse

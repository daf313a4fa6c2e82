// Views as layouts: a view node maps its elements to its input's, so applied to the layout of the
// input's memory it gives the layout of its own elements in that memory. This is how a load reads
// through transposes, slices and broadcasts without a copy (one view: ir::view_layout).
#pragma once

#include <optional>
#include <span>
#include <vector>

#include "ir/layout.h"
#include "ir/node.h"
#include "ir/view_layout.h"

namespace lazy::fuse {

// A Slice view that moves `part`, starting at `start` along `axis` of the concatenation `joined`,
// to its place: it has the concatenation's shape and reads the part shifted by -start.
ir::NodePtr shifted_part(const ir::Node& joined, const ir::Node& part, std::int64_t start,
                         int axis);

// Applies the views between a consumer and a tensor, innermost first, to the tensor's layout.
// `views` lists the view nodes from the consumer down. Nothing when a reshape on the way cannot
// be expressed with strides; *failed_view is then that reshape.
std::optional<ir::Layout> compose_views(const ir::Layout& base,
                                        std::span<const ir::Node* const> views,
                                        const ir::Node** failed_view);

// The pending views between a consumer and the tensor they read: `views` from `node` down to
// `base`, the first node that is not a pending view (or, with `written`, one that is cut).
struct ViewChain {
  const ir::Node* base;
  std::vector<const ir::Node*> views;
};
ViewChain view_chain(const ir::Node& node, const std::vector<bool>* written = nullptr);

}  // namespace lazy::fuse

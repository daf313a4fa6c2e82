// A view node applied to a layout: the one place that knows what each view op's attrs mean.
#pragma once

#include <optional>

#include "ir/layout.h"
#include "ir/node.h"

namespace lazy::ir {

// The layout `view` (a node of kind view) makes of its input laid out as `in`; nullopt for a
// reshape that no strides can express (the caller copies, or cuts).
std::optional<Layout> view_layout(const Layout& in, const Node& view);

}  // namespace lazy::ir

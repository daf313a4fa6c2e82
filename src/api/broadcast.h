// NumPy broadcasting of operand shapes.
#pragma once

#include <source_location>
#include <span>
#include <string_view>

#include "ir/node.h"

namespace lazy::api {

// The shape operands of these shapes broadcast to; throws ShapeError naming all of them.
Shape broadcast_shapes(std::span<const Shape> shapes, std::string_view op,
                       std::source_location loc);

// The node itself when it already has `shape` or is 0-d (pointwise ops read 0-d inputs as
// scalars), else an Expand view of it.
ir::Node* broadcast_node(ir::Node* node, const Shape& shape, std::source_location loc);

// The node itself when it already has `shape`, else an Expand view of it (0-d nodes included).
ir::Node* expand_node(ir::Node* node, const Shape& shape, std::source_location loc);

}  // namespace lazy::api

#include "api/broadcast.h"

#include <absl/strings/str_join.h>

#include "api/recording.h"

namespace lazy::api {

Shape broadcast_shapes(std::span<const Shape> shapes, std::string_view op,
                       std::source_location loc) {
  bool all_equal = true;
  for (const Shape& s : shapes) all_equal = all_equal && s == shapes[0];
  if (all_equal && !shapes.empty()) return shapes[0];
  int rank = 0;
  for (const Shape& s : shapes) rank = std::max(rank, s.rank());
  Shape out;
  for (int axis = 0; axis < rank; ++axis) out.push_back(1);
  for (const Shape& s : shapes) {
    int lead = rank - s.rank();
    for (int axis = 0; axis < s.rank(); ++axis) {
      std::int64_t& dim = out[lead + axis];
      if (s[axis] == dim || s[axis] == 1) continue;
      if (dim != 1) {
        fail<ShapeError>(
            loc, op, "shapes ",
            absl::StrJoin(shapes, " and ",
                          [](std::string* o, const Shape& x) { o->append(x.to_string()); }),
            " cannot be broadcast together");
      }
      dim = s[axis];
    }
  }
  check_shape(out, op, loc);
  return out;
}

ir::Node* broadcast_node(ir::Node* node, const Shape& shape, std::source_location loc) {
  if (node->shape.rank() == 0) return node;
  return expand_node(node, shape, loc);
}

ir::Node* expand_node(ir::Node* node, const Shape& shape, std::source_location loc) {
  if (node->shape == shape) return node;
  ir::NodePtr expand = ir::make_node(ir::Op::Expand, node->dtype, shape, loc);
  expand->inputs.push_back(node);
  ir::Node* expanded = expand.get();
  ir::Trace::current().append(std::move(expand));
  return expanded;
}

}  // namespace lazy::api

#include "ref/concat.h"

namespace lazy::ref {

Value evaluate_concat(const ir::Node& node, std::span<const Value> inputs) {
  const int axis = int(node.attrs[0]);
  auto out = std::make_shared<Buffer>(node.dtype, node.shape.numel());
  const ir::Layout out_layout = ir::Layout::contiguous(node.shape);
  const bool floating = is_floating(node.dtype);
  std::int64_t start = 0;  // where the current input begins along the axis
  for (const Value& input : inputs) {
    const Shape& shape = input.layout.shape;
    std::array<std::int64_t, kMaxRank> c{};
    for (std::int64_t i = 0; i < shape.numel(); ++i) {
      std::int64_t from = input.layout.offset, to = start * out_layout.strides[axis];
      for (int a = 0; a < shape.rank(); ++a) {
        from += c[a] * input.layout.strides[a];
        to += c[a] * out_layout.strides[a];
      }
      if (floating) {
        out->floats[std::size_t(to)] = input.buffer->floats[std::size_t(from)];
      } else {
        out->ints[std::size_t(to)] = input.buffer->ints[std::size_t(from)];
      }
      for (int a = shape.rank() - 1; a >= 0; --a) {
        if (++c[a] < shape[a]) break;
        c[a] = 0;
      }
    }
    start += shape[axis];
  }
  return {out, out_layout};
}

}  // namespace lazy::ref

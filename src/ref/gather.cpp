#include "ref/gather.h"

#include "ir/gather.h"
#include "ir/index_faults.h"

namespace lazy::ref {

Value evaluate_gather(const ir::Node& node, const Value& source, const Value& index) {
  const int axis = ir::gather_axis(node);
  const std::int64_t bound = source.layout.shape[axis];
  auto out = std::make_shared<Buffer>(node.dtype, node.shape.numel());
  const bool floating = is_floating(node.dtype);
  const Shape& shape = node.shape;
  std::array<std::int64_t, kMaxRank> c{};
  for (std::int64_t i = 0; i < shape.numel(); ++i) {
    std::int64_t at = index.layout.offset, from = source.layout.offset;
    for (int a = 0; a < shape.rank(); ++a) {
      at += c[a] * index.layout.strides[a];
      if (a != axis) from += c[a] * source.layout.strides[a];
    }
    const std::int64_t picked = index.buffer->ints[std::size_t(at)];
    const bool in_range = picked >= 0 && picked < bound;
    if (!in_range) {
      ir::report_index_fault({std::string(ir::gather_caller_name(node)), bound, node.loc}, picked);
    }
    from += (in_range ? picked : 0) * source.layout.strides[axis];
    if (floating) {
      out->floats[std::size_t(i)] = in_range ? source.buffer->floats[std::size_t(from)] : 0.0;
    } else {
      out->ints[std::size_t(i)] = in_range ? source.buffer->ints[std::size_t(from)] : 0;
    }
    for (int a = shape.rank() - 1; a >= 0; --a) {
      if (++c[a] < shape[a]) break;
      c[a] = 0;
    }
  }
  return {out, ir::Layout::contiguous(shape)};
}

}  // namespace lazy::ref

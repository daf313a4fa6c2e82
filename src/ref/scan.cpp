#include "ref/scan.h"

#include <cmath>
#include <limits>

#include "ir/dtype_codec.h"
#include "ref/fold_values.h"

namespace lazy::ref {

namespace {

// Each row's running fold in place (sum, product), or where `combine` is a comparison (ge, le:
// cummax, cummin) its running best value or position: NaN sticks once met, else `combine`
// prefers the later element.
template <class T, class Combine>
void scan_rows(std::vector<T>& values, std::int64_t extent, const ir::ReductionInfo& info,
               Combine combine, bool give_position) {
  const bool selects = ir::op_info(info.combine).dtype_rule == ir::DTypeRule::to_bool;
  if (extent == 0) return;
  for (std::size_t start = 0; start < values.size(); start += std::size_t(extent)) {
    T acc = identity_value<T>(info.identity);
    std::int64_t at = -1;
    for (std::int64_t j = 0; j < extent; ++j) {
      T& v = values[start + std::size_t(j)];
      if (!selects) {
        acc = combine(acc, v, T{});
        v = acc;
        continue;
      }
      const bool take = at < 0 || (!is_nan(acc) && (is_nan(v) || combine(v, acc, T{}) != 0));
      if (take) {
        acc = v;
        at = j;
      }
      v = give_position ? T(at) : acc;
    }
  }
}

}  // namespace

Value evaluate_scan(const ir::Node& node, const Value& input) {
  const ir::ReductionInfo& info = ir::scan_info(node.op);
  const ir::OpInfo& combine = ir::op_info(info.combine);
  const Shape& shape = node.shape;
  const std::int64_t extent = shape.rank() == 0 ? 1 : shape[shape.rank() - 1];
  const bool positional = info.fold == ir::FoldKind::positional;
  const DType compute = node.compute_dtype;
  auto out = std::make_shared<Buffer>(node.dtype, shape.numel());
  if (is_floating(compute)) {
    std::vector<double> values = gather_floats(input, shape, node.inputs[0]->dtype);
    scan_rows(values, extent, info, combine.host_float, positional);
    if (positional) {
      out->ints.assign(values.begin(), values.end());
    } else {
      for (double& v : values) v = ir::round_to_dtype(v, node.dtype);
      out->floats = std::move(values);
    }
  } else {
    std::vector<std::int64_t> values = gather_ints(input, shape, compute);
    scan_rows(values, extent, info, combine.host_int, positional);
    if (!positional)
      for (std::int64_t& v : values) v = ir::wrap_to_dtype(v, node.dtype);
    out->ints = std::move(values);
  }
  return {std::move(out), ir::Layout::contiguous(shape)};
}

}  // namespace lazy::ref

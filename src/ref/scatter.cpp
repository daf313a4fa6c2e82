#include "ref/scatter.h"

#include <string>
#include <vector>

#include "ir/dtype_codec.h"
#include "ir/index_faults.h"
#include "ir/scatter.h"

namespace lazy::ref {

namespace {

// Folds src's elements into out's rows (extent n) where the index names them, in order of the
// index's elements, which sorting made the order of their positions among equal indices.
template <class T>
void fold_rows(std::vector<T>& out, std::int64_t n, const ir::Node& node,
               const std::vector<std::int64_t>& index, const std::vector<std::int64_t>& order,
               const std::vector<T>& src) {
  const Shape& out_shape = node.shape;
  const Shape& index_shape = node.inputs[ir::scatter_sorted_index]->shape;
  const int rank = out_shape.rank();
  const std::int64_t m = index_shape[rank - 1];
  const bool add = node.op == ir::Op::ScatterAdd;
  if (m == 0) return;
  std::array<std::int64_t, kMaxRank> c{};  // the index row's leading coordinates
  for (std::int64_t row = 0; row * m < index_shape.numel(); ++row) {
    std::int64_t out_row = 0;
    for (int a = 0; a < rank - 1; ++a) out_row = out_row * out_shape[a] + c[a];
    for (std::int64_t k = row * m; k < (row + 1) * m; ++k) {
      const std::int64_t p = index[std::size_t(k)];
      if (p < 0 || p >= n) {
        ir::report_index_fault({std::string(ir::scatter_caller_name(node)), n, node.loc}, p);
        continue;
      }
      T& target = out[std::size_t(out_row * n + p)];
      const T& v = src[std::size_t(row * m + order[std::size_t(k)])];
      target = add ? target + v : v;
    }
    for (int a = rank - 2; a >= 0; --a) {
      if (++c[a] < index_shape[a]) break;
      c[a] = 0;
    }
  }
}

}  // namespace

Value evaluate_scatter(const ir::Node& node, std::span<const Value> inputs) {
  const Shape& shape = node.shape;
  const std::int64_t n = shape[shape.rank() - 1];
  const Value& index_value = inputs[ir::scatter_sorted_index];
  const Shape& index_shape = index_value.layout.shape;
  const std::vector<std::int64_t> index =
      gather_ints(index_value, index_shape, node.inputs[ir::scatter_sorted_index]->dtype);
  const std::vector<std::int64_t> order =
      gather_ints(inputs[ir::scatter_order], index_shape, DType::i64);
  const DType dtype = node.dtype;
  auto out = std::make_shared<Buffer>(dtype, shape.numel());
  if (is_floating(dtype)) {
    std::vector<double> values = gather_floats(inputs[ir::scatter_x], shape, dtype);
    fold_rows(values, n, node, index, order,
              gather_floats(inputs[ir::scatter_src], index_shape, dtype));
    for (double& v : values) v = ir::round_to_dtype(v, dtype);
    out->floats = std::move(values);
  } else {
    std::vector<std::int64_t> values = gather_ints(inputs[ir::scatter_x], shape, dtype);
    fold_rows(values, n, node, index, order,
              gather_ints(inputs[ir::scatter_src], index_shape, dtype));
    for (std::int64_t& v : values) v = ir::wrap_to_dtype(v, dtype);
    out->ints = std::move(values);
  }
  return {out, ir::Layout::contiguous(shape)};
}

}  // namespace lazy::ref

#include "ref/scatter.h"

#include <string>
#include <type_traits>
#include <vector>

#include "ir/dtype_codec.h"
#include "ir/index_faults.h"
#include "ir/op_reference.h"
#include "ir/scatter.h"

namespace lazy::ref {

namespace {

// a + b, integers wrapping as add's do (C++'s signed overflow is undefined), floats in f32 as the
// kernel adds.
template <class T>
T plus(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    return ir::reference::add(a, b);
  } else {
    return a + b;
  }
}

// Folds src's elements into out where the index names them, walking the index in row-major
// order: along each line of the axis in the sorted order, which among equal indices is the
// order of their positions.
template <class T>
void fold_lines(std::vector<T>& out, const ir::Node& node, const std::vector<std::int64_t>& index,
                const std::vector<std::int64_t>& order, const std::vector<T>& src) {
  const Shape& out_shape = node.shape;
  const Shape& index_shape = node.inputs[ir::scatter_sorted_index]->shape;
  const int rank = out_shape.rank(), axis = ir::scatter_axis(node);
  const std::int64_t n = out_shape[axis];
  const bool add = node.op == ir::Op::ScatterAdd;
  const ir::Layout dense_out = ir::Layout::contiguous(out_shape);
  const ir::Layout dense_index = ir::Layout::contiguous(index_shape);
  std::array<std::int64_t, kMaxRank> c{};
  for (std::int64_t i = 0; i < index_shape.numel(); ++i) {
    const std::int64_t p = index[std::size_t(i)];
    if (p < 0 || p >= n) {
      ir::report_index_fault({std::string(ir::scatter_caller_name(node)), n, node.loc, true}, p);
    } else {
      std::int64_t to = 0, from = 0;
      for (int a = 0; a < rank; ++a) {
        to += (a == axis ? p : c[a]) * dense_out.strides[a];
        from += (a == axis ? order[std::size_t(i)] : c[a]) * dense_index.strides[a];
      }
      T& target = out[std::size_t(to)];
      target = add ? plus(target, src[std::size_t(from)]) : src[std::size_t(from)];
    }
    for (int a = rank - 1; a >= 0; --a) {
      if (++c[a] < index_shape[a]) break;
      c[a] = 0;
    }
  }
}

}  // namespace

Value evaluate_scatter(const ir::Node& node, std::span<const Value> inputs) {
  const Shape& shape = node.shape;
  const Value& index_value = inputs[ir::scatter_sorted_index];
  const Shape& index_shape = index_value.layout.shape;
  const std::vector<std::int64_t> index =
      gather_ints(index_value, index_shape, node.inputs[ir::scatter_sorted_index]->dtype);
  const std::vector<std::int64_t> order =
      gather_ints(inputs[ir::scatter_order], index_shape, DType::i64);
  const DType dtype = node.dtype;
  auto out = std::make_shared<Buffer>(dtype, shape.numel());
  if (is_floating(dtype)) {
    // In f32, each add rounded, as the kernel and PyTorch add (f16 and bf16 in f32 too, rounded
    // once at the end): in double, 3e38 + 3e38 - 3e38 would be 3e38 where they give inf.
    const std::vector<double> x = gather_floats(inputs[ir::scatter_x], shape, dtype);
    const std::vector<double> src = gather_floats(inputs[ir::scatter_src], index_shape, dtype);
    std::vector<float> values(x.begin(), x.end());
    fold_lines(values, node, index, order, std::vector<float>(src.begin(), src.end()));
    out->floats.resize(values.size());
    for (std::size_t i = 0; i < values.size(); ++i)
      out->floats[i] = ir::round_to_dtype(double(values[i]), dtype);
  } else {
    std::vector<std::int64_t> values = gather_ints(inputs[ir::scatter_x], shape, dtype);
    fold_lines(values, node, index, order,
               gather_ints(inputs[ir::scatter_src], index_shape, dtype));
    for (std::int64_t& v : values) v = ir::wrap_to_dtype(v, dtype);
    out->ints = std::move(values);
  }
  return {out, ir::Layout::contiguous(shape)};
}

}  // namespace lazy::ref

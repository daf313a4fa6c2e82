// Scans: one node per result, always over its input's last axis (api/last_axis.h).
#include "api/last_axis.h"
#include "api/recording.h"
#include "lazy/scans.h"

namespace lazy {

namespace {

using ir::Op;

// Each of `ops` over x's `axis`, in the given dtypes (the accumulator's is `compute`).
std::vector<Tensor> record_scans(std::initializer_list<Op> ops, const Tensor& x, int axis,
                                 std::initializer_list<DType> dtypes, DType compute,
                                 std::string_view name, std::source_location loc) {
  api::sync_if_trace_full();
  ir::Node* input = api::node_of(x, name, loc);
  const int rank = input->shape.rank();
  if (rank == 0) {
    api::normalize_axis(axis, 1, name, loc);
    std::vector<Tensor> out = record_scans(ops, x.reshape({1}, loc), 0, dtypes, compute, name, loc);
    for (Tensor& t : out) t = t.reshape({}, loc);
    return out;
  }
  axis = api::normalize_axis(axis, rank, name, loc);
  const Tensor last = api::axis_to_last(x, axis, loc);
  std::vector<Tensor> out;
  const DType* dtype = dtypes.begin();
  for (Op op : ops) {
    ir::NodePtr node = ir::make_node(op, *dtype++, last.node()->shape, loc);
    node->compute_dtype = compute;
    node->inputs.push_back(last.node());
    Tensor scanned = api::record(std::move(node));
    out.push_back(api::last_to_axis(scanned, axis, loc));
  }
  return out;
}

// Integers and bools sum (multiply) to i64; floating dtypes keep theirs and accumulate in f32.
Tensor folding_scan(Op op, const Tensor& x, int axis, std::string_view name,
                    std::source_location loc) {
  const DType in = api::defined_node(x, name, loc)->dtype;
  const DType dtype = is_floating(in) ? in : DType::i64;
  return record_scans({op}, x, axis, {dtype}, is_floating(in) ? DType::f32 : DType::i64, name,
                      loc)[0];
}

// Values keep the input's dtype and compare in it (bool as an integer); indices are i64.
ValuesAndIndices selecting_scan(Op values, Op indices, const Tensor& x, int axis,
                                std::string_view name, std::source_location loc) {
  const DType in = api::defined_node(x, name, loc)->dtype;
  const DType compute = is_floating(in) ? DType::f32 : in;
  std::vector<Tensor> out =
      record_scans({values, indices}, x, axis, {in, DType::i64}, compute, name, loc);
  return {out[0], out[1]};
}

}  // namespace

Tensor cumsum(const Tensor& x, int axis, std::source_location loc) {
  return folding_scan(Op::CumSum, x, axis, "cumsum", loc);
}

Tensor cumprod(const Tensor& x, int axis, std::source_location loc) {
  return folding_scan(Op::CumProd, x, axis, "cumprod", loc);
}

ValuesAndIndices cummax(const Tensor& x, int axis, std::source_location loc) {
  return selecting_scan(Op::CumMax, Op::CumArgMax, x, axis, "cummax", loc);
}

ValuesAndIndices cummin(const Tensor& x, int axis, std::source_location loc) {
  return selecting_scan(Op::CumMin, Op::CumArgMin, x, axis, "cummin", loc);
}

}  // namespace lazy

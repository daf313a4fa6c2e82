// The diagonal family: diagonal is a strided slice of the two axes seen as one (step columns + 1),
// and trace, eye and outer are written from it, from ranges and from broadcasting.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "api/recording.h"
#include "lazy/factories.h"
#include "lazy/indexing.h"
#include "lazy/linalg.h"
#include "lazy/ops.h"
#include "lazy/reductions.h"

namespace lazy {

Tensor diagonal(const Tensor& x, std::int64_t offset, int axis1, int axis2,
                std::source_location loc) {
  api::sync_if_trace_full();
  const Shape& shape = api::node_of(x, "diagonal", loc)->shape;
  const int first = api::normalize_axis(axis1, shape.rank(), "diagonal", loc);
  const int second = api::normalize_axis(axis2, shape.rank(), "diagonal", loc);
  if (first == second) {
    api::fail<AxisError>(loc, "diagonal", "axis1 and axis2 are both axis ", first);
  }
  // The other axes in order, then the two: [..., rows, columns] seen as [..., rows * columns].
  std::vector<int> order;
  for (int a = 0; a < shape.rank(); ++a)
    if (a != first && a != second) order.push_back(a);
  order.push_back(first);
  order.push_back(second);
  const std::int64_t rows = shape[first], columns = shape[second];
  const std::int64_t length = std::max<std::int64_t>(
      0, offset >= 0 ? std::min(rows, columns - offset) : std::min(rows + offset, columns));
  if (rows != 0 && columns > kMaxElements / rows) {  // the other axes hold no element
    Shape empty;
    for (std::size_t k = 0; k + 2 < order.size(); ++k) empty.push_back(shape[order[k]], loc);
    empty.push_back(length, loc);
    return zeros(empty, x.dtype(), loc);
  }
  Shape flat;
  for (std::size_t k = 0; k + 2 < order.size(); ++k) flat.push_back(shape[order[k]], loc);
  flat.push_back(rows * columns, loc);
  const Tensor matrices = x.permute(order, loc).reshape(flat, loc);
  const int last = flat.rank() - 1;
  if (length == 0) return matrices.slice(last, 0, 0, 1, loc);
  const std::int64_t start = offset >= 0 ? offset : -offset * columns;
  return matrices.slice(last, start, start + (length - 1) * (columns + 1) + 1, columns + 1, loc);
}

Tensor trace(const Tensor& x, std::source_location loc) {
  const Shape& shape = api::node_of(x, "trace", loc)->shape;
  if (shape.rank() != 2) {
    api::fail<ShapeError>(loc, "trace", "needs a 2-d tensor, got shape ", shape.to_string());
  }
  return sum(diagonal(x, 0, 0, 1, loc), {}, false, loc);
}

Tensor outer(const Tensor& a, const Tensor& b, std::source_location loc) {
  const Shape& left = api::node_of(a, "outer", loc)->shape;
  const Shape& right = api::node_of(b, "outer", loc)->shape;
  if (left.rank() != 1 || right.rank() != 1) {
    api::fail<ShapeError>(loc, "outer", "needs two 1-d tensors, got shapes ", left.to_string(),
                          " and ", right.to_string());
  }
  return mul(a.unsqueeze(1, loc), b.unsqueeze(0, loc), loc);
}

Tensor eye(std::int64_t rows, std::optional<std::int64_t> columns, DType dtype,
           std::source_location loc) {
  api::sync_if_trace_full();
  const std::int64_t cols = columns.value_or(rows);
  if (rows < 0 || cols < 0) {
    api::fail<ValueError>(loc, "eye", "sizes must be >= 0, got ", rows, " by ", cols);
  }
  api::check_shape(Shape{rows, cols}, "eye", loc);
  const Tensor on_diagonal = eq(arange(0, rows, 1, DType::i64, loc).unsqueeze(1, loc),
                                arange(0, cols, 1, DType::i64, loc).unsqueeze(0, loc), loc);
  return on_diagonal.to(dtype, loc);
}

std::vector<Tensor> meshgrid(const std::vector<Tensor>& tensors, MeshIndexing indexing,
                             std::source_location loc) {
  api::sync_if_trace_full();
  if (tensors.empty()) api::fail<ValueError>(loc, "meshgrid", "needs at least one tensor");
  if (int(tensors.size()) > kMaxRank) {
    api::fail<ShapeError>(loc, "meshgrid", tensors.size(), " tensors make more than ", kMaxRank,
                          " axes");
  }
  Shape grid;
  const DType dtype = api::node_of(tensors[0], "meshgrid", loc)->dtype;
  for (const Tensor& t : tensors) {
    const Shape& shape = api::node_of(t, "meshgrid", loc)->shape;
    if (t.dtype() != dtype) {
      api::fail<DTypeError>(loc, "meshgrid", "takes tensors of one dtype (as PyTorch's), got ",
                            dtype_name(dtype), " and ", dtype_name(t.dtype()));
    }
    if (shape.rank() > 1) {
      api::fail<ShapeError>(loc, "meshgrid", "takes 1-d or 0-d tensors, got shape ",
                            shape.to_string());
    }
    grid.push_back(shape.numel(), loc);
  }
  // xy lays the first two inputs out along each other's axes.
  const bool swapped = indexing == MeshIndexing::xy && tensors.size() >= 2;
  const auto axis_of = [&](int k) { return swapped && k < 2 ? 1 - k : k; };
  Shape out;
  for (int a = 0; a < grid.rank(); ++a) out.push_back(grid[axis_of(a)], loc);
  std::vector<Tensor> grids;
  for (int k = 0; k < int(tensors.size()); ++k) {
    Shape along(std::vector<std::int64_t>(std::size_t(out.rank()), 1));
    along[axis_of(k)] = grid[k];
    grids.push_back(tensors[std::size_t(k)].reshape(along, loc).expand(out, loc));
  }
  return grids;
}

}  // namespace lazy

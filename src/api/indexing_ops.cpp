// Gathers (a load at positions an index tensor holds, one Gather node whatever the user op) and
// the indexing composites built from views and pointwise ops.
#include "lazy/indexing.h"

#include <algorithm>

#include "api/broadcast.h"
#include "api/index_arguments.h"
#include "api/recording.h"
#include "ir/gather.h"
#include "lazy/factories.h"
#include "lazy/ops.h"
#include "lazy/reductions.h"

namespace lazy {

namespace {

using api::require_index;
using api::scalar_of;
using ir::GatherCaller;

// The Gather node for x and index of equal rank whose sizes agree except along `axis` (checked
// by the callers).
Tensor record_gather(const Tensor& x, int axis, const Tensor& index, GatherCaller caller,
                     std::source_location loc) {
  ir::Node* source = x.node();
  ir::NodePtr node = ir::make_node(ir::Op::Gather, source->dtype, index.node()->shape, loc);
  node->attrs = ir::gather_attrs(axis, caller);
  node->inputs.push_back(source);
  node->inputs.push_back(index.node());
  return api::record(std::move(node));
}

// gather's checks, then x sliced to index's sizes along the other axes so the node's source and
// result agree there.
Tensor checked_gather(const Tensor& x, int axis, const Tensor& index, GatherCaller caller,
                      std::string_view op, std::source_location loc) {
  api::sync_if_trace_full();
  ir::Node* source = api::node_of(x, op, loc);
  ir::Node* picks = api::node_of(index, op, loc);
  const int rank = source->shape.rank();
  // An empty index picks nothing, whatever its dtype, rank and sizes: torch.gather checks none.
  if (picks->shape.numel() == 0 && caller == GatherCaller::gather) {
    api::normalize_axis(axis, std::max(rank, 1), op, loc);
    return zeros(picks->shape, source->dtype, loc);
  }
  require_index(picks, op, loc);
  // A 0-d x or index reads as one element, as PyTorch's (gather of a 0-d x by [0] is [x]).
  if (std::max(picks->shape.rank(), 1) != std::max(rank, 1)) {
    api::fail<ShapeError>(loc, op, "index of shape ", picks->shape.to_string(),
                          " needs the rank of x, which has shape ", source->shape.to_string());
  }
  if (rank == 0 || picks->shape.rank() == 0) {
    api::normalize_axis(axis, 1, op, loc);
    return checked_gather(x.reshape({-1}, loc), 0, index.reshape({-1}, loc), caller, op, loc)
        .reshape(picks->shape, loc);
  }
  axis = api::normalize_axis(axis, rank, op, loc);
  Tensor sliced = x;
  for (int a = 0; a < rank; ++a) {
    if (a == axis) continue;
    if (picks->shape[a] > source->shape[a]) {
      api::fail<ShapeError>(loc, op, "index of shape ", picks->shape.to_string(),
                            " is larger than x of shape ", source->shape.to_string(),
                            " along axis ", a);
    }
    if (picks->shape[a] < source->shape[a]) sliced = sliced.slice(a, 0, picks->shape[a], 1, loc);
  }
  return record_gather(sliced, axis, index, caller, loc);
}

// Keeps x where keep(column - row) holds over its last two axes, else 0.
template <class Keep>
Tensor triangle(const Tensor& x, std::string_view op, Keep keep, std::source_location loc) {
  api::sync_if_trace_full();
  const Shape& shape = api::node_of(x, op, loc)->shape;
  if (shape.rank() < 2) {
    api::fail<ShapeError>(loc, op, "needs at least 2 dims, got shape ", shape.to_string());
  }
  const std::int64_t rows = shape[shape.rank() - 2], cols = shape[shape.rank() - 1];
  Tensor offset = sub(arange(0, cols, 1, DType::i64, loc).reshape({1, cols}, loc),
                      arange(0, rows, 1, DType::i64, loc).reshape({rows, 1}, loc), loc);
  return where(keep(offset), x, scalar_of(x, 0, op, loc), loc);
}

}  // namespace

Tensor gather(const Tensor& x, int axis, const Tensor& index, std::source_location loc) {
  return checked_gather(x, axis, index, GatherCaller::gather, "gather", loc);
}

namespace api {

Tensor named_gather(const Tensor& x, int axis, const Tensor& index, GatherCaller caller,
                    std::source_location loc) {
  return checked_gather(x, axis, index, caller, ir::gather_caller_name_of(caller), loc);
}

}  // namespace api

Tensor take_along_axis(const Tensor& x, const Tensor& index, int axis, std::source_location loc) {
  api::sync_if_trace_full();
  ir::Node* source = api::node_of(x, "take_along_axis", loc);
  ir::Node* picks = api::node_of(index, "take_along_axis", loc);
  require_index(picks, "take_along_axis", loc);
  const int rank = source->shape.rank();
  if (picks->shape.rank() != rank) {
    api::fail<ShapeError>(loc, "take_along_axis", "index of shape ", picks->shape.to_string(),
                          " needs the rank of x, which has shape ", source->shape.to_string());
  }
  if (rank == 0) {  // nothing to broadcast: a gather, which reads a 0-d x as [1]
    return checked_gather(x, axis, index, GatherCaller::take_along_axis, "take_along_axis", loc);
  }
  axis = api::normalize_axis(axis, rank, "take_along_axis", loc);
  // Broadcast along the other axes: the axis itself keeps each one's own size.
  for (int a = 0; a < rank; ++a) {
    const std::int64_t from = source->shape[a], picked = picks->shape[a];
    if (a != axis && from != picked && from != 1 && picked != 1) {
      api::fail<ShapeError>(loc, "take_along_axis", "x of shape ", source->shape.to_string(),
                            " and index of shape ", picks->shape.to_string(), " differ along axis ",
                            a, " (", from, " and ", picked,
                            "), where they must broadcast; only axis ", axis, " may differ");
    }
  }
  Shape x_shape = source->shape, index_shape = picks->shape;
  x_shape[axis] = index_shape[axis] = 1;
  const std::array shapes = {x_shape, index_shape};
  Shape common = api::broadcast_shapes(shapes, "take_along_axis", loc);
  Shape x_target = common, index_target = common;
  x_target[axis] = source->shape[axis];
  index_target[axis] = picks->shape[axis];
  return record_gather(x.expand(x_target, loc), axis, index.expand(index_target, loc),
                       GatherCaller::take_along_axis, loc);
}

Tensor index_select(const Tensor& x, int axis, const Tensor& index, std::source_location loc) {
  api::sync_if_trace_full();
  ir::Node* source = api::node_of(x, "index_select", loc);
  ir::Node* picks = api::node_of(index, "index_select", loc);
  require_index(picks, "index_select", loc);
  if (picks->shape.rank() > 1) {
    api::fail<ShapeError>(loc, "index_select", "needs a 1-d index, got shape ",
                          picks->shape.to_string());
  }
  const int rank = source->shape.rank();
  if (rank == 0) {
    if (picks->shape.numel() != 1) {
      api::fail<ShapeError>(loc, "index_select",
                            "a 0-d x takes an index of one element, got shape ",
                            picks->shape.to_string());
    }
    return checked_gather(x, axis, index.reshape({}, loc), GatherCaller::index_select,
                          "index_select", loc);
  }
  axis = api::normalize_axis(axis, rank, "index_select", loc);
  const std::int64_t length = picks->shape.numel();
  Shape along(std::vector<std::int64_t>(std::size_t(rank), 1));
  along[axis] = length;
  Shape result = source->shape;
  result[axis] = length;
  return record_gather(x, axis, index.reshape(along, loc).expand(result, loc),
                       GatherCaller::index_select, loc);
}

Tensor embedding(const Tensor& weight, const Tensor& ids, std::source_location loc) {
  api::sync_if_trace_full();
  ir::Node* table = api::node_of(weight, "embedding", loc);
  ir::Node* picks = api::node_of(ids, "embedding", loc);
  require_index(picks, "embedding", loc);
  if (table->shape.rank() != 2) {
    api::fail<ShapeError>(loc, "embedding", "needs a 2-d weight [num, dim], got shape ",
                          table->shape.to_string());
  }
  if (picks->shape.rank() == 0)
    return embedding(weight, ids.reshape({1}, loc), loc).reshape({table->shape[1]}, loc);
  api::require_room_for_an_axis(picks->shape, "embedding", loc);
  // The table seen as [ids' leading sizes..., num, dim]; each id picks along num.
  const int axis = picks->shape.rank() - 1;
  Shape source = picks->shape;
  source[axis] = table->shape[0];
  source.push_back(table->shape[1]);
  Shape result = picks->shape;
  result.push_back(table->shape[1]);
  return record_gather(weight.expand(source, loc), axis, ids.unsqueeze(-1, loc).expand(result, loc),
                       GatherCaller::embedding, loc);
}

Tensor one_hot(const Tensor& ids, std::int64_t n, DType dtype, std::source_location loc) {
  api::sync_if_trace_full();
  ir::Node* picks = api::node_of(ids, "one_hot", loc);
  require_index(picks, "one_hot", loc);
  if (n == -1) {
    if (picks->shape.numel() == 0) {
      api::fail<ValueError>(loc, "one_hot", "cannot count the classes of empty ids; pass n");
    }
    const std::int64_t largest = max(ids, Axes{}, false, loc).item<std::int64_t>(loc);  // a host
    if (largest < 0) {  // read, as PyTorch's
      api::fail<ValueError>(loc, "one_hot", "cannot count the classes of ids that are all ",
                            "negative (the largest is ", largest, "); ids are classes >= 0");
    }
    n = largest + 1;
  }
  if (n < 0) api::fail<ValueError>(loc, "one_hot", "needs n >= 0 classes (or -1), got ", n);
  if (n == 0 && picks->shape.numel() == 0) {
    api::fail<ValueError>(loc, "one_hot", "cannot count the classes of empty ids; pass n > 0");
  }
  api::require_room_for_an_axis(picks->shape, "one_hot", loc);
  Shape result = picks->shape;
  result.push_back(n);
  api::check_shape(result, "one_hot", loc);  // before the class range names itself in an error
  return eq(ids.unsqueeze(-1, loc), arange(0, n, 1, DType::i64, loc), loc).to(dtype, loc);
}

Tensor masked_fill(const Tensor& x, const Tensor& mask, const Scalar& value,
                   std::source_location loc) {
  api::sync_if_trace_full();
  ir::Node* filled = api::node_of(x, "masked_fill", loc);
  ir::Node* where_true = api::node_of(mask, "masked_fill", loc);
  if (where_true->dtype != DType::bool_) {
    api::fail<DTypeError>(loc, "masked_fill", "needs a bool mask, got ",
                          dtype_name(where_true->dtype), "; compare it (m != 0) first");
  }
  // Throws for shapes that do not broadcast; the result has the shape both broadcast to.
  const std::array shapes = {filled->shape, where_true->shape};
  api::broadcast_shapes(shapes, "masked_fill", loc);
  return where(mask, scalar_of(x, value, "masked_fill", loc), x, loc);
}

Tensor tril(const Tensor& x, std::int64_t diagonal, std::source_location loc) {
  return triangle(
      x, "tril", [&](const Tensor& d) { return le(d, diagonal, loc); }, loc);
}

Tensor triu(const Tensor& x, std::int64_t diagonal, std::source_location loc) {
  return triangle(
      x, "triu", [&](const Tensor& d) { return ge(d, diagonal, loc); }, loc);
}

std::vector<Tensor> split(const Tensor& x, const std::vector<std::int64_t>& sizes, int axis,
                          std::source_location loc) {
  api::sync_if_trace_full();
  const Shape& shape = api::node_of(x, "split", loc)->shape;
  if (shape.rank() == 0) api::fail<ShapeError>(loc, "split", "cannot split a 0-d tensor");
  axis = api::normalize_axis(axis, shape.rank(), "split", loc);
  // Every size checked before their sum, as PyTorch: a negative one is the error wherever it is.
  for (const std::int64_t size : sizes)
    if (size < 0) api::fail<ValueError>(loc, "split", "sizes must be >= 0, got ", size);
  std::int64_t total = 0;
  for (const std::int64_t size : sizes) {
    if (size > shape[axis] - total) {
      api::fail<ShapeError>(loc, "split", "sizes add up to more than the ", shape[axis],
                            " elements along axis ", axis, " of shape ", shape.to_string());
    }
    total += size;
  }
  if (total != shape[axis]) {
    api::fail<ShapeError>(loc, "split", "sizes add up to ", total, " but axis ", axis, " of shape ",
                          shape.to_string(), " has ", shape[axis]);
  }
  std::vector<Tensor> pieces;
  std::int64_t start = 0;
  for (const std::int64_t size : sizes) {
    pieces.push_back(x.slice(axis, start, start + size, 1, loc));
    start += size;
  }
  return pieces;
}

std::vector<Tensor> split(const Tensor& x, std::int64_t size, int axis, std::source_location loc) {
  api::sync_if_trace_full();
  const Shape& shape = api::node_of(x, "split", loc)->shape;
  if (shape.rank() == 0) api::fail<ShapeError>(loc, "split", "cannot split a 0-d tensor");
  axis = api::normalize_axis(axis, shape.rank(), "split", loc);
  const std::int64_t extent = shape[axis];
  if (size < 0 || (size == 0 && extent > 0)) {
    api::fail<ValueError>(loc, "split", "needs a size > 0 (or 0 for an axis of size 0), got ",
                          size);
  }
  std::vector<std::int64_t> sizes;
  for (std::int64_t start = 0; start < extent; start += size)
    sizes.push_back(std::min(size, extent - start));
  if (sizes.empty()) sizes.push_back(0);  // PyTorch: one empty piece of an empty axis
  return split(x, sizes, axis, loc);
}

std::vector<Tensor> chunk(const Tensor& x, std::int64_t chunks, int axis,
                          std::source_location loc) {
  if (chunks <= 0) api::fail<ValueError>(loc, "chunk", "needs chunks > 0, got ", chunks);
  api::sync_if_trace_full();
  const Shape& shape = api::node_of(x, "chunk", loc)->shape;
  if (shape.rank() == 0) api::fail<ShapeError>(loc, "chunk", "cannot chunk a 0-d tensor");
  const int a = api::normalize_axis(axis, shape.rank(), "chunk", loc);
  const std::int64_t extent = shape[a];
  // An empty axis gives `chunks` empty pieces, as PyTorch's chunk does.
  if (extent == 0) return split(x, std::vector<std::int64_t>(std::size_t(chunks), 0), a, loc);
  return split(x, extent / chunks + (extent % chunks != 0), a, loc);  // no overflow near 2^63
}

}  // namespace lazy

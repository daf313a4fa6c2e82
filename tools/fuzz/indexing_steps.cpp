#include "tools/fuzz/indexing_steps.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace lazy::fuzz {

// A scan of x along a random axis, its sort, or its top-k (k up to a little over the axis: the
// builder takes no more than the axis holds; now and then past the 1024 a top-k kernel selects).
void add_ordering(GrowingProgram& g, int x) {
  const int rank = int(g.shape(x).size());
  Step s;
  s.args = {GrowingProgram::tensor_arg(x)};
  s.axis = rank == 0 ? int(g.random().between(-1, 0)) : g.random_axis(rank);
  if (g.random().chance(65)) {
    s.op = Op::scan;
    s.name =
        std::vector<std::string>{"cumsum",         "cumsum", "cumprod",       "cummax",
                                 "cummax_indices", "cummin", "cummin_indices"}[g.random().below(7)];
  } else if (g.random().chance(30)) {
    s.op = Op::top_k;
    s.name = g.random().chance(60) ? "sort_values" : "sort_indices";
    s.largest = g.random().chance(50);
  } else {
    s.op = Op::top_k;
    s.name = g.random().chance(60) ? "topk_values" : "topk_indices";
    s.k = g.random().chance(10) && rank > 0 ? 0
          : g.random().chance(15) ? g.random().pick(std::vector<std::int64_t>{1024, 1025, 2049})
                                  : g.random().between(1, 40);
    s.largest = g.random().chance(70);
    s.derived_size = g.new_derived_size();
  }
  g.try_add(s);
}

// cat of x with tensors that agree with it on every axis but one (itself, steps of that shape,
// new leaves of a fresh size there, possibly of another dtype), or stack of tensors of x's shape.
void add_join(GrowingProgram& g, int x) {
  const std::vector<Dim> shape = g.shape(x);  // a copy: new leaves grow the builder
  const int rank = int(shape.size());
  const bool stack = rank == 0 || rank >= 6 || g.random().chance(25);
  Step s;
  s.op = Op::join;
  s.name = stack ? "stack" : "cat";
  s.axis = stack ? int(g.random().between(-(rank + 1), rank)) : g.random_axis(rank);
  const int along = stack ? -1 : (s.axis + rank) % rank;
  auto agrees = [&](const std::vector<Dim>& other) {
    if (other.size() != shape.size()) return false;
    for (int a = 0; a < rank; ++a)
      if (a != along && !(other[a] == shape[a])) return false;
    return true;
  };
  std::vector<int> candidates;
  for (int i = 0; i < g.count(); ++i)
    if (agrees(g.shape(i))) candidates.push_back(i);
  s.args = {GrowingProgram::tensor_arg(x)};
  for (int k = int(g.random().between(1, 3)); k > 0; --k) {
    int part = -1;
    const int kind = g.random().weighted({30, 35, 35});
    if (kind == 0) {
      part = x;
    } else if (kind == 1) {
      part = g.random().pick(candidates);
    } else {
      std::vector<Dim> leaf = shape;
      if (!stack) leaf[along] = g.random().chance(15) ? Dim{{}, 0} : Dim{{g.some_size()}, 1};
      const std::optional<DType> dtype =
          g.random().chance(70) ? std::optional(g.dtype(x)) : std::nullopt;
      part = g.add_leaf(leaf, dtype);
      if (part < 0) return;
    }
    s.args.push_back(GrowingProgram::tensor_arg(part));
  }
  if (g.random().chance(50))
    std::swap(s.args[0], s.args[g.random().below(std::int64_t(s.args.size()))]);
  if (!stack) s.derived_size = g.new_derived_size();
  g.try_add(s);
}

Step index_leaf(GrowingProgram& g, const Dim& bound) {
  Step indices;
  indices.op = Op::data;
  indices.dtype = g.random().chance(50) ? DType::i32 : DType::i64;
  indices.data.key = g.random().next();
  indices.data.lo = 0;
  indices.index_bound = bound;
  return indices;
}

// A gather of x along a random axis through one of the API's four forms, its indices a new
// leaf whose values stay inside the axis (Step::index_bound) however the sizes shrink.
void add_gather(GrowingProgram& g, int x) {
  const std::vector<Dim> shape = g.shape(x);  // a copy: new leaves grow the builder
  const int rank = int(shape.size());
  if (rank == 0) return;
  Step s;
  s.op = Op::gather;
  s.name = std::vector<std::string>{"gather", "index_select", "embedding",
                                    "take_along_axis"}[g.random().weighted({40, 25, 15, 20})];
  if (s.name == "embedding" && rank != 2) s.name = "gather";
  s.axis = s.name == "embedding" ? 0 : g.random_axis(rank);
  const int along = (s.axis + rank) % rank;
  if (dim_value(g.program(), shape[along]) == 0) return;
  Step indices = index_leaf(g, shape[along]);
  if (s.name == "index_select") {
    indices.shape = {Dim{{g.some_size()}, 1}};
  } else if (s.name == "embedding") {
    indices.shape = g.fresh_shape();
    if (indices.shape.size() > 3) return;
  } else {
    indices.shape = shape;
    indices.shape[along] = Dim{{g.some_size()}, 1};
    if (s.name == "take_along_axis")
      for (int a = 0; a < rank; ++a)
        if (a != along && g.random().chance(40)) indices.shape[a] = Dim{};
  }
  const int index = g.add(indices);
  if (index < 0) return;
  s.args = {GrowingProgram::tensor_arg(x), GrowingProgram::tensor_arg(index)};
  g.try_add(s);
}

// A scatter into x along a random axis (scatter_add, scatter, or index_add), its index a new leaf
// whose values stay inside the axis (Step::index_bound), repeats likely, and src a new leaf of
// x's dtype shaped like the index (index_add: x's shape with the index's length along the axis).
void add_scatter(GrowingProgram& g, int x) {
  const std::vector<Dim> shape = g.shape(x);  // a copy: new leaves grow the builder
  const int rank = int(shape.size());
  if (rank == 0) return;
  Step s;
  s.op = Op::scatter;
  s.name = std::vector<std::string>{"scatter_add", "scatter",
                                    "index_add"}[g.random().weighted({45, 25, 30})];
  // A sum of bools has no bounds the rules follow: bools are scattered, not added.
  if (g.dtype(x) == DType::bool_) s.name = "scatter";
  s.axis = g.random_axis(rank);
  const int along = (s.axis + rank) % rank;
  if (dim_value(g.program(), shape[along]) == 0) return;
  Step indices = index_leaf(g, shape[along]);
  std::vector<Dim> src_shape = shape;
  if (s.name == "index_add") {
    indices.shape = {Dim{{g.some_size()}, 1}};
    src_shape[along] = indices.shape[0];
  } else {
    indices.shape = shape;
    indices.shape[along] = Dim{{g.some_size()}, 1};
    for (int a = 0; a < rank; ++a)
      if (a != along && g.random().chance(20)) indices.shape[a] = Dim{};
    src_shape = indices.shape;
  }
  const int index = g.add(indices);
  if (index < 0) return;
  const int src = g.add_leaf(src_shape, g.dtype(x));
  if (src < 0) return;
  s.args = {GrowingProgram::tensor_arg(x), GrowingProgram::tensor_arg(index),
            GrowingProgram::tensor_arg(src)};
  g.try_add(s);
}

}  // namespace lazy::fuzz

#include "tools/fuzz/indexing_recording.h"

#include <cmath>

#include "tools/fuzz/reduction_rules.h"
#include "tools/fuzz/value_rules.h"

namespace lazy::fuzz {

RecordedStep record_gather(const Step& s, const Builder& earlier, std::source_location loc) {
  const Tensor& x = earlier.tensor(s.args[0].step);
  const Tensor& index = earlier.tensor(s.args[1].step);
  const std::vector<Dim>& x_shape = earlier.shape(s.args[0].step);
  const std::vector<Dim>& index_shape = earlier.shape(s.args[1].step);
  RecordedStep r;
  r.bounds = earlier.bounds(s.args[0].step);  // picked elements, unchanged
  if (s.name == "embedding") {
    r.out = embedding(x, index, loc);
    r.shape = index_shape;
    r.shape.push_back(x_shape[1]);
  } else if (s.name == "index_select") {
    r.out = index_select(x, s.axis, index, loc);
    r.shape = x_shape;
    r.shape[(s.axis + r.shape.size()) % r.shape.size()] = index_shape[0];
  } else if (s.name == "take_along_axis") {
    r.out = take_along_axis(x, index, s.axis, loc);
    r.shape = index_shape;
    for (std::size_t a = 0; a < r.shape.size(); ++a)
      if (int(a) != (s.axis + int(r.shape.size())) % int(r.shape.size()) && is_one(r.shape[a]))
        r.shape[a] = x_shape[a];
  } else {
    r.out = gather(x, s.axis, index, loc);
    r.shape = index_shape;
  }
  return r;
}

RecordedStep record_scatter(const Step& s, const Builder& earlier, std::source_location loc) {
  const Tensor& x = earlier.tensor(s.args[0].step);
  const Tensor& index = earlier.tensor(s.args[1].step);
  const Tensor& src = earlier.tensor(s.args[2].step);
  RecordedStep r;
  r.shape = earlier.shape(s.args[0].step);
  if (s.name == "scatter_add") {
    r.out = scatter_add(x, s.axis, index, src, loc);
  } else if (s.name == "index_add") {
    r.out = index_add(x, s.axis, index, src, 1, loc);
  } else {
    r.out = scatter(x, s.axis, index, src, loc);
  }
  const DType d = x.dtype();
  // Each element is x's or a src element (scatter), or x's plus some of src's: a sum of at most
  // as many terms as the index has along the axis, plus one.
  const Bounds either = select_rule(Bounds{0, 1, 0, 0}, Operand{earlier.bounds(s.args[0].step), d},
                                    Operand{earlier.bounds(s.args[2].step), d}, d);
  if (s.name == "scatter") {
    r.bounds = either;
  } else {
    const int rank = index.rank();
    const std::int64_t terms =
        (rank == 0 ? 1 : index.shape()[s.name == "index_add" ? 0 : (s.axis + rank) % rank]) + 1;
    r.bounds = reduce_rule("sum", Operand{either, d}, d, terms);
    // Each output folds its run of the sorted index one value after another (PyTorch's atomics
    // add in some order too), so an inexact sum's error grows with the count, not its log
    // (seed 17094 program 55: 65499 values into one element, 1.09 off where the log said 0.53).
    if (r.bounds.err > 0 && is_floating(d))
      r.bounds.err += double(terms) * double(terms) * either.magnitude() * std::ldexp(1.0, -24);
  }
  return r;
}

}  // namespace lazy::fuzz

#include "autodiff/scatter_rules.h"

#include <algorithm>
#include <vector>

#include "api/index_arguments.h"
#include "ir/scatter.h"
#include "lazy/factories.h"
#include "lazy/indexing.h"
#include "lazy/ops.h"

namespace lazy::autodiff {

namespace {

// The node holds the index sorted along the axis and where each came from, so a cotangent read
// in sorted order (`sorted`, of the index's shape) is put back in src's layout.
Tensor in_src_layout(const VjpArgs& a, const Tensor& sorted) {
  const Tensor zeros =
      lazy::zeros(a.node.inputs[ir::scatter_src]->shape, a.cotangent.dtype(), a.loc);
  return lazy::scatter(zeros, ir::scatter_axis(a.node), a.inputs[ir::scatter_order], sorted, a.loc);
}

// The name a bad index found by the gradient's gather goes by.
ir::GatherCaller gradient_caller(const VjpArgs& a) {
  return ir::gradient_gather_caller(ir::ScatterCaller(a.node.attrs[0]));
}

}  // namespace

// A gather's cotangent goes back to its source by a scatter_add.
InputCotangents gather_vjp(const VjpArgs& a) {
  const ir::Node& source = *a.node.inputs[0];
  const int axis = int(a.node.attrs[0]);
  const auto caller = ir::GatherCaller(a.node.attrs[1]);
  // A source broadcast over new leading axes (embedding's table seen as [ids' leading sizes...,
  // num, dim]) takes its cotangent in its own shape, those axes folded into the gathered one: the
  // scatter into the broadcast shape held batch * num * dim elements.
  if (source.op == ir::Op::Expand && axis > 0) {
    const ir::Node& base = *source.inputs[0];
    const std::span<const std::int64_t> kept = source.shape.dims().subspan(std::size_t(axis));
    if (std::equal(kept.begin(), kept.end(), base.shape.begin(), base.shape.end())) {
      const Shape& picked = a.inputs[1].shape(a.loc);
      std::vector<std::int64_t> flat = {1};
      for (int d = 0; d < picked.rank(); ++d) {
        if (d <= axis)
          flat[0] *= picked[d];
        else
          flat.push_back(picked[d]);
      }
      const Shape flat_shape(flat, a.loc);
      const Tensor zeros = lazy::zeros(base.shape, a.cotangent.dtype(), a.loc);
      return {api::scatter_gather_cotangent(zeros, 0, a.inputs[1].reshape(flat_shape, a.loc),
                                            a.cotangent.reshape(flat_shape, a.loc), caller, a.loc),
              Tensor()};
    }
  }
  const Tensor zeros = lazy::zeros(source.shape, a.cotangent.dtype(), a.loc);
  return {api::scatter_gather_cotangent(zeros, axis, a.inputs[1], a.cotangent, caller, a.loc),
          Tensor()};
}

InputCotangents scatter_add_vjp(const VjpArgs& a) {
  // x passes it through; src element c was added at c[axis] = index[c]: it takes the cotangent
  // there.
  const int axis = ir::scatter_axis(a.node);
  return {if_wanted(a, ir::scatter_x, [&] { return a.cotangent; }), Tensor(), Tensor(),
          if_wanted(a, ir::scatter_src, [&] {
            return in_src_layout(
                a, api::named_gather(a.cotangent, axis, a.inputs[ir::scatter_sorted_index],
                                     gradient_caller(a), a.loc));
          })};
}

InputCotangents scatter_last_vjp(const VjpArgs& a) {
  // x's elements that a src element replaced take none; of the src elements sent to one place,
  // only the one that won (the last: in the stably sorted index, the last of its run) takes the
  // cotangent there, the others none, as their values never reach the result.
  const int axis = ir::scatter_axis(a.node);
  const Tensor& sorted_index = a.inputs[ir::scatter_sorted_index];
  const bool empty = sorted_index.numel() == 0;
  return {if_wanted(a, ir::scatter_x,
                    [&] {
                      if (empty) return a.cotangent;
                      const Tensor zeros = lazy::zeros({}, a.cotangent.dtype(), a.loc)
                                               .expand(sorted_index.shape(a.loc), a.loc);
                      return api::named_scatter(a.cotangent, axis, sorted_index, zeros,
                                                ir::ScatterCaller::scatter_gradient, a.loc);
                    }),
          Tensor(), Tensor(), if_wanted(a, ir::scatter_src, [&] {
            if (empty)
              return lazy::zeros(a.node.inputs[ir::scatter_src]->shape, a.cotangent.dtype(), a.loc);
            const std::int64_t length = sorted_index.shape(a.loc)[axis];
            Shape one = sorted_index.shape(a.loc);
            one[axis] = 1;
            // Each sorted position next to the one after it (-1 past the end: no index is).
            const Tensor next = lazy::cat({sorted_index.slice(axis, 1, length, 1, a.loc),
                                           lazy::full(one, -1, sorted_index.dtype(), a.loc)},
                                          axis, a.loc);
            const Tensor won = lazy::ne(sorted_index, next, a.loc);
            const Tensor picked =
                api::named_gather(a.cotangent, axis, sorted_index, gradient_caller(a), a.loc);
            return in_src_layout(a, lazy::where(won, picked, 0.0, a.loc));
          })};
}

}  // namespace lazy::autodiff
